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
 * active set, on the normal equations, which are all that is kept).
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

#define G(i, j) ((i) <= (j) ? (i) * PMON_FIT_N - (i) * ((i) - 1) / 2 + (j) - (i) \
                            : (j) * PMON_FIT_N - (j) * ((j) - 1) / 2 + (i) - (j))

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

void pmon__fit_row(struct pmon_fit *f, const double *x, double e)
{
  double *g = f->g;

  for (int i = 0; i < PMON_FIT_N; i++) {
    double xi = x[i];

    if (xi == 0) {
      g += PMON_FIT_N - i;
      continue;
    }
    for (int j = i; j < PMON_FIT_N; j++)
      *g++ += xi * x[j];
    f->b[i] += xi * e;
    f->xs[i] += xi;
  }
  f->ee += e * e;
  f->esum += e;
  f->n += 1;
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

/* Cholesky of G restricted to the columns of SET (N of them) into L (row
 * major, N x N); -1 when not positive definite. */
static int chol(const double *g, const int *set, int n, double *l)
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++) {
      double s = g[G(set[i], set[j])];

      for (int k = 0; k < j; k++)
        s -= l[i * n + k] * l[j * n + k];
      if (i == j) {
        if (!(s > 1e-12 * g[G(set[i], set[i])]) || !(s > 0))
          return -1;
        l[i * n + i] = sqrt(s);
      } else
        l[i * n + j] = s / l[j * n + j];
    }
  return 0;
}

static void chol_solve(const double *l, int n, const double *rhs, double *z)
{
  for (int i = 0; i < n; i++) {
    double s = rhs[i];

    for (int k = 0; k < i; k++)
      s -= l[i * n + k] * z[k];
    z[i] = s / l[i * n + i];
  }
  for (int i = n - 1; i >= 0; i--) {
    double s = z[i];

    for (int k = i + 1; k < n; k++)
      s -= l[k * n + i] * z[k];
    z[i] = s / l[i * n + i];
  }
}

/* The least squares over the columns of SET into Z; drops from SET a
 * column that makes the system singular.  Returns SET's new size. */
static int passive_solve(const struct pmon_fit *f, int *set, int n, double *l,
                         double *z)
{
  double rhs[PMON_FIT_N];

  while (n > 0 && chol(f->g, set, n, l) != 0)
    n--; /* the latest column added depends on the others */
  for (int i = 0; i < n; i++)
    rhs[i] = f->b[set[i]];
  if (n > 0)
    chol_solve(l, n, rhs, z);
  return n;
}

int pmon__fit_solve(const struct pmon_fit *f, double *p, double *var,
                    double *s2)
{
  int in[PMON_FIT_N] = {0}, set[PMON_FIT_N], n = 0, iter = 0;
  double l[PMON_FIT_N * PMON_FIT_N], z[PMON_FIT_N], w[PMON_FIT_N], rss;
  double scale = 0;

  for (int i = 0; i < PMON_FIT_N; i++) {
    p[i] = 0;
    var[i] = NAN;
    scale = fmax(scale, fabs(f->b[i]));
  }
  *s2 = NAN;
  if (f->n < 3)
    return -1;
  for (;;) {
    int best = -1;

    /* w = b - G p, the gradient; the column that most wants to grow. */
    for (int i = 0; i < PMON_FIT_N; i++) {
      w[i] = f->b[i];
      for (int j = 0; j < PMON_FIT_N; j++)
        w[i] -= f->g[G(i, j)] * p[j];
      if (!in[i] && f->g[G(i, i)] > 0 && w[i] > 1e-10 * scale &&
          (best < 0 || w[i] > w[best]))
        best = i;
    }
    if (best < 0 || n == PMON_FIT_N || ++iter > 3 * PMON_FIT_N)
      break;
    set[n++] = best;
    in[best] = 1;
    for (;;) {
      double alpha = 1;
      int m = passive_solve(f, set, n, l, z), neg = 0;

      for (int i = m; i < n; i++)
        in[set[i]] = 0;
      n = m;
      for (int i = 0; i < n; i++)
        if (z[i] <= 0) {
          double a = p[set[i]] / (p[set[i]] - z[i]);

          neg = 1;
          alpha = a < alpha ? a : alpha;
        }
      if (!neg) {
        for (int i = 0; i < n; i++)
          p[set[i]] = z[i];
        break;
      }
      /* Step toward z until a column reaches 0; it leaves the set. */
      for (int i = 0, k = 0; i < n; i++) {
        int c = set[i];

        p[c] += alpha * (z[i] - p[c]);
        if (p[c] <= 1e-12 * fabs(z[i]) + 1e-300) {
          p[c] = 0;
          in[c] = 0;
        } else
          set[k++] = c;
      }
      {
        int k = 0;

        for (int i = 0; i < PMON_FIT_N; i++)
          if (in[i])
            set[k++] = i;
        n = k;
      }
      if (n == 0)
        break;
    }
  }
  /* The residuals: E'E - 2 p'b + p'G p. */
  rss = f->ee;
  for (int i = 0; i < PMON_FIT_N; i++) {
    rss -= 2 * p[i] * f->b[i];
    for (int j = 0; j < PMON_FIT_N; j++)
      rss += p[i] * f->g[G(i, j)] * p[j];
  }
  rss = rss > 0 ? rss : 0;
  if (f->n <= n)
    return -1;
  *s2 = rss / (f->n - n);
  /* The covariance of the free columns: s2 (G_PP)^-1, its diagonal. */
  if (n > 0 && chol(f->g, set, n, l) == 0)
    for (int i = 0; i < n; i++) {
      double e[PMON_FIT_N] = {0};

      e[i] = 1;
      chol_solve(l, n, e, z);
      var[set[i]] = *s2 * z[i];
    }
  return 0;
}
