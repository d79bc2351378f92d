#!/usr/bin/env bash
# run-fuzzers.sh [SECONDS] - runs each libFuzzer target for SECONDS
# (default 30) and prints, per target, the executions, the time and the
# crashes.  Builds the targets with clang (--enable-fuzzing) in a clean
# copy of the tree under $XC_FUZZ_WORK (default /tmp/slurm-extra-fuzz);
# the seeds are the unit tests' inputs, written by the replay programs of
# the ordinary build (so build the tree first), plus tests/fuzz/corpus.
# A crash stops with status 1 and leaves the input in $XC_FUZZ_WORK/crashes;
# copy it into tests/fuzz/corpus/<target>/ once fixed, as a regression.
set -uo pipefail

SECONDS_EACH=${1:-30}
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=${XC_FUZZ_WORK:-/tmp/slurm-extra-fuzz}
TARGETS=(parse eval from_flux round_trip shape)

for t in "${TARGETS[@]}"; do
	[ -x "$SRC/tests/fuzz/replay_$t" ] || {
		echo "run-fuzzers: build the tree first (make check builds tests/fuzz/replay_$t)" >&2
		exit 2
	}
done

rm -rf "$WORK"
mkdir -p "$WORK/crashes"
# A clean copy: a tree configured in place cannot host a second build.
(cd "$SRC" && tar --exclude=.git -cf - .) | (mkdir -p "$WORK/src" && cd "$WORK/src" && tar -xf -)
cd "$WORK/src" || exit 2
make -s distclean >/dev/null 2>&1 || true
[ -x configure ] || ./bootstrap >/dev/null 2>&1
if ! CC=clang ./configure --quiet --enable-fuzzing >"$WORK/configure.log" 2>&1; then
	tail -5 "$WORK/configure.log" >&2
	exit 2
fi
make -s -j"$(nproc)" "${TARGETS[@]/#/tests/fuzz/fuzz_}" >"$WORK/build.log" 2>&1 || {
	tail -20 "$WORK/build.log" >&2
	exit 2
}

status=0
for t in "${TARGETS[@]}"; do
	corpus="$WORK/corpus/$t"
	mkdir -p "$corpus"
	"$SRC/tests/fuzz/replay_$t" --write-seeds "$corpus" >/dev/null
	find "$SRC/tests/fuzz/corpus/$t" -type f ! -name '.*' -exec cp {} "$corpus/" \;
	log="$WORK/fuzz_$t.log"
	./tests/fuzz/fuzz_$t "$corpus" -max_total_time="$SECONDS_EACH" \
		-timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
		-artifact_prefix="$WORK/crashes/$t-" >"$log" 2>&1
	rc=$?
	execs=$(grep -oP 'stat::number_of_executed_units:\s*\K[0-9]+' "$log" | tail -1)
	crashes=$(find "$WORK/crashes" -name "$t-*" | wc -l)
	printf 'fuzz_%-11s %10s executions in %3s s, corpus %5s inputs, %s crashes\n' \
		"$t" "${execs:-?}" "$SECONDS_EACH" "$(find "$corpus" -type f | wc -l)" "$crashes"
	if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
		status=1
		echo "FAIL fuzz_$t (exit status $rc, $crashes crashes)"
		grep -E 'ERROR|property failed|SUMMARY' "$log" | head -5
		find "$WORK/crashes" -name "$t-*" -exec echo "  input: {}" \;
	fi
done
exit "$status"
