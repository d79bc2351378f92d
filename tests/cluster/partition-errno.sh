#!/usr/bin/env bash
# partition-errno.sh - how Slurm answers a user's change of a pending
# job's partition on a cluster without accounting, where _update_job()
# answers a stale errno (doc/design.md "Slurm's own defects the plugin
# works around"): with JobSubmitPlugins=extra (and burst_buffer/extra
# filtering, or where it is not installed Slurm's own filter,
# extra_constraints, 23.11+) and with no plugin, xcuser1's pending job
# (--begin in an hour, --extra gpu=true where the plugin runs) is moved
# between partitions debug and other XC_CHANGES times (default 40), each
# change asked until it is made.  Prints, for each, the changes asked,
# the answers "Resource temporarily unavailable" (EAGAIN, the change not
# made) and any other refusal.  Figures printed, never asserted.  Uses
# the installed Slurm (XC_SLURM_PREFIX as for the other cluster tests).
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
cluster_test partition-errno.sh
export XC_USERS=xcuser1 XC_PARTITIONS=2
CHANGES=${XC_CHANGES:-40}
# where nothing filters the plugin refuses --extra: Slurm's own filter then
if ! guard_loaded; then
	if ! slurm_at_least 23 11; then
		echo "skipped: partition changes with the plugin: nothing filters by --extra here (burst_buffer_extra.so not installed; $(scontrol --version) has no extra_constraints)"
		exit 0
	fi
	export XC_SCHED_PARAMS=batch_sched_delay=0,extra_constraints
fi
trap 'bash "$CLUSTER" stop >/dev/null 2>&1' EXIT

for plugin in extra ''; do
	XC_JOB_SUBMIT=$plugin XC_BURST_BUFFER=${plugin:+${XC_BURST_BUFFER:-}} bash "$CLUSTER" start >/dev/null || exit 1
	opts=(--partition=debug)
	[ -n "$plugin" ] && opts+=(--extra gpu=true)
	j=$(as xcuser1 sbatch --parsable -o /dev/null --begin=now+3600 "${opts[@]}" --wrap true 2>&1)
	asked=0 again=0 other=0
	for i in $(seq "$CHANGES"); do
		[ $((i % 2)) = 1 ] && to=other || to=debug
		for _ in $(seq 100); do # each change asked until made (100 at most)
			asked=$((asked + 1))
			out=$(as xcuser1 scontrol update job="$j" Partition="$to" 2>&1)
			case "$out" in
			"") break ;;
			*"Resource temporarily unavailable"*) again=$((again + 1)) ;;
			*) other=$((other + 1)); echo "  refused: $out"; break ;;
			esac
		done
	done
	printf 'JobSubmitPlugins=%s: %d changes, %d asks, %d EAGAIN (not made), %d other refusals; partition now %s\n' \
		"${plugin:-(none)}" "$CHANGES" "$asked" "$again" "$other" \
		"$(field "$j" Partition)"
	scancel "$j"
	bash "$CLUSTER" stop >/dev/null 2>&1
done
