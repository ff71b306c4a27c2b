/*
 * mpiio.h - what the files of libpmon-mpiio.so share.  Not installed.
 */
#ifndef PMON_MPIIO_H
#define PMON_MPIIO_H

/* The real function NAME (a "PMPI_..." name) after this library, or NULL;
 * said once on stderr when PMON_DEBUG is set. */
void *pmon__mpiio_real(const char *name);

/* The clock of the MPI-IO stamps (enum pmon_io_clock), PMON_IO_OFF when
 * calls are not counted.  Set after MPI_Init, cleared at MPI_Finalize;
 * read with relaxed loads. */
extern int pmon__mpiio_clock;

#endif /* PMON_MPIIO_H */
