# X_AC_HWLOC: hwloc, with which `slurm-extra facts` reads the node's
# topology, as slurmd does (HWLOC_CFLAGS, HWLOC_LIBS); 2.1 for
# HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED.
AC_DEFUN([X_AC_HWLOC], [
  PKG_CHECK_MODULES([HWLOC], [hwloc >= 2.1], [],
    [AC_MSG_ERROR([hwloc >= 2.1 not found: install libhwloc-dev (Debian) or hwloc-devel (RHEL)])])
])
