#!/bin/sh
# bench/metrics_cost.sh - what PMON_METRICS_DIR costs (bench/README.md;
# lib/metrics.c, pmon-metrics(7)).
#
#   sh bench/metrics_cost.sh [SECONDS [RUNS]]   (from the top of a build;
#                                                make bench-metrics)
#
# 1. The share of a core: bench/sampler_cpu (pmon_init, sleep SECONDS,
#    default 20, pmon_finalize) on a pm_counters meter fed at 10 Hz, the
#    spool off, without metrics (the baseline, run first and again last)
#    and with PMON_METRICS_INTERVAL 10 (the default), 1 and 0.1 s; per row
#    the process's CPU time over the window less the baseline's, as a
#    share of one core and per file written; then the cost of a file from
#    the 0.1 s case (a hundred times as many files: at 10 s the cost is
#    within the baseline's noise), that cost every 10 s as a share of a
#    core, and PASS or OVER against the limit of 0.1 %.  Then the default
#    spool (5 s) alone and with the default metrics: the metrics are
#    written from the record the spool's thread makes anyway.  The files
#    go under BENCH_DIR (default /tmp).
# 2. The region pair: bench/region_cost without metrics (the baseline)
#    and with metrics every 0.1 s (the busiest: the ranks then publish
#    their regions ten times a second), the spool off, alternately RUNS
#    times each (default 5); the medians, their difference and ratio.
: "${srcdir:=.}"
top_builddir=${top_builddir:-.}
SECONDS_PER_CASE=${1:-20}
RUNS=${2:-5}
. "$srcdir/bench/costs.sh"
costs_setup metrics_cost "$SECONDS_PER_CASE"
mkdir "$BT/prom"
# The final files go at finalize.
export PMON_METRICS_KEEP=0

# run NAME SPOOL METRICS: one sampler_cpu run into $BT/NAME.out, with
# PMON_SPOOL_INTERVAL=SPOOL and metrics every METRICS s (0: none).
run() {
  if [ "$3" = 0 ]; then
    env -u PMON_METRICS_DIR PMON_SPOOL_INTERVAL=$2 PMON_OUTPUT=$BT/$1.json \
      "$PROG" "$SECONDS_PER_CASE" > "$BT/$1.out" 2> "$BT/$1.err"
  else
    PMON_METRICS_DIR=$BT/prom PMON_METRICS_INTERVAL=$3 PMON_SPOOL_INTERVAL=$2 \
      PMON_OUTPUT=$BT/$1.json "$PROG" "$SECONDS_PER_CASE" \
      > "$BT/$1.out" 2> "$BT/$1.err"
  fi
}

run base0 0 0 || { echo "metrics_cost: the baseline failed: $(cat "$BT/base0.err")"; exit 1; }
cases="10 1 0.1"
for iv in $cases; do
  run "m$iv" 0 "$iv" || echo "metrics_cost: PMON_METRICS_INTERVAL=$iv failed: $(head -c 300 "$BT/m$iv.err")"
done
run spool 5 0
run both 5 10
run base1 0 0
base=$(awk -v a="$(rate base0)" -v b="$(rate base1)" 'BEGIN { printf "%.1f", (a + b) / 2 }')
printf '%-36s %10s %12s %12s\n' "PMON_METRICS_INTERVAL (no spool)" "CPU ms/s" "% of a core" "us a file"
printf '%-36s %10.3f %12s %12s\n' "none (baseline: mean of" "$(awk -v b="$base" 'BEGIN { print b / 1e6 }')" "-" "-"
printf '%-36s\n' "  $(awk -v a="$(rate base0)" -v b="$(rate base1)" 'BEGIN { printf "%.3f and %.3f ms/s", a / 1e6, b / 1e6 }'), first and last)"
for iv in $cases; do
  [ -s "$BT/m$iv.out" ] || continue
  awk -v iv="$iv" -v r="$(rate "m$iv")" -v b="$base" 'BEGIN {
    net = r - b                      # ns of CPU a second, less the baseline
    printf "%-36s %10.3f %11.4f%% %12.1f\n", iv " s" (iv == 10 ? " (default)" : ""), \
      net / 1e6, 100 * net / 1e9, net * iv / 1e3 }'
done
# At 10 s the cost is within the noise of the baseline: the verdict takes
# the cost of a file from the 0.1 s case, a hundred times as many files.
[ -s "$BT/m0.1.out" ] && awk -v r="$(rate m0.1)" -v b="$base" 'BEGIN {
  per = (r - b) * 0.1                # ns of CPU a file
  share = per / 10 / 1e9             # a file every 10 s
  printf "a file costs %.1f us (from the 0.1 s case): at the default 10 s, %.4f %% of a core  %s\n", \
    per / 1e3, 100 * share, share <= 0.001 ? "PASS (limit 0.1 %)" : "OVER (limit 0.1 %)" }'
awk -v s="$(rate spool)" -v m="$(rate both)" -v b="$base" 'BEGIN {
  printf "spool every 5 s alone:               %10.3f %11.4f%%\n", (s - b) / 1e6, 100 * (s - b) / 1e9
  printf "spool every 5 s and metrics every 10: %9.3f %11.4f%%  (the metrics: %+.4f %% of a core)\n", \
    (m - b) / 1e6, 100 * (m - b) / 1e9, 100 * (m - s) / 1e9 }'


# The region pair.
pair0() {
  env -u PMON_METRICS_DIR PMON_SPOOL_INTERVAL=0 PMON_OUTPUT=$BT/pair.json \
    "$PAIR" 1000000 | pair_ns
}
pair1() {
  PMON_METRICS_DIR=$BT/prom PMON_METRICS_INTERVAL=0.1 PMON_SPOOL_INTERVAL=0 \
    PMON_OUTPUT=$BT/pair.json "$PAIR" 1000000 | pair_ns
}
compare_pairs "metrics_cost (the spool off)" "$RUNS" "no metrics" \
  "PMON_METRICS_INTERVAL=0.1"
