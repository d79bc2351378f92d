#!/usr/bin/env bash
# e2e-hostile.sh - what another user can try on the owner's jobs through
# the plugin, on the real local cluster with two unprivileged accounts
# (xcuser1 the owner, xcuser2 the other user), each answer compared with
# the same update of the other user's own job, by its plain id (Slurm's
# own answer):
# - an update whose job_id_str Slurm reads as the caller's own job
#   (2^32 + its id: strtol() cast to uint32_t) and whose job_id names the
#   owner's: a change of preferences with a wait of a year, a hold
#   (priority 0), the owner's job's ExcNodeList re-sent, and (23.02+,
#   later) a new request (extra=).  The owner's jobs keep their state,
#   preferences, priority and request, and the nodes they are kept off
#   (the look's sets, checked after its walk); the job H, whose required
#   n3 does not match, waits unheld (BurstBufferStageIn) and runs on n3
#   once it matches; the caller's job gets what the plain update gives it.
#   The owner's own update by such an id is taken, as Slurm takes it.
# - one user's 12 held jobs with distinct requests (MaxPendingRequestsPerUser=12):
#   each kept off the nodes its request does not allow.
# - slurmctld's memory across 1,000 updates carrying a change of
#   preferences that is read and then refused or repeated: another user's
#   update of the owner's array (two records: job_modify() runs for each,
#   and on 22.05 before Slurm refuses the caller), and (23.02+) the
#   caller's own update with a new request past MaxPendingRequestsPerUser;
#   each with the largest change read (8 tiers of 1,000 bytes) and with
#   100 KB tiers, against the same updates with a tiny change.  The RSS
#   growth is printed; more than 1 MB over the baseline's fails (the
#   copies kept before grew it by 2 MB and 58 MB on 22.05.8).
# The filter is burst_buffer/extra (doc/guard.md): its guard keeps jobs off
# at placement and its look keeps their excluded nodes; skipped where it
# is not installed (nothing filters there).
# XC_HOSTILE_MODE=slurm (23.11+): the same where Slurm filters by `extra`
# itself, with burst_buffer/extra keeping the preferences (no job H, and
# the look keeps no job's excluded nodes there; skipped without it).
# Closes with "hostile: N passed, M failed".
# Needs root, `make install` and `make check` (tests/cluster/slurm-helper).
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
cluster_test e2e-hostile.sh
MODE=${XC_HOSTILE_MODE:-plugin}
if [ "$MODE" = slurm ]; then
	slurm_filter_or_skip hostile "Slurm's own filter (extra_constraints)"
	prefer_slurm_or_skip hostile
else
	filter_or_skip hostile
fi
OWNER=xcuser1
OTHER=xcuser2
export XC_USERS="$OWNER $OTHER"
# each user's distinct pending requests: xcuser2's two below reach it
export XC_EXTRA_CONF="MaxPendingRequestsPerUser=12 ${XC_EXTRA_CONF:-}"
cluster_start >/dev/null
scontrol update nodename=n1 extra='{"gpu":true}'
scontrol update nodename=n2 extra='{"gpu":true,"cache":"ds1"}'
scontrol update nodename=n[3-4] extra='{"gpu":false}'
[ "$MODE" = slurm ] || look_settled
# the look keeps the jobs' excluded nodes (but where Slurm filters by the
# request itself)
SETS=0
[ "$MODE" != slurm ] && SETS=1

WIDE=4294967296 # 2^32: job N + 2^32 is job N to Slurm
pending() { as "$1" sbatch --parsable -o /dev/null --begin=now+3600 "${@:2}" --wrap true 2>&1 | tail -n 1; }
helper() { as "$1" "$HELPER" update "${@:2}"; }
admin_comment() { show_job "$1" | grep -oP '^\s*AdminComment=\K.*?(?= ?$)'; }
# narrowed JOB: the state of the owner's job shows its preferences, and
# where Slurm filters (with the guard, which keeps the preference at
# placement) its Extra is its request
narrowed() {
	rec_drop
	[[ "$(admin_comment "$1")" == *"; wait=3600; prefer=cache=ds1;"* ]] &&
		{ [ "$MODE" != slurm ] || [ "$(field "$1" Extra)" = gpu=true ]; }
}
# state_rest JOB: what the plugin and Slurm keep of job JOB: its state
# from its held= on (but the hash of the list last written, wrote=), its
# priority and request; the nodes it is kept off come at the look's next
# walk, and are checked apart
state_rest() {
	rec_drop
	printf '%s|' "$(admin_comment "$1" | grep -oP '; held=.*' | sed 's/ wrote=[0-9a-f]*;//')" \
		"$(field "$1" Priority)" "$(field "$1" Extra)"
}
# what Slurm alone did with job $1: its hold, list and reason
slurm_of() { rec_drop; printf '%s|' "$(field "$1" Priority)" "$(field "$1" ExcNodeList)" "$(field "$1" Reason)"; }

# attacks WHEN: the owner's job with preferences (V) and, where the look
# keeps the jobs' excluded nodes, one waiting for its required n3, which
# does not match (H), each named by the other user's updates by 2^32 +
# their own job A's id (each answer against the same update of their job
# R by its id), WHEN "early" right after their submission, before the
# look has walked them, "late" after; then the owner's own change by
# 2^32 + its id, and every check.
attacks() {
	local attack words got ref before held_before exc list
	V=$(pending "$OWNER" --extra gpu=true --extra-prefer cache=ds1 --extra-prefer-wait 60)
	H=
	[ "$MODE" = slurm ] || H=$(as "$OWNER" sbatch --parsable -o /dev/null -w n3 --extra gpu=true --wrap true 2>&1 | tail -n 1)
	for j in "$V" ${H:+"$H"}; do
		[[ $j =~ ^[0-9]+$ ]] || { echo "e2e-hostile: a submission was refused: $j" >&2; exit 1; }
	done
	if [ "$1" = late ]; then
		wait_for 20 narrowed "$V" || not_ok "the owner's job shows its preferences"
		# (the look's set once its walk came)
		[ "$SETS" = 0 ] || wait_for 10 eval '[ "$(kept_off "$V")" = "n[3-4]" ]' ||
			not_ok "$1: the look keeps the owner's job off n[3-4] within 10 s"
	fi
	before=$(state_rest "$V")
	held_before=${H:+$(state_rest "$H")}
	exc=$(kept_off "$V")
	[ "$exc" != "(null)" ] || exc="n[3-4]" # (early: before the look's walk)
	list=("tiers=gpu=true&cache=ds1&x=1 wait=31536000" "priority=0" "exclude=$exc")
	# (a new request reaches job_modify() from 23.02; the one of their
	# first held job below, so that their distinct requests stay 12 when
	# the caller's own jobs take it: last, and late alone, so that no
	# change of tiers follows it there, which would make it another
	# request)
	[ "$1" != late ] || ! slurm_at_least 23 2 ||
		list+=("extra=gpu=true|a=1")
	for attack in "${list[@]}"; do
		read -ra words <<<"$attack"
		ref=$(helper "$OTHER" 1 "$R" 0 "${words[@]}")
		for j in "$V" ${H:+"$H"}; do
			got=$(helper "$OTHER" 1 $((WIDE + A)) "$j" "${words[@]}")
			expect "$1: $attack naming $([ "$j" = "$V" ] && echo the job with preferences || echo the job waiting for n3): the answer to the caller's update of their own job ($got)" "$got" "$ref"
		done
	done
	# The owner's change by such an id, after the others': taken, as
	# Slurm takes the update (its job by 2^32 + its id); once it shows,
	# every hint before it was taken.
	expect "$1: the owner's change by 2^32 + its id is accepted" \
		"$(helper "$OWNER" 1 $((WIDE + V)) 0 wait=45)" "1 ok, 0 refused"
	wait_for 30 eval '[[ "$(admin_comment "$V")" == *"; wait=45; prefer=cache=ds1;"* ]]' ||
		not_ok "$1: the owner's change shows within 30 s" "$(admin_comment "$V")"
	[ "$SETS" = 0 ] || wait_for 10 eval '[ "$(kept_off "$V")" = "n[3-4]" ]' || true
	expect "$1: the owner's job keeps its state, its priority and request (the wait the owner's)" \
		"$(state_rest "$V")" "${before/wait=3600/wait=45}"
	[ "$SETS" = 0 ] || expect "$1: the look keeps it off n[3-4]" "$(kept_off "$V")" "n[3-4]"
	expect "$1: the caller's job got what the plain update gives their other job" \
		"$(slurm_of "$A")" "$(slurm_of "$R")"
	[ -n "$H" ] || return 0
	expect "$1: the job waiting for its required n3 keeps its state, priority and request" \
		"$(state_rest "$H")" "$held_before"
	# (the reason once the scheduler has tried it)
	wait_for 20 eval '[ "$(field "$H" Reason)" = BurstBufferStageIn ]' || true
	expect "$1: it waits unheld (BurstBufferStageIn, priority above 0)" \
		"$(field "$H" Reason) $([ "$(field "$H" Priority)" != 0 ] && echo above-0)" "BurstBufferStageIn above-0"
	scontrol update nodename=n3 extra='{"gpu":true}'
	wait_for 30 eval '[ "$(field "$H" JobState)" = COMPLETED ]' ||
		not_ok "$1: it ran once n3 matches" "$(scontrol show job "$H")"
	expect "$1: on n3" "$(field "$H" NodeList)" n3
	scontrol update nodename=n3 extra='{"gpu":false}'
	as "$OWNER" scancel "$V"
	as root scontrol release "$A" "$R" >/dev/null 2>&1
	wait_for 30 eval '[ "$(field "$A" Priority)" != 0 ] && [ "$(field "$R" Priority)" != 0 ]' || true
}

echo "# an update Slurm reads as the caller's own job, naming the owner's"
A=$(pending "$OTHER")
R=$(pending "$OTHER")
# (where Slurm filters, 23.11+, Slurm checks the caller before
# job_modify(): early and late are alike)
[ "$MODE" = slurm ] || attacks early
attacks late

echo "# one user's distinct requests: their held jobs, the user at the cap"
MINE=()
for i in $(seq 12); do
	MINE+=("$(pending "$OTHER" --hold --extra "gpu=true|a=$i")")
	[[ ${MINE[-1]} =~ ^[0-9]+$ ]] || { echo "e2e-hostile: request $i of 12 was refused: ${MINE[-1]}" >&2; exit 1; }
done
# kept off n[3-4], or where Slurm filters, its request in its Extra
filtered() {
	if [ "$MODE" = slurm ]; then
		[ "$(field "$1" Extra)" = "gpu=true|a=$2" ]
	else
		[ "$(kept_off "$1")" = "n[3-4]" ]
	fi
}
all_filtered() { local i; rec_drop; for i in "${!MINE[@]}"; do filtered "${MINE[$i]}" $((i + 1)) || return 1; done; }
if wait_for 30 all_filtered; then
	ok "each of the 12 jobs is kept off n[3-4], the nodes its request does not allow"
else
	not_ok "each of the 12 jobs is kept off n[3-4] within 30 s" \
		"$(for j in "${MINE[@]}"; do echo "$j: $(kept_off "$j") $(field "$j" Extra)"; done)"
fi

echo "# slurmctld's memory across 1,000 changes read, then refused or repeated"
ARR=$(pending "$OWNER" --array=1-3 --extra gpu=true)
as "$OWNER" scontrol update jobid="${ARR}_1" comment=split || not_ok "the owner splits task 1 out"
rss() { grep -oP '^VmRSS:\s*\K[0-9]+' "/proc/$(scale_pid)/status"; }
# burst TIERS: 1,000 of each update, with the change TIERS (tiers-of=)
burst() {
	local out
	out=$(helper "$OTHER" 1000 "$ARR" 0 exclude=n1 "tiers-of=$1" wait=60)
	[[ $out == "0 ok, 1000 refused: "* ]] || not_ok "another user's updates of the array are refused ($out)"
	if slurm_at_least 23 2; then
		out=$(helper "$OTHER" 1000 "${MINE[0]}" 0 'extra=gpu=true&b=1' "tiers-of=$1")
		[[ $out == "0 ok, 1000 refused: "* ]] || not_ok "their new request past the cap is refused ($out)"
	fi
}
# warm-ups of each: glibc's arenas grow to what the RPC threads hold at
# once (100 KB strings unpacked by Slurm), once; a copy kept grows the
# memory at every burst.  The 100 KB one twice: glibc's mmap threshold is
# its own (slurmctld's), so each of slurmctld's RPC threads may keep such
# a block in its arena, and a burst need not reach every thread (860 KB
# over the baseline after one warm-up, on 22.05.8 with the guard alone)
burst 1,10
burst 8,1000
burst 1,100000
burst 1,100000
r0=$(rss)
burst 1,10
r1=$(rss)
burst 8,1000
r2=$(rss)
burst 1,100000
r3=$(rss)
base=$((r1 - r0))
echo "  slurmctld RSS (KB): $r0, +$base after the tiny changes, +$((r2 - r1)) after 8 tiers of 1,000 bytes, +$((r3 - r2)) after 100 KB tiers"
expect "8 tiers of 1,000 bytes: within 1 MB of the baseline's growth" "$(((r2 - r1) - base < 1024 ? 1 : 0))" 1
expect "100 KB tiers: within 1 MB of the baseline's growth" "$(((r3 - r2) - base < 1024 ? 1 : 0))" 1

summary hostile
