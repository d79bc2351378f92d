#!/bin/bash
# e2e-guard-alone.sh - burst_buffer/extra (doc/guard.md), extra.conf
# naming the one carrier there is (Carrier=guard, the default): it alone
# keeps jobs off the nodes whose Extra does not satisfy their request,
# inside slurmctld (its guard at placement, its look at backfill's plans),
# and job_submit/extra only checks and records requests: no ExcNodeList,
# feature or hold of the plugin's, no update of a job or node.  On the
# real local cluster, as unprivileged users submit and an admin changes
# node data; each answer a user gets beside the
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
#     its submission;
#   - an upgrade from a release whose thread filtered, with jobs waiting
#     with what it set on them (the feature of its request or of a
#     preference's tier, its ExcNodeList, its hold; made by hand as root,
#     as it wrote them): the look gives each back once and names them in
#     slurmctld's log, a user's own hold stays; the jobs then run on
#     matching nodes that never had the thread's feature; from 23.02 a
#     job with an Extra and no state at all is kept off by its Extra.
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
expect "slurmctld's log: job_submit/extra says burst_buffer/extra filters (Carrier=guard)" \
	"$(grep -c 'job_submit/extra: Carrier=guard: burst_buffer/extra filters jobs by --extra inside slurmctld' "$LOG")" 1
doc=$(as xcuser1 slurm-extra doctor 2>&1)
expect_has "doctor: the filter" "$doc" "filter: the plugin's (Carrier=guard: burst_buffer/extra keeps jobs off inside slurmctld)"
expect "doctor: no thread to speak of" "$(grep -c "thread" <<<"$doc")" 0

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

echo "# an upgrade: jobs waiting with what an earlier release's thread set"
# What that thread wrote, faked as root on the cluster without the
# plugins (so that no job_modify() keeps a state after the admin's
# text): the state in the AdminComment (its status neither the guard's
# nor Slurm's, wrote= the hash of the ExcNodeList it wrote), the feature
# of the request, or of a preference's tier, on the nodes that satisfied
# it and ANDed into the job's Features, its ExcNodeList, its hold (held=1
# on a job held since its submission, as the thread held it); a user's
# own hold (held=0) is theirs.  Then both plugins are configured and
# slurmctld restarts on its saved state.
XC_JOB_SUBMIT= XC_BURST_BUFFER= cluster_start "rm -rf '$OUT'" >/dev/null
for n in n1 n2; do set_extra "$n" '{"ok":0}'; done
set_extra n3 '{"ok":1}'
set_extra n4 '{"ok":1,"fast":1}'
# (a 22.05 client has no --extra: the request is the state's alone there)
xreq=()
slurm_at_least 23 2 && xreq=(--extra ok=1)
# (the feature of a request: the first 48 bits of its canonical text's
# hash, sx_feature_name(); a tier's, of the request ANDed with it)
REQ_FEATURE=xc_$(fnv "$(slurm-extra check ok=1)" | cut -c 1-12)
TIER_FEATURE=xc_$(fnv "$(slurm-extra check '(ok=1)&(fast=1)')" | cut -c 1-12)
scontrol update nodename=n3 availablefeatures="$REQ_FEATURE" activefeatures="$REQ_FEATURE"
scontrol update nodename=n4 availablefeatures="$REQ_FEATURE,$TIER_FEATURE" activefeatures="$REQ_FEATURE,$TIER_FEATURE"
# thread_state STATUS HELD WROTE [PREFERENCES]
thread_state() { echo "slurm-extra: $1; held=$2; wrote=$3; exclude=; ${4:+$4; }request=ok=1"; }
pend() { as xcuser1 sbatch --parsable -o /dev/null "$@" "${xreq[@]}" --wrap true 2>&1; }
carried=$(pend --begin=now+3600)
scontrol update jobid="$carried" features="$REQ_FEATURE" \
	admincomment="$(thread_state "carried by $REQ_FEATURE" 0 "$(fnv '')")"
tier=$(pend --begin=now+3600)
scontrol update jobid="$tier" features="$TIER_FEATURE" \
	admincomment="$(thread_state "preferring tier 1 of 1 by $TIER_FEATURE" 0 "$(fnv '')" 'wait=600; prefer=fast=1')"
required=$(pend --begin=now+3600 -w n3)
scontrol update jobid="$required" excnodelist='n[1-2]' \
	admincomment="$(thread_state "2 of 4 nodes satisfy the request" 0 "$(fnv 'n[1-2]')")"
held=$(pend -H -w n1)
scontrol update jobid="$held" excnodelist=n2 \
	admincomment="$(thread_state "0 of 1 required nodes satisfy the request" 1 "$(fnv n2)")"
own_hold=$(pend -H -w n1)
scontrol update jobid="$own_hold" excnodelist=n2 \
	admincomment="$(thread_state "0 of 1 required nodes satisfy the request" 0 "$(fnv n2)")"
back=("$carried" "$tier" "$required" "$held" "$own_hold")
# from 24.11 a job naming more nodes (-w) than it asks for (-N) may run
# on any of them, and Slurm keeps it off the others by the bitmap of its
# excluded nodes, which it rebuilds so at every update of the job
# (_update_job()): the give-back, which updates the job in place, must
# rebuild it so too; beside it the same job without a request, Slurm
# alone
subset= subset_ref=
if slurm_at_least 24 11; then
	subset=$(pend --begin=now+3600 -w n2,n3 -N 1)
	scontrol update jobid="$subset" excnodelist=n1 \
		admincomment="$(thread_state "2 of 4 nodes satisfy the request" 0 "$(fnv n1)")"
	subset_ref=$(as xcuser1 sbatch --parsable -o /dev/null --begin=now+3600 -w n2,n3 -N 1 --wrap true 2>&1)
	back+=("$subset")
fi
# from 23.02 a job with an Extra and no state of the plugin's at all (as
# one submitted while Slurm filtered by it, which writes none: then
# extra_constraints is turned off): the guard goes by its Extra
stateless=
slurm_at_least 23 2 && stateless=$(pend --begin=now+3600)
expect "the thread's feature in job $carried's and job $tier's Features" \
	"$(field "$carried" Features) $(field "$tier" Features)" "$REQ_FEATURE $TIER_FEATURE"
expect "the thread's ExcNodeLists and hold as it wrote them" \
	"$(field "$required" ExcNodeList) $(field "$held" ExcNodeList) $(field "$held" Priority)" "n[1-2] n2 0"
expect_has "job $own_hold is held by its user" "$(field "$own_hold" Reason)" JobHeldUser
sed -i "s/^JobSubmitPlugins=.*/JobSubmitPlugins=extra/" "$SLURM_CONF"
grep -q '^JobSubmitPlugins=' "$SLURM_CONF" || echo "JobSubmitPlugins=extra" >>"$SLURM_CONF"
echo "BurstBufferType=burst_buffer/extra" >>"$SLURM_CONF"
mark=$(log_lines)
bash "$CLUSTER" ctld-restart >/dev/null || not_ok "slurmctld restarted with both plugins"
expect "job_submit/extra loaded" "$(plugin_inits_since "$mark")" 1
# the look gives the jobs back what the thread set on them
said() { tail -n +"$((mark + 1))" "$LOG" | grep -F "waiting jobs back what job_submit/extra's thread had set on them" | tail -n 1; }
wait_for 30 eval '[ -n "$(said)" ]' || not_ok "the look gives the jobs back within 30 s"
expect "it names the job carried by the thread's feature, the one carried by a tier's, the one(s) it kept off by their ExcNodeList, the one it held and the one its user held" \
	"$(said | grep -oP '\): jobs \K[0-9, ]+$' | tr -d ' ' | tr ',' '\n' | sort -n | paste -sd ' ')" \
	"$(printf '%s\n' "${back[@]}" | sort -n | paste -sd ' ')"
expect_has "it says how many" "$(said)" "gave ${#back[@]} waiting jobs back"
expect "job $carried: its Features without the thread's feature" "$(field "$carried" Features)" "(null)"
expect "job $tier: its Features without the feature of its tier" "$(field "$tier" Features)" "(null)"
expect "job $required: its ExcNodeList its user's own (none)" "$(field "$required" ExcNodeList)" "(null)"
expect "job $held: released" "$(field "$held" Priority | grep -c '^[1-9]')" 1
expect_has "job $own_hold: still held by its user" "$(field "$own_hold" Reason)" JobHeldUser
expect "jobs $held and $own_hold: their ExcNodeList their user's own (none)" "$(field "$held" ExcNodeList) $(field "$own_hold" ExcNodeList)" "(null) (null)"
if [ -n "$subset" ]; then
	expect "job $subset, naming more nodes than it asks for: its ExcNodeList as Slurm alone's" \
		"$(field "$subset" ExcNodeList)" "$(field "$subset_ref" ExcNodeList)"
	# before any update of the job, which would rebuild the set whatever
	# the give-back did: Slurm alone keeps the job off n1 and n4, which
	# it does not name; the look adds the nodes that fail the request
	# (n1, n2), never takes a node out
	ref_set=$("$HELPER" excluded "$subset_ref")
	expect "Slurm alone keeps job $subset_ref off the nodes it does not name (its bitmap)" "$ref_set" n1,n4
	expect "job $subset, given back: kept off them too (n4 matches: only the set the give-back rebuilt keeps it off)" \
		"$(comm -23 <(tr , '\n' <<<"$ref_set" | sort) <("$HELPER" excluded "$subset" | tr , '\n' | sort) | paste -sd,)" ""
fi
for id in "${back[@]}"; do
	expect_has "job $id: its state the guard's" "$(admin_comment "$id")" "$GUARD_STATUS"
	expect_has "job $id: its request kept" "$(admin_comment "$id")" "request=ok=1"
done
expect_has "job $tier: its preference and wait kept" "$(admin_comment "$tier")" "wait=600; prefer=fast=1; request=ok=1"
expect "no error of the give-back in slurmctld's log" \
	"$(tail -n +"$((mark + 1))" "$LOG" | grep -c "keeps what job_submit/extra's thread set on it")" 0
look_walked
expect "the jobs given back are not given back again" \
	"$(tail -n +"$((mark + 1))" "$LOG" | grep -c "waiting jobs back what job_submit/extra's thread")" 1
# the thread's features are on n3 and n4 alone: once n1 is the only node
# that matches, the carried jobs run there only if the feature is gone
# from their Features and from the list Slurm built of them
set_extra n1 '{"ok":1,"fast":1}'
for n in n3 n4; do set_extra "$n" '{"ok":0}'; done
scontrol update jobid="$carried" starttime=now
scontrol update jobid="$tier" starttime=now
scontrol update jobid="$required" starttime=now
[ -z "$stateless" ] || scontrol update jobid="$stateless" starttime=now
[ -z "$subset" ] || scontrol update jobid="$subset,$subset_ref" starttime=now
expect "the carried job, given back, completes" "$(wait_job "$carried")" COMPLETED
expect "it ran on n1, which never had the thread's feature and alone matches" "$(field "$carried" NodeList)" n1
expect "the job carried by its tier's feature, given back, completes" "$(wait_job "$tier")" COMPLETED
expect "it ran on n1, which never had the tier's feature and alone satisfies its tier" "$(field "$tier" NodeList)" n1
expect "the job released, required on n1, completes" "$(wait_job "$held")" COMPLETED
expect "it ran on n1" "$(field "$held" NodeList)" n1
expect "the job requiring n3 waits while n3 does not match" "$(field "$required" JobState)" PENDING
if [ -n "$subset" ]; then
	expect "the same job as job $subset without a request, Slurm alone, completes" "$(wait_job "$subset_ref")" COMPLETED
	expect_in "it ran on one of the nodes it names" "$(field "$subset_ref" NodeList)" n2 n3
	# n1 matches and is free now: the job naming n2 and n3 is kept off it
	# by its excluded nodes' bitmap (rebuilt by the update of its start
	# time too)
	wait_for 6 eval '[ "$(field "$subset" JobState)" != PENDING ]'
	expect "job $subset waits while neither node it names matches, n1 free and matching" "$(field "$subset" JobState)" PENDING
fi
set_extra n3 '{"ok":1}'
expect "once n3 matches again it completes" "$(wait_job "$required")" COMPLETED
if [ -n "$subset" ]; then
	expect "job $subset completes too" "$(wait_job "$subset")" COMPLETED
	expect "it ran on n3, the node it names that matches" "$(field "$subset" NodeList)" n3
fi
if [ -n "$stateless" ]; then
	expect "the job with an Extra and no state, given none, completes" "$(wait_job "$stateless")" COMPLETED
	expect "it ran on n1, the one node its Extra's request allows" "$(field "$stateless" NodeList)" n1
	expect "no state written into it" "$(admin_comment "$stateless" | grep -c "slurm-extra:")" 0
fi
expect "the user's own hold stays" "$(field "$own_hold" JobState)" PENDING
scancel "$own_hold"

summary guard-alone
