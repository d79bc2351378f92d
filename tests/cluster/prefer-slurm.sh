#!/usr/bin/env bash
# prefer-slurm.sh - what Slurm alone does with a preferred node, the
# reference for preferences by Extra: `--prefer` with a node feature (one
# tier, Slurm 22.05+) and `--constraint` (a hard wish), as an unprivileged
# user (xcuser1), on the local cluster (4 one-CPU nodes, no job_submit
# plugin, no burst_buffer/extra).  Figures printed, never asserted
# (doc/preferences.md, "Preferences").
#
# The feature `cached` is on n2 alone (scontrol update node), each job
# runs `sleep 3`; "n2 busy" is root's job of XC_PREFER_FILL seconds
# (default 40) on n2, started anew for each case.  Cases:
# - plain:  all nodes idle, no options (the baseline);
# - free:   n2 idle, `--prefer=cached`;
# - busy:   n2 busy, `--prefer=cached`;
# - hard:   n2 busy, `--constraint=cached`;
# - narrow: n2 idle, `--exclude=n1,n3,n4` (the nodes not preferred);
# - widen:  n2 busy, `--exclude=n1,n3,n4`, and 5 s after the submission
#           the owner clears the job's ExcNodeList (scontrol update): what
#           a wait of 5 s would do by hand;
# - none:   `--prefer=nosuch`, a feature no node has.
# For each: where the job ran and the seconds from its submission until it
# ran (or what sbatch said, or the state it ended in without running); for
# the busy cases also when n2 was freed.  The cluster: sched/backfill with
# Slurm's defaults (bf_interval 30 s), batch_sched_delay=0, no
# PrologSlurmctld.  Uses the installed Slurm (XC_SLURM_PREFIX as for the
# other cluster tests).
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
cluster_test prefer-slurm.sh
export XC_JOB_SUBMIT='' XC_BURST_BUFFER='' XC_CPUS=1 XC_SCHED_PARAMS=batch_sched_delay=0
FILL=${XC_PREFER_FILL:-40}
cluster_start >/dev/null

scontrol update nodename=n2 availablefeatures=cached activefeatures=cached ||
	{ echo "prefer-slurm: cannot give n2 the feature cached" >&2; exit 1; }

# started ID T0: prints "NODE SECONDS" once job ID runs (SECONDS from T0,
# in date +%s.%N), the state it ended in without running, or "pending 60+"
# after 60 s.
started() {
	local id=$1 t0=$2 state
	for _ in $(seq 600); do
		state=$(field "$id" JobState)
		case $state in
		RUNNING | COMPLETING | COMPLETED)
			awk -v n="$(field "$id" NodeList)" -v t0="$t0" -v t1="$(date +%s.%N)" 'BEGIN { printf "%s %.1f\n", n, t1 - t0 }'
			return
			;;
		FAILED | CANCELLED | TIMEOUT | NODE_FAIL | BOOT_FAIL | DEADLINE | OUT_OF_MEMORY)
			echo "$state without running"
			return
			;;
		esac
		sleep 0.1
	done
	echo "pending 60+"
}

# one NAME [--widen-after S] ARGS...: submits `sleep 3` as xcuser1 with
# ARGS, prints a row; --widen-after: the owner clears the job's
# ExcNodeList S seconds after the submission.
one() {
	local name=$1 t0 out id widen=
	shift
	if [ "${1:-}" = --widen-after ]; then
		widen=$2
		shift 2
	fi
	t0=$(date +%s.%N)
	out=$(as xcuser1 sbatch --parsable -o /dev/null "$@" --wrap 'sleep 3' 2>&1)
	id=$(tail -n 1 <<<"$out")
	if ! [[ $id =~ ^[0-9]+$ ]]; then
		printf '  %-6s %-44s refused: %s\n' "$name" "$*" "$out"
		return
	fi
	if [ -n "$widen" ]; then
		sleep "$widen"
		as xcuser1 scontrol update job="$id" excnodelist= ||
			echo "prefer-slurm: the owner could not clear job $id's ExcNodeList" >&2
	fi
	printf '  %-6s %-44s %s%s\n' "$name" "$*${widen:+, cleared at ${widen} s}" "$(started "$id" "$t0")" \
		"${FILLED:+ (n2 freed at $(awk -v f="$FILLED" -v t0="$t0" 'BEGIN { printf "%.1f", f - t0 }') s)}"
}

# busy_n2: root's job of FILL seconds on n2, running; FILLED: when it
# will end (date +%s.%N).
FILLED=
busy_n2() {
	local id
	id=$(sbatch --parsable -o /dev/null -w n2 --wrap "sleep $FILL")
	wait_for 30 eval '[ "$(field "$id" JobState)" = RUNNING ]' ||
		{ echo "prefer-slurm: the job filling n2 did not start" >&2; exit 1; }
	FILLED=$(awk -v t="$(date +%s.%N)" -v d="$FILL" 'BEGIN { printf "%.3f", t + d }')
}
# idle: no job left, n2 free.
idle() {
	scancel -u xcuser1
	scancel -u root
	wait_for 60 queue_empty || { echo "prefer-slurm: the queue did not empty" >&2; exit 1; }
	FILLED=
}

echo "# $(slurmctld -V): Slurm alone, n2 the only node with the feature cached"
printf '  %-6s %-44s %s\n' case options "ran on, seconds after submission"
one plain
idle
one free --prefer=cached
idle
busy_n2
one busy --prefer=cached
idle
busy_n2
one hard --constraint=cached
idle
one narrow --exclude=n1,n3,n4
idle
busy_n2
one widen --widen-after 5 --exclude=n1,n3,n4
idle
one none --prefer=nosuch
