/*
 * check_longrun.c - nothing the node leader keeps grows with the run's
 * length: a sampled meter read at 60 Hz for a simulated 48 hours.
 *
 * The leader is set up as pmon_init sets it up for one meter (the meter's
 * state, the node-shared segment from pmon__node_share(), the history from
 * pmon__hist_open(), as pmon__meters_open() does), with a sampled driver
 * defined here whose power is P(t) = 200 W + 100 W sin(2 pi t / 3600 s).
 * Its 10,368,000 readings go through the core's fold
 * (pmon__meter_fold()) with simulated time stamps, so that 48 hours take
 * a few seconds.  Checked:
 *   - the process's resident memory after the first simulated minute and
 *     at the end (with the report's timeline built) differ by less than
 *     1 MB;
 *   - the meter's energy is the integral of P within a relative 1e-6, over
 *     a fully covered run;
 *   - the node total's history, whose resolution has halved many times
 *     by then, gives the integral over a few spans within the error of
 *     linear interpolation between its points, and so does the timeline,
 *     whose slices' energies add up to the meter's energy.
 * The figures are printed, to be quoted.
 */
#include "config.h"

#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmon.h"
#include "core.h"

#define HZ 60
#define HOURS 48
#define READINGS ((uint64_t)HOURS * 3600 * HZ) /* 10,368,000 */
#define T0 UINT64_C(5000000000000) /* ns: the simulated clock at reading 0 */
#define P0 200.0                   /* W */
#define P1 100.0                   /* W, the sine's amplitude */
#define PERIOD 3600.0              /* s */

static uint64_t sim_ns; /* the simulated clock: the reading's time */

static double power(double t)
{
  return P0 + P1 * sin(2 * M_PI * fmod(t, PERIOD) / PERIOD);
}

/* The exact energy of P from A to B, seconds after T0. */
static double integral(double a, double b)
{
  return P0 * (b - a) - P1 * PERIOD / (2 * M_PI) *
                          (cos(2 * M_PI * b / PERIOD) -
                           cos(2 * M_PI * a / PERIOD));
}

static double secs(uint64_t t)
{
  return (double)(t - T0) * 1e-9;
}

static int sine_open(struct pmon_meter *m)
{
  pmon__meter_add_channel(m, "node", PMON_DOM_NODE, PMON_CH_TOTAL, 1, 0);
  return 0;
}

static int sine_read(struct pmon_meter *m, struct pmon_reading *r)
{
  (void)m;
  r->watts[0] = power(secs(sim_ns));
  return 0;
}

static const struct pmon_driver sine = {
  .name = "sine",
  .description = "a known power on a simulated clock, for tests",
  .flags = PMON_DRV_SAMPLED,
  .interval_s = 1.0 / HZ,
  .open = sine_open,
  .read = sine_read,
};

/* Resident memory of this process, bytes. */
static long rss(void)
{
  long size = 0, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");

  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(fscanf(f, "%ld %ld", &size, &resident), 2);
  fclose(f);
  return resident * sysconf(_SC_PAGESIZE);
}

/* Reading K's time: K / HZ seconds after T0, to the nanosecond. */
static uint64_t at(uint64_t k)
{
  return T0 + k * 1000000000u / HZ;
}

/* The leader of a node with one sampled meter, as pmon_init leaves it. */
static void leader(void)
{
  struct pmon_state *g = &pmon__g;
  struct pmon_mstate *ms;

  g->ms = calloc(PMON_METER_MAX, sizeof *g->ms);
  ck_assert_ptr_nonnull(g->ms);
  ms = &g->ms[0];
  ms->m.drv = &sine;
  ms->m.interval_s = sine.interval_s;
  ms->m.flags = sine.flags;
  ck_assert_int_eq(sine.open(&ms->m), 0);
  ms->ttl_ns = (uint64_t)(PMON_TTL_READINGS * ms->m.interval_s * 1e9);
  g->nmeters = 1;
  g->total_meter = 0;
  g->total_mask[0] = 1;
  g->leader = 1;
  g->mpi = 0;
  ck_assert_int_eq(pmon__hist_open(), 0); /* as pmon__meters_open() */
  ck_assert_int_eq(pmon__node_share(), 0);
  g->t_init_ns = g->sh->t_init_ns = T0;
}

START_TEST(test_48_hours)
{
  struct pmon_state *g = &pmon__g;
  struct pmon_mstate *ms;
  long rss_min = 0, rss_end, rss_trace;
  uint64_t t_first = 0, t_last;
  double truth, rel, h, tol, worst = 0;
  volatile double warm = 0;
  json_t *trace, *pw;
  char *text;
  double sum = 0;
  size_t nb;

  leader();
  ms = &g->ms[0];
  /* This test's own code, printing, reading statm and sin() over a whole
   * period, runs once first, so that its pages are resident by the first
   * minute's measure: the memory measured is then the library's. */
  (void)rss();
  printf("longrun: %llu readings at %d Hz (%d h) of P(t) = %.1f W + %.1f W "
         "sin(2 pi t / %.0f s), %.6f J\n",
         (unsigned long long)READINGS, HZ, HOURS, P0, P1, PERIOD,
         integral(0, HOURS * 3600.0));
  for (double t = 0; t < PERIOD; t += 0.1)
    warm += power(t);
  for (uint64_t k = 0; k < READINGS; k++) {
    struct pmon_reading r;

    sim_ns = at(k);
    memset(&r, 0, sizeof r);
    pmon__meter_fold(0, sine.read(&ms->m, &r), &r, sim_ns, 0);
    if (k == 1)
      t_first = sim_ns; /* the first published sample: the origin */
    if (k == 60 * HZ || (k % (12 * 3600 * HZ) == 0 && k > 0)) {
      long now = rss();

      printf("longrun: %5.2f h: resident %ld KiB, history %zu points\n",
             (double)k / HZ / 3600, now / 1024, g->hist.n);
      if (k == 60 * HZ)
        rss_min = now;
    }
  }
  t_last = sim_ns;
  rss_end = rss();
  text = pmon__timeline_text(PMON_TIMELINE_DEFAULT, NULL, NULL, 0, 1, 0);
  ck_assert_ptr_nonnull(text);
  trace = json_loads(text, 0, NULL);
  ck_assert_ptr_nonnull(trace);
  free(text);
  rss_trace = rss();

  /* Energy and coverage. */
  truth = integral(secs(t_first), secs(t_last));
  rel = fabs(ms->e[0] - truth) / truth;
  printf("longrun: %llu readings at %d Hz over %d h: energy %.6f J, "
         "truth %.6f J, relative error %.3g\n",
         (unsigned long long)READINGS, HZ, HOURS, ms->e[0], truth, rel);
  ck_assert_msg(rel < 1e-6, "energy %.6f J, truth %.6f J (relative %.3g)",
                ms->e[0], truth, rel);
  ck_assert_uint_eq(ms->covered_ns, t_last - t_first);
  ck_assert_uint_eq(ms->gaps, 0);
  ck_assert_int_eq(g->nevents, 0);

  /* Memory. */
  printf("longrun: resident after 1 min %ld KiB, after %d h %ld KiB "
         "(%+ld B), with the timeline %ld KiB (%+ld B)\n",
         rss_min / 1024, HOURS, rss_end / 1024, rss_end - rss_min,
         rss_trace / 1024, rss_trace - rss_min);
  ck_assert_msg(labs(rss_end - rss_min) < 1000000,
                "resident memory grew by %ld B from 1 min to %d h",
                rss_end - rss_min, HOURS);
  ck_assert_msg(labs(rss_trace - rss_min) < 1000000,
                "resident memory grew by %ld B from 1 min to the timeline",
                rss_trace - rss_min);

  /* The history: its points are HZ readings apart, times a power of two
   * since it halved.  Between points the energy is interpolated linearly,
   * off by at most h^2 / 8 * max |P'| at a point; a span has two ends. */
  ck_assert_uint_le(g->hist.n, PMON_HIST);
  h = secs(g->hist.p[g->hist.n - 1].t_ns) / (double)(g->hist.n - 1);
  tol = 2 * h * h / 8 * P1 * 2 * M_PI / PERIOD + 1e-6;
  printf("longrun: history %zu points, %.3f s apart: spans within %.3f J\n",
         g->hist.n, h, tol);
  {
    static const double spans[][2] = {
      {0.5, 3600.5},                   /* the first hour */
      {1234.567, 1234.567 + 600},      /* ten minutes */
      {86400 - 17.3, 86400 + 900.1},   /* across the 24th hour */
      {100, HOURS * 3600.0 - 100},     /* nearly all of it */
      {170000, 170000 + 4.2},          /* shorter than a point */
    };

    for (size_t i = 0; i < sizeof spans / sizeof spans[0]; i++) {
      uint64_t a = T0 + (uint64_t)(spans[i][0] * 1e9);
      uint64_t b = T0 + (uint64_t)(spans[i][1] * 1e9);
      double got = pmon__hist_energy(a, b), want = integral(secs(a), secs(b));

      printf("longrun: history %.3f s to %.3f s: %.6f J, truth %.6f J "
             "(%+.3g J)\n",
             spans[i][0], spans[i][1], got, want, got - want);
      ck_assert_msg(fabs(got - want) <= tol, "span %zu: %.6f J, truth %.6f J",
                    i, got, want);
    }
  }

  /* The timeline: each slice's power is its energy over its measured
   * time, and the energies add up. */
  pw = json_object_get(trace, "power_w");
  nb = json_array_size(pw);
  ck_assert_uint_eq(nb, PMON_TIMELINE_DEFAULT);
  ck_assert_int_eq(json_integer_value(json_object_get(trace, "slices")),
                   PMON_TIMELINE_DEFAULT);
  for (size_t i = 0; i < nb; i++)
    sum += json_number_value(
      json_array_get(json_object_get(trace, "energy_j"), i));
  printf("longrun: timeline slices add up to %.3f J, the meter %.3f J\n",
         sum, ms->e[0]);
  ck_assert_msg(fabs(sum - ms->e[0]) <= 1e-6 * ms->e[0],
                "slices %.3f J, meter %.3f J", sum, ms->e[0]);
  for (size_t i = 0; i < nb; i++) {
    double a = json_number_value(json_array_get(json_object_get(trace, "t_s"),
                                                i));
    double dt = json_number_value(json_object_get(trace, "dt_s"));
    double want = integral(a, a + dt) / dt;
    double got = json_number_value(json_array_get(pw, i));

    if (fabs(got - want) > worst)
      worst = fabs(got - want);
    ck_assert_msg(fabs(got - want) <= tol / dt + 1e-6,
                  "slice %zu: %.6f W, truth %.6f W", i, got, want);
  }
  printf("longrun: timeline %zu slices of %.1f s, worst %.3g W off\n", nb,
         json_number_value(json_object_get(trace, "dt_s")), worst);
  json_decref(trace);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("longrun");
  TCase *tc = tcase_create("flat");
  SRunner *sr;
  int failed;

  setvbuf(stdout, NULL, _IOLBF, 0); /* the figures, before a failure */
  /* A few seconds alone; a machine shared with other builds may take
   * several times that. */
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_48_hours);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
