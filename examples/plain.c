/*
 * plain.c - an MPI program that knows nothing of pmon: run it with
 * pmon-run or LD_PRELOAD=libpmon-mpiio.so to get the whole-job report.
 *
 *   mpirun -n 4 pmon-run -- ./plain [SECONDS]
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

int main(int argc, char **argv)
{
  double seconds = argc > 1 ? atof(argv[1]) : 1.0, t0, x = 0;
  int rank;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  t0 = MPI_Wtime();
  while (MPI_Wtime() - t0 < seconds)
    x += 1e-9;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    printf("plain: done (%g)\n", x > 0 ? 1.0 : 0.0);
  MPI_Finalize();
  return 0;
}
