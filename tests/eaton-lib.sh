# tests/eaton-lib.sh - for the eaton driver's tests: net-snmp's snmpd
# playing an EATON ePDU on 127.0.0.1.  Sourced after lib.sh, never run.
#
#   eaton_agent TABLE
#       Start snmpd in the foreground with a private configuration under
#       $TMP, on a free UDP port of 127.0.0.1, its EATON MIB answered by
#       eaton-pass.sh from TABLE (see there; the waveforms start at
#       $ORIGIN).  Sets PORT, AGENT (its pid), PASSLOG (every value it
#       was asked for) and TAKEN (TAKEN.N: the instant and watts of each
#       value of outlet N answered).  Skips the test (77) without snmpd.
#   eaton_requests
#       How many GET requests the agent has answered (snmpInGetRequests),
#       this question included; empty without snmpget.
#
# What the agent takes: SNMP v1 and v2c with the community $COMMUNITY;
# SNMP v3 users pmon-priv (SHA, AES), pmon-des (MD5, DES), pmon-auth
# (SHA, no privacy) and pmon-noauth, with the passphrases $AUTH_PASS and
# $PRIV_PASS; pmon-noaccess authenticates (SHA) but may read nothing.
# A test may set these variables between sourcing this file and calling
# eaton_agent, and may put more snmpd.conf lines (more users, more
# communities) in EATON_CONF.

[ -x "$top_builddir/tests/eaton_read" ] ||
  skip "the eaton driver is not built (no net-snmp, or configure --without-eaton)"

EATON_READ=$top_builddir/tests/eaton_read
COMMUNITY=pmon-s3cret-c0mmunity
AUTH_PASS=pmon-auth-passphrase
PRIV_PASS=pmon-priv-passphrase
# The columns of EATON-EPDU-MIB the tests serve, before their indices.
EPDU=.1.3.6.1.4.1.534.6.6.7
OUTLET_COUNT=$EPDU.1.2.1.22
OUTLET_WATTS=$EPDU.6.5.1.3
OUTLET_WH=$EPDU.6.5.1.4
INPUT_TOTAL_WATTS=$EPDU.3.5.1.4
INPUT_TOTAL_WH=$EPDU.3.5.1.5
INPUT_MEAS_TYPE=$EPDU.3.4.1.2
INPUT_WATTS=$EPDU.3.4.1.4
ORIGIN=$("$WAVE" now)
AGENT=
EATON_CONF=

# A stopped agent takes no SIGTERM: wake it before lib.sh's cleanup.
eaton_cleanup() {
  [ -n "$AGENT" ] && kill -CONT "$AGENT" 2>/dev/null
  cleanup
}
trap eaton_cleanup EXIT

eaton_agent() {
  snmpd=${SNMPD:-}
  if [ -z "$snmpd" ]; then
    for d in "$(command -v snmpd 2>/dev/null)" /usr/sbin/snmpd \
             /usr/local/sbin/snmpd; do
      [ -n "$d" ] && [ -x "$d" ] && { snmpd=$d; break; }
    done
  fi
  [ -n "$snmpd" ] ||
    skip "no snmpd to play the PDU (Debian: apt-get install snmpd)"
  wave_abs=$(cd "$top_builddir" && pwd)/tests/wave
  pass=$(cd "$srcdir" && pwd)/tests/eaton-pass.sh
  PASSLOG=$TMP/pass.log
  TAKEN=$TMP/taken
  : > "$PASSLOG"
  mkdir -p "$TMP/snmpd"
  port=$((20000 + $$ % 20000))
  tries=0
  while [ $tries -lt 20 ]; do
    cat > "$TMP/snmpd.conf" <<EOF
agentaddress udp:127.0.0.1:$port
rocommunity $COMMUNITY 127.0.0.1
createUser pmon-priv SHA "$AUTH_PASS" AES "$PRIV_PASS"
createUser pmon-des MD5 "$AUTH_PASS" DES "$PRIV_PASS"
createUser pmon-auth SHA "$AUTH_PASS"
createUser pmon-noauth
createUser pmon-noaccess SHA "$AUTH_PASS"
rouser pmon-priv priv
rouser pmon-des priv
rouser pmon-auth auth
rouser pmon-noauth noauth
pass_persist $EPDU /bin/sh $pass $1 $PASSLOG $wave_abs $ORIGIN $TAKEN
$EATON_CONF
EOF
    # -f: foreground; -Lo: log to stdout; -C: no configuration but this
    # one; no MIB files; no SMUX or DisMan; persistent state under $TMP.
    SNMP_PERSISTENT_DIR=$TMP/snmpd "$snmpd" -f -Lo -C -c "$TMP/snmpd.conf" \
      -M /nonexistent -m "" -I -smux,mteTrigger,mteTriggerConf \
      > "$TMP/snmpd.out" 2>&1 &
    AGENT=$!
    i=0
    while [ $i -lt 100 ] && kill -0 "$AGENT" 2>/dev/null &&
          ! grep -q '^NET-SNMP version' "$TMP/snmpd.out"; do
      sleep 0.05
      i=$((i + 1))
    done
    if kill -0 "$AGENT" 2>/dev/null &&
       grep -q '^NET-SNMP version' "$TMP/snmpd.out"; then
      FEEDERS="$FEEDERS $AGENT"
      PORT=$port
      return 0
    fi
    kill "$AGENT" 2>/dev/null
    wait "$AGENT" 2>/dev/null
    AGENT=
    port=$((port + 1))
    tries=$((tries + 1))
  done
  echo "ERROR: snmpd does not start:"
  cat "$TMP/snmpd.out"
  exit 99
}

eaton_requests() {
  snmpget=$(command -v snmpget 2>/dev/null) || return 0
  SNMP_PERSISTENT_DIR=$TMP/snmpget "$snmpget" -v2c -c "$COMMUNITY" -Oqv \
    -M /nonexistent -m "" "127.0.0.1:$PORT" .1.3.6.1.2.1.11.15.0 2>/dev/null
}

# energy SPEC T0 T1: the exact joules of the waveform SPEC from T0 to T1.
energy() { wave_truth "$1" "$ORIGIN" "$2" "$3"; }

# has WHAT FILE TEXT: FILE holds TEXT (a fixed string).
has() {
  if grep -qF -- "$3" "$2"; then pass "$1"; else fail "$1: no \"$3\" in: $(cat "$2")"; fi
}
