/*
 * pmon_marker.h - region markers that cost nothing unless asked for.
 *
 * Compile with -DPMON_MARKERS (and link with -lpmon) to make the macros
 * call pmon; without it they expand to nothing that is evaluated, so the
 * instrumented program needs neither the header's library nor pmon at run
 * time.  Both variants take exactly the same arguments, so a program that
 * compiles one way compiles the other.
 */
#ifndef PMON_MARKER_H
#define PMON_MARKER_H

#ifdef PMON_MARKERS
#include "pmon.h"
#define PMON_MARKER_INIT() pmon_init()
#define PMON_MARKER_FINALIZE() pmon_finalize()
#define PMON_MARKER_BEGIN(name) pmon_region_begin(name)
#define PMON_MARKER_END(name) pmon_region_end(name)
#else
#define PMON_MARKER_INIT() ((void)0)
#define PMON_MARKER_FINALIZE() ((void)0)
#define PMON_MARKER_BEGIN(name) ((void)sizeof(name))
#define PMON_MARKER_END(name) ((void)sizeof(name))
#endif

#endif /* PMON_MARKER_H */
