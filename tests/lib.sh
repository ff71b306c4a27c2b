# tests/lib.sh - helpers for the shell tests; sourced, never run.
# Automake runs the tests from the build directory with $srcdir set.
: "${srcdir:=.}"
top_builddir=${top_builddir:-.}
JGET=$top_builddir/tests/jget
PMFEED=$top_builddir/tests/pmfeed
MPIRUN=$top_builddir/tests/mpirun.sh
WAVE=$top_builddir/tests/wave
PMON_PRELOAD_LIB=$(cd "$top_builddir" && pwd)/mpiio/.libs/libpmon-mpiio.so
export PMON_PRELOAD_LIB
unset PMON_METERS PMON_OUTPUT PMON_NODE PMON_DISABLE PMON_QUIET PMON_DEBUG
failures=0

TMP=$(mktemp -d "${TMPDIR:-/tmp}/pmon-test.XXXXXX") || exit 99
FEEDERS=
cleanup() {
  for p in $FEEDERS; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT

skip() { echo "SKIP: $*"; exit 77; }
# need_driver NAME: skip unless configure built the optional driver NAME.
need_driver() {
  case " $PMON_TEST_DRIVERS " in
    *" $1 "*) ;;
    *) skip "the $1 driver is not built (see the summary of ./configure)" ;;
  esac
}
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }

# check WHAT VALUE EXPECTED PERCENT: VALUE within PERCENT % of EXPECTED.
near() {
  if awk -v v="$2" -v e="$3" -v p="$4" 'BEGIN {
       d = v - e; if (d < 0) d = -d; if (e < 0) e = -e;
       exit !(v != "null" && d <= e * p / 100) }'; then
    pass "$1: $2 (expected $3 +- $4 %)"
  else
    fail "$1: $2, expected $3 +- $4 %"
  fi
}

# equal WHAT VALUE EXPECTED
equal() {
  if [ "$2" = "$3" ]; then pass "$1: $2"; else fail "$1: '$2', expected '$3'"; fi
}

# feed DIR WATTS [ARGS]: start a pm_counters feeder, wait for its files.
feed() {
  dir=$1; shift
  "$PMFEED" "$dir" "$@" &
  FEEDERS="$FEEDERS $!"
  i=0
  while [ ! -s "$dir/freshness" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
}

finish() {
  if [ "$failures" -gt 0 ]; then echo "$failures check(s) failed"; exit 1; fi
  exit 0
}
