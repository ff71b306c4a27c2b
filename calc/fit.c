/*
 * fit.c - a least-squares fit of regions' powers from its sums
 * (calc/fit.h; docs/report-format.md, "Regions fitted over their
 * repetitions"): rows added to the normal equations, and their
 * non-negative solution (an active-set method, Lawson and Hanson's) with
 * each free column's variance.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "fit.h"

/* Element (I, J) of the packed upper triangle of X'X. */
#define G(i, j) ((i) <= (j) ? (i) * PMON_FIT_N - (i) * ((i) - 1) / 2 + (j) - (i) \
                            : (j) * PMON_FIT_N - (j) * ((j) - 1) / 2 + (i) - (j))

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
