# bench/costs.sh - what the cost benchmarks share (sourced, never run):
# their setting up, the CPU rate of a bench/sampler_cpu run, and the
# region pair against a baseline.
#
# costs_setup NAME SECONDS: BT, a directory under BENCH_DIR removed at the
# end, with a pm_counters fixture fed at 10 Hz in BT/m as PMON_METERS;
# PROG and PAIR, the two benchmark programs; the line that says how the
# runs go (NAME, SECONDS per case, cores, load, the directory's file
# system).  Needs srcdir and top_builddir.
costs_setup() {
  PROG=$top_builddir/bench/sampler_cpu
  PAIR=$top_builddir/bench/region_cost
  BT=$(mktemp -d "${BENCH_DIR:-/tmp}/pmon-bench.XXXXXX") || exit 1
  . "$srcdir/tests/lib.sh"
  trap 'cleanup; rm -rf "$BT"' EXIT
  feed "$BT/m" 200 --hz 10
  export PMON_METERS=pm_counters:$BT/m PMON_QUIET=1
  printf '%s: %s s per case, %s cores, load average %s, files in %s\n' \
    "$1" "$2" "$(nproc 2>/dev/null || echo '?')" \
    "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)" \
    "$(df -PT "$BT" 2>/dev/null | awk 'NR == 2 { print $2 }')"
}

# key NAME KEY: the value of KEY in the output of the sampler_cpu run
# NAME ($BT/NAME.out); rate NAME: its ns of CPU a second of the window.
key() { awk -v k="$2" '$1 == k { print $2 }' "$BT/$1.out"; }
rate() { awk -v c="$(key "$1" cpu_ns)" -v w="$(key "$1" wall_ns)" \
  'BEGIN { printf "%.1f", c * 1e9 / w }'; }
#
# pair_ns: from bench/region_cost's output on standard input, the
# nanoseconds per pair.
pair_ns() {
  sed -n 's/^region begin\/end pair[^:]*: *\([0-9.]*\) ns.*/\1/p'
}

# compare_pairs WHAT RUNS LABEL0 LABEL1: runs the caller's pair0 (the
# baseline) and pair1, each printing the ns per pair, alternately RUNS
# times each; prints their medians, with every run, the difference and
# the ratio, under the line "WHAT: region pair, ..., medians of RUNS runs".
compare_pairs() {
  cp_off= cp_on=
  cp_i=0
  while [ $cp_i -lt "$2" ]; do
    cp_off="$cp_off $(pair0)"
    cp_on="$cp_on $(pair1)"
    cp_i=$((cp_i + 1))
  done
  cp_m0=$(printf '%s\n' $cp_off | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
  cp_m1=$(printf '%s\n' $cp_on | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
  echo "$1: region pair, pm_counters meter, medians of $2 runs:"
  printf '  %-30s %s ns   (runs:%s)\n' "$3 (baseline):" "$cp_m0" "$cp_off"
  printf '  %-30s %s ns   (runs:%s)\n' "$4:" "$cp_m1" "$cp_on"
  awk -v a="$cp_m0" -v b="$cp_m1" 'BEGIN { printf "  added %+.1f ns a pair, ratio %.3f\n", b - a, b / a }'
}
