#!/usr/bin/env bash
# check-symbols.sh - the plugins export exactly the entry points Slurm looks
# up, nothing of the library inside them (which slurmctld's own symbols or
# another plugin's could shadow).  Run by `make check` from the build tree.
set -u
cd "${abs_top_builddir:-.}" || exit 1
passed=0
failed=0
# check SO EXPECTED...: the dynamic symbols SO defines are EXPECTED.
check() {
	local so=$1 got want
	shift
	if [ ! -f "$so" ]; then
		echo "FAIL - $so not built"
		failed=$((failed + 1))
		return
	fi
	got=$(nm -D --defined-only "$so" | awk '{print $3}' | sort | tr '\n' ' ')
	want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
	if [ "$got" = "$want" ]; then
		echo "ok - $so exports: $got"
		passed=$((passed + 1))
	else
		echo "FAIL - $so exports: $got"
		echo "       expected:    $want"
		failed=$((failed + 1))
	fi
}
check plugin/.libs/job_submit_extra.so plugin_name plugin_type plugin_version \
	init fini job_submit job_modify
check plugin/.libs/spank_extra.so plugin_name plugin_type plugin_version \
	slurm_spank_init slurm_spank_init_post_opt
echo "symbols: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
