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
 * A job's PMON_IO_FREQ caps only the CPUs its ranks run on, and a node's
 * power need not fall in proportion to the CPUs capped (one whose power
 * follows the mean limit over its CPUs saves at half of them much less
 * than half of what it saves at all).  So at each limit below the first
 * the node is measured a second time with only the first PART of its
 * CPUs at that limit, the others as found, both probes again (the compute
 * probe's threads then on the capped CPUs alone: the job's); pmon-report
 * advise interpolates between none, PART and all CPUs capped.
 *
 * The run owns the clock (lib/freqrec.h): it holds the node's
 * calibration lock from before its first write to after its last, so
 * that a second run is refused and a job's PMON_IO_FREQ leaves the clock
 * alone meanwhile; a node where a job's cap is in effect is refused.
 * "As found" is the limit now, which must not be below the limits root's
 * prolog saved (pmon-iofreq save); with none saved, the limits now are
 * saved there first, where the epilog (pmon-iofreq epilog) puts them
 * back after a SIGKILL, and removed at the end.  Every CPU's limit is put
 * back as found: at the end, on an error, when standard output fails
 * (SIGPIPE is ignored), on every signal that would end the program
 * (pmon-meters.c: their handler sets the flag that the sleeps watch),
 * and, from the handler, on a fault (meters_calibrate_restore_now()).
 * The file is written whole beside its path and renamed over it, or not
 * at all.
 */
#define _GNU_SOURCE /* sched_getaffinity(), pthread_setaffinity_np() */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <pwd.h>
#include <sys/stat.h>
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

/* The CPUs with a clock limit, and the limits found; their files open
 * for writing (-1: not writable) and each limit found as the text to
 * write, so that a signal's handler can put them back. */
struct cpus {
  int n;
  int cpu[PMON_CPUS_MAX];
  unsigned found[PMON_CPUS_MAX], min[PMON_CPUS_MAX]; /* kHz */
  volatile unsigned char changed[PMON_CPUS_MAX]; /* another limit written */
  int fd[PMON_CPUS_MAX];
  int open_err[PMON_CPUS_MAX]; /* errno of an open that failed */
  char text[PMON_CPUS_MAX][16];
  int len[PMON_CPUS_MAX];
};

static struct cpus cal; /* the run's, for meters_calibrate_restore_now() */

/* One spinning thread of the compute probe. */
struct spinner {
  pthread_t t;
  int cpu;
  atomic_int *stop;
  unsigned long long loops;
  int started;
};

/* A point: the limit, and each probe's power, bar and the speed; and
 * the same with the first PART CPUs alone capped (NAN: not measured). */
struct point {
  unsigned khz;
  double wait_w, wait_err_w, compute_w, compute_err_w, loops_s;
  double part_wait_w, part_wait_err_w, part_compute_w, part_compute_err_w;
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

static void close_cpus(struct cpus *c)
{
  for (int i = 0; i < c->n; i++)
    if (c->fd[i] >= 0)
      close(c->fd[i]);
  c->n = 0;
}

/* The CPUs of the node with a cpufreq directory under PMON_SYSFS_ROOT
 * into C, their limits now taken as found; their number. */
static int find_cpus(struct cpus *c)
{
  memset(c, 0, sizeof *c);
  for (int cpu = 0; cpu < PMON_CPUS_MAX; cpu++) {
    unsigned f = pmon__freqrec_khz(cpu, "scaling_max_freq");
    unsigned m = pmon__freqrec_khz(cpu, "cpuinfo_min_freq");
    char path[PATH_MAX];

    if (f == 0 || m == 0 || m > f)
      continue;
    snprintf(path, sizeof path,
             "%s/devices/system/cpu/cpu%d/cpufreq/scaling_max_freq",
             pmon__sysfs_root(), cpu);
    c->cpu[c->n] = cpu;
    c->found[c->n] = f;
    c->min[c->n] = m;
    c->fd[c->n] = open(path, O_WRONLY | O_CLOEXEC);
    c->open_err[c->n] = errno;
    c->len[c->n] = snprintf(c->text[c->n], sizeof c->text[c->n], "%u\n", f);
    c->n++;
  }
  return c->n;
}

/* CPU I of C at KHZ: 0, or -1 when it cannot be written. */
static int write_khz(struct cpus *c, int i, unsigned khz)
{
  char v[16];
  int len = snprintf(v, sizeof v, "%u\n", khz);

  if (c->fd[i] < 0) {
    errno = c->open_err[i];
    return -1;
  }
  if (pwrite(c->fd[i], v, (size_t)len, 0) != len)
    return -1;
  if (ftruncate(c->fd[i], len) != 0) {
    /* sysfs has no length to set; a fixture's file has */
  }
  return 0;
}

/* The first UPTO CPUs at KHZ, or at their own bound nearest it, the
 * others as found; FOUND: all as found, which writes only those written
 * with another limit.  The writes that failed. */
static int set_some(struct cpus *c, unsigned khz, int found, int upto)
{
  int failed = 0;

  for (int i = 0; i < c->n; i++) {
    unsigned k = found || i >= upto ? c->found[i]
                 : khz < c->min[i] ? c->min[i]
                 : khz > c->found[i] ? c->found[i]
                                     : khz;

    if ((found || i >= upto) && !c->changed[i])
      continue;
    /* Marked before the write: a signal between the two puts it back. */
    unsigned char was = c->changed[i];

    if (!found)
      c->changed[i] = 1;
    if (write_khz(c, i, k) != 0) {
      failed++;
      c->changed[i] = was; /* as it was: not written */
    } else {
      c->changed[i] = !found && k != c->found[i];
    }
  }
  return failed;
}

/* Every CPU at KHZ (or at its bound), or all as found: set_some(). */
static int set_all(struct cpus *c, unsigned khz, int found)
{
  return set_some(c, khz, found, c->n);
}

void meters_calibrate_restore_now(void)
{
  int saved = errno;

  for (int i = 0; i < cal.n; i++)
    if (cal.changed[i] && cal.fd[i] >= 0 &&
        pwrite(cal.fd[i], cal.text[i], (size_t)cal.len[i], 0) == cal.len[i])
      cal.changed[i] = 0;
  errno = saved;
}

/* "uid N (NAME)" of UID into BUF. */
static const char *who(unsigned uid, char *buf, size_t size)
{
  struct passwd *pw = getpwuid((uid_t)uid);

  if (pw != NULL)
    snprintf(buf, size, "uid %u (%s)", uid, meters_tty(pw->pw_name));
  else
    snprintf(buf, size, "uid %u", uid);
  return buf;
}

/* Whether a job of the node's PMON_IO_FREQ record holds the clock of C's
 * CPUs: one that runs as the record's owner (lib/freqrec.c: believed), in
 * an I/O phase, with a CPU it may cap at that cap (or at the CPU's
 * lowest limit, for a cap below it) in sysfs.  Said in one line, with
 * the record's owner: 1; else 0.  A job that runs without holding the
 * clock is named on standard output: it leaves the clock alone while the
 * calibration runs. */
static int job_holds(const struct cpus *c)
{
  struct pmon_freqrec *r = calloc(1, sizeof *r);
  char node[256], owner[300];
  int held = 0;

  if (r == NULL)
    return 0;
  pmon__node_name(node, sizeof node);
  if (pmon__freqrec_peek(r, node) == 0) {
    for (int i = 0; i < r->njobs && !held; i++) {
      const struct pmon_freqrec_job *j = &r->job[i];

      if (!j->alive || !j->believed)
        continue;
      for (int k = 0; k < c->n && !held && j->active; k++) {
        int cpu = c->cpu[k];
        unsigned now = pmon__freqrec_khz(cpu, "scaling_max_freq");

        if (!PMON_CPU_ISSET(cpu, j->cpus) || now == 0 ||
            now > (j->cap_khz > c->min[k] ? j->cap_khz : c->min[k]))
          continue;
        fprintf(stderr, "pmon-meters: --calibrate-clock: job %s of %s "
                "holds this node's clock: CPU %d at its cap of %u kHz "
                "(record %s): calibrate when it has ended\n",
                meters_tty(j->id), who((unsigned)r->owner, owner,
                                       sizeof owner),
                cpu, now, meters_tty(r->path));
        held = 1;
      }
      if (!held)
        printf("note: job %s of %s runs on this node with PMON_IO_FREQ: "
               "it leaves the clock alone while this runs\n",
               meters_tty(j->id), who((unsigned)r->owner, owner,
                                      sizeof owner));
    }
    if (r->lock_fd >= 0)
      pmon__freqrec_unlock(r, 0);
  }
  free(r);
  return held;
}

/* The limits to put back, against root's saved ones (pmon-iofreq save):
 * none may be found below them; with none saved, those found are saved
 * (*MADE set).  0, or 1 said in one line. */
static int check_saved(const struct cpus *c, int *made)
{
  struct pmon_freqrec *r = calloc(1, sizeof *r);
  unsigned *lim = calloc(PMON_CPUS_MAX, sizeof *lim);
  char node[256];
  int n, rc = 0;

  *made = 0;
  if (r == NULL || lim == NULL) {
    fprintf(stderr, "pmon-meters: --calibrate-clock: out of memory\n");
    free(r);
    free(lim);
    return 1;
  }
  pmon__node_name(node, sizeof node);
  if (pmon__freqrec_names(r, node) != 0) {
    fprintf(stderr, "pmon-meters: --calibrate-clock: %s\n",
            meters_tty(pmon_errmsg() + strlen("pmon: ")));
    rc = 1;
  } else if ((n = pmon__freqrec_limits(r, lim)) < 0) {
    fprintf(stderr, "pmon-meters: --calibrate-clock: %s: the limits to put "
            "back are not known: refused\n",
            meters_tty(pmon_errmsg() + strlen("pmon: ")));
    rc = 1;
  } else if (n > 0) {
    for (int i = 0; i < c->n && rc == 0; i++)
      if (lim[c->cpu[i]] != 0 && c->found[i] < lim[c->cpu[i]]) {
        fprintf(stderr, "pmon-meters: --calibrate-clock: CPU %d's limit is "
                "%u kHz, below the %u kHz saved in %s (pmon-iofreq save): "
                "something left it capped (pmon-iofreq epilog puts it "
                "back): refused\n", c->cpu[i], c->found[i],
                lim[c->cpu[i]], meters_tty(r->limits));
        rc = 1;
      }
  } else {
    for (int i = 0; i < c->n; i++)
      lim[c->cpu[i]] = c->found[i];
    if (pmon__freqrec_limits_save(r, lim) != 0) {
      fprintf(stderr, "pmon-meters: --calibrate-clock: %s: the limits to "
              "put back after a SIGKILL cannot be saved: refused\n",
              meters_tty(pmon_errmsg() + strlen("pmon: ")));
      rc = 1;
    } else {
      *made = 1;
    }
  }
  free(r);
  free(lim);
  return rc;
}

/* The saved limits' file, removed when this run made it. */
static void unsave(int made)
{
  struct pmon_freqrec *r;
  struct stat st;
  char node[256];

  if (!made || (r = calloc(1, sizeof *r)) == NULL)
    return;
  pmon__node_name(node, sizeof node);
  if (pmon__freqrec_names(r, node) == 0 && lstat(r->limits, &st) == 0 &&
      S_ISREG(st.st_mode) && st.st_uid == geteuid())
    unlink(r->limits);
  free(r);
}

/* The compute probe at the limit set: the node's power with a spinning
 * thread on each CPU of this process's affinity (with UPTO >= 0, on those
 * of the first UPTO CPUs of the calibration alone), into *W and *ERR and
 * P's speed (UPTO < 0); 0 or -1. */
static int compute_probe(meters_power_fn *power, void *arg, double seconds,
                         struct point *p, int upto, double *w, double *err)
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
    int mine = upto < 0;

    for (int i = 0; i < upto && !mine; i++)
      mine = cal.cpu[i] == cpu;
    if (!CPU_ISSET(cpu, &set) || !mine)
      continue;
    s[n].cpu = cpu;
    s[n].stop = &stop;
    s[n].loops = 0;
    s[n].started = pthread_create(&s[n].t, NULL, spin, &s[n]) == 0;
    n++;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (n == 0 && upto >= 0) {
    *w = *err = NAN; /* none of them is this process's to spin on */
    return 0;
  }
  rc = power(arg, seconds, w, err);
  atomic_store(&stop, 1);
  for (int i = 0; i < n; i++)
    if (s[i].started) {
      pthread_join(s[i].t, NULL);
      loops += (double)s[i].loops;
    }
  t1 = pmon__now_ns();
  if (upto < 0)
    p->loops_s = t1 > t0 ? loops / ((double)(t1 - t0) * 1e-9) : NAN;
  return rc;
}

static json_t *num(double v)
{
  return isfinite(v) ? json_real(v) : json_null();
}

/* The file: written beside PATH and renamed over it.  0 or -1 (said). */
static int write_file(const char *path, const struct cpus *c, unsigned hi,
                      const struct point *p, int np, int part, double seconds,
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
  for (int i = 0; i < np; i++) {
    json_t *pt = json_pack(
      "{s:f, s:o, s:o, s:o, s:o, s:o}", "limit_mhz", p[i].khz / 1000.0,
      "wait_w", num(p[i].wait_w), "wait_err_w", num(p[i].wait_err_w),
      "compute_w", num(p[i].compute_w), "compute_err_w",
      num(p[i].compute_err_w), "speed",
      num(p[0].loops_s > 0 ? p[i].loops_s / p[0].loops_s : NAN));

    if (pt != NULL && part > 0 && i > 0)
      json_object_set_new(
        pt, "part",
        json_pack("{s:i, s:o, s:o, s:o, s:o}", "cpus", part, "wait_w",
                  num(p[i].part_wait_w), "wait_err_w",
                  num(p[i].part_wait_err_w), "compute_w",
                  num(p[i].part_compute_w), "compute_err_w",
                  num(p[i].part_compute_err_w)));
    json_array_append_new(pts, pt);
  }
  root = json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:i, s:i, s:f, s:f, s:f, "
                   "s:o}",
                   "format", "pmon-clock-calibration", "version", 1, "pmon",
                   pmon_version(), "node", node, "date", date, "covers",
                   covers, "cpus", c->n, "part_cpus", part,
                   "limit_found_mhz", hi / 1000.0, "seconds", seconds,
                   "window_s", window_s, "points", pts);
  if (root == NULL) {
    fprintf(stderr, "pmon-meters: %s: out of memory\n", meters_tty(path));
    return -1;
  }
  if ((fd = pmon__create_beside(path, 0644, tmp, sizeof tmp)) < 0 ||
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

/* Whether standard output failed (a closed pipe: SIGPIPE is ignored). */
static int out_failed(void)
{
  return fflush(stdout) != 0 || ferror(stdout);
}

/* The limits from LO to HI at each point, measured into P; the points
 * done, or -1 with *FAILED the writes that failed, or -2 when standard
 * output failed (errno in *ERR for either). */
static int measure(struct point *p, int npoints, int part, unsigned lo,
                   unsigned hi, double seconds, double window_s,
                   meters_power_fn *power, void *arg,
                   volatile sig_atomic_t *interrupted, int *failed, int *err)
{
  int done = 0;

  for (int i = 0; i < npoints && !*interrupted; i++) {
    struct point *q = &p[i];

    q->khz = npoints == 1 ? hi
             : (unsigned)(hi - (double)(hi - lo) * i / (npoints - 1) + 0.5);
    q->khz = (q->khz + 500) / 1000 * 1000; /* whole MHz */
    if ((*failed = set_all(&cal, q->khz, i == 0)) != 0) {
      *err = errno;
      return -1;
    }
    power(arg, window_s, &q->wait_w, &q->wait_err_w); /* settle */
    if (power(arg, seconds, &q->wait_w, &q->wait_err_w) != 0 ||
        compute_probe(power, arg, seconds, q, -1, &q->compute_w,
                      &q->compute_err_w) != 0)
      break;
    printf("%10.0f %8.1f +- %-4.1f %8.1f +- %-4.1f %7.3f\n", q->khz / 1000.0,
           q->wait_w, q->wait_err_w, q->compute_w, q->compute_err_w,
           p[0].loops_s > 0 ? q->loops_s / p[0].loops_s : NAN);
    q->part_wait_w = q->part_wait_err_w = NAN;
    q->part_compute_w = q->part_compute_err_w = NAN;
    if (part > 0 && i > 0 && !*interrupted) {
      /* The same limit on the first PART CPUs alone (a job's). */
      if ((*failed = set_some(&cal, q->khz, 0, part)) != 0) {
        *err = errno;
        return -1;
      }
      power(arg, window_s, &q->part_wait_w, &q->part_wait_err_w);
      if (power(arg, seconds, &q->part_wait_w, &q->part_wait_err_w) != 0 ||
          compute_probe(power, arg, seconds, q, part, &q->part_compute_w,
                        &q->part_compute_err_w) != 0)
        break;
      printf("%10s %8.1f +- %-4.1f %8.1f +- %-4.1f   (%d of %d CPUs)\n", "",
             q->part_wait_w, q->part_wait_err_w, q->part_compute_w,
             q->part_compute_err_w, part, cal.n);
    }
    if (out_failed()) {
      *err = errno;
      return -2;
    }
    done++;
  }
  return done;
}

/* The run, with the calibration's lock held and the limits found saved:
 * the exit status. */
static int run(const char *path, int npoints, int part, double seconds,
               double window_s, const char *covers, meters_power_fn *power,
               void *arg, volatile sig_atomic_t *interrupted)
{
  struct point p[POINTS_MAX];
  unsigned lo = 0, hi = 0;
  int failed = 0, done, out_err = 0, e;

  for (int i = 0; i < cal.n; i++) {
    lo = cal.min[i] > lo ? cal.min[i] : lo;
    hi = hi == 0 || cal.found[i] < hi ? cal.found[i] : hi;
  }
  if (lo >= hi)
    npoints = 1;
  printf("\ncalibrating the clock: %d CPUs, %d limits from %.0f to %.0f "
         "MHz, %.3g s a probe", cal.n, npoints, hi / 1000.0, lo / 1000.0,
         seconds);
  if (part > 0)
    printf("; below the first, again with %d of them capped", part);
  printf("\n");
  printf("%10s %14s %14s %8s\n", "limit MHz", "waiting W", "computing W",
         "speed");
  e = 0;
  done = out_failed() ? (e = errno, -2)
                      : measure(p, npoints, part, lo, hi, seconds, window_s,
                                power, arg, interrupted, &failed, &e);
  out_err = done == -2;
  if (set_all(&cal, 0, 1) != 0) {
    fprintf(stderr, "pmon-meters: --calibrate-clock: some CPUs' limits "
            "could not be put back: %s\n", strerror(errno));
    return 1;
  }
  if (failed != 0) {
    fprintf(stderr, "pmon-meters: --calibrate-clock: scaling_max_freq: "
            "cannot write %d of %d CPUs' (root's, on most nodes): %s\n",
            failed, cal.n, strerror(e));
    return 1;
  }
  if (out_err) {
    fprintf(stderr, "pmon-meters: --calibrate-clock: standard output: %s: "
            "stopped; the limits are as found, %s not written\n",
            strerror(e), meters_tty(path));
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
  if (write_file(path, &cal, hi, p, npoints, part, seconds, window_s,
                 covers) != 0)
    return 1;
  printf("written: %s\n", meters_tty(path));
  return out_failed();
}

int meters_calibrate_clock(const char *path, int npoints, int part,
                           double seconds, double window_s,
                           const char *covers, meters_power_fn *power,
                           void *arg, volatile sig_atomic_t *interrupted)
{
  struct pmon_freqcal lock;
  char node[256], owner[300];
  int rc, made = 0;

  if (find_cpus(&cal) == 0) {
    fprintf(stderr, "pmon-meters: --calibrate-clock: no CPU of this node "
            "has a clock limit (%s/devices/system/cpu/cpuN/cpufreq/"
            "scaling_max_freq): nothing to calibrate\n",
            meters_tty(pmon__sysfs_root()));
    return 1;
  }
  if (part < 0)
    part = cal.n / 2; /* half, or none of one CPU */
  else if (part >= cal.n && part > 0) {
    fprintf(stderr, "pmon-meters: --calibrate-clock: --part %d: this node "
            "has %d CPUs with a clock limit; at most %d\n", part, cal.n,
            cal.n - 1);
    close_cpus(&cal);
    return 1;
  }
  /* The clock is this run's from here: a job looks for the lock before
   * it caps (lib/iofreq.c), and its record is looked at after it. */
  pmon__node_name(node, sizeof node);
  if ((rc = pmon__freqrec_cal_take(&lock, node)) != 0) {
    if (rc == PMON_EAGAIN)
      fprintf(stderr, "pmon-meters: --calibrate-clock: another calibration "
              "holds this node's clock (pid %ld, %s): refused\n", lock.pid,
              meters_tty(lock.path));
    else
      fprintf(stderr, "pmon-meters: --calibrate-clock: %s\n",
              meters_tty(pmon_errmsg() + strlen("pmon: ")));
    close_cpus(&cal);
    return 1;
  }
  if (lock.replaced)
    printf("note: %s: a file of %s was there: removed\n",
           meters_tty(lock.path), who(lock.replaced_uid, owner,
                                      sizeof owner));
  rc = 1;
  if (!job_holds(&cal) && check_saved(&cal, &made) == 0) {
    rc = run(path, npoints, part, seconds, window_s, covers, power, arg,
             interrupted);
    unsave(made);
  }
  pmon__freqrec_cal_give(&lock);
  close_cpus(&cal);
  return rc;
}
