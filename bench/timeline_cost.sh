#!/bin/sh
# timeline_cost.sh - what the timeline adds to a region pair (bench/README.md):
# bench/region_cost run with PMON_TIMELINE=0 (the baseline) and with the
# default, alternately, RUNS times each (default 5); the medians of its
# per-pair medians, their difference and ratio.  Then bench/timeline_cost:
# the timeline's size per node and what rank 0 holds for it.
#   sh bench/timeline_cost.sh [RUNS]      (from the top of a build)
top_builddir=${top_builddir:-.}
runs=${1:-5}
. "${srcdir:-.}/bench/costs.sh"
pair0() { PMON_TIMELINE=0 "$top_builddir/bench/region_cost" 1000000 | pair_ns; }
pair1() { PMON_TIMELINE=512 "$top_builddir/bench/region_cost" 1000000 | pair_ns; }
compare_pairs timeline_cost "$runs" "PMON_TIMELINE=0" "PMON_TIMELINE=512"
"$top_builddir/bench/timeline_cost"
