#!/bin/sh
# timeline_cost.sh - what the timeline adds to a region pair (bench/README.md):
# bench/region_cost run with PMON_TIMELINE=0 (the baseline) and with the
# default, alternately, RUNS times each (default 5); the medians of its
# per-pair medians, their difference and ratio.  Then bench/timeline_cost:
# the timeline's size per node and what rank 0 holds for it.
#   sh bench/timeline_cost.sh [RUNS]      (from the top of a build)
top_builddir=${top_builddir:-.}
runs=${1:-5}
pair() { # PMON_TIMELINE value: the ns per pair that region_cost measured
  PMON_TIMELINE=$1 "$top_builddir/bench/region_cost" 1000000 |
    sed -n 's/^region begin\/end pair[^:]*: *\([0-9.]*\) ns.*/\1/p'
}
off= on=
i=0
while [ $i -lt "$runs" ]; do
  off="$off $(pair 0)"
  on="$on $(pair 512)"
  i=$((i + 1))
done
median() { printf '%s\n' $* | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
m0=$(median $off) m1=$(median $on)
echo "timeline_cost: region pair, pm_counters meter, medians of $runs runs:"
echo "  PMON_TIMELINE=0 (baseline): $m0 ns   (runs:$off)"
echo "  PMON_TIMELINE=512:          $m1 ns   (runs:$on)"
awk -v a="$m0" -v b="$m1" 'BEGIN { printf "  added %+.1f ns a pair, ratio %.3f\n", b - a, b / a }'
"$top_builddir/bench/timeline_cost"
