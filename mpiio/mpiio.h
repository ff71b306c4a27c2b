/*
 * mpiio.h - what the files of libpmon-mpiio.so share.  Not installed.
 */
#ifndef PMON_MPIIO_H
#define PMON_MPIIO_H

#include <stdint.h>

#include <mpi.h>

/* A wrapper, and its PMPI_ alias: exported whatever the MPI's header
 * declares.  The library is built with -fvisibility=hidden; Open MPI's
 * mpi.h gives every MPI function default visibility, MPICH's does not, and
 * a hidden wrapper intercepts nothing (tests/exports.test checks the
 * built library's dynamic symbols against the wrapped calls). */
#define PMON_WRAPPER __attribute__((visibility("default")))

/* The real function NAME (a "PMPI_..." name) after this library, or NULL;
 * said once on stderr when PMON_DEBUG is set. */
void *pmon__mpiio_real(const char *name);

/* The clock of the MPI-IO stamps (enum pmon_io_clock), PMON_IO_OFF when
 * calls are not counted.  Set after MPI_Init, cleared at MPI_Finalize;
 * read with relaxed loads. */
extern int pmon__mpiio_clock;

/* Calls of this thread now inside a wrapper (file.c, comm.c); a nested
 * one is not counted.  The library is preloaded or linked, so the static
 * TLS model holds. */
extern _Thread_local int pmon__mpiio_depth
  __attribute__((tls_model("initial-exec")));

/* Declare F, the real function NAME of type T, looked up once; a wrapper
 * whose real function cannot be found returns MPI_ERR_OTHER. */
#define PMON_REAL(T, NAME)                                                 \
  static T *real_;                                                         \
  T *f = __atomic_load_n(&real_, __ATOMIC_RELAXED);                        \
  if (f == NULL) {                                                         \
    if ((f = (T *)pmon__mpiio_real("P" #NAME)) == NULL)                    \
      return MPI_ERR_OTHER;                                                \
    __atomic_store_n(&real_, f, __ATOMIC_RELAXED);                         \
  }

/*
 * MPI-IO requests in flight (file.c): the request of each non-blocking
 * MPI-IO call, with its file, until the Wait or Test that completes it
 * (comm.c: that call is then I/O, not communication) or MPI_Request_free.
 * Up to PMON_MPIIO_REQS at once; one beyond is not told apart.
 */
#define PMON_MPIIO_REQS 1024
void pmon__mpiio_req_add(const MPI_Request *rq, uintptr_t fh);
/* The requests in flight now (a relaxed load: 0 is the fast answer). */
extern int pmon__mpiio_reqs;
/* The file of request RQ if it is one in flight, else 0. */
uintptr_t pmon__mpiio_req_file(const MPI_Request *rq);
/* Request RQ (its handle before the call that completed it) is done. */
void pmon__mpiio_req_done(const MPI_Request *rq);

#endif /* PMON_MPIIO_H */
