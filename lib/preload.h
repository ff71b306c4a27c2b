/*
 * preload.h - what the interposition library (mpiio/) may call beyond the
 * public API.  Not installed.
 */
#ifndef PMON_PRELOAD_H
#define PMON_PRELOAD_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "pmon.h"

/*
 * pmon_init() for the interposition library: BY_PRELOAD marks the state so
 * that the program's own later pmon_init() succeeds once instead of
 * reporting PMON_EALREADY.
 */
PMON_EXTERN int pmon__init(int by_preload);

/*
 * End measuring without a report or a summary.  For pmon-run, whose own
 * whole-process measurement is not wanted once the command turns out to be
 * an MPI program that reports itself.  Not collective.
 */
PMON_EXTERN int pmon__finalize_discard(void);

/*
 * MPI-IO accounting (lib/io.c), fed by the wrappers of mpiio/.  A file
 * handle is passed as an opaque integer.  Times are stamps of
 * pmon__io_stamp() taken right before and right after the real call; OK
 * is nonzero when the real call returned MPI_SUCCESS (only then do its
 * bytes count).  Every function is safe to call in any phase: outside a
 * running pmon it does nothing.
 */
enum pmon_io_kind {
  PMON_IO_READ,  /* a call that reads data (counted once per transfer) */
  PMON_IO_WRITE, /* a call that writes data */
  PMON_IO_META,  /* open, close, delete, sync, set_size, preallocate */
  PMON_IO_END    /* the _end of a split collective: time only */
};

/* What pmon__io_start() found. */
enum pmon_io_clock {
  PMON_IO_OFF = 0, /* not counting */
  PMON_IO_NS,      /* stamps are CLOCK_MONOTONIC nanoseconds */
  PMON_IO_TSC      /* stamps are the invariant time stamp counter */
};

/* Start counting, after pmon__init(); MULTIPLE is nonzero when the program
 * may call MPI from several threads at once.  Says which clock the stamps
 * must come from.  The TSC is used where the CPU says it runs at a
 * constant rate in every state and the kernel keeps time with it (so it is
 * synchronised across CPUs): it is read in a few nanoseconds, where
 * clock_gettime() takes tens, and the wrappers take two stamps per call. */
PMON_EXTERN int pmon__io_start(int multiple);

/* A time stamp on CLOCK (PMON_IO_NS or PMON_IO_TSC). */
static inline uint64_t pmon__io_stamp(int clock)
{
  struct timespec ts;

#if defined(__x86_64__) || defined(__i386__)
  if (clock == PMON_IO_TSC)
    return __rdtsc();
#else
  (void)clock;
#endif
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* What calls on one file add up to. */
struct pmon__io_counts {
  uint64_t bytes_read, bytes_written;
  uint64_t reads, writes, meta, errors;
  uint64_t ticks; /* inside the calls, in stamps */
};

/*
 * The fast path.  lib/io.c keeps here the handle it looked up last, that
 * file's counts and the open I/O phase.  A wrapper whose call succeeded
 * on handle H, started inside the phase or within GAP_T after its end, and
 * moved data of a size the wrapper knows, adds its counts and extends the
 * phase itself instead of calling pmon__io_call(): no call, no lock, no
 * look-up.  Everything else goes through pmon__io_call(), which keeps this
 * up to date.
 *
 * A call that ends after PUB_T takes the slow path as well, so that the
 * rank's figures reach the spool at its interval.
 *
 * FAST (read atomically) is nonzero only while calls are counted and the
 * program is not MPI_THREAD_MULTIPLE, so that MPI's own rules serialise
 * every access to the rest; lib/io.c clears it before it frees or
 * collects anything.  C is NULL when H is of no known file.
 */
struct pmon__io_hot {
  int fast;
  int have;                  /* a phase is open, from CUR0 to CUR1 */
  uintptr_t h;               /* the handle looked up last, */
  struct pmon__io_counts *c; /* and its file's counts */
  uint64_t cur0, cur1;       /* stamps */
  uint64_t cur_bytes;        /* the bytes its calls moved */
  uint64_t gap_t;            /* the phase gap in stamps */
  uint64_t pub_t;            /* a call that ends after this stamp goes
                                to pmon__io_call(): the rank's I/O is due
                                in the spool (lib/io.c) */
} __attribute__((aligned(64)));

extern PMON_EXTERN struct pmon__io_hot pmon__io_hot;

/* MPI_File_open of NAME gave handle H (when OK); MPI_File_delete of NAME
 * is the same call with H = 0 and OK telling only the outcome. */
PMON_EXTERN void pmon__io_open(uintptr_t h, const char *name, uint64_t t0,
                               uint64_t t1, int ok);

/* A call of KIND on handle H that moved BYTES (when OK). */
PMON_EXTERN void pmon__io_call(uintptr_t h, int kind, uint64_t bytes,
                               uint64_t t0, uint64_t t1, int ok);

/* MPI_File_close of handle H: a meta call, and H is forgotten when OK. */
PMON_EXTERN void pmon__io_close(uintptr_t h, uint64_t t0, uint64_t t1,
                                int ok);

#endif /* PMON_PRELOAD_H */
