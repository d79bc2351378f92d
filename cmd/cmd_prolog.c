/*
 * cmd_prolog.c - the command prolog-slurmctld: what is left of an earlier
 * release's check at start, which slurmctld ran as its PrologSlurmctld
 * (under the name slurm-extra-prolog-slurmctld, since slurmctld passes no
 * arguments) to put back to waiting a job placed on a node whose Extra
 * no longer satisfied its request.  burst_buffer/extra now keeps every
 * job with a request off such nodes where Slurm places it, under the
 * same locks as the node choice (doc/guard.md "The guard at placement"),
 * so nothing is left to check when the job starts.
 *
 * A slurm.conf that still names it must not stop jobs: it says once per
 * run, to syslog (LOG_DAEMON, "slurm-extra": slurmctld keeps a
 * PrologSlurmctld's output nowhere) and to stderr, that it checks nothing
 * and should be removed, and exits 0.  `slurm-extra doctor` says so too.
 */
#include <stdio.h>
#include <syslog.h>

#include "cli.h"

#define GONE                                                                                                                                           \
	"prolog-slurmctld: the check at start is gone (burst_buffer/extra checks each placement): the job starts; remove PrologSlurmctld=" PROLOG_NAME \
	" from slurm.conf"

int cmd_prolog(const struct opts *o)
{
	(void)o;
	openlog("slurm-extra", LOG_PID, LOG_DAEMON);
	syslog(LOG_WARNING, "%s", GONE);
	closelog();
	fprintf(stderr, "%s: %s\n", prog, GONE);
	return 0;
}
