/*
 * check_timeline.c - the core's sampled-meter path: trapezoid integration,
 * the node timeline and exact region resolution, against a driver defined
 * here whose power is a known function of time.
 *
 * The driver plays P(t) = 100 W + 50 W/s * t (a ramp) or a square wave;
 * region energies must match the analytic integral over the region's own
 * begin and end times, which fall between samples.  A windowed meter
 * (window_s) on a simulated clock: its samples where its windows end.
 * Every test runs on the simulated clock of the library's seam
 * (pmon__clock_hook): a nap moves it, so that the truth is exact and no
 * load of the machine moves a sample or a stamp.
 */
#include "config.h"

#include <check.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmon.h"
#include "core.h"
#include "rtab.h"

static double t0;
static int square;
static uint64_t sim_now; /* the clock the library reads, in ns */

static uint64_t sim_clock(void)
{
  return sim_now;
}

/* The library's waits (a counter read again for its next value) move
 * the simulated clock as they would the real one. */
static void sim_sleep(uint64_t ns)
{
  sim_now += ns;
}

static double now_s(void)
{
  return (double)pmon__now_ns() * 1e-9;
}

static double power(double t)
{
  if (square)
    return fmod(t, 0.2) < 0.1 ? 300 : 100;
  return 100 + 50 * t;
}

/* The exact energy over [a, b] (seconds after t0). */
static double integral(double a, double b)
{
  if (square) {
    double e = 0;
    const double step = 1e-5;

    for (double t = a; t < b; t += step)
      e += power(t + step / 2) * (t + step < b ? step : b - t);
    return e;
  }
  return 100 * (b - a) + 25 * (b * b - a * a);
}

static int fake_open(struct pmon_meter *m)
{
  pmon__meter_add_channel(m, "node", PMON_DOM_NODE, PMON_CH_TOTAL, 1, 0);
  return 0;
}

static int fake_read(struct pmon_meter *m, struct pmon_reading *r)
{
  (void)m;
  r->watts[0] = power(now_s() - t0);
  return 0;
}

/* A counter of 100 J that wraps 20 times a second at 2000 W. */
static int wrap_open(struct pmon_meter *m)
{
  pmon__meter_add_channel(m, "node", PMON_DOM_NODE, PMON_CH_TOTAL, 1, 100);
  return 0;
}

static int wrap_read(struct pmon_meter *m, struct pmon_reading *r)
{
  (void)m;
  r->raw[0] = (uint64_t)(2000 * (now_s() - t0)) % 100;
  return 0;
}

static const struct pmon_driver wrapping = {
  .name = "wrapping",
  .description = "a small counter that wraps, for tests",
  .flags = PMON_DRV_COUNTER,
  .interval_s = 0.01,
  .open = wrap_open,
  .read = wrap_read,
};

static const struct pmon_driver fake = {
  .name = "fake",
  .description = "a power function of time, for tests",
  .flags = PMON_DRV_SAMPLED,
  .interval_s = 0.01,
  .open = fake_open,
  .read = fake_read,
};

static void setup(void)
{
  struct pmon_state *g = &pmon__g;
  size_t size = offsetof(struct pmon_shared, tl) + sizeof(struct pmon_tl);

  g->ms = calloc(1, sizeof *g->ms);
  g->ms[0].m.drv = &fake;
  g->ms[0].m.interval_s = fake.interval_s;
  g->ms[0].m.flags = fake.flags;
  /* These tests are about integration, not gaps: a loaded machine that
   * holds the loop up past 2.5 periods must not drop an interval here. */
  g->ms[0].ttl_ns = 10000000000u;
  ck_assert_int_eq(fake.open(&g->ms[0].m), 0);
  g->nmeters = 1;
  g->total_meter = 0;
  g->sh = calloc(1, size);
  g->sh->nmeters = 1;
  g->sh->nch[0] = 1;
  g->sh->total_mask[0] = 1;
  g->leader = 1;
  sim_now = 1000000000u;
  pmon__clock_hook = sim_clock;
  pmon__sleep_hook = sim_sleep;
  t0 = now_s();
}

/* The first region of this process's table: its node energy (which must
 * be measured) and its time. */
static void first_region(double *energy, double *time_s)
{
  struct pmon_rtab t;
  struct pmon_rrec **v;

  pmon__rtab_init(&t, PMON_RT_NODE, 0);
  ck_assert_int_eq(pmon__regions_table(&t), 0);
  v = pmon__rtab_sorted(&t);
  ck_assert_ptr_nonnull(v);
  ck_assert_msg(!isnan(v[0]->energy_j), "region %s: energy unresolved",
                v[0]->name);
  *energy = v[0]->energy_j;
  if (time_s != NULL)
    *time_s = v[0]->time_s;
  free(v);
  pmon__rtab_free(&t);
}

/* The simulated clock S seconds on. */
static void nap(double s)
{
  sim_now += (uint64_t)(s * 1e9 + 0.5);
}

/* Sample every 10 ms for SECONDS, opening and closing region "r" at the
 * given offsets (which fall between samples); return its resolved energy
 * and the analytic truth. */
static void run(double begin_at, double end_at, double seconds,
                double *got, double *want)
{
  double tb = -1, te = -1;

  pmon__meters_sample_all(pmon__now_ns());
  pmon__g.t_init_ns = pmon__now_ns();
  while (now_s() - t0 < seconds) {
    double t = now_s() - t0;

    if (tb < 0 && t >= begin_at) {
      ck_assert_int_eq(pmon__region_begin("r"), 0);
      tb = now_s() - t0;
    }
    if (te < 0 && t >= end_at) {
      ck_assert_int_eq(pmon__region_end("r"), 0);
      te = now_s() - t0;
    }
    nap(0.0037); /* not a divisor of the 10 ms period */
    if (pmon__now_ns() >= pmon__g.ms[0].due_ns)
      pmon__meters_sample_all(pmon__now_ns());
  }
  pmon__meters_sample_all(pmon__now_ns());
  pmon__regions_resolve();
  first_region(got, NULL);
  *want = integral(tb, te);
}

START_TEST(test_ramp)
{
  double got, want;

  run(0.123, 0.917, 1.0, &got, &want);
  ck_assert_msg(fabs(got - want) <= 0.01 * want, "ramp: %g J, truth %g J",
                got, want);
}
END_TEST

START_TEST(test_square)
{
  double got, want;

  square = 1;
  run(0.0511, 0.8533, 0.9, &got, &want);
  ck_assert_msg(fabs(got - want) <= 0.05 * want, "square: %g J, truth %g J",
                got, want);
}
END_TEST

/* A region that outlives the ring (more than PMON_RING samples between
 * its begin and end) keeps its energy.  Its boundaries are stamped inside
 * the calls: the truth is bracketed by the times taken just before and
 * just after each call, so that the process being descheduled around a
 * call (a few ms, a few per cent of this short region) is no error. */
START_TEST(test_long_region)
{
  double tb0, tb1, te0, te1, got, lo, hi;

  pmon__meters_sample_all(pmon__now_ns());
  pmon__g.t_init_ns = pmon__now_ns();
  nap(0.001);
  pmon__meters_sample_all(pmon__now_ns());
  tb0 = now_s() - t0;
  ck_assert_int_eq(pmon__region_begin("long"), 0);
  tb1 = now_s() - t0;
  for (int i = 0; i < 2 * PMON_RING; i++) {
    nap(0.0001);
    pmon__meters_sample_all(pmon__now_ns());
  }
  te0 = now_s() - t0;
  ck_assert_int_eq(pmon__region_end("long"), 0);
  te1 = now_s() - t0;
  nap(0.001);
  pmon__meters_sample_all(pmon__now_ns());
  pmon__regions_resolve();
  first_region(&got, NULL);
  lo = integral(tb1, te0);
  hi = integral(tb0, te1);
  ck_assert_msg(got >= 0.98 * lo && got <= 1.02 * hi,
                "long: %g J, truth from %g to %g J", got, lo, hi);
}
END_TEST

/* The core corrects wraps from the range the channel declares. */
START_TEST(test_wrap)
{
  double got, want;
  struct pmon_mstate *ms = &pmon__g.ms[0];

  memset(ms, 0, sizeof *ms);
  ms->m.drv = &wrapping;
  ms->m.interval_s = wrapping.interval_s;
  ms->m.flags = wrapping.flags;
  ms->ttl_ns = (uint64_t)(PMON_TTL_READINGS * wrapping.interval_s * 1e9);
  ck_assert_int_eq(wrapping.open(&ms->m), 0);
  run(0.1, 0.6, 0.7, &got, &want); /* want is for P(t); not this one */
  {
    double e, t;

    first_region(&e, &t);
    want = 2000 * t;
  }
  ck_assert_msg(fabs(got - want) <= 0.03 * want,
                "wrapping counter: %g J, truth %g J (10 wraps)", got, want);
}
END_TEST

/* Readings further apart than the shortest wrap time may hide a wrap:
 * the interval is dropped and said, never guessed. */
START_TEST(test_wrap_unknown)
{
  struct pmon_state *g = &pmon__g;
  struct pmon_mstate *ms = &g->ms[0];
  double before;
  int found = 0;

  memset(ms, 0, sizeof *ms);
  ms->m.drv = &wrapping;
  ms->m.interval_s = wrapping.interval_s;
  ms->m.flags = wrapping.flags;
  ck_assert_int_eq(wrapping.open(&ms->m), 0);
  ms->wrap_ns = 50000000; /* 100 J at 2000 W */
  pmon__meters_sample_all(pmon__now_ns());
  nap(0.01);
  pmon__meters_sample_all(pmon__now_ns());
  before = ms->e[0];
  ck_assert(before > 0);
  nap(0.08);
  pmon__meters_sample_all(pmon__now_ns());
  ck_assert_uint_eq(ms->ambiguous, 1);
  ck_assert_msg(ms->e[0] == before, "%g J counted over a possible wrap",
                ms->e[0] - before);
  nap(0.01);
  pmon__meters_sample_all(pmon__now_ns());
  ck_assert(ms->e[0] > before); /* and counting again after it */
  for (int i = 0; i < g->nevents; i++)
    found |= strcmp(g->events[i].type, "wrap_unknown") == 0;
  ck_assert_msg(found, "no wrap_unknown event");
}
END_TEST

/* A counter of whole joules at 100 W on a simulated clock, read every
 * 0.1 s: reading K is at K / 10 s.  Its device stops publishing at reading
 * freeze_k (the counter keeps the value it had) and publishes again at
 * resume_k (the counter where it would be had it kept counting). */
static int sim_k, freeze_k, resume_k;

static int frozen_read(struct pmon_meter *m, struct pmon_reading *r)
{
  int k = sim_k < freeze_k || sim_k >= resume_k ? sim_k : freeze_k;

  (void)m;
  r->raw[0] = 10 * (uint64_t)k;
  return 0;
}

static const struct pmon_driver freezing = {
  .name = "freezing",
  .description = "a counter that stops publishing and resumes, for tests",
  .flags = PMON_DRV_COUNTER,
  .interval_s = 0.1,
  .open = wrap_open,
  .read = frozen_read,
};

/* Feed the freezing counter's readings 0 .. LAST (the last one forced, as
 * at finalize) through the core at their simulated times, with a stale
 * limit of STALE_S.  The node's "stale" and "recovered" events are
 * counted into *NSTALE and *NREC. */
#define SIM_T0 1000000000000u /* ns: the simulated clock at reading 0 */
static void freeze_run(double stale_s, int last, int *nstale, int *nrec)
{
  struct pmon_state *g = &pmon__g;
  struct pmon_mstate *ms = &g->ms[0];

  memset(ms, 0, sizeof *ms);
  ms->m.drv = &freezing;
  ms->m.interval_s = freezing.interval_s;
  ms->m.flags = freezing.flags;
  ck_assert_int_eq(freezing.open(&ms->m), 0);
  ms->m.ch[0].range = 0; /* a 64-bit counter: no wrap */
  ms->m.stale_s = stale_s;
  g->t_init_ns = SIM_T0;
  for (sim_k = 0; sim_k <= last; sim_k++) {
    struct pmon_reading r;
    int rc;

    memset(&r, 0, sizeof r);
    rc = freezing.read(&ms->m, &r);
    pmon__meter_fold(0, rc, &r, SIM_T0 + (uint64_t)sim_k * 100000000u,
                     sim_k == last);
  }
  *nstale = *nrec = 0;
  for (int i = 0; i < g->nevents; i++) {
    *nstale += strcmp(g->events[i].type, "stale") == 0;
    *nrec += strcmp(g->events[i].type, "recovered") == 0;
  }
}

/* The last published sample of meter 0. */
static struct pmon_tl_sample last_sample(void)
{
  struct pmon_tl *tl = &pmon__g.sh->tl[0];
  struct pmon_tl_sample s;

  ck_assert_int_eq(pmon__tl_get(tl, pmon__tl_seq(tl) - 1, &s), 0);
  return s;
}

/* Frozen from 2.0 s to 3.5 s with a limit of 1 s: counted up to the last
 * new value and again from the first one after it, exactly; the span
 * between is neither energy nor measured time. */
START_TEST(test_stale_resume)
{
  struct pmon_mstate *ms = &pmon__g.ms[0];
  struct pmon_tl_sample s;
  int nstale, nrec;

  freeze_k = 20;
  resume_k = 35;
  freeze_run(1.0, 60, &nstale, &nrec);
  ck_assert_int_eq(nstale, 1);
  ck_assert_int_eq(nrec, 1);
  ck_assert_uint_eq(ms->stale, 1);
  ck_assert_int_eq(ms->frozen, 0);
  /* From the origin (reading 1, 0.1 s) to 2.0 s, and from 3.5 s to 6 s. */
  ck_assert_msg(ms->e[0] == 190 + 250, "%.17g J, want 440 J", ms->e[0]);
  ck_assert_uint_eq(ms->covered_ns, UINT64_C(4400000000));
  s = last_sample();
  ck_assert_uint_eq(s.t_ns, SIM_T0 + 6000000000u);
  ck_assert(s.e[0] == 440);
  ck_assert_uint_eq(s.covered_ns, 4400000000u);
  for (int i = 0; i < pmon__g.nevents; i++) {
    if (strcmp(pmon__g.events[i].type, "stale") == 0) /* at 3.1 s */
      ck_assert_uint_eq(pmon__g.events[i].t_ns, SIM_T0 + 3100000000u);
    if (strcmp(pmon__g.events[i].type, "recovered") == 0)
      ck_assert_msg(strstr(pmon__g.events[i].detail, "moved by 150 J"),
                    "recovered: %s", pmon__g.events[i].detail);
  }
}
END_TEST

/* Frozen from 2.0 s to the end: the reading forced at finalize is
 * published with the energy and measured time of the last new value. */
START_TEST(test_stale_to_end)
{
  struct pmon_mstate *ms = &pmon__g.ms[0];
  struct pmon_tl_sample s;
  int nstale, nrec;

  freeze_k = 20;
  resume_k = INT_MAX;
  freeze_run(1.0, 60, &nstale, &nrec);
  ck_assert_int_eq(nstale, 1);
  ck_assert_int_eq(nrec, 0);
  ck_assert_int_eq(ms->frozen, 1);
  ck_assert_uint_eq(ms->fresh_ns, SIM_T0 + 2000000000u); /* stale_at_s */
  s = last_sample();
  ck_assert_uint_eq(s.t_ns, SIM_T0 + 6000000000u);
  ck_assert_msg(s.e[0] == 190, "%.17g J, want 190 J", s.e[0]);
  ck_assert_uint_eq(s.covered_ns, 1900000000u);
  ck_assert_uint_eq(ms->prev_ns, SIM_T0 + 6000000000u);
}
END_TEST

/* Without a limit (a driver that cannot tell frozen from constant) the
 * counter's standstill is not published, and its jump counts over it:
 * nothing is lost, nothing is said. */
START_TEST(test_stale_no_limit)
{
  struct pmon_mstate *ms = &pmon__g.ms[0];
  int nstale, nrec;

  freeze_k = 20;
  resume_k = 35;
  freeze_run(0, 60, &nstale, &nrec);
  ck_assert_int_eq(nstale, 0);
  ck_assert_int_eq(nrec, 0);
  ck_assert_msg(ms->e[0] == 590, "%.17g J, want 590 J", ms->e[0]);
  ck_assert_uint_eq(ms->covered_ns, 5900000000u);
  /* Readings 21 to 34 brought nothing new: 61 readings, 46 samples. */
  ck_assert_uint_eq(pmon__tl_seq(&pmon__g.sh->tl[0]), 60 - 14);
}
END_TEST

/* Finalize with a paced counter (pm_counters' kind, whole joules) on a
 * simulated clock: readings at 0, 0.1, 0.15 (a new value, stamped
 * half-way: the origin, the first sample) and 0.2 s; the run ends at
 * 0.25 s, and finalize's first
 * reading, at 0.26 s, brings a new value that may have come before the
 * end.  It is held, not folded; what comes next decides (WHAT): 'f' the
 * meter fails, 's' the same value until the wait's forced end at 0.5 s,
 * 'n' a new value after a reading that saw the held one, 'r' the
 * counters restart.  Nothing the held value counted may be lost, nor
 * counted twice: 10 J from the origin to the value held.  Returns the
 * number of samples published. */
#define HOLD_T(ms_) (SIM_T0 + (uint64_t)(ms_) * 1000000u)
static uint64_t hold_run(int what)
{
  struct pmon_state *g = &pmon__g;
  struct pmon_mstate *ms = &g->ms[0];
  static const struct {
    unsigned ms;
    uint64_t raw;
  } poll[] = {{0, 1000}, {100, 1000}, {150, 1010}, {200, 1010}};
  struct pmon_reading r;

  memset(ms, 0, sizeof *ms);
  ms->m.drv = &freezing;
  ms->m.interval_s = freezing.interval_s;
  ms->m.flags = freezing.flags;
  ck_assert_int_eq(freezing.open(&ms->m), 0);
  ms->m.ch[0].range = 0;
  ms->m.stale_s = 0.3; /* less than 0.5 s after the value before the one
                          held, more than after the one held */
  ms->m.pace_s = 0.1;
  g->t_init_ns = SIM_T0;
  for (size_t k = 0; k < sizeof poll / sizeof poll[0]; k++) {
    memset(&r, 0, sizeof r);
    r.raw[0] = poll[k].raw;
    pmon__meter_fold(0, 0, &r, HOLD_T(poll[k].ms), 0);
  }
  ck_assert_uint_eq(ms->prev_ns, HOLD_T(125));
  ms->paced = 1;
  ms->anchoring = 1;
  ms->anchor_ns = HOLD_T(250);
  memset(&r, 0, sizeof r);
  r.raw[0] = 1020;
  ck_assert_int_eq(pmon__meter_fold(0, 0, &r, HOLD_T(260), 0), 0);
  ck_assert_int_eq(ms->held, 1);
  ck_assert_uint_eq(ms->prev_ns, HOLD_T(125)); /* nothing folded */
  memset(&r, 0, sizeof r);
  switch (what) {
  case 'f':
    pmon__meter_fold(0, PMON_EIO, &r, HOLD_T(265), 0);
    break;
  case 's':
    r.raw[0] = 1020;
    ck_assert_int_eq(pmon__meter_fold(0, 0, &r, HOLD_T(265), 0), 0);
    pmon__meter_fold(0, 0, &r, HOLD_T(500), 1);
    break;
  case 'n':
    r.raw[0] = 1020;
    ck_assert_int_eq(pmon__meter_fold(0, 0, &r, HOLD_T(300), 0), 0);
    r.raw[0] = 1030;
    ck_assert_int_eq(pmon__meter_fold(0, 0, &r, HOLD_T(310), 0), 1);
    break;
  case 'r':
    r.raw[0] = 3;
    r.events = PMON_EV_RESET;
    snprintf(r.detail, sizeof r.detail, "restarted");
    pmon__meter_fold(0, 0, &r, HOLD_T(300), 0);
    break;
  }
  ck_assert_int_eq(ms->held, 0);
  return pmon__tl_seq(&g->sh->tl[0]);
}

START_TEST(test_final_hold)
{
  struct pmon_mstate *ms = &pmon__g.ms[0];
  struct pmon_tl_sample s;

  /* the meter fails: the value held is folded where it was first read,
   * its stamp off by up to the time since the poller's last reading */
  ck_assert_uint_eq(hold_run('f'), 2);
  s = last_sample();
  ck_assert_uint_eq(s.t_ns, HOLD_T(260));
  ck_assert_msg(s.e[0] == 10, "fail: %.17g J, want 10 J", s.e[0]);
  ck_assert_msg(fabs(s.err[2] - 0.06) < 1e-9, "fail: err %g", s.err[2]);
  ck_assert_uint_eq(ms->nread, 5);
  ck_assert_uint_eq(ms->nfail, 1);
}
END_TEST

START_TEST(test_final_hold_forced)
{
  struct pmon_mstate *ms = &pmon__g.ms[0];
  struct pmon_tl_sample s;

  /* the wait's end: folded at 0.26 s, and the forced reading at 0.5 s
   * adds nothing, its stamp off by the time since; not frozen, though
   * 0.5 s is more than the stale limit after the value before */
  ck_assert_uint_eq(hold_run('s'), 3);
  s = last_sample();
  ck_assert_uint_eq(s.t_ns, HOLD_T(500));
  ck_assert_msg(s.e[0] == 10, "forced: %.17g J, want 10 J", s.e[0]);
  ck_assert_msg(fabs(s.err[2] - 0.24) < 1e-9, "forced: err %g", s.err[2]);
  ck_assert_int_eq(ms->frozen, 0);
  ck_assert_uint_eq(ms->stale, 0);
  ck_assert_uint_eq(ms->nread, 7); /* each reading once */
}
END_TEST

START_TEST(test_final_hold_next)
{
  struct pmon_tl_sample s;

  /* the next value, after a reading (0.3 s) that saw the one held:
   * stamped half-way, 0.305 s, its count holding the held one's once */
  ck_assert_uint_eq(hold_run('n'), 2);
  s = last_sample();
  ck_assert_uint_eq(s.t_ns, HOLD_T(305));
  ck_assert_msg(s.e[0] == 20, "next: %.17g J, want 20 J", s.e[0]);
}
END_TEST

START_TEST(test_final_hold_reset)
{
  struct pmon_tl *tl = &pmon__g.sh->tl[0];
  struct pmon_tl_sample s;

  /* the counters restart: the value held is folded first (0.26 s), the
   * restart's interval is not counted */
  ck_assert_uint_eq(hold_run('r'), 3);
  ck_assert_int_eq(pmon__tl_get(tl, 1, &s), 0);
  ck_assert_uint_eq(s.t_ns, HOLD_T(260));
  ck_assert_msg(s.e[0] == 10, "reset: %.17g J, want 10 J", s.e[0]);
  s = last_sample();
  ck_assert_uint_eq(s.t_ns, HOLD_T(300));
  ck_assert_msg(s.e[0] == 10, "reset: %.17g J after, want 10 J", s.e[0]);
}
END_TEST

/* Build a meter of channels given as domain letters ('n'ode, 'c'pu,
 * 'm'emory, 'a'ccel, m'o'dule; upper case: in the meter's total). */
static void fake_meter(struct pmon_meter *m, const char *chans, int est)
{
  static const char letters[] = "ncmaxo";

  memset(m, 0, sizeof *m);
  m->flags = PMON_DRV_COUNTER | (est ? PMON_DRV_ESTIMATED : 0);
  for (const char *p = chans; *p != '\0'; p++) {
    const char *d = strchr(letters, *p | 0x20);

    pmon__meter_add_channel(m, "ch", (enum pmon_domain)(d - letters),
                            *p < 'a' ? PMON_CH_TOTAL : 0, 1, 0);
  }
}

/* Which meters form the node total: a whole-node meter alone, else parts
 * that do not overlap, else the estimate. */
START_TEST(test_total_plan)
{
  static const struct {
    const char *meters[4]; /* "*" first: estimated */
    const char *want;      /* the mask of each meter, one digit each */
    const char *covers;
  } cases[] = {
    {{"Ncma"}, "1", "node"},
    {{"CcM", "A"}, "51", "cpu+memory+accel"},     /* rapl + nvml */
    {{"CcM", "Ncma"}, "01", "node"},              /* rapl + pm_counters */
    {{"*N", "CM"}, "03", "cpu+memory"},           /* estimate + rapl */
    {{"*N"}, "1", "node"},
    {{"CM", "C", "A"}, "301", "cpu+memory+accel"}, /* cpu twice */
    {{"O", "CM"}, "10", "module"},                /* GH200 + rapl */
    {{"A", "O"}, "10", "accel"},
    {{"c", "cm"}, "00", ""},
  };
  char buf[64];

  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    struct pmon_meter ms[4];
    const struct pmon_meter *m[4];
    uint32_t mask[4];
    unsigned covers;
    int n = 0;

    for (; n < 4 && cases[k].meters[n] != NULL; n++) {
      const char *c = cases[k].meters[n];

      fake_meter(&ms[n], c + (*c == '*'), *c == '*');
      m[n] = &ms[n];
    }
    covers = pmon__total_plan(m, n, mask);
    for (int i = 0; i < n; i++)
      ck_assert_msg(mask[i] == (uint32_t)(cases[k].want[i] - '0'),
                    "case %zu: meter %d: mask %u, want %c", k, i, mask[i],
                    cases[k].want[i]);
    ck_assert_str_eq(pmon__covers_text(covers, buf, sizeof buf),
                     cases[k].covers);
  }
}
END_TEST

/* A windowed meter (window_s 1 s) on the simulated clock, read every
 * 0.05 s: its windows end at 0.23 + k s (k >= 1), each giving the mean
 * power over the second before it; before the first, the value is 200 W.
 * Window values, from k = 1: 100, 300, 300 (repeated), 300, 50, 400, 150
 * (not seen: no reading from 5.9 to 7.4 s), 250. */
static const double win_w[] = {200, 100, 300, 300, 300, 50, 400, 150, 250,
                               250};
static double win_t; /* the simulated reading's time, s */

static int win_read(struct pmon_meter *m, struct pmon_reading *r)
{
  int k = win_t < 0.23 ? 0 : 1 + (int)(win_t - 0.23);

  (void)m;
  r->watts[0] = win_w[k < 9 ? k : 9];
  return 0;
}

static const struct pmon_driver windowed = {
  .name = "windowed",
  .description = "a mean power over each second, for tests",
  .flags = PMON_DRV_SAMPLED,
  .interval_s = 0.05,
  .open = fake_open,
  .read = win_read,
};

/* Each new value is its window's energy, the window ending half-way
 * between the reading that saw it and the one before; a repeated value
 * counts a window after the last; readings 1.6 s apart count the last
 * window only (a gap); finalize counts the time since the last window at
 * its power, all of it in the stamp's error. */
START_TEST(test_window)
{
  struct pmon_state *g = &pmon__g;
  struct pmon_mstate *ms = &g->ms[0];
  struct pmon_tl_sample s;
  int gaps = 0;
  /* the samples: stamps (s) and energies (J) */
  static const double want_t[] = {0,     0.225, 1.225, 2.225, 3.225,
                                  4.225, 5.225, 6.65,  8.0};
  static const double want_e[] = {0,    22.5,   322.5,  622.5, 922.5,
                                  972.5, 1372.5, 1622.5, 1960};

  memset(ms, 0, sizeof *ms);
  ms->m.drv = &windowed;
  ms->m.interval_s = 0.05;
  ms->m.window_s = 1;
  ms->m.flags = windowed.flags;
  ck_assert_int_eq(windowed.open(&ms->m), 0);
  ms->ttl_ns = 10000000000u;
  g->t_init_ns = SIM_T0;
  for (int k = 0; k <= 160; k++) {
    struct pmon_reading r;

    win_t = k * 0.05;
    if (k > 117 && k < 149) /* 5.9 .. 7.4 s: no reading */
      continue;
    memset(&r, 0, sizeof r);
    ck_assert_int_eq(win_read(&ms->m, &r), 0);
    pmon__meter_fold(0, 0, &r, SIM_T0 + (uint64_t)k * 50000000u, k == 160);
  }
  ck_assert_uint_eq(pmon__tl_seq(&g->sh->tl[0]), 9);
  for (uint64_t i = 0; i < 9; i++) {
    ck_assert_int_eq(pmon__tl_get(&g->sh->tl[0], i, &s), 0);
    ck_assert_msg(fabs((double)(s.t_ns - SIM_T0) * 1e-9 - want_t[i]) < 1e-9,
                  "sample %d at %.9f s, want %.3f s", (int)i,
                  (double)(s.t_ns - SIM_T0) * 1e-9, want_t[i]);
    ck_assert_msg(fabs(s.e[0] - want_e[i]) < 1e-6,
                  "sample %d: %.9f J, want %.3f J", (int)i, s.e[0],
                  want_e[i]);
    ck_assert(s.err[0] == 0 && s.err[1] == 0); /* no trapezoid */
  }
  /* the repeated values' samples keep the stamp error of the one they
   * follow (half a reading); the gap's, half the readings' distance;
   * finalize's, the time since the last window */
  ck_assert_int_eq(pmon__tl_get(&g->sh->tl[0], 3, &s), 0);
  ck_assert(fabs(s.err[2] - 0.025) < 1e-9);
  ck_assert_int_eq(pmon__tl_get(&g->sh->tl[0], 7, &s), 0);
  ck_assert(fabs(s.err[2] - 0.8) < 1e-9);
  ck_assert_int_eq(pmon__tl_get(&g->sh->tl[0], 8, &s), 0);
  ck_assert(fabs(s.err[2] - 1.35) < 1e-9);
  /* measured: all but what the gap left out, 0.425 s */
  ck_assert_msg(llabs((long long)ms->covered_ns - 7575000000LL) < 10,
                "covered %.9f s", (double)ms->covered_ns * 1e-9);
  for (int i = 0; i < g->nevents; i++)
    gaps += strcmp(g->events[i].type, "gap") == 0;
  ck_assert_int_eq(gaps, 1);
  ck_assert_uint_eq(ms->gaps, 1);
}
END_TEST

START_TEST(test_timeline_ring)
{
  struct pmon_tl *tl = calloc(1, sizeof *tl);
  struct pmon_tl_sample s;
  double e = 0;

  ck_assert_int_eq(pmon__tl_get(tl, 0, &s), PMON_ENODATA);
  for (uint64_t i = 0; i < PMON_RING + 10; i++) {
    e = (double)i;
    pmon__tl_publish(tl, i, i, &e, 1, NULL);
  }
  ck_assert_int_eq(pmon__tl_get(tl, 5, &s), PMON_ENODATA); /* overwritten */
  ck_assert_int_eq(pmon__tl_get(tl, PMON_RING + 9, &s), 0);
  ck_assert_uint_eq(s.t_ns, PMON_RING + 9);
  ck_assert_int_eq(pmon__tl_get(tl, PMON_RING + 10, &s), PMON_ENODATA);
  free(tl);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("timeline");
  TCase *tc = tcase_create("sampled");
  SRunner *sr;
  int failed;

  tcase_add_checked_fixture(tc, setup, NULL);
  tcase_add_test(tc, test_ramp);
  tcase_add_test(tc, test_square);
  tcase_add_test(tc, test_long_region);
  tcase_add_test(tc, test_wrap);
  tcase_add_test(tc, test_wrap_unknown);
  tcase_add_test(tc, test_stale_resume);
  tcase_add_test(tc, test_stale_to_end);
  tcase_add_test(tc, test_stale_no_limit);
  tcase_add_test(tc, test_final_hold);
  tcase_add_test(tc, test_final_hold_forced);
  tcase_add_test(tc, test_final_hold_next);
  tcase_add_test(tc, test_final_hold_reset);
  tcase_add_test(tc, test_total_plan);
  tcase_add_test(tc, test_timeline_ring);
  tcase_add_test(tc, test_window);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
