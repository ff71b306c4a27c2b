/*
 * io_families - every MPI-IO family that reads or writes data, each on its
 * own file, for the tests of the "io" section of the report.  Plain MPI.
 *
 *   io_families [-k] [-L] [-M] [K]
 *
 * For each family F (the names below), the ranks open "c.F" in the current
 * directory collectively (MPI_MODE_CREATE | MPI_MODE_RDWR); rank r writes
 * (r+1)*K elements (K = 1000 unless given) with the family's write call
 * into its own region of the file, reads them back with the matching read
 * call, checks them and the file is closed.  Rank r's region starts after
 * the regions of the ranks below it.  One write and one read per rank and
 * file; a non-blocking call is completed with MPI_Wait; a split collective
 * is one _begin and one _end.  No other MPI-IO call touches the files but
 * MPI_File_seek and MPI_File_seek_shared (for the families that use a file
 * pointer), and at the end MPI_File_delete of every file on rank 0, after
 * a barrier (-k keeps the files).
 *
 *   ind            MPI_File_write / MPI_File_read (individual pointer)
 *   all            MPI_File_write_all / _read_all
 *   i              MPI_File_iwrite / _iread
 *   i_all          MPI_File_iwrite_all / _iread_all
 *   at             MPI_File_write_at / _read_at
 *   at_all         MPI_File_write_at_all / _read_at_all
 *   i_at           MPI_File_iwrite_at / _iread_at
 *   i_at_all       MPI_File_iwrite_at_all / _iread_at_all
 *   shared         MPI_File_write_shared / _read_shared (ranks in turn)
 *   i_shared       MPI_File_iwrite_shared / _iread_shared (ranks in turn)
 *   ordered        MPI_File_write_ordered / _read_ordered
 *   all_split      MPI_File_write_all_begin/_end, _read_all_begin/_end
 *   at_all_split   MPI_File_write_at_all_begin/_end, _read_at_all_begin/_end
 *   ordered_split  MPI_File_write_ordered_begin/_end, _read_ordered_begin/_end
 *
 * The element type goes round MPI_INT, MPI_DOUBLE and a derived type D =
 * MPI_Type_vector(2, 1, 2, MPI_DOUBLE) (16 bytes of data, extent 24: the
 * hole is neither written nor read) in the order of the list: ind MPI_INT,
 * all MPI_DOUBLE, i D, i_all MPI_INT, and so on.
 *
 * -L adds the file "c.large": rank 0 makes it a symbolic link to /dev/null
 * and, after a collective MPI_MODE_WRONLY open, writes to it in ONE
 * MPI_File_write_at call 4097 elements of a 1 MiB contiguous type:
 * 4296015872 bytes, above 2^32, with an untouched calloc buffer, so that
 * it costs neither memory nor disk.  No read.  Where the system refuses
 * the 4 GiB of address space, c.large is left out (said on stderr).
 *
 * -M adds the files "c.mix_a" and "c.mix_b", opened together, and a run
 * of MIX_ROUNDS rounds of MPI_File_write_at and _read_at calls that goes
 * back and forth between them, changes the datatype from one call to the
 * next (MPI_INT, MPI_DOUBLE, MPI_BYTE), writes zero elements now and then,
 * and writes with a derived type that is freed and at once made again
 * with another size (MPI may give the new type the old handle):
 * what the interception's fast path must tell apart.  Each rank writes
 * in its own MiB of each file.
 *
 * Output (stdout, rank 0, nothing else): one line per file, in the order
 * above,
 *
 *   NAME BYTES_WRITTEN BYTES_READ WRITES READS
 *
 * the job totals (MPI_Reduce over the ranks) of count x MPI_Type_size of
 * the successful data calls the ranks made on the file, and the number of
 * those calls (a split collective counts once, at _begin).  The numbers
 * are counted where the calls are made, from their arguments.
 *
 * Exit status 0; 1 when some data read back was wrong (or the status gave
 * another count); MPI_Abort (non-zero) on any MPI error; 2 on bad usage.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

enum family {
  F_IND, F_ALL, F_I, F_I_ALL, F_AT, F_AT_ALL, F_I_AT, F_I_AT_ALL,
  F_SHARED, F_I_SHARED, F_ORDERED, F_ALL_SPLIT, F_AT_ALL_SPLIT,
  F_ORDERED_SPLIT, F_LARGE, F_MIX_A, F_MIX_B, NFILES
};
#define NFAM F_LARGE

static const char *const family_name[NFILES] = {
  "ind", "all", "i", "i_all", "at", "at_all", "i_at", "i_at_all",
  "shared", "i_shared", "ordered", "all_split", "at_all_split",
  "ordered_split", "large", "mix_a", "mix_b"
};

enum { T_INT, T_DOUBLE, T_DERIVED };

#define LARGE_COUNT 4097
#define LARGE_SIZE (1 << 20)
#define MIX_ROUNDS 300

static int rank, nranks;
/* Per file: bytes written, bytes read, writes, reads (this rank). */
static long long counts[NFILES][4];
static int mismatches;

static void check(int rc, const char *call, int f)
{
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;

  if (rc == MPI_SUCCESS)
    return;
  MPI_Error_string(rc, msg, &len);
  fprintf(stderr, "io_families: rank %d: %s on c.%s: %s\n", rank, call,
          family_name[f], msg);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

/* The data call of family F (a write when W), COUNT elements of TYPE at
 * BUF, at byte offset OFF for the families with an explicit offset; the
 * request of a non-blocking call is completed here.  Counts the call and
 * checks that the status says COUNT elements. */
static void data_call(int f, int w, MPI_File fh, MPI_Offset off, void *buf,
                      int count, MPI_Datatype type)
{
  MPI_Status st;
  MPI_Request req = MPI_REQUEST_NULL;
  const char *call = w ? "write" : "read";
  int rc, size, got;

  switch (f) {
  case F_IND:
    rc = w ? MPI_File_write(fh, buf, count, type, &st)
           : MPI_File_read(fh, buf, count, type, &st);
    break;
  case F_ALL:
    rc = w ? MPI_File_write_all(fh, buf, count, type, &st)
           : MPI_File_read_all(fh, buf, count, type, &st);
    break;
  case F_I:
    rc = w ? MPI_File_iwrite(fh, buf, count, type, &req)
           : MPI_File_iread(fh, buf, count, type, &req);
    break;
  case F_I_ALL:
    rc = w ? MPI_File_iwrite_all(fh, buf, count, type, &req)
           : MPI_File_iread_all(fh, buf, count, type, &req);
    break;
  case F_AT:
  case F_LARGE:
  case F_MIX_A:
  case F_MIX_B:
    rc = w ? MPI_File_write_at(fh, off, buf, count, type, &st)
           : MPI_File_read_at(fh, off, buf, count, type, &st);
    break;
  case F_AT_ALL:
    rc = w ? MPI_File_write_at_all(fh, off, buf, count, type, &st)
           : MPI_File_read_at_all(fh, off, buf, count, type, &st);
    break;
  case F_I_AT:
    rc = w ? MPI_File_iwrite_at(fh, off, buf, count, type, &req)
           : MPI_File_iread_at(fh, off, buf, count, type, &req);
    break;
  case F_I_AT_ALL:
    rc = w ? MPI_File_iwrite_at_all(fh, off, buf, count, type, &req)
           : MPI_File_iread_at_all(fh, off, buf, count, type, &req);
    break;
  case F_SHARED:
    rc = w ? MPI_File_write_shared(fh, buf, count, type, &st)
           : MPI_File_read_shared(fh, buf, count, type, &st);
    break;
  case F_I_SHARED:
    rc = w ? MPI_File_iwrite_shared(fh, buf, count, type, &req)
           : MPI_File_iread_shared(fh, buf, count, type, &req);
    break;
  case F_ORDERED:
    rc = w ? MPI_File_write_ordered(fh, buf, count, type, &st)
           : MPI_File_read_ordered(fh, buf, count, type, &st);
    break;
  case F_ALL_SPLIT:
    rc = w ? MPI_File_write_all_begin(fh, buf, count, type)
           : MPI_File_read_all_begin(fh, buf, count, type);
    check(rc, w ? "write_all_begin" : "read_all_begin", f);
    rc = w ? MPI_File_write_all_end(fh, buf, &st)
           : MPI_File_read_all_end(fh, buf, &st);
    break;
  case F_AT_ALL_SPLIT:
    rc = w ? MPI_File_write_at_all_begin(fh, off, buf, count, type)
           : MPI_File_read_at_all_begin(fh, off, buf, count, type);
    check(rc, w ? "write_at_all_begin" : "read_at_all_begin", f);
    rc = w ? MPI_File_write_at_all_end(fh, buf, &st)
           : MPI_File_read_at_all_end(fh, buf, &st);
    break;
  case F_ORDERED_SPLIT:
    rc = w ? MPI_File_write_ordered_begin(fh, buf, count, type)
           : MPI_File_read_ordered_begin(fh, buf, count, type);
    check(rc, w ? "write_ordered_begin" : "read_ordered_begin", f);
    rc = w ? MPI_File_write_ordered_end(fh, buf, &st)
           : MPI_File_read_ordered_end(fh, buf, &st);
    break;
  default:
    abort();
  }
  check(rc, call, f);
  if (req != MPI_REQUEST_NULL)
    check(MPI_Wait(&req, &st), "MPI_Wait", f);
  check(MPI_Type_size(type, &size), "MPI_Type_size", f);
  counts[f][w ? 0 : 1] += (long long)count * size;
  counts[f][w ? 2 : 3]++;
  check(MPI_Get_count(&st, type, &got), "MPI_Get_count", f);
  if (got != count) {
    fprintf(stderr, "io_families: rank %d: %s on c.%s: status count %d, "
            "expected %d\n", rank, call, family_name[f], got, count);
    mismatches++;
  }
}

/* Element J of rank R's data in family F, as an integer. */
static int value(int f, int r, long j)
{
  return (int)(((unsigned long)r * 7919u + (unsigned long)j * 31u +
                (unsigned long)f) % 1000003u);
}

static void one_family(int f, int k, MPI_Datatype derived)
{
  int kind = f % 3, count = (rank + 1) * k, size, ok = 1;
  MPI_Datatype type = kind == T_INT ? MPI_INT
                    : kind == T_DOUBLE ? MPI_DOUBLE : derived;
  /* Memory per element: 1 int, 1 double, or 3 doubles of which the
   * middle one is D's hole. */
  long n = kind == T_DERIVED ? 3L * count : count, j;
  size_t esize = kind == T_INT ? sizeof(int) : sizeof(double);
  void *wbuf = malloc((size_t)n * esize), *rbuf = malloc((size_t)n * esize);
  MPI_Offset off;
  MPI_File fh;
  char name[64];
  int i;

  if (wbuf == NULL || rbuf == NULL) {
    fprintf(stderr, "io_families: rank %d: out of memory\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  for (j = 0; j < n; j++) {
    if (kind == T_INT) {
      ((int *)wbuf)[j] = value(f, rank, j);
      ((int *)rbuf)[j] = -1;
    } else {
      ((double *)wbuf)[j] = value(f, rank, j) + 0.5;
      ((double *)rbuf)[j] = -1.0;
    }
  }
  check(MPI_Type_size(type, &size), "MPI_Type_size", f);
  off = (MPI_Offset)size * k * rank * (rank + 1) / 2;
  snprintf(name, sizeof name, "c.%s", family_name[f]);
  check(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR,
                      MPI_INFO_NULL, &fh), "open", f);

  switch (f) {
  case F_IND: case F_ALL: case F_I: case F_I_ALL: case F_ALL_SPLIT:
    check(MPI_File_seek(fh, off, MPI_SEEK_SET), "seek", f);
    data_call(f, 1, fh, 0, wbuf, count, type);
    check(MPI_File_seek(fh, off, MPI_SEEK_SET), "seek", f);
    data_call(f, 0, fh, 0, rbuf, count, type);
    break;
  case F_AT: case F_AT_ALL: case F_I_AT: case F_I_AT_ALL: case F_AT_ALL_SPLIT:
    data_call(f, 1, fh, off, wbuf, count, type);
    data_call(f, 0, fh, off, rbuf, count, type);
    break;
  case F_SHARED: case F_I_SHARED:
    /* The ranks in turn, so that rank r's data lands after rank r-1's. */
    for (i = 0; i < nranks; i++) {
      if (i == rank)
        data_call(f, 1, fh, 0, wbuf, count, type);
      MPI_Barrier(MPI_COMM_WORLD);
    }
    check(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET), "seek_shared", f);
    for (i = 0; i < nranks; i++) {
      if (i == rank)
        data_call(f, 0, fh, 0, rbuf, count, type);
      MPI_Barrier(MPI_COMM_WORLD);
    }
    break;
  case F_ORDERED: case F_ORDERED_SPLIT:
    data_call(f, 1, fh, 0, wbuf, count, type);
    check(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET), "seek_shared", f);
    data_call(f, 0, fh, 0, rbuf, count, type);
    break;
  default:
    abort();
  }
  check(MPI_File_close(&fh), "close", f);

  /* The data must be back, D's holes untouched. */
  for (j = 0; j < n && ok; j++) {
    if (kind == T_INT)
      ok = ((int *)rbuf)[j] == ((int *)wbuf)[j];
    else if (kind == T_DERIVED && j % 3 == 1)
      ok = ((double *)rbuf)[j] == -1.0;
    else
      ok = ((double *)rbuf)[j] == ((double *)wbuf)[j];
  }
  if (!ok) {
    fprintf(stderr, "io_families: rank %d: c.%s: wrong data at element "
            "%ld of the buffer\n", rank, family_name[f], j - 1);
    mismatches++;
  }
  free(wbuf);
  free(rbuf);
}

/* -L: one write of LARGE_COUNT x LARGE_SIZE bytes to /dev/null; 0 when
 * there was no memory for it. */
static int large(void)
{
  MPI_Datatype mib;
  MPI_File fh;
  void *buf = NULL;
  int have;

  if (rank == 0 && (buf = calloc(LARGE_COUNT, LARGE_SIZE)) == NULL)
    fprintf(stderr, "io_families: -L: no %d MiB of address space, "
            "c.large left out\n", LARGE_COUNT);
  have = buf != NULL;
  MPI_Bcast(&have, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!have)
    return 0;
  if (rank == 0) {
    if (unlink("c.large") != 0 && errno != ENOENT) {
      perror("io_families: c.large");
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (symlink("/dev/null", "c.large") != 0) {
      perror("io_families: symlink c.large");
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  check(MPI_Type_contiguous(LARGE_SIZE, MPI_BYTE, &mib), "type", F_LARGE);
  check(MPI_Type_commit(&mib), "type", F_LARGE);
  check(MPI_File_open(MPI_COMM_WORLD, "c.large", MPI_MODE_WRONLY,
                      MPI_INFO_NULL, &fh), "open", F_LARGE);
  if (rank == 0)
    data_call(F_LARGE, 1, fh, 0, buf, LARGE_COUNT, mib);
  check(MPI_File_close(&fh), "close", F_LARGE);
  MPI_Type_free(&mib);
  free(buf);
  return 1;
}

/* -M: see the top of the file. */
static void mix(void)
{
  MPI_Offset mine = (MPI_Offset)rank << 20;
  double buf[8] = {0};
  MPI_Datatype t;
  MPI_File a, b;
  int i, j;

  check(MPI_File_open(MPI_COMM_WORLD, "c.mix_a",
                      MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &a),
        "open", F_MIX_A);
  check(MPI_File_open(MPI_COMM_WORLD, "c.mix_b",
                      MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &b),
        "open", F_MIX_B);
  for (i = 0; i < MIX_ROUNDS; i++) {
    MPI_Offset off = mine + (MPI_Offset)i * 64;

    /* Each call twice in a row, the second on the fast path. */
    data_call(F_MIX_A, 1, a, off, buf, i % 4, MPI_INT);
    data_call(F_MIX_A, 1, a, off, buf, (i + 1) % 4, MPI_INT);
    data_call(F_MIX_A, 1, a, off + 16, buf, 1, MPI_DOUBLE);
    data_call(F_MIX_A, 1, a, off + 16, buf, 1, MPI_DOUBLE);
    data_call(F_MIX_B, 1, b, off, buf, i % 7 + 1, MPI_BYTE);
    data_call(F_MIX_B, 1, b, off, buf, i % 7 + 1, MPI_BYTE);
    for (j = 0; j < 2; j++) {
      check(MPI_Type_contiguous(1 + i % 3 + 3 * j, MPI_INT, &t), "type",
            F_MIX_A);
      check(MPI_Type_commit(&t), "type", F_MIX_A);
      data_call(F_MIX_A, 1, a, off + 24, buf, 2, t);
      data_call(F_MIX_A, 1, a, off + 24, buf, 2, t);
      check(MPI_Type_free(&t), "type", F_MIX_A);
    }
    data_call(F_MIX_B, 0, b, off, buf, i % 7 + 1, MPI_BYTE);
    data_call(F_MIX_B, 0, b, off, buf, i % 7 + 1, MPI_BYTE);
    data_call(F_MIX_A, 0, a, off + 16, buf, 1, MPI_DOUBLE);
    data_call(F_MIX_A, 0, a, off + 16, buf, 1, MPI_DOUBLE);
  }
  check(MPI_File_close(&a), "close", F_MIX_A);
  check(MPI_File_close(&b), "close", F_MIX_B);
}

int main(int argc, char **argv)
{
  long long totals[NFILES][4];
  int k = 1000, keep = 0, with_large = 0, with_mix = 0, f, i, bad;
  int used[NFILES] = {0};
  MPI_Datatype derived;
  char *end;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-k") == 0)
      keep = 1;
    else if (strcmp(argv[i], "-L") == 0)
      with_large = 1;
    else if (strcmp(argv[i], "-M") == 0)
      with_mix = 1;
    else {
      long v = strtol(argv[i], &end, 10);

      if (*end != '\0' || v < 1 || v > 1000000) {
        if (rank == 0)
          fprintf(stderr, "usage: io_families [-k] [-L] [-M] [K]\n");
        MPI_Finalize();
        return 2;
      }
      k = (int)v;
    }
  }

  MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &derived);
  MPI_Type_commit(&derived);
  for (f = 0; f < NFAM; f++) {
    one_family(f, k, derived);
    used[f] = 1;
  }
  MPI_Type_free(&derived);
  if (with_large && large())
    used[F_LARGE] = 1;
  if (with_mix) {
    mix();
    used[F_MIX_A] = used[F_MIX_B] = 1;
  }

  MPI_Reduce(counts, totals, NFILES * 4, MPI_LONG_LONG, MPI_SUM, 0,
             MPI_COMM_WORLD);
  MPI_Allreduce(&mismatches, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    for (f = 0; f < NFILES; f++) {
      char name[64];

      if (!used[f])
        continue;
      snprintf(name, sizeof name, "c.%s", family_name[f]);
      if (!keep)
        check(MPI_File_delete(name, MPI_INFO_NULL), "delete", f);
      printf("%s %lld %lld %lld %lld\n", name, totals[f][0], totals[f][1],
             totals[f][2], totals[f][3]);
    }
    fflush(stdout);
  }
  MPI_Finalize();
  return bad ? 1 : 0;
}
