#!/bin/sh
# tests/loaded.sh - run a command while other processes keep the
# machine's cores busy, as on a developer's laptop or a shared CI runner:
#   sh tests/loaded.sh [-n BUSY] COMMAND [ARGS...]
# BUSY busy loops (default 2, PMON_LOAD_BUSY) run at the same priority as
# COMMAND for as long as it runs, and are stopped when it ends, fails or
# is interrupted.  Exits with COMMAND's status.  make check-loaded runs the
# test suite so.  COMMAND finds BUSY in PMON_TEST_LOAD.  With
# PMON_LOAD_AFTER=FILE the loops start once FILE exists: other work keeps
# the cores busy until then, and writes FILE when it ends (.ci/as-user:
# CI's builds beside the suite).
busy=${PMON_LOAD_BUSY:-2}
if [ "$1" = -n ] && [ -n "$2" ]; then
  busy=$2
  shift 2
fi
[ $# -gt 0 ] || { echo "usage: loaded.sh [-n BUSY] COMMAND [ARGS...]" >&2; exit 2; }
after=${PMON_LOAD_AFTER:-}
pids=
stop() {
  for p in $pids; do kill "$p" 2>/dev/null; done
  pids=
}
trap stop EXIT
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM
i=0
while [ "$i" -lt "$busy" ]; do
  if [ -n "$after" ]; then
    sh -c 'while [ ! -e "$1" ]; do sleep 1; done; while :; do :; done' sh "$after" &
  else
    sh -c 'while :; do :; done' &
  fi
  pids="$pids $!"
  i=$((i + 1))
done
echo "loaded.sh: $busy busy loops (pids$pids${after:+, from when $after exists}) while: $*"
# The tests that must say what a busy machine costs them read it here.
PMON_TEST_LOAD=$busy
export PMON_TEST_LOAD
"$@"
rc=$?
stop
exit $rc
