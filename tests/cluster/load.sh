#!/usr/bin/env bash
# load.sh - load on the real controller: JOBS `sbatch --extra` submissions
# (default 2000) from 4 parallel clients while another loop rewrites node
# Extra every 100 ms, burst_buffer/extra filtering (doc/guard.md).  Checks:
# slurmctld stays up; every submission is accepted; every accepted job's
# ExcNodeList is the user's own (none here), and none has a feature of the
# plugin's; every accepted job completes (counted in the job completion
# log) on a node that satisfied its request shortly before its script
# started; and nothing leaks: burst_buffer/extra logs the library's live
# object count (xc_live_objects) after each walk of its look that follows
# a change of the nodes' Extra, which rewrite_n1 waits for, and the count
# once the queue is empty must be at most the count before the load plus
# the load's two requests, which the look may still hold
# (job_submit/extra's own copy of the library, which parses each request
# at submission and keeps none, logs no count: its leaks are the
# sanitizer build's to find, tests/run-all.sh step 3).  slurmctld's RSS is
# printed per 1,000 jobs, not asserted: slurmctld's own heap grows run
# after run with or without the plugins, so one reading says nothing about
# a leak.  Skipped where burst_buffer/extra is not installed (nothing
# filters there).  Closes with "load: N passed, M failed".
# Full form: bash tests/cluster/load.sh 2000 (CI runs a shorter one).
# XC_LOAD_BASELINE=1 runs the same load without the plugins, for
# comparison of the RSS figures.
set -uo pipefail

JOBS=${1:-${XC_LOAD_JOBS:-2000}}
CLIENTS=4
TMP=$(mktemp -d)

. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
cluster_test load.sh

# Each node flips between two Extra states (A, B).  For each request some
# nodes match in both, some in neither, some in one: an accepted job's
# ExcNodeList must hold every "neither" node and no "both" node.
declare -A A B
A[n1]='{"gpu":true,"mem":2048}'  B[n1]='{"gpu":true,"mem":512}'
A[n2]='{"gpu":false,"mem":2048}' B[n2]='{"gpu":false,"mem":4096}'
A[n3]='{"gpu":true,"mem":256}'   B[n3]='{"gpu":false,"mem":256}'
A[n4]='{"gpu":true,"mem":1024}'  B[n4]='{"gpu":false,"mem":512}'
# (Every state is a JSON object, so the library's live count does not
# depend on which state a walk saw; unusable Extra: tests/cluster/e2e-fault.sh.)
R1='gpu=true'  R1_ALWAYS=n1 R1_NEVER=n2   # n3, n4 flip
R2='mem>=1024' R2_ALWAYS=n2 R2_NEVER=n3   # n1, n4 flip

rss() { grep -oP 'VmRSS:\s*\K[0-9]+' "/proc/$(head -n 1 "$XC_STATE/slurmctld.pid")/status"; }
# live_objects: rewrites n1's Extra twice (each time to the one of its A
# and B states it is not in, rewrite_n1), each time waiting until the
# look's first walk after it read the change has logged the library's
# live object count, and prints the count logged the second time; nothing
# after 30 s.
rewrite_n1() {
	local from n state=B live
	from=$(log_lines)
	# the state n1 is not in now (a call runs in a subshell: no counter),
	# in a text n1 never had: one more key, "v", the time in ns (the same
	# state for every request, and one library object, as before).  The
	# guard's look reads a node as it is at its walk (every 500 ms) and
	# logs the count only after a walk that read a change: a look that
	# missed the first rewrite here (the line it waited for came from the
	# for-loop's updates) would otherwise find the second one back at the
	# text it last read, and log nothing.  (The line the second rewrite
	# waits for may still be the walk that read the first one: its count
	# is as good, every walk after the start's updates counting the jobs
	# the queue holds.)
	[[ "$(scontrol show node n1 | grep -oP '(?<![A-Za-z])Extra=\K\S+')" == "${B[n1]%\}}"[,}]* ]] && state=A
	if [ "$state" = B ]; then n=${B[n1]}; else n=${A[n1]}; fi
	n="${n%\}},\"v\":$(date +%s%N)}"
	scontrol update nodename=n1 extra="$n"
	# a rewrite like the rewriter's, for bad_starts()
	echo "$(date +%s%3N) n1 $state" >>"$TMP/rewrites.all"
	# the look's first walk after it read the change logs the count
	wait_for 30 eval '[ -n "$(tail -n +"$((from + 1))" "$LOG" | grep -F "library objects live")" ]' ||
		return 1
	live=$(tail -n +"$((from + 1))" "$LOG" | grep -oP 'library objects live: \K[0-9]+' | tail -1)
	[ -n "$live" ] && echo "$live"
}
# A held job without a request is there meanwhile (a change of the jobs
# for the look too).
live_objects() {
	local id out rc
	id=$(sbatch --parsable -H -o /dev/null --wrap true) || return 1
	out=$(rewrite_n1 >/dev/null && rewrite_n1)
	rc=$?
	scancel "$id"
	[ "$rc" = 0 ] && echo "$out"
}
completed() { [ -f "$XC_STATE/jobcomp.log" ] && grep -c 'JobState=COMPLETED' "$XC_STATE/jobcomp.log" || echo 0; }
wait_idle() {
	for _ in $(seq "${1:-600}"); do
		[ "$(squeue -h | wc -l)" = 0 ] && return 0
		sleep 1
	done
	return 1
}
# Waits until slurmctld has purged every finished job's record (it purges
# on its own cycle, not right at MinJobAge), so that RSS is read on the
# same state every time.
wait_purged() {
	for _ in $(seq 180); do
		[ "$(squeue -h -t all | wc -l)" = 0 ] && return 0
		sleep 1
	done
	return 1
}

# client K COUNT: submits COUNT jobs, alternating R1 and R2; one line each:
# "<request> <jobid> <ExcNodeList> <the plugin's feature in its constraint,
# - for none>" or "<request> refused <message>"
client() {
	local k=$1 count=$2 i req out exc feat
	for i in $(seq "$count"); do
		if (( (i + k) % 2 )); then req=$R1; else req=$R2; fi
		if [ "${XC_LOAD_BASELINE:-0}" = 1 ]; then
			out=$(sbatch --parsable -o /dev/null --wrap true 2>&1) &&
				echo "$req $out baseline" || echo "$req refused ${out//$'\n'/ }"
			continue
		fi
		# The job prints when its script started, in ms: bad_starts()
		if out=$(sbatch --parsable -o "$TMP/out/%j" --extra "$req" --wrap 'date +%s%3N' 2>&1); then
			exc=$(scontrol show job "$out" 2>/dev/null | grep -oP '(ExcNodeList|(?<![A-Za-z])Features)=\S+' | sort | paste -sd' ')
			feat=$(grep -oP 'Features=\S*\Kxc_[0-9a-f]{12}$' <<<"$exc" || true)
			exc=$(grep -oP 'ExcNodeList=\K\S+' <<<"$exc" || true)
			echo "$req $out ${exc:-gone} ${feat:--}"
		else
			echo "$req refused ${out//$'\n'/ }"
		fi
	done >"$TMP/client-$k"
}

# rewriter: rewrites a random node's Extra every 100 ms; one line each in
# $TMP/rewrites: "<epoch ms, after the update> <node> <A|B>".
rewriter() {
	local n state label
	while [ ! -f "$TMP/stop" ]; do
		n=n$((RANDOM % 4 + 1))
		if (( RANDOM % 2 )); then label=A; else label=B; fi
		if [ $label = A ]; then state=${A[$n]}; else state=${B[$n]}; fi
		scontrol update nodename="$n" extra="$state" 2>/dev/null
		echo "$(date +%s%3N) $n $label" >>"$TMP/rewrites"
		sleep 0.1
	done
}

# Which node states satisfy which request (the A and B tables above).
SAT="R1 n1 A 1 R1 n1 B 1 R1 n2 A 0 R1 n2 B 0 R1 n3 A 1 R1 n3 B 0 R1 n4 A 1 R1 n4 B 0
R2 n1 A 1 R2 n1 B 0 R2 n2 A 1 R2 n2 B 1 R2 n3 A 0 R2 n3 B 0 R2 n4 A 1 R2 n4 B 0"
# WINDOW_MS: how long before its script started a job's node must have
# satisfied its request at some moment: the guard reads the node at the
# placement, then come the launch of the script and the times this script
# reads; never after the start.
WINDOW_MS=3000

# bad_starts: the jobs of $TMP/all that started (job completion log) on a
# node whose Extra satisfied their request at no moment in the WINDOW_MS
# before their script started (the ms it printed); one line each.  A job
# without its start time is one too.
bad_starts() {
	local id node
	# (a job requeued has a line of its own, PENDING, for the node it
	# did not start on)
	awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	       if (f["JobState"] != "PENDING" && f["JobState"] != "REQUEUED")
		       print f["JobId"], f["NodeList"] }' \
		"$XC_STATE/jobcomp.log" >"$TMP/starts.raw"
	while read -r id node; do
		printf '%s %s %s\n' "$id" "$node" "$(head -1 "$TMP/out/$id" 2>/dev/null || echo none)"
	done <"$TMP/starts.raw" >"$TMP/starts"
	awk -v sat="$SAT" -v win="$WINDOW_MS" -v r1="$R1" -v r2="$R2" '
	BEGIN { n = split(sat, f, /[ \n]+/)
		for (i = 1; i + 3 <= n; i += 4) ok[f[i] " " f[i+1] " " f[i+2]] = f[i+3] }
	FILENAME ~ /rewrites/ { w++; wt[w] = $1; wn[w] = $2; ws[w] = $3; next }
	FILENAME ~ /all$/ { if ($2 != "refused") req[$2] = ($1 == r1 ? "R1" : "R2"); next }
	{ id = $1; node = $2; t = $3
	  if (!(id in req)) next
	  if (t !~ /^[0-9]+$/) { print "job " id ": no start time printed"; next }
	  from = t - win; to = t
	  st = "A"; good = 0
	  for (k = 1; k <= w; k++) {
		if (wn[k] != node) continue
		if (wt[k] <= from) { st = ws[k]; continue }
		if (wt[k] >= to) break
		if (ok[req[id] " " node " " ws[k]]) good = 1
	  }
	  if (ok[req[id] " " node " " st]) good = 1
	  if (!good) print "job " id " (" req[id] ") started on " node " at " t " ms"
	}' "$TMP/rewrites.all" "$TMP/all" "$TMP/starts"
}

# XC_LOAD_BASELINE=1: the same load without the plugins and without
# --extra, to see what slurmctld's RSS does on its own.
if [ "${XC_LOAD_BASELINE:-0}" = 1 ]; then
	export XC_JOB_SUBMIT= XC_BURST_BUFFER=
	echo "# baseline: no job_submit plugin, no burst_buffer/extra, no --extra"
else
	filter_or_skip load
fi
XC_CPUS=8 XC_MIN_JOB_AGE=2 XC_JOBCOMP=jobcomp/filetxt bash "$CLUSTER" start >/dev/null || exit 1
[ "${XC_KEEP:-0}" = 1 ] || trap 'touch "$TMP/stop"; bash "$CLUSTER" stop >/dev/null 2>&1; rm -rf "$TMP"' EXIT
for n in n1 n2 n3 n4; do scontrol update nodename="$n" extra="${A[$n]}"; done
if [ "${XC_LOAD_BASELINE:-0}" != 1 ]; then
	live_first=$(live_objects) || { not_ok "the look logged no live count after a change of Extra"; summary load; exit 1; }
	echo "  library objects live in slurmctld after the first change: $live_first"
fi

# run_load: the load itself, results in $TMP/all; prints the figures.
run_load() {
	local per=$((JOBS / CLIENTS)) t0 t1 rewriter_pid k pids=()
	rm -f "$TMP/stop" "$TMP/rewrites" "$TMP"/client-*
	mkdir -p "$TMP/out"
	touch "$TMP/rewrites" "$TMP/rewrites.all"
	t0=$(date +%s)
	rewriter &
	rewriter_pid=$!
	for k in $(seq "$CLIENTS"); do
		client "$k" "$per" &
		pids+=($!)
	done
	wait "${pids[@]}"
	touch "$TMP/stop"
	wait "$rewriter_pid"
	t1=$(date +%s)
	cat "$TMP"/client-* >"$TMP/all"
	cat "$TMP/rewrites" >>"$TMP/rewrites.all"
	printf '  %d submissions in %d s, %d accepted, %d refused, %d Extra rewrites\n' \
		"$(wc -l <"$TMP/all")" $((t1 - t0)) "$(grep -cv ' refused ' "$TMP/all")" \
		"$(grep -c ' refused ' "$TMP/all")" "$(wc -l <"$TMP/rewrites")"
}

# Warm up with runs of the same shape, so that "before" is a controller
# whose heap has already held that many jobs (glibc keeps freed memory).
# Three warm-ups: slurmctld's own heap grows over its first runs of a load
# even without the plugin (XC_LOAD_BASELINE=1 shows 16.7, 18.9, 20.9 MiB,
# then +1.7%), so "before" is taken once it has settled.
# rss_per_1000 BEFORE AFTER: growth in KiB per 1,000 submissions.
rss_per_1000() { awk -v a="$2" -v b="$1" -v j="$JOBS" 'BEGIN { printf "%+.0f", (a - b) * 1000 / j }'; }
warmups=${XC_LOAD_WARMUPS:-3}
rss_prev=$(rss)
for w in $(seq "$warmups"); do
	echo "# warm-up $w of $warmups: the same load"
	run_load
	wait_idle 1800
	wait_purged
	r=$(rss)
	printf '  slurmctld RSS after warm-up %d: %d KiB (%s KiB per 1,000 jobs)\n' "$w" "$r" "$(rss_per_1000 "$rss_prev" "$r")"
	rss_prev=$r
done
rss_before=$(rss)
done_before=$(completed)
if [ "${XC_LOAD_BASELINE:-0}" != 1 ]; then
	live_before=$(live_objects) || not_ok "the look logged no live count before the load"
	echo "  library objects live before the load: $live_before"
fi

echo "# $JOBS submissions from $CLIENTS clients, node Extra rewritten every 100 ms"
t0=$(date +%s)
run_load
per=$((JOBS / CLIENTS))
submitted=$(wc -l <"$TMP/all")
accepted=$(grep -cv ' refused ' "$TMP/all")

expect "every submission answered" "$submitted" $((per * CLIENTS))
expect "slurmctld still answers" "$(scontrol ping | grep -o UP | head -1)" UP
# Both requests are valid: a refusal is wrong, whatever it says.
expect "every submission accepted (both requests are valid)" "$(grep -c ' refused ' "$TMP/all")" 0
grep ' refused ' "$TMP/all" | head -3
# Nothing of the plugin's in a job: no feature of its (xc_ and 12 hex
# digits, what an earlier release's thread ANDed in), and its ExcNodeList
# is Slurm alone's, the user's own (none here).
expect "no job with a feature of the plugin's" \
	"$(awk '$2 != "refused" && $3 != "baseline" && $4 != "-"' "$TMP/all" | grep -c .)" 0
expect "every accepted job's ExcNodeList is the user's own (none)" \
	"$(awk '$2 != "refused" && $3 != "baseline" && $3 != "(null)" && $3 != "gone"' "$TMP/all" | grep -c .)" 0

wait_idle 1800 || not_ok "jobs still queued after 30 minutes"
printf '  all jobs done %d s after the first submission\n' $(($(date +%s) - t0))
# The job completion log is written as jobs end: wait for the last lines.
for _ in $(seq 40); do
	[ $(($(completed) - done_before)) -ge "$accepted" ] && break
	sleep 0.25
done
done_after=$(completed)
expect "every accepted job completed (job completion log)" $((done_after - done_before)) "$accepted"
bad=$(bad_starts)
expect "every job started on a node that satisfied its request within ${WINDOW_MS} ms before its script did" \
	"$(grep -c . <<<"$bad")" 0
[ -n "$bad" ] && head -5 <<<"$bad"
expect "nothing left in the queue" "$(squeue -h | wc -l)" 0
wait_purged || not_ok "finished jobs not purged within 3 minutes"
rss_after=$(rss)
printf '  slurmctld RSS: %d KiB before, %d KiB after (%s KiB per 1,000 jobs; printed, not a check)\n' \
	"$rss_before" "$rss_after" "$(rss_per_1000 "$rss_before" "$rss_after")"
if [ "${XC_LOAD_BASELINE:-0}" != 1 ]; then
	live_after=$(live_objects) || not_ok "the look logged no live count after the load"
	echo "  library objects live after the load: $live_after (before: $live_before)"
	# The look may hold the load's two requests parsed (one object each)
	# after the queue emptied, or not, before as after; a leak is an
	# object per job or per walk: hundreds here.
	expect "nothing leaked: the library's live objects after the load at most those before plus the load's 2 requests" \
		"$((live_after <= live_before + 2))" 1
fi

summary load
