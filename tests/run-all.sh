#!/usr/bin/env bash
# run-all.sh - every test of slurm-extra, from a fresh clone on a fresh
# Debian 12 machine, as root:
#   1. installs the packages it needs, builds and installs (plugins into
#      Slurm's PluginDir, the command into /usr/local/bin);
#   2. make check: the Criterion unit tests (no cluster needed);
#   3. make distcheck: the release tarball builds and passes its tests;
#   4. tests/e2e-cluster.sh: end-to-end on a real local Slurm cluster.
# Closes with "tests: N passed, M failed"; exits non-zero on any failure.
# XC_SKIP_DISTCHECK=1 skips step 3.
set -uo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$SRC"
passed=0
failed=0
status=0

step() { printf '\n=== %s\n' "$*"; }

step "setup: packages, build, install"
bash contrib/local-cluster.sh setup || { echo "setup failed" >&2; exit 1; }

step "unit tests (make check)"
make -s -j"$(nproc)" check >/tmp/slurm-extra-check.log 2>&1 || status=1
for log in tests/test_*.log; do
	line=$(grep -h 'Synthesis' "$log" | tail -1)
	printf '%-24s %s\n' "$(basename "$log" .log)" "$line"
	p=$(grep -oP 'Passing: \K[0-9]+' <<<"$line" || echo 0)
	t=$(grep -oP 'Tested: \K[0-9]+' <<<"$line" || echo 0)
	passed=$((passed + p))
	failed=$((failed + t - p))
	[ -n "$line" ] || failed=$((failed + 1))
done
if [ "$status" != 0 ]; then
	grep -E '^(FAIL|ERROR)' /tmp/slurm-extra-check.log
	cat tests/test-suite.log 2>/dev/null | tail -60
fi

if [ "${XC_SKIP_DISTCHECK:-0}" != 1 ]; then
	step "make distcheck"
	if make -s distcheck >/tmp/slurm-extra-distcheck.log 2>&1; then
		passed=$((passed + 1))
		grep -A1 'archives ready' /tmp/slurm-extra-distcheck.log
	else
		failed=$((failed + 1))
		status=1
		tail -40 /tmp/slurm-extra-distcheck.log
	fi
fi

step "end-to-end on a local Slurm cluster"
bash tests/e2e-cluster.sh | tee /tmp/slurm-extra-e2e.log
[ "${PIPESTATUS[0]}" = 0 ] || status=1
line=$(grep -E '^e2e: [0-9]+ passed, [0-9]+ failed' /tmp/slurm-extra-e2e.log | tail -1)
if [ -n "$line" ]; then
	passed=$((passed + $(grep -oP '[0-9]+(?= passed)' <<<"$line")))
	failed=$((failed + $(grep -oP '[0-9]+(?= failed)' <<<"$line")))
else
	failed=$((failed + 1))
fi

[ "$failed" -eq 0 ] || status=1
printf '\ntests: %d passed, %d failed\n' "$passed" "$failed"
exit "$status"
