#!/usr/bin/env bash
# carrier-grammar.sh - what the feature carrier takes from Slurm's feature
# grammar, checked on the real local cluster (doc/thread.md, "Carriers";
# slurm/carrier.h): with the plugin's feature F on some nodes, a job whose
# constraint is the user's own with "&F" appended may be placed only on
# nodes that satisfy both, for every form sx_constraint_with() writes (OR,
# parentheses, matching OR, commas); a feature no node has is refused at
# submission (so the plugin may AND only a feature that some node carries);
# a constraint with node counts does not AND a term outside them (printed:
# sx_constraint_with() refuses counts whatever Slurm does); what a
# submission naming a feature that left every node gets (printed); the
# features set by `scontrol update node` are gone after `scontrol
# reconfigure`.
# Each node is asked alone: `sbatch --test-only -w NODE`, which Slurm
# answers by its own placement code without starting a job.
# Closes with "carrier-grammar: N passed, M failed".
# Needs root, `make install` and `make check` (tests/cluster/slurm-helper).
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
cluster_test carrier-grammar.sh
cluster_start >/dev/null

# Names of the plugin's length (slurm/carrier.h) but not its prefix: the
# plugin's thread takes a name of its own shape off any node that no job
# of its wants (doc/thread.md "Carriers").
F=xt_0123456789ab # the feature standing for a request
G=xt_ba9876543210 # one that no node has

# features NODE LIST: the node's available and active features (both: an
# update that takes an active feature away must name the new active ones,
# _valid_features_act() in src/slurmctld/node_mgr.c).
features() { scontrol update nodename="$1" availablefeatures="$2" activefeatures="$2"; }
# allowed CONSTRAINT [sbatch options]: the nodes Slurm would place a
# one-node job with CONSTRAINT on, each asked alone, space-separated.
allowed() {
	local c=$1 n on=()
	shift
	for n in n1 n2 n3 n4; do
		sbatch --test-only -w "$n" --constraint="$c" "$@" --wrap true >/dev/null 2>&1 && on+=("$n")
	done
	echo "${on[*]}"
}
# refusal CONSTRAINT: Slurm's answer to a held submission with CONSTRAINT
# (a job it accepted is cancelled).
refusal() {
	local a
	a=$(sbatch --parsable --hold --constraint="$1" --wrap true 2>&1 | tr -d '\n')
	[[ $a =~ ^[0-9]+$ ]] && scancel "$a"
	echo "$a"
}

features n1 "a,$F"
features n2 "b,$F"
features n3 a
features n4 b
expect "the nodes carry the features" "$(sinfo -h -N -o '%N %f' | sort -u | tr '\n' ' ')" \
	"n1 a,$F n2 b,$F n3 a n4 b "

echo "# the user's own constraint, then &F: placed only where both hold"
expect "F alone" "$(allowed "$F")" "n1 n2"
expect "a&F" "$(allowed "a&$F")" "n1"
expect "a|b&F: left to right, (a|b)&F" "$(allowed "a|b&$F")" "n1 n2"
expect "(a|b)&F" "$(allowed "(a|b)&$F")" "n1 n2"
expect "a,b&F: a comma is an AND" "$(allowed "a,b&$F")" ""
expect "[a|b]&F: matching OR, no counts" "$(allowed "[a|b]&$F")" "n1 n2"
expect "b&(a|b)&F" "$(allowed "b&(a|b)&$F")" "n2"
expect "without F, the user's own alone (the baseline)" "$(allowed "a|b")" "n1 n2 n3 n4"

echo "# a feature no node carries is refused at submission"
expect_has "a feature no node has: refused" "$(refusal "$G")" "Invalid feature specification"
expect_has "ANDed with the user's: refused too" "$(refusal "a&$G")" "Invalid feature specification"

echo "# node counts: Slurm does not AND a term outside them (printed, not asserted)"
out=$(sbatch --test-only -N2 -w n3,n4 --constraint="[a*1&b*1]&$F" --wrap true 2>&1 | tr -d '\n')
echo "  [a*1&b*1]&F on n3,n4 (neither carries F): $out"

echo "# a feature that left every node (printed, not asserted: the carrier ANDs only a feature some node carries)"
features n1 a
features n2 b
for how in --hold ""; do
	out=$(sbatch --parsable $how --constraint="$F" --wrap true 2>&1 | tr -d '\n')
	if [[ $out =~ ^[0-9]+$ ]]; then
		wait_for 10 eval '[ "$(squeue -h -j "$out" -o %r)" != None ]' ||
			echo "  (still no reason after 10 s)"
		echo "  submitted ${how:-without --hold}: accepted, pending ($(squeue -h -j "$out" -o %r))"
		scancel "$out"
	else
		echo "  submitted ${how:-without --hold}: $out"
	fi
done

echo "# scontrol reconfigure drops what scontrol update node set"
features n1 "a,$F"
scontrol reconfigure
wait_for 30 eval '[ "$(sinfo -h -n n1 -o %f 2>/dev/null | sort -u)" = "(null)" ]'
expect "n1's features after reconfigure: slurm.conf's (none)" "$(sinfo -h -n n1 -o %f | sort -u)" "(null)"

summary carrier-grammar
