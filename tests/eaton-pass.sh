#!/bin/sh
# eaton-pass.sh - the EATON ePDU that the eaton driver's tests talk to: a
# pass_persist program for net-snmp's snmpd, which hands it every request
# under 1.3.6.1.4.1.534.6.6.7 (snmpd.conf(5), "pass_persist").
#
#   eaton-pass.sh TABLE LOG WAVE ORIGIN_NS [TAKEN]
#
# TABLE has one line per object, "OID TYPE HOW [ARG...]":
#   OID    numeric, with a leading dot
#   TYPE   integer, gauge, counter or string, as pass_persist names them
#   HOW    value V         the value V
#          wave SPEC       watts now of the waveform SPEC (tests/wave),
#                          started at ORIGIN_NS, rounded to whole watts
#          wh SPEC BASE    BASE + the waveform's energy from ORIGIN_NS to
#                          now in whole watt-hours
# An OID not in TABLE does not exist (noSuchInstance to a GET).  Each GET
# and GETNEXT is appended to LOG as "get OID" or "getnext OID", one line
# per value asked: snmpd hands over the values of one request one at a
# time.  WAVE is the path of tests/wave.  With TAKEN, each value of a
# "wave" object answered is appended to TAKEN.N, N the OID's last
# number (an outlet's), as "NS WATTS": the instant it was taken and the
# whole watts answered (a test holds the driver's stamps to it).
table=$1 log=$2 wave=$3 origin=$4 taken=${5:-}

# The table in OID order, for GETNEXT.
keys=
i=2
while [ $i -le 30 ]; do keys="$keys -k$i,${i}n"; i=$((i + 1)); done
# shellcheck disable=SC2086
sorted=$(grep '^\.' "$table" | sort -t. $keys)

# oid_gt A B: whether OID A comes after OID B.
oid_gt() {
  a=${1#.} b=${2#.}
  while :; do
    [ -z "$b" ] && { [ -n "$a" ]; return; }
    [ -z "$a" ] && return 1
    x=${a%%.*} y=${b%%.*}
    [ "$x" -gt "$y" ] && return 0
    [ "$x" -lt "$y" ] && return 1
    case $a in *.*) a=${a#*.} ;; *) a= ;; esac
    case $b in *.*) b=${b#*.} ;; *) b= ;; esac
  done
}

# answer OID TYPE HOW [ARG...]: the three lines of a value.
answer() {
  oid=$1 type=$2 how=$3
  case $how in
    value) v=$4 ;;
    wave)
      tw=$("$wave" taken "$4" "$origin")
      v=$(printf '%.0f' "${tw#* }")
      [ -z "$taken" ] || echo "${tw% *} $v" >> "$taken.${oid##*.}" ;;
    wh)
      e=$("$wave" energy "$4" "$origin" "$origin" "$("$wave" now)")
      v=$(($5 + ${e%.*} / 3600)) ;;
    *) echo NONE; return ;;
  esac
  printf '%s\n%s\n%s\n' "$oid" "$type" "$v"
}

while read -r cmd; do
  case $cmd in
    PING) echo PONG ;;
    get)
      read -r oid
      echo "get $oid" >> "$log"
      line=
      while read -r l; do
        case $l in "$oid "*) line=$l; break ;; esac
      done <<EOF
$sorted
EOF
      if [ -n "$line" ]; then
        # shellcheck disable=SC2086
        answer $line
      else
        echo NONE
      fi ;;
    getnext)
      read -r oid
      echo "getnext $oid" >> "$log"
      found=
      while read -r line; do
        if oid_gt "${line%% *}" "$oid"; then found=$line; break; fi
      done <<EOF
$sorted
EOF
      if [ -n "$found" ]; then
        # shellcheck disable=SC2086
        answer $found
      else
        echo NONE
      fi ;;
    set)
      read -r oid
      read -r value
      echo not-writable ;;
    *) exit 0 ;;
  esac
done
