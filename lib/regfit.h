/*
 * regfit.h - a region's power fitted over the meter's intervals
 * (docs/report-format.md, "Regions fitted over their repetitions").
 *
 * A thread's region calls mark where its innermost region changes; each
 * interval of the node total's meter then gets a row: the time each of
 * the thread's first PMON_FIT_SLOTS names ran in it as the innermost one
 * (column 1 on), the rest of the interval (column 0: outside regions,
 * and names without a column), and the energy measured over it.  Only
 * the sums of the normal equations are kept, so memory does not grow
 * with the run; at finalize a non-negative least-squares fit of the
 * rows gives each column's power and its variance.
 */
#ifndef PMON_REGFIT_H
#define PMON_REGFIT_H

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

/* A fit of the node total's meter, or one that does nothing (m = -1)
 * when the node has no total or its total takes more than one meter. */
void pmon__fit_init(struct pmon_fit *f);
/* Column SLOT begins running at NOW as the innermost (0: none);
 * BSLOT's boundary (0: none) was at NOW.  SEQ: the meter's samples
 * published, read before NOW.  Inline: a region call pays a few
 * comparisons and stores, and a call out only once an interval. */
void pmon__fit_mark_slow(struct pmon_fit *f, uint64_t now, uint64_t seq,
                         int slot, int bslot);
static inline void pmon__fit_mark(struct pmon_fit *f, uint64_t now,
                                  uint64_t seq, int slot, int bslot)
{
  if (seq != f->k + 1) {
    pmon__fit_mark_slow(f, now, seq, slot, bslot);
    return;
  }
  if (bslot > 0 && now >= f->tk && f->per8 > 0) {
    double b = (double)(now - f->tk) * f->per8;

    f->phase[bslot] |= (uint8_t)(1u << (b < 7 ? (int)b : 7));
  }
  if (now > f->from) {
    unsigned i = (unsigned)(f->pos++ % PMON_FIT_SEGS);

    f->xi[f->cur] += now - f->from;
    f->seg_t0[i] = f->from;
    f->seg_t1[i] = now;
    f->seg_slot[i] = (uint8_t)f->cur;
    f->from = now;
  }
  f->cur = slot;
}

/* Close every interval the timeline has now; the open one is dropped. */
void pmon__fit_flush(struct pmon_fit *f);
/* The same for the intervals that end by T (a copy of a thread's fit
 * made at T, whose marks since are not known). */
void pmon__fit_flush_until(struct pmon_fit *f, uint64_t t);
/* Add one row: X[PMON_FIT_N] seconds, E joules. */
void pmon__fit_row(struct pmon_fit *f, const double *x, double e);
/* The fit: P[] each column's watts (0 outside the solution), VAR[] their
 * variance (NAN where not in it), *S2 the residuals' variance per row.
 * 0, or -1 when there are too few rows. */
int pmon__fit_solve(const struct pmon_fit *f, double *p, double *var,
                    double *s2);

#endif /* PMON_REGFIT_H */
