/*
 * job.h - the batch system's job id, read from its environment (base/job.c).
 */
#ifndef PMON_JOB_H
#define PMON_JOB_H

/*
 * The job id the batch system set (Slurm, PBS, LSF, Flux, in that order),
 * or NULL outside a batch job.  *VAR, when VAR is not NULL, gets the name
 * of the variable it came from.  The text is as set: callers make it fit
 * for a file name or a report.
 */
const char *pmon__batch_job_id(const char **var);

#endif /* PMON_JOB_H */
