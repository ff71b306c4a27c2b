/*
 * pmon-meters.h - what the two files of pmon-meters(1) share: the listing's
 * wrapped output (pmon-meters.c) and the hints for a meter that cannot be
 * used (meters-hint.c).
 */
#ifndef PMON_METERS_H
#define PMON_METERS_H

#include "driver.h"
#include "log.h"

/* Where a meter of the node's list comes from. */
enum source { SRC_ENV, SRC_OPTION, SRC_SITE, SRC_AUTO, SRC_FALLBACK };

/* Print "  LABEL" padded to the text column, then the formatted text
 * wrapped at the page width, continuation lines indented; a '\n' in it
 * breaks the line. */
void meters_wrapf(const char *label, const char *fmt, ...) PMON_PRINTF(2, 3);

/* Whether the message MSG contains WHAT. */
int meters_has(const char *msg, const char *what);

/* Print the administrator's hint for trouble RC with message MSG, for the
 * meter SPEC from SOURCE: what is wrong and what would fix it. */
void meters_hint(int rc, const char *msg, const struct pmon_spec *spec,
                 enum source source);

#endif /* PMON_METERS_H */
