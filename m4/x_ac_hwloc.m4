# X_AC_HWLOC: hwloc, with which `slurm-extra facts` reads the node's
# topology, as slurmd does (HWLOC_CFLAGS, HWLOC_LIBS).
AC_DEFUN([X_AC_HWLOC], [
  PKG_CHECK_MODULES([HWLOC], [hwloc >= 2.0], [],
    [AC_MSG_ERROR([hwloc >= 2.0 not found: install libhwloc-dev (Debian) or hwloc-devel (RHEL)])])
])
