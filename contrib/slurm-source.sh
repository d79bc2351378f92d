#!/usr/bin/env bash
# slurm-source.sh DIR - puts in DIR the configured source tree of the exact
# Slurm this Debian machine runs (the slurm-wlm source package of the
# installed slurmctld's or libslurm-dev's version, Debian's patches
# applied), for `configure --with-slurm-source=DIR/slurm`: the guard at
# placement (burst_buffer/extra) reads slurmctld's own records through
# Slurm's internal headers, which no package ships.
#
# It reads Debian's source index (Sources.xz) of the suites that may hold
# that version (bookworm, trixie, sid and their updates and security
# suites) from $XC_DEBIAN_MIRROR (default http://deb.debian.org/debian)
# and $XC_DEBIAN_SECURITY (http://security.debian.org/debian-security),
# each index checked against its suite's InRelease and that against
# Debian's archive keyring (gpgv, debian-archive-keyring), fetches the
# package's files, checks their SHA-256 against the index,
# unpacks them (dpkg-source when the .dsc is there, else the upstream
# tarball with debian/patches applied in the series' order) and runs
# Slurm's ./configure with Debian's paths.  A tree already configured
# for that version in DIR/slurm is kept.  XC_SLURM_VERSION=V: Debian
# version V instead of the installed one's.  Exits 1 with a message when
# the version is in no index it can read, or a file cannot be fetched.
# Slurm's configure needs a C compiler and, from 24.11, munge's headers
# (libmunge-dev).
set -euo pipefail

DIR=${1:?usage: slurm-source.sh DIR}
MIRROR=${XC_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY=${XC_DEBIAN_SECURITY:-http://security.debian.org/debian-security}

die() { echo "slurm-source.sh: $*" >&2; exit 1; }

# (XC_SLURM_VERSION: another Debian version than the installed one)
version=${XC_SLURM_VERSION:-$(dpkg-query -W -f '${Version}' slurmctld 2>/dev/null ||
	dpkg-query -W -f '${Version}' libslurm-dev 2>/dev/null)} ||
	die "neither slurmctld nor libslurm-dev is installed"
[ -n "$version" ] || die "no version of slurmctld or libslurm-dev"
upstream=${version%-*}
upstream=${upstream#*:}
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
tree=$DIR/slurm
if [ -f "$tree/.xc-version" ] && [ "$(cat "$tree/.xc-version")" = "$version" ] &&
	[ -f "$tree/config.h" ]; then
	echo "slurm-source.sh: $tree is slurm-wlm $version, configured"
	exit 0
fi

# The package's stanza: the first suite whose index has this version.
# Each index is trusted only through its suite's InRelease, whose
# signature gpgv checks against Debian's archive keyring: the index's
# SHA-256 must be the one InRelease lists, and the files' the index's.
KEYRING=${XC_DEBIAN_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}
[ -r "$KEYRING" ] || die "no Debian archive keyring at $KEYRING (debian-archive-keyring)"
command -v gpgv >/dev/null || die "gpgv is needed to check Debian's signatures"
idx_dir=$(mktemp -d)
trap 'rm -rf "$idx_dir"' EXIT
get() { curl -sSfL --connect-timeout 20 --max-time "$1" -o "$2" "$3" 2>/dev/null; }
stanza=
for at in "$MIRROR bookworm" "$MIRROR bookworm-updates" "$SECURITY bookworm-security" \
	"$MIRROR trixie" "$MIRROR trixie-updates" "$SECURITY trixie-security" "$MIRROR sid"; do
	base=${at% *} suite=${at#* }
	get 60 "$idx_dir/InRelease" "$base/dists/$suite/InRelease" || continue
	gpgv --keyring "$KEYRING" --output "$idx_dir/Release" "$idx_dir/InRelease" 2>/dev/null ||
		{ echo "slurm-source.sh: $suite: InRelease not signed by a key of $KEYRING: skipped" >&2; continue; }
	want=$(awk '/^SHA256:/{c=1; next} /^[^ ]/{c=0} c && $3 == "main/source/Sources.xz" {print $1}' "$idx_dir/Release")
	[ -n "$want" ] || continue
	get 300 "$idx_dir/Sources.xz" "$base/dists/$suite/main/source/Sources.xz" || continue
	[ "$(sha256sum <"$idx_dir/Sources.xz" | cut -d' ' -f1)" = "$want" ] ||
		{ echo "slurm-source.sh: $suite: Sources.xz differs from its InRelease: skipped" >&2; continue; }
	stanza=$(xz -dc "$idx_dir/Sources.xz" 2>/dev/null |
		awk -v v="$version" '
			/^Package: /{p = ($2 == "slurm-wlm"); s = ""}
			p {s = s $0 "\n"}
			p && /^Version: / && $2 != v {p = 0}
			/^$/ && p && s ~ "Version: " {printf "%s", s; exit}') || true
	[ -z "$stanza" ] || break
done
[ -n "$stanza" ] || die "slurm-wlm $version is in none of Debian's source indexes read"
pool=$(sed -n 's/^Directory: //p' <<<"$stanza")
# "Checksums-Sha256:" lines: " <sha256> <size> <name>"
mapfile -t files < <(awk '/^Checksums-Sha256:/{c=1; next} /^[^ ]/{c=0} c {print $1, $3}' <<<"$stanza")
[ "${#files[@]}" -gt 0 ] || die "no files listed for slurm-wlm $version"

work=$DIR/download
rm -rf "$work" && mkdir -p "$work"
have_dsc=0
for f in "${files[@]}"; do
	sum=${f%% *} name=${f#* }
	got=0
	# (a version in a stable suite and its security suite both: either
	# pool may be the one that serves its files)
	for url in "$base/$pool/$name" "$MIRROR/pool/main/s/slurm-wlm/$name" \
		"$SECURITY/pool/updates/main/s/slurm-wlm/$name"; do
		get 600 "$work/$name" "$url" && { got=1; break; }
	done
	if [ "$got" = 0 ]; then
		rm -f "$work/$name"
		# a mirror may serve the tarballs and not the .dsc: the
		# tarballs are enough
		[[ $name == *.dsc ]] && continue
		die "cannot fetch $name from $base/$pool, nor from either pool"
	fi
	echo "$sum  $work/$name" | sha256sum -c --quiet - ||
		die "$name: SHA-256 differs from Debian's index"
	[[ $name == *.dsc ]] && have_dsc=1
done

rm -rf "$tree"
if [ "$have_dsc" = 1 ] && command -v dpkg-source >/dev/null; then
	# (the .dsc's own signature is not checked: its SHA-256 is the
	# signed index's, as every file's)
	(cd "$work" && dpkg-source --no-check -x ./*.dsc "$tree" >/dev/null)
else
	orig=$(ls "$work"/slurm-wlm_"$upstream".orig.tar.* 2>/dev/null | head -1 || true)
	deb=$(ls "$work"/slurm-wlm_"${version#*:}".debian.tar.* 2>/dev/null | head -1 || true)
	[ -n "$orig" ] && [ -n "$deb" ] || die "no upstream tarball or Debian tarball among the files of $version"
	mkdir -p "$tree"
	tar -xf "$orig" -C "$tree" --strip-components=1
	tar -xf "$deb" -C "$tree"
	if [ -f "$tree/debian/patches/series" ]; then
		while read -r p _; do
			[ -n "$p" ] && [[ $p != \#* ]] || continue
			patch -s -p1 -d "$tree" <"$tree/debian/patches/$p" ||
				die "Debian's patch $p does not apply"
		done <"$tree/debian/patches/series"
	fi
fi
echo "slurm-source.sh: configuring slurm-wlm $version in $tree (a minute or two)"
(cd "$tree" && ./configure --quiet --prefix=/usr --sysconfdir=/etc/slurm \
	--libdir=/usr/lib/"$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)" \
	>"$DIR/configure.log" 2>&1) || die "Slurm's configure failed: $DIR/configure.log"
echo "$version" >"$tree/.xc-version"
rm -rf "$work" "$DIR"/slurm-wlm_*.orig.tar.*
echo "slurm-source.sh: $tree is slurm-wlm $version, configured"
