/*
 * mpiio_cost - what the MPI-IO interception adds to a call, against the
 * same call without it, both measured here in one process.
 *
 *   LD_PRELOAD=libpmon-mpiio.so mpiio_cost [DIR [CALLS]]
 *
 * DIR (default /dev/shm, else /tmp) should be on tmpfs, so that the calls
 * are as cheap as they can be and the interception's cost shows.  Run
 * under the interposition library (make bench does): the program calls
 * MPI_File_write_at as any program would, which reaches pmon's wrapper,
 * and, for the baseline, the same function of the MPI library itself,
 * found in the library that holds PMPI_Comm_rank.
 *
 * Two runs, each in rounds that alternate bare and intercepted blocks
 * (the order swapped every round, so that drift hits both alike):
 *   - CALLS (default 100000) one-byte MPI_File_write_at calls per mode:
 *     the median over rounds of the nanoseconds a call gains;
 *   - 4 KiB MPI_File_write_at calls, 16 MiB per block written into a
 *     fresh file: the median bandwidths, and the median over rounds of
 *     the ratio of intercepted to bare bandwidth.
 * Exit status 0, or 1 when it could not measure (said on stderr).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "bare.h"
#include "bench.h"

#define ROUNDS 20   /* of the one-byte run: 5000 calls each by default */
#define BW_ROUNDS 201 /* of the 4 KiB run, whose blocks vary more */

typedef int write_at_fn(MPI_File, MPI_Offset, const void *, int,
                        MPI_Datatype, MPI_Status *);

/*
 * Nanoseconds per call of N writes of SIZE bytes through F; <0 on error.
 * One-byte calls rewrite the file's first 256 bytes; larger ones write a
 * fresh file from its start, as a program writing its output does (the
 * file is emptied first, outside the timing).
 */
static double block(write_at_fn *f, MPI_File fh, const char *buf, int size,
                    int n)
{
  double t0;

  if (size > 1 && PMPI_File_set_size(fh, 0) != MPI_SUCCESS)
    return -1;
  t0 = bench_now();
  for (int i = 0; i < n; i++)
    if (f(fh, size > 1 ? (MPI_Offset)i * size : i % 256, buf, size,
          MPI_BYTE, MPI_STATUS_IGNORE) != MPI_SUCCESS)
      return -1;
  return (bench_now() - t0) / n;
}

/* ROUNDS rounds of N calls of SIZE bytes, bare and wrapped; per round
 * nanoseconds per call into B[] and W[]. */
static int run(write_at_fn *bare, MPI_File fh, int size, int n, int rounds,
               double *b, double *w)
{
  char *buf = calloc(1, (size_t)size);

  if (buf == NULL)
    return -1;
  /* Warm up both paths and the file's pages. */
  if (block(bare, fh, buf, size, n / 4 + 1) < 0 ||
      block(MPI_File_write_at, fh, buf, size, n / 4 + 1) < 0) {
    free(buf);
    return -1;
  }
  for (int r = 0; r < rounds; r++) {
    if (r % 2 == 0) {
      b[r] = block(bare, fh, buf, size, n);
      w[r] = block(MPI_File_write_at, fh, buf, size, n);
    } else {
      w[r] = block(MPI_File_write_at, fh, buf, size, n);
      b[r] = block(bare, fh, buf, size, n);
    }
    if (b[r] < 0 || w[r] < 0) {
      free(buf);
      return -1;
    }
  }
  free(buf);
  return 0;
}

int main(int argc, char **argv)
{
  struct stat st;
  const char *dir = argc > 1 ? argv[1]
                    : stat("/dev/shm", &st) == 0 ? "/dev/shm" : "/tmp";
  long calls = argc > 2 ? atol(argv[2]) : 100000;
  double b[BW_ROUNDS], w[BW_ROUNDS], d[BW_ROUNDS], mb, mw;
  write_at_fn *bare;
  char path[4096];
  MPI_File fh;
  int per = (int)(calls / ROUNDS), rc = 0;

  MPI_Init(&argc, &argv);
  bare = (write_at_fn *)bench_bare("PMPI_File_write_at");
  if (bare == NULL || per < 1) {
    fprintf(stderr, "mpiio_cost: %s\n",
            per < 1 ? "CALLS: at least 20"
                    : "cannot find the MPI library's MPI_File_write_at");
    MPI_Finalize();
    return 1;
  }
  if (bare == MPI_File_write_at)
    fprintf(stderr, "mpiio_cost: note: MPI_File_write_at is not "
                    "intercepted (run with LD_PRELOAD=libpmon-mpiio.so)\n");
  snprintf(path, sizeof path, "%s/pmon-mpiio-cost.%ld", dir, (long)getpid());
  if (MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                    MPI_INFO_NULL, &fh) != MPI_SUCCESS) {
    fprintf(stderr, "mpiio_cost: %s: cannot open\n", path);
    MPI_Finalize();
    return 1;
  }
  if (run(bare, fh, 1, per, ROUNDS, b, w) == 0) {
    for (int r = 0; r < ROUNDS; r++)
      d[r] = w[r] - b[r];
    mb = bench_median(b, ROUNDS);
    mw = bench_median(w, ROUNDS);
    printf("1-byte MPI_File_write_at, %d x %d calls per mode, %s:\n"
           "  bare %.0f ns/call, intercepted %.0f ns/call, "
           "added %.1f ns/call (median of rounds), ratio %.3f\n",
           ROUNDS, per, dir, mb, mw, bench_median(d, ROUNDS), mw / mb);
  } else {
    rc = 1;
  }
  per = 4096; /* 16 MiB per block */
  if (rc == 0 && run(bare, fh, 4096, per, BW_ROUNDS, b, w) == 0) {
    double added;

    for (int r = 0; r < BW_ROUNDS; r++)
      d[r] = w[r] - b[r];
    added = bench_median(d, BW_ROUNDS);
    for (int r = 0; r < BW_ROUNDS; r++)
      d[r] = b[r] / w[r]; /* the round's bandwidth ratio */
    mb = bench_median(b, BW_ROUNDS);
    mw = bench_median(w, BW_ROUNDS);
    printf("4 KiB MPI_File_write_at, %d x %d calls per mode:\n"
           "  bare %.1f MB/s (%.0f ns/call), intercepted %.1f MB/s, "
           "added %.1f ns/call,\n  bandwidth ratio %.4f (median of rounds)\n",
           BW_ROUNDS, per, 4096e3 / mb, mb, 4096e3 / mw, added,
           bench_median(d, BW_ROUNDS));
  } else if (rc == 0) {
    rc = 1;
  }
  if (rc != 0)
    fprintf(stderr, "mpiio_cost: MPI_File_write_at failed\n");
  MPI_File_close(&fh);
  MPI_File_delete(path, MPI_INFO_NULL);
  MPI_Finalize();
  return rc;
}
