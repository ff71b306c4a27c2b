/*
 * pmfeed - plays a Cray node controller for the tests: keeps a
 * pm_counters fixture directory up to date at a known power.
 *
 *   pmfeed DIR WATTS [options]
 *     --hz N          publications per second (10)
 *     --ex            HPE Cray EX format, with the "us" time stamp
 *     --seconds S     stop after S seconds (default: until SIGTERM)
 *     --reset-at S    at S seconds the controller restarts: startup
 *                     changes and the counters start again from 0
 *     --cap-at S      at S seconds a power cap is set: generation changes
 *     --base J        the energy counter's value at start (1000000)
 *     --freeze-at S   at S seconds the controller stops publishing: no
 *                     file changes from then on
 *     --step-at S     at S seconds the power becomes W (--step-w, required
 *     --step-w W      with it): the counters go on from where they were
 *     --resume-at S   at S seconds (after --freeze-at) it publishes again:
 *                     the counters jump to where they would be had they
 *                     kept counting, base + WATTS * t
 *
 * With --freeze-at it prints "frozen NS" when it stops, NS being the
 * CLOCK_MONOTONIC instant of the last values it published, and "resumed
 * NS" with the instant of the first ones after, so that a test knows the
 * span that went unpublished.  With --step-at it prints "step NS", the
 * CLOCK_MONOTONIC instant from which the power is W.
 *
 * Files are rewritten in place (the library keeps them open), padded with
 * NULs to 64 bytes as sysfs attributes may be.  energy = base + WATTS * t,
 * in whole joules; cpu_energy is 60 % of it and memory_energy 20 %.
 * `freshness` goes up after each publication.
 */
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LATE 0.005 /* seconds: counters older than this are rewritten */

static volatile sig_atomic_t done;

static void stop(int sig)
{
  (void)sig;
  done = 1;
}

static double now(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int put(const char *dir, const char *file, const char *text)
{
  char path[4096], buf[64];
  int fd;

  snprintf(path, sizeof path, "%s/%s", dir, file);
  memset(buf, 0, sizeof buf);
  snprintf(buf, sizeof buf, "%s", text);
  fd = open(path, O_WRONLY | O_CREAT, 0644);
  if (fd < 0 || pwrite(fd, buf, sizeof buf, 0) != (ssize_t)sizeof buf) {
    perror(path);
    return -1;
  }
  close(fd);
  return 0;
}

static int put_u64(const char *dir, const char *file, uint64_t v,
                   const char *unit, int ex)
{
  char text[64];
  struct timespec ts;

  clock_gettime(CLOCK_REALTIME, &ts);
  if (unit == NULL)
    snprintf(text, sizeof text, "%llu\n", (unsigned long long)v);
  else if (ex)
    snprintf(text, sizeof text, "%llu %s %llu us\n", (unsigned long long)v,
             unit,
             (unsigned long long)ts.tv_sec * 1000000ull +
               (unsigned long long)ts.tv_nsec / 1000);
  else
    snprintf(text, sizeof text, "%llu %s\n", (unsigned long long)v, unit);
  return put(dir, file, text);
}

int main(int argc, char **argv)
{
  double watts, hz = 10, seconds = -1, reset_at = -1, cap_at = -1;
  double base = 1000000, t0, offset = 0, freeze_at = -1, resume_at = -1;
  double t_pub = 0; /* the time of the last values published */
  double step_at = -1, step_w = -1;
  int frozen = 0;
  uint64_t fresh = 0, tick = 0, startup = 1, generation = 1;
  int ex = 0;
  const char *dir;

  if (argc < 3) {
    fprintf(stderr, "usage: pmfeed DIR WATTS [--hz N] [--ex] [--seconds S] "
                    "[--reset-at S] [--cap-at S] [--base J] "
                    "[--freeze-at S] [--resume-at S] "
                    "[--step-at S --step-w W]\n");
    return 2;
  }
  dir = argv[1];
  watts = atof(argv[2]);
  for (int i = 3; i < argc; i++) {
    if (strcmp(argv[i], "--ex") == 0)
      ex = 1;
    else if (i + 1 < argc && strcmp(argv[i], "--hz") == 0)
      hz = atof(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--seconds") == 0)
      seconds = atof(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--reset-at") == 0)
      reset_at = atof(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--cap-at") == 0)
      cap_at = atof(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--base") == 0)
      base = atof(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--freeze-at") == 0)
      freeze_at = atof(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--resume-at") == 0)
      resume_at = atof(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--step-at") == 0)
      step_at = atof(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--step-w") == 0)
      step_w = atof(argv[++i]);
    else {
      fprintf(stderr, "pmfeed: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  if ((step_at >= 0) != (step_w >= 0)) {
    fprintf(stderr, "pmfeed: --step-at and --step-w go together\n");
    return 2;
  }
  mkdir(dir, 0755);
  signal(SIGTERM, stop);
  signal(SIGINT, stop);
  put_u64(dir, "raw_scan_hz", (uint64_t)hz, NULL, 0);
  put_u64(dir, "startup", startup, NULL, 0);
  put_u64(dir, "generation", generation, NULL, 0);
  put_u64(dir, "power_cap", 0, "W", ex);
  put(dir, "version", "2\n");
  t0 = now();
  while (!done) {
    double t = now() - t0;
    uint64_t e;

    if (seconds >= 0 && t >= seconds)
      break;
    /* Frozen: the files keep what they last said, freshness included. */
    if (freeze_at >= 0 && t >= freeze_at &&
        !(resume_at >= 0 && t >= resume_at)) {
      if (!frozen)
        printf("frozen %.0f\n", (t0 + t_pub) * 1e9);
      fflush(stdout);
      frozen = 1;
      goto wait;
    }
    if (reset_at >= 0 && t >= reset_at) {
      offset = -watts * t - base; /* the counters start again from 0 */
      startup++;
      put_u64(dir, "startup", startup, NULL, 0);
      reset_at = -1;
    }
    if (step_at >= 0 && t >= step_at) {
      /* base + offset + watts * t, continuous at step_at */
      offset += (watts - step_w) * step_at;
      watts = step_w;
      printf("step %.0f\n", (t0 + step_at) * 1e9);
      fflush(stdout);
      step_at = -1;
    }
    if (cap_at >= 0 && t >= cap_at) {
      generation++;
      put_u64(dir, "power_cap", 500, "W", ex);
      put_u64(dir, "generation", generation, NULL, 0);
      cap_at = -1;
    }
    /* A real controller is not held up by the tests' load; this one may
     * be, between taking the time and writing the counters.  Values more
     * than LATE old once written are written again, with the time taken
     * anew: the reader takes them only once freshness moves, so what it
     * sees is that fresh, and the tests' energies stay right on a busy
     * machine. */
    for (;;) {
      double v = floor(base + offset + watts * t);

      e = v > 0 ? (uint64_t)v : 0;
      put_u64(dir, "energy", e, "J", ex);
      put_u64(dir, "cpu_energy", (uint64_t)floor(0.6 * (double)e), "J", ex);
      put_u64(dir, "memory_energy", (uint64_t)floor(0.2 * (double)e), "J",
              ex);
      put_u64(dir, "power", (uint64_t)watts, "W", ex);
      if (done || now() - t0 - t < LATE)
        break;
      t = now() - t0;
    }
    put_u64(dir, "freshness", ++fresh, NULL, 0);
    t_pub = t;
    if (frozen) {
      printf("resumed %.0f\n", (t0 + t) * 1e9);
      fflush(stdout);
      frozen = 0;
    }
  wait:
    {
      double next = t0 + (double)++tick / hz, d = next - now();
      struct timespec ts;

      if (d > 0) {
        ts.tv_sec = (time_t)d;
        ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
        nanosleep(&ts, NULL);
      }
    }
  }
  return 0;
}
