# tests/hosts.sh - emulated hosts for the tests; sourced after
# tests/lib.sh, never run.
#
#   hosts_up N     makes the hosts h1 .. hN: each a network namespace with
#                  its own address (10.99.0.1I) on a private bridge, and a
#                  UTS namespace with its own host name (hI); skips (77)
#                  with the reason where they cannot be made.  The bridge
#                  and the launcher live in one more namespace, the head:
#                  nothing of this machine's own network is touched, so
#                  two tests may run at once.
#   on_head CMD    runs CMD in the head's network namespace (mpirun goes
#                  there: it reaches the hosts over TCP)
#   on_host I CMD  runs CMD on host hI (its network and host name)
#   hosts_down     kills what still runs on the hosts and removes them;
#                  the EXIT trap calls it, so a failing test cleans up too
#
# HOSTS_MPIRUN holds the launcher's options that launch on the hosts,
# ending with the option that takes the host list (h1:2,h2:2): for Open
# MPI's mpirun, its rsh launcher with an agent ($TMP/hosts-agent) that
# enters the host's namespaces instead of logging in, TCP between hosts on
# the bridge, shared memory within one; for MPICH's Hydra, its ssh
# launcher with the same agent, its control connections on the bridge.  A
# rank inherits the launcher's environment (the agent is a local process),
# so no -x or -genv is needed.
HOSTS_NS=pmon-$$
HOSTS_N=0
HOSTS_NET=10.99.0

hosts_up() {
  [ "$(id -u)" = 0 ] ||
    skip "emulated hosts need root (network and UTS namespaces)"
  for t in ip nsenter unshare; do
    command -v $t >/dev/null 2>&1 ||
      skip "emulated hosts need $t (Debian: iproute2, util-linux)"
  done
  trap 'hosts_down; cleanup' EXIT
  ip netns add "$HOSTS_NS-h0" 2>"$TMP/hosts.err" ||
    skip "cannot make a network namespace: $(head -1 "$TMP/hosts.err")"
  mkdir -p "$TMP/uts"
  ip -n "$HOSTS_NS-h0" link set lo up &&
    ip -n "$HOSTS_NS-h0" link add br0 type bridge &&
    ip -n "$HOSTS_NS-h0" addr add "$HOSTS_NET.1/24" dev br0 &&
    ip -n "$HOSTS_NS-h0" link set br0 up 2>"$TMP/hosts.err" ||
    skip "cannot make a bridge: $(head -1 "$TMP/hosts.err")"
  hu_i=1
  while [ "$hu_i" -le "$1" ]; do
    hu_ns=$HOSTS_NS-h$hu_i
    HOSTS_N=$hu_i
    { ip netns add "$hu_ns" &&
      ip -n "$hu_ns" link set lo up &&
      ip -n "$HOSTS_NS-h0" link add "v$hu_i" type veth peer name eth0 \
        netns "$hu_ns" &&
      ip -n "$HOSTS_NS-h0" link set "v$hu_i" master br0 up &&
      ip -n "$hu_ns" addr add "$HOSTS_NET.$((10 + hu_i))/24" dev eth0 &&
      ip -n "$hu_ns" link set eth0 up &&
      : > "$TMP/uts/h$hu_i" &&
      unshare --uts="$TMP/uts/h$hu_i" hostname "h$hu_i"
    } 2>"$TMP/hosts.err" ||
      skip "cannot make host h$hu_i: $(head -1 "$TMP/hosts.err")"
    hu_i=$((hu_i + 1))
  done
  # The launch agent: Open MPI and Hydra call it as "AGENT [OPTIONS] HOST
  # COMMAND" to start their daemon on HOST, as they would call ssh.
  cat > "$TMP/hosts-agent" <<EOF
#!/bin/sh
while [ \$# -gt 0 ]; do case \$1 in -*) shift ;; *) break ;; esac; done
h=\$1
shift
case \$h in
  h[0-9]*) i=\${h#h} ;;
  $HOSTS_NET.*) i=\$((\${h##*.} - 10)) ;;
  *) echo "hosts-agent: no host \$h" >&2; exit 255 ;;
esac
[ -e "$TMP/uts/h\$i" ] || { echo "hosts-agent: no host \$h" >&2; exit 255; }
exec nsenter --net=/run/netns/$HOSTS_NS-h\$i --uts="$TMP/uts/h\$i" -- \\
  /bin/sh -c "\$*"
EOF
  chmod +x "$TMP/hosts-agent"
  case $("$MPIRUN" --kind) in
    openmpi)
      HOSTS_MPIRUN="--mca plm_rsh_agent $TMP/hosts-agent
        --mca plm_rsh_no_tree_spawn 1 --mca btl self,vader,tcp
        --mca oob_tcp_if_include $HOSTS_NET.0/24
        --mca btl_tcp_if_include $HOSTS_NET.0/24 --host" ;;
    hydra)
      HOSTS_MPIRUN="-launcher ssh -launcher-exec $TMP/hosts-agent
        -iface br0 -hosts" ;;
    *) skip "emulated hosts: no way known to launch on them with $("$MPIRUN" --kind)" ;;
  esac
}

on_head() { ip netns exec "$HOSTS_NS-h0" "$@"; }

on_host() {
  oh_i=$1
  shift
  nsenter --net="/run/netns/$HOSTS_NS-h$oh_i" --uts="$TMP/uts/h$oh_i" -- "$@"
}

hosts_down() {
  hd_i=$HOSTS_N
  while [ "$hd_i" -ge 0 ]; do
    hd_ns=$HOSTS_NS-h$hd_i
    if [ -e "/run/netns/$hd_ns" ]; then
      hd_p=$(ip netns pids "$hd_ns" 2>/dev/null)
      [ -n "$hd_p" ] && kill -KILL $hd_p 2>/dev/null
      ip netns del "$hd_ns" 2>/dev/null
    fi
    [ -e "$TMP/uts/h$hd_i" ] && umount "$TMP/uts/h$hd_i" 2>/dev/null
    hd_i=$((hd_i - 1))
  done
  HOSTS_N=0
}
