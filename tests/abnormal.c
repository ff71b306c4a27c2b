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
 *
 *   abnormal regions SECONDS [FILE]
 *
 * is a job to be killed from outside (tests/spool.test): every rank
 * computes 1 s in the region "setup", then opens "solve" and, inside it,
 * computes in pairs of "step" of 0.1 s each until SECONDS have passed;
 * with FILE, each step also writes 256 KiB to it with MPI-IO (at the
 * rank's own offset, so that the file stays small), and each rank adds
 * to FILE.RANK.steps a line for each step it ends, the CLOCK_MONOTONIC
 * instant (ns) after its region end (plain POSIX I/O, which pmon does
 * not count): what the job did, and when, however far a busy machine
 * held the ranks behind the steps' pace.
 */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
  if (strcmp(mode, "regions") == 0) {
    pmon_region_begin("setup");
    while (MPI_Wtime() - t0 < 1.0)
      x += 1e-9;
    pmon_region_end("setup");
    static char block[256 * 1024];
    MPI_File fh = MPI_FILE_NULL;
    int steps_fd = -1;

    if (argc > 3 && MPI_File_open(MPI_COMM_WORLD, argv[3],
                                  MPI_MODE_CREATE | MPI_MODE_WRONLY,
                                  MPI_INFO_NULL, &fh) != MPI_SUCCESS)
      fprintf(stderr, "abnormal: cannot open %s\n", argv[3]);
    if (argc > 3) {
      char path[4096];

      snprintf(path, sizeof path, "%s.%d.steps", argv[3], rank);
      if ((steps_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND,
                           0644)) < 0)
        perror(path);
    }
    pmon_region_begin("solve");
    while (MPI_Wtime() - t0 < seconds) {
      double t1 = MPI_Wtime();

      pmon_region_begin("step");
      if (fh != MPI_FILE_NULL)
        MPI_File_write_at(fh, (MPI_Offset)rank * (MPI_Offset)sizeof block,
                          block, (int)sizeof block, MPI_BYTE,
                          MPI_STATUS_IGNORE);
      while (MPI_Wtime() - t1 < 0.1)
        x += 1e-9;
      pmon_region_end("step");
      if (steps_fd >= 0) {
        struct timespec ts;
        char line[32];
        int n;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        n = snprintf(line, sizeof line, "%lld\n",
                     (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
        if (write(steps_fd, line, (size_t)n) != n)
          perror("abnormal: steps");
      }
    }
    if (steps_fd >= 0)
      close(steps_fd);
    pmon_region_end("solve");
    if (fh != MPI_FILE_NULL)
      MPI_File_close(&fh);
  }
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
