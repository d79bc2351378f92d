#!/usr/bin/env bash
# e2e-carrier.sh - the feature carrier (extra.conf Carrier=features,
# doc/thread.md "Carriers") on a real local cluster, as its users meet it:
# a job's request reaches Slurm as a node feature ANDed into its
# constraint; a node's Extra change moves the feature, not the jobs; the
# user's own constraint, --prefer and ExcNodeList stay theirs through
# their updates, and another user's update is refused as Slurm alone
# refuses it; constraints with node counts keep the ExcNodeList; a
# feature that left every node brings its job back when it returns; a
# reconfigure (which drops features set by updates) is followed; arrays
# run on matching nodes; a feature the site made available but not
# active stays inactive.  Needs root and the plugins installed.  Prints
# one line a check and closes with "N passed, M failed".
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
cluster_test e2e-carrier.sh
export XC_EXTRA_CONF="${XC_EXTRA_CONF:-} Carrier=features"

cluster_start
bash "$CLUSTER" extra >/dev/null || exit 1
wait_refresh
U=xcuser1
O=xcuser2
GPU='gpu=true&mem>=512' # n1 n4 (contrib/examples/nodes.json)

# feature_of JOB: the plugin's feature in JOB's constraint ("" none)
feature_of() { field "$1" Features | grep -oE 'xc_[0-9a-f]{12}' | tail -n 1 || true; }
# nodes_with FEATURE: the nodes whose active features have FEATURE
nodes_with() {
	local l
	l=$(sinfo -N -h -o '%N %b' | awk -v f="$1" '{n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == f) print $1}' |
		sort -u | paste -sd, -)
	if [ -n "$l" ]; then scontrol show hostlist "$l"; else echo none; fi
}
# later ARGS...: a job of $U that waits an hour (BeginTime), its id
later() { as "$U" sbatch --parsable -o /dev/null --begin=now+3600 "$@" --wrap true 2>&1; }
carried() { [ -n "$(feature_of "$1")" ] && [ "$(field "$1" ExcNodeList)" = "$2" ]; }
admin_of() { scontrol show job "$1" | grep -oP 'AdminComment=\K.*' || true; }

echo "# a request goes by its feature once slurmctld knows it"
first=$(later --extra "$GPU")
wait_for 20 carried "$first" "(null)"
expect "the first job of a request: moved to its feature, its ExcNodeList empty again" \
	"$(field "$first" ExcNodeList)" "(null)"
F=$(feature_of "$first")
expect "its constraint is the feature alone" "$(field "$first" Features)" "$F"
expect "the feature is on the nodes that satisfy the request" "$(nodes_with "$F")" "n[1,4]"
second=$(later --extra "$GPU")
expect "the next job of the request has it at submission" "$(field "$second" Features)" "$F"
expect "and no ExcNodeList of the plugin's" "$(field "$second" ExcNodeList)" "(null)"
excl=$(later --extra "$GPU" --exclude n1)
expect "a user's --exclude is the whole ExcNodeList" "$(field "$excl" ExcNodeList)" "n1"

echo "# the site's features are kept beside the plugin's"
scontrol update nodename=n[1-2] availablefeatures=ib activefeatures=ib
scontrol update nodename=n[3-4] availablefeatures=big activefeatures=big
wait_for 20 eval '[ "$(nodes_with "$F")" = "n[1,4]" ]'
expect "the plugin's feature is back after the admin's update" "$(nodes_with "$F")" "n[1,4]"
expect "the admin's feature ib kept" "$(nodes_with ib)" "n[1-2]"
expect "the admin's feature big kept" "$(nodes_with big)" "n[3-4]"
# a feature the site made available but not active stays so: n1 leaves
# the request and comes back (the carrier updates it twice)
scontrol update nodename=n1 availablefeatures=ib,maint activefeatures=ib
extra_n1=$(scontrol show node n1 | grep -oP '^\s*Extra=\K.*')
scontrol update nodename=n1 extra='{"gpu":false}'
wait_for 20 eval '[ "$(nodes_with "$F")" = "n4" ]'
scontrol update nodename=n1 extra="$extra_n1"
wait_for 20 eval '[ "$(nodes_with "$F")" = "n[1,4]" ]'
expect "the feature is back on n1 once its Extra satisfies the request again" "$(nodes_with "$F")" "n[1,4]"
expect "  n1's maint, available but not active, stays inactive" \
	"$(sinfo -n n1 -N -h -o '%b' | tr ',' '\n' | grep -cx maint)" 0
expect "  and available" "$(sinfo -n n1 -N -h -o '%f' | tr ',' '\n' | grep -cx maint)" 1

echo "# the user's constraint and --prefer stay theirs"
own=$(later --extra "$GPU" --constraint=ib)
expect "submitted with --constraint=ib" "$(field "$own" Features)" "ib&$F"
# right after submission, before the thread has loaded the job, Slurm
# takes the owner's constraint as it is; the thread's next round puts the
# feature back
out=$(as "$U" scontrol update job="$own" features=big 2>&1)
expect "the owner sets features=big at once: accepted" "$out" ""
wait_for 10 eval '[ "$(field "$own" Features)" = "big&$F" ]'
expect "  the thread puts the feature back after it" "$(field "$own" Features)" "big&$F"
# the job known to the thread: job_modify() keeps it in the update itself
out=$(as "$U" scontrol update job="$own" features= 2>&1)
expect "the owner clears them: the feature stays" "$out$(field "$own" Features)" "$F"
out=$(as "$U" scontrol update job="$own" prefer=ib 2>&1)
expect "the owner sets prefer=ib" "$out$(field "$own" Prefer)" "ib&$F"
plain=$(later)
ref=$(as "$O" scontrol update job="$plain" features= 2>&1; echo "exit $?")
got=$(as "$O" scontrol update job="$own" features= 2>&1; echo "exit $?")
expect "another user's update is refused as Slurm alone refuses it" "${got//$own/N}" "${ref//$plain/N}"
expect "and the constraint is unchanged" "$(field "$own" Features)" "$F"

echo "# node counts: the ExcNodeList carries the request"
counts=$(later -N 2 --extra 'gpu=true' --constraint='[ib*1&big*1]')
expect "the constraint is the user's alone" "$(field "$counts" Features)" "[ib*1&big*1]"
expect "the ExcNodeList keeps the job off n2" "$(field "$counts" ExcNodeList)" "n2"
out=$(as "$U" scontrol update job="$own" features='[ib*1&big*1]' 2>&1)
expect "a carried job given counts leaves its feature" "$out$(field "$own" Features)" "[ib*1&big*1]"
expect "and gets the plugin's exclusions" "$(field "$own" ExcNodeList)" "n[2-3]"

echo "# a node's Extra change moves the feature, not the jobs"
before=$(admin_of "$second")
scontrol update nodename=n2 extra='{"gpu":true,"mem":4096,"arch":"x86_64","rack":1}'
wait_for 20 eval '[ "$(nodes_with "$F")" = "n[1-2,4]" ]'
expect "n2 carries the feature once it satisfies the request" "$(nodes_with "$F")" "n[1-2,4]"
expect "the job's state did not change" "$(admin_of "$second")" "$before"
expect "nor its ExcNodeList" "$(field "$second" ExcNodeList)" "(null)"
bash "$CLUSTER" extra >/dev/null
wait_for 20 eval '[ "$(nodes_with "$F")" = "n[1,4]" ]'
expect "and leaves it when it no longer does" "$(nodes_with "$F")" "n[1,4]"
scontrol update job="$second" starttime=now
expect "the job runs" "$(wait_job "$second")" COMPLETED
expect_in "on a node that satisfies the request" "$(field "$second" NodeList)" n1 n4

echo "# a feature that leaves every node, and comes back"
lone=$(later --extra 'ssd=nvme')
wait_for 20 carried "$lone" "(null)"
L=$(feature_of "$lone")
expect "carried by its feature" "$(nodes_with "$L")" "n4"
scontrol update nodename=n4 extra='{"gpu":true,"mem":512,"arch":"x86_64","rack":2}'
wait_for 20 eval '[ "$(nodes_with "$L")" = none ]'
expect "no node has it" "$(nodes_with "$L")" none
scontrol update job="$lone" starttime=now
wait_for 30 eval '! [[ "$(field "$lone" Reason)" =~ ^(BeginTime|None)$ ]]'
expect "the job waits, Slurm having found no node for it" "$(field "$lone" JobState) $(field "$lone" Reason)" "PENDING BadConstraints"

bash "$CLUSTER" extra >/dev/null
expect "it runs once a node satisfies its request again" "$(wait_job "$lone")" COMPLETED
expect "on that node" "$(field "$lone" NodeList)" n4

echo "# a user's copy of another request's feature only narrows the job"
narrow=$(as "$U" sbatch --parsable -o /dev/null --extra 'rack=2' --constraint="$F" --wrap true 2>&1)
expect "it ran" "$(wait_job "$narrow")" COMPLETED
expect "on the one node with both" "$(field "$narrow" NodeList)" n4

echo "# arrays"
arr=$(as "$U" sbatch --parsable -o /dev/null --array=1-4 --extra "$GPU" --wrap true 2>&1)
ran=()
for t in 1 2 3 4; do
	wait_job "${arr}_$t" >/dev/null
	ran+=("$(field "${arr}_$t" NodeList)")
done
expect "every task ran on n1 or n4" "$(printf '%s\n' "${ran[@]}" | grep -cvE '^(n1|n4)$')" 0

echo "# a reconfigure drops the features set by updates; the thread sets them again"
scontrol reconfigure
wait_for 30 eval '[ "$(nodes_with "$F")" = "n[1,4]" ]'
expect "the feature is back on its nodes" "$(nodes_with "$F")" "n[1,4]"
after=$(as "$U" sbatch --parsable -o /dev/null --extra "$GPU" --wrap true 2>&1)
expect "a job submitted after it runs" "$(wait_job "$after")" COMPLETED
expect_in "on a matching node" "$(field "$after" NodeList)" n1 n4
scontrol update job="$first" starttime=now
expect "a job carried before it runs" "$(wait_job "$first")" COMPLETED
expect_in "on a matching node" "$(field "$first" NodeList)" n1 n4

scancel -u "$U" 2>/dev/null
summary e2e-carrier
