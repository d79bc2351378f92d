#!/usr/bin/env bash
# scale.sh [NODES] - what slurm-extra adds to a submission on a real
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
# submit RPC log line): the difference is the plugins'.
# The filter: burst_buffer/extra where it is installed (XC_BURST_BUFFER),
# or Slurm's own (XC_SCALE_SCHED_PARAMS=extra_constraints, slurm.conf's
# SchedulerParameters); with neither the plugin refuses every request, and
# the script says so and measures nothing.  XC_CTLD_ENV: NAME=VALUE words
# slurmctld is started with; XC_EXTRA_CONF: KEY=VALUE words for extra.conf.
# Uses the installed plugin and Slurm (XC_SLURM_PREFIX as for the other
# cluster tests); needs root and tests/cluster/slurm-helper (make check).
set -uo pipefail

# tests/cluster/scale.sh --compare NODES JOBS: Slurm's own filter against
# burst_buffer/extra's (tests/cluster/scale-compare.sh)
[ "${1:-}" = --compare ] && shift && exec bash "$(dirname "${BASH_SOURCE[0]}")/scale-compare.sh" "$@"

NODES=${1:-10000}
# Slurm's own filter: the plugin only checks requests
OWN=0
[[ ${XC_SCALE_SCHED_PARAMS:-} == *extra_constraints* ]] && OWN=1
ROUNDS=${XC_SCALE_ROUNDS:-40}
XC_STATE=${XC_SCALE_STATE:-/var/lib/slurm-extra-scale}
. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
cluster_test scale.sh
# (where Slurm filters, alone)
[ "$OWN" = 0 ] || XC_BURST_BUFFER=
if [ "$OWN" = 0 ] && ! guard_loaded; then
	echo "skipped: nothing filters by --extra here (burst_buffer_extra.so not installed, and no XC_SCALE_SCHED_PARAMS=extra_constraints)"
	exit 0
fi

scale_fresh scale.sh
cat >>"$SLURM_CONF" <<EOF
SchedulerType=sched/builtin
JobSubmitPlugins=extra
${XC_BURST_BUFFER:+BurstBufferType=$XC_BURST_BUFFER}
${XC_SCALE_SCHED_PARAMS:+SchedulerParameters=$XC_SCALE_SCHED_PARAMS}
PartitionName=p Nodes=ALL Default=YES MaxTime=INFINITE State=UP
$(scale_nodes_conf "$NODES")
EOF
slurm_conf_beside "$XC_STATE" "required spank_extra.so"
[ "${XC_KEEP:-0}" = 1 ] || trap scale_stop EXIT

t0=$(date +%s)
read -ra ctld_env <<<"${XC_CTLD_ENV:-}"
for w in "${ctld_env[@]}"; do
	[[ $w =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || { echo "XC_CTLD_ENV: '$w' is not NAME=VALUE"; exit 2; }
done
env "${ctld_env[@]}" slurmctld -c -i || exit 1
wait_for 120 eval 'scontrol ping 2>/dev/null | grep -q UP' || { echo "slurmctld did not answer"; exit 1; }
printf 'slurmctld up with %d nodes in %d s (%s; the filter: %s)\n' "$NODES" $(($(date +%s) - t0)) \
	"$(scontrol --version)" "$([ "$OWN" = 1 ] && echo "Slurm's own" || echo burst_buffer/extra)"

t0=$(date +%s)
scale_set_extra "$NODES" || exit 1
printf 'Extra set on %d nodes in %d s\n' "$NODES" $(($(date +%s) - t0))

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
# Each submission's time in slurmctld (the usec its RPC logs), by kind.
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
: >"$XC_STATE/kinds"
for ((r = 0; r < ROUNDS; r++)); do
	id=$(sbatch --parsable -H -o /dev/null --wrap true) && echo "$id none" >>"$XC_STATE/kinds"
	id=$(sbatch --parsable -H -o /dev/null --extra "$six" --wrap true) && echo "$id six" >>"$XC_STATE/kinds"
	id=$(sbatch --parsable -H -o /dev/null --extra "$long" --wrap true) && echo "$id long" >>"$XC_STATE/kinds"
done
grep -oP '_slurm_rpc_submit_batch_job: JobId=\K[0-9]+ .*usec=[0-9]+' "$LOG" |
	awk '{sub(/.*usec=/, "", $NF); print $1, $NF}' >"$XC_STATE/usec"
usec_of() { awk -v k="$1" 'NR == FNR {u[$1] = $2; next} $2 == k && ($1 in u) {print u[$1]}' "$XC_STATE/usec" "$XC_STATE/kinds" | median; }
none=$(usec_of none) six_t=$(usec_of six) long_t=$(usec_of long)
leaves() { echo $(($(tr -cd '&|' <<<"$1" | wc -c) + 1)); }
row() { awk -v l="$1" -v t="$2" -v b="$none" 'BEGIN {printf "  %-38s %7.2f ms", l, t / 1000; if (b != t) printf "   added: %+.2f ms", (t - b) / 1000; print ""}'; }
printf '%d nodes, %d rounds, %d jobs accepted; median time in slurmctld per submission (its usec=):\n' \
	"$NODES" "$ROUNDS" "$(squeue -h | wc -l)"
row "without --extra" "$none"
row "$(leaves "$six") leaves ($(printf %s "$six" | wc -c) bytes)" "$six_t"
row "$(leaves "$long") leaves ($(printf %s "$long" | wc -c) bytes)" "$long_t"
# The plugin's own part: job_submit() logs how long it took.
own=$(grep -oP 'job_submit/extra: uid [0-9]+: .*\(\K[0-9.]+(?= ms\)$)' "$LOG" | median)
printf '  of which job_submit/extra itself (its log lines): %s ms\n' "$own"
rss=$(awk '/VmRSS/ {print $2}' /proc/"$(scale_pid)"/status)
hwm=$(awk '/VmHWM/ {print $2}' /proc/"$(scale_pid)"/status)
printf 'slurmctld resident memory: %d MB (peak VmHWM %d MB)\n' $((rss / 1024)) $((hwm / 1024))
