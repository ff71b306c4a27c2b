# m4/libpfm.m4 - libpfm4, which the rapl driver may use to encode its perf
# events (drivers/rapl.c).

# PMON_CHECK_LIBPFM: look for libpfm4, its header
# perfmon/pfmlib_perf_event.h and pfm_get_os_event_encoding() in -lpfm
# (Debian and Ubuntu: libpfm4-dev).  The rapl driver is built either way:
# without libpfm4 it takes the perf encoding of its events from sysfs
# alone.  --without-libpfm does not look; --with-libpfm makes not finding
# it an error; the default is to use it when it is there.  Substitutes
# LIBPFM_LIBS, sets have_libpfm to yes or no, defines PMON_HAVE_LIBPFM.
AC_DEFUN([PMON_CHECK_LIBPFM], [
  AC_ARG_WITH([libpfm],
    [AS_HELP_STRING([--with-libpfm@<:@=yes|no@:>@],
      [encode the rapl driver's perf events with libpfm4 @<:@default: when
       libpfm4 is found@:>@])],
    [], [with_libpfm=check])
  have_libpfm=no
  LIBPFM_LIBS=
  AS_CASE([$with_libpfm],
    [no], [],
    [yes|check], [
      AC_CHECK_HEADER([perfmon/pfmlib_perf_event.h],
        [AC_CHECK_LIB([pfm], [pfm_get_os_event_encoding],
           [have_libpfm=yes LIBPFM_LIBS=-lpfm])])
      AS_IF([test "x$have_libpfm$with_libpfm" = xnoyes],
        [AC_MSG_ERROR([--with-libpfm: no libpfm4: install it (Debian:
libpfm4-dev) or say --without-libpfm])])],
    [AC_MSG_ERROR([--with-libpfm=$with_libpfm: say yes or no])])
  AS_IF([test "x$have_libpfm" = xyes],
    [AC_DEFINE([PMON_HAVE_LIBPFM], [1],
       [Define to 1 to encode the rapl driver's perf events with libpfm4.])])
  AC_SUBST([LIBPFM_LIBS])
])
