/*
 * region_sampled - what a region begin/end pair costs when the node's
 * only meters are sampled ones (an external meter read by pmon's poller
 * thread while the program runs), against the two time stamps that any
 * pair takes, both measured here in one process.
 *
 *   PMON_METERS=SAMPLED-METER region_sampled [PAIRS [LABEL]]
 *
 * PAIRS (default 1000000) is the number of pairs in one round; LABEL
 * (default "sampled meter") names the meter in the output, so that the
 * specification, which may hold a secret, is never printed.  bench/
 * region_sampled.sh starts the peers (the keithley emulator at 60
 * readings a second, snmpd playing an EATON ePDU at 1 Hz) and runs this.
 *
 * It starts pmon (serial, as bench/region_cost; PMON_QUIET), then runs
 * ROUNDS rounds, each a block of region pairs and a block of baseline
 * pairs, the order swapped every round so that drift hits both alike.
 * The baseline pair is two clock_gettime(CLOCK_MONOTONIC) calls: the
 * time stamps at begin and end, the least a pair can cost.  It prints
 * the medians over rounds (and the fastest and slowest round), their
 * difference and ratio, and the pair's median against the limit of the
 * external-meters acceptance list (150 ns): PASS or OVER, or not judged
 * when the meter published no sample while the pairs ran.  Exit status
 * 0, or 1 when pmon could not start (said on stderr).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "pmon.h"
#include "bench.h"

#define ROUNDS 21
#define LIMIT_NS 150.0

/* One block of N region pairs: nanoseconds per pair; -1 on failure. */
static double region_block(long n)
{
  double t0 = bench_now();

  for (long i = 0; i < n; i++)
    if (pmon_region_begin("bench") != 0 || pmon_region_end("bench") != 0)
      return -1;
  return (bench_now() - t0) / (double)n;
}

/* One block of N baseline pairs, two clock reads each. */
static volatile long sink;

static double baseline_block(long n)
{
  double t0 = bench_now();

  for (long i = 0; i < n; i++) {
    struct timespec a, b;

    clock_gettime(CLOCK_MONOTONIC, &a);
    clock_gettime(CLOCK_MONOTONIC, &b);
    sink += b.tv_nsec - a.tv_nsec;
  }
  return (bench_now() - t0) / (double)n;
}

int main(int argc, char **argv)
{
  long pairs = argc > 1 ? atol(argv[1]) : 1000000;
  const char *label = argc > 2 ? argv[2] : "sampled meter";
  double region[ROUNDS], base[ROUNDS], s0 = -1, s1 = -1;

  if (pairs <= 0) {
    fprintf(stderr, "usage: region_sampled [PAIRS [LABEL]]\n");
    return 2;
  }
  setenv("PMON_QUIET", "1", 1);
  if (pmon_init() != 0) {
    fprintf(stderr, "region_sampled: %s\n", pmon_errmsg());
    return 1;
  }
  /* The first pair creates the region: not part of the steady cost. */
  pmon_region_begin("bench");
  pmon_region_end("bench");
  pmon_read(NULL, &s0);
  for (int r = 0; r < ROUNDS; r++) {
    if (r % 2 == 0) {
      region[r] = region_block(pairs);
      base[r] = baseline_block(pairs);
    } else {
      base[r] = baseline_block(pairs);
      region[r] = region_block(pairs);
    }
    if (region[r] < 0) {
      fprintf(stderr, "region_sampled: %s\n", pmon_errmsg());
      pmon_finalize();
      return 1;
    }
  }
  /* The meter's latest sample before and after: the poller published
   * while the pairs ran. */
  pmon_read(NULL, &s1);
  pmon_finalize();
  bench_sort(region, ROUNDS);
  bench_sort(base, ROUNDS);
  printf("%s:\n", label);
  printf("  region begin/end pair:          %7.1f ns  (median of %d rounds "
         "of %ld; fastest %.1f, slowest %.1f)\n",
         region[ROUNDS / 2], ROUNDS, pairs, region[0], region[ROUNDS - 1]);
  printf("  two clock_gettime (baseline):   %7.1f ns  (median of %d rounds "
         "of %ld; fastest %.1f, slowest %.1f)\n",
         base[ROUNDS / 2], ROUNDS, pairs, base[0], base[ROUNDS - 1]);
  printf("  pair - baseline: %.1f ns; ratio pair / baseline: %.3f\n",
         region[ROUNDS / 2] - base[ROUNDS / 2],
         region[ROUNDS / 2] / base[ROUNDS / 2]);
  printf("  meter's latest sample: %.3f s after init before the rounds, "
         "%.3f s after them: %s\n",
         s0, s1,
         s1 > s0 ? "sampled while the pairs ran"
                 : "NOT SAMPLED while the pairs ran: not the case asked for");
  if (s1 > s0)
    printf("  limit 150 ns per pair: %s (%.1f ns, %.0f %% of the limit)\n",
           region[ROUNDS / 2] <= LIMIT_NS ? "PASS" : "OVER",
           region[ROUNDS / 2], 100 * region[ROUNDS / 2] / LIMIT_NS);
  else
    printf("  limit 150 ns per pair: not judged, no sample while the pairs "
           "ran\n");
  return 0;
}
