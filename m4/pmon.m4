# m4/pmon.m4 - pmon's own configure macros.

# PMON_PROG_MPI: default CC and FC to the MPI wrappers when unset.
AC_DEFUN([PMON_PROG_MPI], [
  AC_ARG_VAR([MPICC], [MPI C compiler wrapper])
  AC_ARG_VAR([MPIFC], [MPI Fortran compiler wrapper])
  AS_IF([test -z "$CC"], [
    AC_CHECK_PROGS([MPICC], [mpicc], [])
    AS_IF([test -n "$MPICC"], [CC=$MPICC])])
  AS_IF([test -z "$FC"], [
    AC_CHECK_PROGS([MPIFC], [mpifort mpif90], [])
    AS_IF([test -n "$MPIFC"], [FC=$MPIFC])])
])

# PMON_CHECK_MPI: the C compiler must compile and link an MPI program.
# Sets pmon_mpi_family to the MPI its mpi.h belongs to: openmpi, mpich
# (MPICH and the MPIs built on it: Cray MPICH, Intel MPI, MVAPICH), or
# other; and pmon_mpi_name to the name and version for the summary.
AC_DEFUN([PMON_CHECK_MPI], [
  AC_MSG_CHECKING([whether $CC builds MPI programs])
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]],
      [[int f; MPI_Initialized(&f); return MPI_VERSION < 3;]])],
    [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([pmon needs an MPI-3 library: install Open MPI (Debian:
libopenmpi-dev openmpi-bin) or MPICH (mpich libmpich-dev), or set CC to
your MPI compiler wrapper])])
  AC_MSG_CHECKING([which MPI $CC uses])
  AC_COMPUTE_INT([pmon_v], [MPI_VERSION], [[#include <mpi.h>]], [pmon_v=3])
  pmon_mpi_family=other pmon_mpi_name="an MPI-$pmon_v library"
  AC_COMPUTE_INT([pmon_v], [OMPI_MAJOR_VERSION * 10000 +
                  OMPI_MINOR_VERSION * 100 + OMPI_RELEASE_VERSION],
    [[#include <mpi.h>]], [pmon_v=])
  AS_IF([test -n "$pmon_v"],
    [pmon_mpi_family=openmpi
     pmon_mpi_name="Open MPI `expr $pmon_v / 10000`.`expr $pmon_v / 100 % 100`.`expr $pmon_v % 100`"],
    [# MPICH_NUMVERSION is MAJOR*10000000 + MINOR*100000 + REVISION*1000 + ...
     AC_COMPUTE_INT([pmon_v], [MPICH_NUMVERSION], [[#include <mpi.h>]],
       [pmon_v=])
     AS_IF([test -n "$pmon_v"],
       [pmon_mpi_family=mpich
        pmon_mpi_name="MPICH `expr $pmon_v / 10000000`.`expr $pmon_v / 100000 % 100`.`expr $pmon_v / 1000 % 100`"])])
  AC_MSG_RESULT([$pmon_mpi_name])
  PMON_MPI_FAMILY=$pmon_mpi_family
  AC_SUBST([PMON_MPI_FAMILY])
])

# PMON_PROG_MPIEXEC: the launcher of the MPI that $CC builds with, in
# MPIEXEC, and its kind in MPIEXEC_KIND (openmpi, hydra, srun or other):
#  - MPIEXEC when the user sets it (MPIRUN, its older name, too);
#  - else beside the compiler wrapper, under the name that goes with it
#    (mpicc.mpich: mpiexec.mpich; mpicc in /opt/mpich/bin:
#    /opt/mpich/bin/mpiexec), the wrapper followed through its links
#    (Debian's alternatives) as well;
#  - else in PREFIX/bin of the library directories that the wrapper itself
#    reports (-showme:libdirs for Open MPI, -show for MPICH);
#  - else mpiexec, mpirun or srun in PATH.
# A launcher found rather than given is taken only when its --version
# says it belongs to the same MPI family as mpi.h: Open MPI's mpirun
# cannot start MPICH's ranks.  Needs PMON_CHECK_MPI.
AC_DEFUN([PMON_PROG_MPIEXEC], [
  AC_REQUIRE([PMON_CHECK_MPI])
  AC_ARG_VAR([MPIEXEC], [MPI launcher used by the tests and the demo
    @<:@found from the MPI compiler wrapper@:>@])
  AC_ARG_VAR([MPIRUN], [older name of MPIEXEC])
  AS_IF([test -z "$MPIEXEC" && test -n "$MPIRUN"], [MPIEXEC=$MPIRUN])
  MPIEXEC_FROM=
  AS_CASE([$pmon_mpi_family],
    [openmpi], [pmon_names="mpirun mpiexec"],
    [mpich], [pmon_names="mpiexec mpiexec.hydra mpirun"],
    [pmon_names="mpiexec mpirun"])
  AS_IF([test -n "$MPIEXEC"],
    [_PMON_MPIEXEC_KIND([$MPIEXEC])
     MPIEXEC_FROM="MPIEXEC"],
    [pmon_cc=`set dummy $CC; echo $[]2`
     pmon_cc_path=`command -v "$pmon_cc" 2>/dev/null` || pmon_cc_path=
     pmon_dirs=
     AS_IF([test -n "$pmon_cc_path"], [
       pmon_real=`readlink -f "$pmon_cc_path" 2>/dev/null` ||
         pmon_real=$pmon_cc_path
       for pmon_p in "$pmon_cc_path" "$pmon_real"; do
         pmon_base=`basename "$pmon_p"`
         pmon_dir=`dirname "$pmon_p"`
         # mpicc.mpich: .mpich; mpicc-4.1: -4.1; mpicc: nothing
         pmon_sfx=`echo "$pmon_base" | sed -n 's/^mpi@<:@a-z@:>@*cc//p'`
         for pmon_n in $pmon_names; do
           AS_IF([test -n "$pmon_sfx"],
             [pmon_dirs="$pmon_dirs $pmon_dir/$pmon_n$pmon_sfx"])
           pmon_dirs="$pmon_dirs $pmon_dir/$pmon_n"
         done
       done])
     _PMON_MPIEXEC_FIRST([$pmon_dirs], [beside $pmon_cc])
     AS_IF([test -z "$MPIEXEC"], [
       pmon_show=`$pmon_cc -showme:libdirs 2>/dev/null` ||
         pmon_show=`$pmon_cc -show 2>/dev/null` || pmon_show=
       pmon_dirs=
       for pmon_w in $pmon_show; do
         pmon_w=`echo "$pmon_w" | sed 's/^-L//'`
         AS_CASE([$pmon_w], [/*], [
           for pmon_n in $pmon_names; do
             pmon_dirs="$pmon_dirs `dirname "$pmon_w"`/bin/$pmon_n"
           done])
       done
       _PMON_MPIEXEC_FIRST([$pmon_dirs], [from $pmon_cc's own flags])])
     AS_IF([test -z "$MPIEXEC"], [
       pmon_dirs=
       for pmon_n in $pmon_names srun; do
         pmon_p=`command -v $pmon_n 2>/dev/null` &&
           pmon_dirs="$pmon_dirs $pmon_p"
       done
       _PMON_MPIEXEC_FIRST([$pmon_dirs], [in PATH])])])
  AC_MSG_CHECKING([for the MPI launcher])
  AS_IF([test -n "$MPIEXEC"],
    [AC_MSG_RESULT([$MPIEXEC ($MPIEXEC_KIND, $MPIEXEC_FROM)])],
    [AC_MSG_RESULT([none: the MPI tests and the demo are skipped; set MPIEXEC])])
  AC_SUBST([MPIEXEC])
  AC_SUBST([MPIEXEC_KIND])
])

# _PMON_MPIEXEC_KIND(PROG): MPIEXEC_KIND from what PROG --version says;
# srun by its name (without a slurm.conf, srun --version only fails).
AC_DEFUN([_PMON_MPIEXEC_KIND], [
  pmon_ver=`$1 --version 2>&1 < /dev/null | head -n 5`
  AS_CASE([$1], [srun|*/srun|srun\ *|*/srun\ *], [pmon_ver=slurm])
  AS_CASE([$pmon_ver],
    [*"Open MPI"*|*OpenRTE*|*PRRTE*], [MPIEXEC_KIND=openmpi],
    [*HYDRA*|*Hydra*], [MPIEXEC_KIND=hydra],
    [*slurm*], [MPIEXEC_KIND=srun],
    [MPIEXEC_KIND=other])
])

# _PMON_MPIEXEC_FIRST(PATHS, FROM): MPIEXEC to the first executable of
# PATHS whose kind fits pmon_mpi_family; MPIEXEC_FROM to FROM.  Launchers
# of another MPI are named in a warning.
AC_DEFUN([_PMON_MPIEXEC_FIRST], [
  for pmon_p in $1; do
    test -z "$MPIEXEC" && test -f "$pmon_p" && test -x "$pmon_p" || continue
    _PMON_MPIEXEC_KIND([$pmon_p])
    AS_CASE([$pmon_mpi_family/$MPIEXEC_KIND],
      [openmpi/hydra|mpich/openmpi],
        [AC_MSG_WARN([$pmon_p is another MPI's launcher ($MPIEXEC_KIND), not $pmon_mpi_name's: not used])],
      [MPIEXEC=$pmon_p MPIEXEC_FROM="$2"])
  done
])

# PMON_FORTRAN: build the Fortran module when an MPI-capable Fortran
# compiler is there, unless --disable-fortran.
AC_DEFUN([PMON_FORTRAN], [
  AC_ARG_ENABLE([fortran],
    [AS_HELP_STRING([--disable-fortran], [do not build the Fortran module])],
    [], [enable_fortran=check])
  AS_IF([test "x$enable_fortran" != xno], [
    AS_IF([test -n "$FC"], [
      AC_LANG_PUSH([Fortran])
      AC_MSG_CHECKING([whether $FC builds programs with use mpi])
      AC_LINK_IFELSE([AC_LANG_PROGRAM([], [[      use mpi]])],
        [pmon_fc_ok=yes], [pmon_fc_ok=no])
      AC_MSG_RESULT([$pmon_fc_ok])
      AC_LANG_POP([Fortran])],
      [pmon_fc_ok=no])
    AS_IF([test "x$pmon_fc_ok" = xyes], [enable_fortran=yes],
      [AS_IF([test "x$enable_fortran" = xyes],
             [AC_MSG_ERROR([--enable-fortran: no MPI Fortran compiler])])
       enable_fortran=no])])
  AC_SUBST([enable_fortran])
  AM_CONDITIONAL([ENABLE_FORTRAN], [test "x$enable_fortran" = xyes])
])

# PMON_WARNINGS: the warnings the code is kept clean of.
AC_DEFUN([PMON_WARNINGS], [
  PMON_CFLAGS=
  for flag in -Wall -Wextra -Wshadow -Wstrict-prototypes \
              -Wmissing-prototypes -Wformat=2 -Wno-unused-parameter; do
    PMON_CHECK_CFLAG([$flag], [PMON_CFLAGS="$PMON_CFLAGS $flag"])
  done
  AC_SUBST([PMON_CFLAGS])
])

# PMON_SANITIZE: --enable-sanitizers builds everything with ASan + UBSan,
# --enable-sanitizers=thread with ThreadSanitizer (they do not mix).
AC_DEFUN([PMON_SANITIZE], [
  AC_ARG_ENABLE([sanitizers],
    [AS_HELP_STRING([--enable-sanitizers@<:@=thread@:>@],
                    [build with AddressSanitizer and UndefinedBehaviorSanitizer, or with ThreadSanitizer])],
    [], [enable_sanitizers=no])
  AS_CASE([$enable_sanitizers],
    [yes], [SAN_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"],
    [thread], [SAN_FLAGS="-fsanitize=thread -fno-omit-frame-pointer"],
    [no], [SAN_FLAGS=],
    [AC_MSG_ERROR([--enable-sanitizers=$enable_sanitizers: yes, thread or no])])
  AS_IF([test -n "$SAN_FLAGS"], [
    CFLAGS="$CFLAGS $SAN_FLAGS"
    FCFLAGS="$FCFLAGS $SAN_FLAGS"
    LDFLAGS="$LDFLAGS $SAN_FLAGS"])
  AM_CONDITIONAL([ENABLE_SANITIZERS], [test "x$enable_sanitizers" != xno])
])

# PMON_VISIBILITY: export only what PMON_EXTERN marks.
AC_DEFUN([PMON_VISIBILITY], [
  PMON_VISIBILITY_CFLAGS=
  PMON_CHECK_CFLAG([-fvisibility=hidden],
    [PMON_VISIBILITY_CFLAGS=-fvisibility=hidden])
  AC_SUBST([PMON_VISIBILITY_CFLAGS])
])

# PMON_CHECK_CFLAG(FLAG, ACTION-IF-ACCEPTED): whether $CC takes FLAG
# without a warning.
AC_DEFUN([PMON_CHECK_CFLAG], [
  AC_MSG_CHECKING([whether $CC accepts $1])
  pmon_save_CFLAGS=$CFLAGS
  CFLAGS="$CFLAGS -Werror $1"
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
    [AC_MSG_RESULT([yes])
     $2], [AC_MSG_RESULT([no])])
  CFLAGS=$pmon_save_CFLAGS
])

# PMON_PTHREAD: threads, with -pthread where the compiler takes it.
AC_DEFUN([PMON_PTHREAD], [
  PMON_CHECK_CFLAG([-pthread], [PTHREAD_CFLAGS=-pthread])
  pmon_save_LIBS=$LIBS
  LIBS="$LIBS $PTHREAD_CFLAGS"
  AC_SEARCH_LIBS([pthread_create], [pthread], [],
    [AC_MSG_ERROR([pmon needs POSIX threads])])
  PTHREAD_LIBS="$PTHREAD_CFLAGS ${LIBS#$pmon_save_LIBS $PTHREAD_CFLAGS}"
  LIBS=$pmon_save_LIBS
  AC_SUBST([PTHREAD_CFLAGS])
  AC_SUBST([PTHREAD_LIBS])
])
