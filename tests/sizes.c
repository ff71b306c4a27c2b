/*
 * sizes.c - MPI-IO accesses and messages of chosen sizes, for the tests
 * of pmon-report advise's size items (tests/advise-sizes.test).
 *
 *   sizes io FILE COUNTxSIZE...
 *   sizes comm CALL_S BYTE_S COUNTxSIZE...
 *
 * io: every rank writes, for each COUNTxSIZE in turn, COUNT accesses of
 * SIZE bytes into its own part of the shared FILE (MPI_File_write_at,
 * independent and blocking).  The storage's speed is the test's
 * (tests/slowio.c paces each write).
 * comm: rank 0 sends rank 1, for each COUNTxSIZE in turn, COUNT messages
 * of SIZE bytes with MPI_Ssend; rank 1 posts the receive of each
 * CALL_S + SIZE x BYTE_S seconds after the last one returned (asleep
 * meanwhile), so that each MPI_Ssend lasts that long, as on a link of
 * that latency and bandwidth.  Needs 2 ranks or more (the others only
 * wait at the barriers).
 * All ranks start and end together (a barrier).  Rank 0 prints the time
 * its calls of each COUNTxSIZE took, measured with MPI_Wtime ("time
 * COUNTxSIZE T"), then the bytes each rank moved ("bytes N") and the
 * time of all its calls ("call_time_s T").  Exit status 1 on any MPI error or
 * misuse, 77 with fewer than 2 ranks for comm.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

static int rank, size;

static void check(int rc, const char *what)
{
  if (rc != MPI_SUCCESS) {
    fprintf(stderr, "sizes: %s failed\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

/* SPEC "COUNTxSIZE" into COUNT and SIZE; 0, or -1. */
static int spec(const char *s, long *count, long *bytes)
{
  char *end;

  *count = strtol(s, &end, 10);
  if (end == s || *end != 'x' || *count <= 0)
    return -1;
  s = end + 1;
  *bytes = strtol(s, &end, 10);
  return end == s || *end != '\0' || *bytes <= 0 ? -1 : 0;
}

static void sleep_until(double t)
{
  double left;

  while ((left = t - MPI_Wtime()) > 0) {
    struct timespec ts = {(time_t)left,
                          (long)((left - (double)(time_t)left) * 1e9)};
    nanosleep(&ts, NULL);
  }
}

int main(int argc, char **argv)
{
  int io = argc > 1 && strcmp(argv[1], "io") == 0;
  int first = io ? 3 : 4;
  long max = 0, count, bytes;
  double moved = 0, t = 0, call_s = 0, byte_s = 0;
  char *buf;
  MPI_File fh = MPI_FILE_NULL;
  MPI_Offset off = 0, part = 0;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc <= first || (!io && strcmp(argv[1], "comm") != 0)) {
    if (rank == 0)
      fprintf(stderr, "usage: sizes io FILE COUNTxSIZE...\n"
                      "       sizes comm CALL_S BYTE_S COUNTxSIZE...\n");
    MPI_Finalize();
    return 1;
  }
  for (int a = first; a < argc; a++) {
    if (spec(argv[a], &count, &bytes) != 0) {
      if (rank == 0)
        fprintf(stderr, "sizes: %s: not COUNTxSIZE\n", argv[a]);
      MPI_Finalize();
      return 1;
    }
    if (bytes > max)
      max = bytes;
    part += (MPI_Offset)count * bytes;
  }
  if (!io && size < 2) {
    if (rank == 0)
      fprintf(stderr, "sizes: comm needs 2 ranks\n");
    MPI_Finalize();
    return 77;
  }
  if (!io) {
    call_s = atof(argv[2]);
    byte_s = atof(argv[3]);
  }
  buf = calloc(1, (size_t)max);
  if (buf == NULL) {
    fprintf(stderr, "sizes: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (io) {
    check(MPI_File_open(MPI_COMM_WORLD, argv[2],
                        MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
          "MPI_File_open");
    off = part * rank;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int a = first; a < argc; a++) {
    double before = t;

    spec(argv[a], &count, &bytes);
    for (long i = 0; i < count; i++) {
      double t0;

      if (io) {
        t0 = MPI_Wtime();
        check(MPI_File_write_at(fh, off, buf, (int)bytes, MPI_BYTE,
                                MPI_STATUS_IGNORE),
              "MPI_File_write_at");
        t += MPI_Wtime() - t0;
        off += bytes;
        moved += (double)bytes;
      } else if (rank == 0) {
        t0 = MPI_Wtime();
        check(MPI_Ssend(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD),
              "MPI_Ssend");
        t += MPI_Wtime() - t0;
        moved += (double)bytes;
      } else if (rank == 1) {
        sleep_until(MPI_Wtime() + call_s + (double)bytes * byte_s);
        check(MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE),
              "MPI_Recv");
      }
    }
    if (rank == 0)
      printf("time %s %.6f\n", argv[a], t - before);
  }
  if (io)
    check(MPI_File_close(&fh), "MPI_File_close");
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    printf("bytes %.0f\ncall_time_s %.6f\n", moved, t);
  free(buf);
  MPI_Finalize();
  return 0;
}
