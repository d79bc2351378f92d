/*
 * cmd_why.c - the command why: the request and the nodes to report on,
 * from the command line or from a Slurm job, for why_report() (why.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "slurm_compat.h"

#include "cli.h"
#include "job_state.h"
#include "prefer.h"
#include "why.h"

/* A job's preferences (doc/preferences.md "Preferences"): each tier with the
 * nodes of the job's (in[]) that satisfy the request `request` and it,
 * printed (the tiers and the status escaped: put_text), or with `json`
 * into *json (a new object: "prefer": [{"tier", "nodes"}, ...] with
 * "nodes" null for a tier that with the request is no valid request,
 * "wait", and "status" when the job has one).  0, or -1 when out of
 * memory. */
static int prefs_report(const struct sx_job_state *st, const char *request,
			const xc_nodes_t *t, const bool *in,
			const xc_limits_t *limits, json_t **json)
{
	size_t count = xc_nodes_count(t), mine = 0;
	bool *matched = node_flags(t);
	json_t *tiers = json ? json_array() : NULL;
	int rc = -1;

	if (!matched || (json && !tiers))
		goto out;
	for (size_t k = 0; k < count; k++)
		mine += in[k];
	if (!json && st->wait > 0)
		printf("preferences, waited for %ld s from EligibleTime:\n",
		       st->wait);
	else if (!json)
		printf("preferences, no wait: a free node only, for %d s from EligibleTime at most:\n",
		       PREFER_NOW_S);
	for (unsigned i = 0; i < st->n_prefer; i++) {
		char *text = prefer_compose(request, st->prefer[i]);
		xc_expr_t *e = text ? xc_parse(text, limits, NULL) : NULL;
		size_t n = 0;

		if (e && xc_nodes_match(t, e, matched) >= 0)
			for (size_t k = 0; k < count; k++)
				n += matched[k] && in[k];
		if (json &&
		    json_array_append_new(
			    tiers, json_pack("{s:s,s:o}", "tier", st->prefer[i],
					     "nodes",
					     e ? json_integer((json_int_t)n)
					       : json_null())) < 0) {
			xc_expr_destroy(e);
			free(text);
			goto out;
		}
		if (!json) { /* another user's tier: escaped */
			printf("  %u. ", i + 1);
			put_text(stdout, st->prefer[i]);
		}
		if (!json && e)
			printf(": %zu of %zu nodes satisfy the request and it\n",
			       n, mine);
		else if (!json)
			printf(": with the request, not a valid request: it narrows nothing\n");
		xc_expr_destroy(e);
		free(text);
	}
	if (json) {
		*json = json_pack("{s:O,s:I}", "prefer", tiers, "wait",
				  (json_int_t)st->wait);
		if (!*json ||
		    (st->status && *st->status &&
		     json_object_set_new(*json, "status",
					 json_string(st->status)) < 0))
			goto out;
	} else if (st->status && *st->status) {
		fputs("status: ", stdout);
		put_text(stdout, st->status);
		putchar('\n');
	}
	rc = 0;
out:
	if (rc < 0 && json) {
		json_decref(*json);
		*json = NULL;
	}
	json_decref(tiers);
	free(matched);
	return rc;
}

/* The report of o->request (why_report) on the nodes of `t` with in[i]
 * set, after `what` (may be "": nothing) on a line of its own, with the
 * preferences of `prefs`.  Returns the exit status. */
static int report(const struct opts *o, const xc_nodes_t *t, const bool *in,
		  const char *what, const struct sx_job_state *prefs)
{
	xc_expr_t *e;
	json_t *more = NULL;
	long n = -1;

	if (!(e = parse_request(o)))
		return EXIT_INVALID;
	if (*what && !o->json) {
		put_text(stdout, what);
		putchar('\n');
	}
	if (prefs->n_prefer && o->json &&
	    prefs_report(prefs, o->request, t, in, &o->limits, &more) < 0) {
		say("out of memory");
		goto out;
	}
	n = why_report(stdout, e, t, in, o->json, more);
	if (n >= 0 && prefs->n_prefer && !o->json &&
	    prefs_report(prefs, o->request, t, in, &o->limits, NULL) < 0)
		n = -1;
out:
	json_decref(more);
	xc_expr_destroy(e);
	return n < 0 ? EXIT_INVALID : n == 0 ? EXIT_NOMATCH : EXIT_MATCH;
}

int why_job(const struct opts *cl, const slurm_job_info_t *job,
	    const char *pnodes, const xc_nodes_t *t)
{
	/* a copy, for the job's request */
	struct opts o = *cl;
	struct sx_job_state prefs = { 0 };
	char *request = NULL, what[256] = "";
	bool *in = node_flags(t);
	int rc = EXIT_INVALID;

	if (in && read_job(job, pnodes, t, in, &request, what, sizeof(what),
			   &prefs) == 0) {
		o.request = request;
		rc = report(&o, t, in, what, &prefs);
	}
	sx_job_state_free(&prefs);
	free(request);
	free(in);
	return rc;
}

int cmd_why(const struct opts *cl)
{
	/* a copy, for --job to set --slurm in */
	struct opts copy = *cl, *o = &copy;
	job_info_msg_t *jobs = NULL;
	xc_nodes_t *t = NULL;
	bool *in = NULL;
	char *pnodes = NULL;
	struct sx_job_state prefs = { 0 };
	unsigned long jid = 0;
	size_t unknown;
	int rc = EXIT_INVALID;

	if (o->job && (o->request || o->nodes || o->within ||
		       o->nextra_prefer || o->extra_prefer_wait))
		return fail(
			"why --job reads the job's request, preferences and nodes: no REQUEST, --nodes, --within or --extra-prefer");
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
	if (load_table(o, t = xc_nodes_create(&o->limits)) < 0)
		goto out;
	if (o->job) {
		if (load_job((uint32_t)jid, &jobs, &pnodes) == 0)
			rc = why_job(o, &jobs->job_array[0], pnodes, t);
		goto out;
	}
	if (!(in = node_flags(t)) || read_prefer(o, &prefs) < 0)
		goto out;
	if (o->within) {
		if (read_within(o->within, t, in, &unknown) < 0)
			goto out;
	} else {
		for (size_t i = 0; i < xc_nodes_count(t); i++)
			in[i] = true;
	}
	rc = report(o, t, in, "", &prefs);
out:
	sx_job_state_free(&prefs);
	xc_nodes_destroy(t);
	free(in);
	free(pnodes);
	if (jobs)
		sx_free_job_info_msg(jobs);
	return rc;
}
