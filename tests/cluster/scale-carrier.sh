#!/usr/bin/env bash
# scale-carrier.sh [NODES [JOBS]] - what one node's Extra change costs
# slurmctld, carrier by carrier: how the nodes a request allows reach the
# pending jobs that wait on it.  One slurmctld with NODES nodes (default
# 10000, or XC_CARRIER_NODES; State=CLOUD, no slurmd), every node taken
# first by jobs without a request (so that the scheduler meets no free
# node and backfill plans the pending jobs around running work), then JOBS
# pending one-node jobs (default 5000, or XC_CARRIER_JOBS) with
# XC_CARRIER_DISTINCT distinct 6-leaf requests (default 100) and
# XC_CARRIER_PLAIN pending jobs without one (default 0),
# then `sdiag -r` and XC_CARRIER_CHURN seconds (default 120) in which node
# s1's Extra flips gpu every second, taking it into and out of every
# request; with the plugin loaded, then a restart of slurmctld and the time
# to the thread's first plan, or with the guard alone to the look's first
# answer (XC_CARRIER_RESTART=0: none).  Figures
# printed, never asserted (doc/benchmarks.md, "Carriers").
#
# Carriers (XC_CARRIER_MODES, default "exclude plugin features active
# own"):
# - exclude: filter mode with Carrier=exclusions: job_submit/extra gives
#   each job an ExcNodeList and its thread rewrites the lists a change
#   concerns.
# - plugin: filter mode with Carrier=features (extra.conf(5)): the plugin
#   itself sets a feature per distinct request and ANDs it into each job's
#   constraint; the row waits until every job is carried by its feature
#   (or, its request satisfied nowhere, excluded from every node), and in
#   the churn times each flip to the plugin's feature update of s1.
# - guard: plugin, and the guard at placement (BurstBufferType=
#   burst_buffer/extra, built --with-slurm-source): its figures and its
#   look's, logged once a minute, printed after the table.
# - alone: the guard alone (Carrier=guard, doc/guard.md "The guard
#   alone"): no thread, no carrier; the row waits until the look has
#   given a set to the request job of the 1,000th highest priority (sets
#   go to 1,024), and in the churn times each flip to that job's set
#   following s1 (slurm-helper excluded: the bitmap slurmctld keeps);
#   XC_CARRIER_LAGS=1 prints each flip's answer too.
# - features: a node feature per distinct request, on the nodes that
#   satisfy it; each job asks for its request's feature (--constraint).
#   Set with `scontrol update node Features=F ActiveFeatures=F`: without
#   a NodeFeatures plugin Slurm makes available and active features one,
#   but checks the old active ones against the new available ones first,
#   so that taking one away needs both (update_node(),
#   src/slurmctld/node_mgr.c); a change of available features on part of
#   a node configuration splits it (update_node_avail_features()).  Played by this script, no plugin
#   loaded: it sets, grouped by identical sets, the features a thread would
#   set, and submits the jobs with the constraint job_submit() would give
#   them, so that the row is Slurm's own cost of the carrier.
# - active: the same features, all of them available on every node (one
#   update per node configuration, which splits none) and active only on
#   the nodes that satisfy the request (`ActiveFeatures=`, which splits
#   nothing): the scheduler uses active features (find_feature_nodes(),
#   src/slurmctld/node_scheduler.c).
# - own: Slurm's own filter (SchedulerParameters=extra_constraints,
#   23.11 and later), job_submit/extra checking requests.
# Printed per carrier: the time to submit the jobs; in the churn window
# slurmctld's CPU, its time on node and job updates (sdiag: count, total),
# the main scheduler's and backfill's mean cycle and jobs reached, the
# thread's job updates and how far it fell behind (exclude); at the end the
# distinct sets of available features (each one node configuration at
# least), resident memory and its peak.
# A carrier whose controller does not start, or whose jobs are not all
# pending on their carrier, is a failure: the script exits 1; but jobs
# whose request no node satisfies are refused with a feature (Slurm wants
# it active on some node), and counted after the table.
# XC_EXTRA_CONF as for tests/cluster/scale.sh.  Uses the installed plugin and
# Slurm (XC_SLURM_PREFIX); needs root and tests/cluster/slurm-helper (make check).
set -uo pipefail

NODES=${1:-${XC_CARRIER_NODES:-10000}}
JOBS=${2:-${XC_CARRIER_JOBS:-5000}}
DISTINCT=${XC_CARRIER_DISTINCT:-100}
PLAIN=${XC_CARRIER_PLAIN:-0}
CHURN=${XC_CARRIER_CHURN:-120}
read -ra MODES <<<"${XC_CARRIER_MODES:-exclude plugin features active own}"
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
# The feature of request k: a name as a plugin would derive it from the
# request (11 bytes).
feature() { printf 'xc_%08x\n' $(((($1 + 1) * 2654435761) % 4294967296)); }

# block_features: for every block b of scale_set_extra, "b features",
# the features of the requests its Extra satisfies (comma-separated; "-"
# for none), evaluated here as the plugin would.
block_features() {
	local k names=()
	for ((k = 0; k < DISTINCT; k++)); do names+=("$(feature "$k")"); done
	awk -v distinct="$DISTINCT" -v names="${names[*]}" -v nodes="$NODES" 'BEGIN {
		split(names, f, " ")
		size = int((nodes + 999) / 1000)
		for (b = 0; b * size < nodes; b++) {
			gpu = (b % 3 != 0); mem = 64 * 2 ^ (b % 5); arch = b % 3
			load = (b % 10) / 10; rack = int(b / 4); s = ""
			for (k = 0; k < distinct; k++)
				if (gpu && mem >= 64 * 2 ^ (k % 4) && arch != 2 &&
				    load < (5 + k % 5) / 10 && rack < 1 + int(k * 250 / distinct))
					s = s (s == "" ? "" : ",") f[k + 1]
			print b, (s == "" ? "-" : s)
		}
	}'
}

# set_features KEYWORD: node features as the thread would set them, one
# update per distinct set, naming the blocks that have it; with
# KEYWORD=ActiveFeatures, every request's feature first made available on
# every node (one update: it covers every node configuration whole).
set_features() {
	local size=$((($NODES + 999) / 1000)) all
	if [ "$1" = ActiveFeatures ]; then
		all=$(for ((k = 0; k < DISTINCT; k++)); do feature "$k"; done | paste -sd,)
		scontrol update nodename="s[1-$NODES]" features="$all" activefeatures= || return 1
	fi
	block_features | awk -v size="$size" -v nodes="$NODES" '$2 != "-" {
		lo = $1 * size + 1; hi = ($1 + 1) * size; if (hi > nodes) hi = nodes
		r = (lo == hi) ? lo : lo "-" hi
		h[$2] = (h[$2] == "" ? "" : h[$2] ",") r
	} END {for (s in h) print "s[" h[s] "] " s}' |
		while read -r hosts feats; do
			if [ "$1" = Features ]; then
				scontrol update nodename="$hosts" features="$feats" activefeatures="$feats" || exit 1
			else
				scontrol update nodename="$hosts" activefeatures="$feats" || exit 1
			fi
		done
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

# settled: every pending job carried by its feature, or excluded from
# every node (its request satisfied nowhere).
settled() {
	[ "$(squeue -h -t PD -o '%f %x' | awk -v all="s[1-$NODES]" '$1 ~ /xc_/ || $2 == all' | wc -l)" -ge "$1" ]
}
# s1_gpu true|false: s1's Extra as the churn sets it, gpu as given,
# which takes s1 into (true) and out of (false) every request submitted
s1_gpu() {
	scontrol update nodename=s1 extra="{\"gpu\":$1,\"mem\":512,\"arch\":\"x86_64\",\"load\":0.1,\"ib_pod\":0,\"rack\":0,\"ssd\":\"nvme\"}"
}
# s1_carries: whether s1's active features hold the plugin's: 0 yes, 1
# no, 2 unreadable (read alone: `scontrol show node` would load every
# node each time)
s1_carries() {
	local f
	f=$("$HELPER" features s1) || return 2
	[[ "$f" == *xc_* ]]
}

# answered GPU F0 UNTIL [JOB]: ms from F0 (ns since the epoch) until s1's
# features follow its Extra (carried when GPU is true, not otherwise), or
# with JOB, until JOB's set does (s1 in it when GPU is false), polled
# every 50 ms (plus a single-node or single-job load) until UNTIL (ns:
# the next flip); "late" past it, "error" when they cannot be read.
answered() {
	local rc
	while [ "$(date +%s%N)" -lt "$3" ]; do
		if [ -n "${4:-}" ]; then
			"$HELPER" excluded "$4" 0
			rc=$?
			[ "$rc" = 2 ] || rc=$((1 - rc)) # carried: not excluded
		else
			s1_carries
			rc=$?
		fi
		[ "$rc" = 2 ] && { echo error; return; }
		if [ $((rc == 0)) = "$([ "$1" = true ] && echo 1 || echo 0)" ]; then
			echo $((($(date +%s%N) - $2) / 1000000))
			return
		fi
		sleep 0.05
	done
	echo late
}

# run MODE: one controller, one row.
run() {
	local mode=$1 plugins=JobSubmitPlugins=extra params= conf=${XC_EXTRA_CONF:-} bb=
	case $mode in
	features | active) plugins= ;;
	own) params=SchedulerParameters=extra_constraints ;;
	exclude) conf="$conf Carrier=exclusions" ;;
	plugin) conf="$conf Carrier=features" ;;
	guard) conf="$conf Carrier=features" bb=BurstBufferType=burst_buffer/extra ;;
	alone) conf="$conf Carrier=guard" bb=BurstBufferType=burst_buffer/extra ;;
	esac
	XC_EXTRA_CONF=$conf scale_start_backfill scale-carrier.sh "$NODES" "$plugins" "$params" "$bb" ||
		{ echo "  ($mode)"; return 1; }
	case $mode in
	features) set_features Features || { echo "  $mode: setting the features failed"; return 1; } ;;
	active) set_features ActiveFeatures || { echo "  $mode: setting the features failed"; return 1; } ;;
	esac
	local pid
	pid=$(scale_pid)
	scale_fill "$NODES" ||
		{ echo "  $mode: not every job without a request had its nodes after 10 minutes"; return 1; }
	local s0 s1 j k
	s0=$(date +%s.%N)
	for ((j = 0; j < JOBS; j++)); do
		k=$((j % DISTINCT))
		case $mode in
		features | active) printf -- '--constraint=%s\n' "$(feature "$k")" ;;
		*) printf -- '--extra=%s\n' "$(request "$k")" ;;
		esac
	done | cat - <(for ((j = 0; j < PLAIN; j++)); do echo --comment=plain; done) | xargs -P 4 -d '\n' -I{} sbatch -t 60 -o /dev/null {} --wrap true 2>"$XC_STATE/refused" >/dev/null
	s1=$(date +%s.%N)
	local pending refused
	refused=$(grep -c 'Invalid feature specification' "$XC_STATE/refused")
	pending=$(squeue -h -t PD | wc -l)
	[ "$pending" -ge $((JOBS + PLAIN - refused)) ] ||
		{ echo "  $mode: $pending of $((JOBS + PLAIN)) jobs pending after their submission"; return 1; }
	# a feature active on no node (its request satisfied nowhere) is
	# refused at submission: _valid_node_feature(), job_scheduler.c
	[ "$refused" = 0 ] ||
		echo "    $mode: $refused of $JOBS jobs refused: their request's feature is active on no node" >>"$NOTES"
	if [ "$mode" = exclude ]; then
		wait_for 900 eval '[ "$(squeue -h -t PD -o %x | grep -c "^s")" -ge '"$JOBS"' ]' ||
			{ echo "  $mode: not every job had its ExcNodeList after 15 minutes"; return 1; }
	fi
	if [ "$mode" = plugin ] || [ "$mode" = guard ]; then
		wait_for 900 settled "$JOBS" ||
			{ echo "  $mode: not every job carried by its feature after 15 minutes"; return 1; }
	fi
	local poll=
	if [ "$mode" = alone ]; then
		# the request jobs by id (their priority's order), the 1,000th
		poll=$(squeue -h -t PD -o '%i %k' | awk '$2 != "plain" {print $1}' | sort -n |
			sed -n "$((JOBS < 1000 ? JOBS : 1000))p")
		# s1 fails every request at first (scale_set_extra: block 0)
		wait_for 900 "$HELPER" excluded "$poll" 0 ||
			{ echo "  $mode: job $poll not kept off s1 by the look after 15 minutes"; return 1; }
	fi
	sleep 5
	local from c0 c1 out s gpu f rss hwm configs w0 w1 window
	from=$(log_lines)
	w0=$(date +%s%N)
	sdiag -r >/dev/null
	c0=$(cpu_ticks "$pid")
	local all t0 lag=() f0
	all=$(for ((k = 0; k < DISTINCT; k++)); do feature "$k"; done | paste -sd,)
	t0=$(date +%s)
	for ((s = 1; s <= CHURN; s++)); do
		gpu=$([ $((s % 2)) = 1 ] && echo true || echo false)
		s1_gpu "$gpu"
		# the carrier's own update, as the thread would send it
		case $mode in
		features)
			f=$([ "$gpu" = true ] && echo "$all")
			scontrol update nodename=s1 features="$f" activefeatures="$f"
			;;
		active) scontrol update nodename=s1 activefeatures="$([ "$gpu" = true ] && echo "$all")" ;;
		plugin | guard | alone) # the plugin's answer: s1's features follow (or not)
			f0=$(date +%s%N)
			# after a flip not answered, s1 already shows what this
			# one asks: not a measure of it
			if [ "${#lag[@]}" -gt 0 ] && [ "${lag[-1]}" = late ]; then
				answered "$gpu" "$f0" $(((t0 + s) * 1000000000)) "$poll" >/dev/null
				lag+=(after-late)
			else
				lag+=("$(answered "$gpu" "$f0" $(((t0 + s) * 1000000000)) "$poll")")
			fi
			;;
		esac
		sleep $((t0 + s - $(date +%s) > 0 ? t0 + s - $(date +%s) : 0))
	done
	out=$(sdiag)
	c1=$(cpu_ticks "$pid")
	w1=$(date +%s%N)
	window=$(awk -v a="$w0" -v b="$w1" 'BEGIN {printf "%.1f", (b - a) / 1e9}')
	rss=$(awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$pid/status")
	hwm=$(awk '/VmHWM/ {print int($2 / 1024)}' "/proc/$pid/status")
	configs=$(sinfo -h -N -o '%f' | sort -u | wc -l)
	printf '| %s | %d + %d | %.0f s | %.1f s | %s | %s | %s (%s) | %s (%s) | %d | %d MB (%d) |\n' \
		"$mode" "$JOBS" "$PLAIN" "$(awk -v a="$s0" -v b="$s1" 'BEGIN {print b - a}' </dev/null)" \
		"$(awk -v a="$c0" -v b="$c1" -v hz="$(getconf CLK_TCK)" 'BEGIN {print (b - a) / hz}')" \
		"$(rpc "$out" REQUEST_UPDATE_NODE)" "$(rpc "$out" REQUEST_UPDATE_JOB)" \
		"$(ms "$(sdiag_value "$out" 'Main schedule statistics' 'Mean cycle:')")" \
		"$(sdiag_value "$out" 'Main schedule statistics' 'Mean depth cycle:')" \
		"$(ms "$(sdiag_value "$out" 'Backfilling stats' 'Mean cycle:')")" \
		"$(sdiag_value "$out" 'Backfilling stats' 'Depth Mean:')" \
		"$configs" "$rss" "$hwm"
	# slurmctld's time on what the thread asks of it (with the plugin;
	# the node updates hold the admin's flips too), and its sum over the
	# window's wall time (RPCs overlap, and their time holds lock waits:
	# not a share of the CPU): sdiag's totals and means per call; and the
	# script's own polling of s1 (single-node loads)
	printf '    %s: in the %s s window, node loads %s, job loads %s, node updates %s, job updates %s: %s of the window (RPC time; RPCs overlap); single-node loads (the script) %s\n' \
		"$mode" "$window" "$(rpc "$out" REQUEST_NODE_INFO)" "$(rpc "$out" REQUEST_JOB_INFO)" \
		"$(rpc "$out" REQUEST_UPDATE_NODE)" "$(rpc "$out" REQUEST_UPDATE_JOB)" \
		"$(awk -v w="$window" '$1 ~ /^REQUEST_(NODE_INFO|JOB_INFO|UPDATE_NODE|UPDATE_JOB)$/ {
			t = $0; sub(/.*total_time:/, "", t); sub(/ .*/, "", t); sum += t}
			END {printf "%.1f%%", sum / 1e4 / w}' <<<"$out")" \
		"$(rpc "$out" REQUEST_NODE_INFO_SINGLE)" >>"$NOTES"
	if [ "$mode" = guard ] || [ "$mode" = alone ]; then
		# the guard's own figures, once a minute in slurmctld's log
		tail -n +"$((from + 1))" "$LOG" | grep -oP 'burst_buffer/extra: \K[0-9]+ placement attempts .*' |
			sed 's/^/    guard: /' >>"$NOTES"
		# and the look's (guard.md "The look"): its holds of the locks
		tail -n +"$((from + 1))" "$LOG" | grep -oP 'burst_buffer/extra: the look: \K[0-9]+ walks.*' |
			sed 's/^/    look: /' >>"$NOTES"
	fi
	if [ "$mode" = plugin ] || [ "$mode" = guard ] || [ "$mode" = alone ]; then
		[ -z "${XC_CARRIER_LAGS:-}" ] || echo "    $mode: each flip: ${lag[*]}" >>"$NOTES"
		printf '%s\n' "${lag[@]}" | sort -n | awk -v mode="$mode" -v what="$([ "$mode" = alone ] && echo "job $poll's set following s1" || echo "the feature update of s1")" '$1 == "late" {late++; next} $1 == "error" {err++; next}
			$1 == "after-late" {skip++; next}
			{v[++n] = $1; over += $1 > 1000}
			END {
				printf "    %s: from a flip to %s, median %s, longest %s (polled every 50 ms), %d flips answered after 1 s, %d not before the next flip (and %d after those, not measured), %d unreadable\n",
					mode, what, n ? v[int((n + 1) / 2)] " ms" : "-", n ? v[n] " ms" : "-", over, late, skip, err
			}' >>"$NOTES"
		printf '%s\n' "${lag[@]}" | grep -q '^error$' &&
			{ echo "  $mode: s1's features or job $poll could not be read during the churn (slurm-helper)"; scale_stop; return 1; }
	fi
	if [ "$mode" = exclude ]; then
		tail -n +"$((from + 1))" "$LOG" >"$XC_STATE/churn.log"
		grep -oP '_slurm_rpc_update_job: complete JobId=[0-9]+ uid=[0-9]+ usec=\K[0-9]+' "$XC_STATE/churn.log" |
			sort -n | awk '{v[NR] = $1} END {if (NR) printf "    exclude: the thread'"'"'s job updates, median %.1f ms, longest %.1f ms\n", v[int((NR + 1) / 2)] / 1000, v[NR] / 1000}' >>"$NOTES"
		grep -oP 'job_submit/extra: \Kthe thread is .*' "$XC_STATE/churn.log" | sort -t' ' -k4 -n | tail -1 |
			sed 's/^/    exclude: the most behind: /' >>"$NOTES"
	fi
	case $mode in
	plugin | exclude)
		[ "${XC_CARRIER_RESTART:-1}" = 0 ] || restart "$mode" || { scale_stop; return 1; }
		;;
	alone)
		[ "${XC_CARRIER_RESTART:-1}" = 0 ] || restart_alone "$poll" || { scale_stop; return 1; }
		;;
	esac
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

# restart MODE: slurmctld stopped and started again on its saved state;
# the thread's first plan after it (which says how long after the
# thread's start), in the notes.  1, said, when slurmctld does not come
# back or no plan comes within 600 s.
restart() {
	local from plan t0
	from=$(stat -c %s "$LOG")
	ctld_restart "$1" || return 1
	t0=$CTLD_T0
	while [ "$(date +%s)" -lt $((t0 / 1000000000 + 600)) ]; do
		plan=$(tail -c +"$((from + 1))" "$LOG" | grep -oP -m1 'job_submit/extra: \Kfirst plan.*')
		[ -n "$plan" ] && break
		ctld_running "$1" "$t0" || return 1
		sleep 0.5
	done
	[ -n "$plan" ] || { echo "  $1: no plan within 600 s of a restart"; return 1; }
	echo "    $1: restarted: $plan" >>"$NOTES"
}

# restart_alone JOB: the guard alone's first answer after a restart.
# Slurm saves a job's ExcNodeList as text, so the bitmap the look set on
# the waiting jobs is gone after a restart until its first walk sets it
# again (doc/guard.md "The look").  s1 made to fail every request and
# JOB's set seen keeping it off; slurmctld stopped and started on its
# saved state; in the notes, the time from the start to slurmctld's
# first answer (scontrol ping), and to JOB's set keeping s1 off again
# (polled every 100 ms; `slurm-helper excluded`: the bitmap slurmctld
# keeps).  1, said, when slurmctld does not come back or the set is not
# back within 600 s.
restart_alone() {
	local t0 up= back=
	s1_gpu false
	wait_for 60 "$HELPER" excluded "$1" 0 ||
		{ echo "  alone: job $1 not kept off s1 within 60 s before the restart"; return 1; }
	ctld_restart alone || return 1
	t0=$CTLD_T0
	while [ "$(date +%s)" -lt $((t0 / 1000000000 + 600)) ]; do
		if [ -z "$up" ] && scontrol ping 2>/dev/null | grep -q UP; then
			up=$((($(date +%s%N) - t0) / 1000000))
		fi
		if [ -n "$up" ] && "$HELPER" excluded "$1" 0 2>/dev/null; then
			back=$((($(date +%s%N) - t0) / 1000000))
			break
		fi
		ctld_running alone "$t0" || return 1
		sleep 0.1
	done
	[ -n "$back" ] || { echo "  alone: job $1's set not back within 600 s of a restart"; return 1; }
	echo "    alone: restarted: slurmctld answered ${up} ms after its start, job $1's set kept s1 off again ${back} ms after it" >>"$NOTES"
}

[ "${XC_KEEP:-0}" = 1 ] || trap scale_stop EXIT
[ "$CHURN" -ge 1 ] 2>/dev/null || { echo "XC_CARRIER_CHURN must be a number of seconds, 1 or more" >&2; exit 2; }
printf '%s; %d nodes, %d pending jobs with a request and %d without, %d distinct requests, %d s of churn (s1 flips gpu each second)\n' \
	"$(slurmctld -V)" "$NODES" "$JOBS" "$PLAIN" "$DISTINCT" "$CHURN"
echo '| carrier | jobs (with + without a request) | submitted in | slurmctld CPU in the churn | node updates (time in slurmctld) | job updates (time in slurmctld) | main cycle mean (jobs reached) | backfill cycle mean (jobs reached) | distinct feature sets | RSS (peak) |'
echo '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |'
status=0
NOTES=$(mktemp)
for mode in "${MODES[@]}"; do
	if [ "$mode" = own ] && ! slurm_at_least 23 11; then
		echo "| own | skipped: extra_constraints needs Slurm 23.11 or later |"
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
