#!/usr/bin/env bash
# e2e-facts.sh - slurm-extra facts --publish on the real local cluster
# (doc/facts.md): each of n1-n4 publishes this machine's facts plus its own
# site files; slurmctld's count of node updates (sdiag, REQUEST_UPDATE_NODE)
# shows that a publication updates a node only when something changed; a
# key set by hand survives, a discovered key set by hand is restored, a site
# key the site dropped goes; the facts agree with what slurmd -C reports;
# users' jobs select nodes by them and wait for them; an unprivileged user
# is refused as scontrol update refuses them; a hook that hangs or prints
# garbage, an Extra that is not an object and an unreachable slurmctld
# leave the Extra as it was, with a message and a non-zero exit.  Closes
# with "facts: N passed, M failed".  Needs root, `make install` and `make
# check` (tests/cluster/slurm-helper).  The jobs are filtered by
# burst_buffer/extra; on 23.11 and later,
# XC_SCHED_PARAMS=batch_sched_delay=0,extra_constraints runs it with
# Slurm's own filter matching the published facts too.  Where nothing
# filters, the jobs' checks are skipped (the plugin refuses requests
# there), the rest run.
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
cluster_test e2e-facts.sh

S=$(mktemp -d /tmp/xc-facts.XXXXXX)
chmod 755 "$S"
cluster_start "rm -rf '$S'" >/dev/null
NODES=(n1 n2 n3 n4)

# slurmctld's count of node update RPCs since it started (0 before any).
updates() { sdiag | grep -oP 'REQUEST_UPDATE_NODE\s+\(\s*\d+\)\s+count:\K\d+' || echo 0; }
extra_of() { scontrol show node "$1" | grep -oP '^\s*Extra=\K.*'; }
# key NODE KEY: the node's Extra value under KEY, as JSON ("null" if none).
key() { extra_of "$1" | jq -c --arg k "$2" '.[$k]'; }
publish() { slurm-extra facts --publish --node "$1" --dir "$S/$1" --state "$S/state" "${@:2}"; }
publish_all() { for n in "${NODES[@]}"; do publish "$n" || echo "publish $n: exit $?"; done; }

# Per-node site facts, so that the nodes differ: rows a (n1, n2) and b (n3,
# n4); n4 runs a hook that licenses an application.
for n in "${NODES[@]}"; do
	mkdir -p "$S/$n"
	case $n in n1 | n2) row=a ;; *) row=b ;; esac
	printf '{"site_row": "%s", "site_node": "%s"}\n' "$row" "$n" >"$S/$n/10-site.json"
done
printf '#!/bin/sh\necho "{\\"licensed_app\\": true}"\n' >"$S/n4/20-license"
chmod 755 "$S"/n* "$S/n4/20-license"

echo "# every node publishes: one update each"
c0=$(updates)
out=$(publish_all 2>&1)
expect "4 publications, 4 updates (sdiag)" "$(($(updates) - c0))" 4
expect "each says what it set" "$(grep -c ': Extra updated: +cpu_arch ' <<<"$out")" 4
expect "n1's cpu_arch is uname -m" "$(key n1 cpu_arch)" "\"$(uname -m)\""
expect "n3's site_row is its site file's" "$(key n3 site_row)" '"b"'
expect "n4's licensed_app is its hook's" "$(key n4 licensed_app)" true
expect "n1 has no licensed_app" "$(key n1 licensed_app)" null
# The facts against Slurm's own reading of the node (slurmd -C).
conf=$(slurmd -C | head -1)
sc() { grep -oP "\\b$1=\\K\\d+" <<<"$conf"; }
expect "mem_mb is slurmd -C's RealMemory" "$(key n1 mem_mb)" "$(sc RealMemory)"
expect "cpu_threads is slurmd -C's CPUs" "$(key n1 cpu_threads)" "$(sc CPUs)"
expect "cpu_cores is slurmd -C's sockets x cores per socket" "$(key n1 cpu_cores)" \
	"$(($(sc Boards) * $(sc SocketsPerBoard) * $(sc CoresPerSocket)))"
expect "cpu_sockets is slurmd -C's boards x sockets per board" "$(key n1 cpu_sockets)" \
	"$(($(sc Boards) * $(sc SocketsPerBoard)))"
mkdir "$S/empty"
expect "the Extra is what facts prints, plus the site's" \
	"$(extra_of n1 | jq -c 'del(.site_row, .site_node)')" \
	"$(slurm-extra facts --dir "$S/empty" | jq -c .)"

echo "# again, nothing changed: no update"
c0=$(updates)
out=$(publish_all 2>&1)
expect "4 publications, 0 updates" "$(($(updates) - c0))" 0
expect "each says so" "$out" "n1: Extra unchanged
n2: Extra unchanged
n3: Extra unchanged
n4: Extra unchanged"

echo "# one node's site file changes: one update"
printf '{"site_row": "c", "site_node": "n2"}\n' >"$S/n2/10-site.json"
c0=$(updates)
out=$(publish_all 2>&1)
expect "4 publications, 1 update" "$(($(updates) - c0))" 1
expect "n2 says what changed" "$(grep -v unchanged <<<"$out")" "n2: Extra updated: ~site_row"
expect "n2's site_row" "$(key n2 site_row)" '"c"'

echo "# keys set by hand"
scontrol update nodename=n3 extra="$(extra_of n3 | jq -c '. + {owner: "chem"}')"
c0=$(updates)
out=$(publish_all 2>&1)
expect "a hand-set key: no update" "$(($(updates) - c0))" 0
expect "  and it stays" "$(key n3 owner)" '"chem"'
scontrol update nodename=n3 extra="$(extra_of n3 | jq -c '. + {cpu_arch: "by-hand"}')"
c0=$(updates)
out=$(publish_all 2>&1)
expect "a discovered key set by hand: one update" "$(($(updates) - c0))" 1
expect "  it is facts' again" "$(key n3 cpu_arch)" "\"$(uname -m)\""
expect "  the hand-set key still stays" "$(key n3 owner)" '"chem"'

echo "# a site key the site drops goes (the state remembers it was the site's)"
chmod 644 "$S/n4/20-license"
out=$(publish n4 2>&1)
expect "n4: licensed_app removed" "$out" "n4: Extra updated: -licensed_app"
expect "  not in its Extra" "$(key n4 licensed_app)" null

echo "# users' jobs select nodes by the facts, and wait for them"
req="cpu_arch=$(uname -m)&site_row=b&mem_mb>=1"
expect "slurm-extra eval: n[3-4] satisfy $req" "$(slurm-extra eval "$req" --slurm)" "n[3-4]"
# FILTERS: something filters the jobs by their request (else the plugin
# refuses them: what is left of this test needs no filter)
FILTERS=1
guard_loaded || slurm_filters || FILTERS=0
if [ "$FILTERS" = 1 ]; then
	id=$(as xcuser1 sbatch --parsable -o /dev/null --extra "$req" --wrap 'echo $SLURMD_NODENAME' 2>&1)
	wait_job "$id" >/dev/null
	expect_in "xcuser1's job ran on n3 or n4" "$(field "$id" NodeList)" n3 n4
	id=$(as xcuser2 sbatch --parsable -o /dev/null --extra 'licensed_app=true' --wrap true 2>&1)
	# Constraints where Slurm filters, BurstBufferStageIn where
	# burst_buffer/extra keeps it off at placement
	waits_for_nodes() {
		local r
		r=$(squeue -h -j "$1" -o %r)
		[[ $r == *Constraints ]] || { guard_loaded && [ "$r" = BurstBufferStageIn ]; }
	}
	wait_for 15 waits_for_nodes "$id" ||
		not_ok "waited 15 s for xcuser2's job to wait"
	expect "xcuser2's licensed_app job waits" "$(squeue -h -j "$id" -o %T)" PENDING
	chmod 755 "$S/n4/20-license"
	publish n4 >/dev/null
	wait_for 30 eval '[ "$(field "$id" JobState)" = COMPLETED ]' ||
		not_ok "waited 30 s for it to run"
	expect "  it runs on n4 once n4 publishes the key" "$(field "$id" NodeList)" n4
else
	if [ "${XC_GUARD_REQUIRED:-0}" = 1 ] && ! guard_so >/dev/null; then
		not_ok "burst_buffer_extra.so is installed (XC_GUARD_REQUIRED=1: setup was to build it)"
	else
		echo "skipped: users' jobs selecting by the facts: nothing filters by --extra here (no burst_buffer/extra, no extra_constraints)"
	fi
	chmod 755 "$S/n4/20-license"
	publish n4 >/dev/null
fi

echo "# an unprivileged user cannot publish, as scontrol update refuses them"
before=$(extra_of n1)
ref=$(as xcuser1 scontrol update nodename=n1 extra='{}' 2>&1)
ref_rc=$?
mkdir "$S/user"
printf '{"site_row": "mine"}\n' >"$S/user/10-site.json"
chmod -R a+rX "$S/user"
out=$(as xcuser1 slurm-extra facts --publish --node n1 --dir "$S/user" --state "$S/user" 2>&1)
rc=$?
expect "scontrol update as xcuser1 fails" "$ref_rc" 1
expect_has "  saying" "$ref" "Invalid user id"
expect "facts --publish as xcuser1 fails: exit 1" "$rc" 1
expect "  saying so, with Slurm's reason" "$out" \
	"slurm-extra: node n1: slurmctld refused the update: Invalid user id; its Extra is left as it is"
expect "  n1's Extra as it was" "$(extra_of n1)" "$before"
expect "  and no state written for the user" "$(ls "$S/user")" 10-site.json

echo "# another user locking the state directory holds no publication up"
held=$(as xcuser1 mktemp -u /tmp/xc-held-XXXXXX)
# (the lock is held until the file $held is removed)
as xcuser1 flock -x "$S/state" sh -c "touch '$held'; while [ -e '$held' ]; do sleep 0.2; done" &
locker=$!
wait_for 10 test -e "$held" || not_ok "xcuser1 holds the directory's lock"
# (the lock was the directory's: a publication waited as long as the user
# held it; 20 s is the bound of the wait here, the user holds it until
# the end of the check)
out=$(timeout 20 slurm-extra facts --publish --node n1 --dir "$S/n1" --state "$S/state" --timeout 2 2>&1)
expect "facts --publish while xcuser1 flocks the state directory: exit 0" "$?" 0
expect_has "  and it published" "$out" "n1: Extra"
expect "  the lock file is root's alone" "$(stat -c '%U %a' "$S/state/lock")" "root 600"
rm -f "$held"
wait "$locker"

if slurm_at_least 23 11; then
	echo "# 23.11 and later: slurmd --extra \"\$(slurm-extra facts)\" at slurmd's start"
	facts=$(slurm-extra facts --dir "$S/n2")
	hand=$(extra_of n2 | jq -c '. + {owner: "bio"}')
	scontrol update nodename=n2 extra="$hand"
	# slurmd_start_of N: the start of the slurmd of N that registered last;
	# registered_since N T: one started since T registered
	slurmd_start_of() { scontrol show node "$1" | grep -oP 'SlurmdStartTime=\K\S+'; }
	registered_since() { [ "$(slurmd_start_of "$1")" != "$2" ]; }
	started=$(slurmd_start_of n2)
	bash "$CLUSTER" slurmd stop n2 >/dev/null
	sleep 1 # (SlurmdStartTime is in seconds)
	slurmd --extra "$facts" -N n2
	wait_for 30 registered_since n2 "$started" || not_ok "waited 30 s for n2 to register"
	if slurm_at_least 26 5; then
		# 26.05 takes a registration's Extra only when the node booted
		# since slurmctld last heard from it: its first registration,
		# or a reboot (validate_node_specs(), SchedMD 3ee1b98e21)
		expect "26.05+: a slurmd restart with --extra keeps the Extra set by hand" "$(extra_of n2)" "$hand"
		kept=$hand
	else
		expect "n2 registered with the facts as its whole Extra" "$(extra_of n2)" "$facts"
		expect "  a key set by hand is replaced with the rest" "$(key n2 owner)" null
		kept=$facts
	fi
	if [ "$FILTERS" = 1 ]; then
		id=$(as xcuser2 sbatch --parsable -o /dev/null -w n2 --extra "site_row=c&cpu_threads>=1" --wrap true 2>&1)
		wait_job "$id" >/dev/null
		expect "xcuser2's job selecting n2 by them ran on n2" "$(field "$id" NodeList)" n2
	fi
	# back to slurmd without --extra: the Extra is left as it is
	started=$(slurmd_start_of n2)
	bash "$CLUSTER" slurmd stop n2 >/dev/null
	sleep 1
	bash "$CLUSTER" slurmd start n2 >/dev/null
	wait_for 30 registered_since n2 "$started" || not_ok "n2 back"
	expect "  slurmd without --extra leaves it" "$(extra_of n2)" "$kept"
else
	echo "skipped: slurmd --extra (Slurm 23.11 and later)"
fi

echo "# failures leave the Extra as it was"
printf '#!/bin/sh\nexec sleep 60\n' >"$S/n1/30-hang"
chmod 755 "$S/n1/30-hang"
t0=$(date +%s%3N)
out=$(publish n1 --timeout 1 2>&1)
rc=$?
t1=$(date +%s%3N)
expect "a hook that hangs: exit 2" "$rc" 2
expect_has "  said" "$out" "30-hang: did not finish within 1 s"
expect "  n1's Extra as it was" "$(extra_of n1)" "$before"
printf '  the hanging hook cost %d ms (timeout 1 s)\n' $((t1 - t0))
printf '#!/bin/sh\necho not json\n' >"$S/n1/30-hang"
out=$(publish n1 2>&1)
expect "a hook that prints garbage: exit 2" "$?" 2
expect_has "  said" "$out" "30-hang: not JSON"
expect "  n1's Extra as it was" "$(extra_of n1)" "$before"
rm -f "$S/n1/30-hang"
printf '{"bad": [1, 2]}\n' >"$S/n1/40-bad.json"
out=$(publish n1 2>&1)
expect "a fact that cannot stand in Extra: exit 2" "$?" 2
expect_has "  said" "$out" "the value of 'bad' is an array"
rm -f "$S/n1/40-bad.json"
if scontrol update nodename=n2 extra='plain text' 2>/dev/null; then
	out=$(publish n2 2>&1)
	expect "an Extra that is not a JSON object: exit 1" "$?" 1
	expect_has "  said" "$out" "node n2: its Extra is not a JSON object"
	expect "  n2's Extra as it was" "$(extra_of n2)" "plain text"
elif [[ ${XC_SCHED_PARAMS:-} == *extra_constraints* ]]; then
	# (with extra_constraints slurmctld refuses such an Extra itself)
	echo "skipped: an Extra that is not a JSON object (Slurm with extra_constraints refuses to set one)"
else
	not_ok "scontrol update nodename=n2 extra='plain text' refused"
fi
bash "$CLUSTER" ctld-stop >/dev/null 2>&1
out=$(publish n1 2>&1)
rc=$?
bash "$CLUSTER" ctld-start >/dev/null 2>&1
expect "slurmctld down: exit 1" "$rc" 1
expect_has "  said" "$out" "cannot read node n1 from slurmctld"
wait_for 30 eval 'scontrol ping | grep -q UP' || not_ok "slurmctld back"
expect "  n1's Extra as it was" "$(extra_of n1)" "$before"

summary facts
