/*
 * evidence.h - whether another job runs on this node (lib/evidence.c), for
 * the node leader's split of its energy (lib/share.c; pmon(7), Shared
 * nodes).  Not installed.
 *
 * A node is shared when something says that another job runs there; the
 * CPU use of daemons, of kernel threads or of the user's own processes
 * that belong to no job is no such evidence.  The kinds, as the report's
 * sharing.evidence[].kind names them:
 *
 *   "slurm"     Slurm runs other jobs beside this one (their cgroups), or
 *               gave this job part of the node (SLURM_CPUS_ON_NODE, the
 *               job cgroup's cpuset);
 *   "pmon"      another pmon job measures one of this job's meters (its
 *               record in the node's state directory);
 *   "user"      processes of another user (uid UID_MIN to UID_MAX, not
 *               this job's) used more than PMON_SHARE_OTHERS CPU-s per
 *               second, and PMON_SHARE_OTHERS_MIN CPU-s in all;
 *   "gpu"       another's process used one of the job's GPUs;
 *   "affinity"  with any of the above: the job was held to part of the
 *               node, which its idle part is then split by.
 *
 * Every function but pmon__ev_json() and pmon__ev_summary() is the
 * leader's share thread's (or its open and finish, when no thread runs);
 * those two may be called beside it.
 */
#ifndef PMON_EVIDENCE_H
#define PMON_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>

enum {
  PMON_EVK_SLURM,
  PMON_EVK_PMON,
  PMON_EVK_USER,
  PMON_EVK_GPU,
  PMON_EVK_AFFINITY,
  PMON_EVK_N
};

/*
 * Open, on the leader: PIDS[0..N-1] are the node's ranks, NODE_CPUS the
 * node's online CPUs (-1 unknown), HZ the clock ticks per second and
 * INIT_TICKS the boot time at init in ticks.  Finds the Slurm job's
 * cgroup, the other users' range (/etc/login.defs' UID_MIN, UID_MAX), and
 * looks once.  Nothing fails: what cannot be read is no evidence.
 */
void pmon__ev_open(const int *pids, int n, int node_cpus, long hz,
                   unsigned long long init_ticks);

/* The job's record, once its id JOB is known (the same on every node):
 * written in the state directory for the other jobs, with the meters'
 * names (driver and device) and the node's ranks. */
void pmon__ev_named(const char *job);

/* A look at what costs little: Slurm's other jobs, the other pmon jobs'
 * records, their CPU time.  Whether there is any evidence so far. */
int pmon__ev_look(void);

/* The other jobs' CPU time read again (their ranks, their cgroups),
 * between looks: once the node is found shared, at each reading. */
void pmon__ev_update(void);

/* A walk of /proc feeds the other users' CPU time: _walk_begin, then
 * _walk_proc for every process (its uid, its start and its CPU time,
 * with the children it waited for, in ticks, its parent), then
 * _walk_end, at boot time T_TICKS. */
void pmon__ev_walk_begin(void);
void pmon__ev_walk_proc(int pid, int ppid, unsigned uid,
                        unsigned long long start, unsigned long long cpu);
void pmon__ev_walk_end(double span_s);

/* Evidence that share.c found (KIND, WHAT: the GPUs, the affinity). */
void pmon__ev_note(int kind, const char *what);

/* Whether there is evidence, of any kind but "affinity". */
int pmon__ev_any(void);

/* The CPU time of the other jobs seen since init, seconds, and the
 * rounding it may carry in *ERR: Slurm's other jobs' cgroups, else the
 * other users' processes and the other pmon jobs' ranks of this user.
 * NAN when none was seen. */
double pmon__ev_others_cpu(double *err);

/* sharing.evidence: [{"kind": K, "what": TEXT}, ...]; [] for none. */
struct json_t *pmon__ev_json(void);

/* "another pmon job (job 42), Slurm" into BUF; "" for none. */
const char *pmon__ev_summary(char *buf, size_t size);

/* The record removed, all let go. */
void pmon__ev_close(void);

/* The CPUs in a list such as "0-3,8,10-11" (cpuset.cpus.effective); -1
 * when it is not one. */
int pmon__cpu_list_count(const char *p);

/* For tests/check_evidence: the Slurm job directory in TEXT (a
 * /proc/PID/cgroup file) into DIR; 0, or -1 when it names none.  *V1
 * set when it is a cgroup v1 line's (its controllers in CTL). */
int pmon__ev_slurm_dir(const char *text, char *dir, size_t size, int *v1,
                       char *ctl, size_t ctl_size);

#endif /* PMON_EVIDENCE_H */
