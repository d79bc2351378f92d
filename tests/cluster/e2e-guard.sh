#!/usr/bin/env bash
# e2e-guard.sh - the guard at placement (BurstBufferType=burst_buffer/extra,
# doc/guard.md "The guard at placement") and its look: a job is never
# placed on a node whose Extra stopped satisfying its request, however
# little before; on the real local cluster, as an unprivileged user
# submits and an admin changes node data:
#
#   1. a batch job waiting; n2 stops matching and is freed at once: the
#      job still waits (kept off n2 by the guard at a placement, or by the
#      look first: printed), and runs on n1 once n1 comes to match;
#   2. srun (an immediate allocation, job_allocate()): n2 free, stops
#      matching just before the srun: the same;
#   3. a batch job preferring ib=p1 for 10 minutes, which no node has
#      (so it goes by its request alone), every node busy; n1 comes to
#      have ib=p1 and n2 is freed: the rule (doc/preferences.md
#      "Preferences") now has it wait for n1, where it runs once freed;
#   4. a batch job preferring ib=p1, else ib=p2, for 10 minutes: n1 has
#      ib=p1, n2 ib=p2, every node busy; n1 loses ib=p1 and is freed: the
#      rule now has it wait for n2, where it runs once freed (who kept it
#      off, the guard or the look, printed for both);
#   5. backfill's plan (the look, doc/guard.md "The look"): a batch job
#      waiting for ok=1, every node busy, n1 the one match, so backfill
#      plans it on n1; n1 stops matching: backfill plans it nowhere within
#      seconds.  Then n2 comes to match and is freed, and the job runs
#      there.
#   6. no node satisfies a waiting job's request any more (n1, busy, the
#      one match, stops matching): with the look every node is kept off
#      its plans, yet Slurm must not hold it as never runnable (22.05's
#      _schedule() does so for a job whose nodes are all excluded: the
#      guard judges each placement by the job's own set); n2 comes to
#      match, free, and the job runs there within a minute.
#
# And: the burst buffers Slurm shows are those of Slurm alone (none), and a
# heterogeneous batch job is answered as by Slurm alone (a cluster without
# the plugins, started first for both); the user's own --exclude stays
# theirs.  Last, a guard built for another Slurm than slurmctld runs (an
# upgrade before the rebuild): slurm-extra doctor names it, and slurmctld
# stops at start with Slurm's own message, neither crashing nor hanging.
# Needs root, `make install` of a build configured --with-slurm-source
# (burst_buffer_extra.so in Slurm's plugin directory) and `make check`.
# Closes with "guard: N passed, M failed".
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
cluster_test e2e-guard.sh

USER1=${XC_GUARD_USER:-xcuser1}
OUT=$(mktemp -d /tmp/xc-guard.XXXXXX)
chmod 1777 "$OUT"
# backfill plans every second (case 5 reads its plan)
export XC_SCHED_PARAMS=batch_sched_delay=0,bf_interval=1

if ! GUARD_SO=$(guard_so); then
	if [ "${XC_GUARD_REQUIRED:-0}" = 1 ]; then
		not_ok "burst_buffer_extra.so is installed (XC_GUARD_REQUIRED=1: setup was to build it)"
	else
		echo "skipped: the guard at placement: burst_buffer_extra.so not installed (configure --with-slurm-source=DIR)"
	fi
	summary guard
	exit
fi

as_user() { (cd /tmp && runuser -u "$USER1" -- env SLURM_CONF="$SLURM_CONF" PATH="$PATH" "$@"); }
set_extra() { scontrol update nodename="$1" extra="$2"; }
state() { field "$1" JobState; }
all_ok() { for n in n1 n2 n3 n4; do set_extra "$n" '{"ok":1}'; done; }
running() { for j in "$@"; do [ "$(state "$j")" = RUNNING ] || return 1; done; }
ran_on() { cat "$OUT/$1" 2>/dev/null | tail -n 1; }
admin_comment() { scontrol show job "$1" | grep -oP '^\s*AdminComment=\K.*?(?= ?$)'; }
# kept_by JOB: who kept job JOB off at a placement: "the guard" when
# slurmctld's log has its line for the job, else "the look" (which had
# the nodes off first: the guard logs the nodes it keeps off itself)
kept_by() { grep -qF "burst_buffer/extra: JobId=$1: " "$LOG" && echo "the guard" || echo "the look"; }

# case_batch: case 1 above (n1 at 0, the other nodes busy).  RAN: where
# the job ran.
case_batch() {
	local b2 b3 b4 id
	set_extra n1 '{"ok":0}'
	b2=$(blocker n2) b3=$(blocker n3) b4=$(blocker n4)
	wait_for 20 running "$b2" "$b3" "$b4" || not_ok "batch: waited 20 s for the three blockers"
	id=$(as_user sbatch --parsable -o "$OUT/batch" --extra 'ok=1' \
		--wrap 'echo $SLURMD_NODENAME')
	expect "the batch job is accepted" "$([[ $id =~ ^[0-9]+$ ]] && echo yes)" yes
	set_extra n2 '{"ok":0}'
	scancel "$b2"
	wait_for 8 eval '[ "$(state "$id")" != PENDING ]'
	echo "  batch: $(state "$id") $(field "$id" Reason) on $(field "$id" NodeList)"
	expect "the batch job still waits" "$(state "$id")" PENDING
	echo "  batch: kept off n2 by $(kept_by "$id")"
	set_extra n1 '{"ok":1}'
	wait_for 60 eval '[ "$(state "$id")" = COMPLETED ]' || not_ok "batch: the job ran within 60 s"
	scancel "$b3" "$b4"
	RAN=$(ran_on batch)
}

# case_srun: case 2 above (n1 not matching, n3 and n4 busy).  RAN: where
# its command ran.
case_srun() {
	local b3 b4 pid sid
	set_extra n1 '{"ok":0}'
	set_extra n2 '{"ok":1}'
	b3=$(blocker n3) b4=$(blocker n4)
	wait_for 20 running "$b3" "$b4" || not_ok "srun: waited 20 s for the two blockers"
	set_extra n2 '{"ok":0}'
	as_user srun --extra 'ok=1' -J xcsrun -t 1 sh -c 'echo $SLURMD_NODENAME' \
		>"$OUT/srun" 2>"$OUT/srun.err" &
	pid=$!
	wait_for 8 eval '[ -s "$OUT/srun" ]'
	sid=$(squeue -h -u "$USER1" -n xcsrun -o %i)
	expect "srun's job waits" "$(squeue -h -u "$USER1" -n xcsrun -o %T)" PENDING
	echo "  srun: kept off n2 by $(kept_by "${sid:-0}")"
	set_extra n1 '{"ok":1}'
	wait_for 60 eval '! kill -0 "$pid" 2>/dev/null' ||
		{ not_ok "srun ended within 60 s"; kill "$pid" 2>/dev/null; }
	wait "$pid"
	expect "srun succeeded" "$?" 0
	scancel "$b3" "$b4"
	RAN=$(ran_on srun)
}

# prefer_outcome NAME ID BLOCKER WAITS: what came of job ID of cases 3
# and 4 once the node changed: still waiting (WAITS), who kept it off
# printed; then BLOCKER cancelled to free the node it waits for, and the
# job run within 60 s.
prefer_outcome() {
	local name=$1 id=$2
	wait_for 8 eval '[ "$(state "$id")" != PENDING ]'
	echo "  $name: $(state "$id") $(field "$id" Reason) on $(field "$id" NodeList); kept off by $(kept_by "$id")"
	expect "$name: the job waits $4" "$(state "$id")" PENDING
	grep -F "burst_buffer/extra: JobId=$id: " "$LOG" | sed 's/^/    /'
	scancel "$3"
	wait_for 60 eval '[ "$(state "$id")" = COMPLETED ]' || not_ok "$name: the job ran within 60 s"
}

# case_prefer: case 3 above.  RAN: where the job ran.
case_prefer() {
	local b1 b2 b3 b4 id
	all_ok
	b1=$(blocker n1) b2=$(blocker n2) b3=$(blocker n3) b4=$(blocker n4)
	wait_for 20 running "$b1" "$b2" "$b3" "$b4" || not_ok "prefer: waited 20 s for the four blockers"
	id=$(as_user sbatch --parsable -o "$OUT/prefer" --extra 'ok=1' \
		--extra-prefer 'ib=p1' --extra-prefer-wait 10:00 --wrap 'echo $SLURMD_NODENAME')
	expect "the job with a preference is accepted" "$([[ $id =~ ^[0-9]+$ ]] && echo yes)" yes
	expect_has "the job's state names its preference" "$(admin_comment "$id")" "prefer=ib=p1"
	set_extra n1 '{"ok":1,"ib":"p1"}'
	scancel "$b2"
	prefer_outcome prefer "$id" "$b1" "for n1, its preference"
	scancel "$b1" "$b3" "$b4"
	RAN=$(ran_on prefer)
}

# case_prefer_lost: case 4 above.  RAN: where the job ran.
case_prefer_lost() {
	local b1 b2 b3 b4 id
	all_ok
	set_extra n1 '{"ok":1,"ib":"p1"}'
	set_extra n2 '{"ok":1,"ib":"p2"}'
	b1=$(blocker n1) b2=$(blocker n2) b3=$(blocker n3) b4=$(blocker n4)
	wait_for 20 running "$b1" "$b2" "$b3" "$b4" || not_ok "lost: waited 20 s for the four blockers"
	id=$(as_user sbatch --parsable -o "$OUT/lost" --extra 'ok=1' --extra-prefer 'ib=p1' \
		--extra-prefer 'ib=p2' --extra-prefer-wait 10:00 --wrap 'echo $SLURMD_NODENAME')
	expect "the job with two preferences is accepted" "$([[ $id =~ ^[0-9]+$ ]] && echo yes)" yes
	set_extra n1 '{"ok":1}'
	scancel "$b1"
	prefer_outcome lost "$id" "$b2" "for n2, its second preference"
	scancel "$b2" "$b3" "$b4"
	RAN=$(ran_on lost)
}

# case_plan: case 5 above.  PLANNED: the node backfill plans the job on
# 5 s after the change (SchedNodeList); RAN: where the job ran.
case_plan() {
	local b1 b2 b3 b4 id
	all_ok
	set_extra n2 '{"ok":0}'
	set_extra n3 '{"ok":0}'
	set_extra n4 '{"ok":0}'
	# n2's job ends first, then n1's: backfill plans by their limits
	b1=$(sbatch --parsable -o /dev/null -w n1 -t 20 --wrap 'sleep 1200')
	b2=$(sbatch --parsable -o /dev/null -w n2 -t 10 --wrap 'sleep 600')
	b3=$(sbatch --parsable -o /dev/null -w n3 -t 30 --wrap 'sleep 1800')
	b4=$(sbatch --parsable -o /dev/null -w n4 -t 30 --wrap 'sleep 1800')
	wait_for 20 running "$b1" "$b2" "$b3" "$b4" || not_ok "plan: waited 20 s for the four blockers"
	id=$(as_user sbatch --parsable -o "$OUT/plan" --extra 'ok=1' -t 1 \
		--wrap 'echo $SLURMD_NODENAME')
	expect "the batch job to plan is accepted" "$([[ $id =~ ^[0-9]+$ ]] && echo yes)" yes
	wait_for 15 eval '[ "$(field "$id" SchedNodeList)" = n1 ]'
	expect "backfill plans it on n1, the one match" "$(field "$id" SchedNodeList)" n1
	set_extra n1 '{"ok":0}'
	sleep 5
	PLANNED=$(field "$id" SchedNodeList)
	PLANNED=${PLANNED:-none}
	echo "  plan: 5 s after the change, planned on $PLANNED"
	set_extra n2 '{"ok":1}'
	scancel "$b2"
	wait_for 60 eval '[ "$(state "$id")" = COMPLETED ]' || not_ok "plan: the job ran within 60 s"
	scancel "$b1" "$b3" "$b4"
	RAN=$(ran_on plan)
}

# case_none: case 6 above.  RAN: where the job ran.
case_none() {
	local b1 id
	all_ok
	set_extra n2 '{"ok":0}'
	set_extra n3 '{"ok":0}'
	b1=$(blocker n1)
	wait_for 20 running "$b1" || not_ok "none: waited 20 s for the blocker"
	id=$(as_user sbatch --parsable -o "$OUT/none" --extra 'ok=1' -t 1 -x n4 \
		--wrap 'echo $SLURMD_NODENAME')
	expect "the batch job no node will satisfy is accepted" "$([[ $id =~ ^[0-9]+$ ]] && echo yes)" yes
	sleep 3
	set_extra n1 '{"ok":0}'
	sleep 8
	echo "  none: with no node matching: $(state "$id") $(field "$id" Reason), priority $(field "$id" Priority)"
	expect "the job waits, not held as never runnable (priority 0, BadConstraints)" \
		"$(state "$id")/$([ "$(field "$id" Priority)" != 0 ] && echo unheld)" PENDING/unheld
	set_extra n2 '{"ok":1}'
	wait_for 60 eval '[ "$(state "$id")" = COMPLETED ]' || not_ok "none: the job ran within 60 s of n2 matching"
	scancel "$b1"
	RAN=$(ran_on none)
}

echo "# Slurm alone, the reference: no burst_buffer/extra, no job_submit plugin"
XC_JOB_SUBMIT='' XC_BURST_BUFFER='' cluster_start "rm -rf '$OUT'" >/dev/null
bb_alone=$(scontrol show burst 2>&1)
printf '#!/bin/sh\necho $SLURMD_NODENAME\n' >"$OUT/het.sh"
chmod 755 "$OUT/het.sh"
het_alone=$(as_user sbatch --parsable -H -o /dev/null --extra ok=1 -n1 : -n1 "$OUT/het.sh" 2>&1 | sed 's/[0-9]\+/N/')
scancel -u "$USER1"
bash "$CLUSTER" stop >/dev/null 2>&1

echo "# with the guard (BurstBufferType=burst_buffer/extra)"
XC_BURST_BUFFER=burst_buffer/extra cluster_start "rm -rf '$OUT'" >/dev/null
expect "slurmctld runs the guard" "$(scontrol show config | grep -oP '^BurstBufferType\s*=\s*\K\S+')" \
	burst_buffer/extra
all_ok
expect "scontrol show burst answers as with no burst buffer plugin" "$(scontrol show burst 2>&1)" "$bb_alone"
expect "a heterogeneous batch job is answered as by Slurm alone ($het_alone)" \
	"$(as_user sbatch --parsable -H -o /dev/null --extra ok=1 -n1 : -n1 "$OUT/het.sh" 2>&1 | sed 's/[0-9]\+/N/')" "$het_alone"
scancel -u "$USER1"
case_batch
expect "the batch job waited, then ran on n1, which came to match" "$RAN" n1
case_srun
expect "srun's job waited, then ran on n1, which came to match" "$RAN" n1
case_prefer
expect "the job preferring ib=p1 waited for n1, then ran there" "$RAN" n1
case_prefer_lost
expect "the job preferring ib=p1, else ib=p2, waited for n2, then ran there" "$RAN" n2
case_plan
expect "backfill no longer planned the job on n1, 5 s after it stopped matching" "$PLANNED" none
expect "then it ran on n2, which came to match" "$RAN" n2
case_none
expect "the job no node satisfied for a while ran on n2 once it matched" "$RAN" n2

echo "# the user's own --exclude stays theirs"
all_ok
id=$(as_user sbatch --parsable -o "$OUT/exclude" --extra 'ok=1' -x n1,n2 -H --wrap 'echo $SLURMD_NODENAME')
set_extra n3 '{"ok":0}'
as_user scontrol release "$id"
wait_for 60 eval '[ "$(state "$id")" = COMPLETED ]' || not_ok "the job ran within 60 s"
expect "it ran on n4, the one node neither excluded nor at 0" "$(ran_on exclude)" n4
expect "its ExcNodeList is the user's" "$(field "$id" ExcNodeList)" "n[1-2]"
expect "no error of the guard in slurmctld's log" "$(grep -c 'error: .*burst_buffer/extra' "$LOG")" 0
bash "$CLUSTER" stop >/dev/null 2>&1

# other_build SO OUT OLD NEW: a copy of SO that says it was built for
# Slurm NEW (X.Y.Z) where SO says OLD: its plugin_version (found through
# its dynamic symbols and sections) and the mark slurm-extra doctor reads,
# as a build against another Slurm's tree says it.
other_build() {
	perl -e '
		my ($so, $out, $old, $new) = @ARGV;
		length($new) == length($old) or die "$new and $old differ in length";
		my ($M, $m, $u) = split /\./, $new;
		open(my $f, "<:raw", $so) or die "$so: $!";
		my $b = do { local $/; <$f> };
		close $f;
		my ($addr) = map { hex } (`readelf -sW $so` =~
			/^\s*\d+:\s+([0-9a-f]+)\s+\d+\s+OBJECT\s+\S+\s+\S+\s+\S+\s+plugin_version$/m);
		defined $addr or die "no plugin_version in $so";
		my $done = 0;
		for (split /\n/, `readelf -SW $so`) {
			next unless /\]\s+\S+\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)/;
			my ($a, $o, $s) = (hex $1, hex $2, hex $3);
			next unless $a && $addr >= $a && $addr < $a + $s;
			substr($b, $o + $addr - $a, 4) = pack("V", ($M << 16) + ($m << 8) + $u);
			$done = 1;
			last;
		}
		$done or die "no section holds plugin_version";
		$b =~ s/slurm-extra guard: Slurm \Q$old\E;/slurm-extra guard: Slurm $new;/ or die "no mark";
		open(my $g, ">:raw", $out) or die "$out: $!";
		print $g $b;
		close $g or die;
		chmod 0644, $out or die;
	' "$@"
}

echo "# a guard built for another Slurm (Slurm upgraded, the guard not rebuilt)"
# PluginDir: a directory of links to every plugin installed (a list of
# directories would let slurmctld pass over the file and load the next
# one's: plugin_load_and_link(), src/common/plugin.c)
PLUG=$(mktemp -d /tmp/xc-guard-plugins.XXXXXX)
chmod 755 "$PLUG"
ln -s "$(dirname "$GUARD_SO")"/* "$PLUG"/
XC_PLUGIN_DIR="$PLUG" XC_BURST_BUFFER=burst_buffer/extra \
	cluster_start "rm -rf '$OUT' '$PLUG'" >/dev/null
running_v=$(scontrol show config | grep -oP '^SLURM_VERSION\s*=\s*\K\S+')
# the next micro version or the one before, as many digits
other_v="${running_v%.*}.$((${running_v##*.} ^ 1))"
doc=$(as_user slurm-extra doctor 2>&1)
expect_has "doctor: the guard, built for the Slurm slurmctld runs" "$doc" "  ok    BurstBufferType=burst_buffer/extra"
expect_has "doctor: which Slurm the guard was built against" "$doc" \
	"the guard at placement: $PLUG/burst_buffer_extra.so on this host, built against Slurm $running_v; tree "
# replaced as a package upgrade does (a new file renamed over the link):
# the running slurmctld keeps the file it loaded
if other_build "$GUARD_SO" "$PLUG/.guard-other" "$running_v" "$other_v" &&
	mv -f "$PLUG/.guard-other" "$PLUG/burst_buffer_extra.so"; then
	doc=$(as_user slurm-extra doctor 2>&1)
	expect_has "doctor: a guard built for Slurm $other_v is named, with what slurmctld will do" "$doc" \
		"  set   $PLUG/burst_buffer_extra.so: built against Slurm $other_v, slurmctld runs $running_v: slurmctld stops at its next start"
	from=$(log_lines)
	bash "$CLUSTER" ctld-stop >/dev/null 2>&1
	# Slurm's own gate: an orderly stop at start (fatal(): status 1; a
	# crash is a signal, 128 and up), named in its log; not a hang
	setsid slurmctld -D >/dev/null 2>&1 &
	ctld=$!
	wait_for 30 eval '! kill -0 "$ctld" 2>/dev/null' ||
		{ not_ok "slurmctld stopped within 30 s of starting with it"; kill -9 "$ctld" 2>/dev/null; }
	wait "$ctld"
	expect "slurmctld stopped with status 1 (fatal(), no crash)" "$?" 1
	tail -n +"$((from + 1))" "$LOG" >"$OUT/mismatch.log"
	expect_has "slurmctld says the guard is for another version" "$(cat "$OUT/mismatch.log")" \
		"Incompatible Slurm plugin $PLUG/burst_buffer_extra.so version"
	# ("burst buffer" on 22.05, "burst_buffer" on 24.11)
	expect_has "and stops at start, as with any BurstBufferType it cannot load" "$(cat "$OUT/mismatch.log")" \
		"fatal: failed to initialize burst"
	ln -sf "$GUARD_SO" "$PLUG/burst_buffer_extra.so"
	bash "$CLUSTER" ctld-start >/dev/null 2>&1
	expect "the right file back, slurmctld starts with the guard" \
		"$(scontrol ping 2>&1 | grep -c UP)/$(scontrol show config | grep -oP '^BurstBufferType\s*=\s*\K\S+')" \
		1/burst_buffer/extra
else
	not_ok "a copy of the guard built for Slurm $other_v could be made (readelf, perl)"
fi

summary guard
