/*
 * file.c - the MPI_File_* wrappers of libpmon-mpiio.so.
 *
 * Every MPI-IO call that opens, closes, deletes, syncs, resizes, reads or
 * writes is wrapped: blocking and non-blocking, collective, split
 * collective, explicit offset, individual and shared file pointers, and the
 * MPI-4 large-count "_c" forms where mpi.h has them.  A wrapper
 *
 *   - answers to the MPI_ and the PMPI_ name (Open MPI's Fortran bindings
 *     call only PMPI_ symbols) and reaches the real function through
 *     dlsym(RTLD_NEXT, "PMPI_...");
 *   - returns what the real call returned, and passes its arguments on
 *     untouched: statuses and requests are the program's;
 *   - on the hot path takes two time stamps and counts the call, with
 *     its bytes (count x type size, only when the call succeeded): in
 *     place on the fast path of preload.h, else through lib/io.c; no
 *     meter is read and nothing is allocated;
 *   - counts a call made from inside another wrapped call (an MPI library
 *     or an I/O library built on its own MPI_File calls) only once: the
 *     outer one.
 *
 * A non-blocking call counts its bytes when it is posted, a split
 * collective at its _begin; its request is kept, and the time of the
 * Wait or Test that completes it is I/O time (comm.c).
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "preload.h"
#include "mpiio.h"

/* Calls of this thread inside a wrapper (mpiio.h). */
#define depth pmon__mpiio_depth

/* MPI-IO requests in flight (mpiio.h): open addressing on the handle,
 * under a lock; PMON_MPIIO_REQS counts them for the fast answer. */
static struct {
  pthread_mutex_t lock;
  uintptr_t rq[PMON_MPIIO_REQS], fh[PMON_MPIIO_REQS]; /* rq 0: empty */
} reqs = {.lock = PTHREAD_MUTEX_INITIALIZER};
int pmon__mpiio_reqs;

static uintptr_t req_key(const MPI_Request *rq)
{
  uintptr_t k = 0;

  _Static_assert(sizeof *rq <= sizeof k, "MPI_Request wider than a pointer");
  memcpy(&k, rq, sizeof *rq);
  return k;
}

/* The slot of K, or of the empty one where it would go (-1: full). */
static int req_slot(uintptr_t k)
{
  unsigned h = (unsigned)((k * 0x9e3779b97f4a7c15u) >> 40) % PMON_MPIIO_REQS;

  for (int i = 0; i < PMON_MPIIO_REQS; i++) {
    unsigned j = (h + (unsigned)i) % PMON_MPIIO_REQS;

    if (reqs.rq[j] == k || reqs.rq[j] == 0)
      return (int)j;
  }
  return -1;
}

void pmon__mpiio_req_add(const MPI_Request *rq, uintptr_t fh)
{
  uintptr_t k;
  int i;

  if (rq == NULL || *rq == MPI_REQUEST_NULL || (k = req_key(rq)) == 0)
    return;
  pthread_mutex_lock(&reqs.lock);
  if ((i = req_slot(k)) >= 0) {
    if (reqs.rq[i] == 0)
      __atomic_add_fetch(&pmon__mpiio_reqs, 1, __ATOMIC_RELAXED);
    reqs.rq[i] = k;
    reqs.fh[i] = fh != 0 ? fh : 1;
  }
  pthread_mutex_unlock(&reqs.lock);
}

uintptr_t pmon__mpiio_req_file(const MPI_Request *rq)
{
  uintptr_t k, fh = 0;
  int i;

  if (rq == NULL || *rq == MPI_REQUEST_NULL || (k = req_key(rq)) == 0)
    return 0;
  pthread_mutex_lock(&reqs.lock);
  if ((i = req_slot(k)) >= 0 && reqs.rq[i] == k)
    fh = reqs.fh[i];
  pthread_mutex_unlock(&reqs.lock);
  return fh;
}

void pmon__mpiio_req_done(const MPI_Request *rq)
{
  uintptr_t k = rq != NULL ? req_key(rq) : 0;
  int i, j;

  if (k == 0)
    return;
  pthread_mutex_lock(&reqs.lock);
  if ((i = req_slot(k)) >= 0 && reqs.rq[i] == k) {
    /* Backward-shift deletion: the chain after the hole moves up. */
    reqs.rq[i] = 0;
    __atomic_sub_fetch(&pmon__mpiio_reqs, 1, __ATOMIC_RELAXED);
    for (j = (i + 1) % PMON_MPIIO_REQS; reqs.rq[j] != 0;
         j = (j + 1) % PMON_MPIIO_REQS) {
      uintptr_t kk = reqs.rq[j], ff = reqs.fh[j];
      int s;

      reqs.rq[j] = 0;
      s = req_slot(kk);
      reqs.rq[s] = kk;
      reqs.fh[s] = ff;
    }
  }
  pthread_mutex_unlock(&reqs.lock);
}

/* The clock, or PMON_IO_OFF when calls are not counted. */
static inline int clk(void)
{
  return __atomic_load_n(&pmon__mpiio_clock, __ATOMIC_RELAXED);
}

static inline uintptr_t key(MPI_File fh)
{
  uintptr_t k = 0;

  _Static_assert(sizeof fh <= sizeof k, "MPI_File wider than a pointer");
  memcpy(&k, &fh, sizeof fh);
  return k;
}

/* The size of the predefined datatype used last.  A predefined (named)
 * type never changes size, where a derived type's handle may be freed and
 * given to another type.  Used only on the fast path, when MPI serialises
 * the calls. */
static struct {
  MPI_Datatype dt;
  uint64_t size;
  int valid;
} named;

/* COUNT elements of DT in bytes, saturated; called only after the real
 * call succeeded, when DT is known to be valid. */
static uint64_t nbytes(MPI_Count count, MPI_Datatype dt)
{
  MPI_Count size = 0;
  int ni, na, nd, comb;
  uint64_t b;

  if (count <= 0 || PMPI_Type_size_x(dt, &size) != MPI_SUCCESS || size <= 0)
    return 0;
  if (__atomic_load_n(&pmon__io_hot.fast, __ATOMIC_ACQUIRE) &&
      PMPI_Type_get_envelope(dt, &ni, &na, &nd, &comb) == MPI_SUCCESS &&
      comb == MPI_COMBINER_NAMED) {
    named.dt = dt;
    named.size = (uint64_t)size;
    named.valid = 1;
  }
  if (__builtin_mul_overflow((uint64_t)count, (uint64_t)size, &b))
    return UINT64_MAX;
  return b;
}

/* A data call of B bytes that took DT stamps, into its size bin. */
static inline void sized(struct pmon__comm_row *r, uint64_t b, uint64_t dt)
{
  r->calls++;
  r->bytes += b;
  r->ticks += dt;
  r->ticks2 += (double)dt * (double)dt;
}

/*
 * Count a call of KIND on handle H that returned RC after moving COUNT
 * elements of DT, from stamp T0 to T1.  The fast path (see preload.h)
 * when the call succeeded on the handle and in the phase of the last one,
 * with no data or data of a known predefined type; lib/io.c otherwise.
 */
static inline __attribute__((always_inline)) void
counted(uintptr_t h, int kind, MPI_Count count,
                           MPI_Datatype dt, int rc, uint64_t t0, uint64_t t1)
{
  struct pmon__io_hot *hot = &pmon__io_hot;
  struct pmon__io_counts *c;
  uint64_t b = 0;

  if (rc == MPI_SUCCESS && __atomic_load_n(&hot->fast, __ATOMIC_ACQUIRE) &&
      (c = hot->c) != NULL && h == hot->h && hot->have &&
      !__atomic_load_n(&hot->freq_out, __ATOMIC_RELAXED) &&
      t0 >= hot->cur0 && t0 <= hot->cur1 + hot->gap_t && t1 >= t0 &&
      t1 < hot->pub_t &&
      (count == 0 || (count > 0 && named.valid && dt == named.dt &&
                      !__builtin_mul_overflow((uint64_t)count, named.size,
                                              &b)))) {
    switch (kind) {
    case PMON_IO_READ:
      c->reads++;
      c->bytes_read += b;
      sized(&hot->sizes[pmon__comm_bin(b)], b, t1 - t0);
      break;
    case PMON_IO_WRITE:
      c->writes++;
      c->bytes_written += b;
      sized(&hot->sizes[PMON_COMM_BINS + pmon__comm_bin(b)], b, t1 - t0);
      break;
    case PMON_IO_META:
      c->meta++;
      break;
    default:
      break;
    }
    c->ticks += t1 - t0;
    hot->cur_bytes += b;
    if (t1 > hot->cur1)
      hot->cur1 = t1;
    return;
  }
  pmon__io_call(h, kind, rc == MPI_SUCCESS ? nbytes(count, dt) : 0, t0, t1,
                rc == MPI_SUCCESS);
}

#define REAL(T, NAME) PMON_REAL(T, NAME)

/* PMON_IO_FREQ: a call starts (the rank enters its phase, the clock
 * capped, before the call when it was out) and ends (preload.h). */
static inline void freq_begin(void)
{
  if (__atomic_load_n(&pmon__io_hot.freq_on, __ATOMIC_RELAXED))
    pmon__io_freq_begin();
}

static inline void freq_end(uint64_t t1)
{
  if (__atomic_load_n(&pmon__io_hot.freq_on, __ATOMIC_RELAXED))
    pmon__io_freq_end(t1);
}

/* A call that moves COUNT elements of DT (KIND READ or WRITE), or none
 * (KIND END: the _end of a split collective; or META).  POSTED runs after
 * the real call, before it is counted. */
#define WRAP_AS(NAME, KIND, PARAMS, ARGS, COUNT, DT, POSTED)               \
  typedef int real_##NAME PARAMS;                                          \
  PMON_WRAPPER int NAME PARAMS                                             \
  {                                                                        \
    uint64_t t0, t1;                                                       \
    int rc, c = clk();                                                     \
    REAL(real_##NAME, NAME)                                                \
    if (depth > 0 || c == PMON_IO_OFF)                                     \
      return f ARGS;                                                       \
    depth++;                                                               \
    freq_begin();                                                          \
    t0 = pmon__io_stamp(c);                                                \
    rc = f ARGS;                                                           \
    t1 = pmon__io_stamp(c);                                                \
    freq_end(t1);                                                          \
    POSTED                                                                 \
    counted(key(fh), KIND, COUNT, DT, rc, t0, t1);                         \
    depth--;                                                               \
    return rc;                                                             \
  }                                                                        \
  PMON_WRAPPER int P##NAME PARAMS __attribute__((alias(#NAME)));

#define WRAP(NAME, KIND, PARAMS, ARGS, COUNT, DT)                          \
  WRAP_AS(NAME, KIND, PARAMS, ARGS, COUNT, DT, )

/* A non-blocking call: its request is kept until the Wait or Test that
 * completes it, which then counts as I/O (comm.c). */
#define WRAPI(NAME, KIND, PARAMS, ARGS, COUNT, DT)                         \
  WRAP_AS(NAME, KIND, PARAMS, ARGS, COUNT, DT,                             \
          if (rc == MPI_SUCCESS) pmon__mpiio_req_add(rq, key(fh));)

/* The shapes of the data calls.  B is the buffer's type, N the count's. */
#define RW(B, N) (MPI_File fh, B buf, N count, MPI_Datatype dt, MPI_Status *st)
#define RW_A (fh, buf, count, dt, st)
#define RWAT(B, N)                                                         \
  (MPI_File fh, MPI_Offset off, B buf, N count, MPI_Datatype dt,           \
   MPI_Status *st)
#define RWAT_A (fh, off, buf, count, dt, st)
#define IRW(B, N)                                                          \
  (MPI_File fh, B buf, N count, MPI_Datatype dt, MPI_Request *rq)
#define IRW_A (fh, buf, count, dt, rq)
#define IAT(B, N)                                                          \
  (MPI_File fh, MPI_Offset off, B buf, N count, MPI_Datatype dt,           \
   MPI_Request *rq)
#define IAT_A (fh, off, buf, count, dt, rq)
#define BEGIN(B, N) (MPI_File fh, B buf, N count, MPI_Datatype dt)
#define BEGIN_A (fh, buf, count, dt)
#define BEGINAT(B, N)                                                      \
  (MPI_File fh, MPI_Offset off, B buf, N count, MPI_Datatype dt)
#define BEGINAT_A (fh, off, buf, count, dt)
#define END(B) (MPI_File fh, B buf, MPI_Status *st)
#define END_A (fh, buf, st)

#define RD PMON_IO_READ
#define WR PMON_IO_WRITE
#define RB void *
#define WB const void *

/* Each read and write family, in COUNT type N; NAMES get SUFFIX (_c). */
#define FAMILIES(N, S)                                                     \
  WRAP(MPI_File_read##S, RD, RW(RB, N), RW_A, count, dt)                    \
  WRAP(MPI_File_write##S, WR, RW(WB, N), RW_A, count, dt)                   \
  WRAP(MPI_File_read_all##S, RD, RW(RB, N), RW_A, count, dt)                \
  WRAP(MPI_File_write_all##S, WR, RW(WB, N), RW_A, count, dt)               \
  WRAP(MPI_File_read_shared##S, RD, RW(RB, N), RW_A, count, dt)             \
  WRAP(MPI_File_write_shared##S, WR, RW(WB, N), RW_A, count, dt)            \
  WRAP(MPI_File_read_ordered##S, RD, RW(RB, N), RW_A, count, dt)            \
  WRAP(MPI_File_write_ordered##S, WR, RW(WB, N), RW_A, count, dt)           \
  WRAP(MPI_File_read_at##S, RD, RWAT(RB, N), RWAT_A, count, dt)             \
  WRAP(MPI_File_write_at##S, WR, RWAT(WB, N), RWAT_A, count, dt)            \
  WRAP(MPI_File_read_at_all##S, RD, RWAT(RB, N), RWAT_A, count, dt)         \
  WRAP(MPI_File_write_at_all##S, WR, RWAT(WB, N), RWAT_A, count, dt)        \
  WRAPI(MPI_File_iread##S, RD, IRW(RB, N), IRW_A, count, dt)                     \
  WRAPI(MPI_File_iwrite##S, WR, IRW(WB, N), IRW_A, count, dt)                    \
  WRAPI(MPI_File_iread_all##S, RD, IRW(RB, N), IRW_A, count, dt)                 \
  WRAPI(MPI_File_iwrite_all##S, WR, IRW(WB, N), IRW_A, count, dt)                \
  WRAPI(MPI_File_iread_shared##S, RD, IRW(RB, N), IRW_A, count, dt)              \
  WRAPI(MPI_File_iwrite_shared##S, WR, IRW(WB, N), IRW_A, count, dt)             \
  WRAPI(MPI_File_iread_at##S, RD, IAT(RB, N), IAT_A, count, dt)              \
  WRAPI(MPI_File_iwrite_at##S, WR, IAT(WB, N), IAT_A, count, dt)             \
  WRAPI(MPI_File_iread_at_all##S, RD, IAT(RB, N), IAT_A, count, dt)          \
  WRAPI(MPI_File_iwrite_at_all##S, WR, IAT(WB, N), IAT_A, count, dt)         \
  WRAP(MPI_File_read_all_begin##S, RD, BEGIN(RB, N), BEGIN_A, count, dt)    \
  WRAP(MPI_File_write_all_begin##S, WR, BEGIN(WB, N), BEGIN_A, count, dt)   \
  WRAP(MPI_File_read_ordered_begin##S, RD, BEGIN(RB, N), BEGIN_A, count,    \
       dt)                                                                 \
  WRAP(MPI_File_write_ordered_begin##S, WR, BEGIN(WB, N), BEGIN_A, count,   \
       dt)                                                                 \
  WRAP(MPI_File_read_at_all_begin##S, RD, BEGINAT(RB, N), BEGINAT_A, count, \
       dt)                                                                 \
  WRAP(MPI_File_write_at_all_begin##S, WR, BEGINAT(WB, N), BEGINAT_A,       \
       count, dt)

FAMILIES(int, )
#ifdef HAVE_MPI_FILE_READ_C
FAMILIES(MPI_Count, _c)
#endif

/* The _end halves: time only, the bytes were counted at _begin. */
WRAP(MPI_File_read_all_end, PMON_IO_END, END(RB), END_A, 0, MPI_BYTE)
WRAP(MPI_File_write_all_end, PMON_IO_END, END(WB), END_A, 0, MPI_BYTE)
WRAP(MPI_File_read_ordered_end, PMON_IO_END, END(RB), END_A, 0, MPI_BYTE)
WRAP(MPI_File_write_ordered_end, PMON_IO_END, END(WB), END_A, 0, MPI_BYTE)
WRAP(MPI_File_read_at_all_end, PMON_IO_END, END(RB), END_A, 0, MPI_BYTE)
WRAP(MPI_File_write_at_all_end, PMON_IO_END, END(WB), END_A, 0, MPI_BYTE)

/* Sync and resize: meta calls on an open file. */
WRAP(MPI_File_sync, PMON_IO_META, (MPI_File fh), (fh), 0, MPI_BYTE)
WRAP(MPI_File_set_size, PMON_IO_META, (MPI_File fh, MPI_Offset size),
     (fh, size), 0, MPI_BYTE)
WRAP(MPI_File_preallocate, PMON_IO_META, (MPI_File fh, MPI_Offset size),
     (fh, size), 0, MPI_BYTE)

typedef int real_open(MPI_Comm, const char *, int, MPI_Info, MPI_File *);
typedef int real_close(MPI_File *);
typedef int real_delete(const char *, MPI_Info);

PMON_WRAPPER
int MPI_File_open(MPI_Comm comm, const char *name, int amode, MPI_Info info,
                  MPI_File *fh)
{
  uint64_t t0, t1;
  int rc, c = clk();
  REAL(real_open, MPI_File_open)

  if (depth > 0 || c == PMON_IO_OFF)
    return f(comm, name, amode, info, fh);
  depth++;
  freq_begin();
  t0 = pmon__io_stamp(c);
  rc = f(comm, name, amode, info, fh);
  t1 = pmon__io_stamp(c);
  freq_end(t1);
  pmon__io_open(rc == MPI_SUCCESS ? key(*fh) : 0, name, t0, t1,
                rc == MPI_SUCCESS);
  depth--;
  return rc;
}

PMON_WRAPPER int MPI_File_close(MPI_File *fh)
{
  uint64_t t0, t1;
  uintptr_t h;
  int rc, c = clk();
  REAL(real_close, MPI_File_close)

  if (depth > 0 || c == PMON_IO_OFF || fh == NULL)
    return f(fh);
  depth++;
  h = key(*fh); /* the call sets *fh to MPI_FILE_NULL */
  freq_begin();
  t0 = pmon__io_stamp(c);
  rc = f(fh);
  t1 = pmon__io_stamp(c);
  freq_end(t1);
  pmon__io_close(h, t0, t1, rc == MPI_SUCCESS);
  depth--;
  return rc;
}

PMON_WRAPPER int MPI_File_delete(const char *name, MPI_Info info)
{
  uint64_t t0, t1;
  int rc, c = clk();
  REAL(real_delete, MPI_File_delete)

  if (depth > 0 || c == PMON_IO_OFF)
    return f(name, info);
  depth++;
  freq_begin();
  t0 = pmon__io_stamp(c);
  rc = f(name, info);
  t1 = pmon__io_stamp(c);
  freq_end(t1);
  pmon__io_open(0, name, t0, t1, rc == MPI_SUCCESS);
  depth--;
  return rc;
}

PMON_WRAPPER
int PMPI_File_open(MPI_Comm comm, const char *name, int amode, MPI_Info info,
                   MPI_File *fh) __attribute__((alias("MPI_File_open")));
PMON_WRAPPER
int PMPI_File_close(MPI_File *fh) __attribute__((alias("MPI_File_close")));
PMON_WRAPPER int PMPI_File_delete(const char *name, MPI_Info info)
  __attribute__((alias("MPI_File_delete")));
