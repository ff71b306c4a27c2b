/*
 * hwmonfeed - plays Linux hwmon chips for the tests of the hwmon driver:
 * builds a fixture sysfs tree and keeps its power and energy files up to
 * date with a known waveform (tests/wave.h).
 *
 *   hwmonfeed ROOT ORIGIN_NS [--seconds S] [--once] CHIP...
 *
 * The chips go to ROOT/class/hwmon/hwmon0, hwmon1, ... in the order given;
 * WAVE starts at ORIGIN_NS (CLOCK_MONOTONIC, as tests/wave takes it).
 * CHIP is one of
 *
 *   decoy            "coretemp": a temperature, no power
 *   acpi:WAVE[:MS]   "power_meter", the ACPI power meter: power1_average
 *                    is WAVE's mean over the last whole period of MS
 *                    milliseconds (100), published every MS ms;
 *                    power1_average_interval is MS
 *   grace            NVIDIA Grace Hopper, 2 sockets: 8 chips "power_meter"
 *                    whose files are in device/, one rail each
 *                    (power1_oem_info "<Rail> Power Socket <N>") at a
 *                    fixed power: Module 600 and 500 W, Grace 250 and
 *                    200, CPU 180 and 150, SysIO 40 and 30;
 *                    power1_average_interval 50 ms
 *   grace-only       the same without the Module rails (Grace-Grace)
 *   amd:WAVE[:N]     "amd_energy": energy counters, microjoules, root's
 *                    mode 0440 as the kernel makes them: N cores per
 *                    socket (4), labels Ecore000..., then Esocket0 and
 *                    Esocket1, each socket half of WAVE and the cores
 *                    of a socket together 80 % of it
 *   both:WAVE        "both": energy1_input and power1_input (WAVE's
 *                    energy and power), unlabelled, and energy2_input
 *                    and power2_input labelled "aux", at a tenth of it
 *
 * ROOT/ready appears once every file is written.  Value files are
 * rewritten in place every 5 ms (the library keeps them open), padded
 * with NULs to 32 bytes.  --once writes them once and exits; otherwise it
 * runs until SIGTERM or for S seconds.  Exit status
 * 0, 1 when a file cannot be written, 2 on bad usage.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "wave.h"

#define TICK_NS 5000000LL /* rewrite period */
#define PAD 32            /* bytes of a value file, NUL padded */
#define DYN_MAX 64        /* value files kept up to date */
#define BASE_UJ 1e12      /* counters start here, microjoules */

enum kind { ENERGY, POWER, AVERAGE };

/* One value file: its descriptor and what it holds. */
struct dyn {
  int fd;
  enum kind kind;
  struct wave w;
  double share; /* of W */
  double ms;    /* AVERAGE: the period, ms */
};

struct feed {
  char root[2048];
  int nchips;
  struct dyn dyn[DYN_MAX];
  int ndyn;
};

static volatile sig_atomic_t done;

static void stop(int sig)
{
  (void)sig;
  done = 1;
}

static long long now_ns(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* mkdir -p PATH. */
static int mkdirs(const char *path)
{
  char p[4096];

  snprintf(p, sizeof p, "%s", path);
  for (char *s = p + 1; *s != '\0'; s++)
    if (*s == '/') {
      *s = '\0';
      if (mkdir(p, 0755) != 0 && errno != EEXIST)
        return -1;
      *s = '/';
    }
  return mkdir(p, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* Write TEXT and a newline to DIR/FILE with MODE. */
static int put(const char *dir, const char *file, const char *text,
               mode_t mode)
{
  char path[4096];
  FILE *f;

  snprintf(path, sizeof path, "%s/%s", dir, file);
  if ((f = fopen(path, "w")) == NULL || fprintf(f, "%s\n", text) < 0 ||
      fclose(f) != 0 || chmod(path, mode) != 0) {
    perror(path);
    return -1;
  }
  return 0;
}

/* Make DIR/FILE a value file of F, kept open. */
static int add_dyn(struct feed *f, const char *dir, const char *file,
                   enum kind kind, const struct wave *w, double share,
                   double ms, mode_t mode)
{
  char path[4096];
  struct dyn *d = &f->dyn[f->ndyn];

  if (f->ndyn == DYN_MAX) {
    fprintf(stderr, "hwmonfeed: more than %d value files\n", DYN_MAX);
    return -1;
  }
  snprintf(path, sizeof path, "%s/%s", dir, file);
  if ((d->fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, mode)) < 0 ||
      fchmod(d->fd, mode) != 0) {
    perror(path);
    return -1;
  }
  d->kind = kind;
  d->w = *w;
  d->share = share;
  d->ms = ms;
  f->ndyn++;
  return 0;
}

/* A new chip directory NAME, and in SUB ("" or "device") its files'
 * directory into DIR. */
static int new_chip(struct feed *f, const char *name, const char *sub,
                    char *dir, size_t size)
{
  char chip[3072];

  snprintf(chip, sizeof chip, "%s/class/hwmon/hwmon%d", f->root,
           f->nchips++);
  snprintf(dir, size, "%s%s%s", chip, sub[0] != '\0' ? "/" : "", sub);
  if (mkdirs(dir) != 0) {
    perror(dir);
    return -1;
  }
  return put(chip, "name", name, 0444);
}

static int grace(struct feed *f, int modules)
{
  static const struct {
    const char *rail;
    double w[2];
  } rails[] = {{"Module", {600, 500}},
               {"Grace", {250, 200}},
               {"CPU", {180, 150}},
               {"SysIO", {40, 30}}};

  for (int s = 0; s < 2; s++)
    for (size_t r = modules ? 0 : 1; r < sizeof rails / sizeof rails[0];
         r++) {
      char dir[4096], oem[64], spec[32];
      struct wave w;

      snprintf(oem, sizeof oem, "%s Power Socket %d", rails[r].rail, s);
      snprintf(spec, sizeof spec, "const:%g", rails[r].w[s]);
      wave_parse(spec, &w);
      if (new_chip(f, "power_meter", "device", dir, sizeof dir) != 0 ||
          put(dir, "power1_oem_info", oem, 0444) != 0 ||
          put(dir, "power1_average_interval", "50", 0644) != 0 ||
          add_dyn(f, dir, "power1_average", AVERAGE, &w, 1, 50, 0444) != 0)
        return -1;
    }
  return 0;
}

static int amd(struct feed *f, const struct wave *w, int cores)
{
  char dir[4096], file[32], label[32];
  int ch = 1;

  if (new_chip(f, "amd_energy", "", dir, sizeof dir) != 0)
    return -1;
  for (int c = 0; c < 2 * cores; c++, ch++) {
    snprintf(file, sizeof file, "energy%d_label", ch);
    snprintf(label, sizeof label, "Ecore%03d", c);
    if (put(dir, file, label, 0440) != 0)
      return -1;
    snprintf(file, sizeof file, "energy%d_input", ch);
    if (add_dyn(f, dir, file, ENERGY, w, 0.5 * 0.8 / cores, 0, 0440) != 0)
      return -1;
  }
  for (int s = 0; s < 2; s++, ch++) {
    snprintf(file, sizeof file, "energy%d_label", ch);
    snprintf(label, sizeof label, "Esocket%d", s);
    if (put(dir, file, label, 0440) != 0)
      return -1;
    snprintf(file, sizeof file, "energy%d_input", ch);
    if (add_dyn(f, dir, file, ENERGY, w, 0.5, 0, 0440) != 0)
      return -1;
  }
  return 0;
}

static int both(struct feed *f, const struct wave *w)
{
  char dir[4096];

  return new_chip(f, "both", "", dir, sizeof dir) != 0 ||
             add_dyn(f, dir, "energy1_input", ENERGY, w, 1, 0, 0444) != 0 ||
             add_dyn(f, dir, "power1_input", POWER, w, 1, 0, 0444) != 0 ||
             put(dir, "energy2_label", "aux", 0444) != 0 ||
             put(dir, "power2_label", "aux", 0444) != 0 ||
             add_dyn(f, dir, "energy2_input", ENERGY, w, 0.1, 0, 0444) != 0 ||
             add_dyn(f, dir, "power2_input", POWER, w, 0.1, 0, 0444) != 0
           ? -1
           : 0;
}

/* Add CHIP (see the usage) to F. */
static int add_chip(struct feed *f, const char *chip)
{
  char dir[4096], spec[256], *arg;
  struct wave w;
  double n = 0;

  if (strcmp(chip, "decoy") == 0)
    return new_chip(f, "coretemp", "", dir, sizeof dir) != 0 ||
               put(dir, "temp1_input", "45000", 0444) != 0 ||
               put(dir, "temp1_label", "Package id 0", 0444) != 0
             ? -1
             : 0;
  if (strcmp(chip, "grace") == 0 || strcmp(chip, "grace-only") == 0)
    return grace(f, strcmp(chip, "grace") == 0);
  if ((arg = strchr(chip, ':')) == NULL)
    return -2;
  snprintf(spec, sizeof spec, "%s", arg + 1);
  /* An extra ":N" after the waveform's own fields. */
  {
    char *last = strrchr(spec, ':');

    if (last != NULL && wave_parse(spec, &w) != 0) {
      n = atof(last + 1);
      *last = '\0';
    }
  }
  if (wave_parse(spec, &w) != 0)
    return -2;
  if (strncmp(chip, "acpi:", 5) == 0) {
    double ms = n > 0 ? n : 100;
    char text[32];

    snprintf(text, sizeof text, "%.0f", ms);
    return new_chip(f, "power_meter", "", dir, sizeof dir) != 0 ||
               put(dir, "power1_oem_info", "Fixture Meter 1.0", 0444) !=
                 0 ||
               put(dir, "power1_average_interval", text, 0644) != 0 ||
               add_dyn(f, dir, "power1_average", AVERAGE, &w, 1, ms,
                       0444) != 0
             ? -1
             : 0;
  }
  if (strncmp(chip, "amd:", 4) == 0)
    return amd(f, &w, n > 0 ? (int)n : 4);
  if (strncmp(chip, "both:", 5) == 0)
    return both(f, &w);
  return -2;
}

/* The value of D at X seconds after the origin: microjoules or
 * microwatts. */
static uint64_t value(const struct dyn *d, double x)
{
  double v;

  switch (d->kind) {
  case ENERGY:
    v = BASE_UJ + d->share * wave_cumulative(&d->w, x) * 1e6;
    break;
  case POWER:
    v = d->share * wave_power(&d->w, x) * 1e6;
    break;
  default: { /* the last whole period's mean */
    double p = d->ms * 1e-3, b = floor(x / p) * p;

    v = d->share * (wave_cumulative(&d->w, b) - wave_cumulative(&d->w, b - p)) /
        p * 1e6;
  }
  }
  return v > 0 ? (uint64_t)v : 0;
}

static int write_all(const struct feed *f, long long origin)
{
  double x = (double)(now_ns() - origin) * 1e-9;

  for (int i = 0; i < f->ndyn; i++) {
    char buf[PAD];

    memset(buf, 0, sizeof buf);
    snprintf(buf, sizeof buf, "%llu\n",
             (unsigned long long)value(&f->dyn[i], x));
    if (pwrite(f->dyn[i].fd, buf, sizeof buf, 0) != (ssize_t)sizeof buf) {
      perror("hwmonfeed: pwrite");
      return -1;
    }
  }
  return 0;
}

int main(int argc, char **argv)
{
  static struct feed f;
  double seconds = -1;
  long long origin, next;
  int once = 0, i;

  if (argc < 4) {
    fprintf(stderr, "usage: hwmonfeed ROOT ORIGIN_NS [--seconds S] "
                    "[--once] CHIP...\n");
    return 2;
  }
  snprintf(f.root, sizeof f.root, "%s", argv[1]);
  origin = atoll(argv[2]);
  for (i = 3; i < argc; i++) {
    int rc;

    if (strcmp(argv[i], "--once") == 0) {
      once = 1;
      continue;
    }
    if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
      seconds = atof(argv[++i]);
      continue;
    }
    if ((rc = add_chip(&f, argv[i])) == -2) {
      fprintf(stderr, "hwmonfeed: %s: not a chip (see the usage)\n",
              argv[i]);
      return 2;
    }
    if (rc != 0)
      return 1;
  }
  signal(SIGTERM, stop);
  signal(SIGINT, stop);
  if (write_all(&f, origin) != 0 || put(f.root, "ready", "1", 0444) != 0)
    return 1;
  if (once)
    return 0;
  next = now_ns();
  while (!done && (seconds < 0 || now_ns() - origin < seconds * 1e9)) {
    struct timespec ts;

    next += TICK_NS;
    ts.tv_sec = (time_t)(next / 1000000000LL);
    ts.tv_nsec = (long)(next % 1000000000LL);
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    if (write_all(&f, origin) != 0)
      return 1;
  }
  return 0;
}
