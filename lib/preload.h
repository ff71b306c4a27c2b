/*
 * preload.h - what the interposition library (mpiio/) may call beyond the
 * public API.  Not installed.
 */
#ifndef PMON_PRELOAD_H
#define PMON_PRELOAD_H

#include "pmon.h"

/*
 * pmon_init() for the interposition library: BY_PRELOAD marks the state so
 * that the program's own later pmon_init() succeeds once instead of
 * reporting PMON_EALREADY.
 */
PMON_EXTERN int pmon__init(int by_preload);

/*
 * End measuring without a report or a summary.  For pmon-run, whose own
 * whole-process measurement is not wanted once the command turns out to be
 * an MPI program that reports itself.  Not collective.
 */
PMON_EXTERN int pmon__finalize_discard(void);

#endif /* PMON_PRELOAD_H */
