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
 *   rank0_fin_kb K   rank 0's peak resident memory during pmon_finalize()
 *                    (its peak is reset just before, through
 *                    /proc/self/clear_refs; -1 where that cannot be done)
 *   rank0_pre_kb K   rank 0's resident memory just before it
 * Before pmon_finalize() every rank exchanges a word with every other
 * (MPI_Alltoall), so that MPI's connections between processes are made
 * (over TCP, on first use): finalize is timed without setting them up.
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

/* Reset this process's peak resident memory (Linux 4.0 and later). */
static int clear_peak(void)
{
  FILE *f = fopen("/proc/self/clear_refs", "w");
  int ok;

  if (f == NULL)
    return -1;
  ok = fputs("5", f) >= 0;
  return fclose(f) == 0 && ok ? 0 : -1;
}

/* This process's KEY of /proc/self/status (VmRSS, VmHWM: the peak since
 * it was reset), in kB; -1 when it cannot be read. */
static long status_kb(const char *key)
{
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  size_t n = strlen(key);
  long kb = -1;

  if (f == NULL)
    return -1;
  while (fgets(line, sizeof line, f) != NULL)
    if (strncmp(line, key, n) == 0 && line[n] == ':' &&
        sscanf(line + n + 1, "%ld", &kb) == 1)
      break;
  fclose(f);
  return kb;
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
  int rank, unique = 0, rc, reset_peak;
  long fin_kb, pre_kb;
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
  {
    int size, *a, *b;

    MPI_Comm_size(MPI_COMM_WORLD, &size);
    a = calloc((size_t)size, sizeof *a);
    b = calloc((size_t)size, sizeof *b);
    if (a != NULL && b != NULL)
      MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD);
    free(a);
    free(b);
  }
  reset_peak = rank == 0 && clear_peak() == 0;
  pre_kb = reset_peak ? status_kb("VmRSS") : -1;
  MPI_Barrier(MPI_COMM_WORLD);
  t = now();
  rc = pmon_finalize();
  fin = now() - t;
  fin_kb = reset_peak ? status_kb("VmHWM") : -1;
  getrusage(RUSAGE_SELF, &ru);
  rss = ru.ru_maxrss;
  MPI_Reduce(&pairs, &all_pairs, 1, MPI_LONG_LONG, MPI_SUM, 0,
             MPI_COMM_WORLD);
  MPI_Reduce(&fin, &max_fin, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&rss, &max_rss, 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("pairs %lld\nfinalize_s %.3f\nmaxrss_kb %lld\nrank0_fin_kb %ld\n"
           "rank0_pre_kb %ld\nrc %d\n",
           all_pairs, max_fin, max_rss, fin_kb, pre_kb, rc);
  MPI_Finalize();
  return 0;
}
