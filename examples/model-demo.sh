#!/bin/sh
# examples/model-demo.sh - "make model-demo": the energy model of the
# Damaris study (Dorier et al., FGCS 2016), E = T_sim x P_sim, calibrated,
# used to predict and checked, on a cluster emulated on this machine.
# Run from the build tree, after "make all tests/pmfeed tests/jget".
#
# The cluster: NODES nodes of CORES cores, each node a PMON_NODE name
# with a fake Cray pm_counters tree that tests/pmfeed --follow keeps up to
# date; its power follows the CPU demand of the node's ranks, from P_IDLE
# (about 90 W, all cores idle) to P_MAX (about 210 W, all busy), each node
# a little off the others (up to 3 %).  Each rank starts through a
# wrapper that appends its PID to its node's list and execs the program
# with PMON_NODE and PMON_METERS set; the kernel is examples/iomodes.
#
#  a. calibration runs without output (--approach none): one node with 2,
#     3 and 4 ranks, and 4 ranks on 1, 2 and 4 nodes; and one run where
#     every rank sleeps (--idle 3), for the power of idle nodes;
#  b. pmon-report model calibrate;
#  c. pmon-report model predict for NODES x CORES, for tp, dc:1 and
#     dn:1:1: tp is refused, as it needs the I/O time (--io-time), which
#     the calibration runs cannot know; it is predicted again after the
#     tp runs, with the I/O time they measured;
#  d. the runs of each approach, REPEATS times;
#  e. pmon-report model validate, with the study's power of dedicated
#     cores and nodes, then with their measured CPU use (--dedicated-busy);
#     and pmon-report compare --by approach (its main figures, from its
#     CSV: the whole table is some 170 columns wide);
#  f. pmon-report advise --model on the first tp run: the approach the
#     model predicts costs least, with its saving and bar; then advise
#     --check on the first run of that approach, which says whether the
#     prediction held.
# Every file is in model-demo/, made afresh each time.  It takes about a
# minute on a 2-core machine (43 to 65 s where other work shared it, most
# of it the 12 runs).  It prints the model once (calibrate) and every line
# within 100 columns: compare --by approach's few figures of the model.
#
# What to expect: the emulated power of a node is what its ranks use.  A
# dedicated rank here only copies its messages to the page cache: a dc:1
# node draws about 183 W (3 cores busy, the dedicated one a few %), a
# dedicated node about 100 W.  The model of pmon-model(7) takes a
# computing node at P_max whatever its dedicated cores do, and a
# dedicated node at (P_idle + P_max) / 2, busy half of the time: validate
# then puts dc:1 and dn:1:1 some 15 % above their measured energy (tp,
# predicted with its measured I/O time, within a few %), while still
# picking the same approach as the measurements, dc:1.  Validated again
# with --dedicated-busy, the share of their time the dedicated ranks were
# on a CPU (iomodes measures it), the power of a node is taken linear in
# its busy cores, which is how the emulated meters draw it: dc:1 and
# dn:1:1 then come within a few % as well.
#
# What a 2-core machine cannot show:
# - Computing speed.  iomodes paces its compute step by the clock (each
#   rank is busy for its share of the step, however little of a CPU it
#   gets), so that 16 emulated cores behave as 16 on 2 real ones; its
#   compute time scales perfectly with the compute ranks.  Nothing here
#   shows memory bandwidth shared on a node, a dedicated core slowing the
#   others down, or the cache effects that make real strong scaling
#   better or worse than that.
# - Power.  The emulated power is a straight line in CPU use: no idle
#   states, frequency, memory, disk or network power; the energy of I/O
#   is only that of the CPUs waiting for it.  A rank waiting for a CPU
#   counts busy, as it would be on a core of its own; but a dedicated
#   rank that wakes every millisecond to test its messages would run at
#   once on its own core, and here waits for one behind the compute
#   ranks.  Left so, that wait counts as busy: measured, a dedicated rank
#   busy 3 % of the time waited 70 %, and a dc:1 node read 201-206 W
#   instead of about 183 W, a dedicated node 176 W instead of about
#   100 W.  So the compute ranks run at nice 19 (iomodes --nice, NICE
#   below): the dedicated rank then gets a CPU at once, or nearly (its
#   wait falls to about 5 %), and the compute ranks still count busy, as
#   they always wait for a CPU (paced by the clock).  All runs do so,
#   calibration included, so that they all wait alike for each other's
#   messages.  On a machine shared with other work, those nice ranks get
#   little CPU: their messages and the run times suffer, and a busy node
#   can read low, as /proc/PID/schedstat adds a wait only when it ends
#   (two foreign busy loops took a busy node from 209 W to 170 W).
# - I/O.  Files go to the page cache of one local disk, written by ranks
#   that get a fraction of a core each: the I/O time of tp is neither
#   that of a parallel file system nor how it grows with the nodes, and
#   the data that dc and dn send between ranks go through shared memory,
#   not a network.
# - Communication.  The halo exchange and the MPI_Allreduce of an
#   iteration take milliseconds here, as ranks wait for a CPU to answer;
#   on a cluster they take microseconds.  This overhead grows with the
#   ranks and is what the model's fit of T against the ranks sees.
# - Scale.  4 nodes of 4 cores at most; the paper's effects at thousands
#   of cores (I/O jitter, the file system's contention) are out of reach.

set -u
D=${MODEL_DEMO_DIR:-model-demo}
REPORT=${PMON_REPORT:-tools/pmon-report}
MPIRUN=${MPIRUN_SH:-tests/mpirun.sh}
PRELOAD=${PMON_PRELOAD_LIB:-$(pwd)/mpiio/.libs/libpmon-mpiio.so}
NODES=2          # the cluster the approaches run on, NODES x CORES
CORES=4          # cores per node: a node's ranks, dedicated ones included
P_IDLE=90        # W, all cores idle
P_MAX=210        # W, all cores busy
SPREAD="1.00 1.02 0.97 1.03" # each node's power, relative (4 nodes)
ITERS=10         # iterations of every run
WORK=1.0         # seconds of one core's compute per iteration, whole job
EVERY=2          # output every EVERY iterations
SIZE=2M          # bytes each compute rank outputs each time
REPEATS=2        # runs of each approach
NICE=19          # the compute ranks' nice value (iomodes --nice)

for p in examples/iomodes tests/pmfeed tests/jget "$MPIRUN" "$REPORT"; do
  [ -x "$p" ] || { echo "model-demo: $p: not built (make all tests/pmfeed tests/jget)" >&2; exit 1; }
done
if [ ! -r /proc/self/schedstat ]; then
  echo "model-demo: /proc/self/schedstat: missing: the emulated power follows the ranks' CPU demand from it (a kernel built with CONFIG_SCHED_INFO)" >&2
  exit 1
fi

rm -rf "$D" && mkdir -p "$D/data" "$D/mpi" || exit 1
D=$(cd "$D" && pwd)
PMON_MPIRUN_TMP=$D/mpi # a session directory per launch (tests/mpirun.sh)
# The emulated nodes are one machine: each node's leader would see the
# other nodes' ranks and the feeders as other work on its node and count
# only its job's share (pmon(7), Shared nodes; 55 W for a busy node of
# 210 W).  Each emulated node is a whole node, as a site that gives
# whole nodes says with PMON_SHARE=off.
PMON_SHARE=off
export PMON_MPIRUN_TMP PMON_SHARE
FEEDERS=
stop_feeders() { for p in $FEEDERS; do kill "$p" 2>/dev/null; done; }
trap stop_feeders EXIT
trap 'exit 1' INT TERM

# One feeder per node, for the whole demo.
n=0
for f in $SPREAD; do
  mkdir -p "$D/node$n"
  idle=$(awk -v w=$P_IDLE -v f="$f" 'BEGIN { printf "%.1f", w * f }')
  max=$(awk -v w=$P_MAX -v f="$f" 'BEGIN { printf "%.1f", w * f }')
  tests/pmfeed "$D/node$n/pm" "$max" --follow "$D/node$n/pids" \
    --idle-w "$idle" --cores $CORES &
  FEEDERS="$FEEDERS $!"
  echo "model-demo: node$n: $idle W idle, $max W busy, $CORES cores"
  n=$((n + 1))
done
i=0
while [ $i -lt 100 ] && [ ! -s "$D/node$((n - 1))/pm/freshness" ]; do
  sleep 0.05; i=$((i + 1))
done

# The rank wrapper: node = world rank / DEMO_PPN, its PID in the node's
# list (exec keeps it), then the program with the node's meter.
cat > "$D/rank.sh" <<EOS
#!/bin/sh
r=\${OMPI_COMM_WORLD_RANK:-\${PMI_RANK:-0}}
n=\$((r / DEMO_PPN))
echo \$\$ >> "$D/node\$n/pids"
PMON_NODE=node\$n PMON_METERS=pm_counters:$D/node\$n/pm exec "\$@"
EOS
chmod +x "$D/rank.sh"

# run NAME NODES PPN APPROACH TAGS [IOMODES ARGS]: one run, its report
# NAME.json; prints the kernel's line, then the region "run": its time
# and each node's power in it.
# wrap: lines longer than 100 columns cut at a blank, the rest indented.
wrap() {
  awk '{
    line = $0; ind = ""
    while (length(ind line) > 100) {
      w = 100 - length(ind)
      for (cut = w + 1; cut > 20 && substr(line, cut, 1) != " "; cut--) ;
      if (cut <= 20) break
      print ind substr(line, 1, cut - 1)
      line = substr(line, cut + 1); ind = "    "
    }
    print ind line
  }'
}

run() {
  name=$1 nn=$2 ppn=$3 approach=$4 tags=$5
  shift 5
  i=0
  while [ $i -lt "$nn" ]; do : > "$D/node$i/pids"; i=$((i + 1)); done
  DEMO_PPN=$ppn PMON_OUTPUT=$D/$name.json PMON_QUIET=1 PMON_LABEL=$name \
    PMON_TAGS=$tags LD_PRELOAD=$PRELOAD \
    "$MPIRUN" -n $((nn * ppn)) "$D/rank.sh" examples/iomodes \
    --approach "$approach" --ppn "$ppn" --iters $ITERS --work $WORK \
    --every $EVERY --size $SIZE --nice $NICE --dir "$D/data" "$@" > "$D/$name.out" 2>&1
  rc=$?
  if [ $rc != 0 ] || [ ! -s "$D/$name.json" ]; then
    cat "$D/$name.out"
    echo "model-demo: $name: the run failed (exit status $rc)" >&2
    exit 1
  fi
  line=$(grep '^iomodes:' "$D/$name.out")
  w=
  i=0
  while [ $i -lt "$nn" ]; do
    w="$w $(tests/jget "$D/$name.json" "regions/name=run/nodes/$i/power_w" |
      awk '{ printf "%.0f", $1 }')"
    i=$((i + 1))
  done
  printf '%-14s %s\n%14s run %.2f s, node power (W):%s\n' "$name" \
    "${line#iomodes: }" "" \
    "$(tests/jget "$D/$name.json" regions/name=run/time_s)" "$w" | wrap
}

echo
echo "== a. calibration: no output, one node of 2, 3, 4 ranks; 4 ranks a node on 1, 2, 4 nodes"
for c in 2 3 4; do
  run cal-n1c$c 1 $c none "approach=none,cores=$c,nodes=1"
done
for nn in 2 4; do
  run cal-n${nn}c$CORES $nn $CORES none "approach=none,cores=$CORES,nodes=$nn"
done
run idle-n${NODES}c$CORES $NODES $CORES none \
  "approach=none,idle=yes,cores=$CORES,nodes=$NODES" --idle 3

# model_cmd ARGS: pmon-report model ARGS without the model's own lines
# (model, T_base, s_cores, s_nodes, P_idle, P_max), which calibrate
# printed once, above, and within 100 columns: validate's table without
# its columns nodes and cores (every run here has NODES and CORES); its
# exit status kept.
model_cmd() {
  "$REPORT" model "$@" > "$D/model-cmd.out" 2>&1
  mc_rc=$?
  sed -E -e '/^model /,/^P_max /d' -e '/^run( |-)/s/^(.{26}).{12}/\1/' \
    "$D/model-cmd.out" | wrap
  return $mc_rc
}

echo
echo "== b. calibrate"
echo "\$ pmon-report model calibrate --region run --idle idle-n${NODES}c$CORES.json -o model.json cal-*.json"
if ! "$REPORT" model calibrate --region run --idle "$D/idle-n${NODES}c$CORES.json" \
     -o "$D/model.json" "$D"/cal-*.json > "$D/calibrate.out" 2>&1; then
  cat "$D/calibrate.out"
  echo "model-demo: pmon-report model calibrate failed: no model to go on with" >&2
  exit 1
fi
wrap < "$D/calibrate.out"

echo
echo "== c. predict $NODES nodes x $CORES cores (tp needs --io-time: refused)"
echo "\$ pmon-report model predict model.json --nodes $NODES --cores $CORES --approach tp,dc:1,dn:1:1"
model_cmd predict "$D/model.json" --nodes $NODES --cores $CORES \
  --approach tp,dc:1,dn:1:1 ||
  echo "model-demo: (exit status $?: tp refused, as expected; the others ranked)"

echo
echo "== d. the approaches on $NODES nodes x $CORES cores, $REPEATS runs each"
for r in $(seq "$REPEATS"); do
  for a in tp dc:1 dn:1:1; do
    f=$(echo "$a" | tr -d :)
    run run-$f-r$r $NODES $CORES "$a" \
      "approach=$a,cores=$CORES,nodes=$NODES,repeat=$r"
  done
done
# The I/O time of the tp runs (MPI-IO, counted by the preload library):
# the longest node's I/O phases, averaged over the runs.
io=$(for r in $(seq "$REPEATS"); do
       tests/jget "$D/run-tp-r$r.json" io/phase_time_s
     done | awk '{ s += $1 } END { printf "%.3f", s / NR }')
echo
echo "\$ pmon-report model predict model.json --nodes $NODES --cores $CORES --approach tp,dc:1,dn:1:1 --io-time $io"
model_cmd predict "$D/model.json" --nodes $NODES --cores $CORES \
  --approach tp,dc:1,dn:1:1 --io-time "$io"

echo
echo "== e. validate, compare"
echo "\$ pmon-report model validate --region run model.json run-*.json   (all at $NODES x $CORES)"
model_cmd validate --region run "$D/model.json" "$D"/run-*.json
# The dedicated ranks' own CPU use, as iomodes measured it in the dc and
# dn runs: the model's generalisation takes it for the power of dedicated
# cores and nodes rather than the study's P_max and (P_idle + P_max) / 2.
busy=$(cat "$D"/run-dc*.out "$D"/run-dn*.out |
  sed -n 's/.*dedicated ranks busy \([0-9.]*\) %.*/\1/p' |
  awk '{ s += $1 } END { if (NR) printf "%.3f", s / NR / 100 }')
if [ -n "$busy" ]; then
  echo
  echo "\$ pmon-report model validate --region run --dedicated-busy $busy model.json run-*.json"
  model_cmd validate --region run --dedicated-busy "$busy" \
    "$D/model.json" "$D"/run-*.json
fi
# compare --by approach prints some 25 figures for each approach, 170
# columns wide; its CSV gives here the few that the model is about.
echo
echo "\$ pmon-report compare --by approach --csv run-*.json   (its main figures)"
"$REPORT" compare --by approach --csv "$D"/run-*.json | awk -F, '
  NR > 1 && $3 == "" {
    if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
    v[$1, $2] = $4; r[$1, $2] = $5; e[$1, $2] = $9; c[$1, $2] = $7; sig[$1, $2] = $10
  }
  END {
    printf "%-8s %4s %7s %20s %6s %8s %12s\n", "approach", "runs", "wall_s",
      "energy_j", "ratio", "power_w", "io_energy_j"
    for (i = 1; i <= n; i++) {
      g = order[i]
      printf "%-8s %4d %7.3f %11.1f +- %5.1f %6.3f %8.1f %12.1f%s\n", g, c[g, "energy_j"],
        v[g, "wall_s"], v[g, "energy_j"], e[g, "energy_j"], r[g, "energy_j"],
        v[g, "power_w"], v[g, "io_energy_j"],
        sig[g, "energy_j"] == "true" ? "  significant" : ""
    }
    print "+-: the mean'"'"'s 95 % Student-t interval plus the mean of the runs'"'"' bars;"
    print "ratio: to " order[1] "; a difference within the two bars is not significant"
  }'

# f. advise: the approach the model says costs least, with its bar, for
# the first tp run; then checked on the first run of that approach.
echo
echo "== f. advise on a tp run, checked on a run of the approach it names"
echo "\$ pmon-report advise --model model.json run-tp-r1.json"
"$REPORT" advise --model "$D/model.json" "$D/run-tp-r1.json" 2>&1 | wrap
a=$("$REPORT" advise --json --model "$D/model.json" "$D/run-tp-r1.json" \
      2> /dev/null | sed -n 's/.*tagged approach=\([^ ]*\) .*/\1/p' | head -n 1)
f=$(echo "$a" | tr -d :)
if [ -n "$a" ] && [ -s "$D/run-$f-r1.json" ]; then
  echo "\$ pmon-report advise --check --model model.json run-tp-r1.json run-$f-r1.json"
  "$REPORT" advise --check --model "$D/model.json" "$D/run-tp-r1.json" \
    "$D/run-$f-r1.json" > "$D/check.out" 2>&1
  rc=$?
  wrap < "$D/check.out"
  echo "model-demo: (exit status $rc: 0 when the prediction held, 3 when it missed)"
elif [ -n "$a" ]; then
  echo "model-demo: no run of $a here to check it on (the demo runs tp, dc:1 and dn:1:1)"
else
  echo "model-demo: no io-approach item: for this run, no other approach saves more than its bar"
fi

echo
echo "model-demo: the reports and the model are in $D"
