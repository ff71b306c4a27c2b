/*
 * abnormal.c - an MPI program that ends badly, for tests/abnormal.test:
 *
 *   abnormal MODE [SECONDS]
 *
 * Every rank calls pmon_init() and computes for SECONDS (3 by default);
 * then rank 1 (rank 0 for "segv0") ends the job as MODE says, while the
 * others go on to pmon_finalize() and MPI_Finalize():
 *   abort   MPI_Abort(MPI_COMM_WORLD, 3)
 *   exit    exit(3) without MPI_Finalize
 *   segv    raise(SIGSEGV)
 *   segv0   raise(SIGSEGV) on rank 0, the node leader
 * pmon must hang none of them: the launcher ends the job, and the spool
 * is what is left of it.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "pmon.h"

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "";
  double seconds = argc > 2 ? atof(argv[2]) : 3.0, t0, x = 0;
  int rank, rc, bad;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if ((rc = pmon_init()) != 0)
    fprintf(stderr, "abnormal: pmon_init: %s\n", pmon_strerror(rc));
  t0 = MPI_Wtime();
  while (MPI_Wtime() - t0 < seconds)
    x += 1e-9;
  bad = rank == (strcmp(mode, "segv0") == 0 ? 0 : 1);
  if (bad && strcmp(mode, "abort") == 0)
    MPI_Abort(MPI_COMM_WORLD, 3);
  else if (bad && strcmp(mode, "exit") == 0)
    exit(3);
  else if (bad && strncmp(mode, "segv", 4) == 0)
    raise(SIGSEGV);
  pmon_finalize();
  MPI_Finalize();
  return x > 0 ? 0 : 1;
}
