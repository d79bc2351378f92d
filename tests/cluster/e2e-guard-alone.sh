#!/bin/bash
# e2e-guard-alone.sh - burst_buffer/extra (doc/guard.md), extra.conf
# naming the one carrier there is (Carrier=guard, the default): it alone
# keeps jobs off the nodes whose Extra does not satisfy their request,
# inside slurmctld (its guard at placement, its look at backfill's plans),
# and job_submit/extra only checks and records requests, and runs no
# thread: no ExcNodeList, feature or hold of the plugin's, no update of a
# job or node.  On the real local cluster, as unprivileged users submit
# and an admin changes node data; each answer a user gets beside the
# filter is compared with the same action on a job without a request
# (Slurm alone), in the same run:
#   - batch jobs, srun, an array and a --exclude run only on matching
#     nodes, and show the ExcNodeList Slurm alone shows (the user's own);
#   - a job more nodes than match ask for waits, never held (Slurm's
#     own filter's rule, doc/language.md §7), and runs once enough match;
#   - a node that stops matching while a job waits is not given to it,
#     though free;
#   - the owner's update of the job's excluded nodes is theirs, another
#     user's is refused as for a job without a request; the owner's change
#     of preferences is written at once and followed at the placement,
#     another user's refused as their update of the job is; preferences
#     with no wait go by the preferred node while it is free (the request
#     alone while it is busy); an admin's
#     AdminComment is theirs, the state kept after it, and the job still
#     kept off;
#   - nothing updated the jobs: every job's AdminComment is as written at
#     its submission, and slurmctld's log has no round of a thread.
# Needs root, `make install` of a build configured --with-slurm-source
# and `make check`.  Closes with "guard-alone: N passed, M failed".
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
cluster_test e2e-guard-alone.sh

OUT=$(mktemp -d /tmp/xc-guard-alone.XXXXXX)
chmod 1777 "$OUT"
export XC_BURST_BUFFER=burst_buffer/extra
export XC_EXTRA_CONF="Carrier=guard${XC_EXTRA_CONF:+ $XC_EXTRA_CONF}"
export XC_SCHED_PARAMS=batch_sched_delay=0,bf_interval=1

if ! guard_so >/dev/null; then
	if [ "${XC_GUARD_REQUIRED:-0}" = 1 ]; then
		not_ok "burst_buffer_extra.so is installed (XC_GUARD_REQUIRED=1: setup was to build it)"
	else
		echo "skipped: Carrier=guard: burst_buffer_extra.so not installed (configure --with-slurm-source=DIR)"
	fi
	summary guard-alone
	exit
fi

cluster_start "rm -rf '$OUT'" >/dev/null
from=0
set_extra() { scontrol update nodename="$1" extra="$2"; }
state() { field "$1" JobState; }
# (an array's first record: every task's is the same)
admin_comment() { scontrol show job "$1" | grep -oP '^\s*AdminComment=\K.*?(?= ?$)' | head -n 1; }
ran_on() { tail -n 1 "$OUT/$1" 2>/dev/null; }
# sub USER NAME ARGS...: USER's batch job, its node in $OUT/NAME
sub() {
	local u=$1 name=$2
	shift 2
	as "$u" sbatch --parsable -o "$OUT/$name" "$@" --wrap 'echo $SLURMD_NODENAME' 2>&1
}
done_ok() { expect "$1: completed" "$(wait_job "$2")" COMPLETED; }
GUARD_STATUS="burst_buffer/extra keeps the job off at placement"
declare -A COMMENT=()

echo "# the mode, as slurmctld and slurm-extra doctor say"
expect "slurmctld's log: no thread of the plugin's" \
	"$(grep -c 'job_submit/extra: Carrier=guard: burst_buffer/extra filters jobs by --extra inside slurmctld' "$LOG")" 1
doc=$(as xcuser1 slurm-extra doctor 2>&1)
expect_has "doctor: the filter" "$doc" "filter: the plugin's (Carrier=guard: burst_buffer/extra keeps jobs off inside slurmctld)"
expect "doctor: no thread to speak of" "$(grep -c "thread" <<<"$doc")" 0
expect "slurmctld's tasks: none is the plugin's thread" "$(plugin_threads)" 0

# the matching nodes last: Slurm alone picks the lowest first
set_extra n1 '{"ok":0}'
set_extra n2 '{}'
for n in n3 n4; do set_extra "$n" '{"ok":1}'; done

echo "# batch jobs: only the matching nodes; the ExcNodeList Slurm alone shows"
ref=$(sub xcuser1 ref)
ids=()
for i in 1 2 3 4; do ids+=("$(sub xcuser1 "b$i" --extra 'ok=1')"); done
for i in 1 2 3 4; do
	id=${ids[$((i - 1))]}
	[[ $id =~ ^[0-9]+$ ]] || { not_ok "batch job $i accepted" "$id"; continue; }
	COMMENT[$id]=$(admin_comment "$id")
	done_ok "batch job $i" "$id"
	expect_in "batch job $i ran on a matching node" "$(ran_on "b$i")" n3 n4
	expect "batch job $i: ExcNodeList as Slurm alone shows it" \
		"$(field "$id" ExcNodeList)" "$(field "$ref" ExcNodeList)"
done
expect "Slurm alone's job ran on n1 (so the nodes tell a filter from none)" "$(wait_job "$ref") $(ran_on ref)" "COMPLETED n1"
expect_has "the state of a job says who keeps it off" "${COMMENT[${ids[0]}]}" "$GUARD_STATUS"

echo "# the user's own --exclude: theirs, shown as Slurm alone shows it"
ref=$(sub xcuser1 ref-x -x n3 -H)
id=$(sub xcuser1 x --extra 'ok=1' -x n3 -H)
COMMENT[$id]=$(admin_comment "$id")
expect "--exclude: ExcNodeList as Slurm alone's" "$(field "$id" ExcNodeList)" "$(field "$ref" ExcNodeList)"
expect "--exclude: held by the user, as Slurm alone's" "$(field "$id" Reason)" "$(field "$ref" Reason)"
scontrol release "$id" "$ref" 2>/dev/null || as xcuser1 scontrol release "$id" "$ref"
done_ok "--exclude" "$id"
expect "--exclude: ran on the other matching node" "$(ran_on x)" n4

echo "# srun and an array"
out=$(as xcuser1 timeout 60 srun -N1 --extra 'ok=1' printenv SLURMD_NODENAME 2>&1)
expect_in "srun ran on a matching node" "$(tail -n 1 <<<"$out")" n3 n4
id=$(sub xcuser1 'arr-%a' --extra 'ok=1' --array=1-4)
if [[ $id =~ ^[0-9]+$ ]]; then
	COMMENT[$id]=$(admin_comment "${id}_1")
	for t in 1 2 3 4; do
		expect "array task $t: completed" "$(wait_job "${id}_$t")" COMPLETED
		expect_in "array task $t ran on a matching node" "$(ran_on "arr-$t")" n3 n4
	done
else
	not_ok "the array is accepted" "$id"
fi

echo "# more nodes than match: waits, never held; runs once enough match"
id=$(sub xcuser1 n3 --extra 'ok=1' -N 3)
COMMENT[$id]=$(admin_comment "$id")
wait_for 10 eval '[ -n "$(field "$id" Reason)" ] && [ "$(field "$id" Reason)" != None ]' || true
sleep 3 # (several passes of the scheduler: it must still wait, unheld)
expect "-N 3 with two matching: still waits" "$(state "$id")" PENDING
expect_in "-N 3 with two matching: not held (priority $(field "$id" Priority))" \
	"$([ "$(field "$id" Priority)" != 0 ] && echo unheld)" unheld
expect_in "-N 3: not held as never runnable ($(field "$id" Reason))" "$(field "$id" Reason)" \
	BurstBufferStageIn Resources Priority
set_extra n2 '{"ok":1}'
done_ok "-N 3 once n2 matches" "$id"
expect "-N 3 ran on the three matching nodes" "$(field "$id" NodeList)" "n[2-4]"

echo "# a node that stops matching, free, is not given to a waiting job"
set_extra n2 '{}'
b1=$(blocker n1) b2=$(blocker n2) b3=$(blocker n3) b4=$(blocker n4)
wait_for 20 eval '[ "$(state "$b1")$(state "$b2")$(state "$b3")$(state "$b4")" = RUNNINGRUNNINGRUNNINGRUNNING ]' ||
	not_ok "the four blockers run within 20 s"
id=$(sub xcuser1 stop --extra 'ok=1')
COMMENT[$id]=$(admin_comment "$id")
set_extra n3 '{"ok":0}'
scancel "$b3"
wait_for 8 eval '[ "$(state "$id")" != PENDING ]'
expect "n3 stopped matching and was freed: the job still waits" "$(state "$id")" PENDING
scancel "$b4"
done_ok "the job once n4 is freed" "$id"
expect "it ran on n4, the one matching" "$(ran_on stop)" n4
scancel "$b1" "$b2"
set_extra n3 '{"ok":1}'

echo "# updates: the owner's, another user's, changes of preferences, an admin's AdminComment"
ref=$(sub xcuser1 ref-u -H)
id=$(sub xcuser1 u --extra 'ok=1' -H)
COMMENT[$id]=$(admin_comment "$id")
as xcuser1 scontrol update jobid="$ref" ExcNodeList=n4
rc_ref=$?
as xcuser1 scontrol update jobid="$id" ExcNodeList=n4
expect "the owner's ExcNodeList update passes, as Slurm alone's" "$?" "$rc_ref"
expect "the owner's ExcNodeList stands as set, as Slurm alone's" \
	"$(field "$id" ExcNodeList)" "$(field "$ref" ExcNodeList)"
alone=$(as xcuser2 scontrol update jobid="$ref" ExcNodeList=n1 2>&1)
rc_ref=$?
theirs=$(as xcuser2 scontrol update jobid="$id" ExcNodeList=n1 2>&1)
expect "another user's update: Slurm's answer alone" "$? ${theirs//$id/J}" "$rc_ref ${alone//$ref/J}"
expect "another user's update changed nothing" "$(field "$id" ExcNodeList)" n4
scancel "$id" "$ref"
# the owner's change of preferences: written into the job's state at once,
# and its placement follows it (n4, the preferred node, after n3, which
# Slurm takes first); another user's refused as their own update is
set_extra n4 '{"ok":1,"fast":1}'
id=$(sub xcuser1 p --extra 'ok=1' -H)
before=$(admin_comment "$id")
theirs=$(as xcuser2 slurm-extra prefer --job "$id" --extra-prefer 'ok=0' --extra-prefer-wait 5:00 2>&1)
rc_theirs=$?
# (22.05 answers them after job_modify(): nothing may be written before)
expect "another user's change of preferences changed nothing" "$(admin_comment "$id")" "$before"
alone=$(as xcuser2 scontrol update jobid="$id" comment=theirs 2>&1)
rc_alone=$?
expect "another user's change of preferences: refused as their own update ($(tail -n 1 <<<"$theirs"))" \
	"$([ "$rc_theirs" -ne 0 ] && echo failed) $(tail -n 1 <<<"$theirs" | sed 's/^slurm-extra: //; s/ for job [0-9]*$//')" \
	"$([ "$rc_alone" -ne 0 ] && echo failed) $(tail -n 1 <<<"$alone" | sed 's/^slurm_update error: //; s/ for job [0-9]*$//')"
out=$(as xcuser1 slurm-extra prefer --job "$id" --extra-prefer 'fast=1' --extra-prefer-wait 10:00 2>&1)
rc=$?
expect "the owner's change of preferences passes ($(tail -n 1 <<<"$out"))" "$rc" 0
expect_has "it is in the job's state at once" "$(admin_comment "$id")" "prefer=fast=1"
scontrol release "$id"
done_ok "the job with its new preference" "$id"
expect "it ran on the preferred node" "$(ran_on p)" n4
# preferences with no wait (the default): the preferred node while one is
# free, as slurmctld counts its CPUs; else the request alone, at once
b=$(blocker n4)
wait_for 30 eval '[ "$(state "$b")" = RUNNING ]' || not_ok "the admin's job runs on n4"
id=$(sub xcuser1 nw-busy --extra 'ok=1' --extra-prefer 'fast=1')
done_ok "no wait, the preferred node busy" "$id"
expect "it ran on a node of the request alone (n3, the first), as Slurm alone's" "$(ran_on nw-busy)" n3
scancel "$b"
wait_for 30 eval 'sinfo -h -n n4 -o %T | grep -qx idle' || not_ok "n4 idle again"
ref=$(sub xcuser1 nw-ref --extra 'ok=1')
done_ok "the same request without preferences" "$ref"
expect "without preferences it runs on n3, the first match" "$(ran_on nw-ref)" n3
id=$(sub xcuser1 nw-free --extra 'ok=1' --extra-prefer 'fast=1')
done_ok "no wait, the preferred node free" "$id"
expect "it ran on the preferred node, free" "$(ran_on nw-free)" n4
set_extra n4 '{"ok":1}'
# an admin's AdminComment: theirs, with the state kept after it, and the
# job still kept off (set_extra's nodes: n3 and n4 match, n1 first)
ref=$(sub xcuser1 ref-a -H)
id=$(sub xcuser1 a --extra 'ok=1' -H)
scontrol update jobid="$ref" AdminComment="reviewed by the admin"
scontrol update jobid="$id" AdminComment="reviewed by the admin"
expect "an admin's AdminComment: set, as Slurm alone's" "$(admin_comment "$ref")" "reviewed by the admin"
expect_has "an admin's AdminComment: theirs first" "$(admin_comment "$id")" "reviewed by the admin slurm-extra: $GUARD_STATUS"
expect_has "an admin's AdminComment: the state kept after it" "$(admin_comment "$id")" "request=ok=1"
scontrol release "$id" "$ref"
done_ok "the job after the admin's AdminComment" "$id"
expect_in "it ran on a matching node" "$(ran_on a)" n3 n4

echo "# nothing updated the jobs"
for id in "${!COMMENT[@]}"; do
	now=$(admin_comment "$id" 2>/dev/null || true)
	[ -z "$now" ] && continue # purged
	expect "job $id: its AdminComment as submitted" "$now" "${COMMENT[$id]}"
done
expect "slurmctld's log: no round of a thread" "$(grep -cE 'job_submit/extra: (re-filtered|first plan)' "$LOG")" 0

summary guard-alone
