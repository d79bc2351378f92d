#!/usr/bin/env bash
# package-rpm.sh DIR - the RPM of slurm-extra.spec, built on this Debian
# machine as a RHEL site builds it (README, "Installing"): `make dist`,
# then `rpmbuild -ta` on the tarball, in DIR.  Two things differ from RHEL,
# both about the build machine, not the package: --nodeps (the spec's
# BuildRequires carry RHEL's names, slurm-devel and the like, which dpkg's
# database does not know) and %_unitdir defined as RHEL's
# systemd-rpm-macros define it.  Then lists what the package installs and
# requires, and fails unless it holds every file the spec names and
# requires exactly the Slurm it was built against.  Where the tree was
# configured with --with-slurm-source=DIR (or SLURM_SOURCE=DIR says so),
# the RPM is built with `--define 'slurm_source DIR'` and must hold the
# guard at placement, burst_buffer_extra.so, too.  Closes with
# "built: FILE".  Needs a configured tree (make dist) and rpm's rpmbuild.
set -euo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR=${1:?usage: package-rpm.sh DIR}
command -v rpmbuild >/dev/null ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq rpm >/dev/null
rm -rf "$DIR"
mkdir -p "$DIR"
DIR=$(realpath "$DIR")

echo "# make dist"
rm -f "$SRC"/slurm-extra-*.tar.gz
make -s -C "$SRC" dist >/dev/null
mv "$SRC"/slurm-extra-*.tar.gz "$DIR/"
tarball=$(ls "$DIR"/slurm-extra-*.tar.gz)

# the Slurm source tree the tree was configured with, if any
SLURM_SOURCE=${SLURM_SOURCE-$(sed -n 's/^SLURM_SOURCE_DIR = //p' "$SRC/Makefile")}
with=()
[ -z "$SLURM_SOURCE" ] || with=(--define "slurm_source $SLURM_SOURCE")
echo "# rpmbuild -ta --nodeps ${with[*]} $(basename "$tarball")"
rpmbuild -ta --nodeps --define "_topdir $DIR/top" \
	--define '_unitdir /usr/lib/systemd/system' ${with[@]+"${with[@]}"} "$tarball"
rpm=$(ls "$DIR"/top/RPMS/*/slurm-extra-[0-9]*.rpm)

echo "# what it installs"
rpm -qlp "$rpm" | grep -v '/\.build-id'
echo "# what it requires"
rpm -qp --requires "$rpm"

files=$(rpm -qlp "$rpm")
for f in /job_submit_extra.so /spank_extra.so /usr/bin/slurm-extra \
	/usr/bin/slurm-extra-prolog-slurmctld \
	/usr/lib/systemd/system/slurm-extra-facts.service \
	/usr/lib/systemd/system/slurm-extra-facts.timer \
	/usr/share/bash-completion/completions/slurm-extra \
	/man1/slurm-extra.1 /man5/extra.conf.5 /man8/job_submit_extra.8 \
	/man8/spank_extra.8 /examples/extra.conf /examples/plugstack.conf \
	${SLURM_SOURCE:+/burst_buffer_extra.so}; do
	grep -qE -- "$(sed 's/\./\\./g' <<<"$f")(\.gz)?\$" <<<"$files" ||
		{ echo "no $f in the package" >&2; exit 1; }
done
# The exact Slurm it was built against: slurm_version.h's number.
hex=$(sed -n 's/^#define SLURM_VERSION_NUMBER 0x\([0-9a-fA-F]*\).*/\1/p' /usr/include/slurm/slurm_version.h)
v=$((0x$hex))
want=$(printf '%d.%02d.%d' $((v >> 16)) $(((v >> 8) & 255)) $((v & 255)))
next=$(printf '%d.%02d.%d' $((v >> 16)) $(((v >> 8) & 255)) $(((v & 255) + 1)))
isa=$(rpm --eval '%{?_isa}')
rpm -qp --requires "$rpm" | grep -qxF "slurm$isa >= $want" ||
	{ echo "it does not require slurm$isa >= $want" >&2; exit 1; }
rpm -qp --requires "$rpm" | grep -qxF "slurm$isa < $next" ||
	{ echo "it does not require slurm$isa < $next" >&2; exit 1; }
echo "built: $(basename "$rpm")"
