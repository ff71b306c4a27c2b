/*
 * sampler_cpu - the processor time that pmon's sampling takes in an idle
 * program: pmon_init(), sleep SECONDS, pmon_finalize().
 *
 *   PMON_METERS=... sampler_cpu [SECONDS]      (default 20)
 *
 * bench/sampler_cpu.sh runs it once per case (no pmon, a meter at 1 Hz,
 * at 60 Hz, ...) with the peers that play the meters, and prints the
 * table; this program measures one case.
 *
 * The measured window runs from the return of pmon_init() to the call of
 * pmon_finalize(): the steady state, in which only the meters' pollers
 * work (the main thread sleeps).  What opening the meters and writing the
 * report cost is printed apart (init_cpu_ns, fini_cpu_ns).  Times come
 * from the kernel's per-thread and per-process CPU clocks, in
 * nanoseconds, not from getrusage(2)'s ticks:
 *   cpu_ns     the whole process over the window (CLOCK_PROCESS_CPUTIME_ID,
 *              which keeps the time of threads that ended, such as a
 *              library's helper threads)
 *   main_ns    the main thread over the window (CLOCK_THREAD_CPUTIME_ID)
 *   thread TID NAME NS   every other thread alive at both ends of the
 *              window (the pollers), from its CPU clock
 *   other_ns   cpu_ns less main_ns and the listed threads: threads that
 *              began or ended within the window (give or take a few
 *              microseconds: the threads are read just after the window)
 * and wall_ns, the window's length (CLOCK_MONOTONIC).  One "KEY VALUE"
 * line each, for the script.  The peers' processor time (the emulator,
 * snmpd, the Redfish peer) is theirs, not pmon's, and is not counted.
 *
 * Exit status 0, 1 when pmon fails, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pmon.h"

#define MAX_THREADS 64

struct thread_cpu {
  long tid;
  char name[32];
  int64_t ns;
};

static int64_t clock_ns(clockid_t id)
{
  struct timespec ts;

  if (clock_gettime(id, &ts) != 0)
    return -1;
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The CPU clock of thread TID of this process: Linux encodes it as
 * glibc's pthread_getcpuclockid() does (CPUCLOCK_SCHED, per thread). */
static clockid_t thread_clock(long tid)
{
  return (clockid_t)((~(unsigned long)tid << 3) | 6);
}

/* The process's threads but the caller, with their CPU time, into T (at
 * most MAX_THREADS); their number. */
static int threads(struct thread_cpu *t, long self)
{
  DIR *d = opendir("/proc/self/task");
  struct dirent *e;
  int n = 0;

  if (d == NULL)
    return 0;
  while ((e = readdir(d)) != NULL && n < MAX_THREADS) {
    long tid = atol(e->d_name);
    char path[64];
    FILE *f;

    if (tid <= 0 || tid == self)
      continue;
    t[n].tid = tid;
    if ((t[n].ns = clock_ns(thread_clock(tid))) < 0)
      continue; /* it ended meanwhile */
    strcpy(t[n].name, "?");
    snprintf(path, sizeof path, "/proc/self/task/%ld/comm", tid);
    if ((f = fopen(path, "r")) != NULL) {
      if (fgets(t[n].name, sizeof t[n].name, f) != NULL)
        t[n].name[strcspn(t[n].name, "\n ")] = '\0';
      fclose(f);
    }
    n++;
  }
  closedir(d);
  return n;
}

int main(int argc, char **argv)
{
  double seconds = argc > 1 ? atof(argv[1]) : 20;
  struct thread_cpu t0[MAX_THREADS], t1[MAX_THREADS];
  int64_t c0, c1, c2, c3, m0, m1, w0, w1, listed = 0;
  long self = (long)syscall(SYS_gettid);
  struct timespec until;
  int n0, n1;

  if (argc > 2 || !(seconds > 0)) {
    fprintf(stderr, "usage: sampler_cpu [SECONDS]\n");
    return 2;
  }
  setenv("PMON_QUIET", "1", 1);
  c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  if (pmon_init() != 0) {
    fprintf(stderr, "sampler_cpu: %s\n", pmon_errmsg());
    return 1;
  }
  n0 = threads(t0, self);
  w0 = clock_ns(CLOCK_MONOTONIC);
  m0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  c1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  /* The idle program: one absolute sleep, taken up again if a signal
   * breaks it. */
  until.tv_sec = (time_t)((w0 + (int64_t)(seconds * 1e9)) / 1000000000);
  until.tv_nsec = (long)((w0 + (int64_t)(seconds * 1e9)) % 1000000000);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) ==
         EINTR)
    ;
  c2 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  m1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  w1 = clock_ns(CLOCK_MONOTONIC);
  n1 = threads(t1, self);
  if (pmon_finalize() != 0) {
    fprintf(stderr, "sampler_cpu: %s\n", pmon_errmsg());
    return 1;
  }
  c3 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  printf("wall_ns %lld\n", (long long)(w1 - w0));
  printf("cpu_ns %lld\n", (long long)(c2 - c1));
  printf("main_ns %lld\n", (long long)(m1 - m0));
  for (int i = 0; i < n1; i++)
    for (int j = 0; j < n0; j++)
      if (t1[i].tid == t0[j].tid) {
        printf("thread %ld %s %lld\n", t1[i].tid, t1[i].name,
               (long long)(t1[i].ns - t0[j].ns));
        listed += t1[i].ns - t0[j].ns;
      }
  printf("other_ns %lld\n", (long long)(c2 - c1 - (m1 - m0) - listed));
  printf("init_cpu_ns %lld\n", (long long)(c1 - c0));
  printf("fini_cpu_ns %lld\n", (long long)(c3 - c2));
  printf("threads %d\n", n1);
  return 0;
}
