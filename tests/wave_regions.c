/*
 * wave_regions - an MPI program that runs for a given time with regions
 * at given times, for the tests of sampled meters against a known
 * waveform (tests/wave.c).
 *
 *   wave_regions SECONDS [NAME:START:END ...]
 *
 * After pmon_init() and a barrier, every rank enters region NAME at START
 * and leaves it at END (seconds after the barrier; regions may nest but
 * not overlap otherwise, and must be given in order of START), and
 * finalises after SECONDS.  Rank 0 prints, for each region, the
 * CLOCK_MONOTONIC instants of its begin and end calls:
 *
 *   region NAME T0_NS T1_NS
 *
 * and at the end "elapsed S" (seconds from the barrier to the return of
 * pmon_finalize(), which a test compares with SECONDS to see that pmon
 * did not hold the program up).  Exit status 0; 1 when pmon fails; 2 on
 * bad usage.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "pmon.h"

#define NREG 32

struct region {
  char name[64];
  double start, end;
  long long t0, t1;
  int open, done;
};

static long long now_ns(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Sleep until T_NS on CLOCK_MONOTONIC. */
static void until(long long t_ns)
{
  struct timespec ts = {(time_t)(t_ns / 1000000000LL),
                        (long)(t_ns % 1000000000LL)};

  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
    ;
}

int main(int argc, char **argv)
{
  struct region reg[NREG];
  int n = 0, rank, rc;
  double seconds;
  long long base;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 2 || (seconds = atof(argv[1])) <= 0 || argc - 2 > NREG) {
    if (rank == 0)
      fprintf(stderr, "usage: wave_regions SECONDS [NAME:START:END ...]\n");
    MPI_Finalize();
    return 2;
  }
  for (int i = 2; i < argc; i++, n++) {
    memset(&reg[n], 0, sizeof reg[n]);
    if (sscanf(argv[i], "%63[^:]:%lf:%lf", reg[n].name, &reg[n].start,
               &reg[n].end) != 3 || reg[n].end < reg[n].start ||
        reg[n].end > seconds) {
      if (rank == 0)
        fprintf(stderr, "wave_regions: %s: expected NAME:START:END within "
                        "SECONDS\n", argv[i]);
      MPI_Finalize();
      return 2;
    }
  }
  if ((rc = pmon_init()) != 0) {
    fprintf(stderr, "wave_regions: pmon_init: %s\n", pmon_strerror(rc));
    MPI_Finalize();
    return 1;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  base = now_ns();
  /* Events in time order: a begin at START, an end at END. */
  for (;;) {
    double next = seconds;
    int which = -1, begin = 0;

    for (int i = 0; i < n; i++) {
      if (!reg[i].open && !reg[i].done && reg[i].start < next)
        next = reg[i].start, which = i, begin = 1;
      if (reg[i].open && reg[i].end < next)
        next = reg[i].end, which = i, begin = 0;
    }
    if (which < 0)
      break;
    until(base + (long long)(next * 1e9));
    if (begin) {
      reg[which].t0 = now_ns();
      pmon_region_begin(reg[which].name);
      reg[which].open = 1;
    } else {
      pmon_region_end(reg[which].name);
      reg[which].t1 = now_ns();
      reg[which].open = 0;
      reg[which].done = 1;
    }
  }
  until(base + (long long)(seconds * 1e9));
  if ((rc = pmon_finalize()) != 0)
    fprintf(stderr, "wave_regions: pmon_finalize: %s\n", pmon_strerror(rc));
  if (rank == 0) {
    for (int i = 0; i < n; i++)
      printf("region %s %lld %lld\n", reg[i].name, reg[i].t0, reg[i].t1);
    printf("elapsed %.3f\n", (double)(now_ns() - base) * 1e-9);
  }
  MPI_Finalize();
  return rc != 0;
}
