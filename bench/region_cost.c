/*
 * region_cost - what a region begin/end pair costs, against the raw cost
 * of one consistent pm_counters read (what a tool that reads the counters
 * at each region boundary pays), both measured here in one process.
 *
 *   region_cost [PAIRS]      (default 1000000)
 *
 * It builds a pm_counters tree on tmpfs (/dev/shm, else /tmp), starts
 * pmon on it (serial, PMON_QUIET), then alternates rounds of region pairs
 * and rounds of raw reads, and prints the medians and their ratio.  The
 * raw read is the driver's protocol: freshness, the energy files, startup,
 * generation, freshness, each a pread(2) of a file kept open.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pmon.h"
#include "bench.h"

#define ROUNDS 11

static const char *const files[] = {"freshness", "energy", "cpu_energy",
                                    "memory_energy", "startup", "generation",
                                    "freshness"};
#define NFILES (sizeof files / sizeof files[0])

static void put(const char *dir, const char *file, const char *text)
{
  char path[512];
  FILE *f;

  snprintf(path, sizeof path, "%s/%s", dir, file);
  if ((f = fopen(path, "w")) == NULL) {
    perror(path);
    exit(1);
  }
  fputs(text, f);
  fclose(f);
}

int main(int argc, char **argv)
{
  long pairs = argc > 1 ? atol(argv[1]) : 1000000;
  long reads = pairs / 10 > 0 ? pairs / 10 : 1;
  char dir[64], meters[128], out[128];
  double region[ROUNDS], raw[ROUNDS], sink = 0;
  int fd[NFILES];

  snprintf(dir, sizeof dir, "%s/pmon-bench.XXXXXX",
           access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
  if (mkdtemp(dir) == NULL) {
    perror("mkdtemp");
    return 1;
  }
  put(dir, "energy", "1000 J\n");
  put(dir, "cpu_energy", "600 J\n");
  put(dir, "memory_energy", "200 J\n");
  put(dir, "freshness", "1\n");
  put(dir, "startup", "1\n");
  put(dir, "generation", "1\n");
  put(dir, "raw_scan_hz", "10\n");
  snprintf(meters, sizeof meters, "pm_counters:%s", dir);
  snprintf(out, sizeof out, "%s/report.json", dir);
  setenv("PMON_METERS", meters, 1);
  setenv("PMON_OUTPUT", out, 1);
  setenv("PMON_QUIET", "1", 1);
  if (pmon_init() != 0) {
    fprintf(stderr, "region_cost: %s\n", pmon_errmsg());
    return 1;
  }
  for (size_t i = 0; i < NFILES; i++) {
    char path[512];

    snprintf(path, sizeof path, "%s/%s", dir, files[i]);
    fd[i] = open(path, O_RDONLY);
  }
  for (int r = 0; r < ROUNDS; r++) {
    double t0 = bench_now();

    for (long i = 0; i < pairs; i++) {
      pmon_region_begin("bench");
      pmon_region_end("bench");
    }
    region[r] = (bench_now() - t0) / (double)pairs;
    t0 = bench_now();
    for (long i = 0; i < reads; i++) {
      char buf[64];

      for (size_t k = 0; k < NFILES; k++)
        sink += (double)pread(fd[k], buf, sizeof buf - 1, 0);
    }
    /* A pair reads twice: once at begin, once at end. */
    raw[r] = 2 * (bench_now() - t0) / (double)reads;
  }
  pmon_finalize();
  bench_sort(region, ROUNDS);
  bench_sort(raw, ROUNDS);
  printf("region begin/end pair, pm_counters meter:  %8.1f ns (median of %d "
         "rounds of %ld)\n",
         region[ROUNDS / 2], ROUNDS, pairs);
  printf("two consistent pm_counters reads (raw):    %8.1f ns (median of %d "
         "rounds of %ld)\n",
         raw[ROUNDS / 2], ROUNDS, reads);
  printf("ratio pair / raw reads:                    %8.3f\n",
         region[ROUNDS / 2] / raw[ROUNDS / 2]);
  for (size_t i = 0; i < NFILES; i++)
    close(fd[i]);
  {
    char cmd[128];

    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0 || sink < 0)
      return 1;
  }
  return 0;
}
