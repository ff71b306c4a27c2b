/*
 * check_calc.c - the arithmetic (calc/) as a function of its inputs.
 *
 * Built from calc/'s files alone, without the library: the link itself
 * shows that they need no clock, thread, global or I/O of the core.
 * Each case gives a meter's state, readings and instants (or a node's
 * history and the spans asked of it), and checks the energy, measured
 * time, bar terms, stamps and events it gives, exactly:
 * the figures are sums of the readings' arithmetic, which no clock moves.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pmon.h"
#include "bar.h"
#include "fit.h"
#include "fold.h"
#include "hist.h"

#define S 1000000000ull /* ns a second */

/* What the fold did: each publication's instant and energy, each event. */
static struct {
  int npub;
  uint64_t pub_t[16];
  double pub_e[16];
  int nev;
  char ev[16][256];
  const struct pmon_mstate *ms;
} seen;

static void on_publish(void *ctx, uint64_t t)
{
  (void)ctx;
  ck_assert_int_lt(seen.npub, 16);
  seen.pub_t[seen.npub] = t;
  seen.pub_e[seen.npub++] = seen.ms->e[0];
}

static void on_event(void *ctx, uint64_t t, const char *type,
                     const char *fmt, ...)
{
  va_list ap;
  int n;

  (void)ctx;
  ck_assert_int_lt(seen.nev, 16);
  n = snprintf(seen.ev[seen.nev], sizeof seen.ev[0], "%.3f %s: ",
               (double)t * 1e-9, type);
  va_start(ap, fmt);
  vsnprintf(seen.ev[seen.nev] + n, sizeof seen.ev[0] - (size_t)n, fmt, ap);
  va_end(ap);
  seen.nev++;
}

static void on_debug(void *ctx, const char *fmt, ...)
{
  (void)ctx, (void)fmt;
}

static const struct pmon_fold_ops ops = {
  .publish = on_publish, .event = on_event, .debug = on_debug,
  .total_mask = 1, .t_init_ns = 0
};

/* A meter of one channel: a counter of SCALE J a count wrapping at
 * RANGE (0: never), or a power meter (SCALE 0). */
static void meter(struct pmon_mstate *ms, double scale, uint64_t range)
{
  memset(ms, 0, sizeof *ms);
  memset(&seen, 0, sizeof seen);
  seen.ms = ms;
  ms->m.nch = 1;
  ms->m.flags = scale > 0 ? PMON_DRV_COUNTER : PMON_DRV_SAMPLED;
  ms->m.ch[0].scale = scale > 0 ? scale : 1;
  ms->m.ch[0].range = range;
  ms->m.ch[0].flags = PMON_CH_TOTAL;
  ms->ttl_ns = 10 * S;
}

static int raw(struct pmon_mstate *ms, uint64_t t, uint64_t v)
{
  struct pmon_reading r;

  memset(&r, 0, sizeof r);
  r.raw[0] = v;
  return pmon__fold(ms, &ops, 0, NULL, &r, t, 0);
}

static int watts(struct pmon_mstate *ms, uint64_t t, double w)
{
  struct pmon_reading r;

  memset(&r, 0, sizeof r);
  r.watts[0] = w;
  return pmon__fold(ms, &ops, 0, NULL, &r, t, 0);
}

/* A wrapping counter: 900 -> 100 -> 300 at 0.5 J a count, range 1000. */
START_TEST(test_wrap)
{
  struct pmon_mstate ms;

  meter(&ms, 0.5, 1000);
  ck_assert_int_eq(raw(&ms, 0, 900), 0); /* the starting point */
  ck_assert_int_eq(raw(&ms, S, 100), 1);
  ck_assert_int_eq(raw(&ms, 2 * S, 300), 1);
  ck_assert_double_eq(ms.e[0], 200.0);
  ck_assert_uint_eq(ms.covered_ns, 2 * S);
  ck_assert_int_eq(seen.npub, 2);
  ck_assert_uint_eq(seen.pub_t[0], S); /* stamped where read */
  ck_assert_double_eq(seen.pub_e[0], 100.0);
  ck_assert_int_eq(seen.nev, 0);
  /* Read once a second, the value was there since the reading before. */
  ck_assert_double_eq(ms.err[2], 1.0);
}
END_TEST

/* A counter that does not wrap goes back: restarted, not counted. */
START_TEST(test_back)
{
  struct pmon_mstate ms;

  meter(&ms, 1.0, 0);
  raw(&ms, 0, 500);
  raw(&ms, S, 600);
  raw(&ms, 2 * S, 50);
  raw(&ms, 3 * S, 80);
  ck_assert_double_eq(ms.e[0], 130.0);
  ck_assert_uint_eq(ms.covered_ns, 2 * S);
  ck_assert_int_eq(seen.nev, 1);
  ck_assert_str_eq(seen.ev[0],
                   "2.000 reset: counters went back: they restarted, the "
                   "interval of 1.000 s before this reading is not counted");
}
END_TEST

/* A jump above PMON_MAX_WATTS is a glitch, not energy. */
START_TEST(test_implausible)
{
  struct pmon_mstate ms;

  meter(&ms, 1.0, 0);
  raw(&ms, 0, 0);
  raw(&ms, S, 5000000);
  ck_assert_double_eq(ms.e[0], 0.0);
  ck_assert_int_eq(seen.nev, 1);
  ck_assert(strstr(seen.ev[0], "implausible: channel  jumped by 5e+06 J") !=
            NULL);
}
END_TEST

/* Power 100 W then 300 W two seconds apart: the trapezoid, 400 J, off by
 * at most half the change times the interval. */
START_TEST(test_trapezoid)
{
  struct pmon_mstate ms;

  meter(&ms, 0, 0);
  watts(&ms, 0, 100);
  ck_assert_int_eq(watts(&ms, 2 * S, 300), 1);
  ck_assert_double_eq(ms.e[0], 400.0);
  ck_assert_double_eq(ms.err[0], 200.0);
  ck_assert_double_eq(ms.err[1], 40000.0);
  ck_assert_uint_eq(ms.covered_ns, 2 * S);
}
END_TEST

/* Readings further apart than ttl: a gap, nothing invented. */
START_TEST(test_gap)
{
  struct pmon_mstate ms;

  meter(&ms, 0, 0);
  ms.ttl_ns = S;
  watts(&ms, 0, 100);
  watts(&ms, 2 * S, 100);
  watts(&ms, 2 * S + S / 2, 100);
  ck_assert_double_eq(ms.e[0], 50.0);
  ck_assert_uint_eq(ms.covered_ns, S / 2);
  ck_assert_uint_eq(ms.gaps, 1);
  ck_assert_str_eq(seen.ev[0], "2.000 gap: no reading for 2.000 s (more "
                               "than 1.000 s): that time is not counted");
}
END_TEST

/* A counter kept for longer than stale_s freezes; its thaw says how far
 * it moved meanwhile, which is not counted. */
START_TEST(test_stale)
{
  struct pmon_mstate ms;

  meter(&ms, 1.0, 0);
  ms.m.stale_s = 1.0;
  raw(&ms, 0, 10);
  raw(&ms, S, 20);
  ck_assert_int_eq(raw(&ms, 2 * S, 20), 0);
  ck_assert_int_eq(ms.frozen, 0);
  ck_assert_int_eq(raw(&ms, 2 * S + S / 2, 20), 0);
  ck_assert_int_eq(ms.frozen, 1);
  ck_assert_int_eq(raw(&ms, 4 * S, 70), 1);
  ck_assert_int_eq(ms.frozen, 0);
  ck_assert_double_eq(ms.e[0], 10.0);
  ck_assert_uint_eq(ms.covered_ns, S);
  ck_assert_int_eq(seen.nev, 2);
  ck_assert(strncmp(seen.ev[0], "2.500 stale: no new value for 1.500 s",
                    37) == 0);
  ck_assert_str_eq(seen.ev[1],
                   "4.000 recovered: a new value after 3.000 s frozen (from "
                   "1.000 s after init); its counters moved by 50 J: that "
                   "time is not counted");
  raw(&ms, 5 * S, 80);
  ck_assert_double_eq(ms.e[0], 20.0);
}
END_TEST

/* A failed read: an event on the first of a run, counted as refused for
 * PMON_EFORMAT; the next good one says so. */
START_TEST(test_fail)
{
  struct pmon_mstate ms;
  struct pmon_reading r;

  meter(&ms, 1.0, 0);
  memset(&r, 0, sizeof r);
  raw(&ms, 0, 10);
  ck_assert_int_eq(pmon__fold(&ms, &ops, PMON_EFORMAT, "garbage", &r, S, 0),
                   0);
  pmon__fold(&ms, &ops, PMON_EIO, "gone", &r, 2 * S, 0);
  ck_assert_uint_eq(ms.nfail, 2);
  ck_assert_uint_eq(ms.rejected, 1);
  ck_assert_uint_eq(ms.lost_ns, S);
  raw(&ms, 3 * S, 40);
  ck_assert_uint_eq(ms.lost_ns, 0);
  ck_assert_double_eq(ms.e[0], 30.0);
  ck_assert_int_eq(seen.nev, 2);
  ck_assert_str_eq(seen.ev[0], "1.000 read_error: garbage");
  ck_assert_str_eq(seen.ev[1],
                   "3.000 recovered: reading again after 2 failed reads");
}
END_TEST

/* A counter seen to keep its value moved between the reading that saw
 * the old value and the one that sees the new: stamped half-way, off by
 * half that span. */
START_TEST(test_paced)
{
  struct pmon_mstate ms;

  meter(&ms, 1.0, 0);
  raw(&ms, 0, 0);
  ck_assert_int_eq(raw(&ms, S / 20, 0), 0);
  ck_assert_int_eq(raw(&ms, S / 10, 10), 1);
  ck_assert_uint_eq(seen.pub_t[0], 3 * S / 40);
  ck_assert_double_eq_tol(ms.err[2], 0.025, 1e-15);
  ck_assert_double_eq(ms.e[0], 10.0);
  ck_assert_uint_eq(ms.prev_ns, 3 * S / 40);
}
END_TEST

/* Rows of two regions of 100 W and 300 W and the rest of 40 W, their
 * energies exact: the fit gives the powers back, with no residual. */
START_TEST(test_fit_exact)
{
  static const double rows[][3] = {
    {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0.5, 0.5, 0}, {0.2, 0.3, 0.5},
    {0.1, 0.9, 0}};
  struct pmon_fit f;
  double x[PMON_FIT_N], p[PMON_FIT_N], var[PMON_FIT_N], s2;

  memset(&f, 0, sizeof f);
  for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    memset(x, 0, sizeof x);
    memcpy(x, rows[k], sizeof rows[k]);
    pmon__fit_row(&f, x, 40 * x[0] + 100 * x[1] + 300 * x[2]);
  }
  ck_assert_int_eq(pmon__fit_solve(&f, p, var, &s2), 0);
  ck_assert_double_eq_tol(p[0], 40, 1e-9);
  ck_assert_double_eq_tol(p[1], 100, 1e-9);
  ck_assert_double_eq_tol(p[2], 300, 1e-9);
  ck_assert_double_eq_tol(s2, 0, 1e-9);
  ck_assert_double_eq(p[3], 0);
  ck_assert(isnan(var[3])); /* a column no row has */
}
END_TEST

/* A column whose least squares would be negative is held at 0, and the
 * others take the energy; two rows are too few for any fit. */
START_TEST(test_fit_nonneg)
{
  struct pmon_fit f;
  double x[PMON_FIT_N] = {0}, p[PMON_FIT_N], var[PMON_FIT_N], s2;

  memset(&f, 0, sizeof f);
  x[0] = 1;
  pmon__fit_row(&f, x, 100);
  x[1] = 1;
  pmon__fit_row(&f, x, 50); /* column 1 "draws" -50 W */
  ck_assert_int_eq(pmon__fit_solve(&f, p, var, &s2), -1);
  x[0] = 2, x[1] = 1;
  pmon__fit_row(&f, x, 150);
  ck_assert_int_eq(pmon__fit_solve(&f, p, var, &s2), 0);
  ck_assert_double_eq(p[1], 0);
  ck_assert(p[0] > 0);
  ck_assert(isnan(var[1]));
}
END_TEST

/* A history of 4 points, 1 s apart, at 100, 200 then 300 W; measured
 * throughout, its points' own terms 0 (a counter read at its stamps). */
static struct pmon_hist_point hp[8];
static struct pmon_hist hh;
static const struct pmon_hist_terms ht = {1, 0.01, 2};

static void hist_made(void)
{
  static const double e[4] = {0, 100, 300, 600};

  memset(hp, 0, sizeof hp);
  pmon__hist_init(&hh, hp, 8);
  for (int i = 0; i < 4; i++) {
    struct pmon_hist_point pt = {0};

    pt.t_ns = (uint64_t)i * S;
    pt.covered_ns = (uint64_t)i * S;
    pt.e = e[i];
    pmon__hist_push(&hh, &pt);
  }
}

/* A span across points: its energy interpolated at each end (50 J at
 * 0.5 s, 450 J at 2.5 s); its bar: the stated terms (1 % of 400 J, 2 W
 * over 2 s), and at each end the power's range around it (100 W) times a
 * quarter of the spacing, plus the resolution. */
START_TEST(test_hist_span)
{
  double err[3] = {0, 0, 0};

  hist_made();
  ck_assert_uint_eq(hh.n, 4);
  ck_assert_double_eq_tol(pmon__hist_span_energy(&hh, S / 2, 5 * S / 2), 400,
                          1e-9);
  ck_assert_double_eq_tol(pmon__hist_span_covered(&hh, S / 2, 5 * S / 2), 2,
                          1e-12);
  pmon__hist_span_err(&hh, &ht, S / 2, 5 * S / 2, err);
  ck_assert_double_eq_tol(err[0], 8, 1e-9);
  ck_assert_double_eq_tol(err[1], 52, 1e-9);
  ck_assert_double_eq_tol(err[2], 2 * 26 * 26, 1e-9);
  ck_assert_double_eq_tol(pmon__hist_power(&hh, 1, 3), 250, 1e-9);
}
END_TEST

/* A span inside one interval (1.25 to 1.75 s at 200 W): 100 J, its bar
 * its time times the range around (200 W) and the slope's resolution
 * (1 J a second), 100.5 J, which is less than its two ends' 51 J each. */
START_TEST(test_hist_inside)
{
  double err[3] = {0, 0, 0};

  hist_made();
  ck_assert_double_eq_tol(
    pmon__hist_span_energy(&hh, 5 * S / 4, 7 * S / 4), 100, 1e-9);
  pmon__hist_span_err(&hh, &ht, 5 * S / 4, 7 * S / 4, err);
  ck_assert_double_eq_tol(err[0], 2, 1e-9);
  ck_assert_double_eq_tol(err[1], 100.5, 1e-9);
  ck_assert_double_eq_tol(err[2], 100.5 * 100.5, 1e-9);
}
END_TEST

/* Outside the history: NAN, and nothing added to a bar. */
START_TEST(test_hist_outside)
{
  double err[3] = {0, 0, 0};

  hist_made();
  ck_assert(isnan(pmon__hist_span_energy(&hh, 0, 4 * S)));
  ck_assert(isnan(pmon__hist_span_covered(&hh, 0, 4 * S)));
  pmon__hist_span_err(&hh, &ht, 0, 4 * S, err);
  ck_assert(err[0] == 0 && err[1] == 0 && err[2] == 0);
}
END_TEST

/* A full history halves: with room for 4, points offered at 0 .. 7 s
 * leave 0, 4 and 7 s (every 4th, and the latest), the stride 4; each
 * point kept is exact. */
START_TEST(test_hist_halves)
{
  struct pmon_hist_point p[4];
  struct pmon_hist h;
  static const uint64_t want[3] = {0, 4, 7};

  pmon__hist_init(&h, p, 4);
  for (int i = 0; i < 8; i++) {
    struct pmon_hist_point pt = {0};

    pt.t_ns = (uint64_t)i * S;
    pt.e = 10.0 * i;
    pmon__hist_push(&h, &pt);
    if (i == 6) { /* 0, 2, 4, 6: every other, nothing off the stride */
      ck_assert_uint_eq(h.n, 4);
      ck_assert_uint_eq(h.stride, 2);
      ck_assert_int_eq(h.tail, 0);
    }
  }
  ck_assert_uint_eq(h.n, 3);
  ck_assert_uint_eq(h.stride, 4);
  ck_assert_int_eq(h.tail, 1);
  for (int i = 0; i < 3; i++) {
    ck_assert_uint_eq(p[i].t_ns, want[i] * S);
    ck_assert_double_eq(p[i].e, 10.0 * (double)want[i]);
  }
}
END_TEST

/* A node run's terms: 1 J of resolution, 1 % of 1000 J and 2 W over
 * 10 s stated, the start's 3 J and the last sample's 0.01 s at 400 W,
 * linearly (36 J); its intervals' bound 50 J and squares 300 J^2 to the
 * others.  The bar: 36 J plus the smaller of 50 J and 1.96 sqrt(100),
 * 19.6 J.  With no span yet (END_W NAN), no ends' terms. */
START_TEST(test_run_terms)
{
  const double err[3] = {50, 300, 0.01};
  double lin = 0, bound = 0, sq = 0;

  pmon__run_terms(1, 0.01, 2, -1000, 10, 3, 400, err, &lin, &bound, &sq);
  ck_assert_double_eq_tol(lin, 1 + 10 + 20 + 3 + 4, 1e-12);
  ck_assert_double_eq_tol(bound, 50, 1e-12);
  ck_assert_double_eq_tol(sq, 300, 1e-12);
  ck_assert_double_eq_tol(pmon__err_combine(lin, bound, sq), 38 + 19.6,
                          1e-12);
  /* Leaning terms add as they are, up to the bound. */
  ck_assert_double_eq_tol(pmon__err_lean(lin, bound, sq, 20), 38 + 39.6,
                          1e-12);
  ck_assert_double_eq_tol(pmon__err_lean(lin, bound, sq, 40), 38 + 50, 1e-12);
  /* The bound: every term's worst case at once, never below the bar. */
  ck_assert_double_eq_tol(pmon__err_max(lin, bound), 38 + 50, 1e-12);
  ck_assert(pmon__err_max(lin, bound) >= pmon__err_combine(lin, bound, sq));
  ck_assert(pmon__err_max(lin, bound) >= pmon__err_lean(lin, bound, sq, 20));
  lin = bound = sq = 0;
  pmon__run_terms(1, 0.01, 2, 1000, 10, 3, NAN, err, &lin, &bound, &sq);
  ck_assert_double_eq_tol(lin, 31, 1e-12);
}
END_TEST

/* A share: 0.5 +- 0.05 of 1000 +- 40 J is 500 J, its bar
 * sqrt(20^2 + 50^2), its bound (of 100 J) 100 J. */
START_TEST(test_share_apply)
{
  double e = 1000, err = 40;

  /* Its bound, 100 J: 0.5 x 100 + 1000 x 0.05, as bounds add. */
  ck_assert_double_eq_tol(pmon__share_max(0.5, 0.05, e, 100), 100, 1e-12);
  pmon__share_apply(0.5, 0.05, &e, &err);
  ck_assert_double_eq_tol(e, 500, 1e-12);
  ck_assert_double_eq_tol(err, sqrt(20 * 20 + 50 * 50), 1e-12);
}
END_TEST

/* A run's end counts its stamp at the highest power around it, never
 * below the run's mean, NAN intervals left out; an end cut between two
 * readings is off by a quarter of their spacing times the power's range,
 * plus the resolution. */
START_TEST(test_end_power)
{
  const double p[3] = {150, NAN, 420};

  ck_assert_double_eq(pmon__end_power(200, p, 3), 420);
  ck_assert_double_eq(pmon__end_power(200, p, 2), 200);
  ck_assert_double_eq(pmon__end_power(200, p, 0), 200);
  ck_assert_double_eq_tol(pmon__cut_bar(100, 300, 0.1, 1), 6, 1e-12);
  ck_assert_double_eq_tol(pmon__cut_bar(250, 250, 0.1, 0), 0, 1e-12);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("calc");
  TCase *tc = tcase_create("fold");

  tcase_add_test(tc, test_wrap);
  tcase_add_test(tc, test_back);
  tcase_add_test(tc, test_implausible);
  tcase_add_test(tc, test_trapezoid);
  tcase_add_test(tc, test_gap);
  tcase_add_test(tc, test_stale);
  tcase_add_test(tc, test_fail);
  tcase_add_test(tc, test_paced);
  tcase_add_test(tc, test_fit_exact);
  tcase_add_test(tc, test_fit_nonneg);
  tcase_add_test(tc, test_hist_span);
  tcase_add_test(tc, test_hist_inside);
  tcase_add_test(tc, test_hist_outside);
  tcase_add_test(tc, test_hist_halves);
  tcase_add_test(tc, test_run_terms);
  tcase_add_test(tc, test_share_apply);
  tcase_add_test(tc, test_end_power);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  SRunner *sr = srunner_create(suite());
  int failed;

  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
