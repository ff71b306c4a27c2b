/*
 * hist.c - the node total's history, and the energy, measured time and
 * error bar of its spans (hist.h).
 */
#include "config.h"

#include <math.h>

#include "hist.h"

void pmon__hist_init(struct pmon_hist *h, struct pmon_hist_point *p,
                     size_t cap)
{
  h->p = p;
  h->cap = p != NULL ? cap : 0;
  h->n = 0;
  h->offered = 0;
  h->stride = 1;
  h->tail = 0;
}

void pmon__hist_push(struct pmon_hist *h, const struct pmon_hist_point *pt)
{
  if (h->cap < 2)
    return;
  if (h->tail) /* the latest point so far, off the stride */
    h->n--;
  if (h->n == h->cap) {
    size_t j = 0;

    for (size_t i = 0; i < h->cap; i += 2)
      h->p[j++] = h->p[i];
    h->n = j;
    h->stride *= 2;
  }
  h->p[h->n++] = *pt;
  h->tail = h->offered++ % h->stride != 0;
}

size_t pmon__hist_locate(const struct pmon_hist *h, uint64_t t, double *w)
{
  const struct pmon_hist_point *p = h->p;
  size_t lo = 0, hi = h->n - 1;

  *w = 0;
  if (t <= p[0].t_ns)
    return 0;
  if (t >= p[hi].t_ns)
    return hi;
  while (hi - lo > 1) { /* p[lo].t_ns < t < p[hi].t_ns */
    size_t mid = lo + (hi - lo) / 2;

    if (p[mid].t_ns <= t)
      lo = mid;
    else
      hi = mid;
  }
  *w = (double)(t - p[lo].t_ns) / (double)(p[hi].t_ns - p[lo].t_ns);
  return lo;
}

/* The energy at T, interpolated; the ends' outside. */
static double energy_at(const struct pmon_hist *h, uint64_t t)
{
  double w;
  size_t i = pmon__hist_locate(h, t, &w);

  return w > 0 ? h->p[i].e + (h->p[i + 1].e - h->p[i].e) * w : h->p[i].e;
}

/* The measured time at T (ns), interpolated as energy_at(). */
static double covered_at(const struct pmon_hist *h, uint64_t t)
{
  const struct pmon_hist_point *p = h->p;
  double w;
  size_t i = pmon__hist_locate(h, t, &w);

  return w > 0 ? (double)p[i].covered_ns +
                   ((double)p[i + 1].covered_ns - (double)p[i].covered_ns) * w
               : (double)p[i].covered_ns;
}

/* Whether [T0, T1] lies inside a history of 2 points at least. */
static int inside(const struct pmon_hist *h, uint64_t t0, uint64_t t1)
{
  return h->n >= 2 && t0 >= h->p[0].t_ns && t1 <= h->p[h->n - 1].t_ns;
}

double pmon__hist_span_energy(const struct pmon_hist *h, uint64_t t0,
                              uint64_t t1)
{
  if (!inside(h, t0, t1))
    return NAN;
  return energy_at(h, t1) - energy_at(h, t0);
}

double pmon__hist_span_covered(const struct pmon_hist *h, uint64_t t0,
                               uint64_t t1)
{
  if (!inside(h, t0, t1))
    return NAN;
  return (covered_at(h, t1) - covered_at(h, t0)) * 1e-9;
}

double pmon__hist_power(const struct pmon_hist *h, size_t i, size_t j)
{
  const struct pmon_hist_point *p = h->p;

  if (p[j].t_ns <= p[i].t_ns)
    return NAN;
  return (p[j].e - p[i].e) / ((double)(p[j].t_ns - p[i].t_ns) * 1e-9);
}

/* The range of the power over the intervals from point I - 1 to point
 * I + 2 (those around [I, I + 1]). */
static double range_at(const struct pmon_hist *h, size_t i)
{
  double lo = INFINITY, hi = -INFINITY;

  for (size_t k = i > 0 ? i - 1 : 0; k + 1 < h->n && k <= i + 1; k++) {
    double p = pmon__hist_power(h, k, k + 1);

    if (!isnan(p)) {
      lo = p < lo ? p : lo;
      hi = p > hi ? p : hi;
    }
  }
  return hi >= lo ? hi - lo : 0;
}

/*
 * As the region's (lib/region.c): each end of the span between two
 * points of the history is off by at most the power's range around it
 * times a quarter of the points' spacing plus the stamps' error, plus the
 * resolution; a span inside one interval by at most its time times the
 * range, plus what the ends do to the slope.  The sampled meters' error
 * between readings comes from the points' err[].
 */
void pmon__hist_span_err(const struct pmon_hist *h,
                         const struct pmon_hist_terms *terms, uint64_t t0,
                         uint64_t t1, double err[3])
{
  const struct pmon_hist_point *p = h->p;
  size_t i[2];
  double res = terms->res, w[2], b[2], e;
  uint64_t t[2] = {t0, t1};

  if (!inside(h, t0, t1) || t1 < t0)
    return;
  e = energy_at(h, t1) - energy_at(h, t0);
  err[0] += terms->rel * fabs(e) +
            terms->watts * (covered_at(h, t1) - covered_at(h, t0)) * 1e-9;
  for (int k = 0; k < 2; k++) {
    const struct pmon_hist_point *q;
    double dt, stamp;

    i[k] = pmon__hist_locate(h, t[k], &w[k]);
    q = &p[i[k]];
    /* Between readings, as the energy: interpolated. */
    for (int j = 0; j < 2; j++)
      err[1 + j] += (k == 0 ? -1 : 1) *
                    (w[k] > 0 ? q->err[j] + (q[1].err[j] - q->err[j]) * w[k]
                              : q->err[j]);
    if (w[k] == 0) { /* on a point: its stamp */
      b[k] = res + range_at(h, i[k] > 0 ? i[k] - 1 : 0) * q->err[2];
      continue;
    }
    dt = (double)(q[1].t_ns - q->t_ns) * 1e-9;
    stamp = q->err[2] > q[1].err[2] ? q->err[2] : q[1].err[2];
    b[k] = range_at(h, i[k]) * (dt / 4 + stamp) + res;
  }
  if (i[0] == i[1] && w[0] > 0 && w[1] > 0) {
    double dt = (double)(p[i[0] + 1].t_ns - p[i[0]].t_ns) * 1e-9;
    double in = (double)(t1 - t0) * 1e-9 *
                (range_at(h, i[0]) +
                 (res + fabs(pmon__hist_power(h, i[0], i[0] + 1)) *
                          (p[i[0]].err[2] + p[i[0] + 1].err[2])) / dt);

    if (in < b[0] + b[1]) {
      err[1] += in;
      err[2] += in * in;
      return;
    }
  }
  err[1] += b[0] + b[1];
  err[2] += b[0] * b[0] + b[1] * b[1];
}
