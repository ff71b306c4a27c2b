/*
 * io_errors - MPI-IO calls that fail and calls that succeed, and what they
 * return, for the transparency test of the interception library: its
 * output must be the same with and without the library.  Plain MPI.
 *
 *   io_errors
 *
 * Every rank makes the same sequence of MPI-IO calls, each one expected to
 * fail, to succeed, or either (erroneous calls that the MPI library need
 * not catch: Open MPI 4.1 lets a read at offset -1 succeed with count 0);
 * the file error handler is left at its default, MPI_ERRORS_RETURN:
 *
 *   fail     MPI_File_open of "no-such-dir/e.data" (a missing directory)
 *   succeed  MPI_File_open of "e.data", MPI_MODE_CREATE | MPI_MODE_RDWR
 *   succeed  MPI_File_write_at of 100+r MPI_INTs (r = rank)
 *   succeed  MPI_File_iwrite_at of 100+r MPI_INTs, then MPI_Wait
 *   succeed  MPI_File_sync
 *   succeed  MPI_File_read_at of what write_at wrote (the data is checked)
 *   succeed  MPI_File_read_at past the end of the file (count 0)
 *   either   MPI_File_read_at at offset -1
 *   fail     MPI_File_read_at of count -1
 *   succeed  MPI_File_set_size to 65536, then MPI_File_get_size
 *            between two barriers
 *   either   MPI_File_set_size to -1
 *   succeed  MPI_File_preallocate of 131072, then MPI_File_get_size
 *            between two barriers
 *   succeed  MPI_File_close
 *   succeed  MPI_File_open of "e.data", MPI_MODE_RDONLY
 *   fail     MPI_File_write to that read-only file
 *   succeed  MPI_File_close
 *   fail     MPI_File_close of MPI_FILE_NULL
 *   succeed  MPI_File_delete of "e.data" (rank 0 only, between barriers)
 *   fail     MPI_File_delete of "no-such-file.data"
 *
 * For each call, one line: the rank, the call, the error class of its
 * return code (MPI_Error_class, by name) and, where the call has a status,
 * MPI_Get_count of it.  A status is preset with MPI_Status_set_elements
 * to 4242 elements before the call, so that a failing call shows whether
 * anything wrote into it.  Also the sizes MPI_File_get_size gives, whether
 * MPI_Wait set the request to MPI_REQUEST_NULL and whether the data read
 * back is right.  The barriers make those sizes the same on every rank:
 * set_size and preallocate are collective but need not synchronise, so a
 * rank can read the size before the call's work is done, or after the
 * next call's has begun.  Under load, with Open MPI 4.1.4, rank 1 read
 * 196608 after preallocate where rank 0 read 131072 (the barrier before
 * get_size), and 131072 after set_size 65536 (the barrier after it: rank
 * 0 had gone on to preallocate).  Rank 0 prints the lines of all ranks,
 * in rank order (gathered, so that the order does not depend on the
 * launcher), then
 *
 *   failing calls: N
 *
 * with N the number of calls above that returned an error, summed over
 * the ranks; nothing else goes to stdout.  The output depends only on the
 * MPI library and the number of ranks.
 *
 * Exit status 0 when every call failed or succeeded as listed, 1 when one
 * did not (its line says UNEXPECTED) or the data read back was wrong.  Needs the current directory to be
 * writable and to hold no "no-such-dir" or "no-such-file.data".
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#define OUT_SIZE 8192
#define PRESET 4242

static char out[OUT_SIZE];
static size_t out_len;
static int rank, failing, unexpected;

static void say(const char *fmt, ...)
{
  va_list ap;
  int n;

  va_start(ap, fmt);
  n = vsnprintf(out + out_len, OUT_SIZE - out_len, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= OUT_SIZE - out_len) {
    fprintf(stderr, "io_errors: output buffer too small\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  out_len += (size_t)n;
}

/* The name of the error class of RC. */
static const char *class_name(int rc)
{
  static char other[64];
  const struct { int c; const char *name; } names[] = {
    {MPI_SUCCESS, "MPI_SUCCESS"}, {MPI_ERR_ACCESS, "MPI_ERR_ACCESS"},
    {MPI_ERR_AMODE, "MPI_ERR_AMODE"}, {MPI_ERR_ARG, "MPI_ERR_ARG"},
    {MPI_ERR_BAD_FILE, "MPI_ERR_BAD_FILE"}, {MPI_ERR_COUNT, "MPI_ERR_COUNT"},
    {MPI_ERR_DUP_DATAREP, "MPI_ERR_DUP_DATAREP"},
    {MPI_ERR_FILE, "MPI_ERR_FILE"}, {MPI_ERR_FILE_EXISTS,
    "MPI_ERR_FILE_EXISTS"}, {MPI_ERR_FILE_IN_USE, "MPI_ERR_FILE_IN_USE"},
    {MPI_ERR_IO, "MPI_ERR_IO"}, {MPI_ERR_NO_SPACE, "MPI_ERR_NO_SPACE"},
    {MPI_ERR_NO_SUCH_FILE, "MPI_ERR_NO_SUCH_FILE"},
    {MPI_ERR_NOT_SAME, "MPI_ERR_NOT_SAME"}, {MPI_ERR_OTHER, "MPI_ERR_OTHER"},
    {MPI_ERR_QUOTA, "MPI_ERR_QUOTA"}, {MPI_ERR_READ_ONLY,
    "MPI_ERR_READ_ONLY"}, {MPI_ERR_TYPE, "MPI_ERR_TYPE"},
    {MPI_ERR_UNSUPPORTED_DATAREP, "MPI_ERR_UNSUPPORTED_DATAREP"},
    {MPI_ERR_UNSUPPORTED_OPERATION, "MPI_ERR_UNSUPPORTED_OPERATION"},
    {MPI_ERR_REQUEST, "MPI_ERR_REQUEST"}, {MPI_ERR_INTERN, "MPI_ERR_INTERN"},
  };
  size_t i;
  int c;

  if (MPI_Error_class(rc, &c) != MPI_SUCCESS) {
    snprintf(other, sizeof other, "(no class for code %d)", rc);
    return other;
  }
  for (i = 0; i < sizeof names / sizeof names[0]; i++)
    if (names[i].c == c)
      return names[i].name;
  snprintf(other, sizeof other, "error class %d", c);
  return other;
}

enum { FAIL, SUCCEED, EITHER };

/* One call's line: WHAT returned RC, EXPECT is FAIL, SUCCEED or EITHER;
 * with ST (not NULL), the status count in TYPE. */
static void report(const char *what, int rc, int expect,
                   MPI_Status *st, MPI_Datatype type)
{
  int ok = rc == MPI_SUCCESS;

  say("rank %d: %s: %s", rank, what, class_name(rc));
  if (!ok)
    failing++;
  if (st != NULL) {
    int n;

    if (MPI_Get_count(st, type, &n) != MPI_SUCCESS)
      say(", count (MPI_Get_count failed)");
    else if (n == MPI_UNDEFINED)
      say(", count MPI_UNDEFINED");
    else
      say(", count %d", n);
  }
  if (expect != EITHER && ok != (expect == SUCCEED)) {
    say(" UNEXPECTED");
    unexpected++;
  }
  say("\n");
}

static void preset(MPI_Status *st, MPI_Datatype type)
{
  MPI_Status_set_elements(st, type, PRESET);
}

int main(int argc, char **argv)
{
  MPI_File fh = MPI_FILE_NULL;
  MPI_Status st;
  MPI_Request req;
  MPI_Offset size, base;
  int nranks, rc, n, i, ok, total, bad, wbuf[200], rbuf[200];
  char *all = NULL;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  n = 100 + rank % 100;
  base = (MPI_Offset)rank * 4096;
  for (i = 0; i < n; i++)
    wbuf[i] = rank * 1000 + i;

  rc = MPI_File_open(MPI_COMM_WORLD, "no-such-dir/e.data",
                     MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  report("open in a missing directory", rc, FAIL, NULL, MPI_INT);
  if (rc == MPI_SUCCESS)
    MPI_File_close(&fh);

  rc = MPI_File_open(MPI_COMM_WORLD, "e.data",
                     MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  report("open e.data read-write", rc, SUCCEED, NULL, MPI_INT);
  if (rc != MPI_SUCCESS) {
    fprintf(stderr, "io_errors: cannot go on without e.data\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  preset(&st, MPI_INT);
  rc = MPI_File_write_at(fh, base, wbuf, n, MPI_INT, &st);
  report("write_at", rc, SUCCEED, &st, MPI_INT);

  preset(&st, MPI_INT);
  rc = MPI_File_iwrite_at(fh, base + 2048, wbuf, n, MPI_INT, &req);
  report("iwrite_at", rc, SUCCEED, NULL, MPI_INT);
  if (rc == MPI_SUCCESS) {
    rc = MPI_Wait(&req, &st);
    report("MPI_Wait of the iwrite_at", rc, SUCCEED, &st, MPI_INT);
    say("rank %d: request after MPI_Wait: %s\n", rank,
        req == MPI_REQUEST_NULL ? "MPI_REQUEST_NULL" : "not MPI_REQUEST_NULL");
  }

  rc = MPI_File_sync(fh);
  report("sync", rc, SUCCEED, NULL, MPI_INT);

  preset(&st, MPI_INT);
  memset(rbuf, 0, sizeof rbuf);
  rc = MPI_File_read_at(fh, base, rbuf, n, MPI_INT, &st);
  report("read_at", rc, SUCCEED, &st, MPI_INT);
  ok = memcmp(rbuf, wbuf, (size_t)n * sizeof(int)) == 0;
  say("rank %d: data read back: %s\n", rank, ok ? "right" : "WRONG");
  if (!ok)
    unexpected++;

  preset(&st, MPI_INT);
  rc = MPI_File_read_at(fh, (MPI_Offset)1 << 30, rbuf, n, MPI_INT, &st);
  report("read_at past the end", rc, SUCCEED, &st, MPI_INT);

  preset(&st, MPI_INT);
  rc = MPI_File_read_at(fh, -1, rbuf, n, MPI_INT, &st);
  report("read_at offset -1", rc, EITHER, &st, MPI_INT);

  preset(&st, MPI_INT);
  rc = MPI_File_read_at(fh, base, rbuf, -1, MPI_INT, &st);
  report("read_at count -1", rc, FAIL, &st, MPI_INT);

  rc = MPI_File_set_size(fh, 65536);
  report("set_size 65536", rc, SUCCEED, NULL, MPI_INT);
  MPI_Barrier(MPI_COMM_WORLD);
  size = -1;
  rc = MPI_File_get_size(fh, &size);
  report("get_size", rc, SUCCEED, NULL, MPI_INT);
  say("rank %d: size %lld\n", rank, (long long)size);
  MPI_Barrier(MPI_COMM_WORLD);

  rc = MPI_File_set_size(fh, -1);
  report("set_size -1", rc, EITHER, NULL, MPI_INT);

  rc = MPI_File_preallocate(fh, 131072);
  report("preallocate 131072", rc, SUCCEED, NULL, MPI_INT);
  MPI_Barrier(MPI_COMM_WORLD);
  size = -1;
  rc = MPI_File_get_size(fh, &size);
  report("get_size", rc, SUCCEED, NULL, MPI_INT);
  say("rank %d: size %lld\n", rank, (long long)size);
  MPI_Barrier(MPI_COMM_WORLD);

  rc = MPI_File_close(&fh);
  report("close", rc, SUCCEED, NULL, MPI_INT);
  say("rank %d: handle after close: %s\n", rank,
      fh == MPI_FILE_NULL ? "MPI_FILE_NULL" : "not MPI_FILE_NULL");

  rc = MPI_File_open(MPI_COMM_WORLD, "e.data", MPI_MODE_RDONLY,
                     MPI_INFO_NULL, &fh);
  report("open e.data read-only", rc, SUCCEED, NULL, MPI_INT);
  if (rc == MPI_SUCCESS) {
    preset(&st, MPI_INT);
    rc = MPI_File_write(fh, wbuf, n, MPI_INT, &st);
    report("write to the read-only file", rc, FAIL, &st, MPI_INT);
    rc = MPI_File_close(&fh);
    report("close", rc, SUCCEED, NULL, MPI_INT);
  }

  fh = MPI_FILE_NULL;
  rc = MPI_File_close(&fh);
  report("close of MPI_FILE_NULL", rc, FAIL, NULL, MPI_INT);

  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    rc = MPI_File_delete("e.data", MPI_INFO_NULL);
    report("delete e.data", rc, SUCCEED, NULL, MPI_INT);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  rc = MPI_File_delete("no-such-file.data", MPI_INFO_NULL);
  report("delete of a missing file", rc, FAIL, NULL, MPI_INT);

  if (rank == 0 && (all = malloc((size_t)nranks * OUT_SIZE)) == NULL) {
    fprintf(stderr, "io_errors: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Gather(out, OUT_SIZE, MPI_CHAR, all, OUT_SIZE, MPI_CHAR, 0,
             MPI_COMM_WORLD);
  MPI_Reduce(&failing, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Allreduce(&unexpected, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    for (i = 0; i < nranks; i++)
      fputs(all + (size_t)i * OUT_SIZE, stdout);
    printf("failing calls: %d\n", total);
    fflush(stdout);
    free(all);
  }
  MPI_Finalize();
  return bad ? 1 : 0;
}
