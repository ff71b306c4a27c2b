# m4/redfish.m4 - libcurl, for the redfish driver (drivers/redfish.c).

# PMON_CHECK_REDFISH: look for libcurl with the pkg-config module libcurl
# (Debian and Ubuntu: libcurl4-openssl-dev).  --without-libcurl leaves the
# driver out; --with-libcurl makes not finding it an error; the default is
# to build the driver when libcurl is there.  Substitutes LIBCURL_CFLAGS
# and LIBCURL_LIBS, sets have_libcurl to yes or no, defines
# PMON_HAVE_REDFISH and the conditional HAVE_REDFISH.
AC_DEFUN([PMON_CHECK_REDFISH], [
  AC_REQUIRE([PKG_PROG_PKG_CONFIG])
  AC_ARG_WITH([libcurl],
    [AS_HELP_STRING([--with-libcurl@<:@=yes|no@:>@],
      [build the redfish driver with libcurl @<:@default: when libcurl is
       found@:>@])],
    [], [with_libcurl=check])
  have_libcurl=no
  AS_CASE([$with_libcurl],
    [no], [],
    [yes|check], [
      PKG_CHECK_MODULES([LIBCURL], [libcurl >= 7.62], [have_libcurl=yes],
                        [have_libcurl=no])
      AS_IF([test "x$have_libcurl$with_libcurl" = xnoyes],
        [AC_MSG_ERROR([--with-libcurl: no libcurl 7.62 or later: install it
(Debian: libcurl4-openssl-dev) or set LIBCURL_CFLAGS and LIBCURL_LIBS])])],
    [AC_MSG_ERROR([--with-libcurl=$with_libcurl: say yes or no])])
  AS_IF([test "x$have_libcurl" = xyes],
    [AC_DEFINE([PMON_HAVE_REDFISH], [1],
               [Define to build the redfish driver (libcurl).])],
    [LIBCURL_CFLAGS= LIBCURL_LIBS=])
  AC_SUBST([LIBCURL_CFLAGS])
  AC_SUBST([LIBCURL_LIBS])
  AM_CONDITIONAL([HAVE_REDFISH], [test "x$have_libcurl" = xyes])
])
