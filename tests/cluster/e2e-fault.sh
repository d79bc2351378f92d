#!/usr/bin/env bash
# e2e-fault.sh - the real controller under fault: hostile node Extra,
# hostile requests, reconfigure and restarts, slurmctld before any slurmd.
# After each, slurmctld must still answer.  Needs root, `make install` and
# `make check` (for tests/cluster/slurm-helper).  Closes with
# "fault: N passed, M failed".
# XC_EXTRA_CONF=Carrier=guard (with burst_buffer/extra; doc/guard.md "The
# guard alone"): the same where the guard keeps jobs off at placement;
# its look names the unusable nodes, and no thread of the plugin's runs.
set -uo pipefail

TMP=$(mktemp -d)

. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
cluster_test e2e-fault.sh

ctld_up() { scontrol ping 2>/dev/null | grep -q UP; }
# alive WHAT: slurmctld answers (within 60 s) after WHAT.
alive() {
	wait_for 60 ctld_up
	expect "slurmctld still answers ($1)" "$(scontrol ping 2>/dev/null | grep -o UP | head -1)" UP
}

# What the section on doctor's probe changes outside the test's own
# files, undone when it ends and at exit: a link at libslurm's default
# slurm.conf path, the cluster's slurm.conf and extra.conf.
probe_link=
probe_undo() {
	[ -z "$probe_link" ] || rm -f "$probe_link"
	probe_link=
	[ ! -e "$TMP/slurm.conf.saved" ] || mv "$TMP/slurm.conf.saved" "$SLURM_CONF"
	[ ! -e "$TMP/extra.conf.saved" ] || mv "$TMP/extra.conf.saved" "$XC_STATE/extra.conf"
}
cluster_start 'probe_undo; rm -rf "$TMP"' >/dev/null
bash "$CLUSTER" extra >/dev/null || exit 1

echo "# hostile node Extra: 1 MiB, 10,000 deep, not JSON, an array"
{ printf '{"gpu":true,"pad":"'; head -c 1048576 /dev/zero | tr '\0' x; printf '"}'; } >"$TMP/big.json"
"$HELPER" set-extra n1 "$TMP/big.json"
expect "1 MiB Extra was set on n1" "$(scontrol show node n1 | grep -oP 'Extra=\K.{9}')" '{"gpu":tr'
{ printf '{"gpu":true,"d":'; head -c 10000 /dev/zero | tr '\0' '['; head -c 10000 /dev/zero | tr '\0' ']'; printf '}'; } >"$TMP/deep.json"
"$HELPER" set-extra n2 "$TMP/deep.json"
scontrol update nodename=n3 extra='{"gpu":true,'
scontrol update nodename=n4 extra='[{"gpu":true}]'
wait_refresh
wid=$(submit --extra 'gpu=true')
# (with the guard alone, the look's set once its walk came)
guard_alone && wait_for 10 eval '[ "$(kept_off "$wid")" = "n[1-4]" ]'
expect "no usable node: constrained job waits, every node excluded" \
	"$(kept_off "$wid")" "n[1-4]"
scancel "$wid"
id=$(submit)
expect "unconstrained job unaffected" "$(wait_job "$id")" COMPLETED
wait_refresh
expect "log names n1 once (too long)" \
	"$(grep -c 'node n1: Extra is longer than the limit of 65536 bytes' "$LOG")" 1
expect "log names n2 once (too deep)" \
	"$(grep -c 'node n2: Extra is nested deeper than the limit of 32' "$LOG")" 1
expect "log names n3 once (not JSON)" "$(grep -c 'node n3: Extra is not valid JSON' "$LOG")" 1
expect "log names n4 once (array)" \
	"$(grep -c 'node n4: Extra is JSON but not an object' "$LOG")" 1
scontrol update nodename=n4 extra='{"gpu":true}'
wait_refresh
job_on "the one usable node is used" "n[1-3]" n4 -- --extra 'gpu=true'
alive "hostile Extra"
bash "$CLUSTER" extra >/dev/null
wait_refresh

echo "# hostile requests, sent raw to slurmctld (no client check)"
# Each byte 1-255 in a value: refused exactly for the 9 bytes that are the
# language's own (! & ( ) , < = > |: doc, "The language"), with the
# parser's message; every other byte is a value byte and accepted.
REFUSED_BYTES=" 33 38 40 41 44 60 61 62 124 "
wrong=()
for b in $(seq 1 255); do
	printf 'arch!=x%by' "$(printf '\\%03o' "$b")" >"$TMP/req"
	out=$("$HELPER" submit "$TMP/req" 2>&1)
	case "$REFUSED_BYTES" in
	*" $b "*) [[ $out == *"--extra: "* ]] || wrong+=("$b: want refused, got: ${out:0:60}") ;;
	*) [[ $out == "accepted "* ]] || wrong+=("$b: want accepted, got: ${out:0:60}") ;;
	esac
done
expect "every byte 1-255 in a value: refused exactly for the 9 operator bytes" \
	"$(printf '%s\n' "${wrong[@]}")" ""
# hostile REQUEST WANT: WANT is "accepted", or the start of the refusal.
hostile() {
	printf '%s' "$1" >"$TMP/req"
	local out
	out=$("$HELPER" submit "$TMP/req" 2>&1)
	if [ "$2" = accepted ]; then
		expect "accepted: ${1:0:40}" "${out%% *}" accepted
	else
		expect_has "refused: ${1:0:40}" "$out" "--extra: $2"
	fi
}
hostile 'k=%s%n%x%p' accepted
hostile '%s%n%x%p' "comparison operator expected after key '%s%n%x%p'"
hostile 'a=1&%n%n%n' "comparison operator expected after key '%n%n%n'"
hostile '$(reboot)`id`;|x' "comparison operator expected after key '\$'"
hostile 'a=1&&b' "leaf or '(' expected after '&', found '&'"
hostile "k=$(head -c 1018 /dev/zero | tr '\0' v)" accepted
hostile "k=$(head -c 1100 /dev/zero | tr '\0' v)" "request is 1102 bytes, longer than the limit of 1024"
hostile "$(printf '(%.0s' $(seq 510))a=1$(printf ')%.0s' $(seq 510))" accepted
hostile "$(printf '(%.0s' $(seq 600))a=1" "')' expected (to close '(' at column 600) before the end of the request"
hostile "$(head -c 1020 /dev/zero | tr '\0' '(')" "leaf or '(' expected, found the end of the request"
# The plugin's own lines: Slurm quotes job fields itself, through its own
# "%s" (`_update_job: setting admin_comment to ... request=k=%s%n%x%p`
# when the thread updates a job's AdminComment, which depends on timing).
plugin_lines() { grep -a 'job_submit/extra' "$LOG"; }
raw=$(plugin_lines | grep -a '%s%n%x%p\|%n%n%n')
expect "format directives never reach the plugin's log lines raw" "$raw" ""
expect_has "an invalid one is logged escaped" "$(cat "$LOG")" \
	"invalid request '\x25s\x25n\x25x\x25p': comparison operator expected after key '\x25s\x25n\x25x\x25p'"
expect "no control byte in the plugin's log lines" "$(plugin_lines | grep -caP '[\x01-\x08\x0b-\x1f\x7f]')" 0
expect "no byte >= 0x80 from requests in the plugin's log lines" "$(plugin_lines | grep -caP '[\x80-\xff]')" 0
alive "hostile requests"
scancel -u root
wait_for 60 queue_empty || not_ok "scancel emptied the queue within 60 s"

echo "# scontrol reconfigure with jobs queued"
for _ in 1 2 3; do submit --hold --extra 'gpu=true' >/dev/null; done
before=$(squeue -h -t all | wc -l)
mark=$(log_lines)
scontrol reconfigure
alive "reconfigure"
expect "no job lost over reconfigure" "$(squeue -h -t all | wc -l)" "$before"
# 23.11+ runs a new slurmctld, whose plugin loads the node data anew.
if slurm_at_least 23 11; then wait_refresh "$mark"; else wait_refresh; fi
job_on "filtering works after reconfigure" "n[2-3]" n1 n4 -- --extra 'gpu=true&mem>=512'

# wait_reconfigured FROM N: from 23.11, where `scontrol reconfigure`
# starts a new slurmctld, waits (30 s at most) until the plugin's init has
# run N times after log line FROM and slurmctld answers: the new process
# is up.  Slurm 25.05.8 itself dies (a worker thread calls a NULL pointer)
# when a second reconfigure reaches the new process while it starts, with
# no job_submit plugin at all; that is not what this test is about.
wait_reconfigured() {
	local from=$1 n=$2
	slurm_at_least 23 11 || return 0
	wait_for 60 eval '[ "$(plugin_inits_since "$from")" -ge "$n" ]' &&
		wait_for 60 eval 'scontrol ping 2>/dev/null | grep -q UP' ||
		not_ok "reconfigure $n: a new slurmctld with the plugin answered within 60 s"
}
reconfigure_once() {
	scontrol reconfigure
	wait_reconfigured "$@"
}

echo "# reconfigure that reloads the plugins (fini and init) with jobs queued"
before=$(squeue -h -t all | wc -l)
mark=$(log_lines) # the reloaded plugin loads the node data anew
k=0
for plugins in extra,all_partitions extra; do
	sed -i "s/^JobSubmitPlugins=.*/JobSubmitPlugins=$plugins/" "$SLURM_CONF"
	t0=$(date +%s%N)
	timeout 120 scontrol reconfigure
	rc=$?
	expect "reconfigure to $plugins answered (within 120 s; took $(( ($(date +%s%N) - t0) / 1000000 )) ms)" "$rc" 0
	k=$((k + 1))
	wait_reconfigured "$mark" "$k"
done
alive "plugin reload"
expect "no job lost over the plugin reloads" "$(squeue -h -t all | wc -l)" "$before"
if slurm_at_least 23 11; then
	# Slurm 23.11+ reconfigures by starting a new slurmctld (the old one
	# _exit()s without unloading plugins): each reconfigure is an init.
	expect "each reconfigure loaded the plugin anew" "$(plugin_inits_since "$mark")" 2
elif guard_alone; then
	# (22.05 reloads the plugins in the same process: fini and init)
	expect "each reload loaded the plugin anew" "$(plugin_inits_since "$mark")" 2
	expect "no thread to stop (the guard alone)" \
		"$(grep -c 'node data thread stopped' "$LOG")" 0
else
	stops=$(grep -oP 'node data thread stopped in \K[0-9]+' "$LOG")
	expect "the refresh thread was stopped twice" "$(wc -w <<<"$stops")" 2
	printf '  the thread stopped in %s ms\n' "$(echo $stops)"
fi
wait_refresh "$mark"
job_on "filtering works after the reload" "n[2-3]" n1 n4 -- --extra 'gpu=true&mem>=512'

echo "# 20 plugin reloads while the thread (or the guard's look) reads large node data"
{ printf '{"gpu":true,"mem":1024,"pad":"'; head -c 60000 /dev/zero | tr '\0' x; printf '"}'; } >"$TMP/60k.json"
for n in n1 n2 n3 n4; do "$HELPER" set-extra "$n" "$TMP/60k.json"; done
mark=$(log_lines)
k=0
for i in $(seq 10); do
	for plugins in extra,all_partitions extra; do
		sed -i "s/^JobSubmitPlugins=.*/JobSubmitPlugins=$plugins/" "$SLURM_CONF"
		k=$((k + 1))
		reconfigure_once "$mark" "$k"
		# a random gap, so that reloads fall at every point of a
		# refresh (the load being tested, not a wait)
		sleep "0.$((RANDOM % 10))"
	done
done
if slurm_at_least 23 11; then
	expect "20 reconfigures, 20 plugin loads" "$(plugin_inits_since "$mark")" 20
elif guard_alone; then
	expect "20 reloads, 20 plugin loads" "$(plugin_inits_since "$mark")" 20
	expect "no thread to stop (the guard alone)" \
		"$(grep -c 'node data thread stopped' "$LOG")" 0
else
	stops=$(grep -oP 'node data thread stopped in \K[0-9]+' "$LOG")
	expect "22 reloads, 22 stops" "$(wc -w <<<"$stops")" 22
	printf '  the slowest stop: %s ms\n' "$(sort -n <<<"$stops" | tail -1)"
	printf '  %d stops left a thread to finish its Slurm call\n' \
		"$(grep -c 'left to finish its Slurm call' "$LOG")"
fi
alive "20 plugin reloads"
mark=$(log_lines)
bash "$CLUSTER" extra >/dev/null
wait_refresh "$mark"
job_on "filtering works after 20 reloads" "n[2-3]" n1 n4 -- --extra 'gpu=true&mem>=512'

echo "# slurmctld restart with jobs queued"
before=$(squeue -h -t PENDING | wc -l)
t0=$(date +%s%N)
mark=$(log_lines)
bash "$CLUSTER" ctld-restart >/dev/null
rc=$?
expect "slurmctld restarted" "$rc" 0
printf '  in %d ms\n' $(( ($(date +%s%N) - t0) / 1000000 ))
alive "restart"
expect "no queued job lost over the restart" "$(squeue -h -t PENDING | wc -l)" "$before"
wait_for 30 eval '[ "$(plugin_inits_since "$mark")" -ge 1 ]' ||
	not_ok "the restarted slurmctld loaded the plugin within 30 s"
wait_refresh "$(init_mark "$mark")"
job_on "filtering works after the restart" "n[2-3]" n1 n4 -- --extra 'gpu=true&mem>=512'
scancel -u root --state=PENDING

# (contrib/local-cluster.sh does what systemd does once a stop times out:
# the cluster goes on after a slurmctld that hangs in its shutdown, as
# Slurm's own can before 24.11.6, and the kill is in slurmctld's log, which
# every test's summary counts)
echo "# a slurmctld that does not stop is killed at a restart"
# (what the kill loses is what slurmctld has not saved: a save after this
# second holds the jobs as they are)
t=$(date +%s)
wait_for 20 eval '[ "$(stat -c %Y "$XC_STATE/ctld/job_state" 2>/dev/null || echo 0)" -gt "$t" ]' || true
old=$(head -n 1 "$XC_STATE/slurmctld.pid")
mark=$(log_lines)
kill -STOP "$old"
XC_CTLD_STOP_S=3 bash "$CLUSTER" ctld-restart >/dev/null 2>&1
expect "slurmctld restarted after the stopped one was killed" "$?" 0
kill -CONT "$old" 2>/dev/null || true
CTLD_KILLS_EXPECTED=1
# (gone, or a zombie nobody reaps: /proc/PID/stat's state after the name)
st=$(sed 's/.*) //' "/proc/$old/stat" 2>/dev/null | cut -d' ' -f1)
expect "  the stopped one is gone" "$([ -z "$st" ] || [ "$st" = Z ] && echo gone || echo "$st")" gone
expect "  its log says so" "$(grep -c 'local-cluster: slurmctld killed after 3 s' "$XC_STATE/log/slurmctld.log")" 1
alive "a killed slurmctld"
wait_for 30 eval '[ "$(plugin_inits_since "$mark")" -ge 1 ]' ||
	not_ok "the restarted slurmctld loaded the plugin within 30 s"
wait_refresh "$(init_mark "$mark")"
scancel -u root --state=PENDING
wait_for 60 eval '[ -z "$(squeue -h -t RUNNING,COMPLETING)" ]' ||
	not_ok "no job runs 60 s after the kill"
job_on "filtering works after the kill" "n[2-3]" n1 n4 -- --extra 'gpu=true&mem>=512'
scancel -u root --state=PENDING

echo "# slurmctld started before any slurmd, then slurmds (re)starting"
bash "$CLUSTER" slurmd stop n1 n2 n3 n4
bash "$CLUSTER" ctld-restart >/dev/null
alive "no slurmd running"
# Submitted before the plugin has loaded the node data: accepted held,
# and filtered (then released) by the plugin's next round.
id=$(submit --extra 'gpu=true&mem>=512')
expect "constrained job accepted with no slurmd up" "$([[ $id =~ ^[0-9]+$ ]] && echo yes)" yes
wait_for 20 eval '[ "$(kept_off "$id")" = "n[2-3]" ]'
expect "  and its ExcNodeList is right once the plugin has the node data" \
	"$(kept_off "$id")" "n[2-3]"
bash "$CLUSTER" slurmd start n1 n2 n3 n4
bash "$CLUSTER" wait-nodes >/dev/null
expect "  it runs once slurmds are up" "$(wait_job "$id")" COMPLETED
expect_in "  on a matching node" "$(field "$id" NodeList)" n1 n4
bash "$CLUSTER" slurmd stop n1
bash "$CLUSTER" slurmd start n1
bash "$CLUSTER" wait-nodes >/dev/null
job_on "after slurmd n1 restarts" "n[2-3]" n1 n4 -- --extra 'gpu=true&mem>=512'
alive "slurmd restarts"

echo "# the check at start with other limits than slurmctld's (another extra.conf)"
hid=$(sbatch --parsable -H -o /dev/null --extra 'gpu=true' --wrap true)
pad=$(head -c 100 /dev/zero | tr '\0' x)
scontrol update nodename=n2 extra="{\"gpu\":true,\"pad\":\"$pad\"}"
scontrol update nodename=n3 extra='{"gpu":false}'
printf 'MaxExtraLength=64\n' >"$TMP/small.conf"
check=$(command -v slurm-extra-prolog-slurmctld)
# check_as_ctld NODE [NAME=VALUE...]: the check as slurmctld runs it for
# job $hid placed on NODE (only slurmctld's variables, SLURM_CONF added as
# the local cluster's wrapper does); its output, then "exit N".
check_as_ctld() {
	local node=$1 out rc
	shift
	out=$(env -i SLURM_CONF="$SLURM_CONF" SLURM_SCRIPT_CONTEXT=prolog_slurmctld SLURM_JOB_ID="$hid" \
		SLURM_JOB_NODELIST="$node" SLURM_JOB_EXTRA=gpu=true "$@" "$check" 2>&1)
	rc=$?
	printf '%s\nexit %d\n' "$out" "$rc"
}
out=$(check_as_ctld n2 SLURM_EXTRA_CONF="$TMP/small.conf")
expect "a node's Extra over the check's own limits: the job goes on" "$(tail -1 <<<"$out")" "exit 0"
expect_has "  and it says the node was not checked, and why" "$out" \
	"node n2's Extra is longer than the limit (extra.conf: $TMP/small.conf): not checked"
out=$(check_as_ctld n2)
expect "the same node with slurmctld's limits satisfies the request" "$(tail -1 <<<"$out")" "exit 0"
expect "  checked, and said nothing" "$(head -n -1 <<<"$out")" ""
out=$(check_as_ctld "n[2-3]" SLURM_EXTRA_CONF="$TMP/small.conf")
expect "a node over the limits, another not satisfying the request: requeue" "$(tail -1 <<<"$out")" "exit 1"
expect_has "  the second node is still checked" "$out" "node n3 does not satisfy its request"
out=$(check_as_ctld n3)
expect "a node that does not satisfy the request: the check says requeue" "$(tail -1 <<<"$out")" "exit 1"
expect_has "  and says why" "$out" "node n3 does not satisfy its request"
scancel "$hid"
bash "$CLUSTER" extra >/dev/null

echo "# a user's updates of jobs cost the plugin's thread a load of the jobs at most every 10 s"
# slurmctld's count of job loads (sdiag: REQUEST_JOB_INFO): the thread's,
# and any a client makes.  Windows of 12 updates a second apart, as
# xcuser1: of a job that does not exist (Slurm refuses it before
# job_modify(): the clients' own loads, the baseline), of their own
# pending job without a request (no hint at all), and of the ExcNodeList
# of their job with one (a hint each, paced as submissions are).  Before,
# every update that reached job_modify() made the next round load every
# job: one load a second, 12 in each window.
job_loads() { sdiag | grep -oP 'REQUEST_JOB_INFO\s+\(\s*\d+\)\s+count:\K\d+' || echo 0; }
# loads_while_updating JOB FIELD [GAP]: the job loads during 12 updates of
# JOB setting FIELD (comment: a field the plugin's plan does not read),
# GAP seconds apart (default 1).
loads_while_updating() {
	local c0 value
	sdiag -r >/dev/null
	c0=$(job_loads)
	for i in $(seq 12); do
		value=x$i
		[ "$2" = excnodelist ] && value=n$((i % 4 + 1))
		as xcuser1 scontrol update jobid="$1" "$2=$value" >/dev/null 2>&1
		sleep "${3:-1}"
	done
	echo $(($(job_loads) - c0))
}
plain=$(as xcuser1 sbatch --parsable -o /dev/null --begin=now+3600 --wrap true)
constrained=$(as xcuser1 sbatch --parsable -o /dev/null --begin=now+3600 --extra gpu=true --wrap true)
wait_for 20 test -n "$(field "$constrained" AdminComment)" || true
wait_refresh
base=$(loads_while_updating 999999 comment)
plain_loads=$(loads_while_updating "$plain" comment)
echo "# job loads in 12 s: $base updating no job, $plain_loads updating a job without a request"
expect "  no more than 2 loads above the baseline" \
	"$((plain_loads <= base + 2 ? 1 : 0))" 1
req_loads=$(loads_while_updating "$constrained" excnodelist)
echo "# job loads in 12 s updating a job with a request's ExcNodeList: $req_loads"
expect "  updates of a job with a request's ExcNodeList: no more than 3 loads above the baseline" \
	"$((req_loads <= base + 3 ? 1 : 0))" 1
# The same loop paced: an update every 2 s, so that the users' asks
# pause between rounds.  A hint loads its own job alone
# (REQUEST_JOB_INFO_SINGLE); before, each pause loaded every job: 12
# loads in the 24 s.
req_paced=$(loads_while_updating "$constrained" excnodelist 2)
echo "# job loads in 24 s updating it every 2 s: $req_paced"
expect "  paced updates: no more than 2 loads of every job above the 12 s baseline" \
	"$((req_paced <= base + 2 ? 1 : 0))" 1
# The last update set n1 (the plugin's n2 after it: gpu=false there).
# Once n2 has gpu, the plugin's part goes and the user's n1 stays: the
# paced hint still told the user's part from the plugin's.
expect "  the job's list after the last update: the user's n1, the plugin's n2" \
	"$(kept_off "$constrained")" "n[1-2]"
scontrol update nodename=n2 extra='{"gpu":true,"mem":2048}'
exc_is() { [ "$(kept_off "$constrained")" = "$1" ]; }
wait_for 20 exc_is n1 || true
expect "  n2 matches: the plugin's part goes, the user's stays" \
	"$(kept_off "$constrained")" n1
scancel "$plain" "$constrained"
bash "$CLUSTER" extra >/dev/null

echo "# doctor says whether the check at start reads what slurmctld reads"
# PrologSlurmctld naming the check itself, as a site would set it:
# slurmctld gives it no SLURM_CONF, so it reads the slurm.conf at
# libslurm's default path (none here: the cluster's is $SLURM_CONF), and
# the extra.conf beside that.  doctor runs it so (cmd_doctor.c,
# probe_check()).  libslurm's default path: the one in its strings that
# is not configless's cache (/run/slurm/conf).
default_conf=$(strings "$(ldd "$(command -v slurm-extra)" | awk '/libslurm/ { print $3; exit }')" |
	grep -x '/[^ ]*/slurm\.conf' | grep -v '^/run/' | head -1 || true)
doctor_says() { slurm-extra doctor 2>&1 | grep -qF -- "$1"; }
if ! grep -q '^PrologSlurmctld=' "$SLURM_CONF"; then
	echo "# (skipped: the cluster runs no PrologSlurmctld, XC_PROLOG_CTLD=0)"
elif [ -z "$default_conf" ] || [ -e "$default_conf" ] || ! mkdir -p "$(dirname "$default_conf")"; then
	not_ok "doctor's probe: libslurm's default slurm.conf ($default_conf) must be free to link for this test"
else
	cp "$SLURM_CONF" "$TMP/slurm.conf.saved"
	cp "$XC_STATE/extra.conf" "$TMP/extra.conf.saved"
	grep -v '^PrologSlurmctld=' "$TMP/slurm.conf.saved" >"$SLURM_CONF"
	echo "PrologSlurmctld=$check" >>"$SLURM_CONF"
	scontrol reconfigure
	wait_for 60 ctld_up
	wait_for 20 sh -c "scontrol show config | grep -qF '$check'" || true
	none="  set   the check at start reads slurmctld's configuration: run as slurmctld runs it (without SLURM_CONF) it reads none"
	wait_for 20 doctor_says "$none" || true
	expect_has "no slurm.conf at $default_conf: doctor says the check reads none" \
		"$(slurm-extra doctor 2>&1)" "$none"
	probe_link=$default_conf
	ln -s "$SLURM_CONF" "$default_conf"
	expect_has "  a link to the cluster's slurm.conf there: doctor says the check reads it" "$(slurm-extra doctor 2>&1)" \
		"  ok    the check at start reads slurmctld's configuration ($SLURM_CONF) and extra.conf limits"
	printf 'MaxExtraLength=64\n' >>"$XC_STATE/extra.conf"
	expect_has "  slurmctld's extra.conf with other limits than the one beside $default_conf: doctor says so" \
		"$(slurm-extra doctor 2>&1)" \
		"  set   the check at start reads the extra.conf of slurmctld's plugin: it reads $(dirname "$default_conf")/extra.conf, with other limits than $XC_STATE/extra.conf"
	probe_undo
	scontrol reconfigure
	wait_for 60 ctld_up
	alive "the PrologSlurmctld put back"
fi

summary fault
