/*
 * nvml_read - what a reading of the nvml meter costs, how often NVML's
 * energy counter moves, and how the counter compares with the power
 * reading integrated over time, on the GPUs of this node.
 *
 *   nvml_read [SECONDS [SPEC]]     (defaults: 10, "nvml")
 *
 * SPEC is an nvml meter specification (pmon-driver-nvml(7)); with
 * lib=PATH it runs against another library, such as the tests' stand-in.
 * Three parts, each on the GPUs the meter chose:
 *
 *   cost     nanoseconds per reading of the driver (its read(), as the
 *            poller thread calls it), against the baseline measured in
 *            the same run: the bare NVML calls that reading needs
 *            (nvmlDeviceGetTotalEnergyConsumption, or
 *            nvmlDeviceGetPowerUsage, once per GPU), in 21 rounds of up
 *            to 2,000 readings (about 50 ms each) that alternate the two;
 *            the medians, the ratio, the processor time of a reading,
 *            and what they come to at the meter's period.
 *            Also the bare power call's cost, for reference.
 *   update   for 2 s, the energy counter and the power reading of the
 *            first GPU read back to back: how often each changes (the
 *            median, least and most interval between changes) and the
 *            counter's median step.
 *   compare  for SECONDS, the power reading sampled every 10 ms and
 *            integrated (trapezoids), against the counter's increase over
 *            the same span.  The span starts and ends at a change of the
 *            counter, so that its update period does not blur it.  NVML
 *            documents the power reading of recent GPUs as an average
 *            over a second: over a load that changes within the span the
 *            two differ by what that average smooths away.
 *
 * It prints a short report for a person (docs/hardware.md keeps one).
 * Exit status 0, 1 when the meter or the library cannot be opened (with
 * pmon's reason), 2 on bad usage.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmon.h"
#include "driver.h"

#define ROUNDS 21
#define PER_ROUND 2000
#define ROUND_NS 50e6 /* about 50 ms a round */
#define UPDATE_S 2.0
#define SAMPLE_NS 10000000 /* 10 ms between power samples */
#define CHANGES_MAX 100000

typedef struct nvmlDevice_st *nvmlDevice_t;

/* The bare library: the calls a reading of the driver makes. */
static struct {
  int (*init)(void);
  int (*handle)(unsigned int, nvmlDevice_t *);
  int (*energy)(nvmlDevice_t, unsigned long long *);
  int (*power)(nvmlDevice_t, unsigned int *);
} nv;

static uint64_t now_ns(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;

  return (x > y) - (x < y);
}

static double median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void *sym(void *dl, const char *name, const char *fallback)
{
  void *f = dlsym(dl, name);

  return f != NULL || fallback == NULL ? f : dlsym(dl, fallback);
}

/* The library SPEC names, opened bare, with the handles of the meter's
 * GPUs (channel "gpuN": NVML index N) in DEV; 0, or -1 with a line. */
static int bare_open(const struct pmon_meter *m, nvmlDevice_t *dev)
{
  const char *lib = pmon__spec_get(&m->spec, "lib");
  void *dl = dlopen(lib != NULL ? lib : "libnvidia-ml.so.1", RTLD_NOW);

  if (dl == NULL) {
    fprintf(stderr, "nvml_read: %s\n", dlerror());
    return -1;
  }
  nv.init = (int (*)(void))sym(dl, "nvmlInit_v2", "nvmlInit");
  nv.handle = (int (*)(unsigned int, nvmlDevice_t *))sym(
    dl, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
  nv.energy = (int (*)(nvmlDevice_t, unsigned long long *))sym(
    dl, "nvmlDeviceGetTotalEnergyConsumption", NULL);
  nv.power = (int (*)(nvmlDevice_t, unsigned int *))sym(
    dl, "nvmlDeviceGetPowerUsage", NULL);
  if (nv.init == NULL || nv.handle == NULL || nv.power == NULL ||
      nv.init() != 0) {
    fprintf(stderr, "nvml_read: the bare library does not initialise\n");
    return -1;
  }
  for (int c = 0; c < m->nch; c++)
    if (nv.handle((unsigned)atoi(m->ch[c].name + 3), &dev[c]) != 0) {
      fprintf(stderr, "nvml_read: %s: no handle\n", m->ch[c].name);
      return -1;
    }
  return 0;
}

static uint64_t cpu_ns(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Part 1: a reading of the driver against the bare calls it makes.  A
 * round lasts about ROUND_NS: NVML's calls cost from a few hundred
 * nanoseconds (a value the driver caches) to milliseconds (a request to
 * the GPU's own processor), so the readings per round follow the cost of
 * a first call, at most PER_ROUND. */
static void cost(struct pmon_meter *m, const nvmlDevice_t *dev, int counter)
{
  double drv[ROUNDS], bare[ROUNDS], pw[ROUNDS], cpu[ROUNDS];
  struct pmon_reading r;
  unsigned long long mj;
  unsigned int mw;
  int failed = 0, per;
  uint64_t t0 = now_ns(), c0;

  for (int c = 0; c < m->nch; c++)
    failed |= counter ? nv.energy(dev[c], &mj) : nv.power(dev[c], &mw);
  per = (int)(ROUND_NS / (double)(now_ns() - t0 + 1));
  per = per < 1 ? 1 : per > PER_ROUND ? PER_ROUND : per;
  for (int k = 0; k < ROUNDS; k++) {
    t0 = now_ns();
    for (int i = 0; i < per; i++)
      for (int c = 0; c < m->nch; c++)
        failed |= counter ? nv.energy(dev[c], &mj) : nv.power(dev[c], &mw);
    bare[k] = (double)(now_ns() - t0) / per;
    t0 = now_ns();
    c0 = cpu_ns();
    for (int i = 0; i < per; i++) {
      memset(&r, 0, sizeof r);
      failed |= m->drv->read(m, &r);
    }
    cpu[k] = (double)(cpu_ns() - c0) / per;
    drv[k] = (double)(now_ns() - t0) / per;
    t0 = now_ns();
    for (int i = 0; i < per; i++)
      failed |= nv.power(dev[0], &mw);
    pw[k] = (double)(now_ns() - t0) / per;
  }
  double b = median(bare, ROUNDS), d = median(drv, ROUNDS);
  double u = median(cpu, ROUNDS);

  printf("cost of a reading (%d GPU%s, %d rounds of %d):\n", m->nch,
         m->nch > 1 ? "s" : "", ROUNDS, per);
  printf("  baseline, the bare %s call%s: %.0f ns (fastest round %.0f, "
         "slowest %.0f)\n",
         counter ? "nvmlDeviceGetTotalEnergyConsumption"
                 : "nvmlDeviceGetPowerUsage",
         m->nch > 1 ? "s" : "", b, bare[0], bare[ROUNDS - 1]);
  printf("  the driver's read(): %.0f ns (fastest round %.0f, slowest "
         "%.0f)\n", d, drv[0], drv[ROUNDS - 1]);
  printf("  difference %.0f ns, ratio %.3f\n", d - b, b > 0 ? d / b : 0);
  printf("  processor time of a read(): %.0f ns (%.0f %% of its time)\n",
         u, d > 0 ? u / d * 100 : 0);
  printf("  at the meter's period of %.3f s: a reading takes %.3f %% of "
         "the period and %.4f %% of a core\n",
         m->interval_s, d * 1e-9 / m->interval_s * 100,
         u * 1e-9 / m->interval_s * 100);
  printf("  for reference, nvmlDeviceGetPowerUsage on gpu0: %.0f ns\n",
         median(pw, ROUNDS));
  if (failed)
    printf("  some calls failed\n");
}

/* Part 2: how often the first GPU's counter and power reading change. */
static void update(const nvmlDevice_t *dev, int counter)
{
  static double de[CHANGES_MAX], dp[CHANGES_MAX], step[CHANGES_MAX];
  unsigned long long e = 0, e0 = 0;
  unsigned int p = 0, p0 = 0;
  uint64_t t, te = 0, tp = 0, end = now_ns() + (uint64_t)(UPDATE_S * 1e9);
  int ne = 0, np = 0, nstep = 0, calls = 0, first = 1;

  while ((t = now_ns()) < end) {
    int okp = nv.power(dev[0], &p) == 0;
    int oke = counter && nv.energy(dev[0], &e) == 0;

    calls++;
    if (first) {
      e0 = e, p0 = p, te = tp = t, first = 0;
      continue;
    }
    if (oke && e != e0) {
      if (te != 0 && nstep < CHANGES_MAX && ne < CHANGES_MAX) {
        step[nstep++] = (double)(e - e0);
        de[ne++] = (double)(t - te) * 1e-6;
      }
      e0 = e, te = t;
    }
    if (okp && p != p0 && np < CHANGES_MAX) {
      dp[np++] = (double)(t - tp) * 1e-6;
      p0 = p, tp = t;
    }
  }
  printf("updates of gpu0 over %.0f s (%d reads of each):\n", UPDATE_S,
         calls);
  if (counter && ne > 1) {
    /* The first interval starts at the loop, not at a change: drop it. */
    double s = median(step + 1, nstep - 1), m;

    m = median(de + 1, ne - 1);
    printf("  energy counter: %d changes, every %.2f ms (median; %.2f .. "
           "%.2f), median step %.0f mJ (%.1f W)\n",
           ne - 1, m, de[1], de[ne - 1], s, m > 0 ? s / m : 0);
  } else if (counter) {
    printf("  energy counter: did not change\n");
  }
  if (np > 1)
    printf("  power reading: %d changes, every %.2f ms (median; %.2f .. "
           "%.1f)\n",
           np - 1, median(dp + 1, np - 1), dp[1], dp[np - 1]);
  else
    printf("  power reading: did not change\n");
}

/* The first GPU's counter at its next change: the value, the time. */
static int next_change(const nvmlDevice_t *dev, unsigned long long *e,
                       uint64_t *t)
{
  unsigned long long a, b;
  uint64_t end = now_ns() + 2000000000u;

  if (nv.energy(dev[0], &a) != 0)
    return -1;
  do {
    if (nv.energy(dev[0], &b) != 0)
      return -1;
    *t = now_ns();
  } while (b == a && *t < end);
  *e = b;
  return b == a ? -1 : 0;
}

/* Part 3: the counter against the power reading times time. */
static void compare(const nvmlDevice_t *dev, double seconds)
{
  unsigned long long e0, e1;
  unsigned int p;
  uint64_t t0, t1, t, prev_t, end;
  double joules = 0, prev_w = -1, wmin = 1e9, wmax = 0;
  int n = 0;

  if (next_change(dev, &e0, &t0) != 0) {
    printf("compare: the energy counter of gpu0 does not move\n");
    return;
  }
  prev_t = t0;
  end = t0 + (uint64_t)(seconds * 1e9);
  for (t = t0; t < end; t = now_ns()) {
    if (nv.power(dev[0], &p) == 0) {
      double w = p / 1000.0;

      if (prev_w >= 0)
        joules += (w + prev_w) / 2 * (double)(t - prev_t) * 1e-9;
      prev_w = w, prev_t = t, n++;
      wmin = w < wmin ? w : wmin;
      wmax = w > wmax ? w : wmax;
    }
    struct timespec ts = {0, SAMPLE_NS};
    nanosleep(&ts, NULL);
  }
  if (next_change(dev, &e1, &t1) != 0) {
    printf("compare: the energy counter of gpu0 stopped\n");
    return;
  }
  if (nv.power(dev[0], &p) == 0)
    joules += (p / 1000.0 + prev_w) / 2 * (double)(t1 - prev_t) * 1e-9;
  double span = (double)(t1 - t0) * 1e-9, ec = (double)(e1 - e0) * 1e-3;

  printf("energy counter against power x time on gpu0, over %.3f s:\n",
         span);
  printf("  counter: %.1f J (%.1f W)\n", ec, ec / span);
  printf("  power readings (%d, every %d ms, %.1f .. %.1f W) integrated: "
         "%.1f J (%.1f W)\n",
         n, SAMPLE_NS / 1000000, wmin, wmax, joules, joules / span);
  printf("  counter / integral: %.4f (%+.2f %%)\n", joules > 0 ? ec / joules : 0,
         joules > 0 ? (ec / joules - 1) * 100 : 0);
}

int main(int argc, char **argv)
{
  const struct pmon_driver *drv = pmon__driver_find("nvml");
  double seconds = argc > 1 ? atof(argv[1]) : 10;
  struct pmon_meter m;
  nvmlDevice_t dev[PMON_CH_MAX];
  int counter;

  if (argc > 3 || seconds <= 0 || drv == NULL) {
    fprintf(stderr, "usage: nvml_read [SECONDS [SPEC]]\n");
    return 2;
  }
  memset(&m, 0, sizeof m);
  m.drv = drv;
  m.flags = drv->flags;
  m.interval_s = drv->interval_s;
  if (pmon__spec_parse(argc > 2 ? argv[2] : "nvml", &m.spec) != 0 ||
      (m.priv = calloc(1, drv->priv_size)) == NULL ||
      drv->open(&m) != 0) {
    fprintf(stderr, "%s\n", pmon_errmsg());
    return 1;
  }
  counter = (m.flags & PMON_DRV_COUNTER) != 0;
  printf("meter: %s, %s, %d GPU%s, read every %.3f s\n", m.spec.text,
         m.source, m.nch, m.nch > 1 ? "s" : "", m.interval_s);
  if (bare_open(&m, dev) != 0)
    return 1;
  if (counter && nv.energy == NULL) {
    fprintf(stderr, "nvml_read: no nvmlDeviceGetTotalEnergyConsumption\n");
    return 1;
  }
  cost(&m, dev, counter);
  update(dev, counter);
  if (counter)
    compare(dev, seconds);
  else
    printf("compare: no energy counter (power readings only)\n");
  if (drv->close != NULL)
    drv->close(&m);
  free(m.priv);
  return 0;
}
