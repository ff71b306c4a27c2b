# m4/netsnmp.m4 - net-snmp, for the eaton driver (EATON ePDUs over SNMP).

# PMON_CHECK_EATON: look for a net-snmp library that $CC builds and links
# programs with (the single-session API, snmp_sess_open).  The flags come
# from NETSNMP_CFLAGS and NETSNMP_LIBS when they are given, else from the
# pkg-config module netsnmp (Debian and Ubuntu: libsnmp-dev), else from
# net-snmp-config --base-cflags and --netsnmp-libs.  --without-eaton skips
# the search; --with-eaton makes not finding it an error; the default is to
# build the driver when net-snmp is there.  Substitutes NETSNMP_CFLAGS and
# NETSNMP_LIBS, sets have_eaton to yes or no, defines PMON_HAVE_EATON and
# the conditional HAVE_EATON.  Needs PKG_PROG_PKG_CONFIG.
AC_DEFUN([PMON_CHECK_EATON], [
  AC_REQUIRE([PKG_PROG_PKG_CONFIG])
  AC_ARG_WITH([eaton],
    [AS_HELP_STRING([--with-eaton@<:@=yes|no@:>@],
      [build the eaton meter driver (EATON ePDUs over SNMP), which needs
       net-snmp @<:@default: when net-snmp is found@:>@])],
    [], [with_eaton=check])
  AC_ARG_VAR([NET_SNMP_CONFIG], [net-snmp-config, to take flags from])
  have_eaton=no
  AS_CASE([$with_eaton],
    [no], [],
    [yes|check], [_PMON_NETSNMP_FLAGS
      AS_IF([test "x$pmon_netsnmp_from" != x], [
        AC_MSG_CHECKING([for net-snmp with $pmon_netsnmp_from])
        pmon_save_CFLAGS=$CFLAGS
        pmon_save_LIBS=$LIBS
        CFLAGS="$CFLAGS $NETSNMP_CFLAGS"
        LIBS="$NETSNMP_LIBS $LIBS"
        AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>]],
            [[netsnmp_session s;
  snmp_sess_init(&s);
  return snmp_sess_open(&s) != NULL;]])],
          [have_eaton=yes])
        CFLAGS=$pmon_save_CFLAGS
        LIBS=$pmon_save_LIBS
        AC_MSG_RESULT([$have_eaton])])
      AS_IF([test "x$have_eaton$with_eaton" = xnoyes],
        [AC_MSG_ERROR([--with-eaton: no net-snmp that $CC can use: install
it (Debian: libsnmp-dev) or set NETSNMP_CFLAGS and NETSNMP_LIBS])])],
    [AC_MSG_ERROR([--with-eaton=$with_eaton: say yes or no])])
  AS_IF([test "x$have_eaton" = xyes],
    [AC_DEFINE([PMON_HAVE_EATON], [1],
       [Define to 1 to build the eaton meter driver (net-snmp).])],
    [NETSNMP_CFLAGS= NETSNMP_LIBS=])
  AC_SUBST([NETSNMP_CFLAGS])
  AC_SUBST([NETSNMP_LIBS])
  AM_CONDITIONAL([HAVE_EATON], [test "x$have_eaton" = xyes])
])

# _PMON_NETSNMP_FLAGS: set NETSNMP_CFLAGS and NETSNMP_LIBS, and
# pmon_netsnmp_from to where they came from (empty when nothing was
# found).  Of net-snmp-config's compiler flags only the -I ones are
# kept: --cflags and --base-cflags also carry the flags net-snmp itself
# was built with (Debian 12: Perl's include directory, -Ulinux, -O2, ...).
AC_DEFUN([_PMON_NETSNMP_FLAGS], [
  pmon_netsnmp_from=
  AS_IF([test "x$NETSNMP_CFLAGS$NETSNMP_LIBS" != x],
    [pmon_netsnmp_from="NETSNMP_CFLAGS and NETSNMP_LIBS"],
    [PKG_CHECK_MODULES([NETSNMP], [netsnmp],
      [pmon_netsnmp_from="pkg-config netsnmp"],
      [AC_PATH_PROG([NET_SNMP_CONFIG], [net-snmp-config], [])
       AS_IF([test -n "$NET_SNMP_CONFIG"], [
         NETSNMP_CFLAGS=
         for pmon_w in `$NET_SNMP_CONFIG --base-cflags 2>/dev/null`; do
           AS_CASE([$pmon_w], [-I*], [NETSNMP_CFLAGS="$NETSNMP_CFLAGS $pmon_w"])
         done
         NETSNMP_LIBS=`$NET_SNMP_CONFIG --netsnmp-libs 2>/dev/null`
         AS_IF([test "x$NETSNMP_LIBS" != x],
           [pmon_netsnmp_from="$NET_SNMP_CONFIG"])])])])
])
