/*
 * vpicio.c - a VPIC-IO-like kernel: the particle dump of a plasma code,
 * written with collective MPI-IO into one shared file.  It calls no pmon
 * function: measure it unmodified with pmon-run (make io-demo does).
 *
 *   mpirun -n 4 pmon-run -- ./vpicio [-n PARTICLES] [-t STEPS] [-r] [-k] PATH
 *
 * Each of the P ranks holds N particles (-n, default 1M; K, M and G
 * suffixes are powers of 1024) of eight 4-byte variables: x, y, z, px, py,
 * pz (float) and id1, id2 (32-bit int).  A time step writes the eight
 * arrays one after another, each with one MPI_File_write_at_all per rank,
 * rank r's N values of array a at byte
 *
 *   (8 * s + a) * N * P * 4 + r * N * 4       (step s, from 0)
 *
 * The T steps (-t, default 1) are appended to the same file, which is
 * opened and closed once per step, as VPIC-IO does for each dump; it ends
 * up exactly 32 * N * P * T bytes long.  With -r the file is then opened
 * again and read back collectively with MPI_File_read_at_all and every
 * value checked.  PATH is the file, or a directory to create vpicio.dat
 * in; the file is removed at the end with MPI_File_delete unless -k, and
 * an old file of that name is removed (MPI_File_delete) before the first
 * step.
 *
 * Bytes moved: each rank writes 32 * N * T bytes (and reads as many with
 * -r), the job P times that.  The MPI-IO calls per rank are, for the
 * writes, T * (1 open + 8 write_at_all + 1 close), for -r 1 open,
 * 8 * T read_at_all and 1 close; rank 0 also calls MPI_File_delete.
 *
 * Rank 0 prints one line per phase with the bytes and the program's own
 * I/O time: the longest, over the ranks, of the time a rank spent inside
 * the MPI_File calls of the phase (open and close included); MB/s are
 * 10^6 bytes per second of that time.  Any MPI error ends the job with a
 * message and a non-zero exit status; a wrong value read back with -r
 * gives exit status 1 after the report.
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

#define NARRAYS 8
#define VALUE_SIZE 4 /* bytes of each value, float or int32 */

static const char *const array_name[NARRAYS] = {"x",  "y",  "z",   "px",
                                                "py", "pz", "id1", "id2"};
static int rank;

static void usage(FILE *f)
{
  fprintf(f, "usage: vpicio [-n PARTICLES] [-t STEPS] [-r] [-k] PATH\n"
             "  -n N  particles per rank (K, M, G: x1024), default 1M\n"
             "  -t T  time steps, appended to the file, default 1\n"
             "  -r    read the file back collectively and check it\n"
             "  -k    keep the file (default: MPI_File_delete at the end)\n"
             "  PATH  the file, or a directory to write vpicio.dat in\n");
}

/* Fill BUF with the N values of array A at step S of this rank. */
static void fill(void *buf, int a, int s, long long first, int n)
{
  uint64_t seed = ((uint64_t)s << 56) ^ ((uint64_t)a << 48);

  for (int i = 0; i < n; i++) {
    uint64_t g = (uint64_t)(first + i), h = ex_mix(seed ^ g);

    if (a == 6) /* id1: the particle's global index */
      ((int32_t *)buf)[i] = (int32_t)(g & 0x7fffffff);
    else if (a == 7) /* id2: the step */
      ((int32_t *)buf)[i] = s;
    else if (a < 3) /* position in [0, 100) */
      ((float *)buf)[i] = (float)(h >> 40) * (100.0f / 16777216.0f);
    else /* momentum in [-1, 1) */
      ((float *)buf)[i] = (float)(h >> 40) * (2.0f / 16777216.0f) - 1.0f;
  }
}

static MPI_Datatype array_type(int a)
{
  return a >= 6 ? MPI_INT32_T : MPI_FLOAT;
}

/* The status of a transfer of N values of TYPE must say N. */
static void check_count(MPI_Status *st, MPI_Datatype type, int n,
                        const char *what)
{
  int got = -1;

  ex_check(MPI_Get_count(st, type, &got), "MPI_Get_count", NULL);
  if (got != n) {
    fprintf(stderr, "vpicio: rank %d: %s moved %d values, not %d\n", rank,
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

static double write_steps(const char *path, int n, int steps, int nprocs,
                          void *buf)
{
  double t = 0;

  for (int s = 0; s < steps; s++) {
    MPI_File fh;
    MPI_Status st;

    TIMED(&t, "MPI_File_open", path,
          MPI_File_open(MPI_COMM_WORLD, path,
                        MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                        &fh));
    for (int a = 0; a < NARRAYS; a++) {
      MPI_Offset off = (((MPI_Offset)s * NARRAYS + a) * nprocs + rank) *
                       (MPI_Offset)n * VALUE_SIZE;

      fill(buf, a, s, (long long)rank * n, n);
      TIMED(&t, "MPI_File_write_at_all", array_name[a],
            MPI_File_write_at_all(fh, off, buf, n, array_type(a), &st));
      check_count(&st, array_type(a), n, "MPI_File_write_at_all");
    }
    TIMED(&t, "MPI_File_close", path, MPI_File_close(&fh));
  }
  return t;
}

/* Read every step back; the number of wrong values is put in *BAD. */
static double read_steps(const char *path, int n, int steps, int nprocs,
                         void *buf, void *want, long long *bad)
{
  double t = 0;
  MPI_File fh;
  MPI_Status st;

  *bad = 0;
  TIMED(&t, "MPI_File_open", path,
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL,
                      &fh));
  for (int s = 0; s < steps; s++) {
    for (int a = 0; a < NARRAYS; a++) {
      MPI_Offset off = (((MPI_Offset)s * NARRAYS + a) * nprocs + rank) *
                       (MPI_Offset)n * VALUE_SIZE;
      const char *w = want, *g = buf;

      memset(buf, 0xff, (size_t)n * VALUE_SIZE);
      TIMED(&t, "MPI_File_read_at_all", array_name[a],
            MPI_File_read_at_all(fh, off, buf, n, array_type(a), &st));
      check_count(&st, array_type(a), n, "MPI_File_read_at_all");
      fill(want, a, s, (long long)rank * n, n);
      for (int i = 0; i < n; i++) {
        if (memcmp(w + (size_t)i * VALUE_SIZE, g + (size_t)i * VALUE_SIZE,
                   VALUE_SIZE) != 0) {
          if (*bad == 0)
            fprintf(stderr,
                    "vpicio: rank %d: step %d, %s[%d]: wrong value read "
                    "back\n",
                    rank, s, array_name[a], i);
          (*bad)++;
        }
      }
    }
  }
  TIMED(&t, "MPI_File_close", path, MPI_File_close(&fh));
  return t;
}

static void result(const char *phase, double t, int nprocs, long long n,
                   int steps, long long bytes, const char *extra)
{
  printf("vpicio: %s %d ranks x %lld particles x %d arrays x %d step%s x "
         "%d B = %lld bytes, I/O time %.6f s, %.1f MB/s%s\n",
         phase, nprocs, n, NARRAYS, steps, steps == 1 ? "" : "s",
         VALUE_SIZE, bytes, t,
         t > 0 ? (double)bytes / t / 1e6 : 0.0, extra);
}

int main(int argc, char **argv)
{
  long long n = 1LL << 20, bad = 0, allbad = 0, bytes;
  int steps = 1, readback = 0, keep = 0, nprocs, opt;
  int exists = 0, isdir = 0, rc;
  const char *err = NULL;
  char path[PATH_MAX];
  double t, tmax;
  void *buf = NULL, *want = NULL;

  if ((rc = MPI_Init(&argc, &argv)) != MPI_SUCCESS) {
    fprintf(stderr, "vpicio: MPI_Init failed (%d)\n", rc);
    return 1;
  }
  ex_check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN),
           "MPI_Comm_set_errhandler", NULL);
  ex_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank", NULL);
  ex_init("vpicio");
  ex_check(MPI_Comm_size(MPI_COMM_WORLD, &nprocs), "MPI_Comm_size", NULL);

  opterr = 0;
  while (err == NULL && (opt = getopt(argc, argv, "n:t:rkh")) != -1) {
    long long v;

    switch (opt) {
    case 'n':
      if ((n = ex_parse_count(optarg, INT_MAX)) < 0)
        err = "-n: not a count from 1 to 2^31-1";
      break;
    case 't':
      if ((v = ex_parse_count(optarg, INT_MAX)) < 0)
        err = "-t: not a count from 1 to 2^31-1";
      steps = (int)v;
      break;
    case 'r': readback = 1; break;
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
  /* The file must stay within an MPI_Offset, a buffer within memory. */
  if (err == NULL &&
      ((long long)steps * NARRAYS * VALUE_SIZE * nprocs > LLONG_MAX / n ||
       (unsigned long long)n * VALUE_SIZE > SIZE_MAX / 2))
    err = "-n and -t: the file would be too large";
  if (err != NULL) {
    if (rank == 0) {
      fprintf(stderr, "vpicio: %s\n", err);
      usage(stderr);
    }
    return ex_finish(2);
  }

  /* PATH: a directory, an old file to remove, or new. */
  isdir = ex_is_dir(argv[optind]);
  if ((size_t)snprintf(path, sizeof path, "%s%s", argv[optind],
                       isdir ? "/vpicio.dat" : "") >= sizeof path) {
    if (rank == 0)
      fprintf(stderr, "vpicio: %s: path too long\n", argv[optind]);
    return ex_finish(2);
  }
  if (rank == 0) {
    struct stat sb;

    exists = stat(path, &sb) == 0;
  }
  if (exists)
    ex_check(MPI_File_delete(path, MPI_INFO_NULL), "MPI_File_delete", path);

  if ((buf = malloc((size_t)n * VALUE_SIZE)) == NULL ||
      (readback && (want = malloc((size_t)n * VALUE_SIZE)) == NULL)) {
    fprintf(stderr, "vpicio: rank %d: out of memory for %lld particles\n",
            rank, n);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }
  bytes = (long long)nprocs * n * NARRAYS * VALUE_SIZE * steps;

  ex_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier", NULL);
  t = write_steps(path, (int)n, steps, nprocs, buf);
  ex_check(MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD),
           "MPI_Reduce", NULL);
  if (rank == 0)
    result("write", tmax, nprocs, n, steps, bytes, "");

  if (readback) {
    ex_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier", NULL);
    t = read_steps(path, (int)n, steps, nprocs, buf, want, &bad);
    ex_check(MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD),
             "MPI_Reduce", NULL);
    ex_check(MPI_Allreduce(&bad, &allbad, 1, MPI_LONG_LONG, MPI_SUM,
                           MPI_COMM_WORLD),
             "MPI_Allreduce", NULL);
    if (rank == 0)
      result("read ", tmax, nprocs, n, steps, bytes,
             allbad == 0 ? ", verified" : ", WRONG DATA");
    if (rank == 0 && allbad != 0)
      fprintf(stderr, "vpicio: %lld values read back from %s are wrong\n",
              allbad, path);
  }

  ex_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier", NULL);
  if (rank == 0) {
    if (keep)
      printf("vpicio: kept %s\n", path);
    else
      ex_check(MPI_File_delete(path, MPI_INFO_NULL), "MPI_File_delete", path);
  }
  free(buf);
  free(want);
  return ex_finish(allbad != 0);
}
