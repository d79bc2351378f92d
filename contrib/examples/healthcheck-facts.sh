#!/bin/sh
# healthcheck-facts.sh - slurm-extra facts from slurmd's HealthCheckProgram
# (slurm-extra(1), facts): slurmd runs it as root every
# HealthCheckInterval, on every node, with at most 60 s.  In slurm.conf:
#   HealthCheckProgram=/usr/local/sbin/healthcheck-facts.sh
#   HealthCheckInterval=600
# or add the slurm-extra line to the health check you already run (NHC).
# A publication that fails says why in syslog and leaves the node as it
# is: facts never drains a node.
node=${SLURMD_NODENAME:-$(hostname -s)}
out=$(slurm-extra facts --publish --node "$node" --timeout 10 2>&1) ||
	logger -t slurm-extra-facts -- "$out"
exit 0
