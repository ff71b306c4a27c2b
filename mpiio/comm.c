/*
 * comm.c - the communication wrappers of libpmon-mpiio.so.
 *
 * Point-to-point calls (blocking and non-blocking), the Wait and Test
 * calls that complete requests, and the collectives (blocking and
 * non-blocking), in their MPI-4 large-count "_c" forms too where mpi.h
 * has them.  A wrapper, as those of file.c,
 *
 *   - answers to the MPI_ and the PMPI_ name and reaches the real function
 *     through dlsym(RTLD_NEXT, "PMPI_...");
 *   - returns what the real call returned and passes its arguments on
 *     untouched, with one exception that the program cannot see: a
 *     receive given MPI_STATUS_IGNORE gets a status of the wrapper's, from
 *     which the received size is read;
 *   - takes two stamps around the real call and counts it under its call
 *     and the size bin of its bytes (lib/comm.c), in place unless the
 *     program runs MPI_THREAD_MULTIPLE;
 *   - counts nothing inside another wrapped call (an MPI-IO call that
 *     communicates is I/O), nor pmon's own traffic: counting starts after
 *     pmon's initialisation and stops before its finalisation.
 *
 * The bytes of a call are those that pass through this rank's buffers
 * (pmon-mpiio(7) has the table): a send its message, a receive what
 * arrived (MPI_Irecv: the buffer's size, as nothing has arrived yet), a
 * collective what this rank sends plus what it receives.  Only a call that
 * succeeded counts bytes.  A non-blocking call counts its bytes when it is
 * posted; the time of the Wait or Test that completes it is counted under
 * that Wait or Test, or as I/O when it is given an MPI-IO request.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include <mpi.h>

#include "preload.h"
#include "mpiio.h"

/* The clock, or PMON_IO_OFF when calls are not counted. */
static inline int clk(void)
{
  return __atomic_load_n(&pmon__comm_hot.on, __ATOMIC_RELAXED);
}

/* A + B, saturated. */
static inline uint64_t add(uint64_t a, uint64_t b)
{
  return a + b >= a ? a + b : UINT64_MAX;
}

/* N elements of DT in bytes, saturated; 0 for a type MPI refuses. */
static inline uint64_t tb(MPI_Count n, MPI_Datatype dt)
{
  MPI_Count size = 0;
  uint64_t b;

  if (n <= 0 || PMPI_Type_size_x(dt, &size) != MPI_SUCCESS || size <= 0)
    return 0;
  if (__builtin_mul_overflow((uint64_t)n, (uint64_t)size, &b))
    return UINT64_MAX;
  return b;
}

/* The bytes a receive got, from its status. */
static inline uint64_t got(const MPI_Status *st)
{
  MPI_Count n = 0;

  if (PMPI_Get_elements_x(st, MPI_BYTE, &n) != MPI_SUCCESS ||
      n == MPI_UNDEFINED || n < 0)
    return 0;
  return (uint64_t)n;
}

/* The processes a collective on COMM exchanges with: its size, or the
 * remote group's for an intercommunicator. */
static int peers(MPI_Comm comm)
{
  int inter = 0, n = 0;

  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
    return 0;
  if (inter ? PMPI_Comm_remote_size(comm, &n) : PMPI_Comm_size(comm, &n))
    return 0;
  return n;
}

static int me(MPI_Comm comm)
{
  int r = -1;

  return PMPI_Comm_rank(comm, &r) == MPI_SUCCESS ? r : -1;
}

/* The sum of N counts of COUNTS, each of DT; one of the two count types. */
static uint64_t sum_i(const int *counts, int n, MPI_Datatype dt)
{
  uint64_t s = 0;

  for (int i = 0; counts != NULL && i < n; i++)
    s = add(s, tb(counts[i], dt));
  return s;
}

static uint64_t sum_c(const MPI_Count *counts, int n, MPI_Datatype dt)
{
  uint64_t s = 0;

  for (int i = 0; counts != NULL && i < n; i++)
    s = add(s, tb(counts[i], dt));
  return s;
}

#define SUM(counts, n, dt)                                                 \
  _Generic((counts), const int *: sum_i, int *: sum_i,                     \
           const MPI_Count *: sum_c, MPI_Count *: sum_c)(counts, n, dt)

/* Alltoallw's counts, each of its own type. */
static uint64_t sum_w(const void *counts, int big, int n,
                      const MPI_Datatype *dts)
{
  uint64_t s = 0;

  for (int i = 0; counts != NULL && dts != NULL && i < n; i++)
    s = add(s, tb(big ? ((const MPI_Count *)counts)[i]
                      : ((const int *)counts)[i], dts[i]));
  return s;
}

/* Count a call of CALL that returned RC after moving BYTES. */
#define COUNTED(CALL, RC, BYTES, T0, T1)                                   \
  pmon__comm_fast(PMON_COMM_##CALL, (RC) == MPI_SUCCESS ? (BYTES) : 0,     \
                  T0, T1)

/* A wrapper of NAME, counted as CALL with BYTES (an expression of the
 * arguments, evaluated after the real call). */
#define WRAP(NAME, CALL, PARAMS, ARGS, BYTES)                              \
  typedef int real_##NAME PARAMS;                                          \
  PMON_WRAPPER int NAME PARAMS                                             \
  {                                                                        \
    uint64_t t0, t1;                                                       \
    int rc, c = clk();                                                     \
    PMON_REAL(real_##NAME, NAME)                                           \
    if (pmon__mpiio_depth > 0 || c == PMON_IO_OFF)                         \
      return f ARGS;                                                       \
    pmon__mpiio_depth++;                                                   \
    t0 = pmon__io_stamp(c);                                                \
    if (pmon__comm_hot.multiple)                                           \
      pmon__comm_begin(t0);                                                \
    rc = f ARGS;                                                           \
    t1 = pmon__io_stamp(c);                                                \
    COUNTED(CALL, rc, BYTES, t0, t1);                                      \
    pmon__mpiio_depth--;                                                   \
    return rc;                                                             \
  }                                                                        \
  PMON_WRAPPER int P##NAME PARAMS __attribute__((alias(#NAME)));

/* A receive that reads what arrived from its status, the program's or,
 * for MPI_STATUS_IGNORE, one of its own.  ST names the status parameter;
 * BYTES may use "sp", the status to read. */
#define WRAP_RECV(NAME, CALL, PARAMS, ARGS, ARGS_SP, BYTES)                \
  typedef int real_##NAME PARAMS;                                          \
  PMON_WRAPPER int NAME PARAMS                                             \
  {                                                                        \
    uint64_t t0, t1;                                                       \
    int rc, c = clk();                                                     \
    MPI_Status own, *sp;                                                   \
    PMON_REAL(real_##NAME, NAME)                                           \
    if (pmon__mpiio_depth > 0 || c == PMON_IO_OFF)                         \
      return f ARGS;                                                       \
    pmon__mpiio_depth++;                                                   \
    sp = st == MPI_STATUS_IGNORE ? &own : st;                              \
    t0 = pmon__io_stamp(c);                                                \
    if (pmon__comm_hot.multiple)                                           \
      pmon__comm_begin(t0);                                                \
    rc = f ARGS_SP;                                                        \
    t1 = pmon__io_stamp(c);                                                \
    COUNTED(CALL, rc, BYTES, t0, t1);                                      \
    pmon__mpiio_depth--;                                                   \
    return rc;                                                             \
  }                                                                        \
  PMON_WRAPPER int P##NAME PARAMS __attribute__((alias(#NAME)));

#define SB const void *
#define RB void *

/* Point-to-point, in count type N with suffix S. */
#define SEND(N) (SB buf, N count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
#define SEND_A (buf, count, dt, dest, tag, comm)
#define ISEND(N)                                                           \
  (SB buf, N count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,     \
   MPI_Request *rq)
#define ISEND_A (buf, count, dt, dest, tag, comm, rq)
#define RECV(N)                                                            \
  (RB buf, N count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,      \
   MPI_Status *st)
#define RECV_A (buf, count, dt, src, tag, comm, st)
#define RECV_SP (buf, count, dt, src, tag, comm, sp)
#define IRECV(N)                                                           \
  (RB buf, N count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,      \
   MPI_Request *rq)
#define IRECV_A (buf, count, dt, src, tag, comm, rq)
#define SENDRECV(N)                                                        \
  (SB sbuf, N scount, MPI_Datatype sdt, int dest, int stag, RB rbuf,       \
   N rcount, MPI_Datatype rdt, int src, int rtag, MPI_Comm comm,           \
   MPI_Status *st)
#define SENDRECV_A                                                         \
  (sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, src, rtag, comm, st)
#define SENDRECV_SP                                                        \
  (sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, src, rtag, comm, sp)
#define REPLACE(N)                                                         \
  (RB buf, N count, MPI_Datatype dt, int dest, int stag, int src,          \
   int rtag, MPI_Comm comm, MPI_Status *st)
#define REPLACE_A (buf, count, dt, dest, stag, src, rtag, comm, st)
#define REPLACE_SP (buf, count, dt, dest, stag, src, rtag, comm, sp)

#define P2P(N, S)                                                          \
  WRAP(MPI_Send##S, SEND, SEND(N), SEND_A, tb(count, dt))                  \
  WRAP(MPI_Ssend##S, SSEND, SEND(N), SEND_A, tb(count, dt))                \
  WRAP(MPI_Bsend##S, BSEND, SEND(N), SEND_A, tb(count, dt))                \
  WRAP(MPI_Rsend##S, RSEND, SEND(N), SEND_A, tb(count, dt))                \
  WRAP(MPI_Isend##S, ISEND, ISEND(N), ISEND_A, tb(count, dt))              \
  WRAP(MPI_Issend##S, ISSEND, ISEND(N), ISEND_A, tb(count, dt))            \
  WRAP(MPI_Ibsend##S, IBSEND, ISEND(N), ISEND_A, tb(count, dt))            \
  WRAP(MPI_Irsend##S, IRSEND, ISEND(N), ISEND_A, tb(count, dt))            \
  WRAP(MPI_Irecv##S, IRECV, IRECV(N), IRECV_A, tb(count, dt))              \
  WRAP_RECV(MPI_Recv##S, RECV, RECV(N), RECV_A, RECV_SP, got(sp))          \
  WRAP_RECV(MPI_Sendrecv##S, SENDRECV, SENDRECV(N), SENDRECV_A,            \
            SENDRECV_SP, add(tb(scount, sdt), got(sp)))                    \
  WRAP_RECV(MPI_Sendrecv_replace##S, SENDRECV_REPLACE, REPLACE(N),         \
            REPLACE_A, REPLACE_SP, add(tb(count, dt), got(sp)))

P2P(int, )
#ifdef HAVE_MPI_SEND_C
P2P(MPI_Count, _c)
#endif

/* Completion: time only, the bytes were counted when the call was posted.
 * A Wait or Test given an MPI-IO request (file.c keeps them) is I/O: an
 * MPI-IO call that communicates is I/O, and the I/O of a non-blocking
 * call may progress inside it (ompio's does).  Its time goes to the file
 * of the first such request, on the clock of the I/O stamps, with
 * PMON_IO_FREQ's count of calls in flight; the requests it completes are
 * forgotten.  At most IO_MAX of one call's requests are followed. */
#define IO_MAX 64

/* The MPI-IO requests among the N of RQ: their handles in IO and indices
 * in IX (K of them), and the file of the first; 0 when none. */
static uintptr_t io_among(const MPI_Request *rq, int n, MPI_Request *io,
                          int *ix, int *k)
{
  uintptr_t fh = 0, f;

  *k = 0;
  if (__atomic_load_n(&pmon__mpiio_reqs, __ATOMIC_RELAXED) == 0)
    return 0;
  for (int i = 0; rq != NULL && i < n; i++)
    if ((f = pmon__mpiio_req_file(&rq[i])) != 0) {
      if (fh == 0)
        fh = f;
      if (*k < IO_MAX) {
        io[*k] = rq[i];
        ix[(*k)++] = i;
      }
    }
  return fh;
}

/* Those of them that the call completed (set to MPI_REQUEST_NULL). */
static void io_forget(const MPI_Request *rq, const MPI_Request *io,
                      const int *ix, int k)
{
  for (int j = 0; j < k; j++)
    if (rq[ix[j]] == MPI_REQUEST_NULL)
      pmon__mpiio_req_done(&io[j]);
}

#define WRAP_DONE(NAME, CALL, PARAMS, ARGS, N, RQ)                         \
  typedef int real_##NAME PARAMS;                                          \
  PMON_WRAPPER int NAME PARAMS                                             \
  {                                                                        \
    uint64_t t0, t1;                                                       \
    int rc, c = clk(), k = 0, ix[IO_MAX];                                  \
    MPI_Request io[IO_MAX];                                                \
    uintptr_t fh;                                                          \
    PMON_REAL(real_##NAME, NAME)                                           \
    if (pmon__mpiio_depth > 0)                                             \
      return f ARGS;                                                       \
    if ((fh = io_among(RQ, N, io, ix, &k)) != 0)                           \
      c = __atomic_load_n(&pmon__mpiio_clock, __ATOMIC_RELAXED);           \
    if (c == PMON_IO_OFF) {                                                \
      rc = f ARGS;                                                         \
      io_forget(RQ, io, ix, k);                                            \
      return rc;                                                           \
    }                                                                      \
    pmon__mpiio_depth++;                                                   \
    if (fh != 0 && pmon__io_hot.freq_on)                                   \
      pmon__io_freq_begin();                                               \
    t0 = pmon__io_stamp(c);                                                \
    if (fh == 0 && pmon__comm_hot.multiple)                                \
      pmon__comm_begin(t0);                                                \
    rc = f ARGS;                                                           \
    t1 = pmon__io_stamp(c);                                                \
    if (fh != 0) {                                                         \
      if (pmon__io_hot.freq_on)                                            \
        pmon__io_freq_end(t1);                                             \
      io_forget(RQ, io, ix, k);                                            \
      pmon__io_call(fh, PMON_IO_END, 0, t0, t1, rc == MPI_SUCCESS);        \
    } else {                                                               \
      COUNTED(CALL, rc, 0, t0, t1);                                        \
    }                                                                      \
    pmon__mpiio_depth--;                                                   \
    return rc;                                                             \
  }                                                                        \
  PMON_WRAPPER int P##NAME PARAMS __attribute__((alias(#NAME)));

WRAP_DONE(MPI_Wait, WAIT, (MPI_Request *rq, MPI_Status *st), (rq, st), 1, rq)
WRAP_DONE(MPI_Waitall, WAITALL, (int n, MPI_Request rq[], MPI_Status st[]),
          (n, rq, st), n, rq)
WRAP_DONE(MPI_Waitany, WAITANY,
          (int n, MPI_Request rq[], int *idx, MPI_Status *st),
          (n, rq, idx, st), n, rq)
WRAP_DONE(MPI_Waitsome, WAITSOME,
          (int n, MPI_Request rq[], int *out, int idx[], MPI_Status st[]),
          (n, rq, out, idx, st), n, rq)
WRAP_DONE(MPI_Test, TEST, (MPI_Request *rq, int *flag, MPI_Status *st),
          (rq, flag, st), 1, rq)
WRAP_DONE(MPI_Testall, TESTALL,
          (int n, MPI_Request rq[], int *flag, MPI_Status st[]),
          (n, rq, flag, st), n, rq)
WRAP_DONE(MPI_Testany, TESTANY,
          (int n, MPI_Request rq[], int *idx, int *flag, MPI_Status *st),
          (n, rq, idx, flag, st), n, rq)
WRAP_DONE(MPI_Testsome, TESTSOME,
          (int n, MPI_Request rq[], int *out, int idx[], MPI_Status st[]),
          (n, rq, out, idx, st), n, rq)

/* A freed request is no longer in flight for pmon (its handle may come
 * back for another call's). */
typedef int real_request_free(MPI_Request *);
PMON_WRAPPER int MPI_Request_free(MPI_Request *rq)
{
  MPI_Request was = rq != NULL ? *rq : MPI_REQUEST_NULL;
  int rc;
  PMON_REAL(real_request_free, MPI_Request_free)

  rc = f(rq);
  if (rc == MPI_SUCCESS && was != MPI_REQUEST_NULL &&
      __atomic_load_n(&pmon__mpiio_reqs, __ATOMIC_RELAXED) != 0)
    pmon__mpiio_req_done(&was);
  return rc;
}
PMON_WRAPPER int PMPI_Request_free(MPI_Request *rq)
  __attribute__((alias("MPI_Request_free")));

/* Collectives: the bytes this rank sends plus those it receives.  A
 * buffer MPI_IN_PLACE counts as the data it stands for; an argument is
 * read only where the standard makes it significant. */
static inline int in_place(const void *p)
{
  return p == MPI_IN_PLACE;
}

/* The part this rank plays in a rooted collective on COMM with ROOT:
 * AS_LEAF, it sends its block to the root (Gather, Reduce) or receives
 * one (Scatter, Bcast); AS_ROOT, it receives the blocks or sends them.  On
 * an intracommunicator the root does both; on an intercommunicator the
 * root's group passes MPI_ROOT (the root) or MPI_PROC_NULL (neither: every
 * argument is insignificant, none is read), the other group the root's
 * rank (leaves). */
enum { AS_LEAF = 1, AS_ROOT = 2 };

static int part(MPI_Comm comm, int root)
{
  int inter = 0;

  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
    return 0;
  if (inter)
    return root == MPI_ROOT ? AS_ROOT : root == MPI_PROC_NULL ? 0 : AS_LEAF;
  return me(comm) == root ? AS_LEAF | AS_ROOT : AS_LEAF;
}

/* The size of COMM's own group (an intercommunicator's local group). */
static int own(MPI_Comm comm)
{
  int n = 0;

  return PMPI_Comm_size(comm, &n) == MPI_SUCCESS ? n : 0;
}

#define AS(P) (part(comm, root) & (P))

#define B_BCAST (part(comm, root) ? tb(count, dt) : 0)
#define B_REDUCE                                                           \
  add(AS(AS_LEAF) ? tb(count, dt) : 0, AS(AS_ROOT) ? tb(count, dt) : 0)
#define B_TWICE add(tb(count, dt), tb(count, dt))
#define B_GATHER                                                           \
  add(AS(AS_LEAF) && !in_place(sbuf) ? tb(scount, sdt) : 0,                \
      AS(AS_ROOT) ? tb((MPI_Count)peers(comm) * rcount, rdt) : 0)
#define B_GATHERV                                                          \
  add(AS(AS_LEAF) && !in_place(sbuf) ? tb(scount, sdt) : 0,                \
      AS(AS_ROOT) ? SUM(rcounts, peers(comm), rdt) : 0)
#define B_SCATTER                                                          \
  add(AS(AS_ROOT) ? tb((MPI_Count)peers(comm) * scount, sdt) : 0,          \
      AS(AS_LEAF) && !in_place(rbuf) ? tb(rcount, rdt) : 0)
#define B_SCATTERV                                                         \
  add(AS(AS_ROOT) ? SUM(scounts, peers(comm), sdt) : 0,                    \
      AS(AS_LEAF) && !in_place(rbuf) ? tb(rcount, rdt) : 0)
#define B_ALLGATHER                                                        \
  add(in_place(sbuf) ? tb(rcount, rdt) : tb(scount, sdt),                  \
      tb((MPI_Count)peers(comm) * rcount, rdt))
#define B_ALLGATHERV                                                       \
  add(in_place(sbuf) ? (me(comm) >= 0 ? tb(rcounts[me(comm)], rdt) : 0)    \
                     : tb(scount, sdt),                                    \
      SUM(rcounts, peers(comm), rdt))
#define B_ALLTOALL                                                         \
  add(tb((MPI_Count)peers(comm) * (in_place(sbuf) ? rcount : scount),      \
         in_place(sbuf) ? rdt : sdt),                                      \
      tb((MPI_Count)peers(comm) * rcount, rdt))
#define B_ALLTOALLV                                                        \
  add(in_place(sbuf) ? SUM(rcounts, peers(comm), rdt)                      \
                     : SUM(scounts, peers(comm), sdt),                     \
      SUM(rcounts, peers(comm), rdt))
#define B_ALLTOALLW(BIG)                                                   \
  add(in_place(sbuf) ? sum_w(rcounts, BIG, peers(comm), rdts)              \
                     : sum_w(scounts, BIG, peers(comm), sdts),             \
      sum_w(rcounts, BIG, peers(comm), rdts))
/* Reduce_scatter's counts are one per rank of the local group, on an
 * intercommunicator too (the groups' totals agree). */
#define B_RSCATTER                                                         \
  add(SUM(rcounts, own(comm), dt),                                         \
      me(comm) >= 0 ? tb(rcounts[me(comm)], dt) : 0)
#define B_RSCATTER_BLOCK                                                   \
  add(tb((MPI_Count)own(comm) * rcount, dt), tb(rcount, dt))

/* The parameter lists, in count type N and displacement type D; R is
 * empty for a blocking call, ", MPI_Request *rq" for a non-blocking one. */
#define P_BCAST(N, R) (RB buf, N count, MPI_Datatype dt, int root, MPI_Comm comm R)
#define A_BCAST(R) (buf, count, dt, root, comm R)
#define P_REDUCE(N, R)                                                     \
  (SB sbuf, RB rbuf, N count, MPI_Datatype dt, MPI_Op op, int root,        \
   MPI_Comm comm R)
#define A_REDUCE(R) (sbuf, rbuf, count, dt, op, root, comm R)
#define P_ALLRED(N, R)                                                     \
  (SB sbuf, RB rbuf, N count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm R)
#define A_ALLRED(R) (sbuf, rbuf, count, dt, op, comm R)
#define P_GATHER(N, R)                                                     \
  (SB sbuf, N scount, MPI_Datatype sdt, RB rbuf, N rcount,                 \
   MPI_Datatype rdt, int root, MPI_Comm comm R)
#define A_GATHER(R) (sbuf, scount, sdt, rbuf, rcount, rdt, root, comm R)
#define P_GATHERV(N, D, R)                                                 \
  (SB sbuf, N scount, MPI_Datatype sdt, RB rbuf, const N rcounts[],        \
   const D displs[], MPI_Datatype rdt, int root, MPI_Comm comm R)
#define A_GATHERV(R)                                                       \
  (sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm R)
#define P_SCATTERV(N, D, R)                                                \
  (SB sbuf, const N scounts[], const D displs[], MPI_Datatype sdt,         \
   RB rbuf, N rcount, MPI_Datatype rdt, int root, MPI_Comm comm R)
#define A_SCATTERV(R)                                                      \
  (sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root, comm R)
#define P_ALLGATHER(N, R)                                                  \
  (SB sbuf, N scount, MPI_Datatype sdt, RB rbuf, N rcount,                 \
   MPI_Datatype rdt, MPI_Comm comm R)
#define A_ALLGATHER(R) (sbuf, scount, sdt, rbuf, rcount, rdt, comm R)
#define P_ALLGATHERV(N, D, R)                                              \
  (SB sbuf, N scount, MPI_Datatype sdt, RB rbuf, const N rcounts[],        \
   const D displs[], MPI_Datatype rdt, MPI_Comm comm R)
#define A_ALLGATHERV(R) (sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm R)
#define P_ALLTOALLV(N, D, R)                                               \
  (SB sbuf, const N scounts[], const D sdispls[], MPI_Datatype sdt,        \
   RB rbuf, const N rcounts[], const D rdispls[], MPI_Datatype rdt,        \
   MPI_Comm comm R)
#define A_ALLTOALLV(R)                                                     \
  (sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm R)
#define P_ALLTOALLW(N, D, R)                                               \
  (SB sbuf, const N scounts[], const D sdispls[],                          \
   const MPI_Datatype sdts[], RB rbuf, const N rcounts[],                  \
   const D rdispls[], const MPI_Datatype rdts[], MPI_Comm comm R)
#define A_ALLTOALLW(R)                                                     \
  (sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls, rdts, comm R)
#define P_RSCATTER(N, R)                                                   \
  (SB sbuf, RB rbuf, const N rcounts[], MPI_Datatype dt, MPI_Op op,        \
   MPI_Comm comm R)
#define A_RSCATTER(R) (sbuf, rbuf, rcounts, dt, op, comm R)
#define P_RSCATTER_BLOCK(N, R)                                             \
  (SB sbuf, RB rbuf, N rcount, MPI_Datatype dt, MPI_Op op, MPI_Comm comm R)
#define A_RSCATTER_BLOCK(R) (sbuf, rbuf, rcount, dt, op, comm R)

#define NB , MPI_Request *rq
#define NB_A , rq
#define NONE
/* Alltoallw's displacements are ints in the classic form (MPI_Aint in the
 * neighbourhood ones and in the _c form). */
#define COLLECTIVES(N, D, WD, BIG, S)                                      \
  WRAP(MPI_Bcast##S, BCAST, P_BCAST(N, NONE), A_BCAST(NONE), B_BCAST)       \
  WRAP(MPI_Ibcast##S, IBCAST, P_BCAST(N, NB), A_BCAST(NB_A), B_BCAST)       \
  WRAP(MPI_Reduce##S, REDUCE, P_REDUCE(N, NONE), A_REDUCE(NONE), B_REDUCE)  \
  WRAP(MPI_Ireduce##S, IREDUCE, P_REDUCE(N, NB), A_REDUCE(NB_A), B_REDUCE)  \
  WRAP(MPI_Allreduce##S, ALLREDUCE, P_ALLRED(N, NONE), A_ALLRED(NONE),      \
       B_TWICE)                                                            \
  WRAP(MPI_Iallreduce##S, IALLREDUCE, P_ALLRED(N, NB), A_ALLRED(NB_A),      \
       B_TWICE)                                                            \
  WRAP(MPI_Scan##S, SCAN, P_ALLRED(N, NONE), A_ALLRED(NONE), B_TWICE)       \
  WRAP(MPI_Iscan##S, ISCAN, P_ALLRED(N, NB), A_ALLRED(NB_A), B_TWICE)       \
  WRAP(MPI_Exscan##S, EXSCAN, P_ALLRED(N, NONE), A_ALLRED(NONE), B_TWICE)   \
  WRAP(MPI_Iexscan##S, IEXSCAN, P_ALLRED(N, NB), A_ALLRED(NB_A), B_TWICE)   \
  WRAP(MPI_Gather##S, GATHER, P_GATHER(N, NONE), A_GATHER(NONE), B_GATHER)  \
  WRAP(MPI_Igather##S, IGATHER, P_GATHER(N, NB), A_GATHER(NB_A), B_GATHER)  \
  WRAP(MPI_Gatherv##S, GATHERV, P_GATHERV(N, D, NONE), A_GATHERV(NONE),     \
       B_GATHERV)                                                          \
  WRAP(MPI_Igatherv##S, IGATHERV, P_GATHERV(N, D, NB), A_GATHERV(NB_A),     \
       B_GATHERV)                                                          \
  WRAP(MPI_Scatter##S, SCATTER, P_GATHER(N, NONE), A_GATHER(NONE),          \
       B_SCATTER)                                                          \
  WRAP(MPI_Iscatter##S, ISCATTER, P_GATHER(N, NB), A_GATHER(NB_A),          \
       B_SCATTER)                                                          \
  WRAP(MPI_Scatterv##S, SCATTERV, P_SCATTERV(N, D, NONE),                   \
       A_SCATTERV(NONE), B_SCATTERV)                                        \
  WRAP(MPI_Iscatterv##S, ISCATTERV, P_SCATTERV(N, D, NB), A_SCATTERV(NB_A), \
       B_SCATTERV)                                                         \
  WRAP(MPI_Allgather##S, ALLGATHER, P_ALLGATHER(N, NONE), A_ALLGATHER(NONE), \
       B_ALLGATHER)                                                        \
  WRAP(MPI_Iallgather##S, IALLGATHER, P_ALLGATHER(N, NB),                   \
       A_ALLGATHER(NB_A), B_ALLGATHER)                                     \
  WRAP(MPI_Allgatherv##S, ALLGATHERV, P_ALLGATHERV(N, D, NONE),             \
       A_ALLGATHERV(NONE), B_ALLGATHERV)                                    \
  WRAP(MPI_Iallgatherv##S, IALLGATHERV, P_ALLGATHERV(N, D, NB),             \
       A_ALLGATHERV(NB_A), B_ALLGATHERV)                                    \
  WRAP(MPI_Alltoall##S, ALLTOALL, P_ALLGATHER(N, NONE), A_ALLGATHER(NONE),  \
       B_ALLTOALL)                                                         \
  WRAP(MPI_Ialltoall##S, IALLTOALL, P_ALLGATHER(N, NB), A_ALLGATHER(NB_A),  \
       B_ALLTOALL)                                                         \
  WRAP(MPI_Alltoallv##S, ALLTOALLV, P_ALLTOALLV(N, D, NONE),                \
       A_ALLTOALLV(NONE), B_ALLTOALLV)                                      \
  WRAP(MPI_Ialltoallv##S, IALLTOALLV, P_ALLTOALLV(N, D, NB),                \
       A_ALLTOALLV(NB_A), B_ALLTOALLV)                                      \
  WRAP(MPI_Alltoallw##S, ALLTOALLW, P_ALLTOALLW(N, WD, NONE),               \
       A_ALLTOALLW(NONE), B_ALLTOALLW(BIG))                                 \
  WRAP(MPI_Ialltoallw##S, IALLTOALLW, P_ALLTOALLW(N, WD, NB),               \
       A_ALLTOALLW(NB_A), B_ALLTOALLW(BIG))                                 \
  WRAP(MPI_Reduce_scatter##S, REDUCE_SCATTER, P_RSCATTER(N, NONE),          \
       A_RSCATTER(NONE), B_RSCATTER)                                        \
  WRAP(MPI_Ireduce_scatter##S, IREDUCE_SCATTER, P_RSCATTER(N, NB),          \
       A_RSCATTER(NB_A), B_RSCATTER)                                        \
  WRAP(MPI_Reduce_scatter_block##S, REDUCE_SCATTER_BLOCK,                   \
       P_RSCATTER_BLOCK(N, NONE), A_RSCATTER_BLOCK(NONE), B_RSCATTER_BLOCK) \
  WRAP(MPI_Ireduce_scatter_block##S, IREDUCE_SCATTER_BLOCK,                 \
       P_RSCATTER_BLOCK(N, NB), A_RSCATTER_BLOCK(NB_A), B_RSCATTER_BLOCK)

COLLECTIVES(int, int, int, 0, )
#ifdef HAVE_MPI_SEND_C
COLLECTIVES(MPI_Count, MPI_Aint, MPI_Aint, 1, _c)
#endif

WRAP(MPI_Barrier, BARRIER, (MPI_Comm comm), (comm), 0)
WRAP(MPI_Ibarrier, IBARRIER, (MPI_Comm comm, MPI_Request *rq), (comm, rq), 0)
