# bench/peers.sh - the tests' peers, playing external meters for the
# benchmarks; sourced by bench/region_sampled.sh and bench/sampler_cpu.sh,
# never run.  Run from the build directory, with srcdir set (make bench
# sets it).
#
# Each *_peer function is meant to be called in a subshell of its own:
# it sources the tests' helpers (tests/lib.sh gives a temporary directory
# $TMP and stops the peers when the subshell exits), starts the peer and
# sets METER to the meter's specification, which may hold a secret (the
# SNMP community, the BMC's password): never print it.  Where the driver
# was not built or the peer's program is missing, the tests' helpers print
# "SKIP: why" and end the subshell with status 77.
#
#   keithley_peer RATE     tests/keithley_emu, a Keithley 2701 on a
#                          pseudo-terminal; RATE readings a second (up to
#                          60), at 115200 baud
#   eaton_peer INTERVAL    snmpd playing an EATON ePDU (tests/eaton-lib.sh,
#                          tests/eaton-pass.sh); outlet 1, SNMP v2c
#   redfish_peer INTERVAL SCHEME   tests/redfish-peer.py, a BMC in Python
#                          with HTTP/1.1 keep-alive; EnvironmentMetrics
#                          PowerWatts (a sampled source); SCHEME http, or
#                          https with a self-signed certificate made by
#                          openssl and given as cacert=
#
# Every peer plays a constant 200 W: the benchmarks measure costs, not
# accuracy (the tests do that).

: "${srcdir:=.}" "${top_builddir:=.}"
# The optional drivers configure built, as make check tells the tests.
if [ -z "${PMON_TEST_DRIVERS:-}" ] && [ -f "$top_builddir/config.h" ]; then
  PMON_TEST_DRIVERS=$(sed -n 's/^#define PMON_HAVE_\([A-Z]*\) 1$/\1/p' \
    "$top_builddir/config.h" | tr 'A-Z' 'a-z' | tr '\n' ' ')
fi
export srcdir top_builddir PMON_TEST_DRIVERS
BENCH_WATTS=200

keithley_peer() {
  . "$srcdir/tests/keithley-lib.sh"
  emu kt const:$BENCH_WATTS
  # The whole period, as tests/keithley-accuracy.test gives at 60 a second
  # (0.0166 s), so that a loaded machine makes no reading fail.
  METER=$(uri kt "&rate=$1&baud=115200&timeout=$(awk -v r="$1" \
    'BEGIN { t = 1 / r; if (t > 1) t = 1; printf "%.4f", int(t * 1e4) / 1e4 }')")
}

eaton_peer() {
  . "$srcdir/tests/lib.sh"
  . "$srcdir/tests/eaton-lib.sh"
  cat > "$TMP/table" <<EOF
$OUTLET_COUNT.0 integer value 8
$OUTLET_WATTS.0.1 integer wave const:$BENCH_WATTS
$OUTLET_WH.0.1 gauge wh const:$BENCH_WATTS 5000
EOF
  eaton_agent "$TMP/table"
  METER="eaton://$COMMUNITY@127.0.0.1:$PORT/outlet/1?interval=$1"
}

redfish_peer() {
  . "$srcdir/tests/lib.sh"
  . "$srcdir/tests/redfish-lib.sh"
  ORIGIN=$("$WAVE" now)
  tls= extra=
  if [ "$2" = https ]; then
    command -v openssl >/dev/null 2>&1 ||
      skip "no openssl to make the peer's certificate"
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
      -addext subjectAltName=IP:127.0.0.1 -keyout "$TMP/key.pem" \
      -out "$TMP/cert.pem" > "$TMP/openssl.out" 2>&1 ||
      skip "openssl cannot make a certificate"
    tls="--cert $TMP/cert.pem --key $TMP/key.pem"
    extra="&cacert=$TMP/cert.pem"
  else
    extra="&scheme=http"
  fi
  # shellcheck disable=SC2086
  start_peer rf --offer power --wave const:$BENCH_WATTS $tls
  METER="redfish://$RF_USER:$RF_PASS@127.0.0.1:$PORT/1U?source=power&interval=$1$extra"
}
