#!/bin/sh
# record_cost.sh - what PMON_RECORD adds to a region pair (bench/README.md):
# bench/region_cost without it (the baseline) and recording to a directory
# of its own, alternately, RUNS times each (default 5), 100000 pairs a run
# (each pair two lines of the trace, some 12 MB a run); the medians of its
# per-pair medians, their difference and ratio.
#   sh bench/record_cost.sh [RUNS]      (from the top of a build)
top_builddir=${top_builddir:-.}
runs=${1:-5}
. "${srcdir:-.}/bench/costs.sh"
dir=$(mktemp -d "${TMPDIR:-/tmp}/pmon-record.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
pair0() { "$top_builddir/bench/region_cost" 100000 | pair_ns; }
pair1() {
  rm -f "$dir"/*
  PMON_RECORD=$dir "$top_builddir/bench/region_cost" 100000 | pair_ns
}
compare_pairs record_cost "$runs" "PMON_RECORD unset" "PMON_RECORD=DIR"
