/*
 * pmon-mpiio.c - libpmon-mpiio.so: pmon for unmodified MPI programs.
 *
 * Used with LD_PRELOAD (pmon-run sets it up).  It wraps MPI_Init,
 * MPI_Init_thread, MPI_Finalize and MPI_Abort: pmon starts right after the real
 * initialisation and reports right before the real finalisation.  The
 * MPI-IO calls are wrapped in file.c, communication in comm.c.  Each
 * wrapper answers to both its MPI_ and its PMPI_ name, because Open MPI's
 * Fortran bindings call the PMPI_ symbols directly; the real function is
 * found with dlsym(RTLD_NEXT, "PMPI_...").  A wrapper returns exactly what
 * the real call returned; pmon's own trouble never reaches the program.
 * PMON_DISABLE=1 leaves only the real calls.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "pmon.h"
#include "preload.h"
#include "env.h"
#include "mpiio.h"

typedef int init_fn(int *, char ***);
typedef int init_thread_fn(int *, char ***, int, int *);
typedef int finalize_fn(void);
typedef int abort_fn(MPI_Comm, int);

void *pmon__mpiio_real(const char *name)
{
  void *f = dlsym(RTLD_NEXT, name);
  const char *debug = getenv(PMON_ENV_DEBUG), *why;

  if (f == NULL && debug != NULL && *debug != '\0' && strcmp(debug, "0")) {
    why = dlerror();
    fprintf(stderr, "pmon: mpiio: %s: not found after this library: %s\n",
            name, why != NULL ? why : "no such symbol");
  }
  return f;
}

int pmon__mpiio_clock;
_Thread_local int pmon__mpiio_depth __attribute__((tls_model("initial-exec")));

/* pmon starts, then the counting of MPI-IO and communication calls: pmon's
 * own traffic in its initialisation is not counted. */
static void after_init(void)
{
  int level = MPI_THREAD_SINGLE, clock;

  pmon__tell_pmon_run("mpi");
  if (pmon__init(1) == 0 && PMPI_Query_thread(&level) == MPI_SUCCESS) {
    clock = pmon__io_start(level == MPI_THREAD_MULTIPLE);
    __atomic_store_n(&pmon__mpiio_clock, clock, __ATOMIC_RELAXED);
    pmon__comm_start(level == MPI_THREAD_MULTIPLE, clock);
  }
}

PMON_WRAPPER int MPI_Init(int *argc, char ***argv)
{
  static init_fn *f;
  int rc;

  if (f == NULL && (f = (init_fn *)pmon__mpiio_real("PMPI_Init")) == NULL)
    return MPI_ERR_OTHER;
  rc = f(argc, argv);
  if (rc == MPI_SUCCESS)
    after_init();
  return rc;
}

PMON_WRAPPER
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
  static init_thread_fn *f;
  int rc;

  if (f == NULL &&
      (f = (init_thread_fn *)pmon__mpiio_real("PMPI_Init_thread")) == NULL)
    return MPI_ERR_OTHER;
  rc = f(argc, argv, required, provided);
  if (rc == MPI_SUCCESS)
    after_init();
  return rc;
}

PMON_WRAPPER int MPI_Finalize(void)
{
  static finalize_fn *f;

  if (f == NULL && (f = (finalize_fn *)pmon__mpiio_real("PMPI_Finalize")) == NULL)
    return MPI_ERR_OTHER;
  __atomic_store_n(&pmon__mpiio_clock, PMON_IO_OFF, __ATOMIC_RELAXED);
  pmon_finalize();
  return f();
}

/* The job ends here: the CPUs' clock limits go back first (PMON_IO_FREQ),
 * as MPI_Abort may end this process and the others without a signal that
 * pmon could catch. */
PMON_WRAPPER int MPI_Abort(MPI_Comm comm, int code)
{
  static abort_fn *f;

  if (f == NULL && (f = (abort_fn *)pmon__mpiio_real("PMPI_Abort")) == NULL)
    return MPI_ERR_OTHER;
  pmon__iofreq_restore_now();
  return f(comm, code);
}

/* The PMPI_ names are the same functions. */
PMON_WRAPPER
int PMPI_Init(int *argc, char ***argv) __attribute__((alias("MPI_Init")));
PMON_WRAPPER
int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
  __attribute__((alias("MPI_Init_thread")));
PMON_WRAPPER int PMPI_Finalize(void) __attribute__((alias("MPI_Finalize")));
PMON_WRAPPER int PMPI_Abort(MPI_Comm comm, int code)
  __attribute__((alias("MPI_Abort")));
