# cluster-lib.sh - what the cluster tests share (sourced): checks that
# count, and job helpers.  Expects SLURM_CONF set.
# shellcheck shell=bash

passed=0
failed=0
ok() { passed=$((passed + 1)); printf 'ok   - %s\n' "$1"; }
not_ok() {
	failed=$((failed + 1))
	printf 'FAIL - %s\n' "$1"
	[ -n "${2:-}" ] && sed 's/^/       /' <<<"$2"
	return 0
}
# expect NAME GOT WANT
expect() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "got:  $2"$'\n'"want: $3"; fi; }
# expect_in NAME GOT WORD...
expect_in() {
	local name=$1 got=$2
	shift 2
	for w in "$@"; do [ "$got" = "$w" ] && { ok "$name"; return; }; done
	not_ok "$name" "got: $got; want one of: $*"
}
# expect_has NAME TEXT NEEDLE (fixed string)
expect_has() { if grep -qF -- "$3" <<<"$2"; then ok "$1"; else not_ok "$1" "no '$3' in:"$'\n'"$2"; fi; }

field() { scontrol show job "$1" 2>/dev/null | grep -oP "(?<![A-Za-z])$2=\K\S+" | head -1; }

wait_job() {
	local st
	for _ in $(seq 240); do
		st=$(field "$1" JobState)
		case "$st" in COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL) echo "$st"; return ;; esac
		sleep 0.25
	done
	echo "${st:-UNKNOWN}"
}

# submit ARGS...: prints the job id, or the error text with status 1
submit() { sbatch --parsable -o /dev/null "$@" --wrap 'echo $SLURMD_NODENAME' 2>&1; }

# job_on NAME EXPECTED_EXC NODE... -- ARGS...: submit, check ExcNodeList,
# wait, check the node it ran on is one of NODE...
job_on() {
	local name=$1 exc=$2 nodes=() id
	shift 2
	while [ "$1" != "--" ]; do nodes+=("$1"); shift; done
	shift
	if ! id=$(submit "$@"); then
		not_ok "$name: accepted" "$id"
		return
	fi
	expect "$name: ExcNodeList" "$(field "$id" ExcNodeList)" "$exc"
	expect "$name: completed" "$(wait_job "$id")" COMPLETED
	expect_in "$name: ran on a matching node" "$(field "$id" NodeList)" "${nodes[@]}"
}

# summary NAME: prints "NAME: N passed, M failed"; status 1 if any failed.
summary() {
	printf '\n%s: %d passed, %d failed\n' "$1" "$passed" "$failed"
	[ "$failed" -eq 0 ]
}
