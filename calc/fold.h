/*
 * fold.h - a meter's readings folded into energy: the arithmetic, as a
 * function of its inputs.
 *
 * pmon__fold() takes a meter's state, one reading and the instant the
 * library gave it, and updates the state: the stamp of the value read,
 * the counter's wrap-corrected delta or the power's trapezoid, the bars'
 * terms, stale spells, gaps, resets and what finalize holds.  What it
 * publishes and what it has to say go out through the caller's
 * operations (struct pmon_fold_ops).  It reads no clock, takes no lock,
 * starts no thread and does no I/O: this folder (calc/) includes no such
 * header, and tests/layers.test keeps it so.  The library's pollers, init
 * and finalize call it (lib/meter.c); so does `pmon-report replay`, on a
 * trace's readings.
 */
#ifndef PMON_FOLD_H
#define PMON_FOLD_H

#include <stdint.h>

#include "driver.h"

#define PMON_MAX_WATTS 1e6 /* a channel's power above this is a glitch */

/* The leader's private state for one meter: what pmon__fold() keeps
 * between readings, and the few fields of the reading runtime (due_ns,
 * quick_ns, read_ns, unstale, retried, estimated) that it reads or leaves
 * alone.  Its poller writes it without a lock; the fields marked _Atomic
 * are also read by the spool thread's snapshot (lib/report.c) while the
 * poller runs: each is whole, though together they may be a reading
 * apart. */
struct pmon_mstate {
  struct pmon_meter m;
  uint64_t prev_raw[PMON_CH_MAX];
  double prev_w[PMON_CH_MAX];
  double prev_h;            /* a power meter's: its previous reading's
                               stamp error (err[2]), seconds */
  _Atomic uint64_t prev_ns; /* time of the previous good reading */
  int primed;               /* a first good reading exists */
  double e[PMON_CH_MAX];    /* cumulative joules since init */
  double err[3];            /* and the error made between readings, and
                               the stamp's (struct pmon_tl_sample) */
  uint64_t due_ns;          /* next reading */
  uint64_t origin_ns;       /* the stamp of its first sample, where its
                               energy starts (after init's, when init's
                               reading failed) */
  _Atomic int failing;      /* in a run of failed reads */
  int reset_seen;           /* a reset event whose counters have not
                               gone back yet */
  _Atomic unsigned long nread, nfail;
  _Atomic unsigned long rejected; /* failed reads that were answers the driver
                               refused (PMON_EFORMAT): garbage, overflow,
                               negative or implausible values */
  int estimated;

  /* Coverage: what the published samples span, and how much of it was
   * measured.  A sampled meter whose readings are more than TTL apart
   * leaves the time between them out: nothing is invented to fill it. */
  uint64_t ttl_ns;          /* the longest interval integrated */
  _Atomic uint64_t covered_ns; /* measured time since the first sample */
  _Atomic unsigned long gaps; /* intervals left out */
  _Atomic uint64_t lost_ns; /* start of the current run of failed reads,
                               0 when reading */
  uint64_t wrap_ns;         /* counter meters: the shortest time in which
                               a channel can wrap (range x scale over
                               max_watts), 0 when none wraps.  Readings
                               further apart than this may hide a wrap:
                               their interval is dropped, not guessed */
  _Atomic unsigned long ambiguous; /* intervals dropped for that */
  _Atomic uint64_t fresh_ns; /* the last reading that brought a new value:
                               not marked stale and, for a counter meter,
                               some raw value moved */
  _Atomic int frozen;       /* m.stale_s > 0 and no new value for longer
                               than that: nothing is published (but a
                               forced reading, with energy and covered
                               time unchanged) until one comes; the span
                               from fresh_ns to it is not counted */
  _Atomic unsigned long stale; /* frozen spans */
  uint64_t seen_ns;         /* the previous good reading, new or not */
  int seen_old;             /* and it brought nothing new */
  int olds;                 /* readings in a row that brought nothing new */
  int paced;                /* init saw the counter keep its value between
                               readings: it publishes at its own pace */
  uint64_t news_ns;         /* the reading that first saw the value */
  int pace_off;             /* a value was seen kept for longer than the
                               pace its driver states (m.pace_s): the
                               pace is not believed */
  uint64_t pub_ns;          /* a windowed meter (m.window_s): the stamp
                               of its last sample, where its last window
                               ended, or init's */
  double pub_err;           /* and how far that stamp may be off, s */
  int anchoring;            /* in pmon__meters_sample_all(): 1 at
                               finalize, 2 at init */
  uint64_t anchor_ns;       /* ... the instant it waits for a value after */
  int held;                 /* finalize saw a paced counter's new value
                               it could not stamp after anchor_ns: not
                               folded yet, held_raw holds it, first read
                               at held_ns, the reading before at
                               held_lo_ns */
  uint64_t held_raw[PMON_CH_MAX];
  uint64_t held_ns, held_lo_ns;
  uint64_t quick_ns;        /* about the quickest read() since the first
                               (0: none yet), for sample_one()'s retries */
  uint64_t read_ns;         /* the time the read folded last took: its
                               value held at an instant inside it */
  int unstale;              /* a try after the one folded was dropped:
                               the driver's stale flag on the next one
                               compares with that try, not the core's */
  _Atomic unsigned long retried; /* reads taken again for being slow */
};

/* What the fold does to the world, the caller's: each called with CTX. */
struct pmon_fold_ops {
  void *ctx;
  /* The meter's next sample, at T: its energy (e), measured time
   * (covered_ns) and bar terms (err) as they now stand.  May reset them
   * (the first sample is the origin). */
  void (*publish)(void *ctx, uint64_t t);
  /* An event of TYPE (a static string) at T, its detail as printf's. */
  void (*event)(void *ctx, uint64_t t, const char *type, const char *fmt,
                ...) __attribute__((format(printf, 4, 5)));
  /* A line for PMON_DEBUG, as printf's. */
  void (*debug)(void *ctx, const char *fmt, ...)
      __attribute__((format(printf, 2, 3)));
  uint32_t total_mask; /* the meter's channels in the node total */
  uint64_t t_init_ns;  /* init's instant, for the events' words */
};

/*
 * Fold meter MS's reading R at T (the middle of its read, or where it is
 * stamped), or its failure: RC != 0, WHY what failed.  FORCE: the last
 * reading of a wait (init's or finalize's), folded whether or not it
 * brings a new value.  Returns 1 when it published a sample, else 0.
 */
int pmon__fold(struct pmon_mstate *ms, const struct pmon_fold_ops *ops,
               int rc, const char *why, const struct pmon_reading *r,
               uint64_t t, int force);
/* Fold the value finalize holds (MS->held) where it was first read. */
void pmon__fold_release(struct pmon_mstate *ms,
                        const struct pmon_fold_ops *ops);

#endif
