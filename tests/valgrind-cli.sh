#!/usr/bin/env bash
# valgrind-cli.sh - the slurm-extra command under valgrind over the test
# inputs (every seed of the fuzz targets, i.e. every unit test input, plus
# each subcommand and its error paths).  Any memory error or leak fails.
# Needs the tree built (make check).  Closes with
# "valgrind: N passed, M failed".
set -uo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CLI="$SRC/contrib/slurm-extra"
EX="$SRC/contrib/examples/nodes.json"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# vg NAME ARGS...: runs the CLI under valgrind (standard input: $VG_IN or
# /dev/null); exit codes of the CLI itself (0, 1, 2) are fine, valgrind's
# (99) or any report is not.  Prints "ok" or the report.
vg() {
	local name=$1 rc log
	shift
	log=$(mktemp "$TMP/vg.XXXXXX")
	valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect \
		--log-file="$log" "$CLI" "$@" <"${VG_IN:-/dev/null}" >/dev/null 2>&1
	rc=$?
	if [ "$rc" = 99 ] || [ -s "$log" ]; then
		echo "FAIL - $name"
		head -20 "$log"
	else
		echo ok
	fi
	rm -f "$log"
}

# one KIND FILE: one run over a seed file (for xargs -P).
one() {
	local f=$2
	case $1 in
	check) vg "check $f" check --max-length 100000 -- "$(cat "$f")" ;;
	explain) vg "explain $f" explain -- "$(head -n1 "$f")" --extra "$(tail -n +2 "$f")" ;;
	to-flux) vg "to-flux $f" to-flux -- "$(head -n1 "$f")" ;;
	from-flux) VG_IN=$f vg "from-flux $f" from-flux - ;;
	esac
}
export -f vg one
export CLI TMP

command -v valgrind >/dev/null || { echo "valgrind-cli.sh: install valgrind" >&2; exit 2; }
for t in parse eval from_flux; do
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
	VG_IN="$TMP/batch.jsonl" vg "eval --batch over $(wc -l <"$TMP/batch.jsonl") lines" eval --batch
	vg "eval --nodes" eval 'gpu=true&mem>=512' --nodes "$EX" -v
	vg "eval --nodes, no match" eval 'mem>9999' --nodes "$EX"
	vg "to-flux --resolve --jobspec" to-flux 'gpu=true' --resolve --nodes "$EX" --jobspec
	echo '{"attributes":{"system":{"duration":0.1,"constraints":{"properties":["a"]}}}}' >"$TMP/js.json"
	vg "to-flux --jobspec FILE" to-flux 'a=1' --jobspec "$TMP/js.json"
	vg "bad nodes file" eval 'a=1' --nodes /nonexistent
	vg "usage error" frobnicate
	{
		for f in "$TMP"/parse/*; do echo "check $f"; done
		for f in "$TMP"/eval/*; do echo "explain $f"; echo "to-flux $f"; done
		for f in "$TMP"/from_flux/*; do echo "from-flux $f"; done
	} | xargs -P "$(nproc)" -L1 bash -c 'one "$0" "$1"'
} >"$TMP/results"
passed=$(grep -c '^ok$' "$TMP/results")
failed=$(grep -c '^FAIL' "$TMP/results")
grep -v '^ok$' "$TMP/results" | head -40

printf '\nvalgrind: %d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
