/*
 * h5vpic.c - the VPIC-IO kernel of vpicio.c through parallel HDF5, as the
 * VPIC-IO benchmark writes it (one dataset per particle variable, written
 * collectively).  HDF5's MPI-IO driver makes the MPI_File calls, so that
 * pmon-run measures it unmodified (make io-demo does when HDF5 is there).
 *
 *   mpirun -n 4 pmon-run -- ./h5vpic [-n PARTICLES] [-t STEPS] [-r] [-k] PATH
 *
 * Each of the P ranks holds N particles (-n, default 1M; K, M and G
 * suffixes are powers of 1024) of eight 4-byte variables: x, y, z, px, py,
 * pz (float) and id1, id2 (32-bit int), the same values as vpicio.  The
 * file (H5Pset_fapl_mpio) has one group per time step, "Step#0",
 * "Step#1", ... (T steps, -t, default 1), each with eight one-dimensional
 * datasets of N * P values, x to id2; rank r writes elements r * N to
 * r * N + N - 1 of each, with one collective H5Dwrite per dataset
 * (H5Pset_dxpl_mpio H5FD_MPIO_COLLECTIVE).  The datasets are contiguous
 * and never filled (H5D_FILL_TIME_NEVER), so that the raw data is written
 * once.  The file is created (truncated) at step 0 and opened again for
 * each later step, closed after each.  With -r it is then opened again,
 * every dataset read back collectively and every value checked.  PATH is
 * the file, or a directory to write h5vpic.h5 in; the file is removed at
 * the end with MPI_File_delete unless -k.
 *
 * Bytes moved: each rank writes 32 * N * T bytes of raw data (and reads
 * as many with -r), the job P times that.  HDF5 adds its metadata
 * (superblock, object headers, group indexes: a few KiB per step), so the
 * file, and the bytes the MPI-IO layer sees, are a little more than
 * 32 * N * P * T.
 *
 * Rank 0 prints one line per phase with the raw bytes and the program's
 * own I/O time: the longest, over the ranks, of the time a rank spent
 * inside the HDF5 calls of the phase (file, group and dataset creation
 * and closing included); MB/s are 10^6 bytes per second of that time.
 * Any MPI or HDF5 error ends the job with a message and a non-zero exit
 * status; a wrong value read back with -r gives exit status 1 after the
 * report.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>
#include <mpi.h>

#include "common.h"

#define NARRAYS 8
#define VALUE_SIZE 4 /* bytes of each value, float or int32 */

static const char *const array_name[NARRAYS] = {"x",  "y",  "z",   "px",
                                                "py", "pz", "id1", "id2"};
static int rank;

static void usage(FILE *f)
{
  fprintf(f, "usage: h5vpic [-n PARTICLES] [-t STEPS] [-r] [-k] PATH\n"
             "  -n N  particles per rank (K, M, G: x1024), default 1M\n"
             "  -t T  time steps, one group each, default 1\n"
             "  -r    read the file back collectively and check it\n"
             "  -k    keep the file (default: MPI_File_delete at the end)\n"
             "  PATH  the file, or a directory to write h5vpic.h5 in\n");
}

/* End the job when the HDF5 call WHAT (on ARG) returned a negative value
 * RET; HDF5 has printed its error stack. */
static long long h5check(long long ret, const char *what, const char *arg)
{
  if (ret < 0) {
    fprintf(stderr, "h5vpic: rank %d: %s%s%s failed\n", rank, what,
            arg != NULL ? " " : "", arg != NULL ? arg : "");
    ex_fail();
  }
  return ret;
}

/* Fill BUF with the N values of array A at step S of this rank (the same
 * values as vpicio). */
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

/* Time the HDF5 call CALL into *T and check it; its value goes to V. */
#define TIMED(t, v, what, arg, call)                                         \
  do {                                                                       \
    double t0_ = MPI_Wtime();                                                \
    long long r_ = (call);                                                   \
    *(t) += MPI_Wtime() - t0_;                                               \
    (v) = h5check(r_, what, arg);                                            \
  } while (0)

/* The property lists and dataspaces all steps share. */
struct h5 {
  hid_t fapl, dxpl, dcpl, filespace, memspace;
};

static void h5_setup(struct h5 *h, long long n, int nprocs)
{
  hsize_t total = (hsize_t)n * (hsize_t)nprocs, mine = (hsize_t)n;
  hsize_t start = (hsize_t)rank * (hsize_t)n;

  h->fapl = (hid_t)h5check(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate", NULL);
  h5check(H5Pset_fapl_mpio(h->fapl, MPI_COMM_WORLD, MPI_INFO_NULL),
          "H5Pset_fapl_mpio", NULL);
  h->dxpl = (hid_t)h5check(H5Pcreate(H5P_DATASET_XFER), "H5Pcreate", NULL);
  h5check(H5Pset_dxpl_mpio(h->dxpl, H5FD_MPIO_COLLECTIVE),
          "H5Pset_dxpl_mpio", NULL);
  h->dcpl = (hid_t)h5check(H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate", NULL);
  h5check(H5Pset_fill_time(h->dcpl, H5D_FILL_TIME_NEVER), "H5Pset_fill_time",
          NULL);
  h->filespace =
    (hid_t)h5check(H5Screate_simple(1, &total, NULL), "H5Screate_simple",
                   NULL);
  h5check(H5Sselect_hyperslab(h->filespace, H5S_SELECT_SET, &start, NULL,
                              &mine, NULL),
          "H5Sselect_hyperslab", NULL);
  h->memspace =
    (hid_t)h5check(H5Screate_simple(1, &mine, NULL), "H5Screate_simple",
                   NULL);
}

static void h5_teardown(struct h5 *h)
{
  h5check(H5Sclose(h->memspace), "H5Sclose", NULL);
  h5check(H5Sclose(h->filespace), "H5Sclose", NULL);
  h5check(H5Pclose(h->dcpl), "H5Pclose", NULL);
  h5check(H5Pclose(h->dxpl), "H5Pclose", NULL);
  h5check(H5Pclose(h->fapl), "H5Pclose", NULL);
}

static hid_t file_type(int a)
{
  return a >= 6 ? H5T_STD_I32LE : H5T_IEEE_F32LE;
}

static hid_t mem_type(int a)
{
  return a >= 6 ? H5T_NATIVE_INT32 : H5T_NATIVE_FLOAT;
}

static double write_steps(struct h5 *h, const char *path, int n, int steps,
                          void *buf)
{
  double t = 0;

  for (int s = 0; s < steps; s++) {
    char group[32];
    hid_t file, g, d;
    herr_t e;

    snprintf(group, sizeof group, "Step#%d", s);
    if (s == 0)
      TIMED(&t, file, "H5Fcreate", path,
            H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, h->fapl));
    else
      TIMED(&t, file, "H5Fopen", path, H5Fopen(path, H5F_ACC_RDWR, h->fapl));
    TIMED(&t, g, "H5Gcreate", group,
          H5Gcreate2(file, group, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    for (int a = 0; a < NARRAYS; a++) {
      fill(buf, a, s, (long long)rank * n, n);
      TIMED(&t, d, "H5Dcreate", array_name[a],
            H5Dcreate2(g, array_name[a], file_type(a), h->filespace,
                       H5P_DEFAULT, h->dcpl, H5P_DEFAULT));
      TIMED(&t, e, "H5Dwrite", array_name[a],
            H5Dwrite(d, mem_type(a), h->memspace, h->filespace, h->dxpl,
                     buf));
      TIMED(&t, e, "H5Dclose", array_name[a], H5Dclose(d));
    }
    TIMED(&t, e, "H5Gclose", group, H5Gclose(g));
    TIMED(&t, e, "H5Fclose", path, H5Fclose(file));
    (void)e;
  }
  return t;
}

/* Read every step back; the number of wrong values is put in *BAD. */
static double read_steps(struct h5 *h, const char *path, int n, int steps,
                         void *buf, void *want, long long *bad)
{
  double t = 0;
  hid_t file, g, d;
  herr_t e;

  *bad = 0;
  TIMED(&t, file, "H5Fopen", path, H5Fopen(path, H5F_ACC_RDONLY, h->fapl));
  for (int s = 0; s < steps; s++) {
    char group[32];

    snprintf(group, sizeof group, "Step#%d", s);
    TIMED(&t, g, "H5Gopen", group, H5Gopen2(file, group, H5P_DEFAULT));
    for (int a = 0; a < NARRAYS; a++) {
      const char *w = want, *got = buf;

      memset(buf, 0xff, (size_t)n * VALUE_SIZE);
      TIMED(&t, d, "H5Dopen", array_name[a],
            H5Dopen2(g, array_name[a], H5P_DEFAULT));
      TIMED(&t, e, "H5Dread", array_name[a],
            H5Dread(d, mem_type(a), h->memspace, h->filespace, h->dxpl,
                    buf));
      TIMED(&t, e, "H5Dclose", array_name[a], H5Dclose(d));
      fill(want, a, s, (long long)rank * n, n);
      for (int i = 0; i < n; i++) {
        if (memcmp(w + (size_t)i * VALUE_SIZE,
                   got + (size_t)i * VALUE_SIZE, VALUE_SIZE) != 0) {
          if (*bad == 0)
            fprintf(stderr,
                    "h5vpic: rank %d: step %d, %s[%d]: wrong value read "
                    "back\n",
                    rank, s, array_name[a], i);
          (*bad)++;
        }
      }
    }
    TIMED(&t, e, "H5Gclose", group, H5Gclose(g));
  }
  TIMED(&t, e, "H5Fclose", path, H5Fclose(file));
  (void)e;
  return t;
}

static void result(const char *phase, double t, int nprocs, long long n,
                   int steps, long long bytes, const char *extra)
{
  printf("h5vpic: %s %d ranks x %lld particles x %d arrays x %d step%s x "
         "%d B = %lld bytes, I/O time %.6f s, %.1f MB/s%s\n",
         phase, nprocs, n, NARRAYS, steps, steps == 1 ? "" : "s",
         VALUE_SIZE, bytes, t, t > 0 ? (double)bytes / t / 1e6 : 0.0,
         extra);
}

int main(int argc, char **argv)
{
  long long n = 1LL << 20, bad = 0, allbad = 0, bytes;
  int steps = 1, readback = 0, keep = 0, nprocs, opt, isdir = 0, rc;
  const char *err = NULL;
  char path[PATH_MAX];
  double t, tmax;
  void *buf = NULL, *want = NULL;
  struct h5 h;

  if ((rc = MPI_Init(&argc, &argv)) != MPI_SUCCESS) {
    fprintf(stderr, "h5vpic: MPI_Init failed (%d)\n", rc);
    return 1;
  }
  ex_check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN),
           "MPI_Comm_set_errhandler", NULL);
  ex_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank", NULL);
  ex_init("h5vpic");
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
  if (err == NULL &&
      ((long long)steps * NARRAYS * VALUE_SIZE * nprocs > LLONG_MAX / n ||
       (unsigned long long)n * VALUE_SIZE > SIZE_MAX / 2))
    err = "-n and -t: the file would be too large";
  if (err != NULL) {
    if (rank == 0) {
      fprintf(stderr, "h5vpic: %s\n", err);
      usage(stderr);
    }
    return ex_finish(2);
  }

  isdir = ex_is_dir(argv[optind]);
  if ((size_t)snprintf(path, sizeof path, "%s%s", argv[optind],
                       isdir ? "/h5vpic.h5" : "") >= sizeof path) {
    if (rank == 0)
      fprintf(stderr, "h5vpic: %s: path too long\n", argv[optind]);
    return ex_finish(2);
  }
  if ((buf = malloc((size_t)n * VALUE_SIZE)) == NULL ||
      (readback && (want = malloc((size_t)n * VALUE_SIZE)) == NULL)) {
    fprintf(stderr, "h5vpic: rank %d: out of memory for %lld particles\n",
            rank, n);
    ex_fail();
  }
  bytes = (long long)nprocs * n * NARRAYS * VALUE_SIZE * steps;
  h5_setup(&h, n, nprocs);

  ex_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier", NULL);
  t = write_steps(&h, path, (int)n, steps, buf);
  ex_check(MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD),
           "MPI_Reduce", NULL);
  if (rank == 0)
    result("write", tmax, nprocs, n, steps, bytes, "");

  if (readback) {
    ex_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier", NULL);
    t = read_steps(&h, path, (int)n, steps, buf, want, &bad);
    ex_check(MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD),
             "MPI_Reduce", NULL);
    ex_check(MPI_Allreduce(&bad, &allbad, 1, MPI_LONG_LONG, MPI_SUM,
                           MPI_COMM_WORLD),
             "MPI_Allreduce", NULL);
    if (rank == 0)
      result("read ", tmax, nprocs, n, steps, bytes,
             allbad == 0 ? ", verified" : ", WRONG DATA");
    if (rank == 0 && allbad != 0)
      fprintf(stderr, "h5vpic: %lld values read back from %s are wrong\n",
              allbad, path);
  }
  h5_teardown(&h);
  h5check(H5close(), "H5close", NULL);

  ex_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier", NULL);
  if (rank == 0) {
    if (keep)
      printf("h5vpic: kept %s\n", path);
    else
      ex_check(MPI_File_delete(path, MPI_INFO_NULL), "MPI_File_delete", path);
  }
  free(buf);
  free(want);
  return ex_finish(allbad != 0);
}
