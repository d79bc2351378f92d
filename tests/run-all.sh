#!/usr/bin/env bash
# run-all.sh - every test of slurm-extra, from a fresh clone on a fresh
# Debian 12 machine, as root (CI runs exactly this):
#   1. installs the packages, builds and installs (plugins into Slurm's
#      PluginDir, the command into /usr/local/bin); checks the formatting
#      (clang-format 14, .clang-format);
#   2. make check: the Criterion unit tests and the fuzz corpus replay;
#   3. the same unit tests built with ASan and UBSan (a leak fails a test);
#   4. make distcheck;
#   5. each libFuzzer target for XC_FUZZ_SECONDS (default 20);
#   6. the command under valgrind over every test input;
#   7. end to end on a real local Slurm cluster: placement, waiting, every
#      job action by two unprivileged users and root (e2e-users), faults, load
#      (XC_LOAD_JOBS submissions, default 400; the full form is
#      `bash tests/load.sh 2000`);
#   8. the Debian package: built with dpkg-buildpackage from a copy of the
#      tree, installed in place of step 1's install, and the end-to-end
#      placement and wait tests run against it (tests/package-deb.sh);
#   9. the build and the tests left the tree as git has it.
# Closes with "tests: N passed, M failed"; exits non-zero on any failure.
# XC_QUICK=1 runs steps 1, 2 and 7 only.  XC_SLURM_PREFIX=PREFIX runs
# against the Slurm installed there (step 8 is then skipped: the package
# is built against the system's Slurm).
set -uo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$SRC"
LOGS=/tmp/slurm-extra-tests
rm -rf "$LOGS"
mkdir -p "$LOGS"
passed=0
failed=0
status=0

step() { printf '\n=== %s\n' "$*"; }
# Adds the "N passed, M failed" closing line of log $1 to the totals.
count() {
	local line
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$1" | tail -1)
	if [ -z "$line" ]; then
		failed=$((failed + 1))
		status=1
		return
	fi
	passed=$((passed + $(grep -oP '[0-9]+(?= passed)' <<<"$line")))
	failed=$((failed + $(grep -oP '[0-9]+(?= failed)' <<<"$line")))
}
# Adds the Criterion and replay results of a build's tests/ to the totals.
count_unit() {
	local dir=$1 label=$2 log line p t
	for log in "$dir"/tests/test_*.log; do
		line=$(grep -h 'Synthesis' "$log" | tail -1)
		printf '%-10s %-22s %s\n' "$label" "$(basename "$log" .log)" "$line"
		p=$(grep -oP 'Passing: \K[0-9]+' <<<"$line" || echo 0)
		t=$(grep -oP 'Tested: \K[0-9]+' <<<"$line" || echo 0)
		passed=$((passed + p))
		failed=$((failed + t - p))
		[ -n "$line" ] || failed=$((failed + 1))
		# every test passed but the program failed (a leak found at
		# exit by the sanitizers): one failure more
		if [ -n "$line" ] && [ "$p" = "$t" ] &&
			grep -q ':test-result: FAIL' "${log%.log}.trs" 2>/dev/null; then
			printf '%-10s %-22s %s\n' "$label" "$(basename "$log" .log)" "FAILED at exit (see its log)"
			failed=$((failed + 1))
		fi
	done
	for log in "$dir"/tests/check-*.log; do
		[ -f "$log" ] || continue
		line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
		printf '%-10s %-22s %s\n' "$label" "$(basename "$log" .log)" "${line:-FAILED}"
		if [ -n "$line" ]; then
			passed=$((passed + $(grep -oP '[0-9]+(?= passed)' <<<"$line")))
			failed=$((failed + $(grep -oP '[0-9]+(?= failed)' <<<"$line")))
		else
			failed=$((failed + 1))
		fi
	done
	for log in "$dir"/tests/fuzz/replay_*.log; do
		[ -f "$log" ] || continue
		line=$(grep -h 'inputs replayed' "$log")
		printf '%-10s %-22s %s\n' "$label" "$(basename "$log" .log)" "${line:-FAILED}"
		if grep -q ':test-result: PASS' "${log%.log}.trs" 2>/dev/null; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
		fi
	done
}
# run NAME COMMAND...: runs a step, its output in $LOGS/NAME.log.
run() {
	local name=$1
	shift
	"$@" >"$LOGS/$name.log" 2>&1 || status=1
}

step "setup: packages, build, install"
bash contrib/local-cluster.sh setup || { echo "setup failed" >&2; exit 1; }
if [ "${XC_QUICK:-0}" != 1 ]; then
	missing=()
	for p in valgrind clang libclang-rt-14-dev clang-format-14 debhelper; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "installing ${missing[*]}"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null ||
			{ echo "cannot install ${missing[*]}" >&2; exit 1; }
	fi
fi

if [ "${XC_QUICK:-0}" != 1 ]; then
	step "the C sources are formatted as .clang-format says (clang-format 14)"
	if git -C "$SRC" ls-files '*.c' '*.h' | (cd "$SRC" && xargs clang-format-14 --dry-run --Werror) \
		>"$LOGS/format.log" 2>&1; then
		passed=$((passed + 1))
		echo "ok - clang-format-14 --dry-run --Werror: no change"
	else
		failed=$((failed + 1))
		status=1
		head -30 "$LOGS/format.log"
	fi
fi

step "unit tests and fuzz corpus replay (make check)"
make -s -j"$(nproc)" check >"$LOGS/check.log" 2>&1 || { status=1; tail -30 "$LOGS/check.log"; }
count_unit "$SRC" check

if [ "${XC_QUICK:-0}" != 1 ]; then
	step "unit tests with ASan and UBSan (./configure --enable-sanitizers)"
	rm -rf "$LOGS/san" && mkdir -p "$LOGS/san"
	(tar --exclude=.git -cf - .) | (cd "$LOGS/san" && tar -xf -)
	(cd "$LOGS/san" && make -s distclean >/dev/null 2>&1
	 ./configure --quiet --enable-sanitizers --with-slurm="${XC_SLURM_PREFIX:-/usr}" >/dev/null &&
		make -s -j"$(nproc)" check) >"$LOGS/san.log" 2>&1 || { status=1; tail -30 "$LOGS/san.log"; }
	count_unit "$LOGS/san" sanitizers

	step "make distcheck"
	if make -s distcheck DISTCHECK_CONFIGURE_FLAGS="--with-slurm=${XC_SLURM_PREFIX:-/usr}" >"$LOGS/distcheck.log" 2>&1; then
		passed=$((passed + 1))
		grep -A1 'archives ready' "$LOGS/distcheck.log"
	else
		failed=$((failed + 1))
		status=1
		tail -40 "$LOGS/distcheck.log"
	fi

	step "fuzzing: each target for ${XC_FUZZ_SECONDS:-20} s (clang, libFuzzer)"
	if bash tests/fuzz/run-fuzzers.sh "${XC_FUZZ_SECONDS:-20}" | tee "$LOGS/fuzz.log"; then
		passed=$((passed + $(grep -c ' 0 crashes' "$LOGS/fuzz.log")))
	else
		failed=$((failed + 1))
		status=1
	fi

	step "the command under valgrind over every test input"
	run valgrind bash tests/valgrind-cli.sh
	tail -3 "$LOGS/valgrind.log"
	count "$LOGS/valgrind.log"
fi

for t in e2e-cluster e2e-wait e2e-users e2e-fault e2e-slurm-filter load; do
	step "on a local Slurm cluster: tests/$t.sh"
	if [ "$t" = load ]; then
		XC_LOAD_JOBS=${XC_LOAD_JOBS:-400} bash "tests/$t.sh" >"$LOGS/$t.log" 2>&1 || status=1
	else
		bash "tests/$t.sh" >"$LOGS/$t.log" 2>&1 || status=1
	fi
	grep -vE '^ok ' "$LOGS/$t.log"
	count "$LOGS/$t.log"
done

if [ "${XC_QUICK:-0}" != 1 ] && [ -z "${XC_SLURM_PREFIX:-}" ]; then
	step "the Debian package: dpkg-buildpackage -b, installed, end to end on it"
	if bash tests/package-deb.sh "$LOGS/pkg" >"$LOGS/package.log" 2>&1; then
		passed=$((passed + 1))
		echo "ok - built and installed $(grep -oP '^built: \K.*' "$LOGS/package.log")"
		for t in e2e-cluster e2e-wait; do
			XC_PLUGSTACK='include /etc/slurm/plugstack.conf.d/*.conf' \
				bash "tests/$t.sh" >"$LOGS/package-$t.log" 2>&1 || status=1
			grep -vE '^ok ' "$LOGS/package-$t.log"
			count "$LOGS/package-$t.log"
		done
	else
		failed=$((failed + 1))
		status=1
		tail -30 "$LOGS/package.log"
	fi
	# Back to this tree's build, as after step 1.
	dpkg -P slurm-extra >/dev/null 2>&1
	make -s install >/dev/null 2>&1 || { echo "make install failed" >&2; status=1; }
fi

step "the build and the tests left the tree as git has it"
if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
	dirty=$(git -C "$SRC" status --porcelain --untracked-files=all)
	if [ -z "$dirty" ]; then
		passed=$((passed + 1))
		echo "ok - git status --porcelain is empty"
	else
		failed=$((failed + 1))
		status=1
		printf 'FAIL - files changed or left untracked (list them in .gitignore or stop making them):\n%s\n' "$dirty"
	fi
fi

[ "$failed" -eq 0 ] || status=1
printf '\n(logs in %s)\ntests: %d passed, %d failed\n' "$LOGS" "$passed" "$failed"
exit "$status"
