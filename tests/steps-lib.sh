# steps-lib.sh - what steps.test and steps-long.test share: regions whose
# power steps at their begin and end (tests/pmfeed --schedule, set by
# tests/wave_regions with WAVE_REGIONS_POWER), their truth from the
# feeder's log, and the checks.  Sourced after lib.sh, never run.
WR=tests/wave_regions
export WAVE_REGIONS_POWER="$TMP/m.sched" WAVE_REGIONS_IDLE=100

# truth LOG ROWS: ROWS are "NAME T0_NS T1_NS" (a pair per line); LOG is
# "NS WATTS" a line, the power held since the line before (pmfeed
# --log).  Prints per name "NAME TRUTH WORST PAIRS": the logged power
# integrated over its pairs; the worst case of its ends, each the range
# of the logged power within 0.3 s of it times the log's longest interval
# there, plus 1 J.
truth() {
  awk '
    NR == FNR { t[++n] = $1; p[n] = $2; next }
    function integral(a, b,   i, s, lo, hi) {
      s = 0
      for (i = 2; i <= n; i++) {
        if (t[i] <= a) continue
        if (t[i-1] >= b) break
        lo = t[i-1] > a ? t[i-1] : a; hi = t[i] < b ? t[i] : b
        if (hi > lo) s += p[i] * (hi - lo) * 1e-9
      }
      return s
    }
    function range(x,   i, mn, mx, gap, pub) {
      mn = 1e18; mx = -1e18; gap = 0; pub = t[1]
      for (i = 2; i <= n; i++) {
        if (t[i] > x - 0.3e9 && t[i-1] < x + 0.3e9) {
          if (p[i] < mn) mn = p[i]
          if (p[i] > mx) mx = p[i]
        }
        # the spacing of publications: a change of power is a line of
        # its own, not a publication, but any line may be either; the
        # longest interval between lines there bounds it from below, so
        # take 0.1 s at least
        if (t[i] > x - 0.3e9 && t[i-1] < x + 0.3e9 && t[i] - t[i-1] > gap) gap = t[i] - t[i-1]
      }
      if (gap < 0.1e9) gap = 0.1e9
      return (mx - mn) * gap * 1e-9
    }
    {
      if (!($1 in tr)) order[++k] = $1
      tr[$1] += integral($2, $3)
      worst[$1] += range($2) + range($3) + 2
      pairs[$1]++
    }
    END { for (i = 1; i <= k; i++) printf "%s %.6f %.6f %d\n", order[i], tr[order[i]], worst[order[i]], pairs[order[i]] }
  ' "$1" "$2"
}

# judge REPORT TRUTHS NAME PERCENT: the region NAME of REPORT within
# PERCENT % of its truth (none: not checked), inside its bound (its
# energy_err_max_j: one figure may fall outside its 95 % bar by design),
# its bar no wider than its worst case.
judge() {
  set -- "$1" "$2" "$3" "$4" \
    "$($JGET "$1" "regions/name=$3/energy_j")" \
    "$($JGET "$1" "regions/name=$3/energy_err_j")" \
    "$($JGET "$1" "regions/name=$3/energy_method" 2>/dev/null || echo none)" \
    "$(awk -v n="$3" '$1 == n { print $2, $3, $4 }' "$2")" \
    "$($JGET "$1" "regions/name=$3/energy_err_max_j")"
  if awk -v what="$3" -v pc="$4" -v e="$5" -v b="$6" -v m="$7" -v tw="$8" -v mx="$9" '
       BEGIN {
         split(tw, x, " "); tr = x[1]; worst = x[2]; pairs = x[3]
         if (e == "null" || b == "null" || mx == "" || mx == "null" || tr == "") {
           printf "FAIL: %s: %s +- %s J (bound %s), truth %s\n", what, e, b, mx, tr; exit 1 }
         d = e - tr; err = 100 * d / tr; if (d < 0) d = -d
         printf "%s: %d pairs: %.1f +- %.1f J (%s), truth %.1f J: %+.2f %%, the error %.2f of the bar, the bar %.2f of the worst case %.1f J\n", what, pairs, e, b, m, tr, err, (b > 0 ? d / b : 99), b / worst, worst
         st = 0
         if (pc != "none" && d > tr * pc / 100) { printf "FAIL: %s: off by more than %s %%\n", what, pc; st = 1 }
         if (d > mx) { printf "FAIL: %s: the truth outside the bound %.1f J\n", what, mx; st = 1 }
         if (b > worst) { printf "FAIL: %s: the bar wider than the worst case of its ends\n", what; st = 1 }
         exit st
       }'; then
    pass "$3: within ${4}${4:+ % and} its bound"
  else
    failures=$((failures + 1))
  fi
}

# steps_run PLAN PAIRS: start the feeder at 100 W, run the regions of
# PLAN (their arguments on its first line, the run's length on its
# second) on one rank, check that PAIRS pairs were printed, and make
# $TMP/a.truth (truth() of the pairs) for the report $R.
# STEPS_FEED: more arguments for the feeder (split); STEPS_METERS: the
# meters, pm_counters on the feeder's directory when unset.
steps_run() {
  # shellcheck disable=SC2086 # the feeder's arguments, split
  feed "$TMP/m" 100 --schedule "$TMP/m.sched" ${STEPS_FEED:-}
  set -- "$(head -1 "$1")" "$(tail -1 "$1")" "$2"
  # shellcheck disable=SC2086 # the plan's arguments, split
  PMON_METERS=${STEPS_METERS:-pm_counters:$TMP/m} PMON_OUTPUT=$TMP/a.json PMON_QUIET=1 \
    "$MPIRUN" -n 1 $WR "$2" $1 > "$TMP/a.out" 2> "$TMP/a.err"
  rc=$?
  [ $rc = 77 ] && exit 77
  equal "exit status" $rc 0
  R=$TMP/a.json
  [ -s "$R" ] || { fail "no report"; cat "$TMP/a.err"; finish; }
  grep '^region ' "$TMP/a.out" | cut -d' ' -f2- > "$TMP/a.rows"
  equal "pairs printed" "$(wc -l < "$TMP/a.rows")" "$3"
  truth "$TMP/m.log" "$TMP/a.rows" > "$TMP/a.truth"
}

# steps_node: the node's energy of $R inside its bound, its truth the
# feeder's log over the node's measured span (nodes[0].monotonic_ns).
steps_node() {
  echo "node $($JGET "$R" nodes/0/monotonic_ns/0) $($JGET "$R" nodes/0/monotonic_ns/1)" > "$TMP/a.noderow"
  truth "$TMP/m.log" "$TMP/a.noderow" > "$TMP/a.nodetruth"
  if awk -v e="$($JGET "$R" nodes/0/energy_j)" -v b="$($JGET "$R" nodes/0/energy_err_max_j)" '
       { tr = $2 }
       END {
         d = e - tr; if (d < 0) d = -d
         printf "node: %.1f J (bound %.1f J), truth %.1f J: %+.2f %%, the error %.2f of the bound\n", e, b, tr, 100 * (e - tr) / tr, (b > 0 ? d / b : 99)
         exit !(tr > 0 && d <= b)
       }' "$TMP/a.nodetruth"; then
    pass "the node: inside its bound"
  else
    fail "the node: its truth outside its bound"
  fi
}
