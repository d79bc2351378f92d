#!/usr/bin/env bash
# package-deb.sh DIR - builds the Debian package from a copy of this tree
# (the files git tracks, plus new ones not ignored) in DIR, and installs it
# in place of `make install`'s files: the plugins and the command then come
# from the package only.  With SLURM_SOURCE=DIR (a configured source tree
# of the Slurm installed: debian/rules) the guard at placement is built
# too, and must be in the package.  Prints the package's dependencies and
# file list, and "built: FILE" at the end.  Needs root; debhelper.
set -euo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DIR=${1:?usage: package-deb.sh DIR}
version=$(dpkg-parsechangelog -l "$SRC/debian/changelog" -S Version)

rm -rf "$DIR"
mkdir -p "$DIR/slurm-extra-$version"
git -C "$SRC" ls-files -co --exclude-standard -z |
	(cd "$SRC" && tar --null -T - -cf -) | tar -C "$DIR/slurm-extra-$version" -xf -

echo "# dpkg-buildpackage -b (nocheck: make check ran on this tree)"
(cd "$DIR/slurm-extra-$version" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -b -us -uc)
deb=$(ls "$DIR"/slurm-extra_"$version"_*.deb)

echo "# make uninstall, then the package"
if [ -f "$SRC/Makefile" ]; then make -s -C "$SRC" uninstall; fi
# --reinstall: a tree rebuilt at the same version replaces the files
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --reinstall "$deb"

echo "# what it holds"
dpkg-deb -f "$deb" Depends
dpkg -L slurm-extra
[ "$(command -v slurm-extra)" = /usr/bin/slurm-extra ] ||
	{ echo "slurm-extra on PATH is $(command -v slurm-extra), not the package's" >&2; exit 1; }
for f in job_submit_extra.so spank_extra.so bash-completion/completions/slurm-extra \
	bin/slurm-extra-prolog-slurmctld systemd/system/slurm-extra-facts.service \
	systemd/system/slurm-extra-facts.timer; do
	dpkg -L slurm-extra | grep -q "/$f\$" || { echo "no $f in the package" >&2; exit 1; }
done
if [ -n "${SLURM_SOURCE:-}" ]; then
	dpkg -L slurm-extra | grep -q '/burst_buffer_extra\.so$' ||
		{ echo "no burst_buffer_extra.so in the package, built with SLURM_SOURCE=$SLURM_SOURCE" >&2; exit 1; }
fi
grep -qx 'ExecStart=/usr/bin/slurm-extra facts --publish' /lib/systemd/system/slurm-extra-facts.service ||
	{ echo "the facts service does not run /usr/bin/slurm-extra" >&2; exit 1; }
echo "built: $(basename "$deb")"
