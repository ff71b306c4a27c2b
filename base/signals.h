/*
 * signals.h - the one place where pmon takes signals (base/signals.c,
 * which states the contract).  A feature asks for its signals with
 * pmon__signals_take() and lets them go with pmon__signals_give(); the
 * program's action runs after the feature's, and goes back in place at
 * _give unless the program has put another since.
 */
#ifndef PMON_SIGNALS_H
#define PMON_SIGNALS_H

/* The features, and the signals each acts on. */
#define PMON_SIG_SPOOL 1 /* SIGTERM */
#define PMON_SIG_CLOCK 2 /* SIGTERM, SIGINT, SIGSEGV, SIGBUS, SIGABRT,
                            SIGFPE, SIGILL */

/*
 * FEATURE's signals get pmon's handler.  On one of them, in the process
 * that took them, the handler calls ACT (async-signal-safe, as is all it
 * does), then runs the program's action.  When ACT returned non-zero and
 * the program's handler returns leaving pmon's in place (the process goes
 * on), it calls AGAIN, when not NULL.  The clock's feature runs before
 * the spool's.
 */
void pmon__signals_take(int feature, int (*act)(void), void (*again)(void));
void pmon__signals_give(int feature);

#endif /* PMON_SIGNALS_H */
