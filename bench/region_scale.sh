#!/bin/sh
# bench/region_scale.sh - how finalize scales (bench/README.md): its time,
# the peak memory of the ranks and the report's size against the number
# of distinct region names and of ranks per node, each row with the growth
# exponent measured from the row before (time ~ x^k: k = 1 is linear).
#
#   sh bench/region_scale.sh          (make bench-scale; make bench too)
#
# Run from the build directory with srcdir set (make does both).  Each
# case is one run of tests/many_regions under tests/mpirun.sh with the
# estimate meter, oversubscribed on this machine's cores.  The baseline,
# measured first in the same run, is the same program with PMON_DISABLE=1:
# its peak memory is subtracted from the others ("pmon MB").
: "${srcdir:=.}" "${top_builddir:=.}"
PROG=$top_builddir/tests/many_regions
MPIRUN=$top_builddir/tests/mpirun.sh
BT=$(mktemp -d "${TMPDIR:-/tmp}/pmon-bench.XXXXXX") || exit 1
trap 'rm -rf "$BT"' EXIT
PMON_MPIRUN_TMP=$BT
export PMON_MPIRUN_TMP

# run NAME RANKS ARGS...: many_regions with ARGS on RANKS ranks into
# $BT/NAME.out and the report $BT/NAME.json, with the variables of $ENVS
# set too; its exit status.
ENVS=
run() {
  rn=$1 rr=$2
  shift 2
  # shellcheck disable=SC2086
  env PMON_METERS=estimate PMON_QUIET=1 PMON_OUTPUT="$BT/$rn.json" $ENVS \
    "$MPIRUN" -n "$rr" "$PROG" "$@" > "$BT/$rn.out" 2> "$BT/$rn.err"
}

key() { awk -v k="$2" '$1 == k { print $2 }' "$BT/$1.out"; }

# row NAME X: one line of a table (X is the varied quantity), with the
# growth exponents of time, memory and size against the previous row's.
prev=
row() {
  if [ "$(key "$1" rc)" != 0 ]; then
    printf '%10s  failed: %s\n' "$2" "$(head -c 300 "$BT/$1.err")"
    prev=
    return
  fi
  size=$(wc -c < "$BT/$1.json")
  line=$(awk -v x="$2" -v t="$(key "$1" finalize_s)" \
    -v m="$(key "$1" maxrss_kb)" -v b="$base_kb" -v s="$size" -v p="$prev" '
    function k(a, b, xa, xb) {
      return (a > 0 && b > 0 && xa != xb) ? sprintf("%5.2f", log(b / a) / log(xb / xa)) : "    -"
    }
    BEGIN {
      mb = (m - b) / 1024; if (mb < 0.01) mb = 0.01
      split(p, q, " ")
      printf "%10s %11.3f %9.1f %10.2f   %s %s %s|%s %s %s %s\n", x, t, mb, s / 1e6,
        p == "" ? "    -" : k(q[2], t, q[1], x),
        p == "" ? "    -" : k(q[3], mb, q[1], x),
        p == "" ? "    -" : k(q[4], s, q[1], x),
        x, t, mb, s
    }')
  echo "${line%%|*}"
  prev=${line#*|}
}

header() {
  echo
  echo "$1"
  printf '%10s %11s %9s %10s   %5s %5s %5s\n' "$2" "finalize s" "pmon MB" \
    "report MB" "k(t)" "k(mem)" "k(size)"
}

ENVS=PMON_DISABLE=1 run baseline 2 1000
base_kb=$(key baseline maxrss_kb)
echo "region_scale: tests/many_regions, estimate meter, $(nproc) cores;"
echo "baseline (PMON_DISABLE=1, 2 ranks, 1,000 names): peak ${base_kb} kB a rank"

header "Distinct names, 2 ranks sharing them (PMON_MAX_REGIONS=200000):" names
prev=
for n in 1000 10000 100000; do
  ENVS=PMON_MAX_REGIONS=200000 run "names$n" 2 "$n"
  row "names$n" "$n"
done

header "Distinct names, 4 ranks, the default limit (10,000 kept, the rest in \"(other)\"):" names
prev=
ENVS=
for n in 10000 100000; do
  run "fold$n" 4 "$n"
  row "fold$n" "$n"
done

header "Distinct names, 4 ranks each with names of its own (PMON_MAX_REGIONS=200000):" names
prev=
for n in 1000 10000 50000; do
  ENVS=PMON_MAX_REGIONS=200000 run "unique$n" 4 "$n" --unique
  row "unique$n" "$n"
done

header "Ranks on one node, 1,000 names shared (oversubscribed):" ranks
prev=
ENVS=
for r in 2 8 32 128; do
  run "ranks$r" "$r" 1000
  row "ranks$r" "$r"
done
echo
echo "k: the growth exponent against the row before: the quantity grows as"
echo "x^k between the two (1 is linear; below 1, fixed costs dominate)."
