/*
 * log.h - errors and diagnostics.
 *
 * The library never prints on its own: pmon__fail() only records the
 * calling thread's detailed message (pmon_errmsg()) and returns the code.
 * pmon__say() writes one line to stderr and is used for the few things the
 * user asked to see: a bad configuration at init, and the end-of-job
 * summary.  pmon__debug() writes only when PMON_DEBUG is set.  Every line
 * reads "pmon: <where>: <what>: <why>".
 */
#ifndef PMON_LOG_H
#define PMON_LOG_H

#include <stdarg.h>

#if defined(__GNUC__)
#define PMON_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PMON_PRINTF(f, a)
#endif

/* Record "pmon: " + the formatted text as this thread's last error and
 * return CODE. */
int pmon__fail(int code, const char *fmt, ...) PMON_PRINTF(2, 3);

/* Forget this thread's last error. */
void pmon__clear_error(void);

/* Write "pmon: " + the text and a newline to stderr, in one write(2). */
void pmon__say(const char *fmt, ...) PMON_PRINTF(1, 2);

/* As pmon__say(), only when PMON_DEBUG is set (read once). */
void pmon__debug(const char *fmt, ...) PMON_PRINTF(1, 2);

/* Whether PMON_DEBUG is set. */
int pmon__debugging(void);

#endif /* PMON_LOG_H */
