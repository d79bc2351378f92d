#!/usr/bin/env bash
# valgrind-cli.sh - the slurm-extra command under valgrind over the test
# inputs (every seed of the fuzz targets, i.e. every unit test input, plus
# each subcommand and its error paths).  Any memory error or leak fails;
# so does a wrong answer: every run also checks the command's exit status
# and its output, against an expectation written here for the named runs,
# against a plain run (the same command without valgrind) for the seeds.
# A memory check that passed with a crash or a wrong answer would prove
# nothing.  Needs the tree built (make check).  Closes with
# "valgrind: N passed, M failed".
set -uo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CLI="$SRC/cmd/slurm-extra"
EX="$SRC/contrib/examples/nodes.json"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir "$TMP/res"

# run DIR HOW ARGS...: runs the CLI (HOW: vg under valgrind, plain without)
# with standard input $VG_IN or /dev/null; DIR/HOW.out gets its stdout,
# DIR/HOW.err its stderr, DIR/HOW.rc its exit status, DIR/vg.log
# valgrind's report.  stdout and stderr apart: an answer on the wrong one
# is a wrong answer.
run() {
	local d=$1 how=$2
	shift 2
	if [ "$how" = vg ]; then
		valgrind -q --error-exitcode=99 --leak-check=full \
			--errors-for-leak-kinds=definite,indirect \
			--log-file="$d/vg.log" "$CLI" "$@" \
			<"${VG_IN:-/dev/null}" >"$d/vg.out" 2>"$d/vg.err"
	else
		"$CLI" "$@" <"${VG_IN:-/dev/null}" >"$d/plain.out" 2>"$d/plain.err"
	fi
	echo $? >"$d/$how.rc"
}

# A run's verdict: WHY collects what differed (one phrase each, for the
# FAIL line), DETAIL what to show under it.
WHY=() DETAIL=''
differs() { WHY+=("$1"); }
# show FILE LABEL: up to 10 lines of FILE (300 characters each) for DETAIL,
# indented so that no line of it reads as "ok" or "FAIL".
show() {
	DETAIL+="  $2:"$'\n'
	if [ -s "$1" ]; then
		DETAIL+=$(head -n 10 "$1" | cut -c 1-300 | sed 's/^/    | /')$'\n'
	else
		DETAIL+="    (empty)"$'\n'
	fi
}
# memory DIR: valgrind's verdict (exit status 99 or any report fails).
memory() {
	if [ "$(cat "$1/vg.rc")" = 99 ] || [ -s "$1/vg.log" ]; then
		differs "valgrind report"
		DETAIL+=$(head -20 "$1/vg.log" | sed 's/^/  /')$'\n'
	fi
}
# status_ok DIR: the CLI's own statuses (0 valid or match, 1 no match,
# 2 invalid) and no other: a crash (139), an abort (134) or valgrind's 99
# fails.
status_ok() {
	local rc
	rc=$(cat "$1/vg.rc")
	case $rc in
	0 | 1 | 2) ;;
	*) differs "exit status $rc, not 0, 1 or 2" ;;
	esac
}
# same DIR: the valgrind run answers byte for byte as the plain run (exit
# status, stdout, stderr); a difference shows both.
same() {
	local d=$1 p v
	p=$(cat "$d/plain.rc") v=$(cat "$d/vg.rc")
	[ "$p" = "$v" ] || differs "exit status $v under valgrind, $p without"
	if ! cmp -s "$d/plain.out" "$d/vg.out"; then
		differs "stdout differs from the plain run"
		show "$d/plain.out" "stdout without valgrind"
		show "$d/vg.out" "stdout under valgrind"
	fi
	if ! cmp -s "$d/plain.err" "$d/vg.err"; then
		differs "stderr differs from the plain run"
		show "$d/plain.err" "stderr without valgrind"
		show "$d/vg.err" "stderr under valgrind"
	fi
}
# run_both DIR ARGS...: the plain run and the valgrind run of ARGS in DIR,
# and valgrind's verdict (memory).
run_both() {
	local d=$1
	shift
	run "$d" plain "$@"
	run "$d" vg "$@"
	memory "$d"
}
# verdict NAME DIR: "ok", or "FAIL - NAME: what differed" and the detail.
verdict() {
	local why
	if [ ${#WHY[@]} -eq 0 ]; then
		echo ok
	else
		why=$(printf '%s; ' "${WHY[@]}")
		echo "FAIL - $1: ${why%; }"
		printf '%s' "$DETAIL"
	fi
	rm -rf "$2"
}

# vg NAME WANT_RC WANT_OUT WANT_ERR ARGS...: one run under valgrind whose
# answer is known: exit status WANT_RC, stdout exactly WANT_OUT (a newline
# after it unless empty), first line of stderr exactly WANT_ERR (WANT_ERR
# empty: nothing on stderr).
vg() {
	local name=$1 want_rc=$2 want_out=$3 want_err=$4 d rc
	shift 4
	WHY=() DETAIL=''
	d=$(mktemp -d "$TMP/run.XXXXXX")
	run "$d" vg "$@"
	memory "$d"
	rc=$(cat "$d/vg.rc")
	[ "$rc" = "$want_rc" ] || differs "exit status $rc, want $want_rc"
	if [ -n "$want_out" ]; then printf '%s\n' "$want_out"; fi >"$d/want.out"
	if ! cmp -s "$d/want.out" "$d/vg.out"; then
		differs "stdout not as expected"
		show "$d/want.out" "stdout expected"
		show "$d/vg.out" "stdout"
	fi
	if [ -n "$want_err" ]; then printf '%s\n' "$want_err"; fi >"$d/want.err"
	if ! cmp -s "$d/want.err" <(if [ -n "$want_err" ]; then head -n 1 "$d/vg.err"; else cat "$d/vg.err"; fi); then
		differs "stderr not as expected"
		show "$d/want.err" "stderr expected (first line)"
		show "$d/vg.err" "stderr"
	fi
	verdict "$name" "$d"
}

# vg_same NAME ARGS...: a run whose right answer is what the command says
# without valgrind (the seeds: too many to write down, and the unit tests
# and replays check the answers): the valgrind run and a plain run of the
# same command, in the same job, must agree byte for byte, and the status
# be 0, 1 or 2.
vg_same() {
	local name=$1 d
	shift
	WHY=() DETAIL=''
	d=$(mktemp -d "$TMP/run.XXXXXX")
	run_both "$d" "$@"
	status_ok "$d"
	same "$d"
	verdict "$name" "$d"
}

# vg_batch NAME ARGS...: eval --batch over $VG_IN: one line of answer per
# line of input, exit status 0 (an error in a line is that line's answer,
# not the batch's), and the same answers as the plain run.
vg_batch() {
	local name=$1 d rc lines want
	shift
	WHY=() DETAIL=''
	d=$(mktemp -d "$TMP/run.XXXXXX")
	run_both "$d" "$@"
	rc=$(cat "$d/vg.rc")
	[ "$rc" = 0 ] || differs "exit status $rc, want 0"
	lines=$(wc -l <"$d/vg.out") want=$(wc -l <"$VG_IN")
	[ "$lines" = "$want" ] || differs "$lines lines of output for $want of input"
	same "$d"
	verdict "$name" "$d"
}

# one KIND FILE: one run over a seed file (for xargs -P); its verdict goes
# to a file of its own, so that parallel jobs' lines never interleave.
one() {
	local f=$2
	case $1 in
	check) vg_same "check $f" check --max-length 100000 -- "$(cat "$f")" ;;
	# the options before '--', which ends them (a request may start with '-')
	explain) vg_same "explain $f" explain --node-extra "$(tail -n +2 "$f")" -- "$(head -n1 "$f")" ;;
	to-flux) vg_same "to-flux $f" to-flux -- "$(head -n1 "$f")" ;;
	from-flux) VG_IN=$f vg_same "from-flux $f" from-flux - ;;
	shape) vg_same "jobspec --shape $f" jobspec --any-shape --shape "$(cat "$f")" -t 5m --extra 'a=1' --env-remove '*' -- app x ;;
	esac >"$(mktemp "$TMP/res/XXXXXX")"
}
export -f run run_both differs show memory status_ok same verdict vg vg_same one
export CLI TMP

command -v valgrind >/dev/null || { echo "valgrind-cli.sh: install valgrind" >&2; exit 2; }
for t in parse eval from_flux shape; do
	"$SRC/tests/fuzz/replay_$t" --write-seeds "$TMP/$t" >/dev/null || exit 2
done

# Every request input: parsed, evaluated (one batch), checked; every eval
# input explained and translated; every RFC 31 input read back.
: >"$TMP/batch.jsonl"
for f in "$TMP"/parse/*; do
	jq -nc --rawfile r "$f" '{extra: "{\"a\": 1.23, \"b\": true, \"foo\": \"bar\"}", expr: $r}' \
		>>"$TMP/batch.jsonl"
done
{
	VG_IN="$TMP/batch.jsonl" vg_batch "eval --batch over $(wc -l <"$TMP/batch.jsonl") lines" eval --batch
	# The answers, from contrib/examples/nodes.json: gpu=true on n1, n3,
	# n4; mem 1024, 2048, 256, 512.  So gpu=true&mem>=512 is n1 and n4
	# (-v says 2 of the 4 nodes on stderr); no node has mem>9999 (exit 1,
	# never an empty answer); gpu=true resolves to n[1,3-4].
	vg "eval --nodes" 0 'n[1,4]' 'slurm-extra: 2 of 4 nodes match' \
		eval 'gpu=true&mem>=512' --nodes "$EX" -v
	vg "eval --nodes, no match" 1 '' 'slurm-extra: no node satisfies the request (4 checked)' \
		eval 'mem>9999' --nodes "$EX"
	vg "to-flux --resolve --jobspec" 0 '{"attributes":{"system":{"constraints":{"hostlist":["n[1,3-4]"]}}}}' '' \
		to-flux 'gpu=true' --resolve --nodes "$EX" --jobspec
	# A jobspec FILE keeps the rest of the file (the duration) and ANDs its
	# own constraint with the request.
	echo '{"attributes":{"system":{"duration":0.1,"constraints":{"properties":["a"]}}}}' >"$TMP/js.json"
	vg "to-flux --jobspec FILE" 0 '{"attributes":{"system":{"duration":0.1,"constraints":{"and":[{"properties":["a"]},{"extra":["a=1"]}]}}}}' '' \
		to-flux 'a=1' --jobspec "$TMP/js.json"
	vg "bad nodes file" 2 '' 'slurm-extra: error: cannot read /nonexistent: unable to open /nonexistent: No such file or directory' \
		eval 'a=1' --nodes /nonexistent
	# --within - reads the hostlist on standard input, a name a line as
	# well (whitespace separates as ',' does): n1 and n4 of the example.
	printf 'n1\n\nn4 \n' >"$TMP/within.txt"
	VG_IN="$TMP/within.txt" vg "eval --within -" 0 'n[1,4]' 'slurm-extra: 2 of 2 nodes within --within match' \
		eval 'gpu=true' --nodes "$EX" --within - -v
	VG_IN="$TMP/within.txt" vg "why --within -" 0 $'request: gpu=true&mem>=512\n2 of 2 nodes satisfy it: n[1,4]\n  gpu=true                       2 of 2 nodes\n  mem>=512                       2 of 2 nodes' '' \
		why 'gpu=true&mem>=512' --nodes "$EX" --within -
	# facts with a site file and a hook (the same answer as without
	# valgrind: hwloc's x86 component, which cannot run under valgrind and
	# says so, is left out of both), and a hook that prints garbage.
	mkdir "$TMP/site" "$TMP/badsite"
	echo '{"rack": "r1", "row": 2}' >"$TMP/site/10-rack.json"
	printf '#!/bin/sh\necho "{\\"app\\": true}"\n' >"$TMP/site/20-hook"
	printf '#!/bin/sh\necho garbage\n' >"$TMP/badsite/hook"
	chmod 755 "$TMP/site/20-hook" "$TMP/badsite/hook"
	HWLOC_COMPONENTS=-x86 vg_same "facts --dir (a file and a hook)" facts --dir "$TMP/site"
	HWLOC_COMPONENTS=-x86 vg "facts, a hook printing garbage" 2 '' \
		"slurm-extra: site hook $TMP/badsite/hook: not JSON (unexpected character, at byte 0); nothing printed" \
		facts --dir "$TMP/badsite"
	# Usage errors: exit 2, the reason, then the usage on stderr.
	# jobspec from Slurm's options, with a resolved constraint (no
	# environment: valgrind adds to it); a shape jobspec V1 refuses
	vg_same "jobspec -N2 -n3 -c2 --gpus-per-task 1 --extra --resolve" \
		jobspec -N2 -n3 -c2 --gpus-per-task 1 -t 1:00:00 --extra 'gpu=true' --resolve --nodes "$EX" --env-remove '*' -- app
	vg "jobspec, not V1" 2 '' \
		"slurm-extra: --shape: not jobspec V1 (RFC 25): \$[0].with[0]: 'node' where jobspec V1 has core or gpu (RFC 25: node>slot>core[,gpu] or slot>core[,gpu]) (--any-shape writes it all the same)" \
		jobspec --shape 'slot=4/node' -- app
	vg "usage error, unknown command" 2 '' "slurm-extra: unknown command 'frobnicate'" \
		frobnicate x
	vg "usage error, unknown command alone" 2 '' "slurm-extra: unknown command 'frobnicate'" \
		frobnicate
	vg "usage error, no request" 2 '' 'slurm-extra: check needs a REQUEST' \
		check
	vg "usage error, --batch is eval's" 2 '' 'slurm-extra: why needs a REQUEST' \
		why --batch
	{
		for f in "$TMP"/parse/*; do echo "check $f"; done
		for f in "$TMP"/eval/*; do echo "explain $f"; echo "to-flux $f"; done
		for f in "$TMP"/from_flux/*; do echo "from-flux $f"; done
		for f in "$TMP"/shape/*; do echo "shape $f"; done
	} | xargs -P "$(nproc)" -L1 bash -c 'one "$0" "$1"'
	cat "$TMP"/res/*
} >"$TMP/results"
passed=$(grep -c '^ok$' "$TMP/results")
failed=$(grep -c '^FAIL' "$TMP/results")
grep -v '^ok$' "$TMP/results" | head -60

printf '\nvalgrind: %d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
