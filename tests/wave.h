/*
 * wave.h - the known power waveforms of tests/wave.c, shared with the
 * emulators that play them (tests/keithley_emu.c).  Static inline functions only:
 * each program that includes it gets its own copy.
 *
 *   const:W                  W watts
 *   square:LOW:HIGH:PERIOD   LOW for the first half of each PERIOD
 *                            seconds, HIGH for the second
 *   ramp:LOW:HIGH:PERIOD     LOW to HIGH linearly over PERIOD seconds,
 *                            then again from LOW (a sawtooth)
 *   steps:LOW:HIGH:PERIOD:SEED  a level drawn at random from LOW to HIGH
 *                            for each PERIOD seconds (the same levels
 *                            for the same SEED): a power that jumps
 *
 * X is seconds after the waveform's origin; before it the power is LOW.
 */
#ifndef PMON_TESTS_WAVE_H
#define PMON_TESTS_WAVE_H

#include <math.h>
#include <stdio.h>
#include <string.h>

struct wave {
  int kind; /* 'c', 's', 'r', 'j' (steps) */
  double low, high, period;
  unsigned long long seed;
};

/* Steps' level in period N: LOW + (HIGH - LOW) u, u uniform in [0, 1)
 * from a hash of N and the seed (SplitMix64's mixer). */
static inline double wave_level(const struct wave *w, double n)
{
  unsigned long long x = w->seed * 0x9e3779b97f4a7c15ull +
                         (unsigned long long)n;

  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  x ^= x >> 31;
  return w->low + (w->high - w->low) * (double)(x >> 11) * 0x1p-53;
}

/* Parse SPEC into *W: 0, or -1 when it is not one of the forms above. */
static inline int wave_parse(const char *text, struct wave *w)
{
  char tail;

  memset(w, 0, sizeof *w);
  if (sscanf(text, "const:%lf%c", &w->low, &tail) == 1) {
    w->kind = 'c';
    w->high = w->low;
    w->period = 1;
    return 0;
  }
  if (sscanf(text, "square:%lf:%lf:%lf%c", &w->low, &w->high, &w->period,
             &tail) == 3)
    w->kind = 's';
  else if (sscanf(text, "ramp:%lf:%lf:%lf%c", &w->low, &w->high, &w->period,
                  &tail) == 3)
    w->kind = 'r';
  else if (sscanf(text, "steps:%lf:%lf:%lf:%llu%c", &w->low, &w->high,
                  &w->period, &w->seed, &tail) == 4)
    w->kind = 'j';
  return w->kind != 0 && w->period > 0 ? 0 : -1;
}

/* The energy of one waveform from its origin to X seconds after it. */
static inline double wave_cumulative(const struct wave *w, double x)
{
  double n, r, half = w->period / 2;

  if (x <= 0)
    return w->low * x;
  n = floor(x / w->period);
  r = x - n * w->period;
  switch (w->kind) {
  case 's':
    return n * half * (w->low + w->high) +
           (r < half ? w->low * r : w->low * half + w->high * (r - half));
  case 'r':
    return n * w->period * (w->low + w->high) / 2 + w->low * r +
           (w->high - w->low) * r * r / (2 * w->period);
  case 'j': {
    double sum = 0;

    for (double k = 0; k < n; k++)
      sum += wave_level(w, k) * w->period;
    return sum + wave_level(w, n) * r;
  }
  default:
    return w->low * x;
  }
}

/* The power of W at X seconds after its origin. */
static inline double wave_power(const struct wave *w, double x)
{
  double r;

  if (x < 0 || w->kind == 'c')
    return w->low;
  r = fmod(x, w->period);
  if (w->kind == 's')
    return r < w->period / 2 ? w->low : w->high;
  if (w->kind == 'j')
    return wave_level(w, floor(x / w->period));
  return w->low + (w->high - w->low) * r / w->period;
}

#endif /* PMON_TESTS_WAVE_H */
