/*
 * clock.h - the one clock of pmon's time stamps: CLOCK_MONOTONIC, in
 * nanoseconds.  Every rank of a node reads the same clock, so the stamps
 * of one node compare.
 *
 * The clock goes through one seam, pmon__clock_hook, and the waits of
 * the meters' readings at init and finalize through pmon__sleep_hook:
 * NULL (always, in a job) reads CLOCK_MONOTONIC and sleeps; a test sets
 * them to a simulated clock, so that the library's arithmetic runs on
 * instants it chose, whatever the machine does (tests/sim.c).  Nothing
 * but a test sets them.
 */
#ifndef PMON_CLOCK_H
#define PMON_CLOCK_H

#include <stdint.h>
#include <time.h>

extern uint64_t (*pmon__clock_hook)(void);
extern void (*pmon__sleep_hook)(uint64_t ns);

/* Monotonic time in nanoseconds. */
static inline uint64_t pmon__now_ns(void)
{
  struct timespec ts;

  if (__builtin_expect(pmon__clock_hook != NULL, 0))
    return pmon__clock_hook();
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Sleep for NS nanoseconds (at most a second): a wait of the meters'. */
static inline void pmon__sleep_ns(uint64_t ns)
{
  struct timespec ts = {(time_t)(ns / 1000000000u),
                        (long)(ns % 1000000000u)};

  if (__builtin_expect(pmon__sleep_hook != NULL, 0))
    pmon__sleep_hook(ns);
  else
    nanosleep(&ts, NULL);
}

#endif /* PMON_CLOCK_H */
