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
AC_DEFUN([PMON_CHECK_MPI], [
  AC_MSG_CHECKING([whether $CC builds MPI programs])
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]],
      [[int f; MPI_Initialized(&f); return MPI_VERSION < 3;]])],
    [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([pmon needs an MPI-3 library: install Open MPI (Debian:
libopenmpi-dev openmpi-bin) or set CC to your MPI compiler wrapper])])
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

# PMON_SANITIZE: --enable-sanitizers builds everything with ASan + UBSan.
AC_DEFUN([PMON_SANITIZE], [
  AC_ARG_ENABLE([sanitizers],
    [AS_HELP_STRING([--enable-sanitizers],
                    [build with AddressSanitizer and UndefinedBehaviorSanitizer])],
    [], [enable_sanitizers=no])
  AS_IF([test "x$enable_sanitizers" = xyes], [
    SAN_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
    CFLAGS="$CFLAGS $SAN_FLAGS"
    FCFLAGS="$FCFLAGS $SAN_FLAGS"
    LDFLAGS="$LDFLAGS $SAN_FLAGS"])
  AM_CONDITIONAL([ENABLE_SANITIZERS], [test "x$enable_sanitizers" = xyes])
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
