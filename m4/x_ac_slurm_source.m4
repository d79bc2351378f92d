# X_AC_SLURM_SOURCE: --with-slurm-source=DIR, the configured source tree of
# the exact Slurm the plugins are built for (its config.h and
# slurm/slurm_version.h are written by its configure).  With it the guard
# at placement (ctld/, burst_buffer/extra) is built: it reads slurmctld's
# own records through Slurm's internal headers, which no package ships.
# A tree of another version than the installed Slurm headers is refused
# (their SLURM_VERSION_NUMBER lines compared, no m4 brackets in them):
# slurmctld loads a plugin only into the version it was built for
# (major.minor.micro, src/common/plugin.c) and the records' layout is that
# version's; and only 22.05 and 24.11, whose records the guard is checked
# against.  Sets SLURM_SOURCE_CPPFLAGS, SLURM_SOURCE_DIR, SLURM_SOURCE_VERSION
# and the conditional HAVE_SLURM_SOURCE.
AC_DEFUN([X_AC_SLURM_SOURCE], [
  AC_REQUIRE([X_AC_SLURM])
  AC_ARG_WITH([slurm-source],
    [AS_HELP_STRING([--with-slurm-source=DIR],
      [a configured source tree of the exact Slurm installed (builds the guard at placement, burst_buffer/extra)])],
    [], [with_slurm_source=no])
  SLURM_SOURCE_DIR=
  SLURM_SOURCE_CPPFLAGS=
  SLURM_SOURCE_VERSION=
  AS_IF([test "x$with_slurm_source" != xno && test "x$with_slurm_source" != x], [
    AC_MSG_CHECKING([the Slurm source tree $with_slurm_source])
    x_ac_ss_dir=`cd "$with_slurm_source" 2>/dev/null && pwd`
    AS_IF([test -z "$x_ac_ss_dir" || test ! -f "$x_ac_ss_dir/src/slurmctld/slurmctld.h"],
      [AC_MSG_ERROR([--with-slurm-source=$with_slurm_source: no Slurm source tree there (src/slurmctld/slurmctld.h)])])
    AS_IF([test ! -f "$x_ac_ss_dir/config.h" || test ! -f "$x_ac_ss_dir/slurm/slurm_version.h"],
      [AC_MSG_ERROR([--with-slurm-source=$with_slurm_source: not configured (no config.h or slurm/slurm_version.h): run its ./configure first])])
    x_ac_ss_tree=`sed -n 's/^#define SLURM_VERSION_NUMBER *//p' "$x_ac_ss_dir/slurm/slurm_version.h"`
    x_ac_ss_hdr=
    for h in "$x_ac_slurm_prefix/include/slurm/slurm_version.h" /usr/include/slurm/slurm_version.h; do
      if test -f "$h"; then
        x_ac_ss_hdr=`sed -n 's/^#define SLURM_VERSION_NUMBER *//p' "$h"`
        break
      fi
    done
    AS_IF([test -z "$x_ac_ss_tree" || test "x$x_ac_ss_tree" != "x$x_ac_ss_hdr"],
      [AC_MSG_ERROR([--with-slurm-source=$with_slurm_source is Slurm $x_ac_ss_tree (SLURM_VERSION_NUMBER), the installed headers $x_ac_ss_hdr: the tree must be the exact Slurm slurmctld runs])])
    dnl the records the guard reads are checked against 22.05 and 24.11
    dnl (ctld/burst_buffer_extra.c): another version is refused here, with
    dnl what to run instead, rather than by the compiler
    x_ac_ss_mm=`printf '%x' $(( x_ac_ss_tree >> 8 ))`
    AS_IF([test "x$x_ac_ss_mm" != x1605 && test "x$x_ac_ss_mm" != x180b],
      [AC_MSG_ERROR([--with-slurm-source=$with_slurm_source is Slurm $x_ac_ss_tree: the guard at placement reads the records of Slurm 22.05 and 24.11 only; on 23.11 and later run Slurm's own filter (SchedulerParameters=extra_constraints, JobSubmitPlugins=extra checking requests) and configure without --with-slurm-source])])
    AC_MSG_RESULT([Slurm $x_ac_ss_tree])
    SLURM_SOURCE_DIR="$x_ac_ss_dir"
    SLURM_SOURCE_VERSION="$x_ac_ss_tree"
    SLURM_SOURCE_CPPFLAGS="-I$x_ac_ss_dir -I$x_ac_ss_dir/slurm"
  ])
  AC_SUBST([SLURM_SOURCE_DIR])
  AC_SUBST([SLURM_SOURCE_CPPFLAGS])
  AC_SUBST([SLURM_SOURCE_VERSION])
  AM_CONDITIONAL([HAVE_SLURM_SOURCE], [test -n "$SLURM_SOURCE_DIR"])
])
