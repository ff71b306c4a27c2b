/*
 * wave - known power waveforms for the tests of external meters: the
 * emulators ask it what a device reads now, the tests what the exact
 * energy over a span is.
 *
 *   wave power  SPEC ORIGIN_NS [T_NS]    watts at T (default: now)
 *   wave taken  SPEC ORIGIN_NS           "NS WATTS": now, and the watts
 *                                          then (an emulator's log)
 *   wave energy SPEC ORIGIN_NS T0_NS T1_NS   joules from T0 to T1
 *   wave now                               CLOCK_MONOTONIC in ns
 *
 * Times are CLOCK_MONOTONIC nanoseconds of this machine (what a node
 * record's monotonic_ns holds); the waveform starts at ORIGIN_NS and is
 * LOW before it.  SPEC is one of
 *
 *   const:W                  W watts
 *   square:LOW:HIGH:PERIOD   LOW for the first half of each PERIOD
 *                            seconds, HIGH for the second
 *   ramp:LOW:HIGH:PERIOD     LOW to HIGH linearly over PERIOD seconds,
 *                            then again from LOW (a sawtooth)
 *   steps:LOW:HIGH:PERIOD:SEED  a level drawn at random from LOW to
 *                            HIGH for each PERIOD seconds (the same for
 *                            the same SEED)
 *
 * Output: one number on stdout (two for taken).  Exit status 0, 2 on
 * bad usage.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wave.h"

static long long now_ns(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int usage(void)
{
  fprintf(stderr, "usage: wave power SPEC ORIGIN_NS [T_NS]\n"
                  "       wave energy SPEC ORIGIN_NS T0_NS T1_NS\n"
                  "       wave now\n");
  return 2;
}

int main(int argc, char **argv)
{
  struct wave w;
  long long origin;

  if (argc == 2 && strcmp(argv[1], "now") == 0) {
    printf("%lld\n", now_ns());
    return 0;
  }
  if (argc < 4 || wave_parse(argv[2], &w) != 0)
    return usage();
  origin = atoll(argv[3]);
  if (strcmp(argv[1], "power") == 0 && argc <= 5) {
    long long t = argc == 5 ? atoll(argv[4]) : now_ns();

    printf("%.6f\n", wave_power(&w, (double)(t - origin) * 1e-9));
    return 0;
  }
  if (strcmp(argv[1], "taken") == 0 && argc == 4) {
    long long t = now_ns();

    printf("%lld %.6f\n", t, wave_power(&w, (double)(t - origin) * 1e-9));
    return 0;
  }
  if (strcmp(argv[1], "energy") == 0 && argc == 6) {
    double x0 = (double)(atoll(argv[4]) - origin) * 1e-9;
    double x1 = (double)(atoll(argv[5]) - origin) * 1e-9;

    printf("%.6f\n", wave_cumulative(&w, x1) - wave_cumulative(&w, x0));
    return 0;
  }
  return usage();
}
