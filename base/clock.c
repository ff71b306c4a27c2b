/*
 * clock.c - the clock's seams (clock.h): NULL, CLOCK_MONOTONIC and
 * nanosleep(2) themselves.
 */
#include "config.h"

#include "clock.h"

uint64_t (*pmon__clock_hook)(void);
void (*pmon__sleep_hook)(uint64_t ns);
