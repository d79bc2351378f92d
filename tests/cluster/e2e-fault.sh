#!/usr/bin/env bash
# e2e-fault.sh - the real controller under fault: hostile node Extra,
# hostile requests, reconfigure and restarts, slurmctld before any slurmd.
# After each, slurmctld must still answer, and the filter still work.
# The filter is burst_buffer/extra (doc/guard.md): its guard keeps jobs off
# at placement, and its look names the unusable nodes, also across its
# reloads.  Skipped where it is not installed (nothing filters there).
# Needs root, `make install` and `make check` (for
# tests/cluster/slurm-helper).  Closes with "fault: N passed, M failed".
set -uo pipefail

TMP=$(mktemp -d)

. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
cluster_test e2e-fault.sh
filter_or_skip fault

ctld_up() { scontrol ping 2>/dev/null | grep -q UP; }
# alive WHAT: slurmctld answers (within 60 s) after WHAT.
alive() {
	wait_for 60 ctld_up
	expect "slurmctld still answers ($1)" "$(scontrol ping 2>/dev/null | grep -o UP | head -1)" UP
}

cluster_start 'rm -rf "$TMP"' >/dev/null
bash "$CLUSTER" extra >/dev/null || exit 1

echo "# hostile node Extra: 1 MiB, 10,000 deep, not JSON, an array"
{ printf '{"gpu":true,"pad":"'; head -c 1048576 /dev/zero | tr '\0' x; printf '"}'; } >"$TMP/big.json"
"$HELPER" set-extra n1 "$TMP/big.json"
expect "1 MiB Extra was set on n1" "$(scontrol show node n1 | grep -oP 'Extra=\K.{9}')" '{"gpu":tr'
{ printf '{"gpu":true,"d":'; head -c 10000 /dev/zero | tr '\0' '['; head -c 10000 /dev/zero | tr '\0' ']'; printf '}'; } >"$TMP/deep.json"
"$HELPER" set-extra n2 "$TMP/deep.json"
scontrol update nodename=n3 extra='{"gpu":true,'
scontrol update nodename=n4 extra='[{"gpu":true}]'
look_settled
wid=$(submit --extra 'gpu=true')
# (the look's set once its walk came)
wait_for 10 eval '[ "$(kept_off "$wid")" = "n[1-4]" ]'
expect "no usable node: constrained job waits, every node excluded" \
	"$(kept_off "$wid")" "n[1-4]"
scancel "$wid"
id=$(submit)
expect "unconstrained job unaffected" "$(wait_job "$id")" COMPLETED
look_settled
expect "log names n1 once (too long)" \
	"$(grep -c 'node n1: Extra is longer than the limit of 65536 bytes' "$LOG")" 1
expect "log names n2 once (too deep)" \
	"$(grep -c 'node n2: Extra is nested deeper than the limit of 32' "$LOG")" 1
expect "log names n3 once (not JSON)" "$(grep -c 'node n3: Extra is not valid JSON' "$LOG")" 1
expect "log names n4 once (array)" \
	"$(grep -c 'node n4: Extra is JSON but not an object' "$LOG")" 1
scontrol update nodename=n4 extra='{"gpu":true}'
look_settled
job_on "the one usable node is used" "n[1-3]" n4 -- --extra 'gpu=true'
alive "hostile Extra"
bash "$CLUSTER" extra >/dev/null
look_settled

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
# when a job's AdminComment is updated).
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
scontrol reconfigure
alive "reconfigure"
expect "no job lost over reconfigure" "$(squeue -h -t all | wc -l)" "$before"
# (23.11+ runs a new slurmctld, whose look walks anew)
look_settled
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
mark=$(log_lines)
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
else
	# (22.05 reloads the plugins in the same process: fini and init)
	expect "each reload loaded the plugin anew" "$(plugin_inits_since "$mark")" 2
fi
look_settled
job_on "filtering works after the reload" "n[2-3]" n1 n4 -- --extra 'gpu=true&mem>=512'

echo "# 20 plugin reloads while the guard's look reads large node data"
{ printf '{"gpu":true,"mem":1024,"pad":"'; head -c 60000 /dev/zero | tr '\0' x; printf '"}'; } >"$TMP/60k.json"
for n in n1 n2 n3 n4; do "$HELPER" set-extra "$n" "$TMP/60k.json"; done
mark=$(log_lines)
k=0
for _ in $(seq 10); do
	for plugins in extra,all_partitions extra; do
		sed -i "s/^JobSubmitPlugins=.*/JobSubmitPlugins=$plugins/" "$SLURM_CONF"
		k=$((k + 1))
		reconfigure_once "$mark" "$k"
		# a random gap, so that reloads fall at every point of a walk
		# of the look (the load being tested, not a wait)
		sleep "0.$((RANDOM % 10))"
	done
done
if slurm_at_least 23 11; then
	expect "20 reconfigures, 20 plugin loads" "$(plugin_inits_since "$mark")" 20
else
	expect "20 reloads, 20 plugin loads" "$(plugin_inits_since "$mark")" 20
fi
alive "20 plugin reloads"
bash "$CLUSTER" extra >/dev/null
look_settled
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
look_settled
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
look_settled
scancel -u root --state=PENDING
wait_for 60 eval '[ -z "$(squeue -h -t RUNNING,COMPLETING)" ]' ||
	not_ok "no job runs 60 s after the kill"
job_on "filtering works after the kill" "n[2-3]" n1 n4 -- --extra 'gpu=true&mem>=512'
scancel -u root --state=PENDING

echo "# slurmctld started before any slurmd, then slurmds (re)starting"
bash "$CLUSTER" slurmd stop n1 n2 n3 n4
bash "$CLUSTER" ctld-restart >/dev/null
alive "no slurmd running"
# Submitted with no node up: accepted, and kept off the nodes that do
# not match once the look has walked it.
id=$(submit --extra 'gpu=true&mem>=512')
expect "constrained job accepted with no slurmd up" "$([[ $id =~ ^[0-9]+$ ]] && echo yes)" yes
wait_for 20 eval '[ "$(kept_off "$id")" = "n[2-3]" ]'
expect "  and kept off the nodes that do not match once the look has walked it" \
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

summary fault
