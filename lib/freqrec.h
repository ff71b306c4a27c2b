/*
 * freqrec.h - the node's record of PMON_IO_FREQ (lib/freqrec.c): which
 * jobs cap which CPUs, and each CPU's limit from before the first of
 * them.  Used by lib/iofreq.c and by pmon-iofreq(8), the node epilog.
 * Not installed.
 */
#ifndef PMON_FREQREC_H
#define PMON_FREQREC_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#include "core.h"

#define PMON_FREQREC_JOBS 64 /* jobs a node's record holds */

struct pmon_freqrec_job {
  char id[64];        /* the batch system's job id, or "pid-PID" */
  long pid;           /* the job's node leader, */
  unsigned long long start; /* and its start time (/proc/PID/stat) */
  unsigned cap_khz;   /* its PMON_IO_FREQ */
  int active;         /* its ranks of the node are in an I/O phase */
  unsigned long cpus[PMON_CPU_WORDS]; /* the CPUs it may cap */
};

struct pmon_freqrec {
  int lock_fd;                  /* held: flock(LOCK_EX) */
  char dir[PATH_MAX];           /* the rule's directory */
  char lock[PATH_MAX], path[PATH_MAX];
  uid_t owner;                  /* of the lock file */
  unsigned orig[PMON_CPUS_MAX]; /* kHz from before the first job; 0: none */
  int njobs;
  struct pmon_freqrec_job job[PMON_FREQREC_JOBS];
};

/*
 * The directory of the records, for the library and the epilog alike:
 * PMON_IO_FREQ_STATE, else /var/tmp (node-wide: Slurm's per-job TMPDIR,
 * and the private /tmp of job_container/tmpfs, are not).
 */
void pmon__freqrec_dir(char *buf, size_t size);

/*
 * Lock NODE's record (DIR/pmon-iofreq-NODE.lock, created with CREATE) and
 * read it (DIR/pmon-iofreq-NODE.record).  The lock file is this user's,
 * or root may take anyone's; the record another user's is not read.
 * Waits at most 2 s for the lock.  0, or PMON_ENOTFOUND without a lock
 * file (and not CREATE), PMON_EPERM, PMON_EAGAIN (held too long),
 * PMON_EFORMAT or PMON_EIO, said with pmon__fail().  A record of another
 * boot is empty.
 */
int pmon__freqrec_lock(struct pmon_freqrec *r, const char *node, int create);

/* Forget the jobs whose leader is gone (its PID dead, or another
 * process's now); how many. */
int pmon__freqrec_prune(struct pmon_freqrec *r);

/* The job ID's entry, NULL without one; _add makes it (NULL when full). */
struct pmon_freqrec_job *pmon__freqrec_find(struct pmon_freqrec *r,
                                            const char *id);
struct pmon_freqrec_job *pmon__freqrec_add(struct pmon_freqrec *r,
                                           const char *id);
void pmon__freqrec_remove(struct pmon_freqrec *r, struct pmon_freqrec_job *j);

/*
 * Put every CPU of the record where its jobs want it: the lowest cap of
 * the active jobs that may cap it, else its limit from before the first
 * job, which is then forgotten when no job holds the CPU any more.  With
 * ONLY_RAISE (the epilog, as root, from a file users write), a value
 * below the CPU's present one or outside its cpuinfo_min_freq and
 * cpuinfo_max_freq is not written.  The writes that failed.
 */
int pmon__freqrec_settle(struct pmon_freqrec *r, int only_raise);

/*
 * Write the record back (whole, renamed over it; removed with its lock
 * file when it holds nothing) when SAVE, and unlock.  0 or PMON_EIO.
 */
int pmon__freqrec_unlock(struct pmon_freqrec *r, int save);

/* The job key of this process's job: the batch system's id
 * (SLURM_JOB_ID, PBS_JOBID, LSB_JOBID, FLUX_JOB_ID), else "pid-PID". */
void pmon__freqrec_job_key(char *buf, size_t size);

/* The start time of process PID (field 22 of /proc/PID/stat), 0 when it
 * cannot be read. */
unsigned long long pmon__freqrec_start_of(long pid);

#endif /* PMON_FREQREC_H */
