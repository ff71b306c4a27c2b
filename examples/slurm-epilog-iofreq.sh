#!/bin/sh
# examples/slurm-epilog-iofreq.sh - give this node's CPUs back the clock
# limit that a job run with PMON_IO_FREQ found, when the job ended without
# restoring it itself (a rank killed with SIGKILL, the node out of memory):
# pmon-mpiio(7), "The clock during I/O".
#
# For the node epilog, run by slurmd as root after every job (slurm.conf):
#
#   Epilog=/etc/slurm/slurm-epilog-iofreq.sh
#
# pmon's node leader keeps, while it may cap the CPUs, a state file
# PMON_IO_FREQ_STATE/pmon-iofreq-NODE-XXXXXX.state of lines "PATH VALUE"
# (the scaling_max_freq of each CPU and its value at the job's start) and
# removes it once finalize has restored every CPU.  A file left behind is
# the job's user's, so its values are not trusted: a line is used only
# when PATH is a CPU's scaling_max_freq under the sysfs root, VALUE a
# number within the CPU's cpuinfo_min_freq and cpuinfo_max_freq, and only
# to raise the limit, never to lower it.  The file is then removed.
#
# Settings, from the environment of slurmd or edited here:
#   PMON_IO_FREQ_STATE  the directory of the state files (default /tmp)
#   PMON_NODE           the node's name as pmon has it (default: host name)
#   PMON_SYSFS_ROOT     the sysfs root (default /sys; the tests move it)
# The script always exits 0: an epilog that fails would drain the node.

dir=${PMON_IO_FREQ_STATE:-/tmp}
node=${PMON_NODE:-$(hostname)}
sys=${PMON_SYSFS_ROOT:-/sys}

for f in "$dir"/pmon-iofreq-"$node"-*.state; do
  [ -f "$f" ] && [ ! -L "$f" ] || continue
  while read -r path value; do
    cpu=${path#"$sys"/devices/system/cpu/cpu}
    cpu=${cpu%/cpufreq/scaling_max_freq}
    case $cpu in '' | *[!0-9]*) continue ;; esac
    [ "$path" = "$sys/devices/system/cpu/cpu$cpu/cpufreq/scaling_max_freq" ] ||
      continue
    case $value in '' | *[!0-9]*) continue ;; esac
    d=$sys/devices/system/cpu/cpu$cpu/cpufreq
    lo=$(cat "$d/cpuinfo_min_freq" 2>/dev/null) || continue
    hi=$(cat "$d/cpuinfo_max_freq" 2>/dev/null) || continue
    now=$(cat "$path" 2>/dev/null) || continue
    [ "$value" -ge "$lo" ] && [ "$value" -le "$hi" ] && [ "$value" -gt "$now" ] ||
      continue
    echo "$value" > "$path" ||
      logger -t pmon "cpu$cpu: cannot restore scaling_max_freq to $value"
  done < "$f"
  rm -f -- "$f"
done
exit 0
