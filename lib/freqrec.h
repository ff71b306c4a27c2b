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
  int alive;          /* its leader runs (PID and start time), */
  int believed;       /* as the record's owner: set when read */
};

struct pmon_freqrec {
  int lock_fd;                  /* held: flock(LOCK_EX) */
  int no_lock;                  /* _peek found no lock file */
  char dir[PATH_MAX];           /* the rule's directory */
  char lock[PATH_MAX], path[PATH_MAX], limits[PATH_MAX];
  uid_t owner;                  /* of the record (this user when none) */
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

/* R emptied, with NODE's names of the files (R->lock, path, limits):
 * for _limits and _limits_save without the record.  0 or PMON_EINVAL (a
 * name too long, said with pmon__fail()). */
int pmon__freqrec_names(struct pmon_freqrec *r, const char *node);

/*
 * Lock NODE's record (DIR/pmon-iofreq-NODE.lock, created with CREATE) and
 * read it (DIR/pmon-iofreq-NODE.record), for a job: both must be this
 * user's (root's own for root), regular files; a link, a FIFO, a device
 * or another user's file is refused (never followed, waited on or
 * believed).  Waits at most 2 s for the lock.  0; 1 without a lock file
 * (and not CREATE); else PMON_EAGAIN (held too long), PMON_EINVAL (a name
 * too long), PMON_ENOMEM or PMON_EIO (refused, or not readable), said
 * with pmon__fail().  A record of another boot, or not pmon's, is empty.
 */
int pmon__freqrec_lock(struct pmon_freqrec *r, const char *node, int create);

/*
 * For root's prolog and epilog and a look (pmon-iofreq(8)): read NODE's
 * record whoever's it is, under its lock when that can be had within 2 s
 * (said in one line when not: r->lock_fd is then -1), never writing it.
 * Of its jobs, those whose leader runs as the record's owner are
 * believed (j->believed); nothing else of a record that is not the
 * caller's is to be used.  0, 1 without a lock file, or as
 * pmon__freqrec_lock().
 */
int pmon__freqrec_peek(struct pmon_freqrec *r, const char *node);

/* After pmon__freqrec_peek(): remove the record and its lock (under the
 * lock; the record alone when there was no lock file, which a job of the
 * rule's holds while it changes the record), and unlock. */
void pmon__freqrec_drop(struct pmon_freqrec *r);

/*
 * The limits in DIR/pmon-iofreq-NODE.limits (r->limits; R from _lock or
 * _peek) into KHZ[PMON_CPUS_MAX] (0: none): believed only when the file
 * is root's or the caller's, regular, not writable by group or others,
 * and of this boot.  The number of CPUs it gives (0 without a file), or PMON_EIO or
 * PMON_EFORMAT, said with pmon__fail().
 */
int pmon__freqrec_limits(const struct pmon_freqrec *r, unsigned *khz);

/* Writes KHZ as that file (mode 0644, renamed over it).  0 or PMON_EIO. */
int pmon__freqrec_limits_save(const struct pmon_freqrec *r,
                              const unsigned *khz);

/*
 * The clock's calibration (pmon-meters --calibrate-clock) owns the clock
 * while it runs: it holds flock(LOCK_EX) on DIR/pmon-iofreq-NODE.calibration
 * from before its first write to after its last, and a job leaves the
 * clock alone while such a lock is held.
 *
 * _take: make or reuse the file (this user's; as root, a file of another
 * user's at the name is removed first: C->replaced) and lock it,
 * writing this process's pid into it.  0; PMON_EAGAIN when another
 * calibration holds it (its pid in C->pid), PMON_EIO when the file is
 * refused or cannot be made, PMON_EINVAL a name too long: said with
 * pmon__fail().  _give removes the file and lets go.
 */
struct pmon_freqcal {
  int fd;             /* held: flock(LOCK_EX) */
  long pid;           /* _take: the other calibration's, on PMON_EAGAIN */
  int replaced;       /* _take: removed what another put at the name, */
  unsigned replaced_uid; /* its owner */
  char path[PATH_MAX];
};
int pmon__freqrec_cal_take(struct pmon_freqcal *c, const char *node);
void pmon__freqrec_cal_give(struct pmon_freqcal *c);

/* Whether a calibration of NODE runs: its lock is held, and its file is
 * root's or this user's (a stranger's is not believed).  Its pid in *PID
 * (0 when the file does not say).  Never waits. */
int pmon__freqrec_cal_running(const char *node, long *pid);

/* CPU's cpufreq FILE as a number (0 when it cannot be read); CPU's
 * scaling_max_freq set to KHZ (0, or -1 when it cannot be). */
unsigned pmon__freqrec_khz(int cpu, const char *file);
int pmon__freqrec_set_khz(int cpu, unsigned khz);

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
 * job, which is then forgotten when no job holds the CPU any more.  For
 * a job's own record (pmon__freqrec_lock()) only.  The writes that
 * failed.
 */
int pmon__freqrec_settle(struct pmon_freqrec *r);

/*
 * Write the record back (whole, renamed over it; removed with its lock
 * file when it holds nothing) when SAVE and it is the caller's, and
 * unlock.  0 or PMON_EIO.
 */
int pmon__freqrec_unlock(struct pmon_freqrec *r, int save);

/* The job key of this process's job: the batch system's id
 * (SLURM_JOB_ID, PBS_JOBID, LSB_JOBID, FLUX_JOB_ID), else "pid-PID". */
void pmon__freqrec_job_key(char *buf, size_t size);

/* This boot's id (PROC/sys/kernel/random/boot_id; "unknown") into BUF,
 * and the real uid of process PID (-1 when it cannot be read): what a
 * record of the node is checked against (lib/evidence.c too). */
void pmon__freqrec_boot_id(char *buf, size_t size);
long pmon__freqrec_uid_of(long pid);

/* The start time of process PID (field 22 of /proc/PID/stat), 0 when it
 * cannot be read. */
unsigned long long pmon__freqrec_start_of(long pid);

#endif /* PMON_FREQREC_H */
