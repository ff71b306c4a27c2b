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

#include "fit.h" /* the sums and the solver (calc/) */

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
#endif /* PMON_REGFIT_H */
