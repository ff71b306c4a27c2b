/*
 * wave_regions - an MPI program that runs for a given time with regions
 * at given times, for the tests of sampled meters against a known
 * waveform (tests/wave.c).
 *
 *   wave_regions SECONDS [[RANK/]NAME:START:END ...]
 *
 * After pmon_init() and a barrier, every rank (or only RANK) enters
 * region NAME at START and leaves it at END (seconds after the barrier;
 * a rank's regions may nest but not overlap otherwise, and must be given
 * in order of START), and finalises after SECONDS.  Rank 0 prints, for
 * each region, the CLOCK_MONOTONIC instants of its begin and end calls
 * (of RANK's, for a region of RANK's own):
 *
 *   region NAME T0_NS T1_NS
 *   inner NAME T0B_NS T1A_NS
 *
 * T0 before its begin call, T1 after its end call; T0B after its begin
 * call returned, T1A before its end call: the instants pmon stamped lie
 * between T0 and T0B and between T1A and T1, so the truth of the span it
 * measured lies between the truths over [T0B, T1A] and [T0, T1], however
 * long a busy host held a call up (tests/lib.sh, wave_regions_near).
 *
 * A region may end in :WATTS ([RANK/]NAME:START:END:WATTS): with
 * WAVE_REGIONS_POWER set to a file, the program sets the node's power as
 * it enters and leaves the region, through a feeder that follows that
 * file (tests/pmfeed --schedule): a line "T0_NS WATTS" appended after its
 * begin call, "T1_NS IDLE" after its end call (IDLE from
 * WAVE_REGIONS_IDLE, 0 when unset), T0 and T1 the instants printed
 * below, so that the power is WATTS exactly while the region is open.
 *
 * An argument FROM>TO:START:END is a message instead: rank TO calls
 * MPI_Recv at START, which rank FROM's MPI_Send, at END, satisfies;
 * rank 0 prints the receiver's instants before and after its call:
 *
 *   recv FROM>TO T0_NS T1_NS
 *
 * and at the end "elapsed S" (seconds from the barrier to the return of
 * pmon_finalize(), which a test compares with SECONDS to see that pmon
 * did not hold the program up).  Exit status 0; 1 when pmon fails; 2 on
 * bad usage.
 *
 * With WAVE_REGIONS_KILL set, each rank prints its own "region" lines
 * after SECONDS and kills itself (SIGKILL), without pmon_finalize(): a
 * job that died, for the spool's tests.
 */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "pmon.h"

#define NREG 256
#define LINE 256 /* bytes of the lines "region NAME T0 T1" and "inner" */

struct region {
  char name[64];
  int rank;      /* -1: every rank; a message: its receiver */
  int from;      /* a message's sender; -1: a region */
  double start, end;
  double watts;  /* the node's power while open; < 0: not set */
  long long t0, t1;
  long long t0b, t1a; /* after the begin call, before the end call */
  int open, done;
};

static long long now_ns(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The power from T_NS on: a line appended to the feeder's schedule. */
static void set_power(int fd, long long t_ns, double watts)
{
  char line[64];
  int len = snprintf(line, sizeof line, "%lld %.3f\n", t_ns, watts);

  if (fd >= 0 && write(fd, line, (size_t)len) != len)
    perror("wave_regions: WAVE_REGIONS_POWER");
}

/* Sleep until T_NS on CLOCK_MONOTONIC. */
static void until(long long t_ns)
{
  struct timespec ts = {(time_t)(t_ns / 1000000000LL),
                        (long)(t_ns % 1000000000LL)};

  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
    ;
}

int main(int argc, char **argv)
{
  static struct region reg[NREG];
  static char text[NREG * LINE];
  size_t len = 0;
  int n = 0, rank, size, rc, *lens = NULL, *offs = NULL;
  char *all = NULL;
  double seconds, elapsed, idle_w = 0;
  long long base;
  int power_fd = -1;
  const char *power = getenv("WAVE_REGIONS_POWER");

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2 || (seconds = atof(argv[1])) <= 0 || argc - 2 > NREG) {
    if (rank == 0)
      fprintf(stderr,
              "usage: wave_regions SECONDS [[RANK/]NAME:START:END ...]\n");
    MPI_Finalize();
    return 2;
  }
  for (int i = 2; i < argc; i++, n++) {
    const char *a = argv[i], *slash = strchr(a, '/');

    const char *gt = strchr(a, '>');

    memset(&reg[n], 0, sizeof reg[n]);
    reg[n].rank = reg[n].from = -1;
    reg[n].watts = -1;
    if (gt != NULL && gt < strchr(a, ':')) {
      reg[n].from = atoi(a);
      reg[n].rank = atoi(gt + 1);
      snprintf(reg[n].name, sizeof reg[n].name, "%d>%d", reg[n].from,
               reg[n].rank);
      a = strchr(a, ':');
      if (sscanf(a, ":%lf:%lf", &reg[n].start, &reg[n].end) != 2 ||
          reg[n].end < reg[n].start || reg[n].end > seconds ||
          reg[n].rank >= size || reg[n].from >= size ||
          reg[n].rank == reg[n].from || reg[n].rank < 0 || reg[n].from < 0) {
        if (rank == 0)
          fprintf(stderr, "wave_regions: %s: expected FROM>TO:START:END "
                          "within SECONDS, two ranks\n", argv[i]);
        MPI_Finalize();
        return 2;
      }
      continue;
    }
    if (slash != NULL && slash < strchr(a, ':')) {
      reg[n].rank = atoi(a);
      a = slash + 1;
    }
    if (sscanf(a, "%63[^:]:%lf:%lf:%lf", reg[n].name, &reg[n].start,
               &reg[n].end, &reg[n].watts) < 3 || reg[n].end < reg[n].start ||
        reg[n].end > seconds || reg[n].rank >= size) {
      if (rank == 0)
        fprintf(stderr, "wave_regions: %s: expected [RANK/]NAME:START:END "
                        "within SECONDS and ranks\n", argv[i]);
      MPI_Finalize();
      return 2;
    }
  }
  if (power != NULL && *power != '\0') {
    const char *idle = getenv("WAVE_REGIONS_IDLE");

    if (idle != NULL)
      idle_w = atof(idle);
    if ((power_fd = open(power, O_WRONLY | O_APPEND)) < 0) {
      perror(power);
      MPI_Finalize();
      return 2;
    }
  }
  if ((rc = pmon_init()) != 0) {
    fprintf(stderr, "wave_regions: pmon_init: %s\n", pmon_strerror(rc));
    MPI_Finalize();
    return 1;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  base = now_ns();
  /* Events in time order: a begin at START, an end at END. */
  for (;;) {
    double next = seconds;
    int which = -1, begin = 0;

    for (int i = 0; i < n; i++) {
      if (reg[i].from >= 0) { /* a message: TO's receive, FROM's send */
        if (!reg[i].done && rank == reg[i].rank && reg[i].start < next)
          next = reg[i].start, which = i, begin = 1;
        if (!reg[i].done && rank == reg[i].from && reg[i].end < next)
          next = reg[i].end, which = i, begin = 0;
        continue;
      }
      if (reg[i].rank >= 0 && reg[i].rank != rank)
        continue;
      if (!reg[i].open && !reg[i].done && reg[i].start < next)
        next = reg[i].start, which = i, begin = 1;
      if (reg[i].open && reg[i].end < next)
        next = reg[i].end, which = i, begin = 0;
    }
    if (which < 0)
      break;
    until(base + (long long)(next * 1e9));
    if (reg[which].from >= 0) {
      int x = 0;

      if (begin) {
        reg[which].t0 = now_ns();
        MPI_Recv(&x, 1, MPI_INT, reg[which].from, which, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        reg[which].t1 = now_ns();
      } else {
        MPI_Send(&x, 1, MPI_INT, reg[which].rank, which, MPI_COMM_WORLD);
      }
      reg[which].done = 1;
    } else if (begin) {
      reg[which].t0 = now_ns();
      pmon_region_begin(reg[which].name);
      reg[which].t0b = now_ns();
      if (reg[which].watts >= 0)
        set_power(power_fd, reg[which].t0, reg[which].watts);
      reg[which].open = 1;
    } else {
      reg[which].t1a = now_ns();
      pmon_region_end(reg[which].name);
      reg[which].t1 = now_ns();
      if (reg[which].watts >= 0)
        set_power(power_fd, reg[which].t1, idle_w);
      reg[which].open = 0;
      reg[which].done = 1;
    }
  }
  until(base + (long long)(seconds * 1e9));
  if (getenv("WAVE_REGIONS_KILL") != NULL) {
    /* a job killed before its end: each rank its own lines, then gone */
    for (int i = 0; i < n; i++)
      if (reg[i].from < 0 && (reg[i].rank == rank ||
                              (reg[i].rank < 0 && rank == 0)))
        printf("region %s %lld %lld\n", reg[i].name, reg[i].t0, reg[i].t1);
    fflush(stdout);
    raise(SIGKILL);
  }
  if ((rc = pmon_finalize()) != 0)
    fprintf(stderr, "wave_regions: pmon_finalize: %s\n", pmon_strerror(rc));
  elapsed = (double)(now_ns() - base) * 1e-9;
  /* Each rank's lines, gathered: rank 0 prints them whole. */
  for (int i = 0; i < n; i++)
    if (reg[i].rank == rank || (reg[i].rank < 0 && rank == 0)) {
      len += (size_t)snprintf(text + len, LINE / 2, "%s %s %lld %lld\n",
                              reg[i].from >= 0 ? "recv" : "region",
                              reg[i].name, reg[i].t0, reg[i].t1);
      if (reg[i].from < 0)
        len += (size_t)snprintf(text + len, LINE / 2, "inner %s %lld %lld\n",
                                reg[i].name, reg[i].t0b, reg[i].t1a);
    }
  if (rank == 0 && ((lens = calloc((size_t)size, sizeof *lens)) == NULL ||
                    (offs = calloc((size_t)size, sizeof *offs)) == NULL)) {
    fprintf(stderr, "wave_regions: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  {
    int l = (int)len;

    MPI_Gather(&l, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  if (rank == 0) {
    size_t total = 0;

    for (int r = 0; r < size; r++) {
      offs[r] = (int)total;
      total += (size_t)lens[r];
    }
    if ((all = malloc(total + 1)) == NULL) {
      fprintf(stderr, "wave_regions: out of memory\n");
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    all[total] = '\0';
  }
  MPI_Gatherv(text, (int)len, MPI_CHAR, all, lens, offs, MPI_CHAR, 0,
              MPI_COMM_WORLD);
  if (rank == 0) {
    fputs(all, stdout);
    printf("elapsed %.3f\n", elapsed);
  }
  free(all);
  free(lens);
  free(offs);
  MPI_Finalize();
  return rc != 0;
}
