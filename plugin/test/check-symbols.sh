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
# burst_buffer/extra, where built (--with-slurm-source): Slurm's entry
# points, and the one object job_submit/extra finds by the file's SONAME
# (slurm/guard_api.h: dlopen(SX_GUARD_SONAME, RTLD_NOLOAD) matches it)
bb=ctld/.libs/burst_buffer_extra.so
if [ -f "$bb" ]; then
	other=$(nm -D --defined-only "$bb" | awk '{print $3}' |
		grep -vE '^(plugin_name|plugin_type|plugin_version|init|fini|bb_p_[a-z0-9_]+|sx_guard_record_api)$' | tr '\n' ' ')
	api=$(nm -D --defined-only "$bb" | awk '$3 == "sx_guard_record_api" {print $2}')
	soname=$(readelf -d "$bb" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
	if [ -z "$other" ] && [ "$api" = D ] && [ "$soname" = burst_buffer_extra.so ]; then
		echo "ok - $bb exports Slurm's entry points and sx_guard_record_api (data), SONAME $soname"
		passed=$((passed + 1))
	else
		echo "FAIL - $bb: other exports '$other', sx_guard_record_api '$api' (want D), SONAME '$soname' (want burst_buffer_extra.so)"
		failed=$((failed + 1))
	fi
fi
# none needs a function of the project's from outside: what a plugin
# leaves undefined is Slurm's, libc's and the libraries' (a call into a
# source file the plugin does not link loads lazily here and fails at
# dlopen() where plugins are linked -z now, as Debian's package is).  The
# project's functions: every global the build's objects define.
defined=$(find parser slurm plugin ctld flux facts cmd -name '*.o' ! -path '*/test/*' ! -name '*test_*' ! -name '*fuzz*' 2>/dev/null |
	xargs -r nm -g --defined-only 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u)
for so in plugin/.libs/job_submit_extra.so plugin/.libs/spank_extra.so ctld/.libs/burst_buffer_extra.so; do
	[ -f "$so" ] || continue
	ours=$(comm -12 <(nm -D --undefined-only "$so" | awk '{print $2}' | sed 's/@.*//' | sort -u) \
		<(printf '%s\n' "$defined") | grep -vE '^(main)$' | tr '\n' ' ')
	if [ -z "$ours" ]; then
		echo "ok - $so leaves none of the project's functions undefined"
		passed=$((passed + 1))
	else
		echo "FAIL - $so leaves the project's undefined: $ours"
		failed=$((failed + 1))
	fi
done
echo "symbols: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
