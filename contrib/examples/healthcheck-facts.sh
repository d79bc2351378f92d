#!/bin/sh
# healthcheck-facts.sh - slurm-extra facts from slurmd's HealthCheckProgram
# (slurm-extra(1), facts): slurmd runs it as root every
# HealthCheckInterval, on every node, with at most 60 s; --timeout 30
# bounds the site's hooks together, and the GPU libraries.  (The path is
# the packages'; `make install` puts the command in /usr/local/bin.)  In slurm.conf:
#   HealthCheckProgram=/usr/local/sbin/healthcheck-facts.sh
#   HealthCheckInterval=600
# or add the slurm-extra line to the health check you already run (NHC).
# A publication that fails says why in syslog and leaves the node as it
# is: facts never drains a node.
# slurmd gives the program no PATH: set one, for the command and the
# site's hooks alike.
PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin
export PATH
node=${SLURMD_NODENAME:-$(hostname -s)}
out=$(/usr/bin/slurm-extra facts --publish --node "$node" --timeout 30 2>&1) ||
	logger -t slurm-extra-facts -- "$out"
exit 0
