#!/usr/bin/env bash
# e2e-slurm-filter.sh - who filters by --extra where the plugins do not,
# on the real local cluster, without burst_buffer/extra:
# - first, on every Slurm, where nothing filters (no extra_constraints
#   either): job_submit/extra refuses a user's request, saying so
#   ("--extra: nothing filters by it here"), and from 23.02 their update
#   setting one; a job without a request runs;
# - then Slurm 23.11+ with its own filter on
#   (SchedulerParameters=extra_constraints): the job_submit plugin only
#   checks requests (positioned errors) and leaves filtering to Slurm; the
#   requests that crash 23.11.0-23.11.6's parser (a `)` with no `(` open;
#   fixed in 23.11.7 by Slurm's commit "Avoid a segfault from trying to
#   free an invalid pointer") are refused before they reach it, at
#   submission and in `scontrol update job=N extra=...`.  Without
#   burst_buffer/extra nothing would keep preferences: `--extra-prefer`
#   and `slurm-extra prefer` are refused naming it, and an update of the
#   request alone is Slurm's.  Before 23.11 Slurm has no such filter:
#   after the first part the test says so ("skipped: ...") and checks no
#   more.
# Closes with "slurm-filter: N passed, M failed".
# Needs root, `make install` and `make check` (tests/cluster/slurm-helper).
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
cluster_test e2e-slurm-filter.sh
# Slurm's filter alone, or none: no burst_buffer/extra (e2e-prefer and
# e2e-hostile run where Slurm filters with it)
export XC_BURST_BUFFER=

echo "# where nothing filters (no burst_buffer/extra, no extra_constraints): requests refused"
XC_SCHED_PARAMS=batch_sched_delay=0 cluster_start >/dev/null
out=$(as xcuser1 sbatch --parsable -o /dev/null --extra 'gpu=true' --wrap hostname 2>&1)
rc=$?
expect "xcuser1's sbatch --extra 'gpu=true' fails" "$([ "$rc" -ne 0 ] && echo failed)" failed
expect_has "  saying nothing filters by it here" "$out" "nothing filters by it here"
expect "  nothing queued" "$(squeue -h -u xcuser1 | wc -l)" 0
id=$(as xcuser1 sbatch --parsable -o /dev/null --wrap hostname 2>&1)
expect "a job without --extra: accepted" "$([[ $id =~ ^[0-9]+$ ]] && echo yes)" yes
expect "  and it runs" "$(wait_job "$id")" COMPLETED
if slurm_at_least 23 2; then
	id=$(as xcuser1 sbatch --parsable -o /dev/null -H --wrap hostname 2>&1)
	before=$(field "$id" Extra)
	as xcuser1 scontrol update job="$id" extra=gpu=true >/dev/null 2>&1
	expect "the owner's update setting a request fails" "$?" 1
	expect "  and the job's Extra is as it was" "$(field "$id" Extra)" "$before"
	scancel "$id"
fi
bash "$CLUSTER" stop >/dev/null 2>&1

slurm_filter_or_skip slurm-filter "Slurm's own filter (extra_constraints)"
cluster_start >/dev/null
bash "$CLUSTER" extra >/dev/null || exit 1

reason() { squeue -h -j "$1" -o %r 2>/dev/null; }
started() { case "$(field "$1" JobState)" in RUNNING | COMPLETED) return 0 ;; esac; return 1; }
alive() { expect "slurmctld still answers after $1" "$(scontrol ping 2>/dev/null | grep -o UP | head -1)" UP; }
# The job's AdminComment, spaces and all (scontrol gives it a line).
admin_comment() { scontrol show job "$1" | grep -oP '^\s*AdminComment=\K.*?(?= ?$)'; }

echo "# the plugin sees Slurm's filter and stands aside"
expect_has "it says so in slurmctld's log" "$(cat "$LOG")" \
	"job_submit/extra: SchedulerParameters has extra_constraints: Slurm filters by --extra itself; this plugin checks requests and refuses --extra-prefer (BurstBufferType=burst_buffer/extra keeps preferences)"

expect "glibc's mmap threshold is left alone" \
	"$(grep -c "glibc's mmap threshold set" "$LOG")" 0

echo "# doctor says who filters, for a user as for root"
for u in root xcuser1; do
	out=$(as "$u" slurm-extra doctor)
	expect "doctor ($u): Slurm's own filter" "$(grep '^filter:' <<<"$out")" \
		"filter: Slurm's own (SchedulerParameters extra_constraints)"
	expect "doctor ($u): no filter-mode settings to check" "$(grep -c 'PrologSlurmctld\|batch_sched_delay' <<<"$out")" 0
	expect_has "doctor ($u): JobSubmitPlugins" "$out" "  ok    JobSubmitPlugins=extra"
	expect "doctor ($u): preferences refused without burst_buffer/extra" "$(grep '^preferences:' <<<"$out")" \
		"preferences: refused: where Slurm filters, --extra-prefer needs BurstBufferType=burst_buffer/extra"
done

echo "# preferences need burst_buffer/extra: refused"
out=$(as xcuser1 sbatch --parsable -o /dev/null --extra gpu=true --extra-prefer 'mem>=4096' --wrap hostname 2>&1)
expect_has "sbatch --extra-prefer refused, naming what keeps preferences" "$out" \
	"--extra-prefer: where Slurm filters by --extra itself (SchedulerParameters=extra_constraints), preferences need BurstBufferType=burst_buffer/extra"
id=$(as xcuser1 sbatch --parsable -o /dev/null -H --extra gpu=true --wrap hostname 2>/dev/null | tail -n 1)
expect "a held job with a request alone: accepted" "$([[ $id =~ ^[0-9]+$ ]] && echo yes)" yes
out=$(as xcuser1 slurm-extra prefer --job "$id" --extra-prefer 'mem>=4096' 2>&1)
expect_has "slurm-extra prefer refused the same way" "$out" \
	"preferences need BurstBufferType=burst_buffer/extra"
expect "  and the job's Extra is its request" "$(field "$id" Extra)" "gpu=true"
expect "  and it has no state of the plugin's" "$(admin_comment "$id")" ""
expect "an update of its request is Slurm's: taken" \
	"$(as xcuser1 scontrol update job="$id" extra='gpu=true&mem>=512' 2>&1; field "$id" Extra)" "gpu=true&mem>=512"
scancel "$id"

echo "# a job an earlier release's thread left narrowed: doctor names it"
# thread_state WROTE: the state that thread gave a job with a preference
thread_state() { echo "slurm-extra: Slurm filters by the request (extra_constraints); held=0; wrote=$1; exclude=; wait=60; prefer=cache=ds1; request=gpu=true"; }
NARROW='(gpu=true)&(cache=ds1)'
id=$(submit -H --extra gpu=true)
scontrol update job="$id" extra="$NARROW" admincomment="$(thread_state "$(fnv "$NARROW")")"
# one whose Extra someone changed since (its hash not the one written)
mine=$(submit -H --extra gpu=true)
scontrol update job="$mine" extra='gpu=true&mem>=512' admincomment="$(thread_state "$(fnv "$NARROW")")"
out=$(as xcuser1 slurm-extra doctor)
expect "doctor (xcuser1) answers" "$(grep -c '^filter:' <<<"$out")" 1
expect "doctor (xcuser1): the narrowed job, not the changed one, and what gives it back" "$(grep '^leftover:' <<<"$out")" \
	"leftover: 1 pending job (the first: job $id) keeps the Extra an earlier release's thread narrowed to a preference: burst_buffer/extra gives it back at its look's next walk, else scontrol update job=ID extra=<the request= of its AdminComment>"
scontrol update job="$id" extra=gpu=true
out=$(as xcuser1 slurm-extra doctor)
expect "doctor: none once its Extra is its request" "$(grep -c '^filter:' <<<"$out") $(grep -c '^leftover:' <<<"$out")" "1 0"
scancel "$id" "$mine"

echo "# a valid request: accepted as it is, Slurm places the job"
id=$(submit --extra 'gpu=true&mem>=512')
expect "accepted" "$([[ $id =~ ^[0-9]+$ ]] && echo yes)" yes
expect "no ExcNodeList from the plugin" "$(field "$id" ExcNodeList)" "(null)"
expect "no AdminComment from the plugin" "$(admin_comment "$id")" ""
expect "Extra is the request" "$(field "$id" Extra)" "gpu=true&mem>=512"
expect "completed" "$(wait_job "$id")" COMPLETED
expect_in "on a node that satisfies it" "$(field "$id" NodeList)" n1 n4

echo "# a request no node satisfies waits (Slurm's reason) and runs when one does"
id=$(submit --extra 'gpu=true&mem>4096')
wait_for 15 eval '[ "$(reason "$id")" = Constraints ]'
expect "squeue reason: Constraints" "$(reason "$id")" Constraints
expect "slurm-extra why --job reads Slurm's own Extra of the waiting job" \
	"$(slurm-extra why --job "$id" | sed -n 2,3p)" "request: gpu=true&mem>4096
0 of 4 nodes satisfy it."
scontrol update nodename=n2 extra='{"gpu":true,"mem":8192}'
wait_for 30 started "$id"
expect "it runs on n2 once n2 satisfies it" "$(field "$id" NodeList)" n2
wait_job "$id" >/dev/null
bash "$CLUSTER" extra >/dev/null

echo "# job arrays and srun"
id=$(submit --array=1-4 --extra 'gpu=true&mem>=512')
for t in 1 2 3 4; do
	expect "array task $t completed" "$(wait_job "${id}_$t")" COMPLETED
	expect_in "  on n1 or n4" "$(field "${id}_$t" NodeList)" n1 n4
done
expect_in "srun --extra runs on n1 or n4" \
	"$(timeout 60 srun --extra 'gpu=true&mem>=512' printenv SLURMD_NODENAME 2>&1)" n1 n4

echo "# requests that crash Slurm 23.11.0-23.11.6 are refused with the caret"
for req in 'a=1)' '(a=1))' 'a=1)&b=2' 'a=1)|(b=2'; do
	out=$(sbatch --extra "$req" --wrap hostname 2>&1)
	expect_has "'$req': refused with the plugin's message" "$out" \
		"sbatch: error: --extra: unmatched ')' (column"
	expect_has "'$req': and a caret" "$out" "^"
	alive "'$req'"
done

echo "# scontrol update job=N extra=... is checked too"
id=$(submit -H --extra 'gpu=true')
out=$(scontrol update job="$id" extra='a=1)' 2>&1)
expect_has "extra='a=1)' refused with the plugin's message" "$out" "--extra: unmatched ')' (column 4)"
alive "scontrol update extra='a=1)'"
expect "the job's Extra is unchanged" "$(field "$id" Extra)" "gpu=true"
scontrol update job="$id" extra='gpu=true&mem>=512'
expect "a valid new request is taken" "$(field "$id" Extra)" "gpu=true&mem>=512"
scontrol release "$id"
expect "the released job completed" "$(wait_job "$id")" COMPLETED
expect_in "  on a node that satisfies the new request" "$(field "$id" NodeList)" n1 n4

# Slurm 23.11 still takes jobs from 22.05 clients, whose --extra is the
# SPANK option: the plugin hands the request over to Slurm as the job's
# extra.  Run when the system's Slurm is a 22.05 with spank_extra.so.
old=/usr/bin/sbatch
if slurm_at_least 23 11 && ! slurm_at_least 24 5 && [ -x "$old" ] &&
	"$old" --version | grep -qE '^slurm(-wlm)? 22\.05' &&
	ls /usr/lib/*/slurm-wlm/spank_extra.so >/dev/null 2>&1; then
	echo "# a 22.05 client's --extra (the SPANK option) is handed to Slurm"
	id=$("$old" --parsable -o /dev/null --extra 'gpu=true&mem>=512' --wrap hostname 2>&1)
	expect "accepted from $("$old" --version)" "$([[ $id =~ ^[0-9]+$ ]] && echo yes)" yes
	expect "the job's Extra is the request" "$(field "$id" Extra)" "gpu=true&mem>=512"
	expect "completed" "$(wait_job "$id")" COMPLETED
	expect_in "on a node that satisfies it" "$(field "$id" NodeList)" n1 n4
	out=$("$old" --extra 'a=1)' --wrap hostname 2>&1)
	expect_has "an invalid one is refused in the 22.05 client" "$out" "--extra: unmatched ')' (column 4)"
fi

alive "all of the above"
summary slurm-filter
