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
PROG=$top_builddir/bench/sampler_cpu
PAIR=$top_builddir/bench/region_cost
JGET=$top_builddir/tests/jget
BT=$(mktemp -d "${BENCH_DIR:-/tmp}/pmon-bench.XXXXXX") || exit 1
. "$srcdir/tests/lib.sh"
trap 'cleanup; rm -rf "$BT"' EXIT

feed "$BT/m" 200 --hz 10
export PMON_METERS=pm_counters:$BT/m PMON_QUIET=1

# run NAME INTERVAL: one sampler_cpu run into $BT/NAME.out.
run() {
  PMON_SPOOL_INTERVAL=$2 PMON_OUTPUT=$BT/$1.json "$PROG" "$SECONDS_PER_CASE" \
    > "$BT/$1.out" 2> "$BT/$1.err"
}
key() { awk -v k="$2" '$1 == k { print $2 }' "$BT/$1.out"; }
# ns of CPU a second of the window of the run NAME.
rate() { awk -v c="$(key "$1" cpu_ns)" -v w="$(key "$1" wall_ns)" \
  'BEGIN { printf "%.1f", c * 1e9 / w }'; }

printf 'spool_cost: %s s per case, %s cores, load average %s, spool in %s\n' \
  "$SECONDS_PER_CASE" "$(nproc 2>/dev/null || echo '?')" \
  "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)" \
  "$(df -PT "$BT" 2>/dev/null | awk 'NR == 2 { print $2 }')"
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
pair() { # INTERVAL: the ns per pair that region_cost measured
  PMON_SPOOL_INTERVAL=$1 PMON_OUTPUT=$BT/pair.json "$PAIR" 1000000 |
    sed -n 's/^region begin\/end pair[^:]*: *\([0-9.]*\) ns.*/\1/p'
}
off= on=
i=0
while [ $i -lt "$RUNS" ]; do
  off="$off $(pair 0)"
  on="$on $(pair 0.1)"
  i=$((i + 1))
done
median() { printf '%s\n' $* | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
m0=$(median $off) m1=$(median $on)
echo "spool_cost: region pair, pm_counters meter, medians of $RUNS runs:"
echo "  PMON_SPOOL_INTERVAL=0 (baseline): $m0 ns   (runs:$off)"
echo "  PMON_SPOOL_INTERVAL=0.1:          $m1 ns   (runs:$on)"
awk -v a="$m0" -v b="$m1" 'BEGIN { printf "  added %+.1f ns a pair, ratio %.3f\n", b - a, b / a }'
