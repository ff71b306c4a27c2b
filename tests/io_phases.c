/*
 * io_phases.c - MPI-IO in timed phases, for the I/O energy test.
 *
 *   io_phases FILE [PHASES [SECONDS [IDLE]]]
 *
 * PHASES times (default 3): all ranks start together (a barrier), each
 * writes 64 KiB blocks at explicit offsets into its own part of the
 * shared FILE, and reads them back, for SECONDS (default 0.4); then all
 * sleep IDLE seconds (default 0.3).  Rank 0 prints the I/O time the ranks
 * measured themselves, from the first rank's start to the last rank's end
 * of each phase, summed over the phases ("io_time_s 1.2034"), the time
 * the I/O that frames them may add, the longest of the ranks' from the
 * start of MPI_File_open to the first phase's start plus the longest
 * MPI_File_close ("meta_time_s 0.0123": a node's I/O phases include
 * those calls, and the barrier wait between the open and the first
 * write when it is short enough to merge), and the bytes moved ("bytes
 * 123456"), then each rank's start and end of each phase ("span PHASE
 * RANK T0 T1", MPI_Wtime seconds), from which a test takes a node's own
 * I/O time.  Exit status 1 on any MPI error.
 * Each phase is the region "io" and each sleep the region "idle", for the
 * timeline's test; they fail, harmlessly, when pmon was not started (by
 * the interposition library's MPI_Init).
 *
 * With IO_PHASES_BLOCKS=N a phase moves N blocks instead, whatever they
 * take, each followed by a pause of SECONDS/N: I/O paced by its device,
 * whose phases keep their time and bytes on a busy machine (with
 * PMON_IO_GAP above the pause, each is one phase).  With also
 * IO_PHASES_CLOCK=FILE:KHZ each pause is longer by KHZ over the clock
 * limit in FILE (kHz, a scaling_max_freq of a fixture) as it begins: I/O
 * that slows with the clock (advise-clock.test).
 *
 * With IO_PHASES_GATE=FILE every phase after the first begins only once
 * FILE exists (rank 0 looks every 10 ms, and gives up after 60 s): a
 * test starts the second phase when what it must overlap has begun,
 * whatever a busy machine does to the time between.
 *
 * With IO_PHASES_LOG=PREFIX each rank logs every MPI-IO call it makes to
 * PREFIX.RANK, one line each, "OP T0_NS T1_NS": open, write, read,
 * close or delete (rank 0's, of the file, at the end), and CLOCK_MONOTONIC just before the call and just after it, so
 * that a test holds the instants pmon stamped each call at (inside) and
 * the phases it made of them to the program's own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "pmon.h"

#define BLOCK 65536
#define SLOTS 16

static int check(int rc, const char *what)
{
  if (rc != MPI_SUCCESS) {
    fprintf(stderr, "io_phases: %s failed\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return rc;
}

/* IO_PHASES_CLOCK's factor now: KHZ over FILE's value; 1 without it. */
static double clock_factor(void)
{
  const char *v = getenv("IO_PHASES_CLOCK"), *colon;
  char path[4096];
  double f = 0, khz;
  FILE *fp;

  if (v == NULL || (colon = strrchr(v, ':')) == NULL ||
      (size_t)(colon - v) >= sizeof path)
    return 1;
  memcpy(path, v, (size_t)(colon - v));
  path[colon - v] = '\0';
  khz = atof(colon + 1);
  if ((fp = fopen(path, "r")) != NULL) {
    if (fscanf(fp, "%lf", &f) != 1)
      f = 0;
    fclose(fp);
  }
  return f > 0 && khz > 0 ? khz / f : 1;
}

/* IO_PHASES_LOG's stream, NULL without it. */
static FILE *calls;

static long long now_ns(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Log call OP, begun at T0 (now_ns()) and just returned. */
static void logged(const char *op, long long t0)
{
  if (calls != NULL)
    fprintf(calls, "%s %lld %lld\n", op, t0, now_ns());
}

static void pause_for(double s)
{
  struct timespec nap;

  nap.tv_sec = (time_t)s;
  nap.tv_nsec = (long)((s - (double)nap.tv_sec) * 1e9);
  nanosleep(&nap, NULL);
}

int main(int argc, char **argv)
{
  static char buf[BLOCK];
  int phases = argc > 2 ? atoi(argv[2]) : 3, rank;
  double secs = argc > 3 ? atof(argv[3]) : 0.4;
  double idle = argc > 4 ? atof(argv[4]) : 0.3, total = 0;
  double t_open = 0, pre = 0, close_s, meta[2] = {0, 0};
  long long bytes = 0, all = 0, t_call;
  long blocks = getenv("IO_PHASES_BLOCKS") ? atol(getenv("IO_PHASES_BLOCKS"))
                                           : 0;
  double *spans; /* rank 0: each phase's ranks' start and end */
  int size;
  MPI_File fh;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (phases < 1)
    phases = 1;
  if ((spans = calloc((size_t)phases * (size_t)size * 2, sizeof *spans)) ==
      NULL) {
    fprintf(stderr, "io_phases: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (argc < 2) {
    if (rank == 0)
      fprintf(stderr, "usage: io_phases FILE [PHASES [SECONDS [IDLE]]]\n");
    MPI_Finalize();
    return 2;
  }
  if (getenv("IO_PHASES_LOG") != NULL) {
    char path[4096];

    snprintf(path, sizeof path, "%s.%d", getenv("IO_PHASES_LOG"), rank);
    if ((calls = fopen(path, "w")) == NULL) {
      fprintf(stderr, "io_phases: %s: cannot make it\n", path);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  t_open = MPI_Wtime();
  t_call = now_ns();
  check(MPI_File_open(MPI_COMM_WORLD, argv[1],
                      MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
        "MPI_File_open");
  logged("open", t_call);
  for (int p = 0; p < phases; p++) {
    double t0, t1, first, last;
    MPI_Offset base = (MPI_Offset)rank * SLOTS * BLOCK;
    struct timespec nap;
    double pace = blocks > 0 ? secs / (double)blocks : 0;

    if (p > 0 && rank == 0 && getenv("IO_PHASES_GATE") != NULL) {
      int waited = 0;

      while (access(getenv("IO_PHASES_GATE"), F_OK) != 0 && waited < 6000) {
        pause_for(0.01);
        waited++;
      }
      if (waited == 6000) {
        fprintf(stderr, "io_phases: IO_PHASES_GATE: %s: not there after 60 s\n",
                getenv("IO_PHASES_GATE"));
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    pmon_region_begin("io");
    t0 = MPI_Wtime();
    if (p == 0)
      pre = t0 - t_open;
    for (long i = 0; blocks > 0 ? i < blocks : MPI_Wtime() - t0 < secs;
         i++) {
      MPI_Offset off = base + (MPI_Offset)(i % SLOTS) * BLOCK;

      t_call = now_ns();
      check(MPI_File_write_at(fh, off, buf, BLOCK, MPI_BYTE,
                              MPI_STATUS_IGNORE), "MPI_File_write_at");
      logged("write", t_call);
      t_call = now_ns();
      check(MPI_File_read_at(fh, off, buf, BLOCK, MPI_BYTE,
                             MPI_STATUS_IGNORE), "MPI_File_read_at");
      logged("read", t_call);
      bytes += 2 * BLOCK;
      if (pace > 0)
        pause_for(pace * clock_factor());
    }
    t1 = MPI_Wtime();
    pmon_region_end("io");
    MPI_Reduce(&t0, &first, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&t1, &last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    total += last - first;
    {
      double mine[2] = {t0, t1};

      MPI_Gather(mine, 2, MPI_DOUBLE, spans + (size_t)p * 2 * size, 2,
                 MPI_DOUBLE, 0, MPI_COMM_WORLD);
    }
    nap.tv_sec = (time_t)idle;
    nap.tv_nsec = (long)((idle - (double)nap.tv_sec) * 1e9);
    pmon_region_begin("idle");
    nanosleep(&nap, NULL);
    pmon_region_end("idle");
  }
  close_s = MPI_Wtime();
  t_call = now_ns();
  check(MPI_File_close(&fh), "MPI_File_close");
  logged("close", t_call);
  close_s = MPI_Wtime() - close_s;
  MPI_Reduce(&pre, &meta[0], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&close_s, &meta[1], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&bytes, &all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("io_time_s %.6f\nmeta_time_s %.6f\nbytes %lld\n", total,
           meta[0] + meta[1], all);
    for (int p = 0; p < phases; p++)
      for (int r = 0; r < size; r++)
        printf("span %d %d %.6f %.6f\n", p, r,
               spans[((size_t)p * size + (size_t)r) * 2],
               spans[((size_t)p * size + (size_t)r) * 2 + 1]);
    t_call = now_ns();
    MPI_File_delete(argv[1], MPI_INFO_NULL);
    logged("delete", t_call);
  }
  if (calls != NULL && fclose(calls) != 0) {
    fprintf(stderr, "io_phases: IO_PHASES_LOG: cannot write\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  free(spans);
  MPI_Finalize();
  return 0;
}
