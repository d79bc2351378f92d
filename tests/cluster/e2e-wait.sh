#!/usr/bin/env bash
# e2e-wait.sh - jobs wait for a node whose Extra satisfies their request and
# follow Extra changes while they wait (doc/language.md §7), on the real local
# cluster, each scenario from the user's side (sbatch, scontrol, squeue):
# waits then runs; never starts on a node that stopped matching; a node
# added to the cluster is filtered; the user's --exclude and a later
# ExcNodeList kept; slurmctld restarted with jobs waiting; holds untouched;
# arrays, srun/salloc and partition lists wait too.  Prints the measured
# times; closes with "wait: N passed, M failed".
# The filter is burst_buffer/extra (doc/guard.md): its guard keeps jobs off
# at placement and its look keeps their excluded nodes (kept_off: the
# bitmap, a walk after a change); a job waits with reason
# BurstBufferStageIn, never held (a required node that does not match
# included), its ExcNodeList is the user's own field, untouched, and its
# AdminComment the state written at submission.  Skipped where it is not
# installed (nothing filters there).
# Needs root, `make install` and `make check` (tests/cluster/slurm-helper).
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
cluster_test e2e-wait.sh
filter_or_skip wait

# A second partition over the same nodes, for --partition lists.
export XC_PARTITIONS=2
cluster_start >/dev/null
bash "$CLUSTER" extra >/dev/null || exit 1
look_settled
# the reason of a job waiting for a node to match: the stage-in test's
# answer (burst_buffer/extra's)
WAITING=BurstBufferStageIn
# settled JOB LIST: waits (10 s at most) for the look to have given the
# job its set (its walk follows a submission or an update within a second)
settled() { wait_for 10 exc_is "$1" "$2" || true; }

now_ms() { date +%s%3N; }
state() { field "$1" JobState; }
reason() { squeue -h -j "$1" -o %r 2>/dev/null; }
# is_state JOB STATE...: the job is in one of the states
is_state() { local s; s=$(state "$1"); shift; for w in "$@"; do [ "$s" = "$w" ] && return 0; done; return 1; }
# exc_is JOB LIST: the nodes the job is kept off (kept_off) are LIST
exc_is() { [ "$(kept_off "$1")" = "$2" ]; }
# Started: running, or already past it (an echo job ends within ms).
started() { is_state "$1" RUNNING COMPLETING COMPLETED; }
set_extra() { scontrol update nodename="$1" extra="$2"; }
# The job's AdminComment, spaces and all (scontrol gives it a line).
admin_comment() { scontrol show job "$1" | grep -oP '^\s*AdminComment=\K.*?(?= ?$)'; }
# Back to contrib/examples/nodes.json: n1, n4 gpu with mem >= 512.
reset_extra() { bash "$CLUSTER" extra >/dev/null; look_settled; }

echo "# a request no node satisfies: accepted, waits, runs when a node comes to match"
id=$(submit --extra 'gpu=true&mem>4096')
expect "accepted (not refused)" "$([[ $id =~ ^[0-9]+$ ]] && echo yes)" yes
wait_for 15 eval '[ "$(reason "$id")" = "$WAITING" ]' ||
	not_ok "waited 15 s for: eval '[ \"\$(reason \"\$id\")\" = $WAITING ]'"
expect "squeue: PENDING" "$(squeue -h -j "$id" -o %T)" PENDING
expect "squeue reason: $WAITING" "$(reason "$id")" "$WAITING"
expect_has "scontrol show job: the state, the guard keeping it off" "$(scontrol show job "$id")" \
	"AdminComment=slurm-extra: burst_buffer/extra keeps the job off at placement; held=0; wrote="
expect_has "  with its request" "$(admin_comment "$id")" "; exclude=; request=gpu=true&mem>4096"
settled "$id" "n[1-4]"
expect "ExcNodeList: every node" "$(kept_off "$id")" "n[1-4]"
out=$(slurm-extra why --job "$id")
expect "slurm-extra why --job: the waiting job's request, on the nodes it may use" \
	"$(printf '%s\n' "$out" | head -3)" "job $id (pending, partition debug)
request: gpu=true&mem>4096
0 of 4 nodes satisfy it."
expect_has "why --job: which part rules out which nodes, and why" "$out" \
	"mem>4096                       0 of 4 nodes   (n1: 1024, n2: 2048, n3: 256, n4: 512; largest 2048)"
expect "why --job --json" "$(slurm-extra why --job "$id" --json | grep -oP '^\{"request":"[^"]*","nodes":4,"satisfy":0')" \
	'{"request":"gpu=true&mem>4096","nodes":4,"satisfy":0'
t0=$(now_ms)
set_extra n2 '{"gpu":true,"mem":8192,"arch":"x86_64","rack":1}'
ok=$(wait_for 30 started "$id" && echo yes)
t1=$(now_ms)
expect "it starts once n2's Extra satisfies it" "$ok" yes
expect "on n2" "$(field "$id" NodeList)" n2
printf '  from the Extra update to the job running: %d ms\n' $((t1 - t0))
echo "start_after_update_ms $((t1 - t0))" >>"${XC_WAIT_FIGURES:-/dev/null}"
wait_job "$id" >/dev/null
reset_extra

echo "# a pending job never starts on a node that stopped satisfying it"
blocker=$(sbatch --parsable -o /dev/null -w n1 --wrap 'sleep 300')
wait_for 20 started "$blocker" ||
	not_ok "waited 20 s for: started \"\$blocker\""
id=$(submit --extra 'gpu=true&mem>=1024') # only n1 (busy)
settled "$id" "n[2-4]"
expect "waits for busy n1: ExcNodeList n[2-4]" "$(kept_off "$id")" "n[2-4]"
# n1 stops satisfying it while busy; no node does then: the look keeps
# it off all four, and n1 once free is not given to it
t0=$(now_ms)
set_extra n1 '{"gpu":false,"mem":1024}'
wait_for 20 exc_is "$id" "n[1-4]" ||
	not_ok "waited 20 s for: exc_is \"\$id\" \"n[1-4]\""
t1=$(now_ms)
expect "the look follows: kept off n[1-4]" "$(kept_off "$id")" "n[1-4]"
printf '  from the Extra update to the new ExcNodeList: %d ms\n' $((t1 - t0))
echo "exclusion_after_update_ms $((t1 - t0))" >>"${XC_WAIT_FIGURES:-/dev/null}"
scancel "$blocker"
wait_for 20 eval '[ "$(squeue -h -w n1 | wc -l)" = 0 ]' ||
	not_ok "n1 free within 20 s"
# (a walk of the look, and the scheduling passes of 6 s, with n1 free)
look_walked
wait_for 6 eval '[ "$(state "$id")" != PENDING ]'
expect "n1, free, does not satisfy it: it waits" "$(state "$id")" PENDING
set_extra n3 '{"gpu":true,"mem":4096,"arch":"aarch64","rack":2}'
wait_for 20 started "$id" ||
	not_ok "waited 20 s for: started \"\$id\""
expect "it runs on n3, the node that matches now" "$(field "$id" NodeList)" n3
wait_job "$id" >/dev/null
reset_extra

echo "# the user's --exclude, and a later scontrol update ExcNodeList, are kept"
id=$(submit -H --exclude n4 --extra 'gpu=true&mem>=512') # n1, n4 match
settled "$id" "n[2-4]"
expect "--exclude n4 merged: ExcNodeList n[2-4]" "$(kept_off "$id")" "n[2-4]"
expect_has "the user's own exclusion is kept apart" "$(admin_comment "$id")" "exclude=n4;"
expect "why --job counts the nodes the job may use: not the user's n4" \
	"$(slurm-extra why --job "$id" | sed -n 3p)" "1 of 3 nodes satisfy it: n1"
# Right after submission: merged at the look's next walk.
scontrol update job="$id" ExcNodeList=n1
wait_for 10 exc_is "$id" "n[1-3]" ||
	not_ok "waited 10 s for: exc_is \"\$id\" \"n[1-3]\""
expect "ExcNodeList=n1 by the user: merged n[1-3]" "$(kept_off "$id")" "n[1-3]"
expect "  and kept as the user's own: their ExcNodeList" "$(field "$id" ExcNodeList)" n1
set_extra n2 '{"gpu":true,"mem":2048}'
wait_for 20 exc_is "$id" "n[1,3]" ||
	not_ok "waited 20 s for: exc_is \"\$id\" \"n[1,3]\""
expect "n2 comes to match: ExcNodeList n[1,3] (n1 still the user's)" "$(kept_off "$id")" "n[1,3]"
# Later, the job long known to the look: merged at its next walk too.
scontrol update job="$id" ExcNodeList=n2
settled "$id" "n[2-3]"
expect "ExcNodeList=n2 later: merged at the look's next walk, n[2-3]" "$(kept_off "$id")" "n[2-3]"
expect "  and kept as the user's own: their ExcNodeList" "$(field "$id" ExcNodeList)" n2
expect "the user's hold is untouched" "$(reason "$id")" JobHeldUser
scontrol release "$id"
wait_for 30 started "$id" ||
	not_ok "waited 30 s for: started \"\$id\""
expect_in "released by the user, it runs on n1 or n4" "$(field "$id" NodeList)" n1 n4
wait_job "$id" >/dev/null
reset_extra

echo "# holds are never released by the plugin"
id=$(submit -H --extra 'gpu=true&mem>4096')
look_settled
expect "sbatch -H, no node matches: held by the user" "$(reason "$id")" JobHeldUser
id2=$(submit --extra 'gpu=true&mem>4096')
wait_for 15 eval '[ "$(reason "$id2")" = "$WAITING" ]' ||
	not_ok "waited 15 s for: eval '[ \"\$(reason \"\$id2\")\" = $WAITING ]'"
scontrol hold "$id2"
expect "scontrol hold of a waiting job: held by an admin" "$(reason "$id2")" JobHeldAdmin
set_extra n2 '{"gpu":true,"mem":8192}'
wait_for 20 exc_is "$id2" "n[1,3-4]" ||
	not_ok "waited 20 s for: exc_is \"\$id2\" \"n[1,3-4]\""
expect "  its ExcNodeList follows the Extra change" "$(kept_off "$id2")" "n[1,3-4]"
wait_for 20 exc_is "$id" "n[1,3-4]" ||
	not_ok "waited 20 s for: exc_is \"\$id\" \"n[1,3-4]\""
expect "user-held job still held" "$(reason "$id")" JobHeldUser
expect "admin-held job still held" "$(reason "$id2")" JobHeldAdmin
scancel "$id" "$id2"
reset_extra

echo "# job arrays, srun and salloc, partition lists wait and follow too"
id=$(submit --array=1-3 --extra 'mem>4096')
wait_for 15 eval '[ "$(squeue -h -j "$id" -t PD | wc -l)" -ge 1 ]' ||
	not_ok "waited 15 s for: eval '[ \"\$(squeue -h -j \"\$id\" -t PD | wc -l)\" -ge 1 ]'"
expect "why --job on a waiting array" "$(slurm-extra why --job "$id" | sed -n 2,3p)" "request: mem>4096
0 of 4 nodes satisfy it."
set_extra n3 '{"gpu":true,"mem":8192,"arch":"aarch64","rack":2}'
for t in 1 2 3; do
	wait_for 60 eval "started ${id}_$t || is_state ${id}_$t COMPLETED"
done
ran=$(for t in 1 2 3; do wait_job "${id}_$t" >/dev/null; field "${id}_$t" NodeList; done | sort -u | paste -sd,)
expect "every array task ran on n3" "$ran" n3
reset_extra
out=$(mktemp)
(timeout 60 srun --extra 'mem>4096' printenv SLURMD_NODENAME >"$out" 2>&1) &
srun_pid=$!
wait_for 15 eval '[ "$(squeue -h -t PD | wc -l)" -ge 1 ]' ||
	not_ok "waited 15 s for: eval '[ \"\$(squeue -h -t PD | wc -l)\" -ge 1 ]'"
expect "srun --extra waits (pending)" "$(squeue -h -t PD -o %T | head -1)" PENDING
expect "why --job on a waiting srun" "$(slurm-extra why --job "$(squeue -h -t PD -o %i | head -1)" | sed -n 2p)" \
	"request: mem>4096"
set_extra n4 '{"gpu":true,"mem":8192,"arch":"x86_64","rack":2,"ssd":"nvme"}'
wait "$srun_pid"
expect "srun runs once n4 matches, on n4" "$(tail -1 "$out")" n4
reset_extra
(timeout 60 salloc --extra 'mem>4096' srun printenv SLURMD_NODENAME >"$out" 2>/dev/null) &
salloc_pid=$!
wait_for 15 eval '[ "$(squeue -h -t PD | wc -l)" -ge 1 ]' ||
	not_ok "waited 15 s for: eval '[ \"\$(squeue -h -t PD | wc -l)\" -ge 1 ]'"
set_extra n1 '{"gpu":true,"mem":8192}'
wait "$salloc_pid"
expect "salloc gets n1 once it matches" "$(tail -1 "$out")" n1
rm -f "$out"
reset_extra
id=$(submit -p debug,other --extra 'mem>4096')
wait_for 10 eval '[ "$(state "$id")" = PENDING ]' ||
	not_ok "waited 10 s for: eval '[ \"\$(state \"\$id\")\" = PENDING ]'"
expect "why --job with a partition list: the nodes of both" \
	"$(slurm-extra why --job "$id" | sed -n '1p;3p')" "job $id (pending, partition debug,other)
0 of 4 nodes satisfy it."
set_extra n2 '{"gpu":true,"mem":8192}'
wait_for 30 started "$id" ||
	not_ok "waited 30 s for: started \"\$id\""
expect "-p debug,other: runs on n2 once it matches" "$(field "$id" NodeList)" n2
wait_job "$id" >/dev/null
reset_extra

echo "# --nodelist: a required node is never excluded; the job waits, unheld, until it matches"
id=$(submit -w n2 --extra 'gpu=true') # n2: gpu false
# (Slurm's own filter lets such a job wait too: FAIL_CONSTRAINTS)
wait_for 15 eval '[ "$(reason "$id")" = BurstBufferStageIn ]'
expect "waits, not held (priority above 0), while required n2 does not satisfy it" \
	"$(reason "$id") $([ "$(field "$id" Priority)" != 0 ] && echo above-0)" "BurstBufferStageIn above-0"
expect_in "  n2 is not excluded (n1, n3, n4 match: nothing is)" "$(kept_off "$id")" "" "(null)"
expect "  why --job: the request holds on the other nodes" "$(slurm-extra why --job "$id" | sed -n 3,4p)" \
	"3 of 4 nodes satisfy it: n[1,3-4]
  gpu=true                       3 of 4 nodes   (n2: false)"
set_extra n2 '{"gpu":true,"mem":64}'
wait_for 30 started "$id" ||
	not_ok "waited 30 s for: started \"\$id\""
expect "once n2 matches: runs on n2" "$(field "$id" NodeList)" n2
wait_job "$id" >/dev/null
reset_extra

echo "# a heterogeneous job: each component filtered"
id=$(sbatch --parsable -o /dev/null -H --extra 'gpu=true&mem>=512' -n1 --wrap true : -n1 2>&1)
id=${id%%+*}
# (the look's set is taken back once the job runs: read while held)
settled "$id" "n[2-3]"
expect "het job: component 0 excluded the others" "$(kept_off "$id")" "n[2-3]"
scontrol release "$id"
wait_for 30 eval '[ "$(field "$id" JobState)" = COMPLETED ]' ||
	not_ok "waited 30 s for: eval '[ \"\$(field \"\$id\" JobState)\" = COMPLETED ]'"
expect "het job: component 0 ran on a matching node" \
	"$(case "$(field "$id" NodeList)" in n1 | n4) echo yes ;; esac)" yes

echo "# slurmctld restarted with jobs waiting"
id=$(submit --extra 'gpu=true&mem>4096')
wait_for 15 eval '[ "$(reason "$id")" = "$WAITING" ]' ||
	not_ok "waited 15 s for: eval '[ \"\$(reason \"\$id\")\" = $WAITING ]'"
bash "$CLUSTER" ctld-restart >/dev/null
look_settled
expect "the waiting job is still there" "$(state "$id")" PENDING
expect_has "  with its request" "$(admin_comment "$id")" "request=gpu=true&mem>4096"
set_extra n4 '{"gpu":true,"mem":8192,"ssd":"nvme"}'
wait_for 30 started "$id" ||
	not_ok "waited 30 s for: started \"\$id\""
expect "after the restart it runs when n4 matches, on n4" "$(field "$id" NodeList)" n4
wait_job "$id" >/dev/null
reset_extra

echo "# a node added to the cluster is filtered for waiting jobs"
id=$(submit -H --extra 'gpu=true&mem>=512')
settled "$id" "n[2-3]"
expect "before: ExcNodeList n[2-3]" "$(kept_off "$id")" "n[2-3]"
XC_NODE5=1 bash "$CLUSTER" ctld-reconfig-nodes >/dev/null
look_settled
wait_for 20 exc_is "$id" "n[2-3,5]" ||
	not_ok "waited 20 s for: exc_is \"\$id\" \"n[2-3,5]\""
expect "n5 (no Extra) is excluded too" "$(kept_off "$id")" "n[2-3,5]"
scancel "$id"

echo "# a powered-down CLOUD node: its Extra counts like any node's"
# (Slurm 22.05 hides such a node from slurm_load_node() unless
# PrivateData=cloud; the guard reads slurmctld's own table, where it is
# a node as any other.)
# A cluster started anew: a CLOUD node starts powered down (one that was
# a plain node keeps its state across a restart).
XC_NODE5=1 XC_NODE5_STATE=CLOUD bash "$CLUSTER" start >/dev/null
bash "$CLUSTER" extra >/dev/null
scontrol update nodename=n5 extra='{"gpu":true,"mem":4096}'
look_settled
id=$(submit -H --extra 'gpu=true&mem>=512')
settled "$id" "n[2-3]"
expect "n5 (CLOUD, powered down, its Extra satisfies): not excluded" "$(kept_off "$id")" "n[2-3]"
scancel "$id"

echo "# invalid requests are still refused before submission, with the caret"
out=$(sbatch --extra 'gpu=true&mem>=512|x=1' --wrap hostname 2>&1)
expect_has "refused with the message" "$out" \
	"sbatch: error: --extra: cannot mix '&' and '|' in one group; add parentheses (column 18)"
expect_has "and the caret" "$out" "$(printf '%19s' '^')"

expect "slurmctld still answers" "$(scontrol ping | grep -o UP | head -1)" UP
summary wait
