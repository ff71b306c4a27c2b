/*
 * io_long.c - long MPI-IO calls (a checkpoint's shape), for the clock
 * during I/O (tests/iofreq.test).
 *
 *   io_long FILE MIB CALLS FREQFILE
 *
 * Each rank writes CALLS blocks of MIB MiB with MPI_File_write_at into
 * its own part of FILE, one call each.  A thread reads FREQFILE (a
 * scaling_max_freq) every millisecond while the main thread is inside one
 * of those calls.  Rank 0 prints, summed over the ranks,
 *   samples N       the readings taken inside the calls
 *   capped M        those that read 1000000 (PMON_IO_FREQ=1000)
 *   call_s T        the time inside the calls, the longest rank's
 * Exit status 1 on an MPI error, 2 on bad use.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

static const char *freq_file;
static volatile int inside, done;
static long samples, capped;

static void *sampler(void *arg)
{
  struct timespec t = {0, 1000000};
  char buf[32];

  (void)arg;
  while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
    if (__atomic_load_n(&inside, __ATOMIC_ACQUIRE)) {
      int fd = open(freq_file, O_RDONLY);
      ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;

      if (fd >= 0)
        close(fd);
      buf[n > 0 ? n : 0] = '\0';
      /* Counted only if the call was still going on after the read. */
      if (__atomic_load_n(&inside, __ATOMIC_ACQUIRE)) {
        samples++;
        capped += strcmp(buf, "1000000\n") == 0;
      }
    }
    nanosleep(&t, NULL);
  }
  return NULL;
}

int main(int argc, char **argv)
{
  MPI_File fh;
  MPI_Status st;
  pthread_t th;
  long mib, calls, in[2], sum[2];
  double t = 0, t0, tmax;
  char *buf;
  int rank, provided;

  if (argc != 5 || (mib = atol(argv[2])) <= 0 || mib > 1023 ||
      (calls = atol(argv[3])) <= 0) {
    fprintf(stderr, "usage: io_long FILE MIB CALLS FREQFILE\n");
    return 2;
  }
  freq_file = argv[4];
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if ((buf = calloc((size_t)mib, 1 << 20)) == NULL)
    return 1;
  if (MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY,
                    MPI_INFO_NULL, &fh) != MPI_SUCCESS)
    return 1;
  if (pthread_create(&th, NULL, sampler, NULL) != 0)
    return 1;
  for (long i = 0; i < calls; i++) {
    MPI_Offset off = ((MPI_Offset)rank * calls + i) * mib * (1 << 20);

    __atomic_store_n(&inside, 1, __ATOMIC_RELEASE);
    t0 = MPI_Wtime();
    if (MPI_File_write_at(fh, off, buf, (int)(mib << 20), MPI_BYTE, &st) !=
        MPI_SUCCESS)
      return 1;
    t += MPI_Wtime() - t0;
    __atomic_store_n(&inside, 0, __ATOMIC_RELEASE);
  }
  __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
  pthread_join(th, NULL);
  MPI_File_close(&fh);
  in[0] = samples;
  in[1] = capped;
  MPI_Reduce(in, sum, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("samples %ld\ncapped %ld\ncall_s %.3f\n", sum[0], sum[1], tmax);
  free(buf);
  MPI_Finalize();
  return 0;
}
