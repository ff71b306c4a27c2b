#!/bin/sh
# bench/sampler_cpu.sh - the share of a core that pmon's sampling takes in
# an idle program, per meter and rate, against the same program without
# pmon measured in the same run (bench/README.md).
#
#   sh bench/sampler_cpu.sh [SECONDS]     (default 20 per case; make bench)
#
# Run from the build directory with srcdir set (make bench does both).
# Each case is one run of bench/sampler_cpu (pmon_init, sleep SECONDS,
# pmon_finalize) with one meter; the peer that plays the meter runs
# meanwhile, in its own process, whose processor time is not counted.
# A row gives:
#   Hz        the rate the poller reads the meter at
#   reads     the readings of the whole run, as the report counts them
#             (those of pmon_init and pmon_finalize included), and
#   fail      how many of them failed
#   CPU ms    the processor time of the program over the sleep, less that
#             of the baseline (the same program with PMON_DISABLE=1)
#   % of core that time over the sleep's length
#   us/per    that time per period of the poller (sleep x Hz periods)
#   poller %  the share of the poller thread alone (its CPU clock; the
#             rest is the main thread and threads that came and went)
#   verdict   against the acceptance list's limit for the rate: 0.1 % of
#             a core at 1 Hz, 1 % at 60 Hz (other rates: reference)
: "${srcdir:=.}" "${top_builddir:=.}"
. "$srcdir/bench/peers.sh"
SECONDS_PER_CASE=${1:-20}
PROG=$top_builddir/bench/sampler_cpu
JGET=$top_builddir/tests/jget
BT=$(mktemp -d "${TMPDIR:-/tmp}/pmon-bench.XXXXXX") || exit 1
trap 'rm -rf "$BT"' EXIT
export SECONDS_PER_CASE PROG JGET BT

# run NAME: bench/sampler_cpu with PMON_METERS=$METER into $BT/NAME.out
# and the report $BT/NAME.json; its exit status.
run() {
  PMON_METERS=$METER PMON_OUTPUT=$BT/$1.json PMON_QUIET=1 \
    "$PROG" "$SECONDS_PER_CASE" > "$BT/$1.out" 2> "$BT/$1.err"
}

# key NAME KEY: a figure of the program's output.
key() { awk -v k="$2" '$1 == k { print $2 }' "$BT/$1.out"; }

# row NAME LABEL HZ LIMIT: measure the case with $METER and print its
# row; LIMIT is a share of a core in %, or - for none.
row() {
  if ! run "$1"; then
    printf '%-40s failed: %s\n' "$2" "$(head -c 300 "$BT/$1.err")"
    return
  fi
  wall=$(key "$1" wall_ns) cpu=$(key "$1" cpu_ns)
  poller=$(awk '$1 == "thread" { s += $4 } END { print s + 0 }' "$BT/$1.out")
  reads=$("$JGET" "$BT/$1.json" nodes/0/samples)
  failed=$("$JGET" "$BT/$1.json" nodes/0/coverage/0/failed_reads 2>/dev/null)
  if ! kind=$("$JGET" "$BT/$1.json" meters/0/kind 2>/dev/null); then
    printf '%-40s the meter did not open: %s\n' "$2" \
      "$("$JGET" "$BT/$1.json" nodes/0/events/0/detail 2>/dev/null)"
    return
  fi
  awk -v label="$2" -v hz="$3" -v limit="$4" -v wall="$wall" -v cpu="$cpu" \
    -v base="$BASE_NS_PER_S" -v poller="$poller" -v reads="$reads" \
    -v failed="${failed:-0}" -v kind="$kind" \
    'BEGIN {
      net = cpu - base * wall / 1e9      # ns over the window, less baseline
      pct = 100 * net / wall
      per = net / (wall / 1e9 * hz) / 1e3  # us per period of the poller
      verdict = limit == "-" ? "reference" : \
        sprintf("%s (limit %s %%: %.0f %% of it)", \
                pct <= limit ? "PASS" : "OVER", limit, 100 * pct / limit)
      printf "%-40s %3s %6d %4d %8.3f %8.4f %% %7.1f %8.4f %%  %s\n", \
        label ", " kind, hz, reads, failed, net / 1e6, pct, per, \
        100 * poller / wall, verdict
    }'
}

printf 'sampler_cpu: %s s per case, %s, load average %s\n' \
  "$SECONDS_PER_CASE" "$(nproc 2>/dev/null || echo '?') cores" \
  "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
printf '%-40s %3s %6s %4s %8s %10s %7s %10s  %s\n' case Hz reads fail \
  "CPU ms" "% of core" "us/per" "poller %" verdict

# The baseline: the same program, pmon disabled.
METER=estimate PMON_DISABLE=1 run base || {
  echo "sampler_cpu: the baseline failed: $(cat "$BT/base.err")"; exit 1; }
BASE_NS_PER_S=$(awk -v c="$(key base cpu_ns)" -v w="$(key base wall_ns)" \
  'BEGIN { printf "%.1f", c * 1e9 / w }')
export BASE_NS_PER_S
awk -v c="$(key base cpu_ns)" -v w="$(key base wall_ns)" 'BEGIN {
  printf "%-40s %3s %6s %4s %8.3f %8.4f %% %7s %10s  %s\n", \
    "no pmon (PMON_DISABLE=1): baseline", "-", "-", "-", c / 1e6, \
    100 * c / w, "-", "-", "subtracted from the rows below" }'

# pm_counters on tmpfs, fed by tests/pmfeed: a node counter, for
# reference.  raw_scan_hz 10 (the default fixture) makes pmon read at
# 50 Hz; 12 at 60 Hz.
for hz in 10 12; do
  (
    . "$srcdir/tests/lib.sh"
    d=$(mktemp -d /dev/shm/pmon-bench.XXXXXX 2>/dev/null) || d=$TMP/pm
    mkdir -p "$d"
    feed "$d" $BENCH_WATTS --hz $hz
    METER=pm_counters:$d
    row pm$hz "pm_counters, tmpfs, fed ${hz}/s" $((hz * 5)) \
      "$([ $hz = 12 ] && echo 1 || echo -)"
    rm -rf "$d"
  )
done
( keithley_peer 60; row kt60 "keithley, pty emulator" 60 1 )
( keithley_peer 1; row kt1 "keithley, pty emulator" 1 0.1 )
# The same on a node found shared (Slurm gave the job one CPU of the
# node's): the CPU times read ten times a second and /proc walked once a
# second (pmon(7), Shared nodes), for reference.
if [ "$(nproc 2>/dev/null || echo 1)" -gt 1 ]; then
  ( keithley_peer 1; export SLURM_JOB_ID=bench SLURM_CPUS_ON_NODE=1
    row kt1s "keithley, pty, shared node" 1 - )
fi
( eaton_peer 1; row eaton1 "eaton, snmpd, SNMPv2c" 1 0.1 )
( redfish_peer 1 http; row rf1 "redfish http, python peer" 1 0.1 )
( redfish_peer 1 https; row rfs1 "redfish https, python peer" 1 0.1 )
exit 0
