/*
 * mpi_regions - an MPI program with regions of known length, for the
 * tests.  Rank layout assumed by tests/nodes.test: 4 ranks, 2 per node.
 *   all    every rank, 1.5 s
 *   inner  nested in all, ranks 0 and 2 (each node's leader), 0.5 s
 *   solo   world rank 1 only (node 0, local rank 1), 1.0 s
 */
#include <stdio.h>
#include <time.h>

#include <mpi.h>

#include "pmon.h"

static void nap(double s)
{
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};

  nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
  int rank, rc;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if ((rc = pmon_init()) != 0) {
    fprintf(stderr, "mpi_regions: pmon_init: %s\n", pmon_strerror(rc));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  pmon_region_begin("all");
  if (rank % 2 == 0) {
    nap(0.5);
    pmon_region_begin("inner");
    nap(0.5);
    pmon_region_end("inner");
    nap(0.5);
  } else {
    nap(1.5);
  }
  pmon_region_end("all");
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    pmon_region_begin("solo");
    nap(1.0);
    pmon_region_end("solo");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if ((rc = pmon_finalize()) != 0)
    fprintf(stderr, "mpi_regions: pmon_finalize: %s\n", pmon_strerror(rc));
  MPI_Finalize();
  return 0;
}
