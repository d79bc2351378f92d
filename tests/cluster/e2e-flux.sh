#!/usr/bin/env bash
# e2e-flux.sh - the jobspecs of `slurm-extra jobspec` against a real Flux
# (doc/flux.md "A whole jobspec"): a test instance of flux-core installed
# under $XC_FLUX_PREFIX, four fake hosts fake[0-3] (16 cores and 4 gpus
# each, not verified against the machine), run by an unprivileged user
# (xcuser1 when run as root and it exists, else the caller).  Checks:
#   - the jobspec of Slurm's -N/-n/-c/--gpus-per-task/--exclusive/-t is
#     the one `flux run --dry-run` writes for the same options (resources,
#     tasks, duration, cwd, environment), in the same run;
#   - each jobspec V1 example (RFC 25's, RFC 46's V1 one) is accepted by
#     `flux job submit` and completes;
#   - a request resolved to a hostlist runs only on the nodes whose Extra
#     (a nodes file) satisfy it, as `slurm-extra eval` names them; a
#     hostlist naming a host outside the instance is refused by Flux, and
#     --within the instance's hostlist makes it run;
#   - Flux refuses the symbolic form (it has no `extra` operator), as
#     doc/flux.md says.
# Skipped, with a message, when XC_FLUX_PREFIX is unset.  Closes with
# "flux: N passed, M failed".
set -uo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

if [ "${1:-}" != --inside ]; then
	if [ -z "${XC_FLUX_PREFIX:-}" ]; then
		echo "skipped: a real Flux (set XC_FLUX_PREFIX to a flux-core install prefix)"
		echo "flux: 0 passed, 0 failed"
		exit 0
	fi
	FLUX=$XC_FLUX_PREFIX/bin/flux
	[ -x "$FLUX" ] || { echo "e2e-flux.sh: no $FLUX" >&2; echo "flux: 0 passed, 1 failed"; exit 1; }
	SX=${XC_SX:-$SRC/cmd/slurm-extra}
	[ -x "$SX" ] || SX=$(command -v slurm-extra)
	WORK=$(mktemp -d /tmp/xc-flux.XXXXXX)
	chmod 755 "$WORK"
	cp "$0" "$WORK/e2e-flux.sh"
	trap 'rm -rf "$WORK"' EXIT
	as=()
	if [ "$(id -u)" = 0 ] && id xcuser1 >/dev/null 2>&1; then
		as=(runuser -u xcuser1 --)
		chown xcuser1 "$WORK"
	fi
	echo "# flux-core $("$FLUX" version | awk '/^commands:/ {print $2}'), as $(${as[@]+"${as[@]}"} id -un)"
	cd "$WORK" || exit 1
	timeout 600 ${as[@]+"${as[@]}"} env SX="$SX" WORK="$WORK" "$FLUX" start \
		--test-size=4 --test-hosts='fake[0-3]' \
		--conf=resource.noverify=true \
		--conf='resource.config=[{"hosts":"fake[0-3]","cores":"0-15","gpus":"0-3"}]' \
		bash "$WORK/e2e-flux.sh" --inside >"$WORK/out" 2>&1
	rc=$?
	cat "$WORK/out"
	passed=$(grep -c '^ok ' "$WORK/out")
	failed=$(grep -c '^FAIL ' "$WORK/out")
	if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
		echo "FAIL - the instance exited with status $rc"
		failed=1
	fi
	echo "flux: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
fi

# ---- inside the instance: flux is on PATH, $SX the command, $WORK ours
cd "$WORK" || exit 1
ok() { echo "ok - $1"; }
bad() { echo "FAIL - $1${2:+: $2}"; }
# expect NAME GOT WANT
expect() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "got '$2', want '$3'"; fi; }

# The nodes' Extra, as `scontrol show node` would give them; fake4 is not
# in the instance.
cat >nodes.json <<'EOF'
{"fake0": {"gpu": false, "mem": 256},
 "fake1": {"gpu": true, "mem": 1024},
 "fake2": {"gpu": true, "mem": 512},
 "fake3": {"gpu": false, "mem": 2048},
 "fake4": {"gpu": true, "mem": 4096}}
EOF

# run NAME JOBSPEC: submits, waits for the job to be clean (60 s), and
# sets RESULT and NODES; returns 1 (after a FAIL) when not accepted.
run() {
	local id
	if ! id=$(flux job submit "$2" 2>submit.err); then
		bad "$1: accepted by flux job submit" "$(cat submit.err)"
		return 1
	fi
	flux job wait-event -t 60 "$id" clean >/dev/null 2>&1
	RESULT=$(flux jobs -no '{result}' "$id")
	NODES=$(flux jobs -no '{nodelist}' "$id")
	return 0
}

echo "# Slurm's options: the jobspec flux run writes for the same options"
for o in "-N2 -n4 -c2 -t 5m" "-n3" "-N2 -n3" "-N2 -n2 --exclusive" "-n2 -g1" "-N1 -n1 -t 1.5h" "-n2 -t 90" "-N2 -n2"; do
	flux run --dry-run $o hostname >flux.json
	"$SX" jobspec ${o/-g1/--gpus-per-task 1} -- hostname >ours.json 2>ours.err || {
		bad "jobspec $o" "$(cat ours.err)"
		continue
	}
	want=$(jq -cS '{resources, tasks, version, d: .attributes.system.duration, cwd: .attributes.system.cwd}' flux.json)
	got=$(jq -cS '{resources, tasks, version, d: .attributes.system.duration, cwd: .attributes.system.cwd}' ours.json)
	expect "jobspec $o: resources, tasks, duration and cwd as flux run's" "$got" "$want"
	# jq writes 300.0 as 300: the duration's JSON type as Python reads it
	# (float when flux run -t set it, int 0 when not)
	dtype() { python3 -c 'import json, sys; print(type(json.load(open(sys.argv[1]))["attributes"]["system"]["duration"]).__name__)' "$1"; }
	expect "jobspec $o: the duration a $(dtype flux.json), as flux run's" "$(dtype ours.json)" "$(dtype flux.json)"
	# flux sets MANPATH and _ for itself; the rest is the caller's
	want=$(jq -cS '.attributes.system.environment | del(.MANPATH, ._)' flux.json)
	got=$(jq -cS '.attributes.system.environment | del(.MANPATH, ._)' ours.json)
	expect "jobspec $o: the environment as flux run's" "$got" "$want"
done
flux run --dry-run -N2 hostname >flux.json
"$SX" jobspec -N2 -- hostname >ours.json
expect "-N2 alone: Slurm's meaning, nodes not exclusive (flux run's -N2 alone makes them so)" \
	"$(jq -c '[.resources[0].exclusive]' ours.json) $(jq -c '[.resources[0].exclusive]' flux.json)" "[null] [true]"

echo "# the jobspec V1 examples: accepted and run"
for s in 'node=4/slot/core=2' 'node=4/slot/core' 'node=4/slot{myslot}/core' \
	'slot=10/core=2' 'slot=10/[core=2;gpu]' 'node=4/slot=4/[core;gpu]' \
	'node=2{x}/slot=2/core=4'; do
	if ! "$SX" jobspec --shape "$s" -t 1m -- true >js.json 2>js.err; then
		bad "jobspec --shape $s" "$(cat js.err)"
		continue
	fi
	run "--shape $s" js.json && expect "--shape $s: completed" "$RESULT" COMPLETED
done

echo "# a resolved request: only nodes that satisfy it"
for c in "gpu=true|node=2/slot/core" "mem>=512|slot=3/core" "gpu=true&mem>=1024|node/slot/core=4" "mem<1000|slot=2/core"; do
	req=${c%%|*} shape=${c#*|}
	want=$("$SX" eval "$req" --nodes nodes.json --within "$(flux getattr hostlist)")
	if ! flux getattr hostlist | "$SX" jobspec --shape "$shape" --extra "$req" --resolve --nodes nodes.json \
		--within - -t 1m -- true >js.json 2>js.err; then
		bad "jobspec --extra '$req'" "$(cat js.err)"
		continue
	fi
	expect "'$req': the constraint names the nodes eval names" "$(jq -r '.attributes.system.constraints.hostlist[0]' js.json)" "$want"
	run "'$req' $shape" js.json || continue
	expect "'$req' $shape: completed" "$RESULT" COMPLETED
	# -f: a word that is not a job is a host (else "job fake1 not found")
	if ! extra=$(flux hostlist -f -m "$NODES" "$want" 2>&1) || [ -z "$NODES" ]; then
		bad "'$req' $shape: its nodes ('$NODES') against $want" "$extra"
		continue
	fi
	expect "'$req' $shape: ran on $NODES, inside $want" "$extra" ""
done
"$SX" jobspec --shape node/slot/core --extra 'gpu=true' --resolve --nodes nodes.json -- true >js.json
if flux job submit js.json >/dev/null 2>err.txt; then
	bad "without --within, a host outside the instance (fake4) is refused by Flux" "accepted"
else
	expect "without --within, a host outside the instance (fake4) is refused by Flux" \
		"$(cat err.txt)" "flux-job: host constraint contains invalid hosts: host 'fake4' not found"
fi

echo "# the symbolic form: Flux has no extra operator"
"$SX" jobspec --shape slot/core --extra 'gpu=true' -- true >js.json
if flux job submit js.json >/dev/null 2>err.txt; then
	bad "Flux refuses the symbolic form" "accepted"
else
	expect "Flux refuses the symbolic form" "$(cat err.txt)" "flux-job: unknown constraint operator 'extra'"
fi

echo "# not V1: refused here; with --any-shape, what Flux does"
"$SX" jobspec --shape 'slot=2/socket/core' -- true >/dev/null 2>err.txt
expect "slot=2/socket/core is refused (not V1)" "$(head -c 38 err.txt)" "slurm-extra: --shape: not jobspec V1 ("
"$SX" jobspec --any-shape --shape 'slot=2/socket/core' -t 1m -- true >js.json
if run "--any-shape slot=2/socket/core" js.json; then
	echo "# note: flux-core took slot=2/socket/core (not V1): $RESULT on $NODES"
fi
# doc/flux.md "Jobspec V1": what flux-core does with the others
"$SX" jobspec --any-shape --shape 'slot=3-30/core' -t 1m -- true >js.json
if flux job submit js.json >/dev/null 2>err.txt; then
	bad "a range count is refused by Flux's job-ingest" "accepted"
else
	expect "a range count is refused by Flux's job-ingest" "$(cat err.txt)" \
		"flux-job: resource count must be an integer for type 'slot' (got 'dict')"
fi
"$SX" jobspec --any-shape --shape 'slot=4/node' -t 1m -- true >js.json
run "--any-shape slot=4/node" js.json &&
	expect "slot=4/node: accepted, then fails at allocation" "$RESULT" FAILED
