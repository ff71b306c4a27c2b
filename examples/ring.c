/*
 * ring.c - a small MPI program with pmon regions: each rank computes,
 * then passes a message round a ring.  Used by "make demo" and the tests.
 *
 *   mpirun -n 4 ./ring [ITERATIONS [WORK]]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "pmon.h"

static double compute(long work)
{
  double x = 0;

  for (long i = 1; i <= work; i++)
    x += sin((double)i) / (double)i;
  return x;
}

int main(int argc, char **argv)
{
  int iters = argc > 1 ? atoi(argv[1]) : 20;
  long work = argc > 2 ? atol(argv[2]) : 2000000;
  int rank, size, rc;
  double sum = 0, token = 0;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if ((rc = pmon_init()) != 0 && rank == 0)
    fprintf(stderr, "ring: pmon_init: %s\n", pmon_strerror(rc));

  for (int i = 0; i < iters; i++) {
    pmon_region_begin("compute");
    sum += compute(work);
    pmon_region_end("compute");

    pmon_region_begin("exchange");
    if (size > 1) {
      MPI_Sendrecv_replace(&token, 1, MPI_DOUBLE, (rank + 1) % size, 0,
                           (rank + size - 1) % size, 0, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    pmon_region_end("exchange");
  }
  if (rank == 0)
    printf("ring: %d ranks, %d iterations, checksum %.6f\n", size, iters,
           sum);
  pmon_finalize();
  MPI_Finalize();
  return 0;
}
