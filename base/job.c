/*
 * job.c - the batch system's job id (job.h).  The report's job id and the
 * node record of PMON_IO_FREQ (lib/freqrec.c) both read it here, so that
 * the two always name one job alike.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>

#include "job.h"

const char *pmon__batch_job_id(const char **var)
{
  static const char *const vars[] = {"SLURM_JOB_ID", "PBS_JOBID",
                                     "LSB_JOBID", "FLUX_JOB_ID"};

  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = getenv(vars[i]);

    if (v != NULL && *v != '\0') {
      if (var != NULL)
        *var = vars[i];
      return v;
    }
  }
  return NULL;
}
