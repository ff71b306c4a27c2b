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
# pmon-iofreq(8) takes the job out of the node's record, where the
# library wrote it (PMON_IO_FREQ_STATE, default /var/tmp: set it the same
# for the jobs and for slurmd), forgets the jobs that are gone, and puts
# back what no running job holds, only ever raising a limit within the
# CPU's range.  Another job's cap stays.
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
