/*
 * interconnect - the method of the interconnect energy studies: the delay
 * and the energy per byte of a point-to-point exchange and of an
 * all-to-all, for each message size from 1 byte to MAX.
 *
 *   mpirun -n 2 pmon-run -- interconnect [-m MAX] [-n N]
 *   pmon-report -s comm pmon-JOBID.json
 *
 * For each size M = 1, 2, 4, ... MAX bytes (MAX a power of two, default
 * 4 MiB): N ping-pong round trips of M bytes between ranks 0 and 1 with
 * MPI_Send and MPI_Recv (other ranks wait), then N MPI_Alltoall calls of
 * M bytes per process, among all ranks.  N (default 200) shrinks for large
 * sizes so that each size moves at most 256 MiB per rank and kind.  The
 * program calls no pmon function: pmon-run (or LD_PRELOAD of
 * libpmon-mpiio.so) counts the calls, and pmon-report prints, per call
 * and size, the calls, bytes, time, s/B, energy and J/B.  In the report,
 * a ping-pong of M bytes is in the bin of M, an all-to-all of M bytes per
 * process among P in that of 2PM (what the rank sends plus receives).
 *
 * Prints one line per size: "size M round_trips N pingpong_s T alltoall_s
 * T" (rank 0's own clock).  Exit status 0; 2 on bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

static int usage(int rank)
{
  if (rank == 0)
    fputs("usage: interconnect [-m MAX] [-n N]  (MAX a power of two from 1 "
          "to 1073741824)\n", stderr);
  MPI_Finalize();
  return 2;
}

int main(int argc, char **argv)
{
  long max = 4L << 20, n0 = 200;
  int rank, size, c;
  char *a, *s, *r;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  while ((c = getopt(argc, argv, "m:n:")) != -1) {
    if (c == 'm')
      max = atol(optarg);
    else if (c == 'n')
      n0 = atol(optarg);
    else
      return usage(rank);
  }
  if (max < 1 || max > (1L << 30) || (max & (max - 1)) != 0 || n0 < 1 ||
      size < 2)
    return usage(rank);
  a = calloc(1, (size_t)max);
  s = calloc((size_t)size, (size_t)max);
  r = calloc((size_t)size, (size_t)max);
  if (a == NULL || s == NULL || r == NULL) {
    fprintf(stderr, "interconnect: out of memory for %ld bytes x %d\n", max,
            size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (long m = 1; m <= max; m *= 2) {
    long n = n0 < (256L << 20) / m ? n0 : (256L << 20) / m;
    double t0, tp, ta;

    if (n < 4)
      n = 4;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (long i = 0; i < n && rank < 2; i++)
      if (rank == 0) {
        MPI_Send(a, (int)m, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(a, (int)m, MPI_BYTE, 1, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(a, (int)m, MPI_BYTE, 0, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        MPI_Send(a, (int)m, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
      }
    tp = MPI_Wtime() - t0;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (long i = 0; i < n; i++)
      MPI_Alltoall(s, (int)m, MPI_BYTE, r, (int)m, MPI_BYTE, MPI_COMM_WORLD);
    ta = MPI_Wtime() - t0;
    if (rank == 0)
      printf("size %ld round_trips %ld pingpong_s %.6f alltoall_s %.6f\n", m,
             n, tp, ta);
  }
  free(a);
  free(s);
  free(r);
  MPI_Finalize();
  return 0;
}
