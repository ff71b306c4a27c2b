/*
 * regfit.c - a region's power fitted over the meter's intervals
 * (regfit.h; docs/report-format.md, "Regions fitted over their
 * repetitions").
 *
 * Interpolation gives a boundary the mean power of its interval; a
 * region much shorter than the interval, whose power steps at its ends,
 * is then off by what the step moves.  When it repeats, its boundaries
 * fall at many places of the intervals, and the intervals' energies
 * E_k = sum_r x_kr p_r (x_kr: the time column r ran in interval k) pin
 * down each p_r: a least-squares fit, with p >= 0 (Lawson and Hanson's
 * active set, on the normal equations, which are all that is kept:
 * calc/fit.c does the arithmetic on them; this file fills them).
 *
 * The region calls pay for it only where their thread's latest sample
 * changed (once an interval per thread: a row of PMON_FIT_N^2 / 2
 * multiply-adds) and a few stores otherwise.  A sample published after
 * a call read the count may be older than the call; the latest
 * PMON_FIT_SEGS changes are kept so that such a sample still splits
 * them where it falls (past that many since it, the older stay before
 * it).
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "core.h"
#include "regfit.h"

void pmon__fit_init(struct pmon_fit *f)
{
  const struct pmon_shared *sh = pmon__g.sh;

  memset(f, 0, sizeof *f);
  f->m = -1;
  f->k = UINT64_MAX - 1; /* no sample yet: every mark calls out */
  if (sh == NULL || sh->total_meter < 0)
    return;
  for (int m = 0; m < sh->nmeters; m++)
    if (sh->total_mask[m] != 0 && m != sh->total_meter)
      return;
  f->m = sh->total_meter;
}

static double total_of(const struct pmon_tl_sample *s, int m)
{
  uint32_t mask = pmon__g.sh->total_mask[m];
  double e = 0;

  for (int c = 0; c < pmon__g.sh->nch[m]; c++)
    if (mask & (1u << c))
      e += s->e[c];
  return e;
}

/* Start the open interval at sample K (S). */
static void restart(struct pmon_fit *f, uint64_t k,
                    const struct pmon_tl_sample *s)
{
  f->k = k;
  f->tk = f->from = s->t_ns;
  f->ck = s->covered_ns;
  f->ek = total_of(s, f->m);
  f->hk = s->err[2];
  f->pos = 0;
  memset(f->xi, 0, sizeof f->xi);
}

/* Close the open intervals up to sample SEQ - 1. */
static void advance(struct pmon_fit *f, uint64_t seq)
{
  const struct pmon_tl *tl = &pmon__g.sh->tl[f->m];
  struct pmon_tl_sample s;

  if (seq == 0)
    return;
  if (f->tk == 0) {
    if (pmon__tl_get(tl, seq - 1, &s) == 0)
      restart(f, seq - 1, &s);
    return;
  }
  for (uint64_t i = f->k + 1; i < seq; i++) {
    uint64_t after[PMON_FIT_N] = {0}; /* ns past the sample */
    double x[PMON_FIT_N], dt;

    if (pmon__tl_get(tl, i, &s) != 0) { /* lost from the ring */
      if (pmon__tl_get(tl, seq - 1, &s) == 0)
        restart(f, seq - 1, &s);
      return;
    }
    if (s.t_ns >= f->from) {
      f->xi[f->cur] += s.t_ns - f->from;
      f->from = s.t_ns;
    } else {
      /* The changes past the sample, newest first, go to the next
       * interval; past the ring's, they stay in this one. */
      for (uint64_t n = 0; n < f->pos && n < PMON_FIT_SEGS; n++) {
        unsigned j = (unsigned)((f->pos - 1 - n) % PMON_FIT_SEGS);
        uint64_t a = f->seg_t0[j] > s.t_ns ? f->seg_t0[j] : s.t_ns, d;

        if (f->seg_t1[j] <= s.t_ns)
          break;
        d = f->seg_t1[j] - a;
        d = d < f->xi[f->seg_slot[j]] ? d : f->xi[f->seg_slot[j]];
        f->xi[f->seg_slot[j]] -= d;
        after[f->seg_slot[j]] += d;
        if (f->seg_t0[j] <= s.t_ns)
          break;
      }
    }
    dt = (double)(s.t_ns - f->tk) * 1e-9;
    for (int c = 0; c < PMON_FIT_N; c++)
      x[c] = (double)f->xi[c] * 1e-9;
    /* A row only where the meter measured the whole interval. */
    if (s.t_ns > f->tk &&
        (double)(s.covered_ns - f->ck) * 1e-9 >= 0.99 * dt) {
      /* A sample stamped up to h off moves h times the step of power
       * across it into the next row, where a boundary lies within h of
       * it: for boundaries spread over the interval, 2 h / dt of them.
       * Stamps late while a region runs (a busy node's sampler) do so
       * alike: the mean of min(1, 2 h / dt) h over the rows, per
       * boundary and watt of step, is a lean of the figure. */
      double h = fmax(f->hk, s.err[2]);

      f->qsum += fmin(1, 2 * h / dt) * h;
      pmon__fit_row(f, x, total_of(&s, f->m) - f->ek);
    }
    memcpy(f->xi, after, sizeof f->xi);
    if (s.t_ns > f->tk)
      f->per8 = 8.0 / (double)(s.t_ns - f->tk);
    f->k = i;
    f->tk = s.t_ns;
    f->ck = s.covered_ns;
    f->ek = total_of(&s, f->m);
    f->hk = s.err[2];
  }
}

void pmon__fit_mark_slow(struct pmon_fit *f, uint64_t now, uint64_t seq,
                         int slot, int bslot)
{
  advance(f, seq);
  if (f->tk == 0 || seq != f->k + 1)
    return;
  pmon__fit_mark(f, now, seq, slot, bslot);
}

void pmon__fit_flush(struct pmon_fit *f)
{
  if (f->m < 0 || f->tk == 0)
    return;
  advance(f, pmon__tl_seq(&pmon__g.sh->tl[f->m]));
}

void pmon__fit_flush_until(struct pmon_fit *f, uint64_t t)
{
  const struct pmon_tl *tl;
  struct pmon_tl_sample s;
  uint64_t seq, i;

  if (f->m < 0 || f->tk == 0)
    return;
  tl = &pmon__g.sh->tl[f->m];
  seq = pmon__tl_seq(tl);
  for (i = f->k + 1; i < seq; i++)
    if (pmon__tl_get(tl, i, &s) != 0 || s.t_ns > t)
      break;
  advance(f, i);
}
