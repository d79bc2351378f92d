# X_AC_JANSSON: jansson, with which the library reads and writes RFC 31
# constraints and jobspecs as Flux does (JANSSON_CFLAGS,
# JANSSON_LIBS).
AC_DEFUN([X_AC_JANSSON], [
  PKG_CHECK_MODULES([JANSSON], [jansson >= 2.10], [],
    [AC_MSG_ERROR([jansson >= 2.10 not found: install libjansson-dev])])
])
