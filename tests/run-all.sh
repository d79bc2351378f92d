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
#   6. the command under valgrind over every test input, each run's exit
#      status and output checked too;
#   7. end to end on a real local Slurm cluster: placement, waiting, every
#      job action by two unprivileged users and root (e2e-users), node
#      facts published (e2e-facts), faults, the feature carrier as users
#      meet it (e2e-carrier); placement, waits and the users' matrix again
#      with the other carrier (Carrier=exclusions),
#      load (XC_LOAD_JOBS submissions, default 400; the full form is
#      `bash tests/cluster/load.sh 2000`);
#   8. the job_submit plugin built with ASan and UBSan, loaded into a real
#      slurmctld (the sanitizer runtime preloaded), through e2e-users: any
#      error, or any leak of the plugin's, fails;
#   9. the Debian package: built with dpkg-buildpackage from a copy of the
#      tree, installed in place of step 1's install, and the end-to-end
#      placement and wait tests run against it (tests/cluster/package-deb.sh);
#  10. the jobspecs of `slurm-extra jobspec` submitted to a real Flux
#      (tests/cluster/e2e-flux.sh), when XC_FLUX_PREFIX names a flux-core install
#      (skipped otherwise);
#  11. the build and the tests left the tree as git has it.
# The summary gives, each on its own line, what it counts: build steps,
# unit tests, the same under sanitizers, fuzz replays and targets, memory
# checks, cluster checks; then the steps skipped, by name; and closes with
# "tests: N passed, M failed".  Any failure of any step, a build's
# included, is a failure there and in the exit status; no log of an
# earlier run is read.  XC_QUICK=1 runs steps 1, 2, 7, 10 and 11 only.
# XC_SLURM_PREFIX=PREFIX runs against the Slurm installed there (step 9 is
# then skipped: the package is built against the system's Slurm).
set -uo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$SRC"
LOGS=/tmp/slurm-extra-tests
rm -rf "$LOGS"
mkdir -p "$LOGS"
status=0
declare -A CAT_P CAT_F
CATS=(build unit sanitizers replay fuzz memory cluster plugin-asan flux)
for c in "${CATS[@]}"; do CAT_P[$c]=0 CAT_F[$c]=0; done
SKIPPED=()

step() { printf '\n=== %s\n' "$*"; }
# tally CATEGORY PASSED FAILED
tally() {
	CAT_P[$1]=$((CAT_P[$1] + $2))
	CAT_F[$1]=$((CAT_F[$1] + $3))
	[ "$3" -eq 0 ] || status=1
}
# build_step NAME CMD...: a step that passes or fails as a whole.
build_step() {
	local name=$1
	shift
	if "$@" >"$LOGS/$name.log" 2>&1; then
		tally build 1 0
		echo "ok   - $name"
	else
		tally build 0 1
		echo "FAIL - $name (its log: $LOGS/$name.log)"
		tail -30 "$LOGS/$name.log"
	fi
}
skip() { SKIPPED+=("$1"); printf 'skipped: %s\n' "$1"; }
# count CATEGORY LOG: adds the "N passed, M failed" closing line of LOG; a
# log without one (the step died) is one failure.
count() {
	local line
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$2" 2>/dev/null | tail -1)
	if [ -z "$line" ]; then
		echo "FAIL - $(basename "$2" .log): no closing line"
		tally "$1" 0 1
		return
	fi
	tally "$1" "$(grep -oP '[0-9]+(?= passed)' <<<"$line")" "$(grep -oP '[0-9]+(?= failed)' <<<"$line")"
}
# The tests `make check` runs in the build tree $1.
tests_of() {
	make -s -C "$1" -f Makefile -f - xc-print-tests <<<'xc-print-tests: ; @echo $(TESTS)'
}
# count_unit DIR UNIT_CATEGORY: the results of every test of DIR's make
# check, from the logs of this run (old ones were removed before it): a
# test without a log did not build or did not run, and fails.
count_unit() {
	local dir=$1 cat=$2 t log line p n
	for t in $(tests_of "$dir"); do
		log=$dir/$t.log
		case $t in
		*/test/test_*)
			line=$(grep -h 'Synthesis' "$log" 2>/dev/null | tail -1)
			printf '%-10s %-22s %s\n' "$cat" "$(basename "$t")" "${line:-FAILED: no result (did it build?)}"
			if [ -z "$line" ]; then
				tally "$cat" 0 1
				continue
			fi
			p=$(grep -oP 'Passing: \K[0-9]+' <<<"$line")
			n=$(grep -oP 'Tested: \K[0-9]+' <<<"$line")
			tally "$cat" "$p" $((n - p))
			# every test passed but the program failed (a leak found
			# at exit by the sanitizers): one failure more
			if [ "$p" = "$n" ] && ! grep -q ':test-result: PASS' "$dir/$t.trs" 2>/dev/null; then
				printf '%-10s %-22s %s\n' "$cat" "$(basename "$t")" "FAILED at exit (see its log)"
				tally "$cat" 0 1
			fi
			;;
		tests/fuzz/replay_*)
			line=$(grep -h 'inputs replayed' "$log" 2>/dev/null)
			printf '%-10s %-22s %s\n' replay "$(basename "$t")" "${line:-FAILED}"
			if grep -q ':test-result: PASS' "$dir/$t.trs" 2>/dev/null; then
				tally replay 1 0
			else
				tally replay 0 1
			fi
			;;
		*)
			line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$log" 2>/dev/null | tail -1)
			printf '%-10s %-22s %s\n' "$cat" "$(basename "$t")" "${line:-FAILED}"
			if [ -n "$line" ]; then
				tally "$cat" "$(grep -oP '[0-9]+(?= passed)' <<<"$line")" "$(grep -oP '[0-9]+(?= failed)' <<<"$line")"
			else
				tally "$cat" 0 1
			fi
			;;
		esac
	done
}
# Removes the logs of an earlier make check in DIR.
clean_logs() {
	local trs
	find "$1" -name .git -prune -o -name '*.trs' -print 2>/dev/null |
		while read -r trs; do rm -f "$trs" "${trs%.trs}.log" 2>/dev/null; done
	rm -f "$1/test-suite.log"
}
# cluster NAME[:LOG] [ENV...]: tests/NAME.sh on the local cluster, its
# output in $LOGS/LOG.log (LOG: NAME unless given).
cluster() {
	local name=${1%%:*} log=$LOGS/${1#*:}.log
	shift
	step "on a local Slurm cluster: tests/cluster/$name.sh $*"
	env "$@" bash "tests/cluster/$name.sh" >"$log" 2>&1 || status=1
	grep -vE '^ok ' "$log"
	count cluster "$log"
	while IFS= read -r line; do
		SKIPPED+=("tests/cluster/$name.sh: ${line#skipped: }")
	done < <(grep '^skipped: ' "$log")
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
	build_step format bash -c "git -C '$SRC' ls-files '*.c' '*.h' | (cd '$SRC' && xargs clang-format-14 --dry-run --Werror)"
else
	skip "format (XC_QUICK)"
fi

step "unit tests and fuzz corpus replay (make check)"
clean_logs "$SRC"
# Built first (a test that does not build is a build failure, counted
# once), then run: each test's own result is counted by count_unit.
build_step "build-tests" make -s -j"$(nproc)" check TESTS=
make -s -j"$(nproc)" check >"$LOGS/check.log" 2>&1
count_unit "$SRC" unit

if [ "${XC_QUICK:-0}" != 1 ]; then
	step "unit tests with ASan and UBSan (./configure --enable-sanitizers)"
	rm -rf "$LOGS/san" && mkdir -p "$LOGS/san"
	(tar --exclude=.git -cf - .) | (cd "$LOGS/san" && tar -xf -)
	clean_logs "$LOGS/san"
	build_step "sanitizer-build" bash -c "cd '$LOGS/san' && { make -s distclean >/dev/null 2>&1; true; } &&
		./configure --quiet --enable-sanitizers --with-slurm='${XC_SLURM_PREFIX:-/usr}' && make -s -j$(nproc) &&
		make -s -j$(nproc) check TESTS="
	(cd "$LOGS/san" && make -s -j"$(nproc)" check) >"$LOGS/san-check.log" 2>&1
	count_unit "$LOGS/san" sanitizers

	step "make distcheck"
	build_step distcheck make -s distcheck DISTCHECK_CONFIGURE_FLAGS="--with-slurm=${XC_SLURM_PREFIX:-/usr}"

	step "fuzzing: each target for ${XC_FUZZ_SECONDS:-20} s (clang, libFuzzer)"
	bash tests/fuzz/run-fuzzers.sh "${XC_FUZZ_SECONDS:-20}" >"$LOGS/fuzz.log" 2>&1 || status=1
	cat "$LOGS/fuzz.log"
	# A target passes with its own line saying 0 crashes and no failure
	# after it; run-fuzzers.sh prints "FAIL fuzz_T" for one that did not.
	tally fuzz "$(grep -cE '^fuzz_\S+ .* 0 crashes$' "$LOGS/fuzz.log")" \
		"$(grep -cE '^FAIL fuzz_' "$LOGS/fuzz.log")"
	[ "$(grep -cE '^fuzz_\S+ ' "$LOGS/fuzz.log")" -gt 0 ] || tally fuzz 0 1

	step "the command under valgrind over every test input"
	bash cmd/test/valgrind-cli.sh >"$LOGS/valgrind.log" 2>&1 || status=1
	tail -3 "$LOGS/valgrind.log"
	count memory "$LOGS/valgrind.log"
else
	skip "unit tests under ASan/UBSan (XC_QUICK)"
	skip "make distcheck (XC_QUICK)"
	skip "fuzzing (XC_QUICK)"
	skip "the command under valgrind (XC_QUICK)"
fi

for t in e2e-cluster e2e-facts e2e-users e2e-fault e2e-slurm-filter e2e-churn carrier-grammar e2e-carrier; do
	cluster "$t"
done
# the thread's own window, without the check at start behind it
cluster e2e-wait XC_PROLOG_CTLD=0
# the other carrier, each job's ExcNodeList (extra.conf(5) Carrier=): the
# placement, the waits and the users' matrix again
cluster e2e-cluster:e2e-cluster-exclusions XC_EXTRA_CONF=Carrier=exclusions
cluster e2e-wait:e2e-wait-exclusions XC_PROLOG_CTLD=0 XC_EXTRA_CONF=Carrier=exclusions
cluster e2e-users:e2e-users-exclusions XC_EXTRA_CONF=Carrier=exclusions
cluster e2e-users:e2e-users-slurm XC_USERS_MODE=slurm
cluster load XC_LOAD_JOBS="${XC_LOAD_JOBS:-400}"

if [ "${XC_QUICK:-0}" != 1 ] && [ -f "$LOGS/san/plugin/.libs/job_submit_extra.so" ]; then
	step "the job_submit plugin under ASan and UBSan inside slurmctld (tests/cluster/e2e-users.sh)"
	# Slurm's own plugins from its PluginDir; this one from a directory
	# before it; the SPANK plugin (loaded by uninstrumented clients) the
	# installed one.  The sanitizer runtime comes first in slurmctld.
	plugindir=$(make -s -f Makefile -f - xc-print <<<'xc-print: ; @echo $(SLURM_PLUGINDIR)')
	mkdir -p "$LOGS/asan-plugin" "$LOGS/asan-reports"
	cp "$LOGS/san/plugin/.libs/job_submit_extra.so" "$LOGS/asan-plugin/"
	libasan=$(readlink -f "$(gcc -print-file-name=libasan.so)")
	XC_PLUGIN_DIR="$LOGS/asan-plugin:$plugindir" \
		XC_PLUGSTACK="required $plugindir/spank_extra.so" \
		XC_CTLD_ENV="LD_PRELOAD=$libasan ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1" \
		XC_CTLD_STDERR="$LOGS/asan-reports/stderr" \
		bash tests/cluster/e2e-users.sh >"$LOGS/plugin-asan.log" 2>&1 || status=1
	grep -vE '^ok ' "$LOGS/plugin-asan.log"
	count plugin-asan "$LOGS/plugin-asan.log"
	# slurmctld has exited (the test stops the cluster, waiting for it):
	# a report in its stderr (every sanitizer's: XC_CTLD_STDERR) is an
	# error, or a leak, of slurmctld with the plugin; none is written by a
	# slurmctld that had to be killed.
	if grep -q 'slurmctld killed after' /var/lib/slurm-extra-cluster/log/slurmctld.log 2>/dev/null; then
		echo "FAIL - slurmctld had to be killed: no leak report could be written"
		tally plugin-asan 0 1
	elif reports=$(grep -h -A12 -E 'runtime error:|ERROR: (Address|Leak)Sanitizer' "$LOGS"/asan-reports/stderr 2>/dev/null || true) && [ -n "$reports" ]; then
		echo "FAIL - ASan/UBSan/LeakSanitizer reports from slurmctld with the plugin:"
		head -60 <<<"$reports"
		tally plugin-asan 0 1
	else
		echo "ok   - no ASan, UBSan or LeakSanitizer report from slurmctld"
		tally plugin-asan 1 0
	fi
else
	skip "the plugin under ASan/UBSan inside slurmctld (XC_QUICK, or no sanitizer build)"
fi

if [ "${XC_QUICK:-0}" != 1 ] && [ -z "${XC_SLURM_PREFIX:-}" ]; then
	step "the Debian package: dpkg-buildpackage -b, installed, end to end on it"
	build_step package bash tests/cluster/package-deb.sh "$LOGS/pkg"
	if grep -q '^built: ' "$LOGS/package.log"; then
		echo "     built and installed $(grep -oP '^built: \K.*' "$LOGS/package.log")"
		for t in e2e-cluster e2e-wait; do
			step "on the package: tests/cluster/$t.sh"
			# e2e-wait: the thread's own window, as in step 7;
			# e2e-cluster with the package's check at start
			XC_PROLOG_CTLD=$([ "$t" = e2e-wait ] && echo 0 || echo 1) \
				XC_PLUGSTACK='include /etc/slurm/plugstack.conf.d/*.conf' \
				bash "tests/cluster/$t.sh" >"$LOGS/package-$t.log" 2>&1 || status=1
			grep -vE '^ok ' "$LOGS/package-$t.log"
			count cluster "$LOGS/package-$t.log"
		done
	fi
	# Back to this tree's build, as after step 1.
	dpkg -P slurm-extra >/dev/null 2>&1
	build_step "reinstall" make -s install
else
	skip "the Debian package (XC_QUICK or XC_SLURM_PREFIX: it is built against the system's Slurm)"
fi

step "jobspecs against a real Flux (tests/cluster/e2e-flux.sh)"
bash tests/cluster/e2e-flux.sh >"$LOGS/e2e-flux.log" 2>&1 || status=1
grep -vE '^ok ' "$LOGS/e2e-flux.log"
count flux "$LOGS/e2e-flux.log"
while IFS= read -r line; do
	SKIPPED+=("tests/cluster/e2e-flux.sh: ${line#skipped: }")
done < <(grep '^skipped: ' "$LOGS/e2e-flux.log")

step "the build and the tests left the tree as git has it"
if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
	dirty=$(git -C "$SRC" status --porcelain --untracked-files=all)
	if [ -z "$dirty" ]; then
		tally build 1 0
		echo "ok   - git status --porcelain is empty"
	else
		tally build 0 1
		printf 'FAIL - files changed or left untracked (list them in .gitignore or stop making them):\n%s\n' "$dirty"
	fi
else
	skip "the tree left as git has it (not a git checkout)"
fi

passed=0 failed=0
printf '\n(logs in %s)\n' "$LOGS"
declare -A WHAT=([build]="build, install, format, distcheck, package and clean-tree steps"
	[unit]="unit tests (Criterion, each row)" [sanitizers]="the same unit tests under ASan and UBSan"
	[replay]="fuzz corpus replays" [fuzz]="libFuzzer targets without a crash"
	[memory]="runs of the command under valgrind, exit status and output checked"
	[cluster]="checks on a real local Slurm cluster"
	[plugin-asan]="checks with the plugin under ASan/UBSan inside slurmctld"
	[flux]="checks against a real Flux (XC_FLUX_PREFIX)")
for c in "${CATS[@]}"; do
	printf '  %-12s %5d passed, %d failed  (%s)\n' "$c:" "${CAT_P[$c]}" "${CAT_F[$c]}" "${WHAT[$c]}"
	passed=$((passed + CAT_P[$c]))
	failed=$((failed + CAT_F[$c]))
done
for s in "${SKIPPED[@]}"; do printf '  skipped: %s\n' "$s"; done
[ "$failed" -eq 0 ] || status=1
[ "$status" -eq 0 ] || [ "$failed" -gt 0 ] || { failed=1; echo "  a step failed without a count: see above"; }
printf 'tests: %d passed, %d failed\n' "$passed" "$failed"
exit "$status"
