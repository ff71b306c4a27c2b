# tests/redfish-lib.sh - helpers for the redfish driver's tests; sourced
# after tests/lib.sh, never run.  The peer is tests/redfish-peer.py, a
# Redfish BMC on 127.0.0.1 whose readings follow a tests/wave waveform.
need_driver redfish
command -v python3 >/dev/null 2>&1 ||
  skip "python3 is not installed: no Redfish peer to test against"
python3 -c 'import http.server, ssl, json' 2>/dev/null ||
  skip "python3 lacks http.server, ssl or json: no Redfish peer"
PEER=$srcdir/tests/redfish-peer.py
# Credentials of the peers: the tests look for them in every output.
RF_USER=rfadmin7x
RF_PASS='Pw-9kq3ZT'

# start_peer NAME [PEER ARGS]: start a peer that keeps its files in
# $TMP/NAME.* (NAME.taken: each reading's instant, --taken), requires
# $RF_USER and $RF_PASS, and follows its waveforms from $ORIGIN; wait
# until it listens.  Sets PORT and PEER_PID.
start_peer() {
  name=$1; shift
  rm -f "$TMP/$name.port"
  python3 "$PEER" --port-file "$TMP/$name.port" \
    --count-file "$TMP/$name.count" --taken "$TMP/$name.taken" \
    --origin "$ORIGIN" \
    --user "$RF_USER" --password "$RF_PASS" "$@" 2> "$TMP/$name.err" &
  PEER_PID=$!
  FEEDERS="$FEEDERS $PEER_PID"
  i=0
  while [ ! -s "$TMP/$name.port" ] && [ $i -lt 200 ]; do
    sleep 0.05; i=$((i + 1))
  done
  if [ ! -s "$TMP/$name.port" ]; then
    cat "$TMP/$name.err"
    fail "the Redfish peer $name did not start"
    finish
  fi
  PORT=$(cat "$TMP/$name.port")
}

# truth SPEC T0_NS T1_NS: the waveform's exact joules from T0 to T1.
truth() { wave_truth "$1" "$ORIGIN" "$2" "$3"; }

# check_node WHAT REPORT SPEC [CHANNEL]: the node energy (or CHANNEL's)
# within the node's own bar of the truth over the node's monotonic span
# (wave_node_near): a host held up through every try of an end's read
# stamps it off by up to half the read, which the bar holds (CI once
# read a 0.5 s job 1.1 % low so).
check_node() {
  WAVE_TRACE=$(leader_trace "${2%.json}.rec")
  wave_node_near "$1" "$2" "$3" "$ORIGIN" "${4:-}"
}

# check_regions WHAT REPORT OUTPUT SPEC: each region that OUTPUT (of
# wave_regions) lists within its own bar of the truth between its
# instants (wave_regions_near).
check_regions() {
  WAVE_TRACE=$(leader_trace "${2%.json}.rec")
  wave_regions_near "$1" "$2" "$3" "$4" "$ORIGIN"
}

# check_elapsed WHAT OUTPUT SECONDS: wave_regions' elapsed within 1.5 s.
check_elapsed() { wave_elapsed_near "$@"; }

# no_secret WHAT FILE...: neither credential appears in the files.
no_secret() {
  what=$1; shift
  if cat "$@" | grep -q -e "$RF_USER" -e "$RF_PASS"; then
    fail "$what: a credential appears in $*"
  else
    pass "$what: no credential in the output"
  fi
}
