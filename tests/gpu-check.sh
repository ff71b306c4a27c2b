#!/bin/sh
# tests/gpu-check.sh - pmon's nvml meter on a node with NVIDIA GPUs, in a
# few minutes: the figures that docs/hardware.md records.
#
#   make gpu-check [GPU_CHECK_OUT=DIR]
#   srcdir=SRC top_builddir=BUILD sh SRC/tests/gpu-check.sh [DIR]
#
# Run from the top of a build; make gpu-check first builds the programs
# it needs (bench/nvml_read, tests/wave_regions, tests/serial_region,
# tests/jget).  DIR (default: a new directory under $TMPDIR) keeps the
# reports and logs.  The steps:
#   1. the node: kernel, GPUs and driver (nvidia-smi), and what pmon-meters
#      finds on it without PMON_METERS;
#   2. tests/nvml-live.test, on the idle GPUs (its SKIP ends the check:
#      no GPU that NVML can read);
#   3. a load on the GPUs (below), and under it a 2-rank job of
#      tests/wave_regions measured by PMON_METERS=nvml, then the same job
#      with the meters pmon finds by itself; pmon-report's summary of each;
#   4. bench/nvml_read under the load: a reading's cost against the bare
#      NVML call, the counter's update period, the counter against the
#      power reading integrated over time.
#
# The load: PMON_GPU_LOAD, a command that keeps the GPUs busy for the
# number of seconds given as its one argument; by default bf16 matrix
# products in PyTorch when python3 has it with CUDA, else no load (said).
#
# Exit status 0 when every step ran and passed, 77 when there is no GPU to
# measure, 1 otherwise.
: "${srcdir:=.}"
top_builddir=${top_builddir:-.}
B=$top_builddir
LOAD_S=75
OUT=${1:-}
if [ -z "$OUT" ]; then
  OUT=$(mktemp -d "${TMPDIR:-/tmp}/pmon-gpu.XXXXXX") || exit 1
fi
mkdir -p "$OUT" || exit 1
status=0
LOADPID=
trap '[ -n "$LOADPID" ] && kill "$LOADPID" 2>/dev/null' EXIT

step() { printf '\n== %s\n' "$*"; }
bad() { echo "FAIL: $*"; status=1; }

step "1. the node"
uname -srm
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=index,name,driver_version,power.draw,power.limit,clocks.sm,memory.total \
    --format=csv 2>&1
else
  echo "no nvidia-smi"
fi
echo "pmon-meters (no PMON_METERS):"
"$B/tools/pmon-meters" 2>&1 | tee "$OUT/meters.txt" | sed 's/^/  /'

step "2. tests/nvml-live.test, idle"
srcdir=$srcdir top_builddir=$top_builddir sh "$srcdir/tests/nvml-live.test" \
  > "$OUT/nvml-live.log" 2>&1
rc=$?
cat "$OUT/nvml-live.log"
case $rc in
  0) ;;
  77) echo "SKIP: no GPU for the rest"; exit 77 ;;
  *) bad "nvml-live.test: exit status $rc" ;;
esac

step "3. a 2-rank job under load"
if [ -n "${PMON_GPU_LOAD:-}" ]; then
  $PMON_GPU_LOAD "$LOAD_S" > "$OUT/load.log" 2>&1 &
  LOADPID=$!
  sleep 5
elif python3 -c 'import torch; assert torch.cuda.is_available()' \
       > /dev/null 2>&1; then
  python3 - "$LOAD_S" "$OUT/load.ready" > "$OUT/load.log" 2>&1 <<'EOF' &
import sys, time, torch
end = time.time() + float(sys.argv[1])
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
b = torch.randn_like(a)
n = 0
while time.time() < end:
    for _ in range(16):
        c = a @ b
    torch.cuda.synchronize()
    n += 16
    if n == 64:
        open(sys.argv[2], "w").close()
print("products", n, "of 8192^3 in", sys.argv[1], "s")
EOF
  LOADPID=$!
  i=0
  while [ ! -e "$OUT/load.ready" ] && [ $i -lt 120 ] &&
        kill -0 "$LOADPID" 2>/dev/null; do
    sleep 0.5; i=$((i + 1))
  done
  [ -e "$OUT/load.ready" ] || bad "the PyTorch load did not start: $(tail -3 "$OUT/load.log")"
  sleep 2 # the power reading averages over a second
else
  echo "no load: set PMON_GPU_LOAD, or have python3 with PyTorch and CUDA"
fi
command -v nvidia-smi >/dev/null 2>&1 &&
  echo "nvidia-smi under load: $(nvidia-smi --query-gpu=index,power.draw,utilization.gpu --format=csv,noheader 2>&1 | tr '\n' ' ')"

job() { # NAME [METERS]: a 10 s job of 2 ranks with regions r1 and r2
  if [ -n "${2:-}" ]; then PMON_METERS=$2; export PMON_METERS
  else unset PMON_METERS; fi
  PMON_OUTPUT=$OUT/$1.json \
    "$B/tests/mpirun.sh" -n 2 "$B/tests/wave_regions" 10 r1:1:5 r2:5:9 \
    > "$OUT/$1.out" 2> "$OUT/$1.err"
  rc=$?
  [ "$rc" = 0 ] && [ -s "$OUT/$1.json" ] ||
    { bad "job $1: exit status $rc, no report"; cat "$OUT/$1.err"; return; }
  "$B/tools/pmon-report" "$OUT/$1.json" 2>&1 | sed 's/^/  /'
}
echo "PMON_METERS=nvml:"
job loaded nvml
e=$("$B/tests/jget" "$OUT/loaded.json" nodes/0/energy_j 2>/dev/null)
w=$("$B/tests/jget" "$OUT/loaded.json" nodes/0/wall_s 2>/dev/null)
if awk -v e="$e" -v w="$w" 'BEGIN { exit !(e != "null" && e > 0 && w > 0) }'; then
  echo "ok: GPUs under load: $e J over $w s: $(awk -v e="$e" -v w="$w" 'BEGIN { printf "%.1f", e / w }') W"
else
  bad "loaded job: node energy '$e'"
fi
echo "the meters pmon finds by itself:"
job auto

step "4. bench/nvml_read, under load"
"$B/bench/nvml_read" 10 2>&1 | tee "$OUT/nvml_read.txt" || bad "bench/nvml_read"

if [ -n "$LOADPID" ]; then
  kill "$LOADPID" 2>/dev/null
  wait "$LOADPID" 2>/dev/null
  LOADPID=
  cat "$OUT/load.log"
fi
command -v nvidia-smi >/dev/null 2>&1 &&
  echo "nvidia-smi after: $(nvidia-smi --query-gpu=index,power.draw --format=csv,noheader 2>&1 | tr '\n' ' ')"
echo
echo "files in $OUT"
[ "$status" = 0 ] && echo "gpu-check: done" || echo "gpu-check: FAILED"
exit $status
