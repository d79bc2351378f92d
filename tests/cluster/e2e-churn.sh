#!/usr/bin/env bash
# e2e-churn.sh - no job starts on a node whose Extra had stopped satisfying
# its request before Slurm placed it, and no job is lost for it, on the
# real local cluster, as a user submits and an admin changes node data:
# 4 nodes with one job slot each; for XC_CHURN_SECONDS (100) one random
# node's Extra flips between {"ok":1} and {"ok":0} every 0.3-1.2 s (never
# all four at 0); XC_CHURN_JOBS (150) jobs `sbatch --extra ok=1` of an
# unprivileged user, each writing when its script started and where.
# Counted from the admin's log of the flips (the time before and after
# each `scontrol update`) and each job's StartTime (the second Slurm placed
# it): jobs whose script ran on a node that was at 0 from before the job
# was placed to the script's start (must be 0), and, as a user would count
# them, jobs whose script started while their node was at 0 (a flip after
# placement: printed), and the jobs requeued.
# XC_CHURN_SRUN=1: the jobs are interactive, `srun --extra ok=1` of the
# same user all waiting at once, which Slurm cannot requeue: a job placed
# on a node at 0 would be lost (srun failing): counted from srun's exit
# statuses, none may be.
# The filter is burst_buffer/extra's guard at placement (doc/guard.md),
# and no job may be requeued either.  With Slurm's own filter
# (XC_SCHED_PARAMS=...,extra_constraints), the reference, it is Slurm's
# alone (no burst_buffer/extra), and the same is asserted but the
# requeues.  Skipped where neither is there (nothing filters).  Closes with
# "churn: N passed, M failed".  Needs root, `make install` and `make check`.
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
cluster_test e2e-churn.sh
# Slurm's own filter is the reference: alone, no burst_buffer/extra
if slurm_filters; then export XC_BURST_BUFFER=; fi
filter_or_skip churn

USER1=${XC_CHURN_USER:-xcuser1}
OUT=$(mktemp -d /tmp/xc-churn.XXXXXX)
chmod 1777 "$OUT"
as_user() { (cd /tmp && runuser -u "$USER1" -- env SLURM_CONF="$SLURM_CONF" PATH="$PATH" "$@"); }
set_extra() { scontrol update nodename="$1" extra="$2"; }
all_ok() { for n in n1 n2 n3 n4; do set_extra "$n" '{"ok":1}'; done; }

echo "# the churn: $((${XC_CHURN_JOBS:-150})) jobs, one node's Extra flipping every 0.3-1.2 s for ${XC_CHURN_SECONDS:-100} s"
cluster_start "rm -rf '$OUT'" >/dev/null
all_ok
JOBS=${XC_CHURN_JOBS:-150}
SECONDS_=${XC_CHURN_SECONDS:-100}
SRUN=${XC_CHURN_SRUN:-0}
START='echo $SLURM_JOB_ID $SLURMD_NODENAME $(date +%s.%N) >>'"$OUT"'/starts; sleep 1'
ids=()
if [ "$SRUN" = 1 ]; then
	# each srun waits for its allocation as a user's would; what it said
	# goes to $OUT/srun.I, its status to $OUT/srun.I.rc (bash's own
	# record of a background job's status is lost when its pid is
	# reused by another child before `wait`)
	for i in $(seq "$JOBS"); do
		{
			as_user srun --extra 'ok=1' -J xcchurn -t 2 bash -c "$START" \
				>"$OUT/srun.$i" 2>&1
			echo $? >"$OUT/srun.$i.rc"
		} &
	done
	# (every job in slurmctld's table before the churn: finished ones
	# stay there MinJobAge, an hour on this cluster)
	wait_for 60 eval '[ "$(squeue -h -t all -u "$USER1" -n xcchurn | wc -l)" -ge "$JOBS" ]' ||
		not_ok "the $JOBS srun jobs reach slurmctld within 60 s"
else
	for i in $(seq "$JOBS"); do
		ids+=("$(as_user sbatch --parsable -o /dev/null --extra 'ok=1' \
			--wrap "$START")")
	done
	expect "$JOBS jobs accepted" "$(printf '%s\n' "${ids[@]}" | grep -cE '^[0-9]+$')" "$JOBS"
fi
# The flips: "before after node value" a line, times in s since the epoch.
: >"$OUT/flips"
declare -A val=([n1]=1 [n2]=1 [n3]=1 [n4]=1)
# flip NODE VALUE: sets the node's ok, logged with the times around it
flip() {
	local t0 t1
	t0=$(date +%s.%N)
	set_extra "$1" "{\"ok\":$2}"
	t1=$(date +%s.%N)
	val[$1]=$2
	echo "$t0 $t1 $1 $2" >>"$OUT/flips"
}
end=$(($(date +%s) + SECONDS_))
RANDOM=${XC_CHURN_SEED:-20}
while [ "$(date +%s)" -lt "$end" ]; do
	n=n$((RANDOM % 4 + 1))
	v=$((1 - val[$n]))
	zeros=0
	for m in n1 n2 n3 n4; do [ "${val[$m]}" = 0 ] && zeros=$((zeros + 1)); done
	[ "$v" = 0 ] && [ "$zeros" = 3 ] && continue
	flip "$n" "$v"
	ms=$((300 + RANDOM % 901)) # 0.3 to 1.2 s
	sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
done
for n in n1 n2 n3 n4; do [ "${val[$n]}" = 0 ] && flip "$n" 1; done
echo "  $(wc -l <"$OUT/flips") flips"
wait_for 300 queue_empty ||
	not_ok "every job ended within 300 s of the churn"
lost=0
if [ "$SRUN" = 1 ]; then
	# srun's statuses: a job that failed is lost (its last words say
	# why).  One deadline for all (the user's sruns in this test's
	# namespaces only: a Debian suite's cluster may run beside it), then
	# what is left is killed.
	wait_for 60 eval '! pgrep --ns $$ --nslist mnt,net -u "$USER1" -x srun >/dev/null' || {
		not_ok "every srun ended within 60 s of the queue"
		pkill --ns $$ --nslist mnt,net -u "$USER1" -x srun
	}
	wait_for 10 eval '[ "$(ls "$OUT"/srun.*.rc 2>/dev/null | wc -l)" -ge "$JOBS" ]' ||
		not_ok "every srun's status was written within 10 s of its end"
	for i in $(seq "$JOBS"); do
		[ "$(cat "$OUT/srun.$i.rc" 2>/dev/null)" = 0 ] ||
			{ lost=$((lost + 1)); tail -1 "$OUT/srun.$i" | sed 's/^/    /'; }
	done
	mapfile -t ids < <(awk '{ print $1 }' "$OUT/starts" | sort -un)
	echo "  srun jobs lost (srun failed): $lost of $JOBS"
	echo "churn_srun_lost $lost" >>"${XC_CHURN_FIGURES:-/dev/null}"
fi
# Each job: its state, StartTime (s), restarts.
for id in "${ids[@]}"; do
	s=$(scontrol show job "$id" 2>/dev/null)
	st=$(grep -oP 'JobState=\K\S+' <<<"$s")
	start=$(grep -oP 'StartTime=\K\S+' <<<"$s")
	echo "$id $st $(date -d "$start" +%s 2>/dev/null || echo 0) $(grep -oP 'Restarts=\K\S+' <<<"$s")"
done >"$OUT/jobs"
if [ "$SRUN" = 1 ]; then
	# (a lost job never ran its script: the others must have completed)
	expect "every srun job that ran its script completed" "$(awk '$2 != "COMPLETED"' "$OUT/jobs")" ""
	expect "the script of every job not lost ran once" "$(awk '{ print $1 }' "$OUT/starts" | sort | uniq -d; wc -l <"$OUT/starts")" "$((JOBS - lost))"
else
	expect "every job completed (none lost)" "$(awk '$2 != "COMPLETED"' "$OUT/jobs")" ""
	expect "every job's script ran once" "$(awk '{ print $1 }' "$OUT/starts" | sort | uniq -d; wc -l <"$OUT/starts")" "$JOBS"
fi
expect "every job's StartTime read" "$(awk '$3 == 0' "$OUT/jobs")" ""
requeued=$(awk '$4 > 0' "$OUT/jobs" | wc -l)
# The count: per start "id node t", the node's value by the flips.
# wrong: at 0 at the script's start; before: and had gone to 0 (the
# update returned) before the second the job was placed in.
read -r wrong before ambiguous < <(awk '
	FILENAME ~ /flips$/ { n++; t0[n] = $1; t1[n] = $2; node[n] = $3; v[n] = $4; next }
	FILENAME ~ /jobs$/ { placed[$1] = $3; next }
	{
		id = $1; nd = $2; t = $3; last = 0; amb = 0
		for (i = 1; i <= n; i++) if (node[i] == nd) {
			if (t1[i] <= t) last = i
			else if (t0[i] <= t) amb = 1
		}
		if (amb) { a++; next }
		if (last && v[last] == 0) { w++; if (t1[last] < placed[id]) b++ }
	}
	END { print w + 0, b + 0, a + 0 }' "$OUT/flips" "$OUT/jobs" "$OUT/starts")
echo "  jobs whose script started on a node at ok=0: $wrong of $JOBS (a user's count; $ambiguous during an update)"
echo "  of them, on a node at ok=0 since before the job was placed: $before"
echo "  jobs requeued: $requeued"
echo "churn_wrong $wrong" >>"${XC_CHURN_FIGURES:-/dev/null}"
echo "churn_before $before" >>"${XC_CHURN_FIGURES:-/dev/null}"
echo "churn_requeued $requeued" >>"${XC_CHURN_FIGURES:-/dev/null}"
if [ "$SRUN" = 1 ]; then
	expect "no srun job lost (nothing places one on a node at 0)" "$lost" 0
fi
if guard_loaded; then
	# the guard at placement reads Extra at each placement
	expect "no job placed on a node that had stopped satisfying it (the guard)" "$before" 0
	expect "no job requeued" "$requeued" 0
else
	# Slurm's own filter, the reference: it reads Extra at placement
	expect "no job placed on a node that had stopped satisfying it (Slurm's own filter)" "$before" 0
fi

summary churn
