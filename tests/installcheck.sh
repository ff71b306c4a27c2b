#!/bin/sh
# tests/installcheck.sh BINDIR INCLUDEDIR LIBDIR FMODDIR SRCDIR
# Build and run programs against an installed pmon: C with the installed
# header and library (and pkg-config), Fortran with the installed module;
# their regions must appear in the report.  Run by "make installcheck".
set -u
bindir=$1 includedir=$2 libdir=$3 fmoddir=$4 srcdir=$5
TMP=$(mktemp -d "${TMPDIR:-/tmp}/pmon-ic.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
export PMON_METERS=estimate PMON_QUIET=1

PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --exists pmon &&
  pass "pkg-config finds pmon" || fail "pkg-config pmon"
cflags=$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --cflags pmon)
case $cflags in *"$includedir"*) pass "pkg-config --cflags";;
  *) [ -z "$cflags" ] && pass "pkg-config --cflags (system dir)" ||
     fail "pkg-config --cflags: $cflags";; esac

if $MPICC -I"$includedir" -o "$TMP/ring" "$srcdir/examples/ring.c" \
     -L"$libdir" -Wl,-rpath,"$libdir" -lpmon -lm; then
  pass "C program builds against the installed pmon"
  PMON_OUTPUT=$TMP/c.json $MPIRUN_SH -n 2 "$TMP/ring" 2 1000 > /dev/null
  [ "$($JGET "$TMP/c.json" regions/name=compute/count)" = 4 ] &&
    pass "C regions in the report" || fail "C regions in the report"
else
  fail "C program does not build"
fi

if [ "$FORTRAN" = yes ]; then
  if $MPIFC -I"$fmoddir" -o "$TMP/freg" "$srcdir/tests/fortran_regions.f90" \
       -L"$libdir" -Wl,-rpath,"$libdir" -lpmonf -lpmon; then
    pass "Fortran 'use pmon' builds against the installed module"
    PMON_OUTPUT=$TMP/f.json $MPIRUN_SH -n 2 "$TMP/freg" > /dev/null
    [ "$($JGET "$TMP/f.json" regions/name=fsolve/count)" = 6 ] &&
      pass "Fortran regions in the report" ||
      fail "Fortran regions in the report"
  else
    fail "Fortran program does not build"
  fi
else
  echo "note: Fortran module not built, not checked"
fi

PMON_OUTPUT=$TMP/s.json "$bindir/pmon-run" -- sleep 0.2 2> "$TMP/err"
grep -q "cannot" "$TMP/err" && fail "pmon-run: $(cat "$TMP/err")" ||
  pass "installed pmon-run finds its preload library"
[ -s "$TMP/s.json" ] && pass "pmon-run report" || fail "pmon-run report"

# PMON_METERS=estimate: a reading, and exit 1 (no measured meter).
"$bindir/pmon-meters" -i 0.5 > "$TMP/meters" 2>&1
[ $? = 1 ] && grep -q "^  node total .* W (node, estimated)" "$TMP/meters" &&
  pass "installed pmon-meters reads the estimate" ||
  fail "pmon-meters: $(cat "$TMP/meters")"
# The Python package: installed in pythondir, it finds the library by the
# directory recorded at install (no PMON_LIBRARY), and its regions reach
# the report.
if [ "${PYTHON:-:}" = : ]; then
  echo "note: no Python found by configure: the package was not installed"
elif [ -n "${DESTDIR:-}" ]; then
  echo "note: DESTDIR set: the package's recorded directory is the final one, not checked"
else
  cat > "$TMP/r.py" <<'PY'
import pmon
pmon.init()
with pmon.region("pysolve"):
    pass
@pmon.region
def pystep():
    pass
pystep()
pystep()
print(pmon.library_path)
PY
  got=$(env -u PMON_LIBRARY PYTHONPATH="$PYTHONDIR" PMON_OUTPUT=$TMP/p.json \
    "$PYTHON" "$TMP/r.py" 2>&1)
  [ "$got" = "$libdir/libpmon.so.0" ] &&
    pass "the installed Python package loads $got" ||
    fail "the installed Python package: $got"
  [ "$($JGET "$TMP/p.json" regions/name=pystep/count)" = 2 ] &&
    pass "Python regions in the report" || fail "Python regions in the report"
fi
[ $failures = 0 ] || { echo "$failures installcheck(s) failed"; exit 1; }
