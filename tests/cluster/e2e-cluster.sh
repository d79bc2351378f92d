#!/usr/bin/env bash
# e2e-cluster.sh - end-to-end test of slurm-extra on a real local Slurm
# cluster (contrib/local-cluster.sh: munged, slurmctld, four slurmd).
# Needs root and the plugins installed (make install).  Prints one line a
# check and closes with "N passed, M failed"; exits 1 if any failed.
# XC_KEEP=1 leaves the cluster running afterwards.
# The filter is burst_buffer/extra (doc/guard.md): its guard keeps jobs off
# at placement and its look keeps their excluded nodes (kept_off: the
# bitmap, after a walk); doctor names it, and the look names the nodes
# whose Extra jobs skip.  Skipped where it is not installed (nothing filters there).
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
cluster_test e2e-cluster.sh
command -v slurm-extra >/dev/null || { echo "e2e-cluster.sh: make install first" >&2; exit 2; }
filter_or_skip e2e

cluster_start
bash "$CLUSTER" extra >/dev/null || exit 1
look_settled
FILTER_LINE="filter: the plugin's (Carrier=guard: burst_buffer/extra keeps jobs off inside slurmctld)"

echo "# placement: jobs run only on nodes whose Extra satisfies the request"
job_on "gpu=true&mem>=512" "n[2-3]" n1 n4 -- --extra 'gpu=true&mem>=512'
job_on "arch=aarch64|ssd=nvme" "n[1-2]" n3 n4 -- --extra 'arch=aarch64|ssd=nvme'
job_on "rack=2&(mem<512|ssd=nvme)" "n[1-2]" n3 n4 -- --extra 'rack=2&(mem<512|ssd=nvme)'
job_on "b=anything (3.3 rule 6)" "n2" n1 n3 n4 -- --extra 'gpu=anything'
job_on "string compare arch<b" "n[1-2,4]" n3 -- --extra 'arch<b'

ids=()
for _ in 1 2 3 4; do ids+=("$(submit --extra 'gpu=true&mem>=512')"); done
ran=()
for id in "${ids[@]}"; do wait_job "$id" >/dev/null; ran+=("$(field "$id" NodeList)"); done
expect "4 queued jobs all ran on n1 or n4" \
	"$(printf '%s\n' "${ran[@]}" | grep -cvE '^(n1|n4)$')" 0
id=$(submit -N 2 --extra 'gpu=true&mem>=512')
wait_job "$id" >/dev/null
expect "a 2-node job gets exactly the 2 matching nodes" "$(field "$id" NodeList)" "n[1,4]"

echo "# the CLI reads the live cluster"
expect "slurm-extra eval --slurm" "$(slurm-extra eval 'gpu=true&mem>=512' --slurm)" "n[1,4]"
expect "slurm-extra to-flux --resolve --slurm" \
	"$(slurm-extra to-flux 'gpu=true&mem>=512' --resolve --slurm)" '{"hostlist":["n[1,4]"]}'
expect "slurm-extra to-flux --resolve --slurm --jobspec" \
	"$(slurm-extra to-flux 'arch=aarch64|ssd=nvme' --resolve --slurm --jobspec)" \
	'{"attributes":{"system":{"constraints":{"hostlist":["n[3-4]"]}}}}'
expect "slurm-extra eval --slurm --within: only those nodes count" \
	"$(slurm-extra eval 'gpu=true&mem>=512' --slurm --within 'n[3-4]')" "n4"
expect "a Flux instance's hosts on stdin (scontrol show hostnames, one a line)" \
	"$(scontrol show hostnames 'n[1-3]' | slurm-extra to-flux 'gpu=true&mem>=512' --resolve --slurm --within -)" \
	'{"hostlist":["n1"]}'
expect "no matching node within: says how many match outside" \
	"$(slurm-extra eval 'gpu=true&mem>=512' --slurm --within 'n[2-3]' 2>&1; echo "exit $?")" \
	"slurm-extra: no node satisfies the request (2 checked within --within; 2 outside it do)
exit 1"
expect "to-flux then from-flux gives the request back" \
	"$(slurm-extra to-flux 'rack=2&(mem<512|ssd=nvme)' | slurm-extra from-flux -)" 'rack=2&(mem<512|ssd=nvme)'

echo "# glibc's mmap threshold in slurmctld is left as it is"
expect "the plugin sets no threshold" \
	"$(grep -c "glibc's mmap threshold set to" "$LOG")" 0
ctld_env=/proc/$(head -n 1 "$XC_STATE/slurmctld.pid" 2>/dev/null)/environ
expect "slurmctld's environment has no threshold of its own" \
	"$([ -r "$ctld_env" ] && tr '\0' '\n' <"$ctld_env" | grep -c '^MALLOC_MMAP_THRESHOLD_=')" 0

echo "# doctor: what the cluster runs, for a user as for root"
held=$(submit -H --extra 'gpu=true')
plain=$(submit -H)
for u in root xcuser1; do
	out=$(as "$u" slurm-extra doctor 2>&1)
	expect "doctor ($u): exit 0" "$?" 0
	expect "doctor ($u): the filter" "$(grep '^filter:' <<<"$out")" "$FILTER_LINE"
	expect "doctor ($u): the nodes scontrol shows them" "$(grep '^nodes:' <<<"$out")" \
		"nodes: $(as "$u" scontrol show node -o | wc -l), $(as "$u" scontrol show node -o | grep -c 'Extra=[^ ]')"" with an Extra"
	expect "doctor ($u): the pending jobs squeue shows them" "$(grep '^pending jobs:' <<<"$out")" \
		"pending jobs: $(as "$u" squeue -h -t PD | wc -l), 1 with a request (filtered by burst_buffer/extra)"
	expect_has "doctor ($u): JobSubmitPlugins" "$out" "  ok    JobSubmitPlugins=extra"
	expect_has "doctor ($u): batch_sched_delay=0" "$out" "  ok    SchedulerParameters=batch_sched_delay=0"
	if slurm_at_least 23 11; then
		expect_has "doctor ($u): Slurm's own filter for 4 nodes" "$out" "recommended: Slurm's own filter (extra_constraints"
	else
		expect_has "doctor ($u): the guard before 23.11" "$out" "recommended: the guard at placement (BurstBufferType=burst_buffer/extra): Slurm $(scontrol --version | grep -oP '[0-9.]+$') has no filter of its own"
	fi
done
expect "doctor: no thread to speak of" "$(as xcuser1 slurm-extra doctor | grep -c "thread")" 0
scancel "$held" "$plain"

echo "# refusals"
out=$(sbatch --extra 'gpu=true&mem>=512|x=1' --wrap hostname 2>&1)
expect "invalid request: sbatch fails" "$([ $? -ne 0 ] && echo yes)" yes
expect_has "invalid request: message" "$out" \
	"sbatch: error: --extra: cannot mix '&' and '|' in one group; add parentheses (column 18)"
expect_has "invalid request: request shown" "$out" "  gpu=true&mem>=512|x=1"
expect_has "invalid request: caret under '|'" "$out" "$(printf '%19s' '^')"

# (A valid request no node satisfies is accepted and waits: e2e-wait.sh.)

# A client allowing longer requests than slurmctld: the controller refuses.
long="k=$(printf 'v%.0s' $(seq 1500))"
printf 'MaxRequestLength=4096\n' >"$XC_STATE/client-extra.conf"
out=$(SLURM_EXTRA_CONF="$XC_STATE/client-extra.conf" sbatch --extra "$long" --wrap hostname 2>&1)
expect "too long for slurmctld: sbatch fails" "$?" 1
expect_has "too long for slurmctld: refused by the controller" "$out" \
	"--extra: request is 1502 bytes, longer than the limit of 1024 (column 1025)"

echo "# --exclude is kept"
job_on "--exclude n1 with gpu=true" "n[1-2]" n3 n4 -- --extra 'gpu=true' --exclude n1
job_on "--exclude n2 (already excluded)" "n[2-3]" n1 n4 -- --extra 'gpu=true&mem>=512' --exclude n2

echo "# jobs without --extra are untouched"
id=$(submit)
expect "no --extra: ExcNodeList unset" "$(field "$id" ExcNodeList)" "(null)"
expect "no --extra: completed" "$(wait_job "$id")" COMPLETED
id=$(submit --exclude n4)
expect "no --extra, --exclude n4: unchanged" "$(field "$id" ExcNodeList)" "n4"

echo "# Extra updates are seen by the next job"
scontrol update nodename=n2 extra='{"gpu":true,"mem":8192,"arch":"x86_64","rack":1}'
look_settled
job_on "after update, mem>4096 runs on n2" "n[1,3-4]" n2 -- --extra 'mem>4096'

echo "# nodes whose Extra is unusable are skipped by constrained jobs only"
scontrol update nodename=n3 extra='this is not json'
scontrol update nodename=n1 extra='[1,2,3]'
look_settled
job_on "gpu=true skips n1 (array) and n3 (not JSON)" "n[1,3]" n2 n4 -- --extra 'gpu=true'
job_on "arch!=x matches no unusable node" "n[1,3]" n2 n4 -- --extra 'arch!=x'
id=$(submit -w n3)
expect "unconstrained job still runs on n3" "$(wait_job "$id")" COMPLETED
look_settled
expect "log names n3 once" "$(grep -c 'node n3: Extra is not valid JSON' "$LOG")" 1
expect "log names n1 once" "$(grep -c 'node n1: Extra is JSON but not an object' "$LOG")" 1
bash "$CLUSTER" extra >/dev/null
look_settled

echo "# srun and salloc"
out=$(srun --extra 'gpu=true&mem>=512' printenv SLURMD_NODENAME 2>&1)
expect_in "srun --extra runs on a matching node" "$out" n1 n4
out=$(salloc --extra 'ssd=nvme' srun printenv SLURMD_NODENAME 2>/dev/null)
expect "salloc --extra allocates the matching node" "$out" n4
out=$(srun --extra 'a=5&&b=5' true 2>&1)
expect_has "srun refuses an invalid request" "$out" \
	"srun: error: --extra: leaf or '(' expected after '&', found '&' (column 5)"

echo "# request text is escaped in slurmctld's log"
id=$(submit --extra 'arch=%s%n;$USER`id`')
wait_for 10 eval '[ "$(kept_off "$id")" = "n[1-4]" ]' || true
expect "format directives are a plain value: accepted, no node matches" "$(kept_off "$id")" "n[1-4]"
scancel "$id"
wait_for 10 log_has "'arch=\\x25s\\x25n;\$USER\`id\`'"
expect_has "log shows the request escaped" "$(cat "$LOG")" "'arch=\\x25s\\x25n;\$USER\`id\`'"
expect "log never shows it raw" "$(grep -c 'arch=%s%n' "$LOG")" 0

echo "# the controller is still fine"
expect "scontrol ping" "$(scontrol ping | grep -o 'UP' | head -1)" UP
expect "no job left pending or running" "$(squeue -h | wc -l)" 0

summary e2e
