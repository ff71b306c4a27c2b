/*
 * bench.h - what the benchmarks share: a monotonic clock in nanoseconds,
 * and sorting rounds to take their fastest, median and slowest.
 */
#ifndef PMON_BENCH_H
#define PMON_BENCH_H

#include <stdlib.h>
#include <time.h>

/* CLOCK_MONOTONIC, in nanoseconds. */
static inline double bench_now(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline int bench_by_value(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;

  return (x > y) - (x < y);
}

/* Sort the N values of V, smallest first. */
static inline void bench_sort(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, bench_by_value);
}

/* The median of the N values of V, which are sorted on the way. */
static inline double bench_median(double *v, int n)
{
  bench_sort(v, n);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#endif /* PMON_BENCH_H */
