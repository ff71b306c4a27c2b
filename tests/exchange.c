/*
 * exchange - an unmodified MPI program whose calls are known exactly, for
 * tests/exact-counts.test:
 *
 *   exchange M N FILE
 *
 * Ranks 0 and 1 exchange N messages of M bytes each way (rank 0 sends
 * first, then answers), then every rank writes M bytes to FILE at offset
 * rank x M with one collective MPI_File_write_at_all.  Where the MPI has
 * the MPI-4 large-count calls (MPICH 4; not Open MPI 4.1), the second half
 * of the messages go through MPI_Send_c and MPI_Recv_c, and the write
 * through MPI_File_write_at_all_c: pmon counts each as the call without
 * _c, so the report's figures are the same either way.  Rank 0 prints
 *   exchange: M N large-count yes|no
 * Exit status 0; 2 on bad usage; 1 when an MPI call fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#if MPI_VERSION >= 4
#define BIG 1
#else
#define BIG 0
#endif

static int check(int rc, const char *what)
{
  if (rc != MPI_SUCCESS) {
    fprintf(stderr, "exchange: %s failed (%d)\n", what, rc);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return rc;
}

/* One message of M bytes from FROM to TO; the I-th of N. */
static void one(char *buf, int m, int from, int to, int rank, int i, int n)
{
  int big = BIG && i >= n / 2;

  if (rank == from) {
#if BIG
    if (big) {
      check(MPI_Send_c(buf, m, MPI_BYTE, to, 1, MPI_COMM_WORLD), "MPI_Send_c");
      return;
    }
#endif
    check(MPI_Send(buf, m, MPI_BYTE, to, 1, MPI_COMM_WORLD), "MPI_Send");
  } else if (rank == to) {
#if BIG
    if (big) {
      check(MPI_Recv_c(buf, m, MPI_BYTE, from, 1, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE), "MPI_Recv_c");
      return;
    }
#endif
    check(MPI_Recv(buf, m, MPI_BYTE, from, 1, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE), "MPI_Recv");
  }
  (void)big;
}

int main(int argc, char **argv)
{
  int rank, size, m, n;
  char *buf;
  MPI_File fh;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 4 || (m = atoi(argv[1])) <= 0 || (n = atoi(argv[2])) <= 0 ||
      size < 2) {
    if (rank == 0)
      fprintf(stderr, "usage: exchange M N FILE (2 ranks or more)\n");
    MPI_Finalize();
    return 2;
  }
  if ((buf = malloc((size_t)m)) == NULL)
    MPI_Abort(MPI_COMM_WORLD, 1);
  memset(buf, 'a' + rank, (size_t)m);
  for (int i = 0; i < n; i++) {
    one(buf, m, 0, 1, rank, i, n);
    one(buf, m, 1, 0, rank, i, n);
  }
  check(MPI_File_open(MPI_COMM_WORLD, argv[3],
                      MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
        "MPI_File_open");
#if BIG
  check(MPI_File_write_at_all_c(fh, (MPI_Offset)rank * m, buf, m, MPI_BYTE,
                                MPI_STATUS_IGNORE), "MPI_File_write_at_all_c");
#else
  check(MPI_File_write_at_all(fh, (MPI_Offset)rank * m, buf, m, MPI_BYTE,
                              MPI_STATUS_IGNORE), "MPI_File_write_at_all");
#endif
  check(MPI_File_close(&fh), "MPI_File_close");
  if (rank == 0)
    printf("exchange: %d %d large-count %s\n", m, n, BIG ? "yes" : "no");
  free(buf);
  MPI_Finalize();
  return 0;
}
