#!/bin/sh
# bench/finalize_scale.sh - how pmon_finalize() grows with the job
# (bench/README.md; docs/internals.md, "Scale").
#
#   sh bench/finalize_scale.sh [NAMES]      (make bench-finalize)
#
# Each case is one run of tests/many_regions (NAMES shared region names,
# default 100, every rank entering each) with the estimate meter; rows:
#   1. ranks on one node: 2, 4, 8, 16, 32 and 64, oversubscribed on this
#      machine's cores;
#   2. hosts: 2, 4 and 8 emulated hosts (tests/hosts.sh: network and UTS
#      namespaces, Open MPI over TCP), one rank each and then two, as
#      root; skipped with the reason otherwise.
# Per row: the slowest rank's pmon_finalize() (every pair of processes has
# exchanged a word before, so that MPI's connections are made: what is
# timed is finalize, not TCP's set-up), rank 0's peak resident memory
# during it (reset just before) and how much of it finalize added to what
# rank 0 held before, and the growth exponent k of time and of the added
# memory against the row before (x^k: 0 is flat, 1 linear).  The baseline, run
# first, is the smallest case with PMON_DISABLE=1: what finalize costs
# when pmon does nothing (MPI's own barrier and reductions).
: "${srcdir:=.}" "${top_builddir:=.}"
NAMES=${1:-100}
PROG=$(cd "$top_builddir" && pwd)/tests/many_regions
. "$srcdir/tests/lib.sh"
. "$srcdir/tests/hosts.sh"

# run NAME RANKS [MPIRUN OPTIONS]: many_regions on RANKS ranks into
# $TMP/NAME.out, with the variables of $ENVS too.
ENVS= ON=
run() {
  rn=$1 rr=$2
  shift 2
  # shellcheck disable=SC2086
  $ON env PMON_METERS=estimate PMON_QUIET=1 PMON_OUTPUT="$TMP/$rn.json" \
    $ENVS "$MPIRUN" "$@" -n "$rr" "$PROG" "$NAMES" \
    > "$TMP/$rn.out" 2> "$TMP/$rn.err"
}
key() { awk -v k="$2" '$1 == k { print $2 }' "$TMP/$1.out"; }

prev=
row() { # NAME X
  if [ "$(key "$1" rc)" != 0 ]; then
    printf '%8s  failed: %s\n' "$2" "$(head -c 300 "$TMP/$1.err")"
    prev=
    return
  fi
  line=$(awk -v x="$2" -v t="$(key "$1" finalize_s)" \
    -v m="$(key "$1" rank0_fin_kb)" -v m0="$(key "$1" rank0_pre_kb)" \
    -v p="$prev" '
    function k(a, b, xa, xb) {
      return (a > 0 && b > 0 && xa != xb) ? sprintf("%6.2f", log(b / a) / log(xb / xa)) : "     -"
    }
    BEGIN {
      split(p, q, " ")
      add = m - m0; if (add < 1) add = 1
      printf "%8s %12.3f %10.1f %10.2f   %s %s|%s %s %s\n", x, t, m / 1024,
        add / 1024,
        p == "" ? "     -" : k(q[2], t, q[1], x),
        p == "" ? "     -" : k(q[3], add, q[1], x), x, t, add
    }')
  echo "${line%%|*}"
  prev=${line#*|}
}
header() {
  echo
  echo "$1"
  printf '%8s %12s %10s %10s   %6s %6s\n' "$2" "finalize s" "rank 0 MB" \
    "+MB" "k(t)" "k(+MB)"
}

ENVS=PMON_DISABLE=1 run baseline 2
echo "finalize_scale: tests/many_regions with $NAMES names, estimate meter," \
  "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "baseline (PMON_DISABLE=1, 2 ranks): finalize $(key baseline finalize_s) s," \
  "rank 0 $(awk -v m="$(key baseline rank0_fin_kb)" 'BEGIN { printf "%.1f", m / 1024 }') MB"

header "Ranks on one node (oversubscribed):" ranks
ENVS=
for r in 2 4 8 16 32 64; do
  run "ranks$r" "$r"
  row "ranks$r" "$r"
done

# The hosts: skip() would end the script; say why and stop instead.
skip() { echo; echo "hosts: skipped: $*"; exit 0; }
hosts_up 8
ON=on_head
for per in 1 2; do
  header "Emulated hosts, $per rank(s) each (TCP between hosts):" hosts
  prev=
  for h in 2 4 8; do
    list= i=1
    while [ $i -le $h ]; do list="$list${list:+,}h$i:$per"; i=$((i + 1)); done
    # shellcheck disable=SC2086
    run "hosts$h-$per" $((h * per)) $HOSTS_MPIRUN "$list"
    row "hosts$h-$per" "$h"
  done
done
echo
echo "k: the growth exponent against the row before (x^k between the two)."
