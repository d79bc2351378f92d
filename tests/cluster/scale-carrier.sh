#!/usr/bin/env bash
# scale-carrier.sh [NODES [JOBS]] - what one node's Extra change costs
# slurmctld, and how soon the nodes a request allows reach the pending
# jobs that wait on it: burst_buffer/extra's look against Slurm's own
# filter.  One slurmctld with NODES nodes (default 10000, or
# XC_CARRIER_NODES; State=CLOUD, no slurmd), every node taken first by
# jobs without a request (so that the scheduler meets no free node and
# backfill plans the pending jobs around running work), then JOBS pending
# one-node jobs (default 5000, or XC_CARRIER_JOBS) with
# XC_CARRIER_DISTINCT distinct 6-leaf requests (default 100) and
# XC_CARRIER_PLAIN pending jobs without one (default 0), then `sdiag -r`
# and XC_CARRIER_CHURN seconds (default 120) in which node s1's Extra flips
# gpu every second, taking it into and out of every request; with
# burst_buffer/extra, then a restart of slurmctld and the time to the
# look's first answer (XC_CARRIER_RESTART=0: none).  Figures printed,
# never asserted (doc/benchmarks.md, "Carriers").
#
# Modes (XC_CARRIER_MODES, default "guard own"):
# - guard: burst_buffer/extra (BurstBufferType, built --with-slurm-source;
#   skipped where it is not installed, doc/guard.md), job_submit/extra
#   checking and recording requests: the row waits until the look has
#   given a set to the request job of the 1,000th highest priority (sets
#   go to 1,024), and in the churn times each flip to that job's set
#   following s1 (slurm-helper excluded: the bitmap slurmctld keeps);
#   XC_CARRIER_LAGS=1 prints each flip's answer too; the guard's and the
#   look's own figures, logged once a minute, after the table.
# - own: Slurm's own filter (SchedulerParameters=extra_constraints,
#   23.11 and later), job_submit/extra checking requests.
# Printed per mode: the time to submit the jobs; in the churn window
# slurmctld's CPU, its time on node and job updates (sdiag: count, total),
# the main scheduler's and backfill's mean cycle and jobs reached; at the
# end resident memory and its peak.
# A mode whose controller does not start, or whose jobs are not all
# pending, is a failure: the script exits 1.
# XC_EXTRA_CONF as for tests/cluster/scale.sh.  Uses the installed plugin and
# Slurm (XC_SLURM_PREFIX); needs root and tests/cluster/slurm-helper (make check).
set -uo pipefail

NODES=${1:-${XC_CARRIER_NODES:-10000}}
JOBS=${2:-${XC_CARRIER_JOBS:-5000}}
DISTINCT=${XC_CARRIER_DISTINCT:-100}
PLAIN=${XC_CARRIER_PLAIN:-0}
CHURN=${XC_CARRIER_CHURN:-120}
read -ra MODES <<<"${XC_CARRIER_MODES:-guard own}"
# (commas too: XC_MEASURE_ENV's words cannot hold spaces)
read -ra MODES <<<"${MODES[*]//,/ }"
XC_STATE=${XC_SCALE_STATE:-/var/lib/slurm-extra-scale}
. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
cluster_test scale-carrier.sh

# Request k: gpu=true, a memory floor, an arch, a load ceiling and a rack
# ceiling, so that the requests allow different, overlapping sets of the
# 1,000 blocks of tests/cluster/scale.sh's Extra (scale_set_extra).
request() {
	local k=$1
	printf 'gpu=true&mem>=%d&(arch=x86_64|arch=aarch64)&load<0.%d&rack<%d\n' \
		$((64 << (k % 4))) $((5 + k % 5)) $((1 + (k * 250) / DISTINCT))
}

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# ms USEC: sdiag's microseconds in ms ("-" as is)
ms() { [ "$1" = - ] && echo - || awk -v v="$1" 'BEGIN {printf "%.0f ms", v / 1e3}'; }
sdiag_value() {
	awk -v s="$2" -v l="$3" 'index($0, s) == 1 {in_s = 1; next}
		in_s && /^[A-Z]/ {in_s = 0}
		in_s && index($0, l) {sub(/.*: */, ""); v = $1; exit}
		END {print v == "" ? "-" : v}' <<<"$1"
}
# rpc SDIAG NAME: "count (total s, longest-average ms)" of RPC NAME.
rpc() {
	awk -v n="$2" '$1 == n {
		c = $0; sub(/.*count:/, "", c); sub(/ .*/, "", c)
		a = $0; sub(/.*ave_time:/, "", a); sub(/ .*/, "", a)
		t = $0; sub(/.*total_time:/, "", t); sub(/ .*/, "", t)
		printf "%d (%.2f s, %.2f ms each)", c, t / 1e6, a / 1e3; f = 1}
		END {if (!f) printf "0"}' <<<"$1"
}

# s1_gpu true|false: s1's Extra as the churn sets it, gpu as given,
# which takes s1 into (true) and out of (false) every request submitted
s1_gpu() {
	scontrol update nodename=s1 extra="{\"gpu\":$1,\"mem\":512,\"arch\":\"x86_64\",\"load\":0.1,\"ib_pod\":0,\"rack\":0,\"ssd\":\"nvme\"}"
}
# answered GPU F0 UNTIL JOB: ms from F0 (ns since the epoch) until JOB's
# set follows s1's Extra (s1 in it when GPU is false, not otherwise),
# polled every 50 ms (plus a single-job load) until UNTIL (ns: the next
# flip); "late" past it, "error" when it cannot be read.
answered() {
	local rc
	while [ "$(date +%s%N)" -lt "$3" ]; do
		"$HELPER" excluded "$4" 0
		rc=$?
		[ "$rc" = 2 ] && { echo error; return; }
		# (rc 0: s1 excluded, which GPU false asks)
		if [ $((rc == 0)) = "$([ "$1" = false ] && echo 1 || echo 0)" ]; then
			echo $((($(date +%s%N) - $2) / 1000000))
			return
		fi
		sleep 0.05
	done
	echo late
}

# run MODE: one controller, one row.
run() {
	local mode=$1 params='' bb=''
	case $mode in
	own) params=SchedulerParameters=extra_constraints ;;
	guard) bb=BurstBufferType=burst_buffer/extra ;;
	*) echo "  $mode: no such mode (guard, own)"; return 1 ;;
	esac
	scale_start_backfill scale-carrier.sh "$NODES" JobSubmitPlugins=extra "$params" "$bb" ||
		{ echo "  ($mode)"; return 1; }
	local pid
	pid=$(scale_pid)
	scale_fill "$NODES" ||
		{ echo "  $mode: not every job without a request had its nodes after 10 minutes"; return 1; }
	local s0 s1 j
	s0=$(date +%s.%N)
	for ((j = 0; j < JOBS; j++)); do
		printf -- '--extra=%s\n' "$(request $((j % DISTINCT)))"
	done | cat - <(for ((j = 0; j < PLAIN; j++)); do echo --comment=plain; done) | xargs -P 4 -d '\n' -I{} sbatch -t 60 -o /dev/null {} --wrap true 2>"$XC_STATE/refused" >/dev/null
	s1=$(date +%s.%N)
	local pending
	pending=$(squeue -h -t PD | wc -l)
	[ "$pending" -ge $((JOBS + PLAIN)) ] ||
		{ echo "  $mode: $pending of $((JOBS + PLAIN)) jobs pending after their submission ($(head -n 1 "$XC_STATE/refused"))"; return 1; }
	local poll=
	if [ "$mode" = guard ]; then
		# the request jobs by id (their priority's order), the 1,000th
		poll=$(squeue -h -t PD -o '%i %k' | awk '$2 != "plain" {print $1}' | sort -n |
			sed -n "$((JOBS < 1000 ? JOBS : 1000))p")
		# s1 fails every request at first (scale_set_extra: block 0)
		wait_for 900 "$HELPER" excluded "$poll" 0 ||
			{ echo "  $mode: job $poll not kept off s1 by the look after 15 minutes"; return 1; }
	fi
	sleep 5
	local from c0 c1 out s gpu rss hwm w0 w1 window
	from=$(log_lines)
	w0=$(date +%s%N)
	sdiag -r >/dev/null
	c0=$(cpu_ticks "$pid")
	local t0 lag=() f0
	t0=$(date +%s)
	for ((s = 1; s <= CHURN; s++)); do
		gpu=$([ $((s % 2)) = 1 ] && echo true || echo false)
		s1_gpu "$gpu"
		if [ "$mode" = guard ]; then # the look's answer: the job's set follows (or not)
			f0=$(date +%s%N)
			# after a flip not answered, the set already shows what
			# this one asks: not a measure of it
			if [ "${#lag[@]}" -gt 0 ] && [ "${lag[-1]}" = late ]; then
				answered "$gpu" "$f0" $(((t0 + s) * 1000000000)) "$poll" >/dev/null
				lag+=(after-late)
			else
				lag+=("$(answered "$gpu" "$f0" $(((t0 + s) * 1000000000)) "$poll")")
			fi
		fi
		sleep $((t0 + s - $(date +%s) > 0 ? t0 + s - $(date +%s) : 0))
	done
	out=$(sdiag)
	c1=$(cpu_ticks "$pid")
	w1=$(date +%s%N)
	window=$(awk -v a="$w0" -v b="$w1" 'BEGIN {printf "%.1f", (b - a) / 1e9}')
	rss=$(awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$pid/status")
	hwm=$(awk '/VmHWM/ {print int($2 / 1024)}' "/proc/$pid/status")
	printf '| %s | %d + %d | %.0f s | %.1f s | %s | %s | %s (%s) | %s (%s) | %d MB (%d) |\n' \
		"$mode" "$JOBS" "$PLAIN" "$(awk -v a="$s0" -v b="$s1" 'BEGIN {print b - a}' </dev/null)" \
		"$(awk -v a="$c0" -v b="$c1" -v hz="$(getconf CLK_TCK)" 'BEGIN {print (b - a) / hz}')" \
		"$(rpc "$out" REQUEST_UPDATE_NODE)" "$(rpc "$out" REQUEST_UPDATE_JOB)" \
		"$(ms "$(sdiag_value "$out" 'Main schedule statistics' 'Mean cycle:')")" \
		"$(sdiag_value "$out" 'Main schedule statistics' 'Mean depth cycle:')" \
		"$(ms "$(sdiag_value "$out" 'Backfilling stats' 'Mean cycle:')")" \
		"$(sdiag_value "$out" 'Backfilling stats' 'Depth Mean:')" \
		"$rss" "$hwm"
	# slurmctld's time on node and job loads and updates (the node
	# updates hold the admin's flips), and its sum over the window's wall
	# time (RPCs overlap, and their time holds lock waits: not a share of
	# the CPU): sdiag's totals and means per call; and the script's own
	# polling (single-job loads)
	printf '    %s: in the %s s window, node loads %s, job loads %s, node updates %s, job updates %s: %s of the window (RPC time; RPCs overlap); single-job loads (the script) %s\n' \
		"$mode" "$window" "$(rpc "$out" REQUEST_NODE_INFO)" "$(rpc "$out" REQUEST_JOB_INFO)" \
		"$(rpc "$out" REQUEST_UPDATE_NODE)" "$(rpc "$out" REQUEST_UPDATE_JOB)" \
		"$(awk -v w="$window" '$1 ~ /^REQUEST_(NODE_INFO|JOB_INFO|UPDATE_NODE|UPDATE_JOB)$/ {
			t = $0; sub(/.*total_time:/, "", t); sub(/ .*/, "", t); sum += t}
			END {printf "%.1f%%", sum / 1e4 / w}' <<<"$out")" \
		"$(rpc "$out" REQUEST_JOB_INFO_SINGLE)" >>"$NOTES"
	if [ "$mode" = guard ]; then
		# the guard's own figures, once a minute in slurmctld's log
		tail -n +"$((from + 1))" "$LOG" | grep -oP 'burst_buffer/extra: \K[0-9]+ placement attempts .*' |
			sed 's/^/    guard: /' >>"$NOTES"
		# and the look's (guard.md "The look"): its holds of the locks
		tail -n +"$((from + 1))" "$LOG" | grep -oP 'burst_buffer/extra: the look: \K[0-9]+ walks.*' |
			sed 's/^/    look: /' >>"$NOTES"
		[ -z "${XC_CARRIER_LAGS:-}" ] || echo "    $mode: each flip: ${lag[*]}" >>"$NOTES"
		printf '%s\n' "${lag[@]}" | sort -n | awk -v mode="$mode" -v what="job $poll's set following s1" '$1 == "late" {late++; next} $1 == "error" {err++; next}
			$1 == "after-late" {skip++; next}
			{v[++n] = $1; over += $1 > 1000}
			END {
				printf "    %s: from a flip to %s, median %s, longest %s (polled every 50 ms), %d flips answered after 1 s, %d not before the next flip (and %d after those, not measured), %d unreadable\n",
					mode, what, n ? v[int((n + 1) / 2)] " ms" : "-", n ? v[n] " ms" : "-", over, late, skip, err
			}' >>"$NOTES"
		printf '%s\n' "${lag[@]}" | grep -q '^error$' &&
			{ echo "  $mode: job $poll could not be read during the churn (slurm-helper)"; scale_stop; return 1; }
		[ "${XC_CARRIER_RESTART:-1}" = 0 ] || restart_guard "$poll" || { scale_stop; return 1; }
	fi
	scale_stop
}

# ctld_restart MODE: slurmctld stopped and started again on its saved
# state; CTLD_T0 the time of the start (ns since the epoch; not printed
# for a $(...) to read: the daemon would hold its pipe).  Its pidfile
# removed first: the daemon writes it a moment after `slurmctld`
# returns, and one left by a slurmctld that had to be killed names a
# process gone (ctld_running).  1, said, when it does not start.
ctld_restart() {
	scale_stop
	rm -f "$XC_STATE/slurmctld.pid"
	CTLD_T0=$(date +%s%N)
	slurmctld -i || { echo "  $1: slurmctld did not start again"; return 1; }
}

# ctld_running MODE T0: the slurmctld started at T0 (ns) still runs, or
# has not written its pidfile yet within 30 s of it.  1, said, when it
# stopped.
ctld_running() {
	local pid
	pid=$(scale_pid)
	if [ -z "$pid" ]; then
		[ "$(date +%s)" -lt $(($2 / 1000000000 + 30)) ] && return 0
	elif kill -0 "$pid" 2>/dev/null; then
		return 0
	fi
	echo "  $1: slurmctld stopped after its restart"
	return 1
}

# restart_guard JOB: the look's first answer after a restart.
# Slurm saves a job's ExcNodeList as text, so the bitmap the look set on
# the waiting jobs is gone after a restart until its first walk sets it
# again (doc/guard.md "The look").  s1 made to fail every request and
# JOB's set seen keeping it off; slurmctld stopped and started on its
# saved state; in the notes, the time from the start to slurmctld's
# first answer (scontrol ping), and to JOB's set keeping s1 off again
# (polled every 100 ms; `slurm-helper excluded`: the bitmap slurmctld
# keeps).  1, said, when slurmctld does not come back or the set is not
# back within 600 s.
restart_guard() {
	local t0 up= back=
	s1_gpu false
	wait_for 60 "$HELPER" excluded "$1" 0 ||
		{ echo "  guard: job $1 not kept off s1 within 60 s before the restart"; return 1; }
	ctld_restart guard || return 1
	t0=$CTLD_T0
	while [ "$(date +%s)" -lt $((t0 / 1000000000 + 600)) ]; do
		if [ -z "$up" ] && scontrol ping 2>/dev/null | grep -q UP; then
			up=$((($(date +%s%N) - t0) / 1000000))
		fi
		if [ -n "$up" ] && "$HELPER" excluded "$1" 0 2>/dev/null; then
			back=$((($(date +%s%N) - t0) / 1000000))
			break
		fi
		ctld_running guard "$t0" || return 1
		sleep 0.1
	done
	[ -n "$back" ] || { echo "  guard: job $1's set not back within 600 s of a restart"; return 1; }
	echo "    guard: restarted: slurmctld answered ${up} ms after its start, job $1's set kept s1 off again ${back} ms after its start ($((back - up)) ms after slurmctld answered)" >>"$NOTES"
}

[ "${XC_KEEP:-0}" = 1 ] || trap scale_stop EXIT
[ "$CHURN" -ge 1 ] 2>/dev/null || { echo "XC_CARRIER_CHURN must be a number of seconds, 1 or more" >&2; exit 2; }
printf '%s; %d nodes, %d pending jobs with a request and %d without, %d distinct requests, %d s of churn (s1 flips gpu each second)\n' \
	"$(slurmctld -V)" "$NODES" "$JOBS" "$PLAIN" "$DISTINCT" "$CHURN"
echo '| mode | jobs (with + without a request) | submitted in | slurmctld CPU in the churn | node updates (time in slurmctld) | job updates (time in slurmctld) | main cycle mean (jobs reached) | backfill cycle mean (jobs reached) | RSS (peak) |'
echo '| --- | --- | --- | --- | --- | --- | --- | --- | --- |'
status=0
NOTES=$(mktemp)
for mode in "${MODES[@]}"; do
	if [ "$mode" = own ] && ! slurm_at_least 23 11; then
		echo "| own | skipped: extra_constraints needs Slurm 23.11 or later |"
		continue
	fi
	if [ "$mode" = guard ] && ! guard_so >/dev/null; then
		echo "| guard | skipped: burst_buffer_extra.so is not installed (configure --with-slurm-source) |"
		continue
	fi
	if ! run "$mode"; then
		echo "| $mode | FAILED (above) |"
		status=1
	fi
done
cat "$NOTES"
rm -f "$NOTES"
exit "$status"
