#!/bin/sh
# examples/slurm-epilog-pmon.sh - rebuild the pmon report of a Slurm job
# that ended before pmon_finalize (time limit, scancel, node failure, a
# crash), from the spool its node leaders kept (pmon(7), "When the job is
# killed"; pmon-report(1), REBUILD).
#
# For the controller's epilog, which runs once per job (slurm.conf):
#
#   EpilogSlurmctld=/etc/slurm/slurm-epilog-pmon.sh
#
# with every job's spool in one shared directory, which the site's pmon
# module sets for all jobs:
#
#   export PMON_SPOOL_DIR=/shared/pmon-spool     (mode 1777, like /tmp)
#
# A job that reached pmon_finalize removed its spool: there is nothing to
# do.  Otherwise the report is rebuilt, as the job's user (never as root:
# the spool directory is the user's, and root must not follow a link
# planted in it), beside the spool as pmon-JOBID.rebuilt.json.
#
# Settings, from the environment of slurmctld or edited here:
#   PMON_SPOOL_DIR   the shared spool directory (as above)
#   PMON_REPORT      the pmon-report program (default: from PATH)
# Slurm gives SLURM_JOB_ID and SLURM_JOB_USER.  The script always exits
# 0: an epilog that fails would drain the node or hold the job.

dir=${PMON_SPOOL_DIR:-/shared/pmon-spool}
report=${PMON_REPORT:-pmon-report}
job=${SLURM_JOB_ID:-}
user=${SLURM_JOB_USER:-}

[ -n "$job" ] && [ -n "$user" ] || exit 0
case $job in *[!0-9_]*) exit 0 ;; esac # array jobs are 123_4
spool=$dir/pmon-spool-$job
[ -d "$spool" ] && [ ! -L "$spool" ] || exit 0
# The job's user's own: anyone may create a directory in a mode 1777 one.
owner=$(stat -c %U -- "$spool" 2>/dev/null)
if [ "$owner" != "$user" ]; then
  logger -t pmon "job $job: $spool belongs to '$owner', not $user: left alone"
  exit 0
fi

out=$dir/pmon-$job.rebuilt.json
[ -e "$out" ] && exit 0 # rebuilt already (an epilog may run twice)
if command -v runuser >/dev/null 2>&1; then
  # A stuck file system must not hold the job: a minute at most.
  timeout 60 runuser -u "$user" -- "$report" rebuild -o "$out" "$spool" \
    >/dev/null 2>&1 || logger -t pmon "job $job: rebuild from $spool failed"
else
  logger -t pmon "job $job: runuser not found: $spool not rebuilt"
fi
exit 0
