#!/usr/bin/env bash
# scale.sh [NODES] - what job_submit/extra adds to a submission on a real
# slurmctld with NODES nodes (default 10000), printed, never asserted.
#
# A second controller of its own (state in $XC_SCALE_STATE, default
# /var/lib/slurm-extra-scale; port 16818) whose nodes are defined in
# slurm.conf without any slurmd, as State=CLOUD: powered down, so that
# slurmctld never pings them nor asks them to register (ping_nodes() skips
# powered-down nodes; with State=DOWN it asks every node that never
# booted to register after a restart, which with 50,000 or 100,000 nodes
# ends in "fatal: _start_msg_tree_internal: pthread_create error Resource
# temporarily unavailable"), and PrivateData=cloud so that the node data
# show them; SlurmdTimeout=0.  Every node gets an
# Extra of 7 or 8 keys, in blocks of 100 nodes alike.  Then held batch
# jobs are submitted in turn without --extra, with a 6-leaf request, and
# with the longest request the default limit allows (about 1016 bytes), and
# the median time slurmctld spent on each kind is printed (the usec= of its
# submit RPC log line): the difference is the plugin's.
# With XC_SCALE_PENDING=N (default 0: skipped), N held batch jobs with
# --extra (XC_SCALE_DISTINCT distinct 6-leaf requests, default 100) are
# then left pending, and for XC_SCALE_CHURN seconds (default 300) one
# node's Extra changes every second, moving the nodes of every request: printed are the thread's rounds (its log: jobs planned, time,
# memory it keeps), slurmctld's time on each of the thread's job updates
# (their usec=: its longest stall caused by the plugin), how far behind
# the thread fell, and slurmctld's resident memory.
# XC_SCALE_SCHED_PARAMS: slurm.conf's SchedulerParameters (e.g.
# extra_constraints: Slurm's own filter); XC_CTLD_ENV: NAME=VALUE words
# slurmctld is started with; XC_EXTRA_CONF: KEY=VALUE words for extra.conf
# (e.g. MallocTrimInterval=0).
# Uses the installed plugin and Slurm (XC_SLURM_PREFIX as for the other
# cluster tests); needs root and tests/cluster/slurm-helper (make check).
set -uo pipefail

# tests/cluster/scale.sh --compare NODES JOBS: Slurm's own filter against filter
# mode (tests/cluster/scale-compare.sh)
[ "${1:-}" = --compare ] && shift && exec bash "$(dirname "${BASH_SOURCE[0]}")/scale-compare.sh" "$@"

NODES=${1:-10000}
# Slurm's own filter: the plugin only checks requests, its thread idles
OWN=0
[[ ${XC_SCALE_SCHED_PARAMS:-} == *extra_constraints* ]] && OWN=1
ROUNDS=${XC_SCALE_ROUNDS:-40}
PENDING=${XC_SCALE_PENDING:-0}
DISTINCT=${XC_SCALE_DISTINCT:-100}
CHURN=${XC_SCALE_CHURN:-300}
XC_STATE=${XC_SCALE_STATE:-/var/lib/slurm-extra-scale}
. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
cluster_test scale.sh

scale_fresh scale.sh
cat >>"$SLURM_CONF" <<EOF
SchedulerType=sched/builtin
JobSubmitPlugins=extra
${XC_SCALE_SCHED_PARAMS:+SchedulerParameters=$XC_SCALE_SCHED_PARAMS}
PartitionName=p Nodes=ALL Default=YES MaxTime=INFINITE State=UP
$(scale_nodes_conf "$NODES")
EOF
slurm_conf_beside "$XC_STATE" "required spank_extra.so" 1
[ "${XC_KEEP:-0}" = 1 ] || trap scale_stop EXIT

t0=$(date +%s)
read -ra ctld_env <<<"${XC_CTLD_ENV:-}"
for w in "${ctld_env[@]}"; do
	[[ $w =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || { echo "XC_CTLD_ENV: '$w' is not NAME=VALUE"; exit 2; }
done
env "${ctld_env[@]}" slurmctld -c -i || exit 1
wait_for 120 eval 'scontrol ping 2>/dev/null | grep -q UP' || { echo "slurmctld did not answer"; exit 1; }
printf 'slurmctld up with %d nodes in %d s (%s)\n' "$NODES" $(($(date +%s) - t0)) "$(scontrol --version)"

t0=$(date +%s)
scale_set_extra "$NODES" || exit 1
if [ "$OWN" = 1 ]; then
	printf 'Extra set on %d nodes in %d s (Slurm filters: the plugin keeps no node table)\n' \
		"$NODES" $(($(date +%s) - t0))
else
	wait_refresh
	printf 'Extra set on %d nodes in %d s; the plugin loaded them: %s\n' "$NODES" $(($(date +%s) - t0)) \
		"$(grep -oP 'node table: \K.*' "$LOG" | tail -1)"
fi

six='gpu=true&mem>=512&(arch=x86_64|arch=aarch64)&load<0.5&ib_pod=2'
long=$(
	s='' n=0
	leaves=('gpu=true' 'mem>=512' 'arch=x86_64' 'load<0.5' 'ib_pod=2' 'rack>3' 'ssd=nvme' 'mem<64')
	while :; do
		next="${leaves[n % 8]}|${leaves[(n + 3) % 8]}|${leaves[(n + 5) % 8]}"
		add="${s:+&}($next)"
		[ $((${#s} + ${#add})) -gt 1016 ] && break
		s+=$add n=$((n + 3))
	done
	printf '%s' "$s"
)
# Each submission's time in slurmctld (the usec its RPC logs), by kind;
# "exclude" is a job without --extra given the ExcNodeList the plugin
# gives the 6-leaf request: what Slurm itself spends on those exclusions.
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
: >"$XC_STATE/kinds"
id=$(sbatch --parsable -H -o /dev/null --extra "$six" --wrap true)
six_exc=$(field "$id" ExcNodeList)
[ "$six_exc" = "(null)" ] && six_exc= # Slurm's own filter: none
scancel "$id"
for ((r = 0; r < ROUNDS; r++)); do
	[ -n "$six_exc" ] && id=$(sbatch --parsable -H -o /dev/null --exclude "$six_exc" --wrap true) &&
		echo "$id exclude" >>"$XC_STATE/kinds"
	id=$(sbatch --parsable -H -o /dev/null --wrap true) && echo "$id none" >>"$XC_STATE/kinds"
	id=$(sbatch --parsable -H -o /dev/null --extra "$six" --wrap true) && echo "$id six" >>"$XC_STATE/kinds"
	id=$(sbatch --parsable -H -o /dev/null --extra "$long" --wrap true) && echo "$id long" >>"$XC_STATE/kinds"
done
grep -oP '_slurm_rpc_submit_batch_job: JobId=\K[0-9]+ .*usec=[0-9]+' "$LOG" |
	awk '{sub(/.*usec=/, "", $NF); print $1, $NF}' >"$XC_STATE/usec"
usec_of() { awk -v k="$1" 'NR == FNR {u[$1] = $2; next} $2 == k && ($1 in u) {print u[$1]}' "$XC_STATE/usec" "$XC_STATE/kinds" | median; }
none=$(usec_of none) six_t=$(usec_of six) long_t=$(usec_of long) exc_t=$(usec_of exclude)
leaves() { echo $(($(tr -cd '&|' <<<"$1" | wc -c) + 1)); }
row() { awk -v l="$1" -v t="$2" -v b="$none" -v w="${3:-added}" 'BEGIN {printf "  %-38s %7.2f ms", l, t / 1000; if (b != t) printf "   %s: %+.2f ms", w, (t - b) / 1000; print ""}'; }
printf '%d nodes, %d rounds, %d jobs accepted; median time in slurmctld per submission (its usec=):\n' \
	"$NODES" "$ROUNDS" "$(squeue -h | wc -l)"
row "without --extra" "$none"
row "$(leaves "$six") leaves ($(printf %s "$six" | wc -c) bytes)" "$six_t"
row "$(leaves "$long") leaves ($(printf %s "$long" | wc -c) bytes)" "$long_t"
[ -z "$six_exc" ] || row "no --extra, --exclude that ExcNodeList" "$exc_t" "Slurm alone"
# The plugin's own part: job_submit() logs how long it took.
own=$(grep -oP 'job_submit/extra: uid [0-9]+: .*\(\K[0-9.]+(?= ms\)$)' "$LOG" | median)
printf '  of which job_submit/extra itself (its log lines): %s ms; the rest is Slurm reading the ExcNodeList\n' "$own"
six_id=$(awk '$2 == "six" {print $1; exit}' "$XC_STATE/kinds")
long_id=$(awk '$2 == "long" {print $1; exit}' "$XC_STATE/kinds")
printf '  ExcNodeList: %d bytes (6 leaves), %d bytes (long request)\n' \
	"$(field "$six_id" ExcNodeList | tr -d '\n' | wc -c)" "$(field "$long_id" ExcNodeList | tr -d '\n' | wc -c)"
printf '  the 6-leaf request: %s\n' "$(scontrol show job "$six_id" | grep -oP '[0-9]+ of [0-9]+ nodes satisfy' || true)"

# Keeping current: the Extra of 1 node, then of 10,000 (or every tenth
# node's worth, if fewer), changed with one scontrol update each; the
# plugin's thread finds the changed nodes among all (outside any lock) and
# updates them in place under its lock: its log line gives both times.
refresh_cost() {
	local count=$1 from line
	from=$(log_lines)
	scontrol update nodename="s[1-$count]" \
		extra="{\"gpu\":true,\"mem\":8192,\"arch\":\"x86_64\",\"load\":0.$RANDOM,\"health\":\"checked-$count-$RANDOM\",\"rack\":$((90000 + RANDOM))}" || return 1
	wait_for 60 plugin_has_current_data "$from" || { echo "  the plugin did not load the change within 60 s"; return 1; }
	line=$(tail -n +"$((from + 1))" "$LOG" | grep -oP 'node table: \K.*' | tail -1)
	printf '  %6d of %d nodes changed: %s\n' "$count" "$NODES" "$line"
}
if [ "$OWN" = 0 ]; then
	echo "node Extra changed while slurmctld runs (the plugin's log line):"
	refresh_cost 1
	refresh_cost $((NODES >= 100000 ? 10000 : NODES / 10))
fi
rss=$(awk '/VmRSS/ {print $2}' /proc/"$(scale_pid)"/status)
hwm=$(awk '/VmHWM/ {print $2}' /proc/"$(scale_pid)"/status)
printf 'slurmctld resident memory: %d MB (peak VmHWM %d MB)\n' $((rss / 1024)) $((hwm / 1024))

[ "$PENDING" -gt 0 ] || exit 0

# Pending jobs under churn.  Request k: gpu=true and a memory floor by k,
# an arch, a rack range; node s1 flips its gpu every second, so every
# request loses it and gains it back: every job's list changes each second
# (the worst case of one node's change).
echo "pending jobs under churn: $PENDING held jobs, $DISTINCT distinct requests"
scancel -u root 2>/dev/null
wait_for 60 queue_empty || echo "  the queue did not empty"
t0=$(date +%s)
for ((j = 0; j < PENDING; j++)); do
	k=$((j % DISTINCT))
	printf '%s\n' "gpu=true&mem>=$((64 << (k % 4)))&(arch=x86_64|arch=aarch64)&load<0.$((5 + k % 5))&rack<$((250 + k))"
done | xargs -P 4 -d '\n' -I{} sbatch -H -o /dev/null --extra {} --wrap true >/dev/null
printf '  submitted in %d s; %d jobs pending\n' $(($(date +%s) - t0)) "$(squeue -h -t PD | wc -l)"
# (the thread's rounds over them came as they were submitted: a round is
# logged when it sends updates or plans 100 ms or more)
from=$(log_lines)
t0=$(date +%s)
for ((s = 1; s <= CHURN; s++)); do
	gpu=$([ $((s % 2)) = 1 ] && echo false || echo true)
	scontrol update nodename=s1 extra="{\"gpu\":$gpu,\"mem\":512,\"arch\":\"x86_64\",\"load\":0.1,\"ib_pod\":0,\"rack\":0,\"ssd\":\"nvme\"}"
	sleep $((t0 + s - $(date +%s) > 0 ? t0 + s - $(date +%s) : 0))
done
sleep 5
tail -n +"$((from + 1))" "$LOG" >"$XC_STATE/churn.log"
rounds=$(grep -c 're-filtered' "$XC_STATE/churn.log")
echo "  $CHURN s of churn (node s1 flipping gpu each second): $rounds rounds logged"
grep -oP 're-filtered \K[0-9]+ of [0-9]+ pending jobs .*in [0-9.]+ ms(?=;)' "$XC_STATE/churn.log" |
	awk '{planned += $1; n++; k = split($0, a, " in "); t = a[k] + 0; sum += t; if (t > max) max = t}
	     END {if (n) printf "  rounds: %d, jobs planned %.0f a round, plan %.1f ms a round on average, %.1f ms at most\n", n, planned / n, sum / n, max}'
grep -oP 'KB kept' "$XC_STATE/churn.log" >/dev/null &&
	grep -oP '[0-9]+ KB kept' "$XC_STATE/churn.log" | tail -1 | sed 's/^/  the memo holds /'
grep -oP '_slurm_rpc_update_job: complete JobId=[0-9]+ uid=[0-9]+ usec=\K[0-9]+' "$XC_STATE/churn.log" | sort -n >"$XC_STATE/update-usec"
n=$(wc -l <"$XC_STATE/update-usec")
if [ "$n" -gt 0 ]; then
	awk -v churn="$CHURN" '{v[NR] = $1; sum += $1}
		END {n = NR; p = int(n * 0.99); if (p < 1) p = 1
		     printf "  the thread'"'"'s job updates: %d; slurmctld spent median %.1f ms, p99 %.1f ms, longest %.1f ms on one; %.1f s in all (%.1f%% of the churn)\n", n, v[int((n + 1) / 2)] / 1000, v[p] / 1000, v[n] / 1000, sum / 1e6, sum / 1e4 / churn}' "$XC_STATE/update-usec"
fi
grep -oP '[0-9]+(?= waits for UpdateBudget)' "$XC_STATE/churn.log" | awk '{w += $1} END {printf "  waits for UpdateBudget: %d\n", w}'
grep -oP 'job_submit/extra: \Kthe thread is .*' "$XC_STATE/churn.log" | sort -t' ' -k4 -n | tail -1 | sed 's/^/  the most behind: /'
rss=$(awk '/VmRSS/ {print $2}' /proc/"$(scale_pid)"/status)
hwm=$(awk '/VmHWM/ {print $2}' /proc/"$(scale_pid)"/status)
printf 'slurmctld resident memory with %d pending jobs: %d MB (peak VmHWM %d MB)\n' "$PENDING" $((rss / 1024)) $((hwm / 1024))
