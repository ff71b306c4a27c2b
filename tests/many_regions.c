/*
 * many_regions - an MPI program that uses many distinct region names, as
 * simulation codes do with snprintf(name, "step-%d", i), for the scale
 * tests (tests/regions-scale.test) and bench/region_scale.sh.
 *
 *   many_regions NAMES [--repeat K] [--unique] [--few R]
 *
 * Every rank opens and closes the regions "step-0" .. "step-<NAMES-1>"
 * (with --unique, "r<rank>-step-<i>": no two ranks share a name), each K
 * times (default 1), all inside one region "loop"; with --few R, ranks
 * below R also enter the region "few".  Rank 0 prints:
 *   pairs P          begin/end pairs made by all ranks, "loop" and "few"
 *                    included
 *   finalize_s S     the slowest rank's pmon_finalize()
 *   maxrss_kb K      the largest peak resident memory of a rank
 *   rc RC            pmon_finalize()'s result on rank 0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <mpi.h>

#include "pmon.h"

static double now(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void pair(const char *name, long long *pairs)
{
  if (pmon_region_begin(name) != 0 || pmon_region_end(name) != 0) {
    fprintf(stderr, "many_regions: region %s: %s\n", name, pmon_errmsg());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  (*pairs)++;
}

int main(int argc, char **argv)
{
  long names, repeat = 1, few = 0;
  long long pairs = 0, all_pairs = 0, rss, max_rss;
  int rank, unique = 0, rc;
  double t, fin, max_fin;
  struct rusage ru;
  char name[64];

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 2 || (names = atol(argv[1])) < 0) {
    fprintf(stderr, "usage: many_regions NAMES [--repeat K] [--unique] "
                    "[--few R]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--unique") == 0)
      unique = 1;
    else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
      repeat = atol(argv[++i]);
    else if (strcmp(argv[i], "--few") == 0 && i + 1 < argc)
      few = atol(argv[++i]);
  }
  if ((rc = pmon_init()) != 0) {
    fprintf(stderr, "many_regions: pmon_init: %s\n", pmon_errmsg());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (pmon_region_begin("loop") != 0)
    MPI_Abort(MPI_COMM_WORLD, 1);
  for (long k = 0; k < repeat; k++)
    for (long i = 0; i < names; i++) {
      if (unique)
        snprintf(name, sizeof name, "r%d-step-%ld", rank, i);
      else
        snprintf(name, sizeof name, "step-%ld", i);
      pair(name, &pairs);
    }
  if (pmon_region_end("loop") != 0)
    MPI_Abort(MPI_COMM_WORLD, 1);
  pairs++;
  if (rank < few)
    pair("few", &pairs);
  MPI_Barrier(MPI_COMM_WORLD);
  t = now();
  rc = pmon_finalize();
  fin = now() - t;
  getrusage(RUSAGE_SELF, &ru);
  rss = ru.ru_maxrss;
  MPI_Reduce(&pairs, &all_pairs, 1, MPI_LONG_LONG, MPI_SUM, 0,
             MPI_COMM_WORLD);
  MPI_Reduce(&fin, &max_fin, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&rss, &max_rss, 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("pairs %lld\nfinalize_s %.3f\nmaxrss_kb %lld\nrc %d\n", all_pairs,
           max_fin, max_rss, rc);
  MPI_Finalize();
  return 0;
}
