#!/usr/bin/env bash
# e2e-churn.sh - no job starts on a node whose Extra had stopped satisfying
# its request before Slurm placed it, and no job is lost for it (the check
# at start, doc/thread.md "The check at start"), on the real local cluster,
# as a user submits and an admin changes node data:
#
#   1. the check alone, made certain: the thread re-filters only every 15 s
#      (RefreshInterval=15), so the nodes a waiting job is kept off (by its
#      ExcNodeList, or its request's feature on the nodes, Carrier=features)
#      are stale when a node stops matching and the job before it there
#      ends; Slurm places the job there, and the check stops it: a batch
#      job (a request new to the thread: by its ExcNodeList, unless a
#      round moved it already; the test says which) is requeued (it says
#      why in its AdminComment and later runs on a matching node), an
#      interactive one (srun; by its request's feature with the default
#      Carrier=features), which Slurm cannot requeue, is killed, and srun
#      says so;
#   2. churn: 4 nodes with one job slot each; for
#      XC_CHURN_SECONDS (100) one random node's Extra flips between
#      {"ok":1} and {"ok":0} every 0.3-1.2 s (never all four at 0); XC_CHURN_JOBS
#      (150) jobs `sbatch --extra ok=1` of an unprivileged user, each writing
#      when its script started and where.  Counted from the admin's log of
#      the flips (the time before and after each `scontrol update`) and each
#      job's StartTime (the second Slurm placed it): jobs whose script ran on
#      a node that was at 0 from before the job was placed to the script's
#      start (must be 0), and, as a user would count them, jobs whose script started
#      while their node was at 0 (a flip after placement: printed).
#      XC_CHURN_SRUN=1: the jobs are interactive, `srun --extra ok=1` of the
#      same user all waiting at once, which Slurm cannot requeue: a job
#      placed on a node at 0 is lost (killed by the check, srun failing);
#      counted from srun's exit statuses and asserted 0 where nothing may
#      place a job there and no check at start stops one whose node
#      changed after its placement (XC_PROLOG_CTLD=0 with the guard, or
#      with Slurm's own filter).
#
# The cluster runs with AuthInfo=cred_expire=20 (XC_CRED_EXPIRE), so that
# Slurm holds requeued jobs back 21 s rather than 121 s.
# XC_BURST_BUFFER=burst_buffer/extra with XC_PROLOG_CTLD=0 runs the churn
# with the guard at placement and no check: no job may then be placed on a
# node at 0 (asserted); with XC_EXTRA_CONF=Carrier=guard too, the guard
# alone, no thread of the plugin's (doc/guard.md "The guard alone").
# With Slurm's own filter (XC_SCHED_PARAMS=...,extra_constraints), the
# reference, no job may be placed on a node at 0 either (asserted).
# XC_PROLOG_CTLD=0 runs it without the check (the thread's window alone:
# the counts of doc/benchmarks.md, "Under constant churn"; the first part is then skipped).  Closes with
# "churn: N passed, M failed".  Needs root, `make install` and `make check`.
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
cluster_test e2e-churn.sh

USER1=${XC_CHURN_USER:-xcuser1}
OUT=$(mktemp -d /tmp/xc-churn.XXXXXX)
chmod 1777 "$OUT"
CHECK=${XC_PROLOG_CTLD:-1}
# Slurm holds a requeued job back cred_expire + 1 s (121 s by default:
# batch_requeue_fini(), src/slurmctld/job_mgr.c); 20 here, so that the
# requeued jobs do not make the test wait minutes (XC_CRED_EXPIRE= for
# Slurm's default).
export XC_CRED_EXPIRE=${XC_CRED_EXPIRE-20}
HOLD_BACK=$((${XC_CRED_EXPIRE:-120} + 1))

as_user() { (cd /tmp && runuser -u "$USER1" -- env SLURM_CONF="$SLURM_CONF" PATH="$PATH" "$@"); }
set_extra() { scontrol update nodename="$1" extra="$2"; }
admin_comment() { scontrol show job "$1" | grep -oP '^\s*AdminComment=\K.*?(?= ?$)'; }
state() { field "$1" JobState; }
is_state() { local s; s=$(state "$1"); shift; for w in "$@"; do [ "$s" = "$w" ] && return 0; done; return 1; }
all_ok() { for n in n1 n2 n3 n4; do set_extra "$n" '{"ok":1}'; done; }
restarts() { field "$1" Restarts; }

# Slurm's own filter (XC_SCHED_PARAMS=...,extra_constraints): the churn
# only, as the anchor (the plugin reads no node data, filters nothing).
# the plugin's carrier: features unless extra.conf says exclusions
FEATURES=1
! grep -qi 'Carrier=exclusions' <<<"${XC_EXTRA_CONF:-}" || FEATURES=0
if [ "$CHECK" = 1 ] && [ "${XC_CHURN_ONLY:-0}" != 1 ] && ! slurm_filters; then
	echo "# the check alone: the nodes the thread keeps jobs off kept stale (RefreshInterval=15)"
	XC_REFRESH=15 cluster_start "rm -rf '$OUT'" >/dev/null
	expect_has "slurmctld runs the check (PrologSlurmctld)" \
		"$(scontrol show config | grep -i '^PrologSlurmctld')" "prolog-slurmctld"
	all_ok
	set_extra n1 '{"ok":0}'
	ok_round_now # the plugin filters submissions by the table of its last round
	b2=$(blocker n2) b3=$(blocker n3) b4=$(blocker n4)
	wait_for 20 eval 'is_state "$b2" RUNNING && is_state "$b3" RUNNING && is_state "$b4" RUNNING' ||
		not_ok "waited 20 s for the three blockers to run"
	id=$(as_user sbatch --parsable -o "$OUT/requeued.out" --extra 'ok=1' \
		--wrap 'echo $SLURMD_NODENAME')
	expect "a batch job waiting for ok=1 is accepted" "$([[ $id =~ ^[0-9]+$ ]] && echo yes)" yes
	expect "it is kept off n1 (ok=0)" "$(kept_off "$id")" n1
	# The thread's next round 15 s away, n2 stops matching and is freed:
	# Slurm places the job there (the nodes it is kept off are stale), and the
	# check stops it.
	ok_round_now
	# (a request new to the thread: the round sets its feature on the
	# nodes, the next one moves the job to it; two rounds since its
	# submission, when the blockers were slow to start, have moved it)
	by="its ExcNodeList"
	[ "$(field "$id" Features)" = "(null)" ] || by="its request's feature"
	echo "  (the batch job is kept off n1 by $by, as read then)"
	set_extra n2 '{"ok":0}'
	scancel "$b2"
	wait_for 30 eval '[ "$(restarts "$id")" -ge 1 ] 2>/dev/null' ||
		not_ok "within 30 s the job was placed on n2 and requeued by the check"
	wait_for 10 eval 'is_state "$id" PENDING' || not_ok "the job waits again (PENDING)"
	expect_has "its AdminComment says why it waits again" "$(admin_comment "$id")" \
		"slurm-extra: requeued "
	expect_has "naming the node" "$(admin_comment "$id")" \
		"n2 no longer satisfied the request when the job was to start"
	expect "its script never ran on n2" "$(cat "$OUT/requeued.out" 2>/dev/null)" ""
	expect_has "slurmctld logged the failed check" "$(grep "JobId=$id" "$LOG")" "prolog exit status 1"
	echo "  (Slurm holds a requeued job back for AuthInfo cred_expire + 1 s: $HOLD_BACK s here)"
	set_extra n1 '{"ok":1}'
	wait_for $((HOLD_BACK + 100)) eval 'is_state "$id" COMPLETED' ||
		not_ok "the requeued job ran within $((HOLD_BACK + 100)) s"
	expect "it ran on n1, which came to satisfy ok=1 (n2 still does not)" "$(cat "$OUT/requeued.out")" n1
	echo "  requeued $(restarts "$id") time(s) (the thread re-filters it only every 15 s here)"
	expect_has "the note is kept after the thread re-filtered it" "$(admin_comment "$id")" \
		"slurm-extra: requeued "

	echo "# the check at start, an interactive job (srun): Slurm cannot requeue it"
	set_extra n1 '{"ok":0}'
	set_extra n2 '{"ok":1}'
	b2=$(blocker n2)
	wait_for 20 eval 'is_state "$b2" RUNNING' || not_ok "waited 20 s for the blocker on n2"
	# A held job of the same request keeps its feature wanted (a name is
	# forgotten at a round that finds no job wanting it: the batch job's
	# may or may not be yet).  Once the held job goes by the feature, the
	# name is known and off n1 (a move waits for a round whose node
	# updates all succeeded), so the srun job goes by it too.
	keep=$(sbatch --parsable -H -o /dev/null --extra 'ok=1' --wrap true)
	expect "a held job of the same request is accepted" "$([[ $keep =~ ^[0-9]+$ ]] && echo yes)" yes
	ok_round_now
	if [ "$FEATURES" = 1 ]; then
		wait_for 40 eval '[[ "$(field "$keep" Features)" == *xc_* ]] && [ "$(kept_off "$keep")" = n1 ]' ||
			not_ok "within 40 s the held job goes by its request's feature, off n1"
	fi
	as_user srun --extra 'ok=1' -J xcsrun -t 1 echo RAN >"$OUT/srun.out" 2>&1 &
	srun_pid=$!
	wait_for 20 eval '[ -n "$(squeue -h -u "$USER1" -n xcsrun -o %i)" ]' ||
		not_ok "the srun job waits"
	sid=$(squeue -h -u "$USER1" -n xcsrun -o %i)
	wait_for 10 eval '[ -n "$sid" ] && [ "$(kept_off "$sid")" = n1 ]' ||
		not_ok "the srun job is kept off n1" "job ${sid:-(none)}: $(scontrol show job "$sid" 2>&1)
nodes: $(sinfo -h -N -o '%N %T %b' 2>&1 | paste -sd ' ')"
	if [ "$FEATURES" = 1 ]; then
		expect "by its request's feature, not its ExcNodeList" \
			"$(field "${sid:-0}" Features | grep -c 'xc_'):$(field "${sid:-0}" ExcNodeList)" "1:(null)"
	fi
	ok_round_now
	set_extra n2 '{"ok":0}'
	scancel "$b2"
	# (the user's srun in this test's namespaces only: a Debian suite's
	# cluster may run beside, its users with the same uids)
	wait_for 30 eval '! kill -0 "$srun_pid" 2>/dev/null' ||
		{ not_ok "srun ended within 30 s"; pkill --ns $$ --nslist mnt,net -u "$USER1" -x srun; }
	wait "$srun_pid"
	expect "srun failed" "$?" 1
	expect_has "srun says the job was killed" "$(cat "$OUT/srun.out")" \
		"PrologSlurmctld failed, job killed"
	expect "its command never ran" "$(grep -c '^RAN$' "$OUT/srun.out")" 0
	expect_has "its AdminComment says why" "$(admin_comment "$sid")" \
		"n2 no longer satisfied the request when the job was to start"
	expect_has "that it was killed, not requeued" "$(admin_comment "$sid")" \
		"slurm-extra: killed "
	scancel "$b3" "$b4" ${keep:+"$keep"} 2>/dev/null
	bash "$CLUSTER" stop >/dev/null 2>&1
fi

echo "# the churn: $((${XC_CHURN_JOBS:-150})) jobs, one node's Extra flipping every 0.3-1.2 s for ${XC_CHURN_SECONDS:-100} s"
# the check reads every node in one RPC here (a job of more than 32 nodes'
# way), where part 1 read the job's node alone
XC_PROLOG_ENV=SLURM_EXTRA_PROLOG_SINGLE_MAX=0 cluster_start "rm -rf '$OUT'" >/dev/null
all_ok
if [ "$CHECK" = 1 ]; then
	expect_has "slurmctld runs the check (PrologSlurmctld)" \
		"$(scontrol show config | grep -i '^PrologSlurmctld')" "prolog-slurmctld"
fi
# (with Slurm's own filter, or the guard alone, the plugin's thread reads
# no node data)
slurm_filters || guard_alone || wait_refresh
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
# Requeued jobs wait cred_expire + 1 s before Slurm starts them again.
wait_for $((HOLD_BACK + 300)) queue_empty ||
	not_ok "every job ended within $((HOLD_BACK + 300)) s of the churn"
lost=0
if [ "$SRUN" = 1 ]; then
	# srun's statuses: a job that failed is lost (the check killed it,
	# or Slurm did: its last words say which).  One deadline for all
	# (the user's sruns in this test's namespaces only: a Debian suite's
	# cluster may run beside it), then what is left is killed.
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
echo "  jobs requeued by the check: $requeued"
echo "churn_wrong $wrong" >>"${XC_CHURN_FIGURES:-/dev/null}"
echo "churn_before $before" >>"${XC_CHURN_FIGURES:-/dev/null}"
echo "churn_requeued $requeued" >>"${XC_CHURN_FIGURES:-/dev/null}"
# (with the check, an srun job whose node's Extra changed after its
# placement is killed: counted, not asserted)
if [ "$SRUN" = 1 ] && [ "$CHECK" = 0 ] && { slurm_filters || [ -n "${XC_BURST_BUFFER:-}" ]; }; then
	expect "no srun job lost (nothing places one on a node at 0)" "$lost" 0
fi
if [ "$CHECK" = 1 ]; then
	expect "no job started on a node that had stopped satisfying it before placement" "$before" 0
	expect "the check could tell for every job (nothing unchecked in its log)" \
		"$(grep -cE 'not checked|nothing checked|without the check' "$XC_STATE/log/prolog-slurmctld.log")" 0
elif [ -n "${XC_BURST_BUFFER:-}" ]; then
	# the guard at placement alone, no check at start behind it
	expect "no job placed on a node that had stopped satisfying it (the guard, no check)" "$before" 0
	expect "no job requeued" "$requeued" 0
elif slurm_filters; then
	# Slurm's own filter, the reference: it reads Extra at placement
	expect "no job placed on a node that had stopped satisfying it (Slurm's own filter)" "$before" 0
else
	echo "  (without the check: not asserted)"
fi

summary churn
