/*
 * io_threads - MPI-IO from several threads at once, for the tests of the
 * "io" section of the report under MPI_THREAD_MULTIPLE (where every call
 * takes the accounting's lock and none takes the fast path).  Plain MPI.
 *
 *   io_threads [K]
 *
 * The program asks for MPI_THREAD_MULTIPLE; when MPI gives less it says
 * so on stderr and exits 77.  Each rank opens NTHREADS files "c.t<t>" in
 * the current directory collectively (MPI_MODE_CREATE | MPI_MODE_RDWR),
 * each on a duplicate of MPI_COMM_WORLD of its own, then starts NTHREADS
 * threads; thread t makes K (default 2000) MPI_File_write_at calls of
 * (i % 5) + 1 MPI_INT and K/2 MPI_File_read_at calls of 3 MPI_DOUBLE in
 * its rank's own region of c.t<t>, all threads of all ranks at the same
 * time.  The files are closed once the threads have ended, and rank 0
 * deletes them.  The collective opens and closes stay on the main thread:
 * ROMIO (MPICH's MPI-IO) holds one lock over every MPI-IO call, so two
 * threads in collective calls on two communicators at once deadlock
 * across the ranks, with or without pmon.
 *
 * Output (stdout, rank 0): as io_families, one line per file,
 *
 *   NAME BYTES_WRITTEN BYTES_READ WRITES READS
 *
 * the job totals of count x MPI_Type_size of the calls and their number.
 * Exit status 0; 77 without MPI_THREAD_MULTIPLE; MPI_Abort on any MPI
 * error; 2 on bad usage.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define NTHREADS 4

static int rank, k = 2000;

struct job {
  int t;
  MPI_Comm comm;
  MPI_File fh;
  long long counts[4]; /* bytes written, bytes read, writes, reads */
};

static void check(int rc, const char *call, int t)
{
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;

  if (rc == MPI_SUCCESS)
    return;
  MPI_Error_string(rc, msg, &len);
  fprintf(stderr, "io_threads: rank %d: %s on c.t%d: %s\n", rank, call, t,
          msg);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

static void *thread(void *arg)
{
  struct job *j = arg;
  MPI_Offset mine = (MPI_Offset)rank << 20;
  double buf[8] = {0};
  MPI_File fh = j->fh;

  for (int i = 0; i < k; i++) {
    int n = i % 5 + 1;

    check(MPI_File_write_at(fh, mine + (MPI_Offset)(i % 1024) * 64, buf, n,
                            MPI_INT, MPI_STATUS_IGNORE), "write_at", j->t);
    j->counts[0] += (long long)n * (long long)sizeof(int);
    j->counts[2]++;
    if (i % 2 == 1) {
      check(MPI_File_read_at(fh, mine + (MPI_Offset)(i % 1024) * 64, buf, 3,
                             MPI_DOUBLE, MPI_STATUS_IGNORE), "read_at", j->t);
      j->counts[1] += 3 * (long long)sizeof(double);
      j->counts[3]++;
    }
  }
  return NULL;
}

int main(int argc, char **argv)
{
  struct job jobs[NTHREADS] = {{0}};
  pthread_t tid[NTHREADS];
  long long mine[NTHREADS][4], totals[NTHREADS][4];
  int provided, t;

  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc > 1) {
    char *end;
    long v = strtol(argv[1], &end, 10);

    if (argc > 2 || *end != '\0' || v < 2 || v > 1000000) {
      if (rank == 0)
        fprintf(stderr, "usage: io_threads [K]\n");
      MPI_Finalize();
      return 2;
    }
    k = (int)v;
  }
  if (provided < MPI_THREAD_MULTIPLE) {
    if (rank == 0)
      fprintf(stderr, "io_threads: MPI gives no MPI_THREAD_MULTIPLE\n");
    MPI_Finalize();
    return 77;
  }
  for (t = 0; t < NTHREADS; t++) {
    char name[32];

    jobs[t].t = t;
    MPI_Comm_dup(MPI_COMM_WORLD, &jobs[t].comm);
    snprintf(name, sizeof name, "c.t%d", t);
    check(MPI_File_open(jobs[t].comm, name, MPI_MODE_CREATE | MPI_MODE_RDWR,
                        MPI_INFO_NULL, &jobs[t].fh), "open", t);
  }
  for (t = 0; t < NTHREADS; t++)
    if (pthread_create(&tid[t], NULL, thread, &jobs[t]) != 0) {
      fprintf(stderr, "io_threads: rank %d: cannot start a thread\n", rank);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  for (t = 0; t < NTHREADS; t++) {
    pthread_join(tid[t], NULL);
    check(MPI_File_close(&jobs[t].fh), "close", t);
    MPI_Comm_free(&jobs[t].comm);
    for (int c = 0; c < 4; c++)
      mine[t][c] = jobs[t].counts[c];
  }
  MPI_Reduce(mine, totals, NTHREADS * 4, MPI_LONG_LONG, MPI_SUM, 0,
             MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    for (t = 0; t < NTHREADS; t++) {
      char name[32];

      snprintf(name, sizeof name, "c.t%d", t);
      check(MPI_File_delete(name, MPI_INFO_NULL), "delete", t);
      printf("%s %lld %lld %lld %lld\n", name, totals[t][0], totals[t][1],
             totals[t][2], totals[t][3]);
    }
    fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}
