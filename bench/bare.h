/*
 * bare.h - the MPI library's own function, past any interposer, for the
 * benchmarks that compare a wrapped call with the bare one in one run.
 * Link with -ldl.
 */
#ifndef PMON_BENCH_BARE_H
#define PMON_BENCH_BARE_H

#include <dlfcn.h>

#include <mpi.h>

/* The function NAME ("PMPI_Send") of the library that holds
 * PMPI_Comm_rank, or NULL. */
static inline void *bench_bare(const char *name)
{
  Dl_info info;
  void *lib, *f;

  if (dladdr((void *)PMPI_Comm_rank, &info) == 0 || info.dli_fname == NULL)
    return NULL;
  if ((lib = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD)) == NULL)
    return NULL;
  f = dlsym(lib, name);
  dlclose(lib);
  return f;
}

#endif /* PMON_BENCH_BARE_H */
