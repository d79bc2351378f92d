# X_AC_SLURM: find Slurm's public headers and libslurm, and the directory
# Slurm loads plugins from.  Debian 12's Slurm ships no slurm.pc, so this
# looks for the header and the library under --with-slurm=PREFIX (default
# /usr).  Sets SLURM_CPPFLAGS, SLURM_LDFLAGS, SLURM_LIBS, SLURM_PLUGINDIR.
AC_DEFUN([X_AC_SLURM], [
  AC_ARG_WITH([slurm],
    [AS_HELP_STRING([--with-slurm=PREFIX],
      [where Slurm's include/slurm/slurm.h and lib/libslurm are (default /usr)])],
    [x_ac_slurm_prefix="$withval"], [x_ac_slurm_prefix=/usr])
  AC_ARG_WITH([slurm-plugindir],
    [AS_HELP_STRING([--with-slurm-plugindir=DIR],
      [where to install the Slurm plugins (default: Slurm's PluginDir, found beside libslurm)])],
    [SLURM_PLUGINDIR="$withval"], [SLURM_PLUGINDIR=])

  SLURM_CPPFLAGS=
  test "x$x_ac_slurm_prefix" != x/usr && SLURM_CPPFLAGS="-isystem $x_ac_slurm_prefix/include"
  x_ac_save_CPPFLAGS="$CPPFLAGS"
  CPPFLAGS="$CPPFLAGS $SLURM_CPPFLAGS"
  AC_CHECK_HEADER([slurm/slurm.h], [],
    [AC_MSG_ERROR([slurm/slurm.h not found under $x_ac_slurm_prefix: install libslurm-dev or give --with-slurm=PREFIX])])
  AC_CHECK_HEADER([slurm/spank.h], [],
    [AC_MSG_ERROR([slurm/spank.h not found under $x_ac_slurm_prefix])])
  CPPFLAGS="$x_ac_save_CPPFLAGS"

  SLURM_LDFLAGS=
  x_ac_slurm_libdir=
  for d in "$x_ac_slurm_prefix/lib/$host_cpu-$host_os" \
           "$x_ac_slurm_prefix/lib/x86_64-linux-gnu" \
           "$x_ac_slurm_prefix/lib/aarch64-linux-gnu" \
           "$x_ac_slurm_prefix/lib64" "$x_ac_slurm_prefix/lib"; do
    if test -e "$d/libslurm.so"; then x_ac_slurm_libdir="$d"; break; fi
  done
  test -n "$x_ac_slurm_libdir" && test "x$x_ac_slurm_prefix" != x/usr && \
    SLURM_LDFLAGS="-L$x_ac_slurm_libdir -Wl,-rpath,$x_ac_slurm_libdir"
  x_ac_save_LDFLAGS="$LDFLAGS"
  LDFLAGS="$LDFLAGS $SLURM_LDFLAGS"
  AC_CHECK_LIB([slurm], [slurm_hostlist_create], [SLURM_LIBS=-lslurm],
    [AC_MSG_ERROR([libslurm not found under $x_ac_slurm_prefix: install libslurm-dev or give --with-slurm=PREFIX])])
  LDFLAGS="$x_ac_save_LDFLAGS"

  AC_MSG_CHECKING([for Slurm's plugin directory])
  if test -z "$SLURM_PLUGINDIR"; then
    for d in "$x_ac_slurm_libdir/slurm-wlm" "$x_ac_slurm_libdir/slurm" \
             "$x_ac_slurm_prefix/lib64/slurm" "$x_ac_slurm_prefix/lib/slurm"; do
      if ls "$d"/job_submit_*.so >/dev/null 2>&1; then SLURM_PLUGINDIR="$d"; break; fi
    done
  fi
  test -z "$SLURM_PLUGINDIR" && SLURM_PLUGINDIR='${libdir}/slurm'
  AC_MSG_RESULT([$SLURM_PLUGINDIR])

  AC_SUBST([SLURM_CPPFLAGS])
  AC_SUBST([SLURM_LDFLAGS])
  AC_SUBST([SLURM_LIBS])
  AC_SUBST([SLURM_PLUGINDIR])
])
