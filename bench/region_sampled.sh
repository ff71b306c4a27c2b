#!/bin/sh
# bench/region_sampled.sh - what a region begin/end pair costs when the
# only meter is a sampled one, read by its poller while the pairs run
# (bench/README.md).
#
#   sh bench/region_sampled.sh [PAIRS]   (default 1000000 per round; make bench)
#
# Run from the build directory with srcdir set (make bench does both).
# Two cases, each one run of bench/region_sampled, serial as
# bench/region_cost: the keithley emulator at 60 readings a second (the
# busiest poller) and snmpd playing an EATON ePDU read at 1 Hz.  After
# each, the report says which kind of meter it was and how many readings
# it took, so that the pairs ran against a sampled meter being read.
: "${srcdir:=.}" "${top_builddir:=.}"
. "$srcdir/bench/peers.sh"
PAIRS=${1:-1000000}
PROG=$top_builddir/bench/region_sampled
JGET=$top_builddir/tests/jget
BT=$(mktemp -d "${TMPDIR:-/tmp}/pmon-bench.XXXXXX") || exit 1
trap 'rm -rf "$BT"' EXIT
export PAIRS PROG JGET BT

# case NAME LABEL: region_sampled with PMON_METERS=$METER.
case_() {
  if ! PMON_METERS=$METER PMON_OUTPUT=$BT/$1.json \
       "$PROG" "$PAIRS" "$2" 2> "$BT/$1.err"; then
    echo "failed: $(head -c 300 "$BT/$1.err")"
    return
  fi
  if ! "$JGET" "$BT/$1.json" meters/0/kind > /dev/null 2>&1; then
    echo "  the meter did not open: $("$JGET" "$BT/$1.json" \
      nodes/0/events/0/detail 2>/dev/null)"
    return
  fi
  awk -v k="$("$JGET" "$BT/$1.json" meters/0/kind)" \
    -v i="$("$JGET" "$BT/$1.json" meters/0/interval_s)" \
    -v n="$("$JGET" "$BT/$1.json" nodes/0/samples)" \
    -v w="$("$JGET" "$BT/$1.json" nodes/0/wall_s)" \
    -v f="$("$JGET" "$BT/$1.json" nodes/0/coverage/0/failed_reads)" \
    'BEGIN { printf "  the meter (report): %s, every %.4g s; %d readings " \
             "in %.3f s, %d failed\n", k, i, n, w, f }'
}

echo "region_sampled: $PAIRS pairs per round, $(nproc 2>/dev/null || echo '?')" \
  "cores, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
( keithley_peer 60; case_ kt60 "keithley at 60 Hz" )
( eaton_peer 1; case_ eaton1 "eaton at 1 Hz" )
exit 0
