#!/usr/bin/env bash
# local-cluster.sh - a real 4-node Slurm cluster on this machine, with
# slurm-extra's plugins loaded, for trying --extra and for the tests.
#
#   contrib/local-cluster.sh demo     install, build, start, run sample jobs,
#                                     publish node facts and select by them;
#                                     filtered by the guard at placement
#                                     where it builds (XC_SLURM_SOURCE=auto
#                                     unless set: Debian's Slurm source),
#                                     else by Slurm's own filter (23.11+);
#                                     neither: it stops and says why
#   contrib/local-cluster.sh setup    install packages, build, install
#   contrib/local-cluster.sh start    (re)start munged, slurmctld, 4 slurmd
#   contrib/local-cluster.sh extra    give the nodes contrib/examples/nodes.json
#   contrib/local-cluster.sh stop     stop the cluster
#   contrib/local-cluster.sh munge    start munged alone (the scale scripts)
#   contrib/local-cluster.sh env      print the SLURM_CONF line for a shell
#   (for tests: ctld-restart, ctld-stop, ctld-start, ctld-reconfig-nodes,
#    slurmd stop|start NODE..., wait-nodes)
#
# Runs as root on Debian 12 (or a machine with Slurm 22.05+ installed).
# Everything the cluster writes is under $XC_STATE
# (default /var/lib/slurm-extra-cluster); it never touches /etc/slurm.
# For tests: XC_MIN_JOB_AGE, XC_JOBCOMP, XC_CPUS (job slots per node),
# XC_JOB_SUBMIT (JobSubmitPlugins),
# XC_PARTITIONS=2 (a second partition "other" over the same nodes),
# XC_SCHED_PARAMS (SchedulerParameters; default batch_sched_delay=0),
# XC_USERS (the unprivileged accounts `start` creates when missing;
# default "xcuser1 xcuser2"), XC_NODE5=1 (a fifth node, without slurmd; `ctld-reconfig-nodes` writes
# it into slurm.conf and restarts slurmctld).
# XC_SLURM_PREFIX=PREFIX: use the Slurm installed under PREFIX (e.g. one
# built from SchedMD's sources with --enable-multiple-slurmd) instead of
# the system's: its commands and daemons, and `setup` builds against its
# headers and installs the plugins into its plugin directory.
# XC_NO_BUILD=1: `setup` and `demo` use the slurm-extra already installed
# (a package) instead of building this tree.
# XC_SLURM_SOURCE=DIR|auto: `setup` builds the guard at placement against
# that configured Slurm source tree (auto: contrib/slurm-source.sh's, on
# Slurm 22.05 and 24.11, the ones the guard builds against).
# XC_BURST_BUFFER: slurm.conf's BurstBufferType (burst_buffer/extra: the
# guard at placement, built with configure --with-slurm-source; `demo`
# sets it where the guard is installed, unless set, even empty).
# XC_PLUGIN_DIR: slurm.conf's PluginDir (a list with ':'; e.g. a directory
# holding a sanitizer build of job_submit_extra.so, then Slurm's own).
# XC_CTLD_ENV: NAME=VALUE words slurmctld is started with (LD_PRELOAD and
# ASAN_OPTIONS for that build).
# XC_CTLD_STDERR=FILE: slurmctld runs in the foreground (-D) in the
# background, its stderr appended to FILE: what a sanitizer prints there
# (UBSan ignores log_path when ASan is preloaded) is kept, where a daemon's
# stderr is /dev/null.
# XC_CRED_EXPIRE=N: AuthInfo=cred_expire=N (Slurm holds a requeued job
# back N + 1 s; default 120).
# XC_PLUGSTACK: the cluster's plugstack.conf line (default
# `required spank_extra.so`; the package test includes the package's
# /etc/slurm/plugstack.conf.d/*.conf).
# XC_CGROUP_CONF: the words of a cgroup.conf beside slurm.conf (none by
# default; tests/cluster/debian-suite.sh's chroots: CgroupPlugin=disabled).
# XC_CTLD_STOP_S=N: `ctld-restart`, `ctld-reconfig-nodes` and `ctld-stop`
# SIGKILL a slurmctld that has not stopped N s after SIGTERM (default 30),
# and say so in its log (ctld_kill).
set -euo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STATE=${XC_STATE:-/var/lib/slurm-extra-cluster}
export SLURM_CONF="$STATE/slurm.conf"
NODES=(n1 n2 n3 n4)
CTLD_PORT=16817
PACKAGES=(slurm-wlm libslurm-dev munge libjansson-dev libjson-c-dev libcriterion-dev libhwloc-dev
	autoconf automake libtool pkg-config make gcc jq)
# contrib/slurm-source.sh's (XC_SLURM_SOURCE=auto): the downloads, their
# signatures, Debian's unpacking, and Slurm's configure from 24.11
# (the demo builds the guard at placement where it can: auto unless set)
[ "${1:-}" != demo ] || XC_SLURM_SOURCE=${XC_SLURM_SOURCE-auto}
[ "${XC_SLURM_SOURCE:-}" != auto ] ||
	PACKAGES+=(curl xz-utils gpgv debian-archive-keyring dpkg-dev patch libmunge-dev)

# wait_for, wait_job and the slurm.conf lines, shared with the cluster
# tests.
XC_STATE=$STATE
. "$SRC/tests/cluster/cluster-lib.sh"

say() { printf '==> %s\n' "$*"; }
die() { printf 'local-cluster: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (it starts Slurm's daemons)"

install_packages() {
	local missing=()
	for p in "${PACKAGES[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	say "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq "${missing[@]}" >/dev/null
}

# guard_builds: the Slurm run here is one the guard at placement builds
# against: 22.05 or 24.11 (ctld/burst_buffer_extra.c refuses the others).
guard_builds() { [[ $(slurmctld -V 2>/dev/null) =~ (^|[^0-9.])(22\.05|24\.11)\. ]]; }

# The configured Slurm source tree the guard at placement is built
# against (configure --with-slurm-source): XC_SLURM_SOURCE=DIR, or =auto
# for contrib/slurm-source.sh's in /var/tmp/xc-slurm-src (fetched from
# Debian's registry and configured once), on a Slurm the guard builds
# against (guard_builds); without it, no guard, and why on stderr.
slurm_source() {
	case "${XC_SLURM_SOURCE:-}" in
	"") ;;
	auto)
		if ! guard_builds; then
			say "$(slurmctld -V 2>/dev/null || echo "this Slurm"): the guard at placement builds against Slurm 22.05 and 24.11 only: built without it" >&2
		elif bash "$SRC/contrib/slurm-source.sh" /var/tmp/xc-slurm-src >&2; then
			echo /var/tmp/xc-slurm-src/slurm
		else
			say "no Slurm source tree (contrib/slurm-source.sh failed, above): built without the guard at placement" >&2
		fi ;;
	*) echo "$XC_SLURM_SOURCE" ;;
	esac
}

build_and_install() {
	local with="--with-slurm=${XC_SLURM_PREFIX:-/usr}" source opts
	if [ "${XC_NO_BUILD:-0}" = 1 ]; then
		say "using the installed slurm-extra: $(command -v slurm-extra || echo none)"
		return 0
	fi
	source=$(slurm_source)
	opts=("$with")
	[ -z "$source" ] || opts+=("--with-slurm-source=$source")
	say "building slurm-extra in $SRC (${opts[*]})"
	cd "$SRC"
	[ -x configure ] || ./bootstrap >/dev/null 2>&1
	# A tree configured for another Slurm, or with another source tree,
	# is configured anew.
	if [ -f Makefile ] && { ! grep -qF -- "'$with'" config.status ||
		[ "$(grep -o -- "'--with-slurm-source=[^']*'" config.status | tail -1)" != \
			"${source:+'--with-slurm-source=$source'}" ]; }; then
		make -s distclean >/dev/null 2>&1 || true
	fi
	[ -f Makefile ] || ./configure --quiet "${opts[@]}"
	make -s -j"$(nproc)" >/dev/null
	make -s install >/dev/null
	cd - >/dev/null
}

write_config() {
	local PART_NODES=n[1-4]
	[ "${XC_NODE5:-0}" = 1 ] && PART_NODES=n[1-5]
	mkdir -p "$STATE"/{ctld,log,spool}
	cat >"$STATE/slurm.conf" <<EOF
# Written by slurm-extra's contrib/local-cluster.sh
ClusterName=xclocal
$(slurm_conf_ctld "$STATE")
SlurmctldPort=$CTLD_PORT
SlurmdUser=root
SlurmdSpoolDir=$STATE/spool/%n
SlurmdPidFile=$STATE/slurmd-%n.pid
SlurmdLogFile=$STATE/log/slurmd-%n.log
SlurmdDebug=info
SwitchType=switch/none
JobCompType=${XC_JOBCOMP:-jobcomp/none}
JobCompLoc=$STATE/jobcomp.log
SchedulerType=sched/backfill
$( [ -n "${XC_SCHED_PARAMS-batch_sched_delay=0}" ] && echo "SchedulerParameters=${XC_SCHED_PARAMS-batch_sched_delay=0}" )
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=${XC_MIN_JOB_AGE:-3600}
$( [ -n "${XC_JOB_SUBMIT-extra}" ] && echo "JobSubmitPlugins=${XC_JOB_SUBMIT-extra}" )
$( [ -n "${XC_PLUGIN_DIR:-}" ] && echo "PluginDir=$XC_PLUGIN_DIR" )
$( [ -n "${XC_BURST_BUFFER:-}" ] && echo "BurstBufferType=$XC_BURST_BUFFER" )
$( [ -n "${XC_CRED_EXPIRE:-}" ] && echo "AuthInfo=cred_expire=$XC_CRED_EXPIRE" )
$( [ "${XC_CPUS:-1}" -gt 1 ] && echo "SlurmdParameters=config_overrides" )
NodeName=n[1-4] NodeHostname=localhost NodeAddr=127.0.0.1 Port=17001-17004 CPUs=${XC_CPUS:-1} State=UNKNOWN
$( [ "${XC_NODE5:-0}" = 1 ] && echo "NodeName=n5 NodeHostname=localhost NodeAddr=127.0.0.1 Port=17005 CPUs=${XC_CPUS:-1} State=${XC_NODE5_STATE:-UNKNOWN}" )
PartitionName=debug Nodes=$PART_NODES Default=YES MaxTime=INFINITE State=UP
$( [ "${XC_PARTITIONS:-1}" = 2 ] && echo "PartitionName=other Nodes=$PART_NODES MaxTime=INFINITE State=UP" )
EOF
	slurm_conf_beside "$STATE" "${XC_PLUGSTACK:-required spank_extra.so}"
}

start_munge() {
	if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
		return 0
	fi
	say "starting munged"
	[ -s /etc/munge/munge.key ] || runuser -u munge -- mungekey -c
	mkdir -p /run/munge && chown munge:munge /run/munge
	runuser -u munge -- /usr/sbin/munged
	for _ in $(seq 50); do
		munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	die "munged did not start"
}

# running PID: the process runs.  A daemon that has exited stays a zombie
# until its parent reaps it, and a daemon's parent is the machine's init,
# which may reap late (a container's or a VM's init), while `kill -0`
# succeeds on a zombie: so its state in /proc/PID/stat is read.
running() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	[ -n "$stat" ] && [ "${stat%% *}" != Z ]
}

# named PID NAME: process PID is the daemon NAME: its name is NAME, or
# NAME-SOMETHING (Debian installs slurmctld-wlm and slurmd-wlm behind
# alternatives' links, and from 23.11 a reconfigure execs the binary that
# /proc/self/exe names, so the new process is named slurmctld-wlm).
named() {
	local comm
	comm=$(cat "/proc/$1/comm" 2>/dev/null) || return 1
	case $comm in "$2" | "$2"-*) return 0 ;; esac
	return 1
}

# pid_of FILE NAME: the pid on FILE's first line when it is a process
# of the daemon NAME (named) that runs; nothing otherwise.  Only the first line: Slurm
# rewrites a pid file in place at a reconfigure (update_pidfile() in
# src/common/daemonize.c), so a shorter pid leaves the old one's last
# digits on a second line ("812\n0"), which must never be signalled
# (`kill 0` is the caller's own process group).
pid_of() {
	local pid=
	read -r pid 2>/dev/null <"$1" || true
	[[ $pid =~ ^[1-9][0-9]*$ ]] || return 0
	named "$pid" "$2" && running "$pid" && echo "$pid"
	return 0
}

# stop_pidfile FILE NAME TENTHS: stops the daemon NAME of pid FILE,
# waiting up to TENTHS tenths of a second; status 1 if it is still
# running (STOP_PID then has its pid).
STOP_PID=
stop_pidfile() {
	local f=$1
	STOP_PID=$(pid_of "$f" "$2")
	[ -n "$STOP_PID" ] || { rm -f "$f"; return 0; }
	kill "$STOP_PID" 2>/dev/null || true
	for _ in $(seq "$3"); do
		# named too: a pid reused meanwhile is not the daemon
		{ running "$STOP_PID" && named "$STOP_PID" "$2"; } || { rm -f "$f"; return 0; }
		sleep 0.1
	done
	return 1
}

# ctld_listens: something accepts connections on SlurmctldPort.
ctld_listens() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$CTLD_PORT" 2>/dev/null; }

# ours PID: PID runs under the same root as this script: a chroot shares
# the machine's process list, and the clusters of tests/cluster/debian-suite.sh
# run in chroots beside this machine's own.
ours() { [ "$(stat -L -c %d:%i "/proc/$1/root" 2>/dev/null)" = "$(stat -L -c %d:%i /)" ]; }

# cluster_ctlds: the pids of this cluster's slurmctld processes that run:
# slurmctld by name, under the same root as this script, started with
# this cluster's SLURM_CONF.
cluster_ctlds() {
	local p
	for p in $(pgrep '^slurmctld(-.*)?$'); do
		ours "$p" || continue
		grep -qzxF "SLURM_CONF=$SLURM_CONF" "/proc/$p/environ" 2>/dev/null || continue
		running "$p" && echo "$p"
	done
	return 0
}

# descendants PID: the pids of PID's children, theirs, and so on.
descendants() {
	local c
	for c in $(pgrep -P "$1"); do
		echo "$c"
		descendants "$c"
	done
	return 0
}

# lone_ctlds: the pids of this cluster's slurmctld processes that run
# and whose parent is none of them: slurmctld by name (as named), under
# the same root as this script (a chroot shares the machine's process
# list), started with this cluster's SLURM_CONF (a reconfigure's new
# slurmctld inherits it).  A reconfigure's new slurmctld is its old one's child until the old
# one exits.  (slurmscriptd names itself slurmscriptd: never among them.)
lone_ctlds() {
	local p stat
	local -A ppid=()
	for p in $(cluster_ctlds); do
		# its parent: the field after the state
		stat=$(cat "/proc/$p/stat" 2>/dev/null) || continue
		stat=${stat##*) }
		stat=${stat#* }
		ppid[$p]=${stat%% *}
	done
	for p in "${!ppid[@]}"; do
		[ -n "${ppid[${ppid[$p]}]:-}" ] || echo "$p"
	done
}

# stop_ctld_pids TENTHS: stops slurmctld, waiting up to TENTHS tenths of a
# second until every process the pid file named has exited and nothing
# listens on SlurmctldPort; status 1 if that did not happen (CTLD_PIDS
# then has the pids).  From 23.11 on `scontrol reconfigure` starts a new
# slurmctld, which answers at once (it inherits the listening sockets) but
# writes its pid into the pid file only once it is up (controller.c:
# notify_parent_of_success(), then _update_pidfile()), and the old one
# goes on when the new one dies before that ("Resuming operation,
# reconfigure failed"): so the file is read again on every turn, each new
# pid in it stopped too, and when every process it named has exited and
# the port still answers for 5 s, lone_ctlds are stopped.  slurmctld
# removes its pid file before it exits, and a sanitizer build writes its
# report at exit: so the wait is on the processes.  SIGTERM again every
# 3 s (one that came as a reconfigure's exec replaced the process is lost).
CTLD_PIDS=()
stop_ctld_pids() {
	local f=$STATE/slurmctld.pid pid live i gone=0 more
	local -A seen=()
	CTLD_PIDS=()
	for ((i = 0; i < $1; i++)); do
		more=$(pid_of "$f" slurmctld)
		[ "$gone" -lt 50 ] || more+=" $(lone_ctlds)"
		for pid in $more; do
			[ -z "${seen[$pid]:-}" ] || continue
			seen[$pid]=1
			CTLD_PIDS+=("$pid")
			kill "$pid" 2>/dev/null || true
		done
		live=0
		for pid in "${CTLD_PIDS[@]}"; do
			{ running "$pid" && named "$pid" slurmctld; } || continue
			live=1
			[ $((i % 30)) != 29 ] || kill "$pid" 2>/dev/null || true
		done
		if [ "$live" = 0 ]; then
			ctld_listens || { rm -f "$f"; return 0; }
			gone=$((gone + 1))
		fi
		sleep 0.1
	done
	return 1
}

stop_daemons() {
	local f pid
	for f in "$STATE"/slurmd-*.pid; do
		stop_pidfile "$f" slurmd 50 || {
			! named "$STOP_PID" slurmd || kill -9 "$STOP_PID" 2>/dev/null || true
			rm -f "$f"
		}
	done
	# slurmctld: 60 s to shut down (a sanitizer build writes its report
	# at exit); killed, it says so (tests read the log).
	stop_ctld_pids 600 || ctld_kill 60 || true
	# Daemons of an earlier run whose pid files are gone (this root's).
	for pid in $(pgrep -f "slurmd -N n[1-4]\$"); do
		! ours "$pid" || kill "$pid" 2>/dev/null || true
	done
}

wait_for_nodes() {
	local states
	for _ in $(seq 120); do
		states=$(sinfo -h -N -o '%N %T' 2>/dev/null | sort -u || true)
		if [ -n "$states" ] && ! grep -qvE ' (idle|mixed|allocated)$' <<<"$states"; then
			return 0
		fi
		if grep -qE ' (down|drained)' <<<"$states"; then
			scontrol update nodename=n[1-4] state=resume 2>/dev/null || true
		fi
		sleep 0.5
	done
	sinfo -N >&2 || true
	die "nodes did not come up; see $STATE/log"
}

# Two unprivileged accounts, for trying the cluster as its users do (the
# tests submit and update jobs as them, and as each other's stranger).
ensure_users() {
	local u
	for u in ${XC_USERS:-xcuser1 xcuser2}; do
		id -u "$u" >/dev/null 2>&1 || useradd -m -s /bin/bash "$u"
	done
}

start_cluster() {
	stop_daemons
	write_config
	ensure_users
	start_munge
	say "starting slurmctld and slurmd ${NODES[*]} (SLURM_CONF=$SLURM_CONF)"
	rm -rf "$STATE/ctld"/* "$STATE/spool"/* "$STATE/log"/* "$STATE/jobcomp.log"
	start_ctld -c -i
	for n in "${NODES[@]}"; do
		mkdir -p "$STATE/spool/$n"
		slurmd -N "$n"
	done
	wait_for_nodes
	say "cluster up: $(sinfo -h -o '%D nodes %T' | paste -sd, -)"
}

# ctld_stuck_report: what a slurmctld that did not stop was doing, on
# stderr: the processes stop_ctld_pids signalled, every slurmctld and
# slurmscriptd, whether the port still answers, and the end of its log.
ctld_stuck_report() {
	local pid
	{
		echo "local-cluster: the slurmctld pids signalled: ${CTLD_PIDS[*]:-none}"
		for pid in "${CTLD_PIDS[@]}"; do
			ps -o pid=,ppid=,stat=,etime=,wchan:24=,args= -p "$pid" || echo "$pid: gone"
		done
		echo "local-cluster: every slurmctld and slurmscriptd:"
		pgrep -a 'slurm(ctld|scriptd)' || true
		ctld_listens && echo "local-cluster: SlurmctldPort $CTLD_PORT still answers"
		echo "local-cluster: the end of $STATE/log/slurmctld.log:"
		tail -n 15 "$STATE/log/slurmctld.log" 2>/dev/null || true
	} >&2
}

# ctld_kill SECONDS: after stop_ctld_pids gave up (SECONDS of SIGTERM),
# what systemd does once a unit's stop times out (TimeoutStopSec, 90 s
# by default), to the whole control group: says what slurmctld was doing
# (ctld_stuck_report), SIGKILLs every slurmctld of this cluster (those
# signalled, and a reconfigure's new one not yet in the pid file) with
# their children (slurmscriptd and its scripts), and says so on stderr
# and in slurmctld's log ("slurmctld killed after", which tests count:
# tests/cluster/cluster-lib.sh summary; a killed slurmctld writes no
# sanitizer report, and its state is the last it saved).  Slurm before
# 24.11.6 can hang there by itself: _send_to_slurmscriptd() writes its
# flush before it waits for the answer, which can come in between and be
# lost (src/slurmctld/slurmscriptd.c, 22.05.8 line 294, 24.11.5 line 394;
# "Fix a race condition that can cause slurmctld to hang forever when
# trying to shutdown or reconfigure", 24.11.6).  Status 1 if a process
# killed still runs, or SlurmctldPort still answers, 10 s after.
ctld_kill() {
	local pid live killed=()
	local -A doomed=()
	ctld_stuck_report
	for pid in "${CTLD_PIDS[@]}" $(cluster_ctlds); do
		{ ours "$pid" && named "$pid" slurmctld && running "$pid"; } || continue
		doomed[$pid]=1
		for live in $(descendants "$pid"); do doomed[$live]=1; done
	done
	for pid in "${!doomed[@]}"; do
		! kill -9 "$pid" 2>/dev/null || killed+=("$pid")
	done
	rm -f "$STATE/slurmctld.pid"
	[ "${#killed[@]}" = 0 ] ||
		echo "local-cluster: slurmctld killed after $1 s (pids ${killed[*]})" |
		tee -a "$STATE/log/slurmctld.log" >&2
	for _ in $(seq 100); do
		live=0
		for pid in "${killed[@]}"; do ! running "$pid" || live=1; done
		[ "$live" = 1 ] || ctld_listens || return 0
		sleep 0.1
	done
	echo "local-cluster: slurmctld still runs or SlurmctldPort $CTLD_PORT still answers 10 s after the kill" >&2
	return 1
}

# Stops slurmctld only (its state is kept): SIGTERM, and SIGKILL after
# XC_CTLD_STOP_S seconds (default 30; ctld_kill).
stop_ctld() {
	local s=${XC_CTLD_STOP_S:-30}
	[[ $s =~ ^[1-9][0-9]*$ ]] || die "XC_CTLD_STOP_S=$s: a number of seconds, at least 1"
	stop_ctld_pids "$((s * 10))" || ctld_kill "$s" || die "slurmctld did not stop"
}

# start_ctld [ARGS]: starts slurmctld (by default on the saved state:
# jobs, node Extra) and waits for it to answer.
start_ctld() {
	# A slurmctld already listening would answer for the new one, which
	# dies (its ports are taken) after writing its pid into the pid file.
	! ctld_listens || die "something listens on SlurmctldPort $CTLD_PORT already (a slurmctld not stopped?)"
	# shellcheck disable=SC2086 # XC_CTLD_ENV: words NAME=VALUE
	if [ -n "${XC_CTLD_STDERR:-}" ]; then
		setsid env ${XC_CTLD_ENV:-} slurmctld -D "$@" </dev/null >/dev/null 2>>"$XC_CTLD_STDERR" &
	else
		env ${XC_CTLD_ENV:-} slurmctld "$@"
	fi
	for _ in $(seq 600); do # 60 s: a loaded machine, a sanitizer build
		scontrol ping 2>/dev/null | grep -q UP && return 0
		sleep 0.1
	done
	die "slurmctld did not answer"
}

# slurmd_ctl stop|start NODE...
slurmd_ctl() {
	local action=$1 n
	shift
	for n in "$@"; do
		if [ "$action" = stop ]; then
			stop_pidfile "$STATE/slurmd-$n.pid" slurmd 100 || die "slurmd $n did not stop within 10 s"
		else
			slurmd -N "$n"
		fi
	done
}

set_extra() {
	local file=${1:-$SRC/contrib/examples/nodes.json}
	say "node Extra from $file"
	jq -r 'to_entries[] | "\(.key)\t\(.value | tojson)"' "$file" |
	while IFS=$'\t' read -r node extra; do
		scontrol update nodename="$node" extra="$extra"
		printf '    %s Extra=%s\n' "$node" "$extra"
	done
}


demo_job() {
	local request=$1 out id matched
	printf "\n\$ sbatch --extra '%s' --wrap 'echo \$SLURMD_NODENAME'\n" "$request"
	matched=$(slurm-extra eval "$request" --slurm 2>/dev/null || true)
	if out=$(sbatch --parsable --extra "$request" -o "$STATE/job-%j.out" \
		--wrap 'echo $SLURMD_NODENAME' 2>&1); then
		id=${out##*$'\n'}
		wait_job "$id" >/dev/null
		printf '    request:        %s\n' "$request"
		printf '    matching nodes: %s\n' "${matched:-none}"
		printf '    ran on:         %s (job %s)\n' \
			"$(scontrol show job "$id" | grep -oP '\bNodeList=\K\S+')" "$id"
		if guard_loaded; then
			printf '    kept off:       the others, by burst_buffer/extra at the placement (ExcNodeList %s: the user'"'"'s own)\n' \
				"$(scontrol show job "$id" | grep -oP 'ExcNodeList=\K\S+')"
		else
			printf '    kept off:       the others, by Slurm itself at the placement (SchedulerParameters extra_constraints)\n'
		fi
	else
		printf '    request:        %s\n' "$request"
		slurm-extra check "$request" >/dev/null 2>&1 &&
			printf '    matching nodes: %s\n' "${matched:-none}"
		printf '    refused:\n'
		sed 's/^/      /' <<<"$out"
	fi
}


# look_walked_after LINE: the guard's look logged a walk after a change
# of Extra after line LINE of slurmctld's log.  (A walk before the Extra
# was set only holds jobs back: unset Extra matches no request, and the
# next walk sees it.)
look_walked_after() {
	tail -n +"$(($1 + 1))" "$STATE/log/slurmctld.log" |
		grep -qE 'burst_buffer/extra: the look walked after a change'
}

job_state() { scontrol show job "$1" | grep -oP '\bJobState=\K\S+'; }
job_running() { case "$(job_state "$1")" in RUNNING | COMPLETED) return 0 ;; esac; return 1; }
job_reason_is() { [ "$(squeue -h -j "$1" -o %r)" = "$2" ]; }

# A job that no node satisfies: it waits, and starts when an Extra update
# makes a node satisfy it.
demo_wait() {
	local request='gpu=true&mem>4096' out id t0 t1
	printf "\n\$ sbatch --extra '%s' --wrap 'echo \$SLURMD_NODENAME'\n" "$request"
	# (refused, it says why and the demo goes on, as demo_job does)
	if ! out=$(sbatch --parsable --extra "$request" -o "$STATE/job-%j.out" \
		--wrap 'echo $SLURMD_NODENAME' 2>&1); then
		printf '    refused:\n'
		sed 's/^/      /' <<<"$out"
		return 0
	fi
	id=${out##*$'\n'}
	printf '    Submitted batch job %s\n' "$id"
	# (it waits: with the guard, for its burst buffer stage-in, which the
	# guard answers "not yet"; with Slurm's own filter, for Constraints,
	# FAIL_CONSTRAINTS: doc/language.md section 7)
	wait_for 15 eval 'job_reason_is "$id" BurstBufferStageIn || job_reason_is "$id" Constraints' || true
	printf '$ squeue -j %s -o "%%i %%T %%r"\n' "$id"
	squeue -j "$id" -o '%i %T %r' | sed 's/^/    /'
	# (job_submit/extra records the request there for the guard; where
	# Slurm filters, the job's Extra is its request and nothing is written)
	if guard_loaded; then
		printf '$ scontrol show job %s | grep AdminComment\n' "$id"
		scontrol show job "$id" | grep -o 'AdminComment=.*' | sed 's/^/    /' || true
	fi
	printf '$ slurm-extra why --job %s\n' "$id"
	# (exit 1: no node satisfies the request)
	slurm-extra why --job "$id" | sed 's/^/    /' || true
	printf "\$ scontrol update nodename=n2 extra='{\"gpu\":true,\"mem\":8192}'\n"
	t0=$(date +%s%3N)
	scontrol update nodename=n2 extra='{"gpu":true,"mem":8192}'
	if wait_for 30 job_running "$id"; then
		t1=$(date +%s%3N)
		wait_job "$id" >/dev/null
		printf '    job %s started %d.%03d s later, on %s\n' "$id" \
			$(((t1 - t0) / 1000)) $(((t1 - t0) % 1000)) \
			"$(scontrol show job "$id" | grep -oP '\bNodeList=\K\S+')"
	else
		printf '    job %s did not start within 30 s\n' "$id"
	fi
}

# The nodes publish their facts (slurm-extra facts --publish), each with
# its own site directory so that they differ (rows a and b; n4's hook
# licenses an application), and a job selects by them.
demo_facts() {
	local n row c0 site
	site="$STATE/extra.d"
	for n in "${NODES[@]}"; do
		mkdir -p "$site/$n"
		case $n in n1 | n2) row=a ;; *) row=b ;; esac
		printf '{"site_row": "%s"}\n' "$row" >"$site/$n/10-site.json"
	done
	printf '#!/bin/sh\necho "{\\"licensed_app\\": true}"\n' >"$site/n4/20-license"
	chmod 755 "$site/n4/20-license"
	say "node facts: slurm-extra facts, published into each node's Extra"
	printf '\n$ slurm-extra facts -v\n'
	slurm-extra facts -v --dir "$site/n1" 2>&1 >/dev/null | grep -v '^slurm-extra: note' |
		sed -n '1,6p;/^x86_64_level/p;/^mem_mb/p;/^gpu_count/p;/^os_/p;/^kernel_release/p;/^site_row/p' |
		sed 's/^/    /'
	printf '    ... (%s facts in all; `slurm-extra facts` prints them as one JSON object)\n' \
		"$(slurm-extra facts --dir "$site/n1" | jq length)"
	c0=$(sdiag | grep -oP 'REQUEST_UPDATE_NODE\s+\(\s*\d+\)\s+count:\K\d+' || echo 0)
	for n in "${NODES[@]}"; do
		printf '$ slurm-extra facts --publish --node %s --dir %s\n' "$n" "$site/$n"
		slurm-extra facts --publish --node "$n" --dir "$site/$n" --state "$STATE/facts-state" |
			cut -c1-100 | sed 's/$/ .../; s/^/    /'
	done
	printf '$ # the same again: nothing changed, so no update\n'
	for n in "${NODES[@]}"; do
		slurm-extra facts --publish --node "$n" --dir "$site/$n" --state "$STATE/facts-state" |
			sed 's/^/    /'
	done
	printf '    slurmctld saw %s node updates in all (sdiag)\n' \
		"$(($(sdiag | grep -oP 'REQUEST_UPDATE_NODE\s+\(\s*\d+\)\s+count:\K\d+') - c0))"
	printf '$ scontrol show node n4 | grep Extra   # the keys set by hand are kept\n'
	scontrol show node n4 | grep -oP '^\s*Extra=\K.*' | cut -c1-100 | sed 's/^/    Extra=/; s/$/ .../'
	demo_job "cpu_arch=$(uname -m)&site_row=b&licensed_app=true&mem_mb>=1024"
}

# demo_filter: who filters the demo's jobs by --extra, as nothing else
# would (job_submit/extra refuses every request where nothing filters):
# the guard at placement where it is installed (guard_so), unless
# XC_BURST_BUFFER is set otherwise; else, on Slurm 23.11 and later,
# Slurm's own filter (SchedulerParameters extra_constraints, added to
# XC_SCHED_PARAMS), said so; else the demo stops, saying why and how to
# give the guard's build a Slurm source tree.
demo_filter() {
	if [ -z "${XC_BURST_BUFFER+set}" ] && guard_so >/dev/null; then
		export XC_BURST_BUFFER=burst_buffer/extra
	fi
	if guard_loaded; then
		say "the guard at placement filters (BurstBufferType=burst_buffer/extra)"
		return 0
	fi
	local why="the guard at placement (burst_buffer_extra.so) is not installed"
	if guard_so >/dev/null; then
		why="XC_BURST_BUFFER='$XC_BURST_BUFFER' does not load the guard at placement"
	elif [ "${XC_NO_BUILD:-0}" = 1 ]; then
		why+=" (XC_NO_BUILD=1: the installed slurm-extra was built without it)"
	elif [ -z "${XC_SLURM_SOURCE:-}" ]; then
		why+=" (XC_SLURM_SOURCE is empty: built without it)"
	else
		why+=": it could not be built (see above)"
	fi
	if ! slurm_filters; then
		if ! slurm_at_least 23 11; then
			die "$why, and $(slurmctld -V) has no filter of its own (SchedulerParameters=extra_constraints is 23.11's): with neither, job_submit/extra refuses every --extra request.
The guard builds against Slurm 22.05 and 24.11, given the configured source tree of the exact Slurm installed: run the demo with XC_SLURM_SOURCE=DIR (DIR: that tree, ./configure run in it), or XC_SLURM_SOURCE=auto (the demo's default) to have contrib/slurm-source.sh fetch it from Debian's registry and configure it (it needs deb.debian.org); or run 'bash contrib/slurm-source.sh DIR' yourself and give XC_SLURM_SOURCE=DIR/slurm."
		fi
		XC_SCHED_PARAMS=${XC_SCHED_PARAMS-batch_sched_delay=0}
		export XC_SCHED_PARAMS=${XC_SCHED_PARAMS:+$XC_SCHED_PARAMS,}extra_constraints
	fi
	say "$why: Slurm filters by --extra itself (SchedulerParameters=$XC_SCHED_PARAMS; without the guard, --extra-prefer is refused)"
}

demo() {
	install_packages
	build_and_install
	demo_filter
	start_cluster
	local mark
	mark=$(wc -l <"$STATE/log/slurmctld.log")
	set_extra
	# (the guard's look keeps the jobs' excluded nodes from a walk after
	# the change; Slurm's own filter reads the Extra at each placement)
	! guard_loaded || wait_for 20 look_walked_after "$mark" || true
	say "sample jobs"
	demo_job 'gpu=true&mem>=512'
	demo_job 'arch=aarch64|ssd=nvme'
	demo_job 'rack=2&(mem<512|ssd=nvme)'
	demo_job 'gpu=true&mem>=512|x=1'
	demo_wait
	demo_facts
	printf '\nThe cluster is still running. In a shell:\n  export SLURM_CONF=%s\n' "$SLURM_CONF"
	printf 'Stop it with: bash %s stop\n' "$0"
}

case "${1:-}" in
demo) demo ;;
setup) install_packages; build_and_install ;;
start) start_cluster ;;
munge) start_munge ;;
extra) set_extra "${2:-}" ;;
stop) stop_daemons; say "cluster stopped" ;;
env) echo "export SLURM_CONF=$SLURM_CONF" ;;
ctld-restart) stop_ctld; start_ctld ;;
ctld-reconfig-nodes) write_config; stop_ctld; start_ctld ;; # the nodes of XC_NODE5
ctld-stop) stop_ctld ;;
ctld-start) start_ctld ;;
slurmd) shift; slurmd_ctl "$@" ;;
wait-nodes) wait_for_nodes ;;
*) sed -n '2,19s/^# \{0,1\}//p' "$0"; exit 2 ;;
esac
