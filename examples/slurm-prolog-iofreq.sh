#!/bin/sh
# examples/slurm-prolog-iofreq.sh - record this node's CPU clock limits
# as root sees them before each job, for the epilog that puts them back
# when a job run with PMON_IO_FREQ could not (examples/
# slurm-epilog-iofreq.sh; pmon-mpiio(7), "The clock during I/O").
#
# For the node prolog, run by slurmd as root before every job (slurm.conf):
#
#   Prolog=/etc/slurm/slurm-prolog-iofreq.sh
#
# pmon-iofreq(8) save writes root's own file of limits beside the jobs'
# record (PMON_IO_FREQ_STATE, default /var/tmp: set it the same for the
# jobs and for slurmd).  The epilog raises a CPU only up to the limit
# saved here, never to a value from a file a user wrote.  A CPU that a
# running job caps keeps the limit saved before it.
#
# Settings, from the environment of slurmd or edited here:
#   PMON_IO_FREQ_STATE  the directory of the records (default /var/tmp)
#   PMON_NODE           the node's name as pmon has it (default: host name)
#   PMON_SYSFS_ROOT     the sysfs root (default /sys; the tests move it)
#   PMON_IOFREQ         the pmon-iofreq program (default: from PATH)
# The script always exits 0: a prolog that fails would drain the node.

"${PMON_IOFREQ:-pmon-iofreq}" save ||
  logger -t pmon "pmon-iofreq save failed"
exit 0
