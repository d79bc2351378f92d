# cluster-lib.sh - what the cluster tests and contrib/local-cluster.sh
# share (sourced): the start of a cluster test, checks that count, waits on
# conditions, job helpers, the configuration both clusters write.
# XC_STATE is the cluster's state directory: contrib/local-cluster.sh's,
# /var/lib/slurm-extra-cluster, unless set before.
# shellcheck shell=bash

# XC_SLURM_PREFIX=PREFIX runs the Slurm installed there (its bin/sbatch,
# sbin/slurmctld ...; the build takes its headers and plugin directory
# from the same prefix) instead of the system's.
if [ -n "${XC_SLURM_PREFIX:-}" ]; then
	PATH="$XC_SLURM_PREFIX/sbin:$XC_SLURM_PREFIX/bin:$PATH"
	export PATH
fi

# The source tree; the cluster of the tests, and its state.
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CLUSTER="$SRC/contrib/local-cluster.sh"
XC_STATE=${XC_STATE:-/var/lib/slurm-extra-cluster}

passed=0
failed=0
ok() { passed=$((passed + 1)); printf 'ok   - %s\n' "$1"; }
not_ok() {
	failed=$((failed + 1))
	printf 'FAIL - %s\n' "$1"
	[ -n "${2:-}" ] && sed 's/^/       /' <<<"$2"
	return 0
}
# expect NAME GOT WANT
expect() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "got:  $2"$'\n'"want: $3"; fi; }
# expect_in NAME GOT WORD...
expect_in() {
	local name=$1 got=$2
	shift 2
	for w in "$@"; do [ "$got" = "$w" ] && { ok "$name"; return; }; done
	not_ok "$name" "got: $got; want one of: $*"
}
# expect_has NAME TEXT NEEDLE (fixed string)
expect_has() { if grep -qF -- "$3" <<<"$2"; then ok "$1"; else not_ok "$1" "no '$3' in:"$'\n'"$2"; fi; }

HELPER=${HELPER:-$SRC/tests/cluster/slurm-helper}
LOG=${LOG:-$XC_STATE/log/slurmctld.log}

# cluster_test NAME: the start of the cluster test NAME (its file name, for
# its messages): exports XC_STATE and SLURM_CONF, the cluster's; exits 2
# unless run as root with tests/cluster/slurm-helper built (make check).
# Where the guard at placement is installed (guard_so) and XC_BURST_BUFFER
# is not set, exports XC_BURST_BUFFER=burst_buffer/extra: the clusters
# then load it, the plugins' one filter (set, even empty, XC_BURST_BUFFER
# is left as it is).
cluster_test() {
	export XC_STATE SLURM_CONF="$XC_STATE/slurm.conf"
	[ "$(id -u)" = 0 ] || { echo "$1: run as root" >&2; exit 2; }
	[ -x "$HELPER" ] || { echo "$1: run make check first (tests/cluster/slurm-helper)" >&2; exit 2; }
	if [ -z "${XC_BURST_BUFFER+set}" ] && guard_so >/dev/null; then
		export XC_BURST_BUFFER=burst_buffer/extra
	fi
}

# guard_so: the path of burst_buffer_extra.so, the guard at placement
# (built with configure --with-slurm-source), where slurmctld would load
# it from: the directories of XC_PLUGIN_DIR (slurm.conf's PluginDir, in
# its order), else Slurm's plugin directory (XC_SLURM_PREFIX's, or
# Debian's); status 1 when it is not there.
guard_so() {
	local d f dirs=()
	if [ -n "${XC_PLUGIN_DIR:-}" ]; then
		IFS=: read -ra dirs <<<"$XC_PLUGIN_DIR"
	elif [ -n "${XC_SLURM_PREFIX:-}" ]; then
		dirs=("$XC_SLURM_PREFIX/lib/slurm")
	else
		dirs=(/usr/lib/*/slurm-wlm /usr/lib*/slurm)
	fi
	for d in "${dirs[@]}"; do
		f=$d/burst_buffer_extra.so
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

# cluster_start [CLEANUP]: starts the cluster (contrib/local-cluster.sh
# start, its output the caller's) or exits 1; when the test exits, unless
# XC_KEEP=1 keeps it running, stops it and runs the shell command CLEANUP.
cluster_start() {
	bash "$CLUSTER" start || exit 1
	# shellcheck disable=SC2064 # CLEANUP is put in the trap now, as written
	[ "${XC_KEEP:-0}" = 1 ] || trap "bash \"\$CLUSTER\" stop >/dev/null 2>&1; ${1:-}" EXIT
}

# wait_for SECONDS COMMAND...: runs COMMAND every 0.25 s until it succeeds;
# status 1 if it has not within SECONDS.  Every wait in the cluster tests is
# one of these: a condition with a timeout, never a fixed sleep.
wait_for() {
	local tries=$(($1 * 4))
	shift
	rec_drop # (a wait reads slurmctld, never a record read before)
	for _ in $(seq "$tries"); do
		"$@" && return 0
		sanitizer_stop
		sleep 0.25
	done
	return 1
}

# sanitizer_stop: with XC_CTLD_STDERR (slurmctld's stderr, local-cluster.sh),
# a sanitizer's report there ends the test at once: slurmctld has stopped
# (-fno-sanitize-recover), and every wait after would time out in turn.
sanitizer_stop() {
	[ -n "${XC_CTLD_STDERR:-}" ] && [ -s "$XC_CTLD_STDERR" ] || return 0
	grep -qE 'runtime error:|ERROR: (Address|Leak)Sanitizer' "$XC_CTLD_STDERR" || return 0
	echo "not ok - slurmctld stopped on a sanitizer report ($XC_CTLD_STDERR):"
	grep -m1 -A12 -E 'runtime error:|ERROR: (Address|Leak)Sanitizer' "$XC_CTLD_STDERR"
	exit 1
}

# guard_loaded: slurm.conf's BurstBufferType is burst_buffer/extra
# (XC_BURST_BUFFER): the guard at placement keeps jobs off the nodes whose
# Extra does not satisfy their request, and its look keeps their excluded
# nodes (doc/guard.md); job_submit/extra only checks and records requests.
guard_loaded() { [[ ${XC_BURST_BUFFER:-} == *burst_buffer/extra* ]]; }

# look_walked: the look has walked every job since the call began (a probe
# job of root's, held, with a request of its own submitted then: a set is
# given at a walk's end, after every job of the walk, and the probe keeps
# n1 off when the look has answered it); a failed check if not within 30 s.
# It assumes what the local cluster has: fewer than 1,024 jobs waiting for
# a set of the look's (past them the probe, held at priority 0, gets none:
# a failure, never a pass), n1 the node table's first, and no node with
# the key xc_probe.  It shows a walk, not that every node's Extra was
# read since: a change in the call's second may wait for the next.
look_walked() {
	local id
	# (one request for every probe: root's, never past a cap on them)
	if ! id=$(sbatch --parsable -H -o /dev/null --extra "xc_probe=1" --wrap true 2>&1); then
		not_ok "look_walked: the probe job accepted" "$id"
		return
	fi
	wait_for 30 "$HELPER" excluded "$id" 0 ||
		not_ok "the look walked every job within 30 s"
	scancel "$id"
}

# look_settled: waits until the filter has read the nodes as they are now:
# with burst_buffer/extra, until its look has walked every job
# (look_walked); where Slurm filters by the request itself, which reads
# the nodes at each placement (and the look, if loaded, keeps no job's
# excluded nodes), until slurmctld answers.
look_settled() {
	if guard_loaded && ! slurm_filters; then
		look_walked
		return
	fi
	wait_for 30 eval 'scontrol ping 2>/dev/null | grep -q UP' ||
		not_ok "slurmctld answers within 30 s"
}

# fnv TEXT: xc_text_hash() of TEXT (FNV-1a, 64 bits; parser/xc_private.h):
# the wrote= of a state, to fake what an earlier release's thread left
fnv() {
	local s=$1 h=$((0xcbf29ce484222325)) i c
	for ((i = 0; i < ${#s}; i++)); do
		printf -v c '%d' "'${s:i:1}"
		h=$(((h ^ c) * 0x100000001b3))
	done
	printf '%016x' "$h"
}

# blocker NODE: a job of the admin's that keeps NODE busy
blocker() { sbatch --parsable -o /dev/null -w "$1" --wrap 'sleep 600'; }

# slurm_at_least MAJOR MINOR [MICRO]: the Slurm run here is
# MAJOR.MINOR.MICRO (MICRO 0 by default) or later.
# Read from slurmctld, which prints its version without a configuration
# (scontrol reads slurm.conf first and exits 1 when there is none yet).
# Exits the test with 2 when no version can be read: a guess would skip or
# run the wrong checks.
slurm_at_least() {
	local v
	v=$(slurmctld -V 2>/dev/null | grep -oP '[0-9]+\.[0-9]+(\.[0-9]+)?' | head -1)
	[ -n "$v" ] || { echo "slurm_at_least: cannot read Slurm's version from 'slurmctld -V'" >&2; exit 2; }
	IFS=. read -r -a v <<<"$v.0"
	[ $(((10#${v[0]} * 100 + 10#${v[1]}) * 1000 + 10#${v[2]})) -ge $((($1 * 100 + $2) * 1000 + ${3:-0})) ]
}

# slurm_filters: the cluster runs Slurm's own filter (slurm_filter_or_skip
# said so).
slurm_filters() { [[ ${XC_SCHED_PARAMS:-} == *extra_constraints* ]]; }

# slurm_filter_or_skip NAME WHAT: the cluster to start runs Slurm's own
# filter (SchedulerParameters extra_constraints, 23.11 and later); before
# 23.11 the test says "skipped: WHAT: <version> has none" and ends with
# summary NAME (nothing run, nothing failed).
slurm_filter_or_skip() {
	if ! slurm_at_least 23 11; then
		echo "skipped: $2: $(scontrol --version) has none"
		summary "$1"
		exit
	fi
	export XC_SCHED_PARAMS=batch_sched_delay=0,extra_constraints
}

# prefer_slurm_or_skip NAME: where Slurm filters (slurm_filters) without
# burst_buffer/extra (guard_loaded), job_submit/extra refuses preferences
# (doc/preferences.md "Preferences"; e2e-slurm-filter checks it): the test
# says "skipped: ..." and ends with summary NAME.
prefer_slurm_or_skip() {
	if slurm_filters && ! guard_loaded; then
		echo "skipped: preferences where Slurm filters need burst_buffer/extra, not loaded here (e2e-slurm-filter checks their refusal)"
		summary "$1"
		exit
	fi
}

# filter_or_skip NAME: something filters jobs by their request on the
# cluster to start: burst_buffer/extra (guard_loaded) or Slurm's own
# filter (slurm_filters).  Where nothing does, job_submit/extra refuses
# every request ("--extra: nothing filters by it here"; e2e-slurm-filter
# checks it): the test says "skipped: ..." and ends with summary NAME;
# with XC_GUARD_REQUIRED=1 (setup was to build the guard) a guard not
# installed is a failure instead.
filter_or_skip() {
	if guard_loaded || slurm_filters; then
		return 0
	fi
	if [ "${XC_GUARD_REQUIRED:-0}" = 1 ] && ! guard_so >/dev/null; then
		not_ok "burst_buffer_extra.so is installed (XC_GUARD_REQUIRED=1: setup was to build it)"
	elif guard_so >/dev/null; then
		echo "skipped: $1: nothing filters by --extra here (XC_BURST_BUFFER is empty, and no SchedulerParameters=extra_constraints)"
	else
		echo "skipped: $1: nothing filters by --extra here (burst_buffer_extra.so not installed: configure --with-slurm-source=DIR; and no SchedulerParameters=extra_constraints)"
	fi
	summary "$1"
	exit
}

# plugin_inits_since FROM: how many times job_submit/extra's init() ran
# after log line FROM.
plugin_inits_since() { tail -n +"$(($1 + 1))" "$LOG" | grep -c 'job_submit/extra: slurm-extra .* built for Slurm'; }

# log_lines: the current length of slurmctld's log, a mark for the above.
log_lines() { wc -l <"$LOG"; }

# log_has TEXT: slurmctld's log holds TEXT (a fixed string).
log_has() { grep -qF -- "$1" "$LOG"; }

# queue_empty: no job left pending or running.
queue_empty() { [ "$(squeue -h | wc -l)" = 0 ]; }

# XC_REC: records of jobs read once (job id -> what `scontrol show job`
# printed), which show_job, and so field and kept_off, give in place of
# asking slurmctld again: a test's checks of one moment read each job once
# (rec_read JOB...), then drop them (rec_drop); wait_for and wait_job drop
# them first.
declare -gA XC_REC=()
rec_read() { local j; for j in "$@"; do XC_REC[$j]=$(scontrol show job "$j" 2>/dev/null); done; }
rec_drop() { XC_REC=(); }
# show_job JOB: the job's record, as read by rec_read or now.
show_job() {
	if [ -n "${XC_REC[$1]+x}" ]; then
		printf '%s\n' "${XC_REC[$1]}"
	else
		scontrol show job "$1" 2>/dev/null
	fi
}

# field JOB NAME: a field of `scontrol show job` (nothing when absent; never
# a failure, so that it is safe under `set -e`, as local-cluster.sh runs).
field() { show_job "$1" | grep -oP "(?<![A-Za-z])$2=\K\S+" | head -1 || true; }

wait_job() {
	local st
	rec_drop
	for _ in $(seq 240); do
		st=$(field "$1" JobState)
		case "$st" in COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) echo "$st"; return ;; esac
		sleep 0.25
	done
	echo "${st:-UNKNOWN}"
}

# kept_off JOB: the nodes JOB is kept off.  With burst_buffer/extra
# (guard_loaded) the bitmap of excluded nodes slurmctld keeps (slurm-helper
# excluded): its user's ExcNodeList and the set the look gave it (after a
# walk; taken back once the job runs), its ExcNodeList text staying the
# user's; without it, where Slurm filters by the request itself, its
# ExcNodeList, the user's alone.  A ranged hostlist as Slurm writes one,
# "(null)" for none.
kept_off() {
	local out
	if guard_loaded; then
		out=$("$HELPER" excluded "$(field "$1" JobId)") || { echo "?"; return; }
		if [ -z "$out" ]; then echo "(null)"; else scontrol show hostlistsorted "$out"; fi
		return
	fi
	field "$1" ExcNodeList
}

# submit ARGS...: prints the job id, or the error text with status 1
submit() { sbatch --parsable -o /dev/null "$@" --wrap 'echo $SLURMD_NODENAME' 2>&1; }

# job_on NAME EXPECTED_EXC NODE... -- ARGS...: submit it held (sbatch
# -H, by whoever runs the test), check the nodes it is kept off (kept_off),
# release it, wait, check the node it ran on is one of NODE...
# Held, since the look's set keeps a job off only while it waits (it is
# taken back once the job runs), and comes at the look's walk after the
# submission: until then the job may be kept off none.
job_on() {
	local name=$1 exc=$2 nodes=() id
	shift 2
	while [ "$1" != "--" ]; do nodes+=("$1"); shift; done
	shift
	if ! id=$(submit -H "$@"); then
		not_ok "$name: accepted" "$id"
		return
	fi
	local got
	got=$(kept_off "$id")
	[ "$got" = "$exc" ] || wait_for 20 eval 'got=$(kept_off "$id"); [ "$got" = "$exc" ]' || true
	expect "$name: kept off" "$got" "$exc"
	scontrol release "$id"
	expect "$name: completed" "$(wait_job "$id")" COMPLETED
	expect_in "$name: ran on a matching node" "$(field "$id" NodeList)" "${nodes[@]}"
}

# slurm_conf_ctld STATE: the lines of slurm.conf that both clusters
# (contrib/local-cluster.sh's, tests/cluster/scale.sh's) write: slurmctld on this
# machine, run by root, munge; its state, pid file, log and plugstack.conf
# under STATE; no process tracking, task, MPI or accounting plugins.
slurm_conf_ctld() {
	cat <<EOF
SlurmctldHost=localhost
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=$1/ctld
SlurmctldPidFile=$1/slurmctld.pid
SlurmctldLogFile=$1/log/slurmctld.log
SlurmctldDebug=verbose
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
PlugStackConfig=$1/plugstack.conf
EOF
}

# slurm_conf_beside STATE PLUGSTACK: the files beside STATE/slurm.conf:
# plugstack.conf (the line PLUGSTACK), extra.conf (the KEY=VALUE words of
# $XC_EXTRA_CONF, one a line; empty without), and an empty mpi.conf and
# acct_gather.conf:
# Slurm 23.11.4 built from source wants these (empty is enough), or its
# scheduler marks every job InvalidAccount; the rest ignore them.  With
# XC_CGROUP_CONF, a cgroup.conf of its words, one a line (a chroot's
# slurmd 24.11+ needs CgroupPlugin=disabled).
slurm_conf_beside() {
	echo "$2" >"$1/plugstack.conf"
	: >"$1/mpi.conf"
	: >"$1/acct_gather.conf"
	local words
	: >"$1/extra.conf"
	read -ra words <<<"${XC_EXTRA_CONF:-}"
	[ "${#words[@]}" = 0 ] || printf '%s\n' "${words[@]}" >>"$1/extra.conf"
	read -ra words <<<"${XC_CGROUP_CONF:-}"
	[ "${#words[@]}" = 0 ] || printf '%s\n' "${words[@]}" >"$1/cgroup.conf"
}

# as USER CMD...: CMD as USER (root: as is), from a directory they can read.
as() {
	local u=$1
	shift
	if [ "$u" = root ]; then
		(cd /tmp && "$@")
	else
		(cd /tmp && runuser -u "$u" -- env SLURM_CONF="$SLURM_CONF" PATH="$PATH" "$@")
	fi
}

# summary NAME: prints "NAME: N passed, M failed"; status 1 if any failed.
# CTLD_KILLS_EXPECTED: how many times the test itself made
# contrib/local-cluster.sh kill slurmctld (ctld_kill) in the cluster it
# runs now.
CTLD_KILLS_EXPECTED=0
# ctld_kills_check: a slurmctld the harness had to kill at a restart of
# this cluster (its log says so), beyond what the test expected, fails
# the test, or is said where Slurm can hang at a shutdown by itself.
ctld_kills_check() {
	local n
	n=$(grep -c 'local-cluster: slurmctld killed after' "$LOG" 2>/dev/null) || n=0
	n=$((n - CTLD_KILLS_EXPECTED))
	[ "$n" -gt 0 ] || return 0
	# (Slurm before 24.11.6 can hang at a shutdown by itself:
	# contrib/local-cluster.sh ctld_kill)
	if ! slurm_at_least 24 11 6; then
		echo "  note: slurmctld did not stop at $n restart(s) and was killed; $(slurmctld -V) can hang at a shutdown by itself (fixed in 24.11.6)"
	else
		not_ok "slurmctld stopped within its time at every restart ($n killed: $LOG)"
	fi
}

summary() {
	ctld_kills_check
	printf '\n%s: %d passed, %d failed\n' "$1" "$passed" "$failed"
	[ "$failed" -eq 0 ]
}

# The controllers of tests/cluster/scale.sh and tests/cluster/scale-compare.sh (state in
# $XC_STATE, nodes without slurmd):
# scale_pid: its pid, from the pid file's first line (slurmctld rewrites
# the file in place at a reconfigure: a longer old pid leaves digits after
# the new one's newline).
scale_pid() { head -n 1 "$XC_STATE/slurmctld.pid" 2>/dev/null; }

# scale_stop: stops it (SIGTERM, SIGKILL after 10 s) and waits until it
# is gone; nothing when its pid file names no slurmctld.
scale_stop() {
	local pid
	pid=$(scale_pid)
	# (slurmctld-wlm: Debian's binary, as a 23.11+ reconfigure execs it)
	case $([ -n "$pid" ] && cat "/proc/$pid/comm" 2>/dev/null) in slurmctld | slurmctld-*) ;; *) return 0 ;; esac
	kill "$pid" 2>/dev/null
	for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
	kill -9 "$pid" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
}

# scale_fresh SCRIPT: a fresh controller's state (the old one stopped, its
# state removed) and the start of its slurm.conf: the lines both scripts
# share, written by SCRIPT; the caller appends the rest.
scale_fresh() {
	scale_stop
	rm -rf "$XC_STATE"
	mkdir -p "$XC_STATE"/{ctld,log}
	cat >"$SLURM_CONF" <<EOF
# Written by slurm-extra's tests/$1
ClusterName=xcscale
$(slurm_conf_ctld "$XC_STATE")
SlurmctldPort=16818
SlurmdTimeout=0
PrivateData=cloud
ReturnToService=0
MaxJobCount=200000
EOF
}

# scale_nodes_conf NODES: slurm.conf's lines for nodes s1..sNODES, one
# line per 10,000 nodes (Slurm reads at most 65,536 hosts in a range).
scale_nodes_conf() {
	local lo hi
	for ((lo = 1; lo <= $1; lo += 10000)); do
		hi=$((lo + 9999 > $1 ? $1 : lo + 9999))
		echo "NodeName=s[$lo-$hi] NodeAddr=127.0.0.1 CPUs=1 State=CLOUD"
	done
}

# scale_start_backfill SCRIPT NODES LINE...: a fresh controller
# (scale_fresh SCRIPT) with sched/backfill, NODES nodes that power up doing
# nothing (they stay CONFIGURING: ResumeProgram does nothing, ResumeTimeout
# is 10 h), the slurm.conf lines LINE... (empty ones left out), one
# partition of every node; started, answering, and every node given
# scale_set_extra's Extra.  1, after saying what failed.
scale_start_backfill() {
	local script=$1 nodes=$2 line
	shift 2
	scale_fresh "$script"
	{
		printf '%s\n' SchedulerType=sched/backfill ResumeProgram=/bin/true \
			SuspendProgram=/bin/true ResumeTimeout=36000
		for line in "$@"; do [ -z "$line" ] || printf '%s\n' "$line"; done
		echo "PartitionName=p Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
		scale_nodes_conf "$nodes"
	} >>"$SLURM_CONF"
	slurm_conf_beside "$XC_STATE" "required spank_extra.so"
	# without munged every command fails, and waits would time out: started
	# as the local cluster starts it (a chroot's MEASURES run alone)
	munge -n </dev/null >/dev/null 2>&1 || bash "$CLUSTER" munge >/dev/null ||
		{ echo "  munged is not running, and did not start (contrib/local-cluster.sh munge)"; return 1; }
	slurmctld -c -i || { echo "  slurmctld did not start"; return 1; }
	wait_for 120 eval 'scontrol ping 2>/dev/null | grep -q UP' || { echo "  slurmctld did not answer"; return 1; }
	scale_set_extra "$nodes" || { echo "  setting the Extra failed"; return 1; }
}

# scale_fill NODES: every node taken by jobs without a request, 100 nodes
# each, with time limits of 1 to 10 hours; 1 when not every one of them
# had its nodes within 10 minutes.
scale_fill() {
	local j n=$((($1 + 99) / 100))
	for ((j = 0; j < n; j++)); do
		# the last one takes what is left
		printf '%d %d\n' $((j < n - 1 || $1 % 100 == 0 ? 100 : $1 % 100)) $((60 * (1 + j % 10)))
	done | xargs -P 4 -L 1 sh -c 'sbatch -N "$0" -t "$1" -o /dev/null --wrap true' >/dev/null
	wait_for 600 eval '[ "$(squeue -h -t CF,R | wc -l)" -ge '"$n"' ]'
}

# scale_set_extra NODES: an Extra of 7 or 8 keys for every node, in 1000
# blocks of nodes alike (1 node each at 1,000 nodes, 100 at 100,000), one
# scontrol update per block; 1 when one fails.
scale_set_extra() {
	local b lo hi extra size=$((($1 + 999) / 1000)) arch=(x86_64 aarch64 ppc64le)
	for ((b = 0; b * size < $1; b++)); do
		lo=$((b * size + 1)) hi=$(((b + 1) * size))
		[ "$hi" -gt "$1" ] && hi=$1
		extra=$(printf '{"gpu":%s,"mem":%d,"arch":"%s","load":%s,"ib_pod":%d,"rack":%d,"ssd":"%s"%s}' \
			"$([ $((b % 3)) = 0 ] && echo false || echo true)" $((64 << (b % 5))) "${arch[b % 3]}" \
			"0.$((b % 10))" $((b % 7)) $((b / 4)) "$([ $((b % 2)) = 0 ] && echo sata || echo nvme)" \
			"$([ $((b % 4)) = 0 ] && echo ',"fpga":1')")
		scontrol update nodename="s[$lo-$hi]" extra="$extra" || return 1
	done
}
