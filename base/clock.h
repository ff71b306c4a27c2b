/*
 * clock.h - the one clock of pmon's time stamps: CLOCK_MONOTONIC, in
 * nanoseconds.  Every rank of a node reads the same clock, so the stamps
 * of one node compare.
 */
#ifndef PMON_CLOCK_H
#define PMON_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Monotonic time in nanoseconds. */
static inline uint64_t pmon__now_ns(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif /* PMON_CLOCK_H */
