/*
 * comm_cost - what the communication wrappers add to MPI_Send and
 * MPI_Recv, against the same calls without them, both measured here in one
 * run of two ranks.
 *
 *   LD_PRELOAD=libpmon-mpiio.so mpirun -n 2 comm_cost [ROUND_TRIPS]
 *
 * Run under the interposition library (make bench does): the program calls
 * MPI_Send and MPI_Recv as any program would, which reaches pmon's
 * wrappers, and, for the baseline, the MPI library's own PMPI_Send and
 * PMPI_Recv, found in the library that holds PMPI_Comm_rank.
 *
 * Two runs, each in rounds that alternate bare and intercepted blocks (the
 * order swapped every round, so that drift hits both alike; both ranks
 * follow the same schedule):
 *   - ROUND_TRIPS (default 200000) one-byte ping-pongs per mode: the
 *     median over rounds of the nanoseconds a round trip gains, and per
 *     call (a round trip is four calls, each on the critical path);
 *   - 64 KiB messages streamed from rank 0 to rank 1, 256 a block and a
 *     one-byte answer: the median bandwidths, and the median over rounds
 *     of the ratio of intercepted to bare bandwidth.
 * Exit status 0, or 1 when it could not measure (said on stderr).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "bare.h"
#include "bench.h"

#define ROUNDS 40      /* of the ping-pong */
#define BW_ROUNDS 41   /* of the stream */
#define BW_SIZE 65536
#define BW_MSGS 256

typedef int send_fn(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int recv_fn(void *, int, MPI_Datatype, int, int, MPI_Comm,
                    MPI_Status *);

static int rank;

/* Nanoseconds per round trip of N one-byte ping-pongs through S and R. */
static double pingpong(send_fn *s, recv_fn *r, int n)
{
  char b = 0;
  double t0;

  PMPI_Barrier(MPI_COMM_WORLD);
  t0 = bench_now();
  for (int i = 0; i < n; i++)
    if (rank == 0) {
      s(&b, 1, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
      r(&b, 1, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      r(&b, 1, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      s(&b, 1, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    }
  return (bench_now() - t0) / n;
}

/* Nanoseconds per 64 KiB message of a block streamed through S and R. */
static double stream(send_fn *s, recv_fn *r, char *buf)
{
  double t0;

  PMPI_Barrier(MPI_COMM_WORLD);
  t0 = bench_now();
  for (int i = 0; i < BW_MSGS; i++)
    if (rank == 0)
      s(buf, BW_SIZE, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
    else
      r(buf, BW_SIZE, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rank == 0)
    r(buf, 1, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  else
    s(buf, 1, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
  return (bench_now() - t0) / BW_MSGS;
}

int main(int argc, char **argv)
{
  long trips = argc > 1 ? atol(argv[1]) : 200000;
  double b[BW_ROUNDS], w[BW_ROUNDS], d[BW_ROUNDS], mb, mw;
  send_fn *bs;
  recv_fn *br;
  char *buf;
  int size, per = (int)(trips / ROUNDS);

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bs = (send_fn *)bench_bare("PMPI_Send");
  br = (recv_fn *)bench_bare("PMPI_Recv");
  buf = calloc(1, BW_SIZE);
  if (bs == NULL || br == NULL || size != 2 || per < 1 || buf == NULL) {
    if (rank == 0)
      fprintf(stderr, "comm_cost: %s\n",
              size != 2  ? "run with 2 ranks"
              : per < 1  ? "ROUND_TRIPS: at least 40"
              : buf == NULL ? "out of memory"
                            : "cannot find the MPI library's PMPI_Send");
    MPI_Finalize();
    return 1;
  }
  if (rank == 0 && (void *)bs == (void *)MPI_Send)
    fprintf(stderr, "comm_cost: note: MPI_Send is not intercepted (run "
                    "with LD_PRELOAD=libpmon-mpiio.so)\n");
  pingpong(bs, br, per / 4 + 1); /* warm both paths up */
  pingpong(MPI_Send, MPI_Recv, per / 4 + 1);
  for (int r = 0; r < ROUNDS; r++) {
    if (r % 2 == 0) {
      b[r] = pingpong(bs, br, per);
      w[r] = pingpong(MPI_Send, MPI_Recv, per);
    } else {
      w[r] = pingpong(MPI_Send, MPI_Recv, per);
      b[r] = pingpong(bs, br, per);
    }
    d[r] = w[r] - b[r];
  }
  if (rank == 0) {
    double added = bench_median(d, ROUNDS);

    mb = bench_median(b, ROUNDS);
    mw = bench_median(w, ROUNDS);
    printf("1-byte ping-pong, %d x %d round trips per mode:\n"
           "  bare %.0f ns, intercepted %.0f ns a round trip, added %.1f ns "
           "(median of rounds),\n  %.1f ns per call (4 calls a round "
           "trip), ratio %.3f\n",
           ROUNDS, per, mb, mw, added, added / 4, mw / mb);
  }
  stream(bs, br, buf);
  stream(MPI_Send, MPI_Recv, buf);
  for (int r = 0; r < BW_ROUNDS; r++) {
    if (r % 2 == 0) {
      b[r] = stream(bs, br, buf);
      w[r] = stream(MPI_Send, MPI_Recv, buf);
    } else {
      w[r] = stream(MPI_Send, MPI_Recv, buf);
      b[r] = stream(bs, br, buf);
    }
    d[r] = b[r] / w[r]; /* the round's bandwidth ratio */
  }
  if (rank == 0) {
    double ratio = bench_median(d, BW_ROUNDS);

    mb = bench_median(b, BW_ROUNDS);
    mw = bench_median(w, BW_ROUNDS);
    printf("64 KiB MPI_Send to MPI_Recv, %d x %d messages per mode:\n"
           "  bare %.1f MB/s, intercepted %.1f MB/s, bandwidth ratio %.4f "
           "(median of rounds)\n",
           BW_ROUNDS, BW_MSGS, BW_SIZE * 1e3 / mb, BW_SIZE * 1e3 / mw,
           ratio);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
