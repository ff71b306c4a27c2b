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
 *
 * X is seconds after the waveform's origin; before it the power is LOW.
 */
#ifndef PMON_TESTS_WAVE_H
#define PMON_TESTS_WAVE_H

#include <math.h>
#include <stdio.h>
#include <string.h>

struct wave {
  int kind; /* 'c', 's', 'r' */
  double low, high, period;
};

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
  return w->low + (w->high - w->low) * r / w->period;
}

#endif /* PMON_TESTS_WAVE_H */
