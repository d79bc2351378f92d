#!/usr/bin/env bash
# run-all.sh - every test of slurm-extra, from a fresh clone on a fresh
# Debian 12 machine, as root (CI runs exactly this):
#   1. installs the packages, builds and installs (plugins into Slurm's
#      PluginDir, the command into /usr/local/bin); checks the formatting
#      (clang-format 14, .clang-format);
#   2. make check: the Criterion unit tests and the fuzz corpus replay;
#   3. the same unit tests built with ASan and UBSan (a leak fails a test);
#   4. make distcheck, and the RPM: make dist, rpmbuild -ta
#      (tests/package-rpm.sh), its files and requirements checked;
#   5. each libFuzzer target for XC_FUZZ_SECONDS (default 20);
#   6. the command under valgrind over every test input, each run's exit
#      status and output checked too (steps 3-6 run in the background,
#      one after the other, beside step 7; their output comes after it);
#   7. end to end on a real local Slurm cluster, burst_buffer/extra (the
#      guard at placement, built by step 1) filtering: placement, waiting,
#      every job action by two unprivileged users and root (e2e-users),
#      node facts published (e2e-facts), faults, preferences by Extra
#      (e2e-prefer), what another user can try on the owner's jobs
#      (e2e-hostile), the churn of node data (batch and srun jobs), the
#      guard's own tests, load (XC_LOAD_JOBS submissions, default 200,
#      after XC_LOAD_WARMUPS warm-ups, default 1; the full form is
#      `bash tests/cluster/load.sh 2000`); and where nothing filters, the
#      plugin's refusal of every request (e2e-slurm-filter).  Where the
#      guard was not built (no XC_SLURM_SOURCE), the suites that need a
#      filter say they are skipped;
#   8. the job_submit plugin built with ASan and UBSan, loaded into a real
#      slurmctld (the sanitizer runtime preloaded) beside the guard,
#      through e2e-users: any error, or any leak of the plugin's, fails;
#   9. the Debian package: built with dpkg-buildpackage from a copy of the
#      tree (with the guard at placement where step 1 built it), installed
#      in place of step 1's install, and the end-to-end placement test run
#      against it, the guard loaded (skipped where the package has none;
#      tests/cluster/package-deb.sh);
#  10. the jobspecs of `slurm-extra jobspec` submitted to a real Flux
#      (tests/cluster/e2e-flux.sh), when XC_FLUX_PREFIX names a flux-core install
#      (skipped otherwise);
#  11. the Slurm of Debian 13 (trixie, 24.11) and of sid (26.05), each in a
#      chroot made with debootstrap from Debian's own packages
#      (tests/cluster/debian-suite.sh): this tree built there, make check,
#      its .deb built and installed, and the cluster suites on it, with
#      burst_buffer/extra where it is built (trixie) and with Slurm's own
#      filter (XC_DEBIAN_SUITES: the suites, default "trixie sid"; empty:
#      none).  They run in the background from step 1 on, beside each
#      other and steps 2-10, each chroot's cluster on a network of its own
#      (XC_SUITES_AT_ONCE=0: one after the other after step 10, as where
#      no network namespace can be made);
#  12. the build and the tests left the tree as git has it.
# The summary gives, each on its own line, what it counts: build steps,
# unit tests, the same under sanitizers, fuzz replays and targets, memory
# checks, cluster checks; then the steps skipped, by name; and closes with
# "tests: N passed, M failed"; step 11's categories are named SUITE/CATEGORY.
# Any failure of any step, a build's included, is a failure there and in
# the exit status; no log of an earlier run is read.  XC_QUICK=1 runs steps
# 1, 2, 7, 10 and 12 only.  XC_SLURM_PREFIX=PREFIX runs against the Slurm
# installed there (the packages of steps 4, 9 and 11 are then skipped: they
# are built against a system's Slurm).
set -uo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$SRC" || exit 2
LOGS=/tmp/slurm-extra-tests
rm -rf "$LOGS"
mkdir -p "$LOGS"
status=0
declare -A CAT_P CAT_F
CATS=(build unit sanitizers replay fuzz memory cluster plugin-asan flux)
for c in "${CATS[@]}"; do CAT_P[$c]=0 CAT_F[$c]=0; done
SKIPPED=()

. tests/tally-lib.sh

# The tree as it is now, for step 11 (the files git tracks and new ones it
# does not ignore, as debian-suite.sh copies them): the suites copy it
# while the other steps build in this one.
# (not a git checkout: debian-suite.sh says it cannot copy the tree)
SUITE_SRC=$SRC
if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
	SUITE_SRC=$LOGS/suite-src
	mkdir -p "$SUITE_SRC" && git -C "$SRC" ls-files -co --exclude-standard -z |
		tar --null -T - -cf - | tar -C "$SUITE_SRC" -xf - &&
		git -C "$SUITE_SRC" init -q && git -C "$SUITE_SRC" add -A -f &&
		git -C "$SUITE_SRC" -c user.name=ci -c user.email=ci@localhost commit -qm tree ||
		{ echo "cannot copy the tree into $SUITE_SRC" >&2; exit 1; }
fi

step "setup: packages, build, install"
# the guard at placement built too, against Debian's source of the Slurm
# installed (contrib/slurm-source.sh; without it the guard's test skips)
export XC_SLURM_SOURCE=${XC_SLURM_SOURCE-auto}
bash contrib/local-cluster.sh setup || { echo "setup failed" >&2; exit 1; }
if [ "${XC_QUICK:-0}" != 1 ]; then
	missing=()
	for p in valgrind clang libclang-rt-14-dev clang-format-14 debhelper debootstrap rpm iproute2; do
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

# Step 11 runs in the background from here on, each suite beside the
# others and beside steps 2-10, where its chroot's cluster can have a
# network of its own (a network namespace: debian-suite.sh); its results
# are read at the end.  Where it cannot, only the chroots are made in the
# background (debootstrap: mostly waiting on Debian's registry), and the
# suites run one after the other after step 10.
SUITES_AT_ONCE=0
SUITE_RUNS=()
CHROOT_MAKERS=()
if [ "${XC_QUICK:-0}" != 1 ] && [ -z "${XC_SLURM_PREFIX:-}" ]; then
	# (debian-suite.sh's own test for a network of the chroot's)
	! unshare --net sh -c 'ip link set lo up && ip addr add 192.0.2.1/32 dev lo' 2>/dev/null ||
		SUITES_AT_ONCE=${XC_SUITES_AT_ONCE:-1}
	for suite in ${XC_DEBIAN_SUITES-trixie sid}; do
		if [ "$SUITES_AT_ONCE" = 1 ]; then
			{
				XC_SUITE_LOGS="$LOGS/$suite-chroot" nice -n 10 bash "$SUITE_SRC/tests/cluster/debian-suite.sh" --make "$suite" \
					>"$LOGS/$suite-chroot.log" 2>&1
				XC_SUITE_NET=own XC_SUITE_LOGS="$LOGS/$suite" bash "$SUITE_SRC/tests/cluster/debian-suite.sh" "$suite" \
					>"$LOGS/$suite.log" 2>&1
			} &
			SUITE_RUNS+=($!)
		else
			XC_SUITE_LOGS="$LOGS/$suite-chroot" bash "$SUITE_SRC/tests/cluster/debian-suite.sh" --make "$suite" \
				>"$LOGS/$suite-chroot.log" 2>&1 &
			CHROOT_MAKERS+=($!)
		fi
	done
fi
# Interrupted, this script takes what runs in the background with it (each
# suite tears its chroot down on SIGTERM).
CPU_STEPS=
stop_background() {
	local pid
	for pid in "${SUITE_RUNS[@]}" "${CHROOT_MAKERS[@]}" $CPU_STEPS; do
		pkill -TERM -P "$pid"
		kill "$pid"
	done 2>/dev/null
	wait
	exit 130
}
trap stop_background INT TERM

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

# Steps 3 to 6 (cpu_steps) run in the background, beside step 7's cluster
# tests, which mostly wait on Slurm: their output and counts are read
# before step 8, which needs step 3's build.  They read this tree and
# build in copies of it, or in distcheck's directory; none installs where
# the cluster's Slurm looks.
cpu_steps() {
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

	if [ -z "${XC_SLURM_PREFIX:-}" ]; then
		step "the RPM: make dist, rpmbuild -ta (tests/package-rpm.sh)"
		build_step rpm bash tests/package-rpm.sh "$LOGS/rpm"
		grep -E '^(built|slurm\()' "$LOGS/rpm.log" | sed 's/^/     /'
	else
		skip "the RPM (XC_SLURM_PREFIX: the spec builds against the system's Slurm)"
	fi

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
}
if [ "${XC_QUICK:-0}" != 1 ]; then
	(
		trap - INT TERM
		# (below the clusters' processes: their waits are checked, the
		# builds' are not)
		renice -n 10 -p "$BASHPID" >/dev/null
		for c in "${CATS[@]}"; do CAT_P[$c]=0 CAT_F[$c]=0; done
		SKIPPED=() status=0
		cpu_steps
		for c in "${CATS[@]}"; do echo "$c ${CAT_P[$c]} ${CAT_F[$c]}"; done >"$LOGS/cpu-steps.counts"
		printf '%s\n' "${SKIPPED[@]}" >"$LOGS/cpu-steps.skipped"
		exit "$status"
	) >"$LOGS/cpu-steps.out" 2>&1 &
	CPU_STEPS=$!
else
	skip "unit tests under ASan/UBSan (XC_QUICK)"
	skip "make distcheck (XC_QUICK)"
	skip "the RPM (XC_QUICK)"
	skip "fuzzing (XC_QUICK)"
	skip "the command under valgrind (XC_QUICK)"
fi

if [ ${#CHROOT_MAKERS[@]} -gt 0 ]; then
	step "waiting for the chroots of step 11 (debootstrap)"
	for pid in "${CHROOT_MAKERS[@]}"; do wait "$pid" || true; done
	cat "$LOGS"/*-chroot.log
fi
# The guard at placement (burst_buffer/extra), built by setup where
# XC_SLURM_SOURCE names a Slurm source tree, is the filter of the suites:
# each loads it where it is installed (cluster-lib.sh cluster_test), and
# fails where it was to be built and is not (XC_GUARD_REQUIRED=1); where
# it was not to be, the suites that need a filter are skipped (Debian 12's
# Slurm has no filter of its own: nothing filters there).
guard_required=0
[ "${XC_SLURM_SOURCE:-}" = "" ] || guard_required=1
export XC_GUARD_REQUIRED=$guard_required
for t in e2e-cluster e2e-facts e2e-users e2e-slurm-filter e2e-hostile e2e-fault e2e-prefer e2e-wait; do
	cluster "$t"
done
# the churn of node data, batch jobs and interactive ones (srun: none may
# be lost)
cluster e2e-churn
cluster e2e-churn:e2e-churn-srun XC_CHURN_SRUN=1
# the guard's own tests
cluster e2e-guard
cluster e2e-guard-alone
# the users' matrix where Slurm filters (23.11+: skipped before)
cluster e2e-users:e2e-users-slurm XC_USERS_MODE=slurm
# placement checked by where the jobs started, leaks by burst_buffer/extra's
# count
cluster load XC_LOAD_JOBS="${XC_LOAD_JOBS:-200}" XC_LOAD_WARMUPS="${XC_LOAD_WARMUPS:-1}"

if [ -n "$CPU_STEPS" ]; then
	step "steps 3-6, run beside the cluster tests: their output"
	t0=$SECONDS
	wait "$CPU_STEPS" || status=1
	echo "(waited $((SECONDS - t0)) s)"
	cat "$LOGS/cpu-steps.out"
	if [ -s "$LOGS/cpu-steps.counts" ]; then
		while read -r c p f; do tally "$c" "$p" "$f"; done <"$LOGS/cpu-steps.counts"
		while IFS= read -r line; do
			[ -z "$line" ] || SKIPPED+=("$line")
		done <"$LOGS/cpu-steps.skipped"
	else
		echo "FAIL - steps 3-6 wrote no counts (their output: $LOGS/cpu-steps.out)"
		tally build 0 1
	fi
fi

if [ "${XC_QUICK:-0}" != 1 ] && [ -f "$LOGS/san/plugin/.libs/job_submit_extra.so" ]; then
	step "the job_submit plugin under ASan and UBSan inside slurmctld (tests/cluster/e2e-users.sh)"
	# Slurm's own plugins from its PluginDir; this one from a directory
	# before it; the SPANK plugin (loaded by uninstrumented clients) the
	# installed one; the guard at placement the installed one, found
	# there (cluster_test; skipped as step 7 where it was not built).  The
	# sanitizer runtime comes first in slurmctld.
	plugindir=$(make -s -f Makefile -f - xc-print <<<'xc-print: ; @echo $(SLURM_PLUGINDIR)')
	mkdir -p "$LOGS/asan-plugin" "$LOGS/asan-reports"
	cp "$LOGS/san/plugin/.libs/job_submit_extra.so" "$LOGS/asan-plugin/"
	libasan=$(readlink -f "$(gcc -print-file-name=libasan.so)")
	XC_PLUGIN_DIR="$LOGS/asan-plugin:$plugindir" \
		XC_PLUGSTACK="required $plugindir/spank_extra.so" \
		XC_CTLD_ENV="LD_PRELOAD=$libasan ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1" \
		XC_CTLD_STDERR="$LOGS/asan-reports/stderr" XC_CTLD_STOP_S=60 \
		bash tests/cluster/e2e-users.sh >"$LOGS/plugin-asan.log" 2>&1 || status=1
	grep -vE '^ok ' "$LOGS/plugin-asan.log"
	count plugin-asan "$LOGS/plugin-asan.log"
	while IFS= read -r line; do
		SKIPPED+=("plugin-asan: tests/cluster/e2e-users.sh: ${line#skipped: }")
	done < <(grep '^skipped: ' "$LOGS/plugin-asan.log")
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
	# with the guard at placement, against the source tree step 1 built
	# it with (debian/rules: SLURM_SOURCE), as the README's install does
	PKG_SOURCE=
	[ "$guard_required" = 0 ] ||
		PKG_SOURCE=$(grep -oP "'--with-slurm-source=\K[^']*" config.status 2>/dev/null | tail -n 1)
	[ -n "$PKG_SOURCE" ] || [ "$guard_required" = 0 ] ||
		echo "     (the package without the guard: config.status names no --with-slurm-source)"
	build_step package env SLURM_SOURCE="$PKG_SOURCE" nice -n 10 bash tests/cluster/package-deb.sh "$LOGS/pkg"
	if grep -q '^built: ' "$LOGS/package.log"; then
		echo "     built and installed $(grep -oP '^built: \K.*' "$LOGS/package.log")"
		# with the package's plugstack.conf.d line, and its guard where
		# it was built with one (step 11 runs every cluster suite on the
		# packages of 24.11 and 26.05)
		step "on the package: tests/cluster/e2e-cluster.sh"
		env ${PKG_SOURCE:+XC_BURST_BUFFER=burst_buffer/extra} XC_GUARD_REQUIRED="$([ -n "$PKG_SOURCE" ] && echo 1 || echo 0)" \
			XC_PLUGSTACK='include /etc/slurm/plugstack.conf.d/*.conf' \
			bash tests/cluster/e2e-cluster.sh >"$LOGS/package-e2e-cluster.log" 2>&1 || status=1
		grep -vE '^ok ' "$LOGS/package-e2e-cluster.log"
		count cluster "$LOGS/package-e2e-cluster.log"
		while IFS= read -r line; do
			SKIPPED+=("on the package: tests/cluster/e2e-cluster.sh: ${line#skipped: }")
		done < <(grep '^skipped: ' "$LOGS/package-e2e-cluster.log")
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

# debian_suite SUITE: tests/cluster/debian-suite.sh, its counts added as
# the categories SUITE/CATEGORY (run here, or read from its run in the
# background).
declare -A SUITE_WHAT
debian_suite() {
	local suite=$1 ver c p f k
	step "the Slurm of Debian $suite in a chroot: built, packaged, the cluster suites (tests/cluster/debian-suite.sh $suite)"
	if [ "$SUITES_AT_ONCE" = 1 ]; then
		cat "$LOGS/$suite-chroot.log"
		echo "# run beside the other steps, on a network of its own"
	else
		XC_SUITE_LOGS="$LOGS/$suite" bash "$SUITE_SRC/tests/cluster/debian-suite.sh" "$suite" >"$LOGS/$suite.log" 2>&1 || status=1
	fi
	grep -vE '^(ok |unit |replay )' "$LOGS/$suite.log"
	ver=$(cat "$LOGS/$suite/slurm" 2>/dev/null) || ver="Debian $suite's Slurm"
	if [ ! -s "$LOGS/$suite/counts" ]; then
		echo "FAIL - $suite: no counts (its log: $LOGS/$suite.log)"
		tally build 0 1
		return
	fi
	while read -r c p f; do
		k=$suite/$c
		CATS+=("$k")
		CAT_P[$k]=0 CAT_F[$k]=0
		tally "$k" "$p" "$f"
		case $c in
		build) SUITE_WHAT[$k]="$ver: build, make check's build, .deb built and installed" ;;
		unit) SUITE_WHAT[$k]="$ver: unit tests" ;;
		replay) SUITE_WHAT[$k]="$ver: fuzz corpus replays" ;;
		cluster) SUITE_WHAT[$k]="$ver: checks on a real cluster, burst_buffer/extra filtering" ;;
		cluster-slurm) SUITE_WHAT[$k]="$ver: checks on a real cluster with Slurm's own filter (extra_constraints)" ;;
		*) SUITE_WHAT[$k]="$ver" ;;
		esac
	done <"$LOGS/$suite/counts"
	while IFS= read -r line; do
		[ -z "$line" ] || SKIPPED+=("$suite: $line")
	done <"$LOGS/$suite/skipped"
}
if [ "${XC_QUICK:-0}" != 1 ] && [ -z "${XC_SLURM_PREFIX:-}" ]; then
	if [ ${#SUITE_RUNS[@]} -gt 0 ]; then
		step "waiting for step 11 (the suites in their chroots)"
		t0=$SECONDS
		for pid in "${SUITE_RUNS[@]}"; do wait "$pid" || status=1; done
		echo "(waited $((SECONDS - t0)) s)"
	fi
	for suite in ${XC_DEBIAN_SUITES-trixie sid}; do debian_suite "$suite"; done
else
	skip "the Slurm of Debian trixie and sid in chroots (XC_QUICK or XC_SLURM_PREFIX)"
fi

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
for k in "${!SUITE_WHAT[@]}"; do WHAT[$k]=${SUITE_WHAT[$k]}; done
for c in "${CATS[@]}"; do
	printf '  %-21s %5d passed, %d failed  (%s)\n' "$c:" "${CAT_P[$c]}" "${CAT_F[$c]}" "${WHAT[$c]}"
	passed=$((passed + CAT_P[$c]))
	failed=$((failed + CAT_F[$c]))
done
for s in "${SKIPPED[@]}"; do printf '  skipped: %s\n' "$s"; done
[ "$failed" -eq 0 ] || status=1
[ "$status" -eq 0 ] || [ "$failed" -gt 0 ] || { failed=1; echo "  a step failed without a count: see above"; }
printf 'tests: %d passed, %d failed\n' "$passed" "$failed"
exit "$status"
