/*
 * bar.h - error bars from their terms (docs/report-format.md, "Error
 * bars"): how the terms of ends, intervals and stated accuracy add up,
 * a node run's terms from one meter's, and a figure as the job's share
 * of its node's.  Functions of their inputs (calc/): no clock, lock,
 * thread or I/O.
 */
#ifndef PMON_BAR_H
#define PMON_BAR_H

#include <math.h>
#include <stddef.h>

/*
 * An error bar from its parts: LIN, the terms that add linearly (the
 * stated accuracy, a run's ends' stamps), and the terms of boundaries
 * and intervals, each at most b_i: BOUND their sum, SQ the sum of their
 * squares.  The smaller of the bound and a 95 % interval of the sum
 * (each error taken as uniform over its +-b_i, standard deviation
 * b_i / sqrt(3)), plus LIN.
 */
static inline double pmon__err_combine(double lin, double bound, double sq)
{
  double rss = 1.96 * sqrt(sq / 3);

  return lin + (rss < bound ? rss : bound);
}

/*
 * The bound that always holds, of the same terms: LIN plus every b_i
 * added (BOUND), the worst case of each taken at once (docs/report-
 * format.md, "How the terms add").  Given what each meter is documented
 * to do, a figure is never further than this from its truth; the bar is
 * the 95 % interval inside it.  A report gives both (energy_err_max_j
 * beside energy_err_j): one job's figure held to the bar may miss it by
 * design, one in twenty at most; held to the bound, never.
 */
static inline double pmon__err_max(double lin, double bound)
{
  return lin + bound;
}

/* The bound MAX of energy E as the job's share F +- F_ERR of it: F MAX +
 * |E| F_ERR, the two added as bounds do. */
static inline double pmon__share_max(double f, double f_err, double e,
                                     double max)
{
  return f * max + fabs(e) * f_err;
}

/* As pmon__err_combine(), for errors of which a part, whose bounds sum
 * to LEAN, may go one way for every boundary alike (a region's
 * boundaries left to interpolation, lib/region.c): that part adds to the
 * 95 % interval of the others as it is; the bar is never wider than the
 * bound. */
static inline double pmon__err_lean(double lin, double bound, double sq,
                                    double lean)
{
  double rss = 1.96 * sqrt(sq / 3) + lean;

  return lin + (rss < bound ? rss : bound);
}

/* Energy *E of the node and its bar *ERR (NULL: none) as the job's share
 * F +- F_ERR of them: *E F, the bar sqrt((F ERR)^2 + (E F_ERR)^2), the
 * two independent (pmon(7), Shared nodes). */
static inline void pmon__share_apply(double f, double f_err, double *e,
                                     double *err)
{
  if (err != NULL)
    *err = isfinite(*e) ? hypot(f * *err, *e * f_err) : *err;
  *e *= f;
}

/*
 * The power at which an end of a run counts its stamp's error: the
 * highest of MEAN (the run's) and the powers P[0..N-1] of the intervals
 * next to that end, NAN ones left out.  The end's stamp may be off
 * either way, and over that time the node drew the power of the interval
 * the end opens or closes, which on a node whose power moves can be well
 * above the run's mean.
 */
static inline double pmon__end_power(double mean, const double *p, size_t n)
{
  for (size_t k = 0; k < n; k++)
    if (!isnan(p[k]) && p[k] > mean)
      mean = p[k];
  return mean;
}
/* The bar of a run's end cut between two readings DT_S seconds apart, as
 * a region's boundary is: linear interpolation is off by at most the
 * range of the power around them (LO to HI) times a quarter of DT_S,
 * plus the resolution RES_J of the difference. */
static inline double pmon__cut_bar(double lo, double hi, double dt_s,
                                   double res_j)
{
  return (hi - lo) * dt_s / 4 + res_j;
}
/*
 * One meter's terms of a node run's bar, added to *LIN, *BOUND and *SQ
 * (as pmon__err_combine() takes them): its resolution of one difference
 * RES_J and its stated accuracy (ACC_REL of its energy EM, ACC_W watts
 * over its COVERED_S measured seconds), and its ends' stamps, which do
 * not cancel (the first's START_J, its error at the power then, and the
 * last sample's ERR[2] seconds at END_W watts; END_W NAN when the run has
 * no span yet), linearly; the terms between its readings (the last
 * sample's ERR[0], their bound, and ERR[1], their squares) to the others.
 */
void pmon__run_terms(double res_j, double acc_rel, double acc_w, double em,
                     double covered_s, double start_j, double end_w,
                     const double err[3], double *lin, double *bound,
                     double *sq);

#endif
