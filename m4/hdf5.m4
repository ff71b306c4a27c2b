# m4/hdf5.m4 - parallel HDF5, for the example examples/h5vpic.

# PMON_CHECK_HDF5: look for an HDF5 built with MPI-IO (H5Pset_fapl_mpio)
# that $CC builds and links programs with.  The flags come from
# HDF5_CFLAGS and HDF5_LIBS when they are given, else from the pkg-config
# module of the MPI that $CC uses, hdf5-openmpi or hdf5-mpich (Debian and
# Ubuntu: libhdf5-openmpi-dev, libhdf5-mpich-dev), else from what the
# wrapper h5pcc shows (H5PCC names another): an HDF5 built on another MPI
# would load two MPI libraries into one program.  --without-hdf5
# skips the search; --with-hdf5 makes not finding it an error; the default
# is to use it when it is there.  Substitutes HDF5_CFLAGS and HDF5_LIBS,
# sets have_hdf5 to yes or no, and defines the conditional HAVE_HDF5.
# Needs PKG_PROG_PKG_CONFIG and PMON_CHECK_MPI.
AC_DEFUN([PMON_CHECK_HDF5], [
  AC_REQUIRE([PKG_PROG_PKG_CONFIG])
  AC_REQUIRE([PMON_CHECK_MPI])
  AC_ARG_WITH([hdf5],
    [AS_HELP_STRING([--with-hdf5@<:@=yes|no@:>@],
      [build the parallel HDF5 example h5vpic @<:@default: when parallel
       HDF5 is found@:>@])],
    [], [with_hdf5=check])
  AC_ARG_VAR([H5PCC], [parallel HDF5 compiler wrapper, to take flags from])
  have_hdf5=no
  AS_CASE([$with_hdf5],
    [no], [],
    [yes|check], [_PMON_HDF5_FLAGS
      AS_IF([test "x$pmon_hdf5_from" != x], [
        AC_MSG_CHECKING([for parallel HDF5 with $pmon_hdf5_from])
        pmon_save_CFLAGS=$CFLAGS
        pmon_save_LIBS=$LIBS
        CFLAGS="$CFLAGS $HDF5_CFLAGS"
        LIBS="$HDF5_LIBS $LIBS"
        AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>
#include <hdf5.h>
#ifndef H5_HAVE_PARALLEL
#error HDF5 without MPI-IO
#endif]],
            [[hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  return H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL) < 0;]])],
          [have_hdf5=yes])
        CFLAGS=$pmon_save_CFLAGS
        LIBS=$pmon_save_LIBS
        AC_MSG_RESULT([$have_hdf5])])
      AS_IF([test "x$have_hdf5$with_hdf5" = xnoyes],
        [AC_MSG_ERROR([--with-hdf5: no parallel HDF5 that $CC can use: install
it (Debian: libhdf5-$pmon_mpi_family-dev) or set HDF5_CFLAGS and HDF5_LIBS])])],
    [AC_MSG_ERROR([--with-hdf5=$with_hdf5: say yes or no])])
  AS_IF([test "x$have_hdf5" = xno], [HDF5_CFLAGS= HDF5_LIBS=])
  AC_SUBST([HDF5_CFLAGS])
  AC_SUBST([HDF5_LIBS])
  AM_CONDITIONAL([HAVE_HDF5], [test "x$have_hdf5" = xyes])
])

# _PMON_HDF5_FLAGS: set HDF5_CFLAGS and HDF5_LIBS, and pmon_hdf5_from to
# where they came from (empty when nothing was found).
AC_DEFUN([_PMON_HDF5_FLAGS], [
  pmon_hdf5_from=
  AS_IF([test "x$HDF5_CFLAGS$HDF5_LIBS" != x],
    [pmon_hdf5_from="HDF5_CFLAGS and HDF5_LIBS"],
    [pmon_hdf5_mod=hdf5-$pmon_mpi_family
     AS_IF([test "x$pmon_mpi_family" = xother], [pmon_hdf5_mod=hdf5-mpi])
     PKG_CHECK_MODULES([HDF5], [$pmon_hdf5_mod],
      [pmon_hdf5_from="pkg-config $pmon_hdf5_mod"],
      [AC_PATH_PROGS([H5PCC], [h5pcc.$pmon_mpi_family h5pcc], [])
       AS_IF([test -n "$H5PCC"], [
         pmon_hdf5_show=`$H5PCC -show -shlib 2>/dev/null` ||
           pmon_hdf5_show=`$H5PCC -show 2>/dev/null` || pmon_hdf5_show=
         # The first word is the compiler; keep the preprocessor flags
         # and the linker's.
         pmon_hdf5_first=yes
         for pmon_w in $pmon_hdf5_show; do
           AS_IF([test $pmon_hdf5_first = yes], [pmon_hdf5_first=no], [
             AS_CASE([$pmon_w],
               [-I*|-D*|-U*], [HDF5_CFLAGS="$HDF5_CFLAGS $pmon_w"],
               [-L*|-l*|-Wl,*|-pthread|*.a|*.so|*.so.*],
                 [HDF5_LIBS="$HDF5_LIBS $pmon_w"])])
         done
         AS_IF([test "x$HDF5_LIBS" != x],
           [pmon_hdf5_from="$H5PCC -show"])])])])
])
