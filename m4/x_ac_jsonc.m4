# X_AC_JSONC: json-c, with which the library reads node Extra exactly as
# Slurm 23.11+ does (JSONC_CFLAGS, JSONC_LIBS).
AC_DEFUN([X_AC_JSONC], [
  PKG_CHECK_MODULES([JSONC], [json-c >= 0.13], [],
    [AC_MSG_ERROR([json-c >= 0.13 not found: install libjson-c-dev])])
])
