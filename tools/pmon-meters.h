/*
 * pmon-meters.h - what the files of pmon-meters(1) share.  They stand in
 * one direction: the listing (pmon-meters.c) uses the hints for a meter
 * that cannot be used (meters-hint.c) and the clock's calibration
 * (meters-calibrate.c), and all of them the wrapped text (meters-text.c).
 */
#ifndef PMON_METERS_H
#define PMON_METERS_H

#include <signal.h>

#include "driver.h"
#include "log.h"

/* Where a meter of the node's list comes from. */
enum source { SRC_ENV, SRC_OPTION, SRC_SITE, SRC_AUTO, SRC_FALLBACK };

#define METERS_WIDTH 79  /* hints are wrapped at this column */
#define METERS_INDENT 15 /* where the text of a field starts */

/* Print "  LABEL" padded to METERS_INDENT, then TEXT wrapped at
 * METERS_WIDTH with its continuation lines indented to METERS_INDENT, its
 * words escaped for a terminal (meters_tty()).  A '\n' in TEXT breaks the
 * line, and the blanks after it are kept (for an example set apart).
 * meters_wrapf() formats TEXT first. */
void meters_wrap(const char *label, const char *text);
void meters_wrapf(const char *label, const char *fmt, ...) PMON_PRINTF(2, 3);

/* S escaped for a terminal (base/tty.h: a driver's message, a device's
 * name, a path may hold control characters): S itself when it needs
 * nothing, else one of a few buffers of the calling thread, used in turn
 * (four: a printf() may take up to four), cut with "..." past 1024 bytes
 * of S.  meters_wrap() escapes its words itself. */
const char *meters_tty(const char *s);

/* Whether the message MSG contains WHAT. */
int meters_has(const char *msg, const char *what);

/* Print the administrator's hint for trouble RC with message MSG, for the
 * meter SPEC from SOURCE: what is wrong and what would fix it. */
void meters_hint(int rc, const char *msg, const struct pmon_spec *spec,
                 enum source source);

/* ---- meters-calibrate.c ---------------------------------------------- */

/* The node's total power measured over SECONDS (in windows): the mean in
 * *W and its 95 % bar in *ERR; 0, or -1 when no window gave a figure or
 * the program was interrupted. */
typedef int meters_power_fn(void *arg, double seconds, double *w,
                            double *err);

/*
 * pmon-meters --calibrate-clock: the node's power, waiting and computing,
 * at NPOINTS clock limits (POWER(ARG, ...) measures it, SECONDS a probe,
 * in windows of WINDOW_S), below the first also with PART of the CPUs
 * alone at the limit (< 0: half of them; 0: not), written to PATH with
 * COVERS (what the total
 * covers); every limit put back as found, also when *INTERRUPTED is set
 * and when standard output fails.  The caller sets *INTERRUPTED on every
 * signal that would end the program, ignores SIGPIPE, and calls
 * meters_calibrate_restore_now() from the handler of a fault.  The exit
 * status: 0 when written, 1 when not (said on standard error).
 */
int meters_calibrate_clock(const char *path, int npoints, int part,
                           double seconds, double window_s,
                           const char *covers, meters_power_fn *power,
                           void *arg, volatile sig_atomic_t *interrupted);

/* Every CPU's limit that the calibration changed put back as found, now.
 * Async-signal-safe (pwrite(2) of texts made beforehand). */
void meters_calibrate_restore_now(void);

#endif /* PMON_METERS_H */
