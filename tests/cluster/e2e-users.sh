#!/usr/bin/env bash
# e2e-users.sh - every job action by every actor gets from Slurm, with the
# plugin loaded, the answer and the effect it gets without it, plus the
# --extra filter (doc/guard.md "Updates"), on the real local cluster with
# two unprivileged accounts: the job's owner, another user, and root.
#
# Each case runs the same action on two pending jobs of the owner, one
# with `--extra gpu=true` (n1-n2 satisfy it, n3-n4 do not) and one
# without, the reference: Slurm alone.  The filter is burst_buffer/extra
# (doc/guard.md): its look keeps the jobs' excluded nodes.  Checked: the
# actor's message and exit status are the same; two walks of the look
# later (look_walked), the job with a request has the reference's
# TimeLimit, NumNodes, Partition, priority and reason, its ExcNodeList is
# the reference's, and it is kept off that list plus n[3-4] (kept_off:
# the bitmap slurmctld keeps); the same again after `scontrol reconfigure`
# and a slurmctld restart.  Each action is sent right after submission
# (before the look has walked the job) and later.  Then submissions (-N
# above the matches, a missing feature or partition), an array with
# scattered task ids, a heterogeneous job and the caps on distinct
# requests (counted at the look's walks).  Skipped where burst_buffer/extra
# is not installed (nothing filters there).
# XC_USERS_MODE=slurm (23.11+): the same with Slurm's own filter alone
# (extra_constraints, no burst_buffer/extra), where the plugin only checks
# requests: the job with a request then has the reference's ExcNodeList
# and its request in Extra.
# Closes with "users: N passed, M failed".
# Needs root, `make install` and `make check` (tests/cluster/slurm-helper).
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
cluster_test e2e-users.sh
SLURM_FILTERS=0
if [ "${XC_USERS_MODE:-plugin}" = slurm ]; then
	slurm_filter_or_skip users "e2e-users with Slurm's own filter (extra_constraints)"
	SLURM_FILTERS=1
	export XC_BURST_BUFFER=
else
	filter_or_skip users
fi

OWNER=xcuser1
OTHER=xcuser2
export XC_USERS="$OWNER $OTHER"
export XC_PARTITIONS=2
cluster_start >/dev/null
tick=0
# n1-n2 satisfy gpu=true, n3-n4 do not; `tick` changes n4's Extra only.
set_nodes() {
	scontrol update nodename=n[1-2] extra='{"gpu":true}'
	scontrol update nodename=n3 extra='{"gpu":false}'
	scontrol update nodename=n4 extra="{\"gpu\":false,\"tick\":$tick}"
}
set_nodes

# A pending job of the owner's: begins in an hour.
pending() { as "$OWNER" sbatch --parsable -o /dev/null --begin=now+3600 "$@" --wrap true 2>&1; }
# rounds N: the look has walked every job N times since the call, each
# walk after n4's Extra changed (look_walked); where Slurm filters alone
# there is nothing to wait for.
rounds() {
	[ "$SLURM_FILTERS" = 1 ] && return 0
	for _ in $(seq "$1"); do
		tick=$((tick + 1))
		scontrol update nodename=n4 extra="{\"gpu\":false,\"tick\":$tick}"
		look_walked
	done
}
# The sorted, ranged hostlist of the nodes of every list given.
union() {
	local names
	names=$(for l in "$@"; do [ -n "$l" ] && [ "$l" != "(null)" ] && scontrol show hostnames "$l"; done | sort -u | paste -sd, -)
	[ -n "$names" ] && scontrol show hostlistsorted "$names" || echo "(null)"
}
admin_comment() { show_job "$1" | grep -oP '^\s*AdminComment=\K.*?(?= ?$)'; }
# What an actor is told, with the job's id (when $2 is one) as J.
said() { if [[ $2 =~ ^[0-9]+$ ]]; then sed -e "s/\b$2\b/J/g" <<<"$1"; else printf '%s' "$1"; fi; }

# do_action ACTOR ACTION JOB: the action as the actor; prints "rc: output".
# Slurm answers a change of partition with a stale errno on a cluster
# without accounting (doc/design.md "Slurm's own defects the plugin works
# around"): 24.11 and 26.05 say "Resource temporarily unavailable" to
# some asks (about 4 in 5 on 26.05), with or without the plugin
# (doc/benchmarks.md), and now and then another errno the RPC's thread
# left ("Interrupted system call": once in trixie's Slurm-filter matrix,
# the job not moved).  Tried again for up to 60 s, as a user would.
stale_errno() { [[ $1 == *"Resource temporarily unavailable"* || $1 == *"Interrupted system call"* ]]; }
do_action() {
	local out rc end=$((SECONDS + 60))
	one_action "$@"
	while stale_errno "$out" && [ "$SECONDS" -lt "$end" ]; do
		sleep 0.5
		one_action "$@"
	done
	printf '%s: %s' "$rc" "$(said "$out" "$3")"
}
# one_action ACTOR ACTION JOB: sets out and rc of do_action.
one_action() {
	case "$2" in
	exc) out=$(as "$1" scontrol update job="$3" ExcNodeList=n1 2>&1) ;;
	exc-clear) out=$(as "$1" scontrol update job="$3" ExcNodeList= 2>&1) ;;
	time) out=$(as "$1" scontrol update job="$3" TimeLimit=10 2>&1) ;;
	nodes) out=$(as "$1" scontrol update job="$3" NumNodes=2 2>&1) ;;
	part) out=$(as "$1" scontrol update job="$3" Partition=other 2>&1) ;;
	hold) out=$(as "$1" scontrol hold "$3" 2>&1) ;;
	release) as root scontrol hold "$3" >/dev/null 2>&1
		out=$(as "$1" scontrol release "$3" 2>&1) ;;
	comment) out=$(as "$1" scontrol update job="$3" AdminComment=note 2>&1) ;;
	esac
	rc=$?
}

# The AdminComment an admin gave: the text before the plugin's state.
admin_text() { admin_comment "$1" | sed -e 's/ *slurm-extra: .*//'; }
# What is compared: the fields Slurm keeps, with ExcNodeList apart.
fields() {
	local j=$1
	printf 'TimeLimit=%s NumNodes=%s Partition=%s Priority0=%s Reason=%s State=%s AdminComment=%s' \
		"$(field "$j" TimeLimit)" "$(field "$j" NumNodes)" "$(field "$j" Partition)" \
		"$([ "$(field "$j" Priority)" = 0 ] && echo yes || echo no)" \
		"$(squeue -h -j "$j" -o %r)" "$(field "$j" JobState)" "$(admin_text "$j")"
}

ACTIONS=(exc exc-clear time nodes part hold release comment)
declare -A A B
check_pairs() {
	local when=$1 key a b
	for key in "${!A[@]}"; do
		a=${A[$key]} b=${B[$key]}
		# (each job's record read once for its checks: the jobs wait for
		# their --begin, and the rounds are over)
		rec_read "$a" "$b"
		expect "$key, $when: fields as without --extra" "$(fields "$a")" "$(fields "$b")"
		if [ "$SLURM_FILTERS" = 1 ]; then
			expect "$key, $when: ExcNodeList as without --extra" "$(field "$a" ExcNodeList)" "$(field "$b" ExcNodeList)"
			expect "$key, $when: the request in Extra" "$(field "$a" Extra)" gpu=true
			continue
		fi
		expect "$key, $when: kept off the user's list plus n[3-4]" "$(kept_off "$a")" \
			"$(union "$(field "$b" ExcNodeList)" "n[3-4]")"
		# (the list is the user's own field)
		expect "$key, $when: ExcNodeList as without --extra" "$(field "$a" ExcNodeList)" "$(field "$b" ExcNodeList)"
	done
	rec_drop
}

echo "# the matrix: owner, another user, root x updates, early and late"
# act WHEN: each actor's each action on its pair of jobs.
act() {
	local actor act key ra rb
	for actor in "$OWNER" "$OTHER" root; do
		for act in "${ACTIONS[@]}"; do
			key="$actor $act $1"
			if [ "$1" = early ]; then # sent before the look's next walk
				A[$key]=$(pending --partition=debug --extra gpu=true)
				B[$key]=$(pending --partition=debug)
			fi
			ra=$(do_action "$actor" "$act" "${A[$key]}")
			rb=$(do_action "$actor" "$act" "${B[$key]}")
			expect "$key: the actor is told what Slurm alone says" "$ra" "$rb"
		done
	done
}
act early
for actor in "$OWNER" "$OTHER" root; do
	for act in "${ACTIONS[@]}"; do
		A["$actor $act late"]=$(pending --partition=debug --extra gpu=true)
		B["$actor $act late"]=$(pending --partition=debug)
	done
done
rounds 2
act late
rounds 2
check_pairs "2 rounds later"
scontrol reconfigure
wait_for 60 eval 'scontrol ping | grep -q UP' || not_ok "slurmctld answers after reconfigure"
rounds 2
check_pairs "after reconfigure"
bash "$CLUSTER" ctld-restart >/dev/null
rounds 2
check_pairs "after a slurmctld restart"
for key in "${!A[@]}"; do scancel "${A[$key]}" "${B[$key]}"; done
unset A B
declare -A A B

echo "# submissions: the answer Slurm alone gives"
# (With Slurm's own filter the reference is Slurm itself, which accepts a
# job with extra constraints it cannot run now: nothing to compare.)
[ "$SLURM_FILTERS" = 1 ] && echo "skipped: submissions against Slurm alone (Slurm's own filter is the reference)"
for opts in "-N 3" "-N 5" "--constraint=nosuchfeature" "--partition=nosuch" "--partition=debug,other -N 3"; do
	[ "$SLURM_FILTERS" = 1 ] && break
	# shellcheck disable=SC2086
	a=$(pending $opts --extra gpu=true)
	ra=$?
	# shellcheck disable=SC2086
	b=$(pending $opts)
	rb=$?
	expect "sbatch $opts: accepted or refused as without --extra" "$ra: $(said "$a" "$a")" "$rb: $(said "$b" "$b")"
	[ "$ra" = 0 ] && scancel "$a"
	[ "$rb" = 0 ] && scancel "$b"
done

echo "# a job array with scattered task ids (its name is over 64 bytes)"
tasks=$(seq -s, 1 7 300)
a=$(pending --array="$tasks" --extra gpu=true)
rounds 2
# burst_buffer/extra: the look's set; Slurm's own filter: none, the request in Extra
if [ "$SLURM_FILTERS" = 1 ]; then mine="(null)" mine1="n1"; else mine="n[3-4]" mine1="n[1,3-4]"; fi
expect "the array is one pending record" "$(squeue -h -j "$a" -o %i | wc -l)" 1
expect "the array is kept off" "$(kept_off "$a")" "$mine"
out=$(do_action "$OWNER" exc "$a")
rounds 2
expect "the owner's update of the whole array: accepted" "$out" "0: "
expect "the array is still one pending record" "$(squeue -h -j "$a" -o %i | wc -l)" 1
expect "the array is kept off the owner's n1 (and the plugin's)" "$(kept_off "$a")" "$mine1"
if [ "$SLURM_FILTERS" = 1 ]; then
	expect "the array's request in Extra" "$(field "$a" Extra)" gpu=true
else
	expect "the array's ExcNodeList: the owner's n1" "$(field "$a" ExcNodeList)" "n1"
fi
scancel "$a"

echo "# a heterogeneous job: each component keeps its own request"
# Slurm 22.05 has no --extra of its own: the SPANK option is one per job,
# so both components get the first; from 23.02 each has its own.
second=gpu=false
slurm_at_least 23 2 || second=gpu=true
printf '#!/bin/bash\n#SBATCH --extra=gpu=true\n#SBATCH hetjob\n#SBATCH --extra=%s\ntrue\n' "$second" >/tmp/xc-het.sh
chmod 644 /tmp/xc-het.sh
if [ "$SLURM_FILTERS" = 1 ]; then exc0="(null)" after0="n1" exc1="(null)" after1="n1"
elif [ "$second" = gpu=false ]; then exc0="n[3-4]" after0="n[1,3-4]" exc1="n[1-2]" after1="n[1-2]"
else exc0="n[3-4]" after0="n[1,3-4]" exc1="n[3-4]" after1="n[1,3-4]"; fi
h=$(as "$OWNER" sbatch --parsable -o /dev/null --begin=now+3600 /tmp/xc-het.sh 2>&1)
h=${h%%+*}
rounds 2
expect "component 0 (gpu=true): kept off" "$(kept_off "$h+0")" "$exc0"
expect "component 1 ($second): kept off" "$(kept_off "$h+1")" "$exc1"
out=$(do_action "$OWNER" exc "$h")
expect "the owner's update of the leader: accepted" "$out" "0: "
rounds 2
expect "component 0 after: kept off n1 and its own exclusions" "$(kept_off "$h+0")" "$after0"
expect "component 1 after: kept off n1 and its own exclusions" "$(kept_off "$h+1")" "$after1"
if [ "$SLURM_FILTERS" = 1 ]; then
	expect "component 1 keeps its request" "$(field "$h+1" Extra)" "$second"
else
	expect "component 0: the owner's n1 in its ExcNodeList" "$(field "$h+0" ExcNodeList)" "n1"
	expect "component 1: the owner's n1 in its ExcNodeList" "$(field "$h+1" ExcNodeList)" "n1"
	expect "component 1 keeps its request" "$(admin_comment "$h+1" | grep -oP 'request=\K.*')" "$second"
fi
scancel "$h"
rm -f /tmp/xc-het.sh

echo "# a request set and emptied by scontrol update job=N extra=... (23.02+)"
if slurm_at_least 23 2; then
	b=$(pending)
	out=$(as "$OWNER" scontrol update job="$b" extra=gpu=true 2>&1)
	expect "the owner sets a request on a job submitted without one" "$?: $out" "0: "
	rounds 2
	if [ "$SLURM_FILTERS" = 1 ]; then
		expect "  Slurm's filter: no exclusions" "$(field "$b" ExcNodeList)" "(null)"
	else
		expect "  filtered: kept off n[3-4]" "$(kept_off "$b")" "n[3-4]"
		expect "  its state holds the request" "$(admin_comment "$b" | grep -oP 'request=\K.*')" gpu=true
	fi
	expect "  Extra" "$(field "$b" Extra)" gpu=true
	# (Slurm's own filter refuses an empty extra itself.)
	if [ "$SLURM_FILTERS" = 0 ]; then
		out=$(as "$OWNER" scontrol update job="$b" extra= 2>&1)
		expect "the owner empties it" "$?: $out" "0: "
		rounds 2
		expect "  no longer filtered: kept off the user's list alone (none)" "$(kept_off "$b")" "(null)"
		expect "  its constraint the user's own (none)" "$(field "$b" Features)" "(null)"
		# (the mark kept: the guard reads Extra)
		expect "  its state holds no request" "$(admin_comment "$b" | grep -oP '; request=\K.*')" ""
	fi
	scancel "$b"
else
	echo "skipped: scontrol update job=N extra=...: $(scontrol --version) has no job Extra"
fi

echo "# the caps on distinct pending requests (extra.conf; where the plugin's guard filters)"
if [ "$SLURM_FILTERS" = 0 ]; then
	conf=$XC_STATE/extra.conf
	cp "$conf" "$conf.saved"
	echo MaxPendingRequestsPerUser=2 >>"$conf"
	# (extra.conf is read when the plugin loads: a restart, not a
	# reconfigure, which keeps a job_submit plugin loaded on 22.05)
	bash "$CLUSTER" ctld-restart >/dev/null
	rounds 2 # the look has counted the pending jobs
	a=$(pending --extra gpu=true) || not_ok "a first request: accepted"
	b=$(pending --extra 'gpu=true&tick>=0') || not_ok "a second: accepted"
	out=$(pending --extra gpu=false)
	rc=$?
	expect "a third distinct request of the owner's: refused" "$rc" 1
	expect "  the message names the setting" \
		"$(grep -o 'MaxPendingRequestsPerUser=2' <<<"$out")" MaxPendingRequestsPerUser=2
	c=$(pending --extra gpu=true)
	expect "the owner's request already pending: accepted" "$?" 0
	d=$(as "$OTHER" sbatch --parsable -o /dev/null --begin=now+3600 --extra gpu=false --wrap true 2>&1)
	expect "another user's: accepted" "$?" 0
	scancel "$c" "$d" 2>/dev/null
	mv "$conf.saved" "$conf"
	bash "$CLUSTER" ctld-restart >/dev/null
	rounds 2
	# the same third request with the default caps, beside the same two
	out=$(pending --extra gpu=false)
	expect "with the default caps, the third: accepted" "$?" 0
	scancel "$a" "$b" "$out" 2>/dev/null
else
	echo "skipped: the caps (Slurm's own filter: the plugin does no work per request)"
fi

summary users
