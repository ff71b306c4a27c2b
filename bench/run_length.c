/*
 * run_length - what the node leader keeps against the run's length
 * (bench/README.md, make bench-scale): one sampled meter read at 60 Hz for
 * a simulated 48 hours, its readings folded into the core with simulated
 * time stamps (pmon__meter_fold(), as tests/check_longrun does), and at
 * 1 minute, 1, 12 and 48 hours the process's resident memory, the node
 * history's points and the time a reading costs; at the end the size of
 * the node's timeline of the whole run (PMON_TIMELINE, 512 slices
 * whatever its length, without CPU use here), built last so that its
 * memory is not in the figures.  The baseline, measured first in the same run,
 * is the loop without pmon: the simulated driver's read alone.
 */
#include "config.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pmon.h"
#include "core.h"
#include "leader.h"

#define HZ 60
#define T0 UINT64_C(5000000000000) /* ns: the simulated clock's start */

static uint64_t sim_ns;

static double power(uint64_t t)
{
  double s = (double)(t - T0) * 1e-9;

  return 200 + 100 * sin(2 * M_PI * fmod(s, 3600) / 3600);
}

static int sim_open(struct pmon_meter *m)
{
  return pmon__meter_add_channel(m, "node", PMON_DOM_NODE, PMON_CH_TOTAL, 1,
                                 0) < 0;
}

static int sim_read(struct pmon_meter *m, struct pmon_reading *r)
{
  (void)m;
  r->watts[0] = power(sim_ns);
  return 0;
}

static const struct pmon_driver sim = {
  .name = "sim",
  .description = "a known power on a simulated clock, for the bench",
  .flags = PMON_DRV_SAMPLED,
  .interval_s = 1.0 / HZ,
  .open = sim_open,
  .read = sim_read,
};

static double now(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long resident_kib(void)
{
  long size = 0, res = 0;
  FILE *f = fopen("/proc/self/statm", "r");

  if (f == NULL || fscanf(f, "%ld %ld", &size, &res) != 2)
    res = -1;
  if (f != NULL)
    fclose(f);
  return res * (sysconf(_SC_PAGESIZE) / 1024);
}

int main(void)
{
  static const double marks_h[] = {1.0 / 60, 1, 12, 48};
  const size_t nmarks = sizeof marks_h / sizeof marks_h[0];
  uint64_t n = (uint64_t)(marks_h[nmarks - 1] * 3600 * HZ), k = 0;
  double t, base_ns, prev_h = 0, spent = 0;
  volatile double sink = 0;
  long prev_kib = 0;

  if (bench_leader(&sim, T0) != 0) {
    fprintf(stderr, "run_length: cannot set up a leader\n");
    return 1;
  }
  /* The baseline: the driver's read alone, over the same readings. */
  t = now();
  for (uint64_t j = 0; j < n; j++) {
    struct pmon_reading r;

    sim_ns = T0 + j * 1000000000u / HZ;
    memset(&r, 0, sizeof r);
    sim_read(NULL, &r);
    sink += r.watts[0];
  }
  base_ns = (now() - t) * 1e9 / (double)n;
  /* The bench's own code (log(), printing numbers) runs once before the
   * first figure, so that its pages do not count as growth. */
  {
    char buf[64];

    snprintf(buf, sizeof buf, "%9.3f %7.1f", log(sink + 2), sink);
    sink += (double)strlen(buf);
  }
  printf("run_length: one sampled meter at %d Hz, simulated; baseline (the "
         "read alone) %.1f ns a reading; resident at start %ld KiB\n",
         HZ, base_ns, resident_kib());
  printf("%10s %12s %9s %9s %10s %7s\n", "hours", "readings", "RSS KiB",
         "k(RSS)", "hist pts", "ns/read");
  for (size_t i = 0; i < nmarks; i++) {
    uint64_t end = (uint64_t)(marks_h[i] * 3600 * HZ);
    double t1 = now();
    long kib;

    for (; k < end; k++) {
      struct pmon_reading r;

      sim_ns = T0 + k * 1000000000u / HZ;
      memset(&r, 0, sizeof r);
      pmon__meter_fold(0, sim_read(NULL, &r), &r, sim_ns, 0);
    }
    spent += now() - t1;
    kib = resident_kib();
    if (i == 0)
      printf("%10.3f %12llu %9ld %9s %10zu %7.1f\n", marks_h[i],
             (unsigned long long)k, kib, "-", pmon__g.hist.n,
             spent * 1e9 / (double)k);
    else
      printf("%10.3f %12llu %9ld %9.3f %10zu %7.1f\n", marks_h[i],
             (unsigned long long)k, kib,
             log((double)kib / (double)prev_kib) / log(marks_h[i] / prev_h),
             pmon__g.hist.n, spent * 1e9 / (double)k);
    prev_kib = kib;
    prev_h = marks_h[i];
  }
  {
    char *s = pmon__timeline_text(PMON_TIMELINE_DEFAULT, NULL, NULL, 0, 1, 0);

    printf("run_length: the timeline of the %.0f hours: %zu bytes of JSON\n",
           prev_h, s != NULL ? strlen(s) : 0);
    free(s);
  }
  printf("run_length: a reading costs %.2f times the read alone; k(RSS) is "
         "the growth exponent of resident memory against the run's length "
         "(0: flat)\n",
         spent * 1e9 / (double)k / base_ns);
  return sink < 0;
}
