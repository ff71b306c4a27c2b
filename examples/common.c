/*
 * common.c - what the MPI-IO examples share (common.h).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <mpi.h>

#include "common.h"

static const char *prog = "example";
static int rank;

void ex_init(const char *name)
{
  prog = name;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
}

void ex_fail(void)
{
  MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

void ex_check(int rc, const char *what, const char *arg)
{
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;

  if (rc == MPI_SUCCESS)
    return;
  if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
    snprintf(msg, sizeof msg, "MPI error %d", rc);
  fprintf(stderr, "%s: rank %d: %s%s%s: %s\n", prog, rank, what,
          arg != NULL ? " " : "", arg != NULL ? arg : "", msg);
  ex_fail();
}

int ex_is_dir(const char *path)
{
  int isdir = 0;

  if (rank == 0) {
    struct stat sb;

    isdir = stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
  }
  ex_check(MPI_Bcast(&isdir, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast",
           NULL);
  return isdir;
}

int ex_finish(int status)
{
  int rc = MPI_Finalize();

  if (rc != MPI_SUCCESS) {
    fprintf(stderr, "%s: rank %d: MPI_Finalize failed (%d)\n", prog, rank,
            rc);
    return 1;
  }
  return status;
}

long long ex_parse_count(const char *s, long long max)
{
  long long v, mult = 1;
  char *end;

  errno = 0;
  v = strtoll(s, &end, 10);
  if (end == s || errno != 0 || v <= 0)
    return -1;
  switch (*end) {
  case 'k': case 'K': mult = 1LL << 10; end++; break;
  case 'm': case 'M': mult = 1LL << 20; end++; break;
  case 'g': case 'G': mult = 1LL << 30; end++; break;
  default: break;
  }
  if (*end != '\0' || v > max / mult)
    return -1;
  return v * mult;
}

uint64_t ex_mix(uint64_t x)
{
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}
