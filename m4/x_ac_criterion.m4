# X_AC_CRITERION: Criterion for `make check` (CRITERION_CFLAGS,
# CRITERION_LIBS).  Without it everything builds and `make check` fails
# saying why.
AC_DEFUN([X_AC_CRITERION], [
  PKG_CHECK_MODULES([CRITERION], [criterion], [x_ac_criterion=yes],
    [x_ac_criterion=no
     AC_MSG_WARN([Criterion not found: make check will fail; install libcriterion-dev])])
  AM_CONDITIONAL([HAVE_CRITERION], [test "x$x_ac_criterion" = xyes])
])
