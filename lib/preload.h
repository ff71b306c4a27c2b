/*
 * preload.h - what the interposition library (mpiio/) may call beyond the
 * public API.  Not installed.
 */
#ifndef PMON_PRELOAD_H
#define PMON_PRELOAD_H

#include <math.h>
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
 * Tell pmon-run, when it started this process (PMON_RUN_FD), that the
 * process reports itself, WHAT saying why ("mpi": an MPI rank; "self": a
 * program that called pmon_init() on its own), so that pmon-run does not
 * report it as well.  Once: the variable is removed.
 */
PMON_EXTERN void pmon__tell_pmon_run(const char *what);

/*
 * End measuring without a report or a summary.  For pmon-run, whose own
 * whole-process measurement is not wanted once the command turns out to be
 * an MPI program that reports itself.  Not collective.
 */
PMON_EXTERN int pmon__finalize_discard(void);

/*
 * PMON_IO_FREQ (lib/iofreq.c): every CPU of the node back to the clock
 * limit found at init, now, for a process that is ending (MPI_Abort, a
 * signal): async-signal-safe, and nothing unless this job's ranks of the
 * node have it capped; 1 when they had.
 */
PMON_EXTERN int pmon__iofreq_restore_now(void);

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

/* The calls of one size bin (pmon__comm_bin()): of one call, or of one
 * kind of MPI-IO data call; ticks2, the sum of the calls' squared ticks
 * (the spread of a bin's calls, for its bar in advice). */
struct pmon__comm_row {
  uint64_t calls, bytes, ticks;
  double ticks2;
};

/* The standard deviation of the times of N calls that took T seconds in
 * all and T2 squared seconds, NAN when fewer than 2 or unknown. */
static inline double pmon__call_sd(double n, double t, double t2)
{
  double v;

  if (!(n >= 2) || !(t2 >= 0))
    return NAN;
  v = (t2 - t * t / n) / (n - 1);
  return v > 0 ? sqrt(v) : 0;
}

/* The squared seconds T2 back from N calls' T seconds and SD (a report's
 * call_sd_s; NAN when it is absent): pmon__call_sd()'s inverse. */
static inline double pmon__call_t2(double n, double t, double sd)
{
  if (n == 1)
    return t * t;
  return n >= 2 && sd >= 0 ? sd * sd * (n - 1) + t * t / n : NAN;
}

#define PMON_COMM_BINS 65    /* 0 bytes, then one per power of two */

/* The size bin of a call that moved BYTES: 0 for none, K >= 1 for 2^(K-1)
 * to 2^K - 1 bytes. */
static inline int pmon__comm_bin(uint64_t bytes)
{
  return bytes == 0 ? 0 : 64 - __builtin_clzll(bytes);
}

/* The least and the most bytes of bin K, the most saturated to INT64_MAX
 * (a JSON integer). */
static inline uint64_t pmon__comm_bin_min(int k)
{
  return k == 0 ? 0 : (uint64_t)1 << (k - 1);
}

static inline uint64_t pmon__comm_bin_max(int k)
{
  return k == 0 ? 0 : k >= 64 ? INT64_MAX : ((uint64_t)1 << k) - 1;
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
  struct pmon__comm_row *sizes; /* [2][PMON_COMM_BINS]: the successful
                                   reads (0) and writes (1) by size */
  int freq_on;               /* PMON_IO_FREQ is on in this rank: each
                                call goes through pmon__io_freq_begin()
                                and _end() */
  int freq_out;              /* PMON_IO_FREQ: the rank is out of its
                                phase (the clock not capped for it): the
                                next call takes the slow path */
} __attribute__((aligned(64)));

extern PMON_EXTERN struct pmon__io_hot pmon__io_hot;

/* PMON_IO_FREQ (lib/iofreq.c), only while pmon__io_hot.freq_on: a call
 * begins, before its first stamp, and ends at stamp T1.  A call in flight
 * keeps the rank in its phase, however long it takes; a begin when the
 * rank is out enters (and caps the clock, when it is the node's first)
 * before the call starts.  Otherwise one atomic addition each, no lock. */
PMON_EXTERN void pmon__io_freq_begin(void);
PMON_EXTERN void pmon__io_freq_end(uint64_t t1);

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

/*
 * MPI communication accounting (lib/comm.c), fed by the wrappers of
 * mpiio/comm.c.  Per call (enum pmon_comm_call) and per size bin (bin 0
 * holds calls of no bytes, bin K >= 1 those of 2^(K-1) to 2^K - 1 bytes):
 * calls, bytes and the stamps spent inside; and, for the energy, the
 * stamps inside any call per time slot of the rank (a slot is 1 << SHIFT
 * stamps from BASE; when the last slot is passed the slots are merged in
 * pairs and SHIFT grows).  The node leader turns the slots into joules
 * from the node's history at finalize.
 */
#define PMON_COMM_CALLS(X)                                                 \
  X(SEND, "MPI_Send") X(SSEND, "MPI_Ssend") X(BSEND, "MPI_Bsend")          \
  X(RSEND, "MPI_Rsend") X(RECV, "MPI_Recv") X(SENDRECV, "MPI_Sendrecv")    \
  X(SENDRECV_REPLACE, "MPI_Sendrecv_replace") X(ISEND, "MPI_Isend")        \
  X(ISSEND, "MPI_Issend") X(IBSEND, "MPI_Ibsend") X(IRSEND, "MPI_Irsend")  \
  X(IRECV, "MPI_Irecv") X(WAIT, "MPI_Wait") X(WAITALL, "MPI_Waitall")      \
  X(WAITANY, "MPI_Waitany") X(WAITSOME, "MPI_Waitsome") X(TEST, "MPI_Test")\
  X(TESTALL, "MPI_Testall") X(TESTANY, "MPI_Testany")                      \
  X(TESTSOME, "MPI_Testsome") X(BARRIER, "MPI_Barrier")                    \
  X(BCAST, "MPI_Bcast") X(REDUCE, "MPI_Reduce")                            \
  X(ALLREDUCE, "MPI_Allreduce") X(GATHER, "MPI_Gather")                    \
  X(GATHERV, "MPI_Gatherv") X(SCATTER, "MPI_Scatter")                      \
  X(SCATTERV, "MPI_Scatterv") X(ALLGATHER, "MPI_Allgather")                \
  X(ALLGATHERV, "MPI_Allgatherv") X(ALLTOALL, "MPI_Alltoall")              \
  X(ALLTOALLV, "MPI_Alltoallv") X(ALLTOALLW, "MPI_Alltoallw")              \
  X(REDUCE_SCATTER, "MPI_Reduce_scatter")                                  \
  X(REDUCE_SCATTER_BLOCK, "MPI_Reduce_scatter_block") X(SCAN, "MPI_Scan")  \
  X(EXSCAN, "MPI_Exscan") X(IBARRIER, "MPI_Ibarrier")                      \
  X(IBCAST, "MPI_Ibcast") X(IREDUCE, "MPI_Ireduce")                        \
  X(IALLREDUCE, "MPI_Iallreduce") X(IGATHER, "MPI_Igather")                \
  X(IGATHERV, "MPI_Igatherv") X(ISCATTER, "MPI_Iscatter")                  \
  X(ISCATTERV, "MPI_Iscatterv") X(IALLGATHER, "MPI_Iallgather")            \
  X(IALLGATHERV, "MPI_Iallgatherv") X(IALLTOALL, "MPI_Ialltoall")          \
  X(IALLTOALLV, "MPI_Ialltoallv") X(IALLTOALLW, "MPI_Ialltoallw")          \
  X(IREDUCE_SCATTER, "MPI_Ireduce_scatter")                                \
  X(IREDUCE_SCATTER_BLOCK, "MPI_Ireduce_scatter_block")                    \
  X(ISCAN, "MPI_Iscan") X(IEXSCAN, "MPI_Iexscan")

enum pmon_comm_call {
#define PMON_COMM_ENUM(id, name) PMON_COMM_##id,
  PMON_COMM_CALLS(PMON_COMM_ENUM)
#undef PMON_COMM_ENUM
  PMON_COMM_NCALLS
};

#define PMON_COMM_SLOTS 4096 /* time slots of a rank */

/*
 * What the wrappers update in place.  ON (read atomically) is the clock of
 * the stamps (enum pmon_io_clock) while calls are counted, PMON_IO_OFF
 * otherwise; it is cleared before anything is collected or freed.  When
 * MULTIPLE is set (MPI_THREAD_MULTIPLE) the wrappers call
 * pmon__comm_call() instead, which takes a lock; otherwise MPI's rules
 * serialise the calls and the wrappers add in place.
 */
struct pmon__comm_hot {
  int on;
  int multiple;
  unsigned shift;               /* a slot is 1 << SHIFT stamps */
  uint64_t base;                /* the stamp where slot 0 begins */
  uint64_t *slot;               /* PMON_COMM_SLOTS stamps inside calls */
  struct pmon__comm_row *row;   /* [PMON_COMM_NCALLS][PMON_COMM_BINS] */
} __attribute__((aligned(64)));

extern PMON_EXTERN struct pmon__comm_hot pmon__comm_hot;

/* Start counting, after pmon__io_start() gave CLOCK (PMON_IO_OFF: choose
 * one here); MULTIPLE as there.  PMON_COMM=0, or no memory, leaves it
 * off.  Returns the clock, or PMON_IO_OFF. */
PMON_EXTERN int pmon__comm_start(int multiple, int clock);

/* Under MPI_THREAD_MULTIPLE (MULTIPLE), a call begins at stamp T0: the
 * time its rank is inside calls is the union of its threads' calls. */
PMON_EXTERN void pmon__comm_begin(uint64_t t0);

/* A call of CALL that moved BYTES, from stamp T0 to T1: the slow path
 * (MPI_THREAD_MULTIPLE, or a call that leaves its slot). */
PMON_EXTERN void pmon__comm_call(int call, uint64_t bytes, uint64_t t0,
                                 uint64_t t1);

/* *P += N, for a row's calls and bytes: only the rank's calls write them
 * (one at a time: MPI's rules, or comm's lock), and while the spool or
 * the metrics are on they lie in the node-shared segment, where the
 * leader's writer reads them at any time (pmon__comm_so_far()).  A
 * relaxed store is a plain one on the machines pmon runs on. */
static inline void pmon__comm_add(uint64_t *p, uint64_t n)
{
  __atomic_store_n(p, *p + n, __ATOMIC_RELAXED);
}

/* Add the stamps of a call from T0 to T1 to the slots, without a lock:
 * the wrappers' fast path, when the call starts and ends in one slot. */
static inline void pmon__comm_fast(int call, uint64_t bytes, uint64_t t0,
                                   uint64_t t1)
{
  struct pmon__comm_hot *h = &pmon__comm_hot;
  struct pmon__comm_row *r;
  uint64_t s0, s1;

  if (h->multiple || t0 < h->base || t1 < t0) {
    pmon__comm_call(call, bytes, t0, t1);
    return;
  }
  s0 = (t0 - h->base) >> h->shift;
  s1 = (t1 - h->base) >> h->shift;
  if (s0 != s1 || s1 >= PMON_COMM_SLOTS) {
    pmon__comm_call(call, bytes, t0, t1);
    return;
  }
  r = &h->row[call * PMON_COMM_BINS + pmon__comm_bin(bytes)];
  pmon__comm_add(&r->calls, 1);
  pmon__comm_add(&r->bytes, bytes);
  r->ticks += t1 - t0;
  h->slot[s0] += t1 - t0;
}

#endif /* PMON_PRELOAD_H */
