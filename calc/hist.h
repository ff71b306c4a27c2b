/*
 * hist.h - the node total's history and the energy, measured time and
 * error bar of any span of it: the arithmetic, as functions of their
 * inputs.
 *
 * The history is the node total's samples over the whole job in fixed
 * memory: every stride-th point offered, evenly spaced, and the latest
 * one; when full, every other point goes and the stride doubles.  The
 * functions below read a history and the spans asked of them, and return
 * figures: no clock, lock, thread or I/O (calc/, kept so by
 * tests/layers.test).  The library fills its own (lib/timeline.c, from
 * the total meter's poller) and asks it for the I/O phases',
 * communication calls' and shares' energies and bars at finalize;
 * tests/check_calc asks one made by hand.
 */
#ifndef PMON_HIST_H
#define PMON_HIST_H

#include <stddef.h>
#include <stdint.h>

/* A point of the node total's history: its energy since init at T_NS,
 * and the node's CPU time from /proc/stat (jiffies of all its CPUs) as
 * last read, at CPU_T_NS, at most PMON_CPU_READ_NS before T_NS; CPU_TOTAL
 * 0 when unread. */
struct pmon_hist_point {
  uint64_t t_ns;
  double e;
  uint64_t covered_ns; /* measured time since init, as with energy */
  uint64_t cpu_t_ns;   /* when the CPU time below was read */
  uint64_t cpu_busy, cpu_total;
  double mhz; /* the mean clock of the ranks' CPUs as last read, NAN */
  double err[3]; /* the node total's err[] (struct pmon_tl_sample): its
                    meters' sums, and the largest stamp error */
};

/* A history: CAP points at P (the caller's memory), N of them kept. */
struct pmon_hist {
  struct pmon_hist_point *p;
  size_t cap;
  size_t n;
  uint64_t offered; /* points offered so far */
  uint64_t stride;  /* 1, doubled each time the history fills */
  int tail;         /* its last point is the latest offered, not on the
                       stride: the next one replaces it */
};

/* What the node total's meters state of their error: RES joules of
 * resolution (their sum), REL a fraction of the energy (the largest; NAN
 * when one states none) and WATTS of the power (their sum). */
struct pmon_hist_terms {
  double res, rel, watts;
};

/* Empty H, its CAP points at P (stride 1). */
void pmon__hist_init(struct pmon_hist *h, struct pmon_hist_point *p,
                     size_t cap);
/* Offer PT: kept on the stride, or as the latest point (replacing the
 * latest that was not on it); a full history drops every other point
 * first and doubles its stride.  Its points stay exact, its resolution
 * halves, the same over the whole job.  A history without memory
 * (CAP < 2) keeps nothing. */
void pmon__hist_push(struct pmon_hist *h, const struct pmon_hist_point *pt);
/* Where T falls: the last point at or before it (its index), and how far
 * T is towards the next one (*W, 0 to 1); the first or last point when T
 * is outside.  H has a point at least. */
size_t pmon__hist_locate(const struct pmon_hist *h, uint64_t t, double *w);
/* The energy from T0 to T1, interpolated between points; NAN with fewer
 * than 2 points or when the span is not inside the history. */
double pmon__hist_span_energy(const struct pmon_hist *h, uint64_t t0,
                              uint64_t t1);
/* The measured seconds from T0 to T1, as pmon__hist_span_energy(). */
double pmon__hist_span_covered(const struct pmon_hist *h, uint64_t t0,
                               uint64_t t1);
/* The power from point I to point J; NAN when they are not apart. */
double pmon__hist_power(const struct pmon_hist *h, size_t i, size_t j);
/* The parts of the error bar of pmon__hist_span_energy(H, T0, T1), added
 * to ERR[] (struct pmon_tl_sample's: the stated accuracy, the sum of the
 * other terms, the sum of their squares), with the meters' TERMS; nothing
 * is added where the energy is NAN (see docs/report-format.md, "Error
 * bars"). */
void pmon__hist_span_err(const struct pmon_hist *h,
                         const struct pmon_hist_terms *terms, uint64_t t0,
                         uint64_t t1, double err[3]);

#endif
