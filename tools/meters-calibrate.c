/*
 * meters-calibrate.c - pmon-meters --calibrate-clock: the node's power at
 * several CPU clock limits, for "pmon-report advise" to predict what a
 * lower clock during I/O would save (pmon-meters(1), CALIBRATING THE
 * CLOCK; the file's format in docs/report-format.md).
 *
 * The limits go from the highest cpuinfo_min_freq of the node's CPUs to
 * the lowest limit they had when it started (scaling_max_freq: the limit
 * jobs run under), evenly, the highest first.  At each, every CPU's
 * scaling_max_freq is set to it (within that CPU's own range), one window
 * is left for the clock and the meters to settle, and the node's total
 * power is measured under two probes: one that waits as I/O does (the
 * program sleeps; nothing of it runs) and one that computes (a thread
 * per CPU of this process's affinity, each bound to its CPU, spinning on
 * integer arithmetic and counting its loops).  A point's power is the
 * mean of its windows and its bar 1.96 standard errors of that mean; the
 * compute probe's loops per second, over those at the first limit, are
 * the point's speed.
 *
 * Every CPU's limit is put back as it was found: at the end, on an error,
 * and on SIGINT, SIGTERM, SIGHUP or SIGQUIT (their handler only sets the
 * flag that pmon-meters' sleeps watch).  A node whose clock a job's
 * PMON_IO_FREQ holds (its record, lib/freqrec.c) is refused.  The file
 * is written whole beside its path and renamed over it, or not at all.
 */
#define _GNU_SOURCE /* sched_getaffinity(), pthread_setaffinity_np() */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "pmon.h"
#include "core.h"
#include "beside.h"
#include "freqrec.h"
#include "pmon-meters.h"

#define POINTS_MAX 16

/* The CPUs with a clock limit, and the limits found. */
struct cpus {
  int n;
  int cpu[PMON_CPUS_MAX];
  unsigned found[PMON_CPUS_MAX], min[PMON_CPUS_MAX]; /* kHz */
  unsigned char changed[PMON_CPUS_MAX]; /* written with another limit */
};

/* One spinning thread of the compute probe. */
struct spinner {
  pthread_t t;
  int cpu;
  atomic_int *stop;
  unsigned long long loops;
  int started;
};

/* A point: the limit, and each probe's power, bar and the speed. */
struct point {
  unsigned khz;
  double wait_w, wait_err_w, compute_w, compute_err_w, loops_s;
};

static void *spin(void *arg)
{
  struct spinner *s = arg;
  unsigned long long n = 0;
  unsigned x = 1;
  cpu_set_t set;

  CPU_ZERO(&set);
  CPU_SET(s->cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set); /* or anywhere */
  while (!atomic_load_explicit(s->stop, memory_order_relaxed)) {
    for (int i = 0; i < 4096; i++)
      x = x * 1664525u + 1013904223u;
    n++;
  }
  s->loops = n + (x == 0); /* x kept alive */
  return NULL;
}

/* The CPUs of the node with a cpufreq directory under PMON_SYSFS_ROOT
 * into C; their number. */
static int find_cpus(struct cpus *c)
{
  memset(c, 0, sizeof *c);
  for (int cpu = 0; cpu < PMON_CPUS_MAX; cpu++) {
    unsigned f = pmon__freqrec_khz(cpu, "scaling_max_freq");
    unsigned m = pmon__freqrec_khz(cpu, "cpuinfo_min_freq");

    if (f == 0 || m == 0 || m > f)
      continue;
    c->cpu[c->n] = cpu;
    c->found[c->n] = f;
    c->min[c->n] = m;
    c->n++;
  }
  return c->n;
}

/* Every CPU at KHZ, or at its own bound nearest it; FOUND: as found,
 * which writes only those written with another limit.  The writes that
 * failed. */
static int set_all(struct cpus *c, unsigned khz, int found)
{
  int failed = 0;

  for (int i = 0; i < c->n; i++) {
    unsigned k = found             ? c->found[i]
                 : khz < c->min[i] ? c->min[i]
                 : khz > c->found[i] ? c->found[i]
                                     : khz;

    if (found && !c->changed[i])
      continue;
    if (pmon__freqrec_set_khz(c->cpu[i], k) != 0)
      failed++;
    else
      c->changed[i] = !found && k != c->found[i];
  }
  return failed;
}

/* A job of the node's PMON_IO_FREQ record that runs: its id in BUF, 1;
 * else 0. */
static int job_holds(char *buf, size_t size)
{
  struct pmon_freqrec *r = calloc(1, sizeof *r);
  char node[256];
  int held = 0;

  if (r == NULL)
    return 0;
  pmon__node_name(node, sizeof node);
  if (pmon__freqrec_peek(r, node) == 0) {
    for (int i = 0; i < r->njobs && !held; i++)
      if (r->job[i].alive && r->job[i].believed) {
        snprintf(buf, size, "%s", r->job[i].id);
        held = 1;
      }
    if (r->lock_fd >= 0)
      pmon__freqrec_unlock(r, 0);
  }
  free(r);
  return held;
}

/* The compute probe at the limit set: the node's power with a spinning
 * thread on each CPU of this process's affinity, into P; 0 or -1. */
static int compute_probe(meters_power_fn *power, void *arg, double seconds,
                         struct point *p)
{
  static struct spinner s[PMON_CPUS_MAX];
  atomic_int stop = 0;
  cpu_set_t set;
  sigset_t mask, old;
  int n = 0, rc;
  uint64_t t0, t1;
  double loops = 0;

  if (sched_getaffinity(0, sizeof set, &set) != 0) {
    CPU_ZERO(&set);
    CPU_SET(0, &set);
  }
  /* The signals go to the thread that measures, whose sleeps they end. */
  sigfillset(&mask);
  pthread_sigmask(SIG_BLOCK, &mask, &old);
  t0 = pmon__now_ns();
  for (int cpu = 0; cpu < CPU_SETSIZE && cpu < PMON_CPUS_MAX; cpu++) {
    if (!CPU_ISSET(cpu, &set))
      continue;
    s[n].cpu = cpu;
    s[n].stop = &stop;
    s[n].loops = 0;
    s[n].started = pthread_create(&s[n].t, NULL, spin, &s[n]) == 0;
    n++;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  rc = power(arg, seconds, &p->compute_w, &p->compute_err_w);
  atomic_store(&stop, 1);
  for (int i = 0; i < n; i++)
    if (s[i].started) {
      pthread_join(s[i].t, NULL);
      loops += (double)s[i].loops;
    }
  t1 = pmon__now_ns();
  p->loops_s = t1 > t0 ? loops / ((double)(t1 - t0) * 1e-9) : NAN;
  return rc;
}

static json_t *num(double v)
{
  return isfinite(v) ? json_real(v) : json_null();
}

/* The file: written beside PATH and renamed over it.  0 or -1 (said). */
static int write_file(const char *path, const struct cpus *c, unsigned hi,
                      const struct point *p, int np, double seconds,
                      double window_s, const char *covers)
{
  char tmp[PATH_MAX + 32], node[256], date[32];
  json_t *root, *pts;
  time_t now = time(NULL);
  struct tm tm;
  FILE *f;
  int fd, rc = 0;

  pmon__node_name(node, sizeof node);
  gmtime_r(&now, &tm);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
  pts = json_array();
  for (int i = 0; i < np; i++)
    json_array_append_new(
      pts, json_pack("{s:f, s:o, s:o, s:o, s:o, s:o}", "limit_mhz",
                     p[i].khz / 1000.0, "wait_w", num(p[i].wait_w),
                     "wait_err_w", num(p[i].wait_err_w), "compute_w",
                     num(p[i].compute_w), "compute_err_w",
                     num(p[i].compute_err_w), "speed",
                     num(p[0].loops_s > 0 ? p[i].loops_s / p[0].loops_s
                                          : NAN)));
  root = json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:i, s:f, s:f, s:f, s:o}",
                   "format", "pmon-clock-calibration", "version", 1, "pmon",
                   pmon_version(), "node", node, "date", date, "covers",
                   covers, "cpus", c->n, "limit_found_mhz",
                   hi / 1000.0, "seconds", seconds, "window_s",
                   window_s, "points", pts);
  if (root == NULL) {
    fprintf(stderr, "pmon-meters: %s: out of memory\n", meters_tty(path));
    return -1;
  }
  if ((fd = pmon__create_beside(path, tmp, sizeof tmp)) < 0 ||
      (f = fdopen(fd, "w")) == NULL) {
    fprintf(stderr, "pmon-meters: %s: cannot create: %s\n",
            meters_tty(path), strerror(errno));
    if (fd >= 0)
      close(fd), unlink(tmp);
    json_decref(root);
    return -1;
  }
  if (json_dumpf(root, f, JSON_INDENT(1) | JSON_REAL_PRECISION(10)) != 0 ||
      fputc('\n', f) == EOF || fclose(f) != 0 || rename(tmp, path) != 0) {
    fprintf(stderr, "pmon-meters: %s: cannot write: %s\n", meters_tty(path),
            strerror(errno));
    unlink(tmp);
    rc = -1;
  }
  json_decref(root);
  return rc;
}

int meters_calibrate_clock(const char *path, int npoints, double seconds,
                           double window_s, const char *covers,
                           meters_power_fn *power, void *arg,
                           volatile sig_atomic_t *interrupted)
{
  static struct cpus c;
  struct point p[POINTS_MAX];
  unsigned lo = 0, hi = 0;
  char job[64];
  int failed = 0, done = 0;

  if (find_cpus(&c) == 0) {
    fprintf(stderr, "pmon-meters: --calibrate-clock: no CPU of this node "
            "has a clock limit (%s/devices/system/cpu/cpuN/cpufreq/"
            "scaling_max_freq): nothing to calibrate\n",
            meters_tty(pmon__sysfs_root()));
    return 1;
  }
  if (job_holds(job, sizeof job)) {
    fprintf(stderr, "pmon-meters: --calibrate-clock: job %s holds this "
            "node's clock (PMON_IO_FREQ): calibrate an idle node\n",
            meters_tty(job));
    return 1;
  }
  for (int i = 0; i < c.n; i++) {
    lo = c.min[i] > lo ? c.min[i] : lo;
    hi = hi == 0 || c.found[i] < hi ? c.found[i] : hi;
  }
  if (lo >= hi)
    npoints = 1;
  printf("\ncalibrating the clock: %d CPUs, %d limits from %.0f to %.0f "
         "MHz, %.3g s a probe\n", c.n, npoints, hi / 1000.0, lo / 1000.0,
         seconds);
  printf("%10s %14s %14s %8s\n", "limit MHz", "waiting W", "computing W",
         "speed");
  fflush(stdout);
  for (int i = 0; i < npoints && !*interrupted; i++) {
    struct point *q = &p[i];

    q->khz = npoints == 1 ? hi
             : (unsigned)(hi - (double)(hi - lo) * i / (npoints - 1) + 0.5);
    q->khz = (q->khz + 500) / 1000 * 1000; /* whole MHz */
    if ((failed = set_all(&c, q->khz, i == 0)) != 0)
      break;
    power(arg, window_s, &q->wait_w, &q->wait_err_w); /* settle */
    if (power(arg, seconds, &q->wait_w, &q->wait_err_w) != 0 ||
        compute_probe(power, arg, seconds, q) != 0)
      break;
    printf("%10.0f %8.1f +- %-4.1f %8.1f +- %-4.1f %7.3f\n", q->khz / 1000.0,
           q->wait_w, q->wait_err_w, q->compute_w, q->compute_err_w,
           p[0].loops_s > 0 ? q->loops_s / p[0].loops_s : NAN);
    fflush(stdout);
    done++;
  }
  if (set_all(&c, 0, 1) != 0) {
    fprintf(stderr, "pmon-meters: --calibrate-clock: some CPUs' limits "
            "could not be put back: %s\n", strerror(errno));
    return 1;
  }
  if (failed != 0) {
    fprintf(stderr, "pmon-meters: --calibrate-clock: scaling_max_freq: "
            "cannot write %d of %d CPUs' (root's, on most nodes): %s\n",
            failed, c.n, strerror(errno));
    return 1;
  }
  if (*interrupted || done < npoints) {
    fprintf(stderr, "pmon-meters: --calibrate-clock: %s after %d of %d "
            "limits; the limits are as found, %s not written\n",
            *interrupted ? "interrupted" : "no reading of the node's total",
            done, npoints, meters_tty(path));
    return 1;
  }
  printf("every limit as found (%.0f MHz)\n", hi / 1000.0);
  if (write_file(path, &c, hi, p, npoints, seconds, window_s, covers) != 0)
    return 1;
  printf("written: %s\n", meters_tty(path));
  return 0;
}
