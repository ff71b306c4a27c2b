/*
 * iopattern.c - MPI-IO access patterns, after the contiguous, strided and
 * nested-strided patterns of the PowerPack I/O energy studies: each rank
 * writes its share of a shared file in transfers of one buffer size, then
 * reads it back and checks it.  It calls no pmon function: measure it
 * unmodified with pmon-run (make io-demo does).
 *
 *   mpirun -n 4 pmon-run -- ./iopattern [-p PATTERN] [-b BUFSIZE]
 *                                       [-s SIZE] [-c] [-k] PATH
 *
 * PATTERN is contiguous, strided, nested or all (the default: the three,
 * one after the other, each with its own file).  Each of the P ranks
 * moves SIZE bytes (-s, default 16M) in K = SIZE / BUFSIZE transfers of
 * BUFSIZE bytes (-b, default 1M); K, M and G suffixes are powers of 1024,
 * and SIZE must be a multiple of BUFSIZE.  Rank r's transfer k (from 0)
 * goes to these bytes of the file:
 *
 *   contiguous  r * SIZE + k * B, B bytes: MPI_File_write_at with explicit
 *               offsets and the default view; each rank has one block.
 *   strided     (k * P + r) * B, B bytes: a file view whose filetype is an
 *               MPI_Type_vector of K blocks of B bytes, stride P blocks;
 *               the ranks' blocks alternate.
 *   nested      a vector of vectors: each transfer is 4 pieces of
 *               Q = B / 4 bytes (B must be a multiple of 4); with the
 *               ranks in a P1 x P2 grid (P1 the largest divisor of P not
 *               above its square root, r1 = r % P1, r2 = r / P1), piece j
 *               goes to k * P * B + r2 * P1 * B + j * P1 * Q + r1 * Q.
 *               The filetype is an hvector (stride P * B) of a vector of
 *               4 pieces (stride P1 pieces).  With P1 = 1 (P = 1, 2, 3, 5,
 *               ...) this is the strided pattern.
 *
 * In every pattern the ranks tile the file with no gap: it is exactly
 * P * SIZE bytes long.  The transfers use the individual calls
 * MPI_File_write_at and MPI_File_read_at, or with -c the collective
 * MPI_File_write_at_all and MPI_File_read_at_all (offsets in bytes of the
 * view).  Per rank and pattern the MPI-IO calls are: for the write phase
 * 1 open, 1 set_view (strided, nested), K writes and 1 close; for the read
 * phase the same with K reads; and on rank 0 MPI_File_delete at the end
 * unless -k (and before the write when the file is already there).
 *
 * PATH is the file, or a directory to write iopattern-PATTERN.dat in;
 * with -p all and a PATH that is not a directory the files are
 * PATH.contiguous, PATH.strided and PATH.nested.
 *
 * Bytes moved: per pattern each rank writes SIZE bytes and reads SIZE
 * bytes, the job P * SIZE each way.  Rank 0 prints, per pattern, one line
 * for the write and one for the read with the bytes and the program's own
 * I/O time: the longest, over the ranks, of the time a rank spent inside
 * the MPI_File calls of the phase (open, set_view and close included);
 * MB/s are 10^6 bytes per second of that time.  Any MPI error ends the job
 * with a message and a non-zero exit status; wrong data read back gives
 * exit status 1 after the report.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mpi.h>

#include "common.h"

#define NEST_PIECES 4 /* pieces of a transfer in the nested pattern */

enum pattern { CONTIGUOUS, STRIDED, NESTED, NPATTERNS };
static const char *const pattern_name[NPATTERNS] = {"contiguous", "strided",
                                                    "nested"};
static int rank, nprocs;

static void usage(FILE *f)
{
  fprintf(f,
          "usage: iopattern [-p PATTERN] [-b BUFSIZE] [-s SIZE] [-c] [-k] "
          "PATH\n"
          "  -p P  contiguous, strided, nested or all (default all)\n"
          "  -b B  bytes per transfer (K, M, G: x1024), default 1M\n"
          "  -s S  bytes per rank, a multiple of B, default 16M\n"
          "  -c    collective transfers (MPI_File_write_at_all, ...)\n"
          "  -k    keep the files (default: MPI_File_delete at the end)\n"
          "  PATH  the file, or a directory to write "
          "iopattern-PATTERN.dat in\n");
}

/* Fill BUF (N bytes) with transfer K of this rank in pattern P: bytes of
 * a hash of (pattern, rank, transfer, byte / 8), so that a block in the
 * wrong place is found on reading back. */
static void fill(unsigned char *buf, int n, int p, long long k)
{
  uint64_t seed = ((uint64_t)p << 60) ^ ((uint64_t)rank << 40) ^
                  ((uint64_t)k << 20), h = 0;

  for (int i = 0; i < n; i++) {
    if (i % 8 == 0)
      h = ex_mix(seed + (uint64_t)(i / 8) * 0x9e3779b97f4a7c15ULL);
    buf[i] = (unsigned char)(h >> (8 * (i % 8)));
  }
}

/* The status of a transfer must say N bytes. */
static void check_count(MPI_Status *st, int n, const char *what)
{
  int got = -1;

  ex_check(MPI_Get_count(st, MPI_BYTE, &got), "MPI_Get_count", NULL);
  if (got != n) {
    fprintf(stderr, "iopattern: rank %d: %s moved %d bytes, not %d\n", rank,
            what, got, n);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
  }
}

/* Time the MPI_File call CALL into *T and check it. */
#define TIMED(t, what, arg, call)                                            \
  do {                                                                       \
    double t0_ = MPI_Wtime();                                                \
    int rc_ = (call);                                                        \
    *(t) += MPI_Wtime() - t0_;                                               \
    ex_check(rc_, what, arg);                                                \
  } while (0)

/* The largest divisor of N not above its square root. */
static int grid_rows(int n)
{
  int best = 1;

  for (int d = 1; (long)d * d <= n; d++)
    if (n % d == 0)
      best = d;
  return best;
}

/* The view of pattern P for transfers of B bytes, K of them: *DISP, and
 * *FILETYPE, committed (MPI_DATATYPE_NULL for the contiguous pattern, which
 * keeps the default view). */
static void make_view(int p, int b, int k, MPI_Offset *disp,
                      MPI_Datatype *filetype)
{
  MPI_Datatype block, piece, inner;

  *disp = 0;
  *filetype = MPI_DATATYPE_NULL;
  if (p == STRIDED) {
    ex_check(MPI_Type_contiguous(b, MPI_BYTE, &block), "MPI_Type_contiguous",
             NULL);
    ex_check(MPI_Type_vector(k, 1, nprocs, block, filetype), "MPI_Type_vector",
             NULL);
    ex_check(MPI_Type_free(&block), "MPI_Type_free", NULL);
    *disp = (MPI_Offset)rank * b;
  } else if (p == NESTED) {
    int q = b / NEST_PIECES, p1 = grid_rows(nprocs);
    int r1 = rank % p1, r2 = rank / p1;

    ex_check(MPI_Type_contiguous(q, MPI_BYTE, &piece), "MPI_Type_contiguous",
             NULL);
    ex_check(MPI_Type_vector(NEST_PIECES, 1, p1, piece, &inner),
             "MPI_Type_vector", NULL);
    ex_check(MPI_Type_create_hvector(k, 1, (MPI_Aint)nprocs * b, inner,
                                     filetype),
             "MPI_Type_create_hvector", NULL);
    ex_check(MPI_Type_free(&inner), "MPI_Type_free", NULL);
    ex_check(MPI_Type_free(&piece), "MPI_Type_free", NULL);
    *disp = (MPI_Offset)r2 * p1 * b + (MPI_Offset)r1 * q;
  }
  if (*filetype != MPI_DATATYPE_NULL)
    ex_check(MPI_Type_commit(filetype), "MPI_Type_commit", NULL);
}

/* Open PATH with MODE and set the view of pattern P; the time it took is
 * added to *T. */
static MPI_File open_file(const char *path, int mode, int p, int b, int k,
                          double *t)
{
  MPI_File fh;
  MPI_Offset disp;
  MPI_Datatype filetype;

  TIMED(t, "MPI_File_open", path,
        MPI_File_open(MPI_COMM_WORLD, path, mode, MPI_INFO_NULL, &fh));
  make_view(p, b, k, &disp, &filetype);
  if (filetype != MPI_DATATYPE_NULL) {
    TIMED(t, "MPI_File_set_view", path,
          MPI_File_set_view(fh, disp, MPI_BYTE, filetype, "native",
                            MPI_INFO_NULL));
    ex_check(MPI_Type_free(&filetype), "MPI_Type_free", NULL);
  }
  return fh;
}

/* Offset of transfer I in pattern P, in bytes of the view. */
static MPI_Offset transfer_offset(int p, long long size, int b, int i)
{
  if (p == CONTIGUOUS)
    return (MPI_Offset)rank * size + (MPI_Offset)i * b;
  return (MPI_Offset)i * b;
}

static double write_pattern(const char *path, int p, long long size, int b,
                            int collective, unsigned char *buf)
{
  int k = (int)(size / b);
  double t = 0;
  MPI_File fh = open_file(path, MPI_MODE_CREATE | MPI_MODE_WRONLY, p, b, k,
                          &t);
  MPI_Status st;

  for (int i = 0; i < k; i++) {
    MPI_Offset off = transfer_offset(p, size, b, i);

    fill(buf, b, p, i);
    if (collective)
      TIMED(&t, "MPI_File_write_at_all", path,
            MPI_File_write_at_all(fh, off, buf, b, MPI_BYTE, &st));
    else
      TIMED(&t, "MPI_File_write_at", path,
            MPI_File_write_at(fh, off, buf, b, MPI_BYTE, &st));
    check_count(&st, b, "a write");
  }
  TIMED(&t, "MPI_File_close", path, MPI_File_close(&fh));
  return t;
}

/* Read pattern P back; the number of wrong transfers is put in *BAD. */
static double read_pattern(const char *path, int p, long long size, int b,
                           int collective, unsigned char *buf,
                           unsigned char *want, long long *bad)
{
  int k = (int)(size / b);
  double t = 0;
  MPI_File fh = open_file(path, MPI_MODE_RDONLY, p, b, k, &t);
  MPI_Status st;

  *bad = 0;
  for (int i = 0; i < k; i++) {
    MPI_Offset off = transfer_offset(p, size, b, i);

    memset(buf, 0, (size_t)b);
    if (collective)
      TIMED(&t, "MPI_File_read_at_all", path,
            MPI_File_read_at_all(fh, off, buf, b, MPI_BYTE, &st));
    else
      TIMED(&t, "MPI_File_read_at", path,
            MPI_File_read_at(fh, off, buf, b, MPI_BYTE, &st));
    check_count(&st, b, "a read");
    fill(want, b, p, i);
    if (memcmp(buf, want, (size_t)b) != 0) {
      if (*bad == 0)
        fprintf(stderr,
                "iopattern: rank %d: %s, transfer %d: wrong data read "
                "back\n",
                rank, pattern_name[p], i);
      (*bad)++;
    }
  }
  TIMED(&t, "MPI_File_close", path, MPI_File_close(&fh));
  return t;
}

static void result(const char *pattern, const char *phase, double t,
                   long long size, int b, const char *extra)
{
  long long bytes = (long long)nprocs * size;

  printf("iopattern: %-10s %s %d ranks x %lld x %d B = %lld bytes, "
         "I/O time %.6f s, %.1f MB/s%s\n",
         pattern, phase, nprocs, size / b, b, bytes, t,
         t > 0 ? (double)bytes / t / 1e6 : 0.0, extra);
}

/* Write, read back and check pattern P in PATH; nonzero if the data read
 * back was wrong. */
static int run_pattern(const char *path, int p, long long size, int b,
                       int collective, int keep, unsigned char *buf,
                       unsigned char *want)
{
  long long bad, allbad = 0;
  double t, tmax = 0;
  int exists = 0;

  if (rank == 0) {
    struct stat sb;

    exists = stat(path, &sb) == 0;
    if (exists)
      ex_check(MPI_File_delete(path, MPI_INFO_NULL), "MPI_File_delete", path);
  }
  ex_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier", NULL);
  t = write_pattern(path, p, size, b, collective, buf);
  ex_check(MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD),
           "MPI_Reduce", NULL);
  if (rank == 0)
    result(pattern_name[p], "write", tmax, size, b, "");

  ex_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier", NULL);
  t = read_pattern(path, p, size, b, collective, buf, want, &bad);
  ex_check(MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD),
           "MPI_Reduce", NULL);
  ex_check(MPI_Allreduce(&bad, &allbad, 1, MPI_LONG_LONG, MPI_SUM,
                         MPI_COMM_WORLD),
           "MPI_Allreduce", NULL);
  if (rank == 0) {
    result(pattern_name[p], "read ", tmax, size, b,
           allbad == 0 ? ", verified" : ", WRONG DATA");
    if (allbad != 0)
      fprintf(stderr, "iopattern: %s: %lld transfers read back wrong\n",
              path, allbad);
  }

  ex_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier", NULL);
  if (rank == 0) {
    if (keep)
      printf("iopattern: kept %s\n", path);
    else
      ex_check(MPI_File_delete(path, MPI_INFO_NULL), "MPI_File_delete", path);
  }
  return allbad != 0;
}

int main(int argc, char **argv)
{
  long long size = 16LL << 20, b = 1LL << 20;
  int first = 0, last = NPATTERNS - 1, collective = 0, keep = 0, opt, rc;
  int isdir = 0, failed = 0;
  const char *err = NULL;
  unsigned char *buf, *want;

  if ((rc = MPI_Init(&argc, &argv)) != MPI_SUCCESS) {
    fprintf(stderr, "iopattern: MPI_Init failed (%d)\n", rc);
    return 1;
  }
  ex_check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN),
           "MPI_Comm_set_errhandler", NULL);
  ex_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank", NULL);
  ex_init("iopattern");
  ex_check(MPI_Comm_size(MPI_COMM_WORLD, &nprocs), "MPI_Comm_size", NULL);

  opterr = 0;
  while (err == NULL && (opt = getopt(argc, argv, "p:b:s:ckh")) != -1) {
    switch (opt) {
    case 'p':
      if (strcmp(optarg, "all") == 0) {
        first = 0;
        last = NPATTERNS - 1;
        break;
      }
      for (first = 0; first < NPATTERNS; first++)
        if (strcmp(optarg, pattern_name[first]) == 0)
          break;
      last = first;
      if (first == NPATTERNS)
        err = "-p: not contiguous, strided, nested or all";
      break;
    case 'b':
      if ((b = ex_parse_count(optarg, INT_MAX)) < 0)
        err = "-b: not a size from 1 to 2G-1";
      break;
    case 's':
      if ((size = ex_parse_count(optarg, LLONG_MAX)) < 0)
        err = "-s: not a size";
      break;
    case 'c': collective = 1; break;
    case 'k': keep = 1; break;
    case 'h':
      if (rank == 0)
        usage(stdout);
      return ex_finish(0);
    default: err = "unknown option or missing value"; break;
    }
  }
  if (err == NULL && optind != argc - 1)
    err = optind == argc ? "no PATH given" : "more than one PATH";
  if (err == NULL && size % b != 0)
    err = "-s is not a multiple of -b";
  else if (err == NULL && size / b > INT_MAX)
    err = "-s / -b: more than 2^31-1 transfers";
  else if (err == NULL && size > LLONG_MAX / nprocs)
    err = "-s: the file would be too large";
  else if (err == NULL && last >= NESTED && b % NEST_PIECES != 0)
    err = "-b: the nested pattern needs a multiple of 4";
  if (err != NULL) {
    if (rank == 0) {
      fprintf(stderr, "iopattern: %s\n", err);
      usage(stderr);
    }
    return ex_finish(2);
  }

  isdir = ex_is_dir(argv[optind]);
  if ((buf = malloc((size_t)b)) == NULL ||
      (want = malloc((size_t)b)) == NULL) {
    fprintf(stderr, "iopattern: rank %d: out of memory for -b %lld\n", rank,
            b);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }

  for (int p = first; p <= last; p++) {
    char path[PATH_MAX];
    int n;

    if (isdir)
      n = snprintf(path, sizeof path, "%s/iopattern-%s.dat", argv[optind],
                   pattern_name[p]);
    else if (first != last)
      n = snprintf(path, sizeof path, "%s.%s", argv[optind],
                   pattern_name[p]);
    else
      n = snprintf(path, sizeof path, "%s", argv[optind]);
    if (n < 0 || (size_t)n >= sizeof path) {
      if (rank == 0)
        fprintf(stderr, "iopattern: %s: path too long\n", argv[optind]);
      failed = 2;
      break;
    }
    failed |= run_pattern(path, p, size, (int)b, collective, keep, buf,
                          want);
  }
  free(buf);
  free(want);
  return ex_finish(failed);
}
