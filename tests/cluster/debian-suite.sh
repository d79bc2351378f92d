#!/usr/bin/env bash
# debian-suite.sh [--make] SUITE [TEST...] - this tree on the Slurm a Debian suite
# ships (trixie: 24.11, sid: 26.05), exactly as a site installs it, in a
# chroot on this machine:
#   1. makes, or reuses, a chroot of SUITE (debootstrap --variant=minbase)
#      with its slurm-wlm, libslurm-dev, munge and this project's build
#      dependencies: $XC_CHROOT_DIR/SUITE-DATE (default directory
#      /var/tmp/xc-chroot), one a day; older ones of SUITE are removed;
#   2. copies this tree in (the files git tracks and new ones not ignored);
#   3. inside: builds it (./bootstrap, ./configure --with-slurm=/usr, and
#      --with-slurm-source where Debian's registry serves this Slurm's
#      source: the guard at placement), runs make check, builds the Debian
#      package (package-deb.sh) and installs it, then runs the cluster
#      suites on a local cluster of the chroot's own Slurm with the
#      package's plugins: the plan below, or
#      the entries whose log names are given as TEST (e2e-users-slurm ...),
#      and the figures of a script of MEASURES named as TEST (prefer-slurm,
#      partition-errno);
#   4. stops every process of the chroot and unmounts what it mounted,
#      also when a step fails or the script is interrupted.
# --make: step 1 only (tests/run-all.sh makes both chroots in the
# background while it runs its own steps); a run of the same SUITE waits
# for it.
# The chroot has its own /run (a tmpfs, so its own munged) and, where the
# kernel makes one, a network namespace of its own with loopback alone:
# its cluster's ports are its own, so it runs beside this machine's
# cluster and another suite's (tests/run-all.sh runs them at once).
# Without one it shares this machine's network: it takes
# contrib/local-cluster.sh's ports, and no other local cluster may run
# meanwhile (checked at the start).
# What a chroot cannot do that a node does: cgroups.  Its cgroup.conf
# says CgroupPlugin=disabled (slurmd 24.11+ does not start otherwise
# outside systemd); the clusters here track processes by
# proctrack/linuxproc on every Slurm, so no test depends on cgroups.
# Logs in $XC_SUITE_LOGS (default /tmp/slurm-extra-tests/SUITE): a log per
# step, `counts` (a line "CATEGORY PASSED FAILED" per category: build,
# unit, replay, cluster with burst_buffer/extra filtering, cluster-slurm
# with Slurm's own filter), `skipped` (a step skipped a line) and `slurm`
# (the version).
# Closes with "SUITE: N passed, M failed"; status 1 when anything failed,
# 2 when it could not start.  Needs root and Debian's package registry.
set -uo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# The packages of the chroot: Slurm as Debian ships it, and what the
# build, the package and the tests need (contrib/local-cluster.sh's list).
PACKAGES=slurm-wlm,libslurm-dev,curl,xz-utils,gpgv,libmunge-dev,munge,libjansson-dev,libjson-c-dev,libcriterion-dev,libhwloc-dev,autoconf,automake,libtool,pkg-config,make,gcc,build-essential,jq,debhelper,dpkg-dev,procps,git
# CATEGORY NAME[:LOG] [ENV...] [@SUITE]: as tests/run-all.sh's step 7,
# with the same load (200 submissions after one warm-up: the warm-ups
# settle the RSS figure, which is printed, not checked).  The filter of
# the category cluster is burst_buffer/extra, the guard at placement: an
# entry that names it (XC_BURST_BUFFER=burst_buffer/extra) runs only
# where it is built (trixie; sid's 26.05 cannot build it).  Where it is
# not, what runs is what works without it: the category cluster-slurm,
# where Slurm filters by `extra` itself (extra_constraints), the users'
# matrix with Slurm's filter alone, and e2e-slurm-filter, which checks
# first that where nothing filters the plugin refuses a user's request.
# An entry with @SUITE runs in that suite alone unless named as a TEST:
# the facts where Slurm filters on sid (trixie runs them with the guard;
# 26.05's slurmd --extra is checked there), the churn of srun jobs with
# Slurm's filter alone on trixie (each run takes minutes).
PLAN=(
	"cluster e2e-cluster XC_BURST_BUFFER=burst_buffer/extra"
	"cluster e2e-wait XC_BURST_BUFFER=burst_buffer/extra"
	"cluster e2e-users XC_BURST_BUFFER=burst_buffer/extra"
	"cluster-slurm e2e-users:e2e-users-slurm XC_USERS_MODE=slurm"
	"cluster-slurm e2e-slurm-filter"
	"cluster e2e-facts XC_BURST_BUFFER=burst_buffer/extra"
	"cluster-slurm e2e-facts:e2e-facts-slurm XC_SCHED_PARAMS=batch_sched_delay=0,extra_constraints @sid"
	"cluster e2e-fault XC_BURST_BUFFER=burst_buffer/extra"
	"cluster e2e-churn XC_BURST_BUFFER=burst_buffer/extra"
	"cluster e2e-churn:e2e-churn-srun XC_CHURN_SRUN=1 XC_BURST_BUFFER=burst_buffer/extra"
	"cluster e2e-prefer XC_BURST_BUFFER=burst_buffer/extra"
	"cluster-slurm e2e-prefer:e2e-prefer-slurm XC_PREFER_MODE=slurm XC_BURST_BUFFER=burst_buffer/extra"
	"cluster e2e-hostile XC_BURST_BUFFER=burst_buffer/extra"
	"cluster-slurm e2e-hostile:e2e-hostile-slurm XC_HOSTILE_MODE=slurm XC_BURST_BUFFER=burst_buffer/extra"
	"cluster e2e-guard XC_BURST_BUFFER=burst_buffer/extra"
	"cluster e2e-guard-alone XC_BURST_BUFFER=burst_buffer/extra"
	"cluster-slurm e2e-churn:e2e-churn-srun-slurm XC_SCHED_PARAMS=batch_sched_delay=0,extra_constraints XC_CHURN_SRUN=1 @trixie"
	"cluster load XC_LOAD_JOBS=200 XC_LOAD_WARMUPS=1 XC_BURST_BUFFER=burst_buffer/extra"
)
# Scripts that print figures and assert nothing, run only when named
# (their output is the log's, counted in no category).
# XC_MEASURE_ENV: NAME=VALUE words given to them inside (the chroot's
# environment is its own): scale-carrier.sh's XC_CARRIER_* settings.
MEASURES=(prefer-slurm partition-errno scale-carrier)

# named_in NAME WORD...: NAME is one of the WORDs (no pipe into grep -q,
# which under pipefail may end the pipe early and say no).
named_in() {
	local want=$1 w
	shift
	for w in "$@"; do [ "$w" = "$want" ] && return 0; done
	return 1
}

# ---- inside the chroot: build, package, suites
inside() {
	local suite=$1 entry cat name env_words
	shift
	cd /src || exit 2
	LOGS=/xc-logs
	status=0
	declare -gA CAT_P CAT_F
	CATS=(build unit replay cluster cluster-slurm)
	for c in "${CATS[@]}"; do CAT_P[$c]=0 CAT_F[$c]=0; done
	SKIPPED=()
	. tests/tally-lib.sh
	. tests/cluster/cluster-lib.sh # (slurm_at_least)
	slurmctld -V >"$LOGS/slurm"
	step "$suite: $(cat "$LOGS/slurm"): build, make check"
	# (the builds at a lower priority than any cluster's processes: where
	# suites run at once, the clusters' waits are checked, the builds' are not)
	# the guard at placement, against Debian's source of this Slurm when
	# its registry serves it (contrib/slurm-source.sh)
	# (fetched and configured outside, before the chroot lost the network)
	unset SLURM_SOURCE XC_SLURM_SOURCE XC_GUARD_REQUIRED
	if [ -f /var/tmp/xc-slurm-src/slurm/.xc-version ] && [ -f /var/tmp/xc-slurm-src/slurm/config.h ]; then
		export SLURM_SOURCE=/var/tmp/xc-slurm-src/slurm XC_GUARD_REQUIRED=1
	else
		skip "$suite: the guard at placement, and the suites that filter with it: $(tail -n 1 "$LOGS/slurm-source.log" 2>/dev/null)"
	fi
	build_step build nice -n 10 bash -c "./bootstrap && ./configure --quiet --with-slurm=/usr ${SLURM_SOURCE:+--with-slurm-source=$SLURM_SOURCE} && make -s -j$(nproc)"
	clean_logs /src
	build_step build-tests nice -n 10 make -s -j"$(nproc)" check TESTS=
	nice -n 10 make -s -j"$(nproc)" check >"$LOGS/check.log" 2>&1
	count_unit /src unit
	step "$suite: the Debian package, built and installed (tests/cluster/package-deb.sh)"
	build_step package nice -n 10 bash tests/cluster/package-deb.sh /tmp/pkg
	if grep -q '^built: ' "$LOGS/package.log"; then
		# The package's plugins and its plugstack.conf.d line; no
		# cgroups (24.11's slurmd wants that said outside systemd).
		export XC_PLUGSTACK='include /etc/slurm/plugstack.conf.d/*.conf'
		! slurm_at_least 24 11 || export XC_CGROUP_CONF=CgroupPlugin=disabled
		for entry in "${PLAN[@]}"; do
			read -r cat name env_words <<<"$entry"
			if [ $# -gt 0 ] && ! named_in "${name#*:}" "$@"; then
				continue
			fi
			case " $env_words " in
			*" XC_BURST_BUFFER=burst_buffer/extra "*) # the guard's: only where it is built
				if [ -z "${SLURM_SOURCE:-}" ]; then
					[ $# -eq 0 ] || skip "$suite: ${name#*:}: it needs the guard at placement, not built here"
					continue
				fi
				;;
			esac
			case " $env_words " in
			*" @"*) # (named as a TEST, it runs in any suite)
				[ $# -gt 0 ] || named_in "@$suite" $env_words || continue
				env_words=$(printf '%s\n' $env_words | grep -v '^@' | tr '\n' ' ')
				;;
			esac
			# shellcheck disable=SC2086 # env_words: NAME=VALUE words
			CLUSTER_CAT=$cat cluster "$name" $env_words
		done
		for name in "${MEASURES[@]}"; do
			named_in "$name" "$@" || continue
			step "$suite: figures: tests/cluster/$name.sh"
			bash "tests/cluster/$name.sh" >"$LOGS/$name.log" 2>&1 || status=1
			cat "$LOGS/$name.log"
		done
	else
		skip "the cluster suites (the package did not build or install)"
		status=1
	fi
	for c in "${CATS[@]}"; do echo "$c ${CAT_P[$c]} ${CAT_F[$c]}"; done >"$LOGS/counts"
	printf '%s\n' "${SKIPPED[@]}" >"$LOGS/skipped"
	return "$status"
}

if [ "${1:-}" = --inside ]; then
	shift
	inside "$@"
	exit
fi

# ---- outside: the chroot, its mounts, the run, the teardown
MAKE_ONLY=0
if [ "${1:-}" = --make ]; then
	MAKE_ONLY=1
	shift
fi
SUITE=${1:?usage: debian-suite.sh [--make] SUITE [TEST...]}
shift
die() { printf 'debian-suite: %s\n' "$*" >&2; exit 2; }
[ "$(id -u)" = 0 ] || die "run as root (debootstrap, chroot, mounts)"
[[ $SUITE =~ ^[a-z]+$ ]] || die "SUITE is a Debian suite's name (trixie, sid), not '$SUITE'"
for t in "$@"; do
	{ printf '%s\n' "${PLAN[@]}" | awk '{ n = $2; sub(/^[^:]*:/, "", n); print n }'; printf '%s\n' "${MEASURES[@]}"; } |
		grep -xF -- "$t" >/dev/null || # (all read: -q would end the pipe early, and pipefail fail it)
		die "no test '$t' in the plan or MEASURES (log names: e2e-cluster, e2e-users-slurm ...; prefer-slurm, partition-errno, scale-carrier)"
done
git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1 || die "$SRC is not a git checkout (the tree is copied by git's list)"
# The mounts are made in a mount namespace of their own: none reaches the
# machine's (a bind of /dev under a shared / would), and all go with the
# script, however it ends.
if [ "$MAKE_ONLY" = 0 ] && [ -z "${XC_SUITE_NS:-}" ]; then
	exec unshare --mount --propagation private env XC_SUITE_NS=1 bash "${BASH_SOURCE[0]}" "$SUITE" "$@"
fi
BASE=${XC_CHROOT_DIR:-/var/tmp/xc-chroot}
if [ "$MAKE_ONLY" = 1 ]; then
	LOGS=${XC_SUITE_LOGS:-/tmp/slurm-extra-tests/$SUITE-chroot}
else
	LOGS=${XC_SUITE_LOGS:-/tmp/slurm-extra-tests/$SUITE}
fi
# OWN_NET: 1 when the cluster inside gets a network of its own.
OWN_NET=0
if [ "$MAKE_ONLY" = 0 ]; then
	command -v ip >/dev/null ||
		{ DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iproute2 >/dev/null; } || true
	if command -v ip >/dev/null &&
		unshare --net sh -c 'ip link set lo up && ip addr add 192.0.2.1/32 dev lo' 2>/dev/null; then
		OWN_NET=1
	elif [ "${XC_SUITE_NET:-}" = own ]; then
		die "cannot make a network namespace (XC_SUITE_NET=own: the suite runs beside another cluster)"
	else
		for port in 16817 17001 17002 17003 17004; do
			if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
				die "port $port is taken: a local cluster runs (contrib/local-cluster.sh stop)"
			fi
		done
	fi
fi
command -v debootstrap >/dev/null ||
	{ DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; } ||
	die "cannot install debootstrap"
mkdir -p "$BASE" || die "cannot make $BASE"
BASE=$(realpath "$BASE")
# root's alone: what is in it is run as root, and mounted on
[ "$(stat -c '%u' "$BASE")" = 0 ] && [ $((0$(stat -c '%a' "$BASE") & 022)) = 0 ] ||
	die "$BASE is not root's alone (owner root, not writable by group or others)"
ROOT=$BASE/$SUITE-$(date -u +%Y%m%d)
[ ! -L "$ROOT" ] || die "$ROOT is a symbolic link"

# mounted_below DIR: what is mounted at or below DIR, one a line.
mounted_below() { awk -v d="$1" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/self/mounts; }

# One run a suite at a time: a run waits for a --make still making it.
exec 9>"$BASE/.$SUITE.lock"
flock -w 1800 9 || die "another run of $SUITE has held $BASE/.$SUITE.lock for 30 minutes"
# The logs of an earlier run go, in a directory this script made only.
if [ -d "$LOGS" ] && [ -n "$(ls -A "$LOGS")" ] && [ ! -f "$LOGS/.debian-suite" ]; then
	die "$LOGS holds files this script did not write: name another XC_SUITE_LOGS"
fi
rm -rf --one-file-system "$LOGS"
mkdir -p "$LOGS" && touch "$LOGS/.debian-suite" || die "cannot make $LOGS"

# A chroot of an earlier day is removed, unless something is mounted in it
# (a run that did not clean up: removing it would reach this machine's
# /dev and /proc).
for old in "$BASE/$SUITE"-*; do
	[ -d "$old" ] && [ "$old" != "$ROOT" ] || continue
	if [ -n "$(mounted_below "$old")" ]; then
		echo "debian-suite: $old is kept: something is mounted in it" >&2
	else
		rm -rf --one-file-system "$old"
	fi
done
if [ ! -f "$ROOT/.xc-ready" ]; then
	[ -z "$(mounted_below "$ROOT")" ] || die "$ROOT is not ready and has mounts: unmount them first"
	rm -rf --one-file-system "$ROOT"
	echo "# debootstrap $SUITE into $ROOT"
	start=$SECONDS
	debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$ROOT" \
		"${XC_DEBIAN_MIRROR:-http://deb.debian.org/debian}" >"$LOGS/debootstrap.log" 2>&1 ||
		{ tail -20 "$LOGS/debootstrap.log" >&2; die "debootstrap $SUITE failed (log: $LOGS/debootstrap.log)"; }
	echo "# made in $((SECONDS - start)) s"
	echo "$PACKAGES" >"$ROOT/.xc-ready"
else
	echo "# reusing $ROOT"
fi
[ "$MAKE_ONLY" = 0 ] || exit 0

MOUNTED=()
# NET: the command that enters the chroot's network (nsenter), empty on
# this machine's; NET_HOLDER: the process that holds that network.
NET=()
NET_HOLDER=
# kill_inside SIGNAL: sends SIGNAL to every process whose root is the chroot.
kill_inside() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$ROOT" ] && kill "-$1" "${p#/proc/}" 2>/dev/null
	done
	return 0
}
teardown() {
	local i
	trap '' INT TERM # (an interrupt now would leave the mounts)
	if [ -f "$ROOT/src/contrib/local-cluster.sh" ] && [ ${#MOUNTED[@]} -gt 0 ]; then
		run_inside bash /src/contrib/local-cluster.sh stop >/dev/null 2>&1
	fi
	kill_inside TERM
	sleep 1
	kill_inside KILL
	for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do
		umount "${MOUNTED[i]}" 2>/dev/null || umount -l "${MOUNTED[i]}"
	done
	MOUNTED=()
	[ -z "$NET_HOLDER" ] || kill "$NET_HOLDER" 2>/dev/null
	NET_HOLDER='' NET=()
}
trap teardown EXIT
trap 'exit 130' INT TERM
# mount_in TARGET MOUNT-ARGS...
mount_in() {
	local t=$ROOT$1
	shift
	mkdir -p "$t" && mount "$@" "$t" || die "cannot mount $t"
	MOUNTED+=("$t")
}
# (the lock's descriptor closed: a process left inside must not hold it)
run_inside() {
	"${NET[@]}" chroot "$ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@" 9>&-
}

mount_in /proc -t proc proc
mount_in /sys -t sysfs sysfs
mount_in /dev --bind /dev
mount_in /dev/pts --bind /dev/pts
mount_in /run -t tmpfs -o mode=755 tmpfs
mount_in /xc-logs --bind "$LOGS"
cp --remove-destination /etc/hosts /etc/resolv.conf "$ROOT/etc/"
# A chroot made today with another list of packages gets the new ones.
if [ "$(cat "$ROOT/.xc-ready")" != "$PACKAGES" ]; then
	echo "# apt-get install ${PACKAGES//,/ }"
	# (the registry may serve a snapshot whose Release has expired:
	# debootstrap does not check its date, apt does)
	{ run_inside apt-get -o Acquire::Check-Valid-Until=false update -qq &&
		run_inside env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${PACKAGES//,/ }; } \
		>"$LOGS/apt.log" 2>&1 || die "cannot install the packages (log: $LOGS/apt.log)"
	echo "$PACKAGES" >"$ROOT/.xc-ready"
fi
# The configured source tree of this Slurm for the guard at placement
# (contrib/slurm-source.sh, kept in the chroot for the day), fetched
# while the chroot still has the machine's network; its log beside the
# suite's.  Without it the suite builds no guard and says so.
cp "$SRC/contrib/slurm-source.sh" "$ROOT/tmp/slurm-source.sh" &&
	run_inside nice -n 10 bash /tmp/slurm-source.sh /var/tmp/xc-slurm-src >"$LOGS/slurm-source.log" 2>&1 ||
	echo "# no Slurm source tree: $(tail -n 1 "$LOGS/slurm-source.log")"

# The network of the chroot's cluster: a namespace that a process holds
# until this script ends (tail --pid; killed at the teardown), loopback
# up, with a second address (TEST-NET-1's 192.0.2.1): Slurm's daemons
# find the address to listen on with getaddrinfo(NULL, port) for IPv4
# and AI_ADDRCONFIG (xgetaddrinfo(), src/common/util-net.c), which glibc
# answers with nothing where 127.0.0.1 is the only IPv4 address.  The
# machine's name first on loopback there (Slurm's clients resolve it, and
# the machine's own address is not in that network).  Made after the
# packages above are installed: apt needs the machine's network, and
# nothing inside does.
if [ "$OWN_NET" = 1 ]; then
	unshare --net tail --pid=$$ -f /dev/null 9>&- &
	NET_HOLDER=$!
	for _ in $(seq 50); do
		[ "$(readlink "/proc/$NET_HOLDER/ns/net")" = "$(readlink /proc/self/ns/net)" ] || break
		sleep 0.1
	done
	NET=(nsenter "--net=/proc/$NET_HOLDER/ns/net")
	[ "$(readlink "/proc/$NET_HOLDER/ns/net")" != "$(readlink /proc/self/ns/net)" ] &&
		"${NET[@]}" ip link set lo up && "${NET[@]}" ip addr add 192.0.2.1/32 dev lo ||
		die "cannot make the chroot's network"
	{ printf '127.0.0.1 %s\n' "$(hostname)" "$(hostname -f 2>/dev/null || hostname)" && cat /etc/hosts; } >"$ROOT/etc/hosts" ||
		die "cannot write $ROOT/etc/hosts"
	echo "# the chroot's cluster on a network of its own (loopback alone)"
fi

echo "# this tree into $ROOT/src"
rm -rf --one-file-system "$ROOT/src"
mkdir -p "$ROOT/src"
git -C "$SRC" ls-files -co --exclude-standard -z |
	(cd "$SRC" && tar --null -T - -cf -) | tar -C "$ROOT/src" -xf - || die "cannot copy the tree"
# package-deb.sh copies the tree by git's list too
run_inside git -C /src init -q && run_inside git -C /src add -A &&
	run_inside git -C /src -c user.name=ci -c user.email=ci@localhost commit -qm tree ||
	die "cannot make the copy a git tree"

t0=$SECONDS
# (in the background, waited for: a SIGTERM then ends the wait at once,
# and the teardown stops what runs inside)
# shellcheck disable=SC2086 # XC_MEASURE_ENV: NAME=VALUE words
run_inside env ${XC_MEASURE_ENV:-} bash /src/tests/cluster/debian-suite.sh --inside "$SUITE" "$@" &
wait $!
rc=$?
teardown
echo "# the run inside took $((SECONDS - t0)) s"
passed=0 failed=0
while read -r c p f; do
	printf '  %-14s %5d passed, %d failed\n' "$c:" "$p" "$f"
	passed=$((passed + p)) failed=$((failed + f))
done <"$LOGS/counts" 2>/dev/null || { failed=$((failed + 1)); echo "  no counts: the run inside died"; }
[ "$rc" = 0 ] || [ "$failed" -gt 0 ] || { failed=1; echo "  a step failed without a count"; }
printf '\n%s: %d passed, %d failed\n' "$SUITE" "$passed" "$failed"
[ "$failed" -eq 0 ]
