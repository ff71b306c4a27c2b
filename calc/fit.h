/*
 * fit.h - the sums of a least-squares fit of regions' powers over a
 * meter's intervals, and its non-negative solution (calc/fit.c).
 *
 * A row is an interval: the time each column ran in it (seconds) and
 * the energy measured over it (joules).  Only the sums of the normal
 * equations are kept, so memory does not grow with the run.  Filling the
 * open interval from region calls and the meter's samples is the core's
 * (lib/regfit.c); the arithmetic on the sums is here, a function of them.
 */
#ifndef PMON_FIT_H
#define PMON_FIT_H

#include <stdint.h>

#define PMON_FIT_SLOTS 32 /* names of a thread with a column of their own */
#define PMON_FIT_N (PMON_FIT_SLOTS + 1)
#define PMON_FIT_SEGS 16  /* the latest changes kept */

struct pmon_fit {
  int m;               /* the node total's meter; -1: no fit */
  int nslots;          /* columns given to names */
  /* The sums over closed intervals (seconds, joules): X'X packed by
   * rows of its upper triangle, X'E, E'E, the rows, each column's time. */
  double g[PMON_FIT_N * (PMON_FIT_N + 1) / 2];
  double b[PMON_FIT_N];
  double ee, n, esum;
  double qsum;         /* over the rows: the stamps' lean (regfit.c) */
  double xs[PMON_FIT_N];
  uint8_t phase[PMON_FIT_N]; /* eighths of an interval its boundaries
                                fell in, a bit each */
  /* The open interval: since sample K (time TK, node total EK, measured
   * time CK), each column's nanoseconds so far, up to FROM; CUR runs
   * since.  The latest PMON_FIT_SEGS changes (each column's run from
   * SEG_T0 to SEG_T1, the ring's next at POS mod PMON_FIT_SEGS) let a
   * sample published after a call read the count, and older than the
   * call, still split them where it falls. */
  uint64_t k, tk, ck, from, pos;
  double ek, per8;     /* eighths of the last closed interval a ns */
  double hk;           /* sample K's stamp uncertainty, seconds */
  uint64_t xi[PMON_FIT_N];
  int cur;
  uint64_t seg_t0[PMON_FIT_SEGS], seg_t1[PMON_FIT_SEGS];
  uint8_t seg_slot[PMON_FIT_SEGS];
};

/* Add one row: X[PMON_FIT_N] seconds, E joules. */
void pmon__fit_row(struct pmon_fit *f, const double *x, double e);
/* The fit: P[] each column's watts (0 outside the solution), VAR[] their
 * variance (NAN where not in it), *S2 the residuals' variance per row.
 * 0, or -1 when there are too few rows. */
int pmon__fit_solve(const struct pmon_fit *f, double *p, double *var,
                    double *s2);

#endif
