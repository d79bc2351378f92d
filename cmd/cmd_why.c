/*
 * cmd_why.c - the command why: the request and the nodes to report on,
 * from the command line or from a Slurm job, for why_report() (why.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "why.h"

int cmd_why(const struct opts *cl)
{
	/* a copy, for --job to set --slurm and the job's request in */
	struct opts copy = *cl, *o = &copy;
	xc_nodes_t *t = NULL;
	xc_expr_t *e = NULL;
	bool *in = NULL;
	char *request = NULL, what[256] = "";
	unsigned long jid = 0;
	size_t unknown;
	long n = -1;

	if (o->job && (o->request || o->nodes || o->within))
		return fail(
			"why --job reads the job's request and nodes: no REQUEST, --nodes or --within");
	if (!o->job && !!o->nodes + o->slurm != 1)
		return fail("why needs one of --nodes, --slurm, --job");
	if (o->job) {
		char *end;

		jid = strtoul(o->job, &end, 10);
		if (!*o->job || *end || jid == 0 || jid > UINT32_MAX)
			return fail("--job: a job id expected, not '%s'",
				    o->job);
		o->slurm = true;
	}
	/* not compiled: the report reads each node's parsed Extra */
	if (load_table(o, t = xc_nodes_create(&o->limits)) < 0 ||
	    !(in = node_flags(t)))
		goto out;
	if (o->job) {
		if (load_job((uint32_t)jid, t, in, &request, what,
			     sizeof(what)) < 0)
			goto out;
		o->request = request;
	} else if (o->within) {
		if (read_within(o->within, t, in, &unknown) < 0)
			goto out;
	} else {
		for (size_t i = 0; i < xc_nodes_count(t); i++)
			in[i] = true;
	}
	if (!(e = parse_request(o)))
		goto out;
	if (*what && !o->json)
		printf("%s\n", what);
	n = why_report(stdout, e, t, in, o->json);
out:
	xc_expr_destroy(e);
	xc_nodes_destroy(t);
	free(in);
	free(request);
	return n < 0 ? EXIT_INVALID : n == 0 ? EXIT_NOMATCH : EXIT_MATCH;
}
