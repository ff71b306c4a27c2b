/*
 * env.h - the names of every environment variable pmon reads, in one
 * place.  Each is documented in pmon(7).
 */
#ifndef PMON_ENV_H
#define PMON_ENV_H

#define PMON_ENV_DISABLE "PMON_DISABLE"     /* non-empty, not "0": no-ops */
#define PMON_ENV_METERS "PMON_METERS"       /* meter list, default "auto" */
#define PMON_ENV_OUTPUT "PMON_OUTPUT"       /* report path */
#define PMON_ENV_QUIET "PMON_QUIET"         /* no end-of-job summary */
#define PMON_ENV_DEBUG "PMON_DEBUG"         /* diagnostics on stderr */
#define PMON_ENV_NODE "PMON_NODE"           /* emulated node name */
#define PMON_ENV_SYSFS_ROOT "PMON_SYSFS_ROOT" /* default "/sys" */
#define PMON_ENV_PROC_ROOT "PMON_PROC_ROOT" /* default "/proc" */
#define PMON_ENV_DEV_ROOT "PMON_DEV_ROOT"   /* default "/dev" */
#define PMON_ENV_NVML_LIB "PMON_NVML_LIB" /* nvml: the library without lib= */
#define PMON_ENV_IDLE_W "PMON_ESTIMATE_IDLE_W" /* estimate: P_idle */
#define PMON_ENV_MAX_W "PMON_ESTIMATE_MAX_W"   /* estimate: P_max */
#define PMON_ENV_RUN_FD "PMON_RUN_FD"       /* set by pmon-run, see there */
#define PMON_ENV_IO_GAP "PMON_IO_GAP"     /* I/O phase merge gap, s */
#define PMON_ENV_IO_FILES "PMON_IO_FILES" /* files listed in the report */
#define PMON_ENV_COMM "PMON_COMM" /* 0: communication calls not counted */
#define PMON_ENV_SHARE "PMON_SHARE" /* off: whole nodes, not read */
#define PMON_ENV_IO_FREQ "PMON_IO_FREQ" /* MHz: CPUs capped during I/O */
#define PMON_ENV_IO_FREQ_STATE "PMON_IO_FREQ_STATE" /* its state file's dir */
#define PMON_ENV_SLURM_CPU_FREQ_REQ "SLURM_CPU_FREQ_REQ" /* srun --cpu-freq */
#define PMON_ENV_TIMELINE "PMON_TIMELINE" /* slices of a node's timeline */
#define PMON_ENV_TRACE "PMON_TRACE" /* its name before report format 3 */
#define PMON_ENV_MAX_REGIONS "PMON_MAX_REGIONS" /* region names kept */
#define PMON_ENV_REGION_NODES "PMON_REGION_NODES" /* listed per region */
#define PMON_ENV_SITE_FILE "PMON_SITE_FILE" /* the site file (pmon-site(5)) */
#define PMON_ENV_LABEL "PMON_LABEL" /* the run's name in the report */
#define PMON_ENV_TAGS "PMON_TAGS"   /* key=value,... in the report */
#define PMON_ENV_SPOOL_INTERVAL "PMON_SPOOL_INTERVAL" /* s, 0: no spool */
#define PMON_ENV_SPOOL_DIR "PMON_SPOOL_DIR" /* default: the report's */
#define PMON_ENV_KEEP_SPOOL "PMON_KEEP_SPOOL" /* keep it after the report */
#define PMON_ENV_METRICS_DIR "PMON_METRICS_DIR" /* Prometheus textfiles */
#define PMON_ENV_METRICS_INTERVAL "PMON_METRICS_INTERVAL" /* s, default 10 */
#define PMON_ENV_METRICS_REGIONS "PMON_METRICS_REGIONS" /* named, 32 */
#define PMON_ENV_METRICS_KEEP "PMON_METRICS_KEEP" /* s; unset: left */
#define PMON_ENV_RECORD "PMON_RECORD" /* a directory: the trace (replay) */

#endif /* PMON_ENV_H */
