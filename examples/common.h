/*
 * common.h - what the MPI-IO examples (vpicio, h5vpic, iopattern) share:
 * ending the job on an MPI error, finalizing, counts with K/M/G suffixes,
 * and the mixer their data is made from.  examples/common.c.
 */
#ifndef PMON_EXAMPLES_COMMON_H
#define PMON_EXAMPLES_COMMON_H

#include <stdint.h>

/* Name the program for messages, and learn this rank (MPI is up). */
void ex_init(const char *prog);

/* End the whole job (MPI_Abort), without returning. */
void ex_fail(void);

/* End the job when RC is not MPI_SUCCESS, naming WHAT (and ARG). */
void ex_check(int rc, const char *what, const char *arg);

/* Whether PATH is a directory: rank 0 looks, every rank learns.
 * Collective over MPI_COMM_WORLD. */
int ex_is_dir(const char *path);

/* MPI_Finalize, then exit status STATUS (1 if MPI_Finalize fails). */
int ex_finish(int status);

/* A count with an optional K, M or G suffix (powers of 1024), 1 to MAX;
 * -1 when S is not one. */
long long ex_parse_count(const char *s, long long max);

/* 64-bit mixer (splitmix64's finaliser): the data is a function of where
 * it belongs, so that a value in the wrong place is found on reading
 * back. */
uint64_t ex_mix(uint64_t x);

#endif /* PMON_EXAMPLES_COMMON_H */
