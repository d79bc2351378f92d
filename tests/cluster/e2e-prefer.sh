#!/usr/bin/env bash
# e2e-prefer.sh - preferences by Extra (`--extra-prefer`, tiers, and
# `--extra-prefer-wait`; doc/preferences.md "Preferences") as an unprivileged
# user (xcuser1) meets them on the local cluster (4 one-CPU nodes,
# burst_buffer/extra filtering: its guard picks the tier at each placement
# and its look follows each wait's end; `why --job` says the tier), beside
# what Slurm's own `--prefer` with a node feature does in the same run:
# - n2 alone has {"cache":"ds1"} in its Extra (and the feature `cached`,
#   for Slurm's --prefer); every node has {"gpu":true};
# - no wait: a free preferred node is taken, a busy one is not waited for;
# - a wait: the job waits for the busy preferred node and runs on it when
#   it frees; with a wait of 5 s it runs elsewhere after about 5 s; the
#   wait outlives a slurmctld restart;
# - tiers strongest first; the user's own --exclude of the preferred node;
#   a partition without it; an array with a wait (both tasks on it); srun;
# - the owner's change (`slurm-extra prefer`: a wait shortened, the
#   preferences dropped, some added to a held job), root's, and another
#   user's, refused as Slurm refuses that user's own update of the job;
# - the refusals, from the client and from slurmctld.
# "n2 busy" is root's job on n2.  Prints the seconds from submission until
# each job ran; closes with "prefer: N passed, M failed".
# Skipped where burst_buffer/extra is not installed (nothing filters).
# XC_PREFER_MODE=slurm (23.11+): the same where Slurm filters by `extra`
# itself (SchedulerParameters=extra_constraints), with burst_buffer/extra
# loaded (XC_BURST_BUFFER): its guard keeps the preference at each
# placement and the job's `extra` stays its request, as Slurm alone shows
# it (skipped without it: the plugin refuses preferences).
# Needs root, `make install` and `make check` (tests/cluster/slurm-helper).
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
cluster_test e2e-prefer.sh
MODE=${XC_PREFER_MODE:-plugin}
export XC_CPUS=1
if [ "$MODE" = slurm ]; then
	slurm_filter_or_skip prefer "Slurm's own filter (extra_constraints)"
	prefer_slurm_or_skip prefer
else
	filter_or_skip prefer
fi
cluster_start >/dev/null
scontrol update nodename=n2 availablefeatures=cached activefeatures=cached ||
	{ echo "e2e-prefer: cannot give n2 the feature cached" >&2; exit 1; }
for n in n1 n3 n4; do scontrol update nodename="$n" extra='{"gpu":true}'; done
scontrol update nodename=n2 extra='{"gpu":true,"cache":"ds1"}'
[ "$MODE" = slurm ] || look_settled

if [ "$MODE" = slurm ]; then
	echo "# where Slurm filters, burst_buffer/extra keeps the preferences"
	expect_has "slurmctld's log says so" "$(cat "$LOG")" \
		"job_submit/extra: SchedulerParameters has extra_constraints: Slurm filters by --extra itself; this plugin checks requests, and burst_buffer/extra keeps the preferences (Carrier=guard)"
	expect "doctor (xcuser1) says who keeps them" \
		"$(as xcuser1 slurm-extra doctor | grep '^preferences:')" \
		"preferences: kept by burst_buffer/extra at each placement"
fi

PREFER=(--extra gpu=true --extra-prefer cache=ds1)
# go ARGS...: submits xcuser1's `sleep 3` with ARGS: `id` the job id (or
# what sbatch said), T0 when (date +%s.%N).
T0=
id=
go() {
	T0=$(date +%s.%N)
	id=$(as xcuser1 sbatch --parsable -o /dev/null "$@" --wrap 'sleep 3' 2>&1 | tail -n 1)
}
# extra_shown ID: where Slurm filters, job ID's Extra is its request
# alone, as Slurm alone shows it (the guard keeps the preference).
extra_shown() {
	[ "$MODE" = slurm ] || return 0
	expect "Slurm filters by the request, the guard by the preference (Extra as submitted)" \
		"$(scontrol show job "$1" | grep -oP '(?<![A-Za-z])Extra=\K\S+')" "gpu=true"
}
since() { awk -v t0="$T0" -v t1="$(date +%s.%N)" 'BEGIN { printf "%.1f", t1 - t0 }'; }
running() { case "$(field "$1" JobState)" in RUNNING | COMPLETING | COMPLETED) return 0 ;; esac; return 1; }
# ran ID LIMIT: waits LIMIT s for job ID to run; prints "NODE SECONDS"
# (from T0), or "pending".
ran() {
	if wait_for "$2" running "$1"; then
		echo "$(field "$1" NodeList) $(since)"
	else
		echo pending
	fi
}
node_of() { echo "${1%% *}"; }
secs_of() { echo "${1##* }"; }
# between LOW HIGH X: LOW <= X < HIGH.  A wait ends at EligibleTime + W,
# and EligibleTime has whole seconds (up to 1 s before the submission):
# the checks of a wait W take W - 1 as its earliest end.
between() { awk -v l="$1" -v h="$2" -v x="$3" 'BEGIN { exit !(x >= l && x < h) }'; }
# busy_n2: root's long job on n2, running.
FILLER=
busy_n2() {
	FILLER=$(sbatch --parsable -o /dev/null -w n2 --wrap 'sleep 300')
	wait_for 30 running "$FILLER" || { echo "e2e-prefer: the job filling n2 did not start" >&2; exit 1; }
}
# idle: every job gone, every node idle.
idle() {
	scancel -u xcuser1
	scancel -u root
	wait_for 60 queue_empty || { echo "e2e-prefer: the queue did not empty" >&2; exit 1; }
	wait_for 30 eval '[ -z "$(sinfo -h -t alloc,mix,comp -o %N)" ]' ||
		{ echo "e2e-prefer: the nodes did not come back idle" >&2; exit 1; }
}
admin_comment() { scontrol show job "$1" | grep -oP '^\s*AdminComment=\K.*?(?= ?$)'; }

echo "# no wait, n2 idle: the preferred node, as Slurm's --prefer"
go "${PREFER[@]}"
r=$(ran "$id" 20)
expect "runs on n2, the preferred node ($(secs_of "$r") s)" "$(node_of "$r")" n2
expect_has "its state keeps the preference" "$(admin_comment "$id")" \
	"; wait=0; prefer=cache=ds1; request=gpu=true"
idle
go --prefer=cached
r=$(ran "$id" 20)
expect "Slurm's --prefer=cached: on n2 too ($(secs_of "$r") s)" "$(node_of "$r")" n2
idle

echo "# no wait, n2 busy: elsewhere at once"
busy_n2
go "${PREFER[@]}"
r=$(ran "$id" 20)
ours=$(secs_of "$r")
expect "runs on another node within 10 s ($ours s; no wait for n2)" \
	"$(case "$(node_of "$r")" in n1 | n3 | n4) between 0 10 "$ours" && echo yes ;; esac)" yes
idle
busy_n2
go --prefer=cached
r=$(ran "$id" 60)
echo "  Slurm's --prefer=cached with n2 busy: $r (this plugin: $ours s)"
idle

echo "# a wait of 60 minutes, n2 busy: waits, and runs on n2 once it frees"
busy_n2
go "${PREFER[@]}" --extra-prefer-wait 60
sleep 8
expect "pending after 8 s, three nodes idle" "$(field "$id" JobState)" PENDING
extra_shown "$id"
# (the guard picks the tier at each placement: nothing writes it)
expect_has "AdminComment: the guard keeps the job off" "$(admin_comment "$id")" \
	"slurm-extra: burst_buffer/extra keeps the job off at placement; "
expect_has "AdminComment: the wait in seconds" "$(admin_comment "$id")" "; wait=3600; prefer=cache=ds1; "
out=$(as xcuser1 slurm-extra why --job "$id" 2>&1)
expect_has "why --job (as the owner): the request" "$out" "request: gpu=true"
expect_has "why --job: the tier and its nodes" "$out" \
	"  1. cache=ds1: 1 of 4 nodes satisfy the request and it"
expect_has "why --job: the wait" "$out" "preferences, waited for 3600 s from EligibleTime:"
scancel "$FILLER"
r=$(ran "$id" 30)
expect "runs on n2 once root's job there ends ($(secs_of "$r") s)" "$(node_of "$r")" n2
idle

echo "# a wait of 5 s, n2 busy: elsewhere after about 5 s"
busy_n2
go "${PREFER[@]}" --extra-prefer-wait 0:05
sleep 3
expect "pending at 3 s" "$(field "$id" JobState)" PENDING
r=$(ran "$id" 30)
expect_in "then runs on another node" "$(node_of "$r")" n1 n3 n4
if [ "$MODE" = slurm ]; then
	expect "its Extra the request alone again" \
		"$(scontrol show job "$id" | grep -oP '(?<![A-Za-z])Extra=\K\S+')" "gpu=true"
fi
expect "after 5 s and within 10 ($(secs_of "$r") s)" \
	"$(between 4 10 "$(secs_of "$r")" && echo yes)" yes
idle

echo "# the wait outlives a slurmctld restart"
busy_n2
go "${PREFER[@]}" --extra-prefer-wait 0:15
sleep 3
bash "$CLUSTER" ctld-restart >/dev/null || not_ok "slurmctld restarted"
look_settled
r=$(ran "$id" 45)
expect_in "runs on another node after the restart" "$(node_of "$r")" n1 n3 n4
expect "after its 15 s and within 22 ($(secs_of "$r") s)" \
	"$(between 14 22 "$(secs_of "$r")" && echo yes)" yes
idle

echo "# tiers, strongest first"
go --extra gpu=true --extra-prefer cache=nosuch --extra-prefer cache=ds1 --extra-prefer-wait 60
r=$(ran "$id" 20)
expect "the second tier's node when no node has the first's" "$(node_of "$r")" n2
idle

echo "# the user's own --exclude of the preferred node: no wait for it"
busy_n2
go "${PREFER[@]}" --extra-prefer-wait 60 --exclude=n2
r=$(ran "$id" 20)
expect_in "runs at once on another node ($(secs_of "$r") s)" "$(node_of "$r")" n1 n3 n4
idle

echo "# a partition without the preferred node: no wait for it"
scontrol create partitionname=p34 nodes=n3,n4 state=up ||
	not_ok "root created the partition p34 (n3, n4)"
# the baseline of the same run: the job without preferences there
go --extra gpu=true -p p34
r=$(ran "$id" 20)
idle
if [ "$(node_of "$r")" = pending ]; then
	echo "  skipped: $(slurmctld -V) ran no job in the partition scontrol created (the baseline without preferences stayed pending)"
else
	go "${PREFER[@]}" --extra-prefer-wait 60 -p p34
	r=$(ran "$id" 20)
	expect "runs at once in its partition ($(secs_of "$r") s), as without preferences" \
		"$(case "$(node_of "$r")" in n3 | n4) echo n3-n4 ;; *) node_of "$r" ;; esac)" n3-n4
	idle
fi
scontrol delete partitionname=p34 || not_ok "root deleted the partition p34"

echo "# an array with a wait: both tasks on n2, one after the other"
go "${PREFER[@]}" --extra-prefer-wait 60 --array=1-2
done_both() { [ "$(field "${id}_1" JobState)" = COMPLETED ] && [ "$(field "${id}_2" JobState)" = COMPLETED ]; }
wait_for 40 done_both || not_ok "the array's tasks did not both end within 40 s"
expect "each task ran on n2, three nodes idle" \
	"$(field "${id}_1" NodeList) $(field "${id}_2" NodeList)" "n2 n2"
idle

echo "# srun: the preferred node (a wait: n2 may not be free yet to the plugin)"
out=$(as xcuser1 timeout 60 srun -N1 "${PREFER[@]}" --extra-prefer-wait 1 printenv SLURMD_NODENAME 2>&1)
expect "srun runs on n2" "$(tail -n 1 <<<"$out")" n2
idle

echo "# the owner changes the preferences (slurm-extra prefer); another user may not"
# the reference: Slurm's own answer to that user's update of the job
busy_n2
go "${PREFER[@]}" --extra-prefer-wait 60
expect_has "the job's state has its preference" "$(admin_comment "$id")" "; prefer=cache=ds1; "
before=$(admin_comment "$id")
theirs=$(as xcuser2 slurm-extra prefer --job "$id" --none 2>&1)
rc_theirs=$?
slurm_alone=$(as xcuser2 scontrol update jobid="$id" comment=theirs 2>&1)
rc_alone=$?
theirs=$(tail -n 1 <<<"$theirs")
expect "xcuser2's change fails as their own update of the job does, in scontrol's words (${theirs#slurm-extra: })" \
	"$([ "$rc_theirs" -ne 0 ] && echo failed) ${theirs#slurm-extra: }" \
	"$([ "$rc_alone" -ne 0 ] && echo failed) $(tail -n 1 <<<"$slurm_alone")"
# (a change of xcuser2's taken all the same would drop the tiers before
# root's below, whose check would then fail)
sleep 2
# (the wait, the tiers and the request)
prefs_of() { grep -oE '; (wait|prefer|request)=[^;]*' | tr -d '\n'; }
expect "and changes nothing: the job's preferences and its waiting" \
	"$(admin_comment "$id" | prefs_of) $(field "$id" JobState)" \
	"$(prefs_of <<<"$before") PENDING"
out=$(as root slurm-extra prefer --job "$id" --extra-prefer-wait 2:00 2>&1)
expect "root may change them, as root may update the job" "$? $(tail -n 1 <<<"$out")" \
	"0 job $id: waited for 120 s from EligibleTime"
out=$(as xcuser1 slurm-extra prefer --job "$id" --extra-prefer 'cache=' 2>&1)
expect "the owner's invalid preference: refused by the command, with the place" \
	"$? $(head -n 1 <<<"$out")" "2 slurm-extra: error: --extra-prefer: value expected after 'cache=' (column 7)"
out=$(as xcuser1 slurm-extra prefer --job "$id" --extra-prefer-wait 0:20 2>&1)
expect "the owner shortens the wait to 20 s: shown, the job still pending" \
	"$? $(tail -n 1 <<<"$out") $(field "$id" JobState)" \
	"0 job $id: waited for 20 s from EligibleTime PENDING"
expect_has "its state keeps the preference with the new wait" "$(admin_comment "$id")" \
	"; wait=20; prefer=cache=ds1; request=gpu=true"
r=$(ran "$id" 40)
expect_in "then runs on another node" "$(node_of "$r")" n1 n3 n4
expect "at 20 s from submission, within 26 ($(secs_of "$r") s; the change landed before 10 s)" \
	"$(between 19 26 "$(secs_of "$r")" && echo yes)" yes
idle
busy_n2
go "${PREFER[@]}" --extra-prefer-wait 60
sleep 3
T1=$(date +%s.%N)
out=$(as xcuser1 slurm-extra prefer --job "$id" --none 2>&1)
expect "the owner drops them (--none): shown" "$? $(tail -n 1 <<<"$out")" "0 job $id: no preferences"
r=$(ran "$id" 20)
expect_in "then runs at once on another node" "$(node_of "$r")" n1 n3 n4
after=$(awk -v t="$T1" -v n="$(date +%s.%N)" 'BEGIN { printf "%.1f", n - t }')
expect "within 6 s of the change ($after s)" \
	"$(between 0 6 "$after" && echo yes)" yes
idle
busy_n2
go --extra gpu=true --hold
out=$(as xcuser1 slurm-extra prefer --job "$id" --extra-prefer nosuch=1 --extra-prefer cache=ds1 --extra-prefer-wait 60 2>&1)
expect "the owner adds preferences to a held job submitted without any: shown" \
	"$? $(grep -c '^job .*: preference [12]: ' <<<"$out")" "0 2"
as xcuser1 scontrol release "$id" || not_ok "xcuser1 released their job"
wait_for 10 eval '[ "$(field "$id" Reason)" != JobHeldUser ]' ||
	not_ok "the release shows"
sleep 8
expect "released, it waits for n2 (three nodes idle)" "$(field "$id" JobState)" PENDING
extra_shown "$id"
scancel "$FILLER"
r=$(ran "$id" 30)
expect "and runs on n2 once it frees" "$(node_of "$r")" n2
idle

echo "# refusals"
# refused NAME NEEDLE ARGS...: xcuser1's sbatch with ARGS fails, saying
# NEEDLE, and queues nothing
refused() {
	local name=$1 needle=$2 out rc
	shift 2
	out=$(as xcuser1 sbatch -o /dev/null "$@" --wrap true 2>&1)
	rc=$?
	expect_has "$name: says so" "$out" "$needle"
	expect "$name: sbatch fails, nothing queued" \
		"$([ "$rc" -ne 0 ] && echo failed) $(squeue -h -u xcuser1 -o '%i %T %r' | tr '\n' ' ')" "failed "
}
refused "an invalid preference (sbatch, with the position)" "--extra-prefer: " \
	--extra gpu=true --extra-prefer 'cache='
refused "a wait without a preference (slurmctld)" "--extra-prefer-wait: it needs --extra-prefer" \
	--extra gpu=true --extra-prefer-wait 5
refused "a wait that is no duration" "is not a duration" \
	--extra gpu=true --extra-prefer cache=ds1 --extra-prefer-wait soon
refused "a preference without a request (slurmctld)" "it needs a request" \
	--extra-prefer cache=ds1

summary prefer
