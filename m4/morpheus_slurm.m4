# MORPHEUS_WITH_SLURM: find Slurm's installed headers (SPANK), its version, its plugin dir, and
# optionally a configured source tree of the same version (select plugin). Chooses the versioned
# Slurm layer under plugins/ (slurm-22.05, slurm-24.11, slurm-26.05) from the version found.
AC_DEFUN([MORPHEUS_WITH_SLURM], [
  AC_ARG_WITH([slurm],
    [AS_HELP_STRING([--with-slurm=PREFIX], [Slurm installation prefix (default: /usr)])],
    [SLURM_PREFIX="$withval"], [SLURM_PREFIX=/usr])
  AC_ARG_WITH([slurm-source],
    [AS_HELP_STRING([--with-slurm-source=DIR],
      [configured Slurm source tree of the installed version (needed for select/morpheus)])],
    [SLURM_SOURCE="$withval"], [SLURM_SOURCE=])
  AC_ARG_WITH([slurm-plugindir],
    [AS_HELP_STRING([--with-slurm-plugindir=DIR], [where Slurm loads plugins from])],
    [SLURM_PLUGIN_DIR="$withval"], [SLURM_PLUGIN_DIR=])

  SLURM_CPPFLAGS="-I$SLURM_PREFIX/include"
  save_CPPFLAGS="$CPPFLAGS"
  CPPFLAGS="$CPPFLAGS $SLURM_CPPFLAGS"
  AC_CHECK_HEADER([slurm/spank.h], [have_slurm=yes], [have_slurm=no])
  CPPFLAGS="$save_CPPFLAGS"

  SLURM_VERSION=
  SLURM_LAYER=
  AS_IF([test "x$have_slurm" = xyes], [
    slurm_version_number=`sed -n 's/^#define SLURM_VERSION_NUMBER \(0x[0-9a-fA-F]*\).*/\1/p' "$SLURM_PREFIX/include/slurm/slurm_version.h"`
    SLURM_VERSION=`printf '%d.%02d.%d' $(( slurm_version_number >> 16 & 255 )) $(( slurm_version_number >> 8 & 255 )) $(( slurm_version_number & 255 ))`
    AS_CASE([$SLURM_VERSION],
      [22.05.*], [SLURM_LAYER=slurm-22.05],
      [24.11.*], [SLURM_LAYER=slurm-24.11],
      [26.05.*], [SLURM_LAYER=slurm-26.05],
      [AC_MSG_WARN([Slurm $SLURM_VERSION has no Morpheus layer (22.05, 24.11 and 26.05 do); plugins not built])])
    AS_IF([test -z "$SLURM_PLUGIN_DIR"], [
      for d in "$SLURM_PREFIX/lib/x86_64-linux-gnu/slurm-wlm" "$SLURM_PREFIX/lib/slurm" "$SLURM_PREFIX/lib64/slurm"; do
        AS_IF([test -f "$d/select_cons_tres.so"], [SLURM_PLUGIN_DIR="$d"; break])
      done
    ])
  ], [AC_MSG_WARN([Slurm headers not found under $SLURM_PREFIX: install libslurm-dev; plugins not built])])

  AS_IF([test -z "$SLURM_SOURCE" && test -n "$SLURM_VERSION"], [
    for d in "$srcdir/.cache/slurm-$SLURM_VERSION" "$srcdir/../slurm-$SLURM_VERSION"; do
      AS_IF([test -f "$d/config.h" && test -f "$d/src/slurmctld/slurmctld.h"], [SLURM_SOURCE=`cd "$d" && pwd`; break])
    done
  ])
  AS_IF([test -n "$SLURM_SOURCE"], [
    AS_IF([test -f "$SLURM_SOURCE/config.h"], [],
      [AC_MSG_ERROR([$SLURM_SOURCE has no config.h: run ./configure in that Slurm tree first])])
    src_version=`sed -n 's/^#define SLURM_VERSION_STRING "\(.*\)"/\1/p' "$SLURM_SOURCE/config.h"`
    AS_IF([test "x$src_version" != "x$SLURM_VERSION"],
      [AC_MSG_ERROR([Slurm source tree $SLURM_SOURCE is $src_version but the installed Slurm is $SLURM_VERSION: select plugins must match exactly])])
  ])

  AC_SUBST([SLURM_PREFIX])
  AC_SUBST([SLURM_CPPFLAGS])
  AC_SUBST([SLURM_VERSION])
  AC_SUBST([SLURM_LAYER])
  AC_SUBST([SLURM_SOURCE])
  AC_SUBST([SLURM_PLUGIN_DIR])
  AM_CONDITIONAL([HAVE_SLURM], [test -n "$SLURM_LAYER"])
  AM_CONDITIONAL([HAVE_SLURM_SOURCE], [test -n "$SLURM_LAYER" && test -n "$SLURM_SOURCE"])
  AM_CONDITIONAL([SLURM_22_05], [test "x$SLURM_LAYER" = xslurm-22.05])
  AM_CONDITIONAL([SLURM_24_11], [test "x$SLURM_LAYER" = xslurm-24.11])
  AM_CONDITIONAL([SLURM_26_05], [test "x$SLURM_LAYER" = xslurm-26.05])
])
