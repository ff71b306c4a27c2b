#!/bin/sh
# examples/slurm-epilog-iofreq.sh - give this node's CPUs back the clock
# limits that a job run with PMON_IO_FREQ held, when the job ended without
# putting them back itself (a rank killed with SIGKILL, the node out of
# memory): pmon-mpiio(7), "The clock during I/O".
#
# For the node epilog, run by slurmd as root after every job (slurm.conf):
#
#   Epilog=/etc/slurm/slurm-epilog-iofreq.sh
#
# pmon-iofreq(8) epilog puts each CPU that no running job caps back up
# to the limit root's prolog saved (examples/slurm-prolog-iofreq.sh),
# never higher and never to a value from the jobs' record, which it only
# reads (PMON_IO_FREQ_STATE, default /var/tmp: set it the same for the
# jobs and for slurmd) and removes when no job of it runs.  Another job's
# cap stays.
#
# Settings, from the environment of slurmd or edited here:
#   PMON_IO_FREQ_STATE  the directory of the record (default /var/tmp)
#   PMON_NODE           the node's name as pmon has it (default: host name)
#   PMON_SYSFS_ROOT     the sysfs root (default /sys; the tests move it)
#   PMON_IOFREQ         the pmon-iofreq program (default: from PATH)
# The script always exits 0: an epilog that fails would drain the node.

[ -n "$SLURM_JOB_ID" ] || exit 0
"${PMON_IOFREQ:-pmon-iofreq}" epilog "$SLURM_JOB_ID" ||
  logger -t pmon "pmon-iofreq epilog $SLURM_JOB_ID failed"
exit 0
