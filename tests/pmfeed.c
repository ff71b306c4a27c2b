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
 *     --follow PIDFILE  the power follows the CPU demand of the processes
 *                     whose PIDs PIDFILE lists, one a line (below): WATTS
 *                     is then the node's power at full use
 *     --idle-w W      with --follow, and required with it: the power idle
 *     --cores C       with --follow, and required with it: the node's cores
 *     --freq FILE     the power follows the CPU clock limit in FILE (kHz, a
 *                     scaling_max_freq of a fixture): WATTS at --freq-max;
 *                     given again (up to 64), the mean limit of the files
 *     --freq-max KHZ  with --freq, and required with it; and --idle-w W
 *     --random LO     at each publication the power until the next one
 *                     becomes a level drawn at random from LO to WATTS
 *                     (uniform; --seed N, else the same levels each
 *                     run): a node whose power jumps at every
 *                     publication, for the error bars' test (--log says
 *                     what was drawn)
 *     --hwmon ROOT    also play an ACPI power meter: a sysfs tree under
 *                     ROOT (PMON_SYSFS_ROOT) with one chip, class/hwmon/
 *                     hwmon0, "power_meter", whose power1_average is the
 *                     mean power since the publication before (microwatts,
 *                     unrounded), renewed at each publication, and whose
 *                     power1_average_interval is the period: with --hz 1,
 *                     a meter that averages over a second, once a second
 *     --log FILE      append a line "NS WATTS" at each publication: its
 *                     CLOCK_MONOTONIC instant and the power since the one
 *                     before, so that a test knows what the node really
 *                     drew when this feeder or the clock it follows was
 *                     late on a busy machine (with --schedule, also a
 *                     line at each change of power)
 *     --schedule FILE the power is set by another program, which appends
 *                     lines "NS WATTS" to FILE (one write each): from the
 *                     CLOCK_MONOTONIC instant NS on, the power is WATTS;
 *                     WATTS until the first line.  A line read after a
 *                     publication later than its NS takes effect at
 *                     that publication, and --log says so: the log is
 *                     what was published, not what was asked
 *
 * With --follow, at each publication the power is W + (WATTS - W) * u over
 * the interval since the one before, u being the CPU demand of the listed
 * processes over that interval divided by (interval * C), clamped to 0..1,
 * and the energy counter is that power integrated: base + the sum of
 * power * interval.  A process's CPU demand is the growth of the first two
 * fields of /proc/PID/schedstat, nanoseconds on a CPU and nanoseconds
 * waiting on a run queue, of its main thread only (/proc/PID/schedstat is
 * the thread group leader's): on a machine with fewer cores than the
 * processes it emulates, a process waiting for a CPU is counted busy, as it
 * would be on a node where it had a core of its own, and a process asleep
 * (in nanosleep, or waiting for a disk) is not.  PIDFILE is read again at
 * each publication, so that ranks can append their PIDs as they start
 * (`echo $$ >> PIDFILE` before `exec`); a missing PIDFILE lists nothing
 * (u = 0).  A process counts from its start when it started after the
 * previous publication, else from when it is first seen listed; one that
 * has exited, or whose PID now names another process (its start time
 * changed), counts no more; a PID no longer listed is forgotten, so that
 * emptying PIDFILE between runs starts afresh.  While frozen it goes on
 * following, so that --resume-at jumps to what it would have counted.
 * --follow does not go with --step-at.
 *
 * With --freq, at each publication the power over the interval since the
 * one before is W + (WATTS - W) * (f / KHZ)^3, f being FILE's value then
 * (clamped to 0..KHZ; KHZ when it cannot be read): dynamic power goes as
 * f V^2, and V with f.  With several files f is the mean of their values:
 * a node whose power follows the mean limit over its CPUs, so that capping
 * half of them saves much less than half of capping all.  It does not go with --follow or --step-at.
 *
 * With --freeze-at it prints "frozen NS" when it stops, NS being the
 * CLOCK_MONOTONIC instant of the last values it published, and "resumed
 * NS" with the instant of the first ones after, so that a test knows the
 * span that went unpublished.  With --step-at it prints "step NS", the
 * CLOCK_MONOTONIC instant from which the power is W.
 *
 * Files are rewritten in place (the library keeps them open), padded with
 * NULs to 64 bytes as sysfs attributes may be.  energy = base + WATTS * t
 * (with --follow, base + the power integrated), in whole joules;
 * cpu_energy is 60 % of it and memory_energy 20 %; power is the power of
 * the last interval, in whole watts.  `freshness` goes up after each
 * publication.
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

/* A process listed in the PID file, as last read. */
struct proc {
  long pid;
  unsigned long long start; /* its start time, clock ticks after boot */
  unsigned long long ns;    /* schedstat: on a CPU + waiting for one */
  int dead;                 /* exited, or the PID names another process */
  int listed;               /* listed at the last reading of the file */
};

/* The power following the CPU demand of the processes of a PID file. */
struct follow {
  const char *pidfile;
  const char *freq_file; /* --freq: the first */
  const char *freq_files[64];
  int nfreq;
  int random;            /* --random: a new level at each publication */
  int sched_fd;          /* --schedule: the file of power changes, or -1 */
  char sched_buf[4096];  /* its partial line */
  size_t sched_len;
  double random_lo;
  double freq_max;
  double idle_w, max_w;
  int cores;
  struct proc *procs;
  size_t n, cap;
  double t_s;    /* when they were last read, seconds after t0 */
  double boot_s; /* that instant on CLOCK_BOOTTIME */
  double w;      /* the power over the last interval */
  double joules; /* the energy since t0, up to t_s */
};

static double boottime(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_BOOTTIME, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Read the start time (clock ticks after boot) and the CPU demand (ns on a
 * CPU + ns waiting for one) of the main thread of PID; -1 when it has
 * gone. */
static int read_proc(long pid, unsigned long long *start,
                     unsigned long long *ns)
{
  char path[64], buf[1024], *p;
  unsigned long long run, wait;
  FILE *f;
  size_t len;
  int field;

  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  if ((f = fopen(path, "r")) == NULL)
    return -1;
  len = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[len] = '\0';
  /* The name, field 2, is in parentheses and may hold anything: count
   * the fields from the last ')'; starttime is field 22. */
  if ((p = strrchr(buf, ')')) == NULL)
    return -1;
  for (field = 2; field < 21 && *p != '\0'; p++)
    if (*p == ' ')
      field++;
  if (field != 21 || sscanf(p, "%llu", start) != 1)
    return -1;
  snprintf(path, sizeof path, "/proc/%ld/schedstat", pid);
  if ((f = fopen(path, "r")) == NULL)
    return -1;
  if (fscanf(f, "%llu %llu", &run, &wait) != 2) {
    fclose(f);
    return -1;
  }
  fclose(f);
  *ns = run + wait;
  return 0;
}

/* The entry of PID, added when new (ns and start 0, not dead); NULL when
 * out of memory. */
static struct proc *proc_of(struct follow *fl, long pid, int *added)
{
  *added = 0;
  for (size_t i = 0; i < fl->n; i++)
    if (fl->procs[i].pid == pid)
      return &fl->procs[i];
  if (fl->n == fl->cap) {
    size_t cap = fl->cap ? 2 * fl->cap : 64;
    struct proc *p = realloc(fl->procs, cap * sizeof *p);

    if (p == NULL)
      return NULL;
    fl->procs = p;
    fl->cap = cap;
  }
  *added = 1;
  fl->procs[fl->n] = (struct proc){.pid = pid};
  return &fl->procs[fl->n++];
}

/* Read the PID file and the demand of its processes, and account the
 * interval since the last reading at the power that demand gives: fl->w
 * and fl->joules then hold up to fl->t_s (seconds after T0). */
static void follow_read(struct follow *fl, double t0)
{
  static double tick_s;
  double demand = 0, t, dt, u;
  char line[64];
  FILE *f;

  if (tick_s == 0)
    tick_s = 1.0 / (double)sysconf(_SC_CLK_TCK);
  for (size_t i = 0; i < fl->n; i++)
    fl->procs[i].listed = 0;
  if ((f = fopen(fl->pidfile, "r")) != NULL) {
    while (fgets(line, sizeof line, f) != NULL) {
      long pid = strtol(line, NULL, 10);
      unsigned long long start, ns;
      struct proc *p;
      int added;

      if (pid <= 0 || (p = proc_of(fl, pid, &added)) == NULL || p->listed)
        continue;
      p->listed = 1;
      if (p->dead)
        continue;
      if (read_proc(pid, &start, &ns) != 0 || (!added && start != p->start)) {
        p->dead = 1;
        continue;
      }
      /* New: its whole demand is this interval's if it started after the
       * last reading (start times are whole ticks, rounded down). */
      if (added && (double)start * tick_s + tick_s > fl->boot_s)
        demand += (double)ns;
      else if (!added)
        demand += (double)(ns - p->ns);
      p->start = start;
      p->ns = ns;
    }
    fclose(f);
  }
  /* Forget the PIDs no longer listed. */
  for (size_t i = 0; i < fl->n;)
    if (!fl->procs[i].listed)
      fl->procs[i] = fl->procs[--fl->n];
    else
      i++;
  t = now() - t0;
  dt = t - fl->t_s;
  if (dt > 0) {
    u = demand * 1e-9 / (dt * fl->cores);
    u = u < 0 ? 0 : u > 1 ? 1 : u;
    fl->w = fl->idle_w + (fl->max_w - fl->idle_w) * u;
    fl->joules += fl->w * dt;
  }
  fl->t_s = t;
  fl->boot_s = boottime();
}

/* --freq: the power over the interval since the last reading, from the
 * clock limit in the file now. */
static void freq_read(struct follow *fl, double t0)
{
  double t = now() - t0, dt = t - fl->t_s, r = 0;

  for (int i = 0; i < fl->nfreq; i++) {
    FILE *fp = fopen(fl->freq_files[i], "r");
    double f = fl->freq_max, q;

    if (fp != NULL) {
      if (fscanf(fp, "%lf", &f) != 1)
        f = fl->freq_max;
      fclose(fp);
    }
    q = f / fl->freq_max;
    r += (q < 0 ? 0 : q > 1 ? 1 : q) / fl->nfreq;
  }
  if (dt > 0) {
    fl->w = fl->idle_w + (fl->max_w - fl->idle_w) * r * r * r;
    fl->joules += fl->w * dt;
  }
  fl->t_s = t;
}

/* --schedule: take the changes of power appended to the file since the
 * last call, each from its instant (seconds after T0), no earlier than
 * fl->t_s (the last publication) and no later than T (now); each
 * change is logged as the power held until it. */
static void sched_read(struct follow *fl, double t0, double t, FILE *log)
{
  ssize_t got;

  for (;;) {
    char *nl;

    got = read(fl->sched_fd, fl->sched_buf + fl->sched_len,
               sizeof fl->sched_buf - 1 - fl->sched_len);
    if (got <= 0)
      break;
    fl->sched_len += (size_t)got;
    fl->sched_buf[fl->sched_len] = '\0';
    while ((nl = strchr(fl->sched_buf, '\n')) != NULL) {
      double ns, w, at;

      *nl = '\0';
      if (sscanf(fl->sched_buf, "%lf %lf", &ns, &w) == 2 && w >= 0) {
        at = ns * 1e-9 - t0;
        at = at < fl->t_s ? fl->t_s : at > t ? t : at;
        fl->joules += fl->w * (at - fl->t_s);
        fl->t_s = at;
        if (log != NULL && w != fl->w)
          fprintf(log, "%.0f %.6f\n", (t0 + at) * 1e9, fl->w);
        fl->w = w;
      }
      fl->sched_len -= (size_t)(nl + 1 - fl->sched_buf);
      memmove(fl->sched_buf, nl + 1, fl->sched_len + 1);
    }
  }
}

/* The energy counted from t0 to T seconds after it: WATTS * T, or with
 * --follow or --freq the power integrated, going on at the last
 * interval's power after the last reading. */
static double joules(const struct follow *fl, double watts, double t)
{
  if (fl->pidfile == NULL && fl->freq_file == NULL && !fl->random &&
      fl->sched_fd < 0)
    return watts * t;
  return fl->joules + fl->w * (t - fl->t_s);
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
  FILE *log = NULL;
  struct follow fl = {.pidfile = NULL, .idle_w = -1, .cores = 0,
                      .freq_file = NULL, .freq_max = 0, .sched_fd = -1};
  const char *schedule = NULL;
  const char *hwmon = NULL;
  char hwdir[4096] = "";
  double hw_e = 0, hw_t = 0; /* the energy at the last publication, t */

  if (argc < 3) {
    fprintf(stderr, "usage: pmfeed DIR WATTS [--hz N] [--ex] [--seconds S] "
                    "[--reset-at S] [--cap-at S] [--base J] "
                    "[--freeze-at S] [--resume-at S] "
                    "[--step-at S --step-w W] "
                    "[--follow PIDFILE --idle-w W --cores C] "
                    "[--freq FILE --freq-max KHZ --idle-w W] "
                    "[--random LO [--seed N]] [--schedule FILE]\n");
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
    else if (i + 1 < argc && strcmp(argv[i], "--follow") == 0)
      fl.pidfile = argv[++i];
    else if (i + 1 < argc && strcmp(argv[i], "--idle-w") == 0)
      fl.idle_w = atof(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--cores") == 0)
      fl.cores = atoi(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--log") == 0) {
      if ((log = fopen(argv[++i], "a")) == NULL) {
        perror(argv[i]);
        return 2;
      }
    } else if (i + 1 < argc && strcmp(argv[i], "--freq") == 0) {
      fl.freq_file = argv[++i];
      if (fl.nfreq == 64) {
        fprintf(stderr, "pmfeed: --freq: at most 64 files\n");
        return 2;
      }
      fl.freq_files[fl.nfreq++] = argv[i];
    }
    else if (i + 1 < argc && strcmp(argv[i], "--freq-max") == 0)
      fl.freq_max = atof(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--random") == 0) {
      fl.random = 1;
      fl.random_lo = atof(argv[++i]);
    } else if (i + 1 < argc && strcmp(argv[i], "--schedule") == 0)
      schedule = argv[++i];
    else if (i + 1 < argc && strcmp(argv[i], "--hwmon") == 0)
      hwmon = argv[++i];
    else if (i + 1 < argc && strcmp(argv[i], "--seed") == 0)
      srand48(atol(argv[++i]));
    else {
      fprintf(stderr, "pmfeed: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  if ((step_at >= 0) != (step_w >= 0)) {
    fprintf(stderr, "pmfeed: --step-at and --step-w go together\n");
    return 2;
  }
  if (fl.freq_file != NULL &&
      (fl.pidfile != NULL || step_at >= 0 || !(fl.freq_max > 0) ||
       fl.idle_w < 0)) {
    fprintf(stderr, "pmfeed: --freq goes with --freq-max KHZ and --idle-w W, "
                    "not with --follow or --step-at\n");
    return 2;
  }
  if (fl.freq_file == NULL &&
      ((fl.pidfile != NULL) != (fl.idle_w >= 0) ||
       (fl.pidfile != NULL) != (fl.cores > 0))) {
    fprintf(stderr, "pmfeed: --follow, --idle-w W (0 or more) and --cores C "
                    "(1 or more) go together\n");
    return 2;
  }
  if (fl.pidfile != NULL && step_at >= 0) {
    fprintf(stderr, "pmfeed: --follow does not go with --step-at\n");
    return 2;
  }
  if (fl.random && (fl.pidfile != NULL || fl.freq_file != NULL ||
                    step_at >= 0 || !(fl.random_lo >= 0) ||
                    !(fl.random_lo <= watts))) {
    fprintf(stderr, "pmfeed: --random LO takes 0 <= LO <= WATTS, and goes "
                    "with none of --follow, --freq, --step-at\n");
    return 2;
  }
  if (schedule != NULL) {
    if (fl.random || fl.pidfile != NULL || fl.freq_file != NULL ||
        step_at >= 0 || freeze_at >= 0 || reset_at >= 0) {
      fprintf(stderr, "pmfeed: --schedule goes with none of --random, "
                      "--follow, --freq, --step-at, --freeze-at, "
                      "--reset-at\n");
      return 2;
    }
    /* Made empty here, so that no line of an earlier run counts. */
    fl.sched_fd = open(schedule, O_RDONLY | O_CREAT | O_TRUNC, 0644);
    if (fl.sched_fd < 0) {
      perror(schedule);
      return 2;
    }
  }
  fl.max_w = watts;
  fl.w = fl.freq_file != NULL || schedule != NULL ? watts : fl.idle_w;
  if (fl.random)
    fl.w = fl.random_lo + (watts - fl.random_lo) * drand48();
  mkdir(dir, 0755);
  signal(SIGTERM, stop);
  signal(SIGINT, stop);
  put_u64(dir, "raw_scan_hz", (uint64_t)hz, NULL, 0);
  put_u64(dir, "startup", startup, NULL, 0);
  put_u64(dir, "generation", generation, NULL, 0);
  put_u64(dir, "power_cap", 0, "W", ex);
  put(dir, "version", "2\n");
  if (hwmon != NULL) {
    char text[64];
    static const char *const sub[] = {"", "/class", "/class/hwmon",
                                      "/class/hwmon/hwmon0"};

    for (size_t k = 0; k < sizeof sub / sizeof sub[0]; k++) {
      snprintf(hwdir, sizeof hwdir, "%s%s", hwmon, sub[k]);
      mkdir(hwdir, 0755);
    }
    snprintf(text, sizeof text, "%.0f\n", 1000 / hz);
    if (put(hwdir, "name", "power_meter\n") != 0 ||
        put(hwdir, "power1_oem_info", "pmfeed\n") != 0 ||
        put(hwdir, "power1_average_interval", text) != 0)
      return 2;
    snprintf(text, sizeof text, "%.0f\n",
             (fl.pidfile || fl.freq_file || fl.random || fl.sched_fd >= 0
                ? fl.w
                : watts) *
               1e6);
    if (put(hwdir, "power1_average", text) != 0)
      return 2;
  }
  t0 = now();
  fl.boot_s = boottime();
  while (!done) {
    double t = now() - t0;
    uint64_t e;

    if (seconds >= 0 && t >= seconds)
      break;
    if (fl.pidfile != NULL) {
      follow_read(&fl, t0);
      t = fl.t_s;
    } else if (fl.freq_file != NULL) {
      freq_read(&fl, t0);
      t = fl.t_s;
    } else if (fl.sched_fd >= 0)
      sched_read(&fl, t0, t, log);
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
      offset = -joules(&fl, watts, t) - base; /* start again from 0 */
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
      double v = floor(base + offset + joules(&fl, watts, t));

      e = v > 0 ? (uint64_t)v : 0;
      put_u64(dir, "energy", e, "J", ex);
      put_u64(dir, "cpu_energy", (uint64_t)floor(0.6 * (double)e), "J", ex);
      put_u64(dir, "memory_energy", (uint64_t)floor(0.2 * (double)e), "J",
              ex);
      put_u64(dir, "power",
              (uint64_t)(fl.pidfile || fl.freq_file || fl.random ||
                                 fl.sched_fd >= 0
                             ? fl.w
                             : watts),
              "W", ex);
      if (done || now() - t0 - t < LATE)
        break;
      t = now() - t0;
    }
    put_u64(dir, "freshness", ++fresh, NULL, 0);
    if (hwmon != NULL) { /* the mean power since the last publication */
      double hw = offset + joules(&fl, watts, t);
      char text[64];

      if (t > hw_t && tick > 0) {
        snprintf(text, sizeof text, "%.0f\n", (hw - hw_e) / (t - hw_t) * 1e6);
        put(hwdir, "power1_average", text);
      }
      hw_e = hw;
      hw_t = t;
    }
    t_pub = t;
    if (log != NULL) {
      fprintf(log, "%.0f %.6f\n", (t0 + t) * 1e9,
              fl.pidfile || fl.freq_file || fl.random || fl.sched_fd >= 0
                  ? fl.w
                  : watts);
      fflush(log);
    }
    if (fl.sched_fd >= 0) { /* later changes take effect from here on */
      fl.joules += fl.w * (t - fl.t_s);
      fl.t_s = t;
    }
    if (fl.random) { /* the level until the next publication */
      fl.joules += fl.w * (t - fl.t_s);
      fl.t_s = t;
      fl.w = fl.random_lo + (watts - fl.random_lo) * drand48();
    }
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
  free(fl.procs);
  return 0;
}
