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
unset PMON_METERS PMON_OUTPUT PMON_NODE PMON_DISABLE PMON_QUIET PMON_DEBUG \
  PMON_TIMELINE PMON_TRACE PMON_RECORD PMON_SHARE
failures=0

TMP=$(mktemp -d "${TMPDIR:-/tmp}/pmon-test.XXXXXX") || exit 99
PMON_MPIRUN_TMP=$TMP # tests/mpirun.sh: a session directory per launch
export PMON_MPIRUN_TMP
FEEDERS=
cleanup() {
  for p in $FEEDERS; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  # PMON_TEST_KEEP=1 keeps the test's files (traces, reports, logs) for
  # a post mortem, and says where.
  if [ -n "${PMON_TEST_KEEP:-}" ]; then echo "kept: $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

# own_pids TEXT [PROG]: the processes whose environment holds the entry
# TEXT (one naming this test's $TMP, as PMON_OUTPUT=$d/r.json: a job's
# launcher and ranks), and with PROG only those whose program's name ends
# with PROG (the ranks, not their launcher).  A pattern on command lines
# (pkill -f) would also reach the same program of another copy of the
# suite running at the same time: another build tree's, or CI's.
own_pids() {
  for op in $(grep -lszxF -- "$1" /proc/[0-9]*/environ); do
    op=${op#/proc/}
    op=${op%/environ}
    if [ -n "$2" ]; then
      a0=$(tr '\0' '\n' < "/proc/$op/cmdline" 2>/dev/null | head -n 1)
      case "${a0##*/}" in *"$2") ;; *) continue ;; esac
    fi
    echo "$op"
  done
}
# kill_own SIGNAL TEXT [PROG]: SIGNAL to each of own_pids TEXT [PROG].
kill_own() {
  for ko in $(own_pids "$2" "$3"); do kill -"$1" "$ko" 2>/dev/null; done
}

# readme_block NAME: the fenced block of README.md that follows the line
# "<!-- readme.test: NAME -->" (blank lines may come between), as it is
# written there; nothing when there is none.  tests/readme.test and
# tests/slurm.test run the README's commands so.
readme_block() {
  awk -v m="<!-- readme.test: $1 -->" '
    $0 == m { want = 1; next }
    want == 1 && /^```/ { want = 2; next }
    want == 1 && NF { exit }
    want == 2 && /^```/ { exit }
    want == 2 { print }' "$srcdir/README.md"
}

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

# within WHAT VALUE LO HI: LO <= VALUE <= HI (a test may define its own).
within() {
  if awk -v v="$2" -v a="$3" -v b="$4" \
       'BEGIN { exit !(v != "" && v != "null" && v >= a && v <= b) }'; then
    pass "$1: $2 (within [$3, $4])"
  else
    fail "$1: '$2', not within [$3, $4]"
  fi
}

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

# io_calls_check WHAT DIR LOG REPORT NODE: node NODE's I/O as pmon made
# it, against the calls tests/io_phases made (IO_PHASES_LOG=LOG: each
# rank's LOG.RANK) in a job recorded in DIR (PMON_RECORD): for each of
# its ranks, the record its trace ends with (its I/O phases, as its
# leader took them) counts the rank's calls, each call (from just before
# it to just after it) meets one of its phases (pmon stamped it inside
# and put it in a phase: nothing lost), and each phase lies within the
# calls merged over the rank's gap (gap_s: no phase where the rank made
# no call); the node's phase_time_s is the union of those phases.  No
# time is guessed: the program's instants and pmon's are of the one
# clock, but for pmon's conversion of the TSC it stamps with (lib/io.c,
# anchor()), off by IO_TSC_NS at most.
IO_TSC_NS=50000
io_calls_check() {
  : > "$TMP/io-union"
  ic_n=0 ic_bad=0
  for ic_f in $(node_traces "$2" "$5"); do
    ic_r=${ic_f##*-} ic_n=$((ic_n + 1))
    ic_r=${ic_r%.jsonl}
    if ! grep '^{"record": ' "$ic_f" > "$TMP/io-rec"; then
      fail "$1: rank $ic_r: no record line in $ic_f"
      continue
    fi
    ic_z=$(sed -n 's/^{"init": \([0-9]*\),.*/\1/p' "$ic_f" | head -n 1)
    "$JGET" "$TMP/io-rec" record/io/phases | tr -d '[] ' | tr ',' '\n' |
      awk -v z="$ic_z" 'NR % 3 == 1 { a = $1 }
        NR % 3 == 2 { printf "%.0f %.0f\n", z + a, z + $1 }' |
      sort -n > "$TMP/io-ph"
    cat "$TMP/io-ph" >> "$TMP/io-union"
    ic_l=$3.$ic_r
    equal "$1: rank $ic_r: writes" "$("$JGET" "$TMP/io-rec" record/io/writes)" \
      "$(grep -c '^write ' "$ic_l")"
    equal "$1: rank $ic_r: reads" "$("$JGET" "$TMP/io-rec" record/io/reads)" \
      "$(grep -c '^read ' "$ic_l")"
    equal "$1: rank $ic_r: meta_ops" "$("$JGET" "$TMP/io-rec" record/io/meta_ops)" \
      "$(grep -c '^open \|^close \|^delete ' "$ic_l")"
    if ic_v=$(awk -v g="$("$JGET" "$TMP/io-rec" record/io/gap_s)" -v eps="$IO_TSC_NS" '
        BEGIN { np = ns = k = j = 0 }
        FNR == NR { p0[np] = $1; p1[np++] = $2; next }
        { b = $2 + 0; a = $3 + 0; calls++
          while (k < np && p1[k] + eps < b) k++
          if (k >= np || p0[k] - eps > a) {
            if (lost++ < 3) printf "  %s %.0f..%.0f: in no phase\n", $1, b, a
          } else {
            d = p0[k] - a; if (d > near) near = d; d = b - p1[k]; if (d > near) near = d
          }
          if (ns > 0 && b - se <= g * 1e9) { if (a > se) se = a }
          else { s0[ns] = b; ns++; se = a }
          s1[ns - 1] = se }
        END {
          for (i = 0; i < np; i++) {
            while (j < ns && s1[j] < p0[i] - eps) j++
            over = j < ns ? s0[j] - p0[i] : 1e18
            if (j < ns && p1[i] - s1[j] > over) over = p1[i] - s1[j]
            if (over > eps) {
              if (outside++ < 3) printf "  phase %.0f..%.0f: outside the calls\n", p0[i], p1[i]
            } else if (over > worst) worst = over
          }
          printf "%d calls in %d phases (%d segments of calls): %d in none, " \
                 "%d phases outside them; the closest misses %.0f ns, %.0f ns\n", \
                 calls, np, ns, lost, outside, near, worst
          exit (calls == 0 || lost > 0 || outside > 0) }' "$TMP/io-ph" "$ic_l"); then
      pass "$1: rank $ic_r: $(echo "$ic_v" | tail -n 1)"
    else
      fail "$1: rank $ic_r: $ic_v"
    fi
  done
  [ "$ic_n" -gt 0 ] || { fail "$1: no trace of $5 in $2"; return; }
  ic_u=$(sort -n "$TMP/io-union" | awk '
    { if (n++ && $1 <= e) { if ($2 > e) e = $2 } else { t += e - s; s = $1; e = $2 } }
    END { printf "%.9f\n", (t + e - s) / 1e9 }')
  ic_p=$("$JGET" "$4" "nodes/name=$5/io/phase_time_s")
  if awk -v a="$ic_p" -v b="$ic_u" 'BEGIN { d = a - b; exit !(d <= 1e-9 && d >= -1e-9) }'; then
    pass "$1: phase_time_s $ic_p s, the union of its $ic_n ranks' phases"
  else
    fail "$1: phase_time_s $ic_p s, the union of its $ic_n ranks' phases $ic_u s"
  fi
}

# fed_near WHAT VALUE WATTS REPORT DIR [NODE]: VALUE, a node's mean power
# over REPORT's span (nodes[NODE].monotonic_ns), against a feeder of DIR
# (feed) at a constant WATTS.  pmon reads the counters a while after the
# feeder publishes them: on a busy machine that while grows, at either
# end of the span.  The feeder's log says how old the values read at the
# two ends could be, L0 and L1, so the truth lies in [WATTS (1 - L1 / T),
# WATTS (1 + L0 / T)], T the span.  A new value is stamped half-way
# between the reading that first saw it and the one before, and the run's
# end is cut between two readings, so that a stamp may be early as well
# as late, by as much as the node's bound says (energy_err_max_j, the
# ends' stamps at the power around them): VALUE must be in that range
# widened by the bound over T, give or take 1 %.
fed_near() {
  fn_a=$($JGET "$4" "nodes/${6:-0}/monotonic_ns/0")
  fn_b=$($JGET "$4" "nodes/${6:-0}/monotonic_ns/1")
  fn_e=$($JGET "$4" "nodes/${6:-0}/energy_err_max_j")
  fn_r=$(awk -v a="$fn_a" -v b="$fn_b" -v w="$3" -v e="$fn_e" '
    $1 <= a { pa = $1 } $1 <= b { pb = $1 }
    END {
      T = b - a
      if (T <= 0 || pa == "" || pb == "") { print "none"; exit }
      if (e == "" || e == "null") e = 0
      u = e / (T / 1e9)
      printf "%.3f %.3f\n", (w * (1 - (b - pb) / T) - u) * 0.99, (w * (1 + (a - pa) / T) + u) * 1.01
    }' "$5.log")
  if [ "$fn_r" != none ] && awk -v v="$2" -v r="$fn_r" 'BEGIN {
       split(r, x, " "); exit !(v != "null" && v >= x[1] && v <= x[2]) }'; then
    pass "$1: $2 ($3 W, within [$fn_r] from the feeder's log and the bound)"
  else
    fail "$1: $2, not within [$fn_r] ($3 W, the feeder's log and the bound)"
  fi
}

# meter_events REPORT [NODE]: how many events node NODE (0) of REPORT has
# other than "shared": whether a node was shared tells what else ran on the
# machine (the suite runs tests side by side; lib/share.c), not what a
# test's meter did.  Nothing when REPORT has no such node.
meter_events() {
  me_n=$($JGET "$1" "nodes/${2:-0}/events/#") || return
  me_k=0 me_i=0
  while [ "$me_i" -lt "$me_n" ]; do
    [ "$($JGET "$1" "nodes/${2:-0}/events/$me_i/type")" = shared ] ||
      me_k=$((me_k + 1))
    me_i=$((me_i + 1))
  done
  echo "$me_k"
}

# equal WHAT VALUE EXPECTED
equal() {
  if [ "$2" = "$3" ]; then pass "$1: $2"; else fail "$1: '$2', expected '$3'"; fi
}

# feed DIR WATTS [ARGS]: start a pm_counters feeder, wait for its files.
# It logs its publications to DIR.log (pmfeed --log), for fed_near.
feed() {
  dir=$1; shift
  "$PMFEED" "$dir" "$@" --log "$dir.log" &
  FEEDERS="$FEEDERS $!"
  i=0
  while [ ! -s "$dir/freshness" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
}

# Meters against known waveforms (tests/wave): the truth is a waveform's
# exact energy over the same CLOCK_MONOTONIC instants as the report's.

# wave_truth SPEC ORIGIN_NS T0_NS T1_NS: the exact joules of the waveform
# SPEC, which started at ORIGIN_NS, from T0_NS to T1_NS; SPEC+SPEC...
# the sum of those waveforms (the channels a node's total adds).
wave_truth() {
  case $1 in
    *+*) awk -v a="$("$WAVE" energy "${1%%+*}" "$2" "$3" "$4")" \
           -v b="$(wave_truth "${1#*+}" "$2" "$3" "$4")" \
           'BEGIN { printf "%.6f\n", a + b }' ;;
    *) "$WAVE" energy "$1" "$2" "$3" "$4" ;;
  esac
}

# The energy a report gives covers only the time its meter measured: on a
# busy machine a reading may come too late and its interval is dropped.
# The checks below then compare with the truth times the share measured
# (COVERED, 0 to 1), which must be 0.97 at least; the power changes too
# little over a dropped interval or two for that to hide an error of 1 %.
# cover_truth WHAT TRUTH COVERED: prints the truth to compare with.
cover_truth() {
  if awk -v c="$3" 'BEGIN { exit !(c != "" && c != "null" && c < 0.97) }'; then
    fail "$1: measured over only $3 of its time"
  fi
  awk -v t="$2" -v c="$3" \
    'BEGIN { if (c == "" || c == "null" || c > 1) c = 1; printf "%.6f\n", t * c }'
}

# A gap (an event "gap" of node 0: its meter had no reading for longer
# than it allows, and that time is not counted) is known to the
# nanosecond: it ends at the event's t_s after init (monotonic_ns[0]) and
# lasted the seconds its detail says ("no reading for S s").
# wave_gaps REPORT: each gap of REPORT's node 0, "T0_NS T1_NS" a line.
wave_gaps() {
  wg_n=$($JGET "$1" nodes/0/events/#) wg_i=0
  wg_z=$($JGET "$1" nodes/0/monotonic_ns/0)
  while [ "$wg_i" -lt "${wg_n:-0}" ]; do
    if [ "$($JGET "$1" "nodes/0/events/$wg_i/type")" = gap ]; then
      awk -v z="$wg_z" -v t="$($JGET "$1" "nodes/0/events/$wg_i/t_s")" \
        -v d="$($JGET "$1" "nodes/0/events/$wg_i/detail" |
                sed -n 's/^no reading for \([0-9.]*\) s.*/\1/p')" \
        'BEGIN { if (d != "") printf "%.0f %.0f\n", z + (t - d) * 1e9, z + t * 1e9 }'
    fi
    wg_i=$((wg_i + 1))
  done
}

# wave_gapless SPEC ORIGIN_NS T0_NS T1_NS GAPS: the truth from T0 to T1
# but within the gaps (the lines of wave_gaps in file GAPS), then the
# seconds of those gaps that fell in that span.
wave_gapless() {
  wl_e=$(wave_truth "$1" "$2" "$3" "$4") wl_s=0
  while read -r wl_a wl_b; do
    wl_lo=$(awk -v a="$wl_a" -v t="$3" 'BEGIN { printf "%.0f", (a > t ? a : t) }')
    wl_hi=$(awk -v b="$wl_b" -v t="$4" 'BEGIN { printf "%.0f", (b < t ? b : t) }')
    if awk -v l="$wl_lo" -v h="$wl_hi" 'BEGIN { exit !(l < h) }'; then
      wl_e=$(awk -v e="$wl_e" -v g="$(wave_truth "$1" "$2" "$wl_lo" "$wl_hi")" \
        'BEGIN { printf "%.6f", e - g }')
      wl_s=$(awk -v s="$wl_s" -v l="$wl_lo" -v h="$wl_hi" \
        'BEGIN { printf "%.9f", s + (h - l) / 1e9 }')
    fi
  done < "$5"
  echo "$wl_e $wl_s"
}

# wave_unmeasured SPEC SECONDS SHARE TRUTH: the percent of TRUTH by which
# the truth over the measured part of SECONDS (its SHARE measured) may
# differ from TRUTH x SHARE, which takes the part not measured at the
# mean power: at most that part's time x the waveform's swing (HIGH -
# LOW; 0 for const; a sum's, its terms' added).  A busy machine leaves
# out more (CI: 3 % of 10 s of a 100-300 W square wave, 1.05 % off a
# truth x share).
wave_unmeasured() {
  echo "$1" | awk -v s="$2" -v c="$3" -v t="$4" '{
    n = split($0, sum, "+"); w = 0
    for (i = 1; i <= n; i++) {
      split(sum[i], f, ":")
      d = (f[1] == "const") ? 0 : f[3] - f[2]; w += d < 0 ? -d : d
    }
    if (c == "" || c == "null" || c > 1) c = 1
    print (t > 0) ? 100 * (1 - c) * s * w / t : 0 }'
}

# in_bar WHAT VALUE LO HI BOUND PCT [UNIT]: VALUE within BOUND joules (or
# UNIT: W for a power) widened by PCT % of HI (what the part not measured
# may hide, wave_unmeasured) and by 1e-6 (the truths are printed to the
# microjoule) of the truth,
# which lies in [LO, HI] (one value where LO = HI); a null or missing
# BOUND fails: a figure that says nothing of how sure it is proves
# nothing.  BOUND is the figure's energy_err_max_j, the bound that always
# holds: one job's figure is held to that, not to its bar (energy_err_j,
# a 95 % interval, which a figure may miss by design, one in twenty at
# most; tests/errbars.test and tests/sim.test count those).
in_bar() {
  if awk -v v="$2" -v lo="$3" -v hi="$4" -v b="$5" -v p="$6" 'BEGIN {
       if (v == "" || v == "null" || b == "" || b == "null") exit 1
       w = b + (hi < 0 ? -hi : hi) * p / 100 + 1e-6
       exit !(v >= lo - w && v <= hi + w) }'; then
    pass "$1: $2 (truth $(in_bar_truth "$3" "$4"), within $5 ${7:-J}${6:+ + $6 %})"
  else
    fail "$1: $2, truth $(in_bar_truth "$3" "$4"), outside its bound $5 ${7:-J}${6:+ + $6 %}"
    return 1
  fi
}

# TRACE_NUM: an awk function, num(KEY), the number of KEY in a trace's
# line ($0), the first of a list: "" when the line has no KEY.
TRACE_NUM='
    function num(key,   i, r) {
      i = index($0, "\"" key "\": ")
      if (i == 0) return ""
      r = substr($0, i + length(key) + 4)
      sub(/[],}].*/, "", r)
      sub(/^\[/, "", r)
      return r + 0
    }'

# node_traces DIR NODE: the trace files of node NODE that a job recorded
# in DIR, one a line: those whose header names it (a job's name may hold
# a host's, as "-h1-" does, which a glob on the file's name would take).
node_traces() {
  for nt_f in "$1"/pmtrace-*.jsonl; do
    head -n 1 "$nt_f" | grep -q "\"node\": \"$2\"" && echo "$nt_f"
  done
}

# leader_trace DIR: the trace of rank 0, the node's leader, that a job
# recorded with PMON_RECORD=DIR (its readings, samples and regions).
leader_trace() { ls "$1"/pmtrace-*-0.jsonl 2>/dev/null; }

# node_events REPORT: node 0's events, one a line: T_S TYPE DETAIL; not
# "shared", which tells what else ran on the machine (meter_events).
node_events() {
  ne_i=0 ne_n=$($JGET "$1" "nodes/0/events/#")
  while [ "$ne_i" -lt "${ne_n:-0}" ]; do
    [ "$($JGET "$1" "nodes/0/events/$ne_i/type")" = shared ] ||
      printf '%s %s %s\n' "$($JGET "$1" "nodes/0/events/$ne_i/t_s")" \
        "$($JGET "$1" "nodes/0/events/$ne_i/type")" \
        "$($JGET "$1" "nodes/0/events/$ne_i/detail")"
    ne_i=$((ne_i + 1))
  done
}

# at_ns REPORT T_S: the CLOCK_MONOTONIC ns of T_S seconds after node 0's
# start (its monotonic_ns[0], from which its events' t_s count).
at_ns() {
  awk -v a="$($JGET "$1" nodes/0/monotonic_ns/0)" -v t="$2" \
    'BEGIN { printf "%.0f\n", a + t * 1e9 }'
}

# event_at REPORT TYPE NS: the detail of node 0's event of TYPE at
# instant NS, to 1 us (t_s is printed to the 10 ns); status 1 when it
# has none there.
event_at() {
  node_events "$1" | awk -v t="$2" -v x="$3" \
    -v a="$($JGET "$1" nodes/0/monotonic_ns/0)" '
    $2 == t { d = a + $1 * 1e9 - x; if (d < 0) d = -d
              if (d <= 1000) { $1 = $2 = ""; sub(/^  /, ""); print; f = 1; exit } }
    END { exit !f }'
}

# same_ns WHAT A_NS B_NS: two instants of the one clock, the same to 1 us.
same_ns() {
  if awk -v a="$2" -v b="$3" 'BEGIN { d = a - b; exit !(d <= 1000 && d >= -1000) }'; then
    pass "$1"
  else
    fail "$1: $2 ns, expected $3 ns"
  fi
}

# fault_reads TRACE KEY [AFTER_NS]: around the first read of meter 0 in
# a leader's TRACE that ended at or after AFTER_NS (0) and holds KEY
# ("error": it failed; "events": the driver saw a reset in it):
#   "G_T0 G_T1 G_AT F_T0 F_T1 F_BAD R_T0 R_T1 R_AT",
# G the last good read before it and G_AT its stamp (its sample's "at"),
# F the first read after G (F_BAD 1 when it failed: its stamp is then its
# midpoint, lib/meter.c): that read itself, or, for a failed one, the
# first of the run of failed reads it ends (a read held up on a busy
# machine, or one whose answer was lost with the line, may fail before
# it), R the first good read after it and R_AT its stamp; 0 for what the
# trace lacks.  Exact instants of the one clock, which the fixtures'
# logs hold too: a fault's checks need no tolerance of time.
fault_reads() {
  awk -v key="\"$2\": " -v after="${3:-0}" "$TRACE_NUM"'
    /^[{]"read": 0,/ {
      t0 = num("t0"); t1 = num("t1"); bad = index($0, "\"error\": ") > 0
      if (f0 == "") {
        if (t1 >= after && index($0, key)) {
          fbad = bad; f0 = t0; f1 = t1
          if (bad && s0 != "") { f0 = s0; f1 = s1 }
          if (!bad) { r0 = t0; r1 = t1; wr = 1 }
        } else if (!bad) {
          g0 = t0; g1 = t1; wg = 1; s0 = ""
        } else if (s0 == "") {
          s0 = t0; s1 = t1
        }
      } else if (!bad && r0 == "") {
        r0 = t0; r1 = t1; wr = 1
      }
      next
    }
    /^[{]"sample": 0,/ {
      if (wg) { ga = num("at"); wg = 0 }
      if (wr) { ra = num("at"); wr = 0 }
    }
    END { printf "%.0f %.0f %.0f %.0f %.0f %d %.0f %.0f %.0f\n", \
                 g0, g1, ga, f0, f1, fbad, r0, r1, ra }' "$1"
}

# wave_explain T0_NS T1_NS: after a figure over [T0, T1] missed its bound,
# the four intervals between power samples there (of meter 0 in the
# trace $WAVE_TRACE, when a test names one and meter 0 is a power meter)
# whose trapezoid may be off the most: jump x (dt / 2 + the longer
# stamp's half-read), the bound calc/fold.c gives each, so that a miss
# shows whether a bound was too small for what the trace holds or the
# stamps were off (stamp_check).
wave_explain() {
  [ -n "${WAVE_TRACE:-}" ] && [ -s "$WAVE_TRACE" ] || return 0
  grep -q '^{"read": 0,.*"watts": \[' "$WAVE_TRACE" || return 0
  echo "  the widest sample intervals in $1..$2 (of $WAVE_TRACE):"
  awk -v a="$1" -v b="$2" "$TRACE_NUM"'
    /^[{]"read": 0,/ && index($0, "\"watts\": [") { w = num("watts") }
    /^[{]"sample": 0,/ {
      at = num("at"); h = num("err_s")
      if (n++ > 0 && at > a && pat < b) {
        dt = (at - pat) / 1e9; j = w - pw; if (j < 0) j = -j
        hh = h > ph ? h : ph
        printf "%.4g J bound: %.0f..%.0f, dt %.4f s, %.6g W to %.6g W, half-reads %.4f %.4f s\n", \
               j * (dt / 2 + hh), pat, at, dt, pw, w, ph, h
      }
      pat = at; pw = w; ph = h
    }' "$WAVE_TRACE" | sort -g -r | head -n 4 | sed 's/^/  /'
}
in_bar_truth() {
  if [ "$1" = "$2" ]; then echo "$1"; else echo "[$1, $2]"; fi
}

# fed_in_bar WHAT REPORT NODE WATTS: the energy of node NODE (nodes/NODE:
# an index, or name=NAME) against a feeder's constant WATTS over the
# span the node measured (its monotonic_ns, the library's own instants),
# within the node's own bound (its ends' stamps, the counter's joule).
fed_in_bar() {
  fb_s=$(awk -v a="$($JGET "$2" "nodes/$3/monotonic_ns/0")" \
    -v b="$($JGET "$2" "nodes/$3/monotonic_ns/1")" 'BEGIN { print (b - a) / 1e9 }')
  fb_t=$(awk -v w="$4" -v t="$fb_s" 'BEGIN { printf "%.6f", w * t }')
  in_bar "$1 ($4 W x $fb_s s)" "$($JGET "$2" "nodes/$3/energy_j")" "$fb_t" \
    "$fb_t" "$($JGET "$2" "nodes/$3/energy_err_max_j")" 0
}

# power_in_bound WHAT REPORT OBJ TIME_KEY WATTS: the power_w of object
# OBJ of REPORT (a node, nodes/0; an I/O figure, io) against a feeder's
# constant WATTS, within its energy's bound over its time (OBJ's
# TIME_KEY: a node's wall_s, an I/O figure's phase_time_s): the power is
# that energy over that time, so its bound is theirs.
power_in_bound() {
  pb_t=$($JGET "$2" "$3/$4")
  in_bar "$1 ($5 W)" "$($JGET "$2" "$3/power_w")" "$5" "$5" \
    "$(awk -v b="$($JGET "$2" "$3/energy_err_max_j")" -v t="$pb_t" \
       'BEGIN { if (b == "" || b == "null" || !(t > 0)) print "null"; else print b / t }')" 0 W
}

# region_nodes_in_bar WHAT REPORT REGION MIN_S: each node's part of
# REGION (regions[].nodes[]) against the power of its feeder (a
# function "power NODE_NAME" of the test gives its constant watts) over
# the time its measuring rank spent in it, within the part's own bound.
# That time lies between MIN_S (what the program slept in the region:
# no less) and the node's time_s (the longest of its ranks'); with one
# rank of the node in the region the two are one (MIN_S empty).
region_nodes_in_bar() {
  rn_n=$($JGET "$2" "regions/name=$3/nodes/#")
  rn_i=0
  while [ "$rn_i" -lt "${rn_n:-0}" ]; do
    rn_p=regions/name=$3/nodes/$rn_i
    rn_name=$($JGET "$2" "$rn_p/name")
    rn_t=$($JGET "$2" "$rn_p/time_s")
    rn_w=$(power "$rn_name")
    rn_hi=$(awk -v w="$rn_w" -v t="$rn_t" 'BEGIN { printf "%.6f", w * t }')
    rn_lo=$rn_hi
    [ -n "${4:-}" ] && rn_lo=$(awk -v w="$rn_w" -v t="$rn_t" -v m="$4" \
      'BEGIN { printf "%.6f", w * (m < t ? m : t) }')
    in_bar "$1: $rn_name's part ($rn_w W x ${4:+$4 to }$rn_t s)" \
      "$($JGET "$2" "$rn_p/energy_j")" "$rn_lo" "$rn_hi" \
      "$($JGET "$2" "$rn_p/energy_err_max_j")" 0
    rn_i=$((rn_i + 1))
  done
  [ "${rn_n:-0}" -gt 0 ] || fail "$1: no nodes in region $3"
}

# wave_node_near WHAT REPORT SPEC ORIGIN_NS [CHANNEL]: node 0's energy,
# or its CHANNEL's (none: ""), within the node's own bound (energy_err_max_j;
# a channel's terms are part of the node's, which add them) of the truth
# over the span the node measured (nodes/0/monotonic_ns, the library's
# own instants) but its gaps, times the share of the rest measured; the
# bound widened only by what the part not measured may hide
# (wave_unmeasured).  No fixed percentage: the fixtures' values are
# exact to the driver's stated resolution, which the bound holds (an
# ePDU's whole watts, a counter's joule), and a busy host's late readings
# widen the bound, not the test.
wave_node_near() {
  wn_t0=$($JGET "$2" nodes/0/monotonic_ns/0)
  wn_t1=$($JGET "$2" nodes/0/monotonic_ns/1)
  wave_gaps "$2" > "$TMP/wave-gaps"
  set -- "$1" "$2" "$3" "$4" "${5:-}" $(wave_gapless "$3" "$4" "$wn_t0" "$wn_t1" "$TMP/wave-gaps")
  wn_c=$(awk -v c="$($JGET "$2" nodes/0/coverage/0/covered_s)" \
    -v a="$wn_t0" -v b="$wn_t1" -v g="$7" 'BEGIN { print c / ((b - a) / 1e9 - g) }')
  if [ -n "$5" ]; then wn_e=$($JGET "$2" "nodes/0/channels/$5")
  else wn_e=$($JGET "$2" nodes/0/energy_j); fi
  wn_g=
  [ "$7" != 0 ] && wn_g=", $7 s of gaps"
  wn_t=$(cover_truth "$1" "$6" "$wn_c")
  wn_u=$(wave_unmeasured "$3" \
    "$(awk -v a="$wn_t0" -v b="$wn_t1" -v g="$7" 'BEGIN { print (b - a) / 1e9 - g }')" \
    "$wn_c" "$wn_t")
  in_bar "$1 (measured share $wn_c$wn_g)" "$wn_e" "$wn_t" "$wn_t" \
    "$($JGET "$2" nodes/0/energy_err_max_j)" "$wn_u" || wave_explain "$wn_t0" "$wn_t1"
}

# wave_regions_near WHAT REPORT OUTPUT SPEC ORIGIN_NS: each region that
# tests/wave_regions printed in OUTPUT within its own bound of the truth,
# but the node's gaps, times the share measured (from its coverage),
# widened by what the part not measured may hide.  The truth lies
# between the truths over the instants printed around the calls
# ("region NAME T0_NS T1_NS", before the begin and after the end) and
# over those inside them ("inner NAME T0B_NS T1A_NS"): pmon stamped each
# call somewhere inside it, and a busy host may hold a call up; there
# must be one region at least.
wave_regions_near() {
  wr_n=0
  wave_gaps "$2" > "$TMP/wave-gaps"
  while read -r wr_kw wr_name wr_t0 wr_t1; do
    [ "$wr_kw" = region ] || continue
    wr_n=$((wr_n + 1))
    wr_in=$(awk -v n="$wr_name" '$1 == "inner" && $2 == n { print $3, $4; exit }' "$3")
    [ -n "$wr_in" ] || wr_in="$wr_t0 $wr_t1"
    wr_g=$(wave_gapless "$4" "$5" "$wr_t0" "$wr_t1" "$TMP/wave-gaps")
    wr_gi=$(wave_gapless "$4" "$5" ${wr_in% *} ${wr_in#* } "$TMP/wave-gaps")
    wr_c=$(awk -v c="$($JGET "$2" "regions/name=$wr_name/coverage")" \
      -v a="$wr_t0" -v b="$wr_t1" -v g="${wr_g#* }" \
      'BEGIN { if (c == "" || c == "null") { print c; exit }
               l = (b - a) / 1e9; print c * l / (l - g) }')
    wr_l=
    [ "${wr_g#* }" != 0 ] && wr_l=", ${wr_g#* } s of gaps"
    wr_t=$(cover_truth "$1 region $wr_name" "${wr_g% *}" "$wr_c")
    wr_ti=$(cover_truth "$1 region $wr_name" "${wr_gi% *}" "$wr_c")
    wr_u=$(wave_unmeasured "$4" "$(awk -v a="$wr_t0" -v b="$wr_t1" \
        -v g="${wr_g#* }" 'BEGIN { print (b - a) / 1e9 - g }')" "$wr_c" "$wr_t")
    in_bar "$1 region $wr_name (measured share $wr_c$wr_l)" \
      "$($JGET "$2" "regions/name=$wr_name/energy_j")" \
      "$(awk -v a="$wr_ti" -v b="$wr_t" 'BEGIN { print (a < b ? a : b) }')" \
      "$(awk -v a="$wr_ti" -v b="$wr_t" 'BEGIN { print (a < b ? b : a) }')" \
      "$($JGET "$2" "regions/name=$wr_name/energy_err_max_j")" "$wr_u" ||
      wave_explain "$wr_t0" "$wr_t1"
  done < "$3"
  [ "$wr_n" -gt 0 ] || fail "$1: no regions in $3"
}

# wave_elapsed_near WHAT OUTPUT SECONDS: the "elapsed S" that
# tests/wave_regions printed in OUTPUT is SECONDS to SECONDS + 1.5: the
# program was not held up by pmon (pmon_finalize()'s last readings and
# report are the rest).  Under tests/loaded.sh (PMON_TEST_LOAD busy
# loops) that work gets a share of a core the loops take most of: 1.5 s
# for each loop and one more (nvml.test's six jobs beside two loops took
# 11.5 s for 10); a hang still shows.
wave_elapsed_near() {
  we_e=$(awk '$1 == "elapsed" { print $2 }' "$2")
  we_m=$(awk -v l="${PMON_TEST_LOAD:-0}" 'BEGIN { print 1.5 * (1 + l) }')
  if awk -v e="$we_e" -v s="$3" -v m="$we_m" 'BEGIN { d = e - s; exit !(e != "" && d >= 0 && d <= m) }'; then
    pass "$1 elapsed $we_e s for a $3 s job"
  else
    fail "$1 elapsed '$we_e' s for a $3 s job (at most $we_m s more)"
  fi
}

# cpufreq_fixture SYS: for PMON_SYSFS_ROOT=SYS, a cpufreq directory for
# every CPU of this shell's affinity: scaling_max_freq 3000000 kHz,
# cpuinfo_min_freq 800000, cpuinfo_max_freq 3500000.  The CPUs in $cpus,
# the first one's scaling_max_freq in $F; skips without an affinity list.
# freq_values prints the values of every CPU's scaling_max_freq, sorted,
# unique, on one line.
cpufreq_fixture() {
  cpus=$(awk '/^Cpus_allowed_list:/ { n = split($2, r, ",");
    for (i = 1; i <= n; i++) { m = split(r[i], ab, "-");
      for (c = ab[1]; c <= (m > 1 ? ab[2] : ab[1]); c++) print c } }' /proc/self/status)
  [ -n "$cpus" ] || skip "no Cpus_allowed_list in /proc/self/status"
  CPUFREQ_SYS=$1
  for c in $cpus; do
    cf_d=$1/devices/system/cpu/cpu$c/cpufreq
    mkdir -p "$cf_d" || exit 99
    echo 3000000 > "$cf_d/scaling_max_freq"
    echo 800000 > "$cf_d/cpuinfo_min_freq"
    echo 3500000 > "$cf_d/cpuinfo_max_freq"
  done
  F=$1/devices/system/cpu/cpu$(echo "$cpus" | head -n 1)/cpufreq/scaling_max_freq
}
freq_values() {
  for c in $cpus; do
    cat "$CPUFREQ_SYS/devices/system/cpu/cpu$c/cpufreq/scaling_max_freq"
  done | sort -u | tr '\n' ' '
}

finish() {
  if [ "$failures" -gt 0 ]; then echo "$failures check(s) failed"; exit 1; fi
  exit 0
}

# same WHAT A B: A and B both null (or both empty), or within 1e-9 of
# each other.
same() {
  if awk -v a="$2" -v b="$3" 'BEGIN {
       if (a == b) exit 0
       if (a == "" || b == "" || a == "null" || b == "null") exit 1
       d = a - b; if (d < 0) d = -d; m = a < 0 ? -a : a
       exit !(d <= 1e-9 * m) }'; then
    pass "$1: $2"
  else
    fail "$1: replayed $3, live $2"
  fi
}

# stamp_check_run WHAT TRACE LOG [METER [SHIFT_NS]]: each sample of counter
# meter METER (0) in the leader's TRACE that brought a new value (its
# reading's counts differ from those before the sample before) is stamped
# at "at", off by up to "err_s" (docs/trace-format.md): that interval,
# widened by half the longer of the two readings' durations and by the
# feeder's 5 ms of lateness (tests/pmfeed.c, LATE) and 1 ms, must hold an
# instant at which the fixture published (LOG: "NS WATTS" a line, pmfeed
# --log).  A log whose lines carry a third figure, the counter's value
# then in joules ("NS WATTS JOULES", redfish-peer.py --taken), holds the
# reads too: each good read, between its t0 and t1, must hold an instant
# at which the fixture served its first channel's count (mJ, to 1): a
# counter the fixture computes at each request publishes at every read,
# and the sample's err_s (up to an interval) is then wider than any
# shift.  SHIFT_NS moves every stamp and read, to show the check can
# fail.  Prints the verdict's line; status 1 when a stamp missed.
stamp_check_run() {
  awk -v m="${4:-0}" -v shift="${5:-0}" "$TRACE_NUM"'
    BEGIN { nc = 0; k = 0; kr = 0 }
    FNR == NR { if (NF >= 3) { j[nc] = $3 + 0; hasj = 1 }
                c[nc++] = $1 + 0; next }
    $0 ~ "^[{]\"read\": " m "," && index($0, "\"raw\": [") {
      raw = substr($0, index($0, "\"raw\": ["))
      sub(/\].*/, "", raw)
      t0 = num("t0"); t1 = num("t1")
      if (hasj) {
        v = substr(raw, 9) + 0; a = t0 + shift; b = t1 + shift
        reads++
        while (kr < nc && c[kr] < a) kr++
        ok = 0
        for (i = kr; i < nc && c[i] <= b; i++) {
          d = int(j[i] * 1000 + 0.5) - v
          if (d <= 1 && d >= -1) ok = 1
        }
        if (!ok && missed++ < 3)
          printf "  read %.0f..%.0f, %.0f mJ: not served in it\n", a, b, v
      }
      if (index($0, "\"try\": ") == 0 || num("try") == 0) {
        pspan = span; rs = t0
      }
      span = t1 - rs; last = raw
      next
    }
    $0 ~ "^[{]\"sample\": " m "," {
      at = num("at") + shift; e = num("err_s") * 1e9
      d = (span > pspan ? span : pspan) / 2 + 6e6
      isnew = nsamp > 0 && last != prev
      prev = last; nsamp++
      if (!isnew) next
      checked++
      lo = at - e - d; hi = at + e + d
      while (k > 0 && c[k - 1] >= lo) k--
      while (k < nc && c[k] < lo) k++
      if (k >= nc || c[k] > hi) {
        if (missed++ < 3)
          printf "  stamp %.0f +- %.3f ms: no publication from %.0f to %.0f\n", \
                 at, e / 1e6, lo, hi
      }
    }
    END {
      if (hasj)
        printf "%d new values, %d reads, %d stamps missed\n", checked, \
               reads, missed
      else
        printf "%d new values, %d stamps missed\n", checked, missed
      exit (checked == 0 || missed > 0 || (hasj && reads == 0))
    }' "$3" "$2"
}
# stamp_check_power_run WHAT TRACE LOG [METER [SHIFT_NS]]: as
# stamp_check_run, for power meter METER: each good read (a "watts" line)
# must hold, between its t0 and t1, an instant at which the fixture took
# the value it answered (LOG: "NS WATTS" a line, keithley_emu -t), and
# that value (to 1e-6 relative, the answer's digits): the driver's stamp
# is the read's midpoint, off by up to half of it, which its bar holds.
stamp_check_power_run() {
  awk -v m="${4:-0}" -v shift="${5:-0}" "$TRACE_NUM"'
    BEGIN { nc = 0; k = 0 }
    FNR == NR { c[nc] = $1 + 0; w[nc++] = $2 + 0; next }
    $0 ~ "^[{]\"read\": " m "," && index($0, "\"watts\": [") {
      t0 = num("t0") + shift; t1 = num("t1") + shift; v = num("watts")
      checked++
      while (k < nc && c[k] < t0) k++
      ok = 0
      for (j = k; j < nc && c[j] <= t1; j++) {
        d = w[j] - v; if (d < 0) d = -d
        a = v < 0 ? -v : v
        if (d <= 1e-6 * (a > 1 ? a : 1)) ok = 1
      }
      if (!ok && missed++ < 3)
        printf "  read %.0f..%.0f (%.3f ms), %.9g W: no such value taken in it\n", \
               t0, t1, (t1 - t0) / 1e6, v
    }
    END {
      printf "%d reads, %d stamps missed\n", checked, missed
      exit (checked == 0 || missed > 0)
    }' "$3" "$2"
}
# stamp_check WHAT TRACE LOG [METER]: stamp_check_run's verdict, or
# stamp_check_power_run's for a power meter, and the same check with every
# stamp moved by 50 ms must miss.
stamp_check() {
  sc_run=stamp_check_run
  grep -q "^{\"meter\": ${4:-0},.*\"kind\": \"power\"" "$2" &&
    sc_run=stamp_check_power_run
  if sc_v=$($sc_run "$@"); then
    pass "$1: every stamp holds the fixture's instant ($(echo "$sc_v" | tail -n 1))"
  else
    fail "$1: stamps against the fixture's log: $sc_v"
  fi
  sc_p=$($sc_run "$1" "$2" "$3" "${4:-0}" 50000000)
  case $sc_p in
    *" 0 stamps missed") fail "$1: stamps moved by 50 ms still pass: $sc_p" ;;
    *) pass "$1: stamps moved by 50 ms miss ($(echo "$sc_p" | tail -n 1))" ;;
  esac
}

# replay_check WHAT REPORT DIR [NODE]: the trace that the job of REPORT
# recorded in DIR (PMON_RECORD=DIR) replayed by pmon-report replay, for
# its node NODE (an index of nodes, 0 by default): its node's figures,
# its MPI-IO and communication figures (from the ranks' records) where
# the job had some, and, for a job of one node, every region's, with
# their bars, the report's to 1e-9 (docs/trace-format.md).  The replay
# is DIR.replay.json.
replay_check() {
  rc_l=$2 rc_p=$3.replay.json rc_x=nodes/${4:-0}
  rc_node=$($JGET "$rc_l" $rc_x/name)
  [ -n "${4:-}" ] && rc_p=$3.$rc_node.replay.json
  "$top_builddir/tools/pmon-report" replay -o "$rc_p" \
    $(node_traces "$3" "$rc_node") > "$3.rout" 2>&1
  equal "$1: replay: exit status" $? 0
  sed 's/^/  | /' "$3.rout"
  for rc_k in energy_j energy_err_j energy_err_max_j wall_s power_w \
              monotonic_ns/0 monotonic_ns/1 coverage/0/covered_s; do
    same "$1: replay: node $rc_k" "$($JGET "$rc_l" $rc_x/$rc_k)" \
      "$($JGET "$rc_p" nodes/0/$rc_k)"
  done
  if [ "$($JGET "$rc_l" $rc_x/io)" != null ]; then
    for rc_k in bytes_read bytes_written phases phase_time_s energy_j \
                energy_err_j energy_err_max_j power_w; do
      same "$1: replay: node io/$rc_k" "$($JGET "$rc_l" $rc_x/io/$rc_k)" \
        "$($JGET "$rc_p" nodes/0/io/$rc_k)"
    done
  fi
  if [ "$($JGET "$rc_l" $rc_x/comm)" != null ]; then
    for rc_k in calls bytes time_s energy_j energy_err_j energy_err_max_j; do
      same "$1: replay: node comm/$rc_k" "$($JGET "$rc_l" $rc_x/comm/$rc_k)" \
        "$($JGET "$rc_p" nodes/0/comm/$rc_k)"
    done
  fi
  [ "$($JGET "$rc_l" job/nodes)" = 1 ] || return 0
  rc_n=$($JGET "$rc_l" regions/#)
  equal "$1: replay: regions" "$($JGET "$rc_p" regions/#)" "$rc_n"
  rc_i=0
  while [ "$rc_i" -lt "${rc_n:-0}" ]; do
    rc_r=$($JGET "$rc_l" regions/$rc_i/name)
    for rc_f in count time_s energy_j energy_err_j energy_err_max_j coverage; do
      same "$1: replay: $rc_r: $rc_f" "$($JGET "$rc_l" regions/$rc_i/$rc_f)" \
        "$($JGET "$rc_p" regions/name=$rc_r/$rc_f)"
    done
    rc_i=$((rc_i + 1))
  done
}
