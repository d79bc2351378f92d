# tally-lib.sh - how tests/run-all.sh and tests/cluster/debian-suite.sh
# run steps and count their results (sourced).  The caller sets LOGS (the
# directory of the logs), status (0; 1 once anything failed), the
# associative arrays CAT_P and CAT_F (passed and failed per category, each
# category set to 0 first) and the array SKIPPED (steps skipped, by name).
# shellcheck shell=bash
# shellcheck disable=SC2034 # status, CAT_P, CAT_F: the caller's

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
# output in $LOGS/LOG.log (LOG: NAME unless given), its checks counted in
# the category $CLUSTER_CAT (default cluster); says how long it took.
cluster() {
	local name=${1%%:*} log=$LOGS/${1#*:}.log t0=$SECONDS
	shift
	step "on a local Slurm cluster: tests/cluster/$name.sh $*"
	env "$@" bash "tests/cluster/$name.sh" >"$log" 2>&1 || status=1
	grep -vE '^ok ' "$log"
	printf '(%d s)\n' $((SECONDS - t0))
	count "${CLUSTER_CAT:-cluster}" "$log"
	while IFS= read -r line; do
		SKIPPED+=("tests/cluster/$name.sh: ${line#skipped: }")
	done < <(grep '^skipped: ' "$log")
}
