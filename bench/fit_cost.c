/*
 * fit_cost - what fitting regions over the meter's intervals costs
 * (lib/regfit.c, bench/README.md), at its largest: 100,000 intervals and
 * 1,000 region names.
 *
 * A thread's names beyond PMON_FIT_SLOTS share the rest's column, so the
 * fit is 33 columns whatever the names; each interval's row goes into the
 * sums as the run goes (once an interval, in the first region call after
 * its sample), and the solve runs at finalize.  The rows are simulated:
 * in each 100 ms interval 3 of the 1,000 names run (a share of it each,
 * the rest outside regions), at powers of 100 + 3 r W, the energy in whole
 * joules.  Printed: the rows' time (spread over the run) and the solve's
 * (at finalize), medians of 11 rounds, against the baseline of one pass
 * over the same rows kept in memory, as a fit that kept its rows would
 * need at least; and the solve's largest error in power, to show it fits.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "regfit.h"

#define ROWS 100000
#define NAMES 1000
#define ROUNDS 11

static double watts(int name) { return 100 + 3 * (name % 97); }

int main(void)
{
  static double rows[ROWS][PMON_FIT_N], e[ROWS];
  double t_rows[ROUNDS], t_solve[ROUNDS], t_base[ROUNDS], sink = 0, worst = 0;
  static struct pmon_fit f;
  double p[PMON_FIT_N], var[PMON_FIT_N], s2, carry = 0;

  srand(1);
  for (int k = 0; k < ROWS; k++) {
    double left = 0.1, ek = 0;

    for (int i = 0; i < 3; i++) {
      int name = rand() % NAMES, col = name < PMON_FIT_SLOTS ? name + 1 : 0;
      double x = 0.03 * rand() / RAND_MAX;

      /* a name without a column runs at the rest's power, so that the
       * fit's columns can be checked */
      rows[k][col] += x;
      ek += x * (col ? watts(name) : 100);
      left -= x;
    }
    rows[k][0] += left;
    ek += left * 100 + carry;
    e[k] = floor(ek); /* whole joules, the remainder carried */
    carry = ek - e[k];
  }
  for (int r = 0; r < ROUNDS; r++) {
    double t0 = bench_now(), t1, t2, t3;

    for (int k = 0; k < ROWS; k++)
      for (int c = 0; c < PMON_FIT_N; c++)
        sink += rows[k][c] * e[k];
    t1 = bench_now();
    for (int i = 0; i < (int)(sizeof f.g / sizeof f.g[0]); i++)
      f.g[i] = 0;
    for (int c = 0; c < PMON_FIT_N; c++)
      f.b[c] = f.xs[c] = 0;
    f.ee = f.n = f.esum = 0;
    for (int k = 0; k < ROWS; k++)
      pmon__fit_row(&f, rows[k], e[k]);
    t2 = bench_now();
    pmon__fit_solve(&f, p, var, &s2);
    t3 = bench_now();
    t_base[r] = t1 - t0;
    t_rows[r] = t2 - t1;
    t_solve[r] = t3 - t2;
  }
  for (int c = 1; c < PMON_FIT_N; c++)
    if (fabs(p[c] - watts(c - 1)) > worst)
      worst = fabs(p[c] - watts(c - 1));
  printf("fit of %d intervals, %d names (%d columns), medians of %d rounds\n",
         ROWS, NAMES, PMON_FIT_N, ROUNDS);
  printf("baseline: one pass over the rows kept:   %10.3f ms\n",
         bench_median(t_base, ROUNDS) * 1e-6);
  printf("rows into the sums (over the run):      %10.3f ms (%.0f ns a row)\n",
         bench_median(t_rows, ROUNDS) * 1e-6,
         bench_median(t_rows, ROUNDS) / ROWS);
  printf("solve (at finalize):                    %10.3f ms\n",
         bench_median(t_solve, ROUNDS) * 1e-6);
  printf("ratio rows + solve / baseline:          %10.2f\n",
         (bench_median(t_rows, ROUNDS) + bench_median(t_solve, ROUNDS)) /
           bench_median(t_base, ROUNDS));
  printf("largest error of a column's power: %.3f W (rest %.3f W, residual "
         "sd %.3f J)%s\n", worst, p[0], sqrt(s2), sink == 0 ? " " : "");
  return 0;
}
