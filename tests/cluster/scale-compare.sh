#!/usr/bin/env bash
# scale-compare.sh [NODES [JOBS]] - Slurm's own --extra filter
# (SchedulerParameters=extra_constraints, 23.11+), this project's
# (burst_buffer/extra), and no filter at all (the floor), side by side on
# one slurmctld with NODES nodes (default 10000) and JOBS pending jobs with
# --extra (default 500).  Figures printed, never asserted
# (doc/benchmarks.md).  Also `tests/cluster/scale.sh --compare`.
#
# Each run starts a fresh controller of its own (state in
# $XC_SCALE_STATE, default /var/lib/slurm-extra-scale; port 16818; no
# slurmd), nodes State=CLOUD with the Extra tests/cluster/scale.sh gives them
# (1,000 blocks of nodes alike), sched/backfill, then JOBS one-node jobs,
# not held, with five 6-leaf requests in turn, each satisfied by 1-1.4% of
# the nodes.  Two loads (XC_COMPARE_LOADS, default "idle busy"):
# - idle: SlurmctldParameters=max_powered_nodes=0 (24.05+): slurmctld
#   picks nodes for every job it reaches, then refuses to power them up
#   (node_scheduler.c), so no job ever starts and every cycle does the
#   whole work: the worst case for a filter in the scheduler.
# - busy: jobs without --extra first take every node (they stay
#   CONFIGURING: ResumeProgram does nothing and ResumeTimeout is 10 h),
#   with time limits of 1 to 10 hours, so that the scheduler meets busy
#   nodes and backfill plans the --extra jobs around running work.
# Modes (XC_COMPARE_MODES, default "none own guard"): none, no
# JobSubmitPlugins and no extra_constraints (--extra is stored, nothing
# filters); own, extra_constraints with job_submit/extra checking
# requests; guard, burst_buffer/extra filtering (BurstBufferType, built
# with configure --with-slurm-source; a row that says skipped where it is
# not installed), job_submit/extra checking and recording requests.
# Then `sdiag -r`, XC_COMPARE_WINDOW seconds
# (default 300), and printed: the main scheduler's mean cycle and mean
# depth (jobs reached), backfill's mean cycle and depth, slurmctld's CPU
# time in the window (/proc/PID/stat), its resident memory at the end, and
# the jobs that started in the window; after the table, slurmctld's time on
# the RPCs that read jobs and nodes and update jobs (sdiag).  A row whose
# controller did not start or answer, or whose mode or load is none of
# these, says FAILED, and the script exits 1.
# XC_EXTRA_CONF: KEY=VALUE words for extra.conf.
# Uses the installed plugin and Slurm (XC_SLURM_PREFIX as for the other
# cluster tests); needs root and tests/cluster/slurm-helper (make check).
set -uo pipefail

NODES=${1:-10000}
JOBS=${2:-500}
WINDOW=${XC_COMPARE_WINDOW:-300}
read -ra LOADS <<<"${XC_COMPARE_LOADS:-idle busy}"
read -ra MODES <<<"${XC_COMPARE_MODES:-none own guard}"
XC_STATE=${XC_SCALE_STATE:-/var/lib/slurm-extra-scale}
. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
cluster_test scale-compare.sh

# The five requests: 6 leaves each; 100, 100, 130, 130 and 140 of every
# 10,000 nodes satisfy them (scale_set_extra's blocks).
REQUESTS=(
	'gpu=true&mem>=512&(arch=x86_64|arch=aarch64)&load<0.5&ib_pod=0'
	'gpu=true&mem>=512&(arch=x86_64|arch=aarch64)&load<0.7&ib_pod=1'
	'gpu=true&mem>=256&(arch=x86_64|arch=aarch64)&load<0.5&ib_pod=2'
	'gpu=true&mem>=256&(arch=x86_64|arch=aarch64)&load<0.7&ib_pod=4'
	'gpu=true&mem>=256&(arch=x86_64|arch=aarch64)&load<0.5&ib_pod=6'
)

# sdiag's value of `label` in the section starting with `section` ("-"
# when it has none: no cycle in the window).
sdiag_value() {
	awk -v s="$2" -v l="$3" 'index($0, s) == 1 {in_s = 1; next}
		in_s && /^[A-Z]/ {in_s = 0}
		in_s && index($0, l) {sub(/.*: */, ""); v = $1; exit}
		END {print v == "" ? "-" : v}' <<<"$1"
}
seconds() { [ "$1" = - ] && echo - || awk -v v="$1" 'BEGIN {printf "%.3f s", v / 1e6}'; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# run LOAD MODE: one controller, one row.
run() {
	local load=$1 mode=$2 plugins=JobSubmitPlugins=extra params='' bb=''
	case $mode in
	none) plugins= ;;
	own) params=SchedulerParameters=extra_constraints ;;
	guard) bb=BurstBufferType=burst_buffer/extra ;;
	*) echo "  $mode: no such mode (none, own, guard)"; return 1 ;;
	esac
	case $load in
	idle | busy) ;;
	*) echo "  $load: no such load (idle, busy)"; return 1 ;;
	esac
	scale_start_backfill scale-compare.sh "$NODES" "$plugins" "$params" "$bb" || { echo "  ($load $mode)"; return 1; }
	local pid
	pid=$(scale_pid)
	if [ "$load" = idle ]; then
		# After the Extra: with max_powered_nodes set, 24.11 refuses
		# every node update (update_node() tests NO_VAL's bits for
		# POWER_UP).  A reconfigure starts a new slurmctld.
		echo SlurmctldParameters=max_powered_nodes=0 >>"$SLURM_CONF"
		scontrol reconfigure || return 1
		wait_for 120 eval 'new=$(scale_pid) && [ -n "$new" ] && [ "$new" != '"$pid"' ] && [ -d "/proc/$new" ] && scontrol ping 2>/dev/null | grep -q UP' ||
			{ echo "slurmctld did not come back after reconfigure"; return 1; }
		pid=$(scale_pid)
	fi
	if [ "$load" = busy ]; then
		scale_fill "$NODES" ||
			echo "  ($load $mode: not every job without --extra had its nodes after 10 minutes)"
	fi
	local i
	for ((i = 0; i < JOBS; i++)); do
		printf '%s\n' "${REQUESTS[i % 5]}"
	done | xargs -P 4 -d '\n' -I{} sbatch -t 60 -o /dev/null --extra {} --wrap true >/dev/null
	sleep 5
	local c0 c1 out rss
	sdiag -r >/dev/null
	c0=$(cpu_ticks "$pid")
	sleep "$WINDOW"
	out=$(sdiag)
	c1=$(cpu_ticks "$pid")
	rss=$(awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$pid/status")
	printf '| %6d | %s | %-6s | %5d | %s (%s) | %s (%s) | %6.1f s | %5d MB | %s |\n' \
		"$NODES" "$load" "$mode" "$JOBS" \
		"$(seconds "$(sdiag_value "$out" 'Main schedule statistics' 'Mean cycle:')")" \
		"$(sdiag_value "$out" 'Main schedule statistics' 'Mean depth cycle:')" \
		"$(seconds "$(sdiag_value "$out" 'Backfilling stats' 'Mean cycle:')")" \
		"$(sdiag_value "$out" 'Backfilling stats' 'Depth Mean:')" \
		"$(awk -v a="$c0" -v b="$c1" -v hz="$(getconf CLK_TCK)" 'BEGIN {print (b - a) / hz}')" \
		"$rss" "$(($(awk '/^Jobs started:/ {print $3}' <<<"$out") + 0))"
	# slurmctld's time on the RPCs that read jobs and nodes and update
	# jobs (the plugins send none: what the clients ask)
	RPCS+=("$(awk -v run="$NODES $load $mode" '/REQUEST_(JOB_INFO|NODE_INFO|UPDATE_JOB) / {
		c = $0; sub(/.*count:/, "", c); sub(/ .*/, "", c)
		t = $0; sub(/.*total_time:/, "", t); sub(/ .*/, "", t)
		line = line sprintf("%s%s %d (%.2f s)", line == "" ? "" : ", ", $1, c, t / 1e6)}
		END {printf "  %s: %s\n", run, line == "" ? "none" : line}' <<<"$out")")
	scale_stop
}

[ "${XC_KEEP:-0}" = 1 ] || trap scale_stop EXIT
printf '%s; %d nodes, %d pending jobs with --extra, %d s windows after sdiag -r\n' \
	"$(slurmctld -V)" "$NODES" "$JOBS" "$WINDOW"
echo '| nodes | load | mode | jobs | main cycle mean (jobs reached) | backfill cycle mean (jobs reached) | slurmctld CPU | RSS | started |'
echo '| --- | --- | --- | --- | --- | --- | --- | --- | --- |'
RPCS=()
status=0
for load in "${LOADS[@]}"; do
	for mode in "${MODES[@]}"; do
		if [ "$load" = idle ] && ! slurm_at_least 24 5; then
			echo "| $NODES | idle | $mode | skipped: max_powered_nodes needs Slurm 24.05 or later |"
			continue
		fi
		if [ "$mode" = own ] && ! slurm_at_least 23 11; then
			echo "| $NODES | $load | own | skipped: extra_constraints needs Slurm 23.11 or later |"
			continue
		fi
		if [ "$mode" = guard ] && ! guard_so >/dev/null; then
			echo "| $NODES | $load | guard | skipped: burst_buffer_extra.so is not installed (configure --with-slurm-source) |"
			continue
		fi
		if ! run "$load" "$mode"; then
			echo "| $NODES | $load | $mode | FAILED (above) |"
			status=1
		fi
	done
done
echo "slurmctld's time on the RPCs that read jobs and nodes and update jobs, in the window (sdiag):"
printf '%s\n' "${RPCS[@]}"
exit "$status"
