#!/bin/sh
# examples/iofreq-demo.sh - "make iofreq-demo": the Cray study's policy, a
# lower CPU clock during I/O (PMON_IO_FREQ), run and compared with the same
# job without it, on fixtures: this machine's cpufreq files are seldom
# writable, so the CPUs here are a sysfs tree (PMON_SYSFS_ROOT) and the
# node's power a fake Cray pm_counters tree whose power follows the clock
# limit of the tree's first CPU (tests/pmfeed --freq: 100 W idle, 400 W at
# 3000 MHz, the dynamic part as the cube of the clock).
# Run from the build tree, after "make all tests/pmfeed".
#
# The job: examples/iopattern on 2 ranks (contiguous, strided and nested
# patterns, 64 MiB per rank each way, 1 MiB transfers), twice: without
# PMON_IO_FREQ, then with PMON_IO_FREQ=1200.  pmon-report prints the
# second run's io section (its freq_policy: the switches, the time capped,
# every CPU restored) and compares the two runs: the I/O energy and MB/J
# change, the bytes do not.  On real nodes the I/O time may grow as well;
# on fixtures the clock is a number in a file, and only the power follows
# it.  The fixture node is not this machine, so what else runs here is
# not work beside the job on it: PMON_SHARE=off (pmon(7), Shared nodes).
# Every file is in iofreq-demo/, made afresh each time.

MPIRUN_SH=${MPIRUN_SH:-tests/mpirun.sh}
dir=iofreq-demo
rm -rf "$dir" && mkdir -p "$dir/sys" || exit 1
cpus=$(awk '/^Cpus_allowed_list:/ { n = split($2, r, ",");
  for (i = 1; i <= n; i++) { m = split(r[i], ab, "-");
    for (c = ab[1]; c <= (m > 1 ? ab[2] : ab[1]); c++) print c } }' /proc/self/status)
[ -n "$cpus" ] || cpus=0
for c in $cpus; do
  d=$dir/sys/devices/system/cpu/cpu$c/cpufreq
  mkdir -p "$d" || exit 1
  echo 3000000 > "$d/scaling_max_freq"
  echo 3000000 > "$d/cpuinfo_max_freq"
  echo 800000 > "$d/cpuinfo_min_freq"
done
first=$(echo "$cpus" | head -n 1)
tests/pmfeed "$dir/pm" 400 --freq \
  "$dir/sys/devices/system/cpu/cpu$first/cpufreq/scaling_max_freq" \
  --freq-max 3000000 --idle-w 100 &
feeder=$!
trap 'kill $feeder 2>/dev/null' EXIT
i=0
while [ ! -s "$dir/pm/freshness" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done

for run in without with; do
  if [ $run = with ]; then f=1200; else f=; fi
  echo "iofreq-demo: examples/iopattern on 2 ranks, ${f:+PMON_IO_FREQ=}${f:-without PMON_IO_FREQ}"
  env PMON_SYSFS_ROOT="$dir/sys" PMON_METERS="pm_counters:$dir/pm" \
    PMON_SHARE=off \
    PMON_IO_FREQ="$f" PMON_IO_FREQ_STATE="$dir" PMON_LABEL="$run" \
    PMON_QUIET=1 PMON_OUTPUT="$dir/$run.json" \
    "$MPIRUN_SH" -n 2 tools/pmon-run -- \
    examples/iopattern -b 1M -s 64M "$dir/data" > "$dir/$run.out" || exit 1
done
tools/pmon-report -s io "$dir/with.json" || exit 1
echo
tools/pmon-report compare --baseline=without "$dir/without.json" \
  "$dir/with.json"
