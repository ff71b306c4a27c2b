#!/bin/sh
# bench/spool_cost.sh - what the spool costs (bench/README.md; lib/spool.c).
#
#   sh bench/spool_cost.sh [SECONDS [RUNS]]   (from the top of a build;
#                                              make bench-spool)
#
# 1. The share of a core: bench/sampler_cpu (pmon_init, sleep SECONDS,
#    default 20, pmon_finalize) on a pm_counters meter fed at 10 Hz, with
#    PMON_SPOOL_INTERVAL=0 (no spool: the baseline, run first and again
#    last) and 5 (the default), 1 and 0.1 s; per row the process's CPU
#    time over the window less the baseline's, as a share of one core and
#    per spool written.  The spool goes beside the report, in a directory
#    under BENCH_DIR (default /tmp): each writing is a whole file,
#    fdatasync(2)ed and renamed, so a disk costs more than a tmpfs.
# 2. The region pair: bench/region_cost with PMON_SPOOL_INTERVAL=0 (the
#    baseline) and 0.1 (the busiest spool: its thread takes the lock the
#    sampler takes, never one the region calls wait for; the region calls
#    compare the time with their next publication, and publish their
#    regions to the rank's slot ten times a second), alternately RUNS
#    times each (default 5); the medians, their difference and ratio.
: "${srcdir:=.}"
top_builddir=${top_builddir:-.}
SECONDS_PER_CASE=${1:-20}
RUNS=${2:-5}
. "$srcdir/bench/costs.sh"
costs_setup spool_cost "$SECONDS_PER_CASE"
# run NAME INTERVAL: one sampler_cpu run into $BT/NAME.out.
run() {
  PMON_SPOOL_INTERVAL=$2 PMON_OUTPUT=$BT/$1.json "$PROG" "$SECONDS_PER_CASE" \
    > "$BT/$1.out" 2> "$BT/$1.err"
}

run base0 0 || { echo "spool_cost: the baseline failed: $(cat "$BT/base0.err")"; exit 1; }
cases="5 1 0.1"
for iv in $cases; do
  run "s$iv" "$iv" || echo "spool_cost: PMON_SPOOL_INTERVAL=$iv failed: $(head -c 300 "$BT/s$iv.err")"
done
run base1 0
base=$(awk -v a="$(rate base0)" -v b="$(rate base1)" 'BEGIN { printf "%.1f", (a + b) / 2 }')
printf '%-34s %10s %12s %12s\n' "PMON_SPOOL_INTERVAL" "CPU ms/s" "% of a core" "us a spool"
printf '%-34s %10.3f %12s %12s\n' "0, no spool (baseline: mean of" "$(awk -v b="$base" 'BEGIN { print b / 1e6 }')" "-" "-"
printf '%-34s\n' "  $(awk -v a="$(rate base0)" -v b="$(rate base1)" 'BEGIN { printf "%.3f and %.3f ms/s", a / 1e6, b / 1e6 }'), first and last)"
for iv in $cases; do
  [ -s "$BT/s$iv.out" ] || continue
  awk -v iv="$iv" -v r="$(rate "s$iv")" -v b="$base" 'BEGIN {
    net = r - b                      # ns of CPU a second, less the baseline
    printf "%-34s %10.3f %11.4f%% %12.1f\n", iv " s" (iv == 5 ? " (default)" : ""), \
      net / 1e6, 100 * net / 1e9, net * iv / 1e3 }'
done

# The region pair.
pair0() {
  PMON_SPOOL_INTERVAL=0 PMON_OUTPUT=$BT/pair.json "$PAIR" 1000000 | pair_ns
}
pair1() {
  PMON_SPOOL_INTERVAL=0.1 PMON_OUTPUT=$BT/pair.json "$PAIR" 1000000 | pair_ns
}
compare_pairs spool_cost "$RUNS" "PMON_SPOOL_INTERVAL=0" \
  "PMON_SPOOL_INTERVAL=0.1"
