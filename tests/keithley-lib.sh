# tests/keithley-lib.sh - helpers for the keithley driver's tests, after
# tests/lib.sh; sourced, never run.  Each emulator NAME has its terminal's
# link at $TMP/NAME, its counts in $TMP/NAME.count, the origin of its
# waveform in $TMP/NAME.origin and each reading's instant and watts in
# $TMP/NAME.taken; a job NAME writes $TMP/NAME.json,
# $TMP/NAME.out and $TMP/NAME.err.
. "${srcdir:-.}/tests/lib.sh"

EMU=$top_builddir/tests/keithley_emu
[ -x "$EMU" ] ||
  skip "no tests/keithley_emu: the keithley driver is not built (configure found no <termios.h>, or --without-keithley)"
SHUNT=0.01
LINE=230

# emu NAME WAVE [OPTIONS]: start an emulator playing WAVE from now.
emu() {
  name=$1 wave=$2
  shift 2
  $WAVE now > "$TMP/$name.origin"
  "$EMU" -l "$TMP/$name" -w "$wave" -o "$(cat "$TMP/$name.origin")" \
    -L $LINE -r $SHUNT -c "$TMP/$name.count" -t "$TMP/$name.taken" "$@" &
  eval "EMU_$name=$!"
  FEEDERS="$FEEDERS $!"
  i=0
  while [ ! -L "$TMP/$name" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
  [ -L "$TMP/$name" ] || { fail "emulator $name did not start"; finish; }
}

# stop_emu NAME: stop it, so that it writes its counts.
stop_emu() {
  eval "pid=\$EMU_$1"
  kill -TERM "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
}

# count NAME KEY: a figure of the emulator's count file.
count() { awk -v k="$2" '$1 == k { print $2 }' "$TMP/$1.count"; }

# uri NAME [&MORE]: the meter specification for emulator NAME.
uri() { echo "keithley:$TMP/$1?shunt=$SHUNT&line=$LINE$2"; }

# job NAME URI SECONDS [REGIONS]: run wave_regions on 2 ranks measured by
# URI, recorded in $TMP/NAME.rec (PMON_RECORD), and keep its exit status
# in $TMP/NAME.rc (may run in the background); check_job NAME then checks
# it.
job() {
  name=$1 meter=$2
  shift 2
  mkdir -p "$TMP/$name.rec"
  PMON_METERS=$meter PMON_OUTPUT=$TMP/$name.json PMON_QUIET=1 \
    PMON_RECORD=$TMP/$name.rec \
    "$MPIRUN" -n 2 tests/wave_regions "$@" > "$TMP/$name.out" 2> "$TMP/$name.err"
  echo $? > "$TMP/$name.rc"
}

# check_job NAME: it ran (77 passes through: no MPI launcher), and wrote
# a report, which its trace's replay gives again (replay_check).
check_job() {
  rc=$(cat "$TMP/$1.rc")
  [ "$rc" = 77 ] && exit 77
  equal "$1: exit status" "$rc" 0
  [ -s "$TMP/$1.json" ] || { fail "$1: no report"; cat "$TMP/$1.err"; finish; }
  replay_check "$1" "$TMP/$1.json" "$TMP/$1.rec"
}

# stamps_hold NAME: every reading job NAME's leader recorded holds the
# instant its value was taken (stamp_check, after stop_emu).
stamps_hold() {
  stamp_check "$1: stamps" "$(leader_trace "$TMP/$1.rec")" "$TMP/$1.taken"
}

# truth NAME WAVE T0_NS T1_NS: the exact joules of WAVE over [T0, T1].
truth() { wave_truth "$2" "$(cat "$TMP/$1.origin")" "$3" "$4"; }

# node_energy_near NAME WAVE: the node energy against the truth over the
# span it covers, within its own bar (wave_node_near; a miss explained
# from its trace, wave_explain).
node_energy_near() {
  r=$TMP/$1.json
  t0=$($JGET "$r" nodes/0/monotonic_ns/0)
  t1=$($JGET "$r" nodes/0/monotonic_ns/1)
  WAVE_TRACE=$(leader_trace "$TMP/$1.rec")
  wave_node_near "$1: node energy over $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }') s" \
    "$r" "$2" "$(cat "$TMP/$1.origin")"
}

# regions_near NAME WAVE: every region's energy against the truth over
# the instants wave_regions printed, within its own bar.
regions_near() {
  WAVE_TRACE=$(leader_trace "$TMP/$1.rec")
  wave_regions_near "$1:" "$TMP/$1.json" "$TMP/$1.out" "$2" \
    "$(cat "$TMP/$1.origin")"
}

# elapsed_near NAME SECONDS: the program was not held up by pmon.
elapsed_near() { wave_elapsed_near "$1:" "$TMP/$1.out" "$2"; }

