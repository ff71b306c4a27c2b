/*
 * pmon.h - the pmon application programming interface.
 *
 * pmon measures the energy an MPI job spends, node by node and region by
 * region.  Call pmon_init() after MPI_Init() (or without MPI, for a serial
 * program), mark regions with pmon_region_begin() and pmon_region_end(), and
 * call pmon_finalize() before MPI_Finalize(): rank 0 then writes the job's
 * report and prints a summary.  See pmon(7).
 *
 * Every function returns 0 on success and a negative PMON_E* code on error;
 * none of them ever exits, aborts or prints (pmon_finalize() prints the
 * end-of-job summary unless PMON_QUIET is set).  The region calls and
 * pmon_read() may be called from any thread at any time; regions are
 * tracked per thread.  pmon_init() and pmon_finalize() are called once,
 * by one thread, and no other thread may be inside a region call while
 * pmon_finalize() runs.
 */
#ifndef PMON_H
#define PMON_H

#include <stddef.h>

#include "pmon_version.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && defined(PMON_BUILDING_LIBRARY)
#define PMON_EXTERN __attribute__((visibility("default")))
#else
#define PMON_EXTERN
#endif

/*
 * The error list.  Codes are appended, never renumbered or removed: a
 * program compiled against an older pmon keeps meaning the same thing.
 * XX(symbol, value, message).
 */
#define PMON_ERRNO_MAP(XX)                                                   \
  XX(EINVAL, -1, "invalid argument")                                         \
  XX(ENOINIT, -2, "pmon is not initialised")                                 \
  XX(EALREADY, -3, "pmon is already initialised")                            \
  XX(EFINALIZED, -4, "pmon has been finalised")                              \
  XX(ENOMEM, -5, "out of memory")                                            \
  XX(ENAMETOOLONG, -6, "region name too long")                               \
  XX(ENOREGION, -7, "no such region is open")                                \
  XX(ENEST, -8, "region end does not match the innermost open region")      \
  XX(ECONFIG, -9, "invalid configuration")                                   \
  XX(ENOMETER, -10, "no usable meter")                                       \
  XX(EIO, -11, "meter read failed")                                          \
  XX(EFORMAT, -12, "malformed meter data")                                   \
  XX(EMPI, -13, "MPI call failed")                                           \
  XX(EAGAIN, -14, "no consistent reading, try again")                        \
  XX(ERESET, -15, "meter counters were reset")                               \
  XX(ENODATA, -16, "no energy data yet")                                     \
  XX(EOUTPUT, -17, "cannot write the report")                                \
  XX(ENOTSUP, -18, "not supported")

/* Error codes, all negative; 0 (PMON_OK) is success. */
typedef enum {
  PMON_OK = 0,
#define PMON_ERR_ENUM_(name, val, msg) PMON_##name = (val),
  PMON_ERRNO_MAP(PMON_ERR_ENUM_)
#undef PMON_ERR_ENUM_
  PMON_ERRNO_MIN = -18 /* the lowest code; grows as codes are appended */
} pmon_errno_t;

/* The longest region name, in bytes, without the terminating NUL. */
#define PMON_NAME_MAX 255

/*
 * Start measuring.  Call once per process, after MPI_Init() when the
 * program uses MPI; it is then collective over MPI_COMM_WORLD.  Without MPI
 * the process is one rank on one node.  Reads the PMON_* environment
 * (pmon(7)); on bad configuration it writes one "pmon: ..." line to stderr
 * and returns PMON_ECONFIG, leaving pmon inactive.  With PMON_DISABLE set it
 * does nothing and returns 0, and so does every later call.
 */
PMON_EXTERN int pmon_init(void);

/*
 * Stop measuring, reduce the nodes' records to rank 0, which writes the
 * report and prints the summary.  Call once, before MPI_Finalize(); it is
 * collective over MPI_COMM_WORLD.  Open regions are closed at this point
 * (and counted as such in the report).
 */
PMON_EXTERN int pmon_finalize(void);

/*
 * Open the region NAME in the calling thread.  Regions nest; a region that
 * is opened again while already open in the same thread counts once
 * (its outermost pair).  NAME is copied; it must be 1 to PMON_NAME_MAX
 * bytes of UTF-8.  Never blocks on a meter.
 */
PMON_EXTERN int pmon_region_begin(const char *name);

/*
 * Close the region NAME, which must be the innermost open region of the
 * calling thread (PMON_ENEST otherwise, and nothing changes).
 */
PMON_EXTERN int pmon_region_end(const char *name);

/*
 * Store in *ENERGY_J the energy this node has used since pmon_init(), as
 * far as the node's meters have measured it, and in *TIME_S the time since
 * pmon_init() that this figure covers.  Either pointer may be NULL.
 * PMON_ENODATA when no meter has reported yet.
 */
PMON_EXTERN int pmon_read(double *energy_j, double *time_s);

/*
 * A short static description of the error code ERR; never NULL.  Unknown
 * codes give "unknown error".
 */
PMON_EXTERN const char *pmon_strerror(int err);

/* The symbolic name of ERR ("PMON_EINVAL"); never NULL. */
PMON_EXTERN const char *pmon_err_name(int err);

/*
 * The detailed message of the calling thread's last failed call
 * ("pmon: pm_counters: /sys/cray/pm_counters/energy: ..."), or "" when
 * there is none.  The string is owned by pmon and valid until the same
 * thread's next pmon call.
 */
PMON_EXTERN const char *pmon_errmsg(void);

/* The version of the library in use, "MAJOR.MINOR.PATCH"; static. */
PMON_EXTERN const char *pmon_version(void);

#ifdef __cplusplus
}
#endif

#endif /* PMON_H */
