#!/bin/sh
# tests/fuzz/fuzz.sh - build the libFuzzer harnesses and run each for a
# while: "make fuzz FUZZ_SECONDS=N" calls it as
#
#   fuzz.sh SECONDS TARGET...
#
# with, in the environment, FUZZ_CC (clang), MPICC (the MPI compiler
# wrapper, for MPI's flags), FUZZ_SOURCES (the library's sources),
# FUZZ_CPPFLAGS, FUZZ_LIBS and FUZZ_DRIVERS (the optional drivers built).
# The library's sources are compiled once, instrumented, into
# tests/fuzz/build/; each harness links them.  Each target starts from its
# seed corpus, tests/fuzz/TARGET/ (read, never written), and keeps what it
# finds in tests/fuzz/build/TARGET.corpus/.  A crash leaves its input as
# tests/fuzz/build/TARGET-crash-* and makes the run fail; once fixed, the
# input goes into the seed corpus, where every later run replays it.
#
# Two targets run at a time (FUZZ_JOBS).  One line per target at the end:
# executions, executions per second, the coverage reached (libFuzzer's
# "cov": edges of the instrumented code; "ft": features) and the corpus.
#
# With FUZZ_COVERAGE=1 ("make fuzz-coverage") nothing is fuzzed: the
# harnesses are built with clang's source-based coverage instead of the
# sanitizers, in tests/fuzz/build-cov/, run once over the seed corpus and
# what the last runs found, and llvm-cov says which share of the lines and
# functions of each harness's parser file they reach.
set -u
seconds=${1:?usage: fuzz.sh SECONDS TARGET...}
shift
srcdir=${srcdir:-.}
fz=$srcdir/tests/fuzz
case $seconds in
'' | *[!0-9]*)
  echo "fuzz: FUZZ_SECONDS=$seconds: not a number of seconds" >&2
  exit 2
  ;;
esac
out=tests/fuzz/build
cov=${FUZZ_COVERAGE:-0}
if [ "$cov" != 1 ] && [ "$seconds" -lt 1 ]; then
  echo "fuzz: FUZZ_SECONDS=$seconds: at least 1 (libFuzzer's 0 is forever)" >&2
  exit 2
fi
[ "$cov" = 1 ] && out=tests/fuzz/build-cov
cc=${FUZZ_CC:-clang}
jobs=${FUZZ_JOBS:-2}

# Without what it needs, it says so and succeeds; with FUZZ_REQUIRED=1
# (CI) it fails instead, so that a CI run cannot pass with nothing fuzzed.
skip() {
  echo "fuzz: SKIP: $*"
  if [ "${FUZZ_REQUIRED:-0}" = 1 ]; then
    echo "fuzz: FUZZ_REQUIRED=1: failing" >&2
    exit 1
  fi
  exit 0
}

mkdir -p "$out" || exit 1
# Can this clang make a libFuzzer program?  Debian's clang needs the
# runtime package for it.
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)\n{ return 0; }\n' \
  > "$out/probe.c"
"$cc" -fsanitize=fuzzer,address,undefined "$out/probe.c" -o "$out/probe" \
  > "$out/probe.log" 2>&1 ||
  skip "$cc cannot build a libFuzzer program ($(tail -n 1 "$out/probe.log"));" \
    "on Debian: apt-get install clang libclang-rt-14-dev"

mpi_cflags=$(${MPICC:-mpicc} -showme:compile 2>/dev/null) ||
  mpi_cflags=$(pkg-config --cflags ompi-c 2>/dev/null) ||
  skip "no MPI compile flags from ${MPICC:-mpicc} -showme or pkg-config"
mpi_libs=$(${MPICC:-mpicc} -showme:link 2>/dev/null) ||
  mpi_libs=$(pkg-config --libs ompi-c 2>/dev/null) ||
  skip "no MPI link flags from ${MPICC:-mpicc} -showme or pkg-config"

flags="-g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
cflags="$flags -I. -I$srcdir/include -I$srcdir/base -I$srcdir/lib -I$srcdir/drivers -I$srcdir/calc \
-I$srcdir/tools -DHAVE_CONFIG_H -DPMON_BUILDING_LIBRARY \
${FUZZ_CPPFLAGS:-} $mpi_cflags"
libs="${FUZZ_LIBS:-} $mpi_libs -lm -ldl -pthread"
if [ "$cov" = 1 ]; then
  lib_instr="-fprofile-instr-generate -fcoverage-mapping"
  main_instr="-fsanitize=fuzzer $lib_instr"
else
  lib_instr="-fsanitize=fuzzer-no-link,address,undefined"
  main_instr="-fsanitize=fuzzer,address,undefined"
fi

# The library, instrumented for coverage and the sanitizers (not linked
# with libFuzzer's main: the harnesses bring it).
echo "fuzz: building the library with $cc"
# A header newer than the last build makes every object out of date.
for h in config.h "$srcdir"/include/*.h "$srcdir"/lib/*.h "$srcdir"/calc/*.h \
  "$srcdir"/drivers/*.h; do
  [ "$h" -nt "$out/libcore.a" ] &&
    rm -f "$out"/lib_*.o "$out"/drivers_*.o "$out"/calc_*.o
done
objs=
for s in $FUZZ_SOURCES; do
  case $s in *.c) ;; *) continue ;; esac
  o=$out/$(echo "$s" | tr / _ | sed 's/\.c$/.o/')
  objs="$objs $o"
  if [ ! -f "$o" ] || [ "$srcdir/$s" -nt "$o" ]; then
    echo "$srcdir/$s $o"
  fi
done > "$out/todo"
# shellcheck disable=SC2086
xargs -r -P "$jobs" -n 2 sh -c "$cc $cflags $lib_instr -c \"\$0\" -o \"\$1\" || exit 255" \
  < "$out/todo" || { echo "fuzz: the library did not build" >&2; exit 1; }
rm -f "$out/libcore.a"
# shellcheck disable=SC2086
ar rcs "$out/libcore.a" $objs || exit 1

# Which optional driver a harness needs, if any.
needs() {
  case $1 in
  scpi) echo keithley ;;
  redfish) echo redfish ;;
  eaton) echo eaton ;;
  esac
}
# The sources a harness adds to its own file (the report tools').
extra() {
  case $1 in
  report | replay)
    echo "$srcdir"/tools/report-*.c "$srcdir"/base/beside.c
    ;;
  spool) # fuzz_spool.c includes report-rebuild.c
    for f in "$srcdir"/tools/report-*.c; do
      [ "$f" = "$srcdir/tools/report-rebuild.c" ] || echo "$f"
    done
    echo "$srcdir"/base/beside.c
    ;;
  esac
}

built=
for t in "$@"; do
  d=$(needs "$t")
  if [ -n "$d" ] && ! echo " ${FUZZ_DRIVERS:-} " | grep -q " $d "; then
    echo "fuzz: $t: SKIP: the $d driver is not in this build"
    [ "${FUZZ_REQUIRED:-0}" = 1 ] && exit 1
    continue
  fi
  echo "fuzz: building fuzz_$t"
  # shellcheck disable=SC2046,SC2086
  "$cc" $cflags $main_instr \
    "$fz/fuzz_$t.c" $(extra "$t") "$out/libcore.a" $libs \
    -o "$out/fuzz_$t" || { echo "fuzz: fuzz_$t did not build" >&2; exit 1; }
  built="$built $t"
done

# The file whose parser a harness is for.
parser() {
  case $1 in
  pm_counters) echo drivers/pm_counters.c ;;
  spec) echo base/spec.c ;;
  site) echo lib/site.c ;;
  scpi) echo drivers/keithley.c ;;
  redfish) echo drivers/redfish.c ;;
  eaton) echo drivers/eaton.c ;;
  report) echo tools/report-load.c ;;
  spool) echo tools/report-rebuild.c ;;
  replay) echo tools/report-replay.c ;;
  esac
}

if [ "$cov" = 1 ]; then
  profdata=$(command -v llvm-profdata || command -v llvm-profdata-14) &&
    llvmcov=$(command -v llvm-cov || command -v llvm-cov-14) ||
    skip "no llvm-profdata and llvm-cov (Debian: package llvm)"
  for t in $built; do
    f=$(parser "$t")
    mkdir -p "tests/fuzz/build/$t.corpus"
    LLVM_PROFILE_FILE="$out/$t.profraw" "$out/fuzz_$t" -runs=0 \
      -close_fd_mask=3 "tests/fuzz/build/$t.corpus" "$fz/$t" \
      > "$out/$t.log" 2>&1
    "$profdata" merge -sparse -o "$out/$t.profdata" "$out/$t.profraw" &&
      "$llvmcov" report "$out/fuzz_$t" -instr-profile="$out/$t.profdata" \
        > "$out/$t.cov" 2>&1 || { echo "fuzz: $t: llvm-cov failed"; continue; }
    # Filename Regions Missed Cover Functions Missed Executed Lines Missed
    # Cover ...: the row of the parser's file.
    awk -v f="/${f##*/}" -v t="$t" -v name="$f" '
      index($1, f) > 0 && index($1, f) == length($1) - length(f) + 1 {
        printf "fuzz: %s: %s: lines %s (%d of %d), functions %s (%d of %d)\n",
          t, name, $10, $8 - $9, $8, $7, $5 - $6, $5; found = 1 }
      END { if (!found) printf "fuzz: %s: %s: not in the coverage\n", t, name }' \
      "$out/$t.cov"
  done
  exit 0
fi

run() {
  t=$1
  mkdir -p "$out/$t.corpus"
  rm -f "$out/$t-crash-"* "$out/$t-leak-"* "$out/$t-timeout-"* \
    "$out/$t-oom-"*
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$out/fuzz_$t" -max_total_time="$seconds" -print_final_stats=1 \
    -close_fd_mask=3 -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -artifact_prefix="$out/$t-" "$out/$t.corpus" "$fz/$t" \
    > "$out/$t.log" 2>&1
  echo $? > "$out/$t.rc"
}

echo "fuzz: running$built for $seconds s each, $jobs at a time"
set -- $built
while [ $# -gt 0 ]; do
  n=0
  while [ $# -gt 0 ] && [ $n -lt "$jobs" ]; do
    run "$1" &
    shift
    n=$((n + 1))
  done
  wait
done

status=0
for t in $built; do
  log=$out/$t.log
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
  cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
  ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
  corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p')
  if [ "$(cat "$out/$t.rc")" != 0 ]; then
    status=1
    echo "fuzz: $t: FAIL: see $log; the input: $(ls "$out/$t-"* 2>/dev/null | tr '\n' ' ')"
    grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | head -n 3
  else
    echo "fuzz: $t: ${execs:-?} runs, ${rate:-?}/s, cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}"
  fi
done
exit $status
