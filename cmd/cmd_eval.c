/*
 * cmd_eval.c - the commands check, eval (one node's Extra, a file of
 * nodes, the cluster, or --batch lines) and explain (cli.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"

int cmd_check(const struct opts *o)
{
	xc_expr_t *e = parse_request(o);
	struct sx_job_state st;
	json_t *tiers;
	char *text;
	bool ok;

	if (!e)
		return EXIT_INVALID;
	if (read_prefer(o, &st) < 0) { /* --extra-prefer: checked too */
		xc_expr_destroy(e);
		return EXIT_INVALID;
	}
	if (!o->json) {
		int rc = print_request(e);

		for (unsigned i = 0; rc == EXIT_MATCH && i < st.n_prefer; i++)
			printf("preference %u: %s\n", i + 1, st.prefer[i]);
		if (rc == EXIT_MATCH && st.n_prefer)
			printf("wait: %ld s\n", st.wait);
		sx_job_state_free(&st);
		return rc;
	}
	text = xc_format(e);
	xc_expr_destroy(e);
	tiers = json_array();
	for (unsigned i = 0; tiers && i < st.n_prefer; i++)
		if (json_array_append_new(tiers, json_string(st.prefer[i])) <
		    0) {
			json_decref(tiers);
			tiers = NULL;
		}
	ok = text && tiers &&
	     print_json_line(
		     st.n_prefer ? json_pack("{s:b,s:s,s:o,s:I}", "valid", 1,
					     "request", text, "prefer", tiers,
					     "wait", (json_int_t)st.wait)
				 : json_pack("{s:b,s:s}", "valid", 1, "request",
					     text));
	if (!st.n_prefer)
		json_decref(tiers);
	free(text);
	sx_job_state_free(&st);
	return ok ? EXIT_MATCH : EXIT_INVALID;
}

/* Reads the nodes of --nodes or --slurm into a new table and evaluates `e`
 * on them, only those --within names counting: *tp gets the table and
 * *mp matched[] (one per node; both the caller's to free, also on
 * failure, either may be NULL).  With -v, says which nodes have no usable
 * Extra and how many match; with none matching, says so.  Returns the
 * number of matching nodes, or -1 after saying why not. */
static long match_nodes(const struct opts *o, const xc_expr_t *e,
			xc_nodes_t **tp, bool **mp)
{
	xc_nodes_t *t = xc_nodes_create(&o->limits);
	size_t n, count, outside = 0, within = 0;
	bool *matched;
	long m;

	*tp = t;
	*mp = NULL;
	if (!t || load_table(o, t) < 0)
		return -1;
	/* Columns and the name index: fast at 100,000 nodes (the plugin
	 * evaluates the same way). */
	(void)xc_nodes_compile(t, NULL);
	count = xc_nodes_count(t);
	if (!(*mp = matched = node_flags(t)))
		return -1;
	if ((m = xc_nodes_match(t, e, matched)) < 0) {
		say("out of memory");
		return -1;
	}
	n = (size_t)m;
	if (o->within) {
		bool *in = node_flags(t);
		size_t unknown;

		if (!in || read_within(o->within, t, in, &unknown) < 0) {
			free(in);
			return -1;
		}
		for (size_t i = 0; i < count; i++) {
			outside += matched[i] && !in[i];
			within += in[i];
			matched[i] = matched[i] && in[i];
		}
		n -= outside;
		free(in);
		if (o->verbose && unknown)
			say("--within names %zu host%s that %s not among the nodes",
			    unknown, unknown == 1 ? "" : "s",
			    unknown == 1 ? "is" : "are");
	}
	if (o->verbose) {
		for (size_t i = 0; i < count; i++)
			if (xc_nodes_state(t, i) != XC_EXTRA_OBJECT) {
				char why[96];

				say("node %s: Extra is %s", xc_nodes_name(t, i),
				    xc_extra_state_explain(xc_nodes_state(t, i),
							   &o->limits, why,
							   sizeof(why)));
			}
		if (o->within)
			say("%zu of %zu nodes within --within match", n,
			    within);
		else
			say("%zu of %zu nodes match", n, count);
	}
	if (n == 0 && o->within && within == 0)
		say("no node satisfies the request: --within names none of the %zu nodes (%zu of them %s)",
		    count, outside, outside == 1 ? "does" : "do");
	else if (n == 0 && o->within)
		say("no node satisfies the request (%zu checked within --within; %zu outside it %s)",
		    within, outside, outside == 1 ? "does" : "do");
	else if (n == 0)
		say("no node satisfies the request (%zu checked)", count);
	return (long)n;
}

long match_hostlist(const struct opts *o, const xc_expr_t *e, char **hl,
		    size_t *count)
{
	xc_nodes_t *t;
	bool *matched;
	long n = match_nodes(o, e, &t, &matched);

	*hl = NULL;
	*count = t ? xc_nodes_count(t) : 0;
	if (n > 0 && !(*hl = matched_hostlist(t, matched)))
		n = -1;
	free(matched);
	xc_nodes_destroy(t);
	return n;
}

/* eval REQUEST --nodes FILE | --slurm: the matching nodes as a hostlist,
 * or with --json how many match, of how many, and which. */
static int eval_nodes(const struct opts *o, const xc_expr_t *e)
{
	size_t count;
	char *hl;
	long n = match_hostlist(o, e, &hl, &count);
	int rc = n < 0 ? EXIT_INVALID : n == 0 ? EXIT_NOMATCH : EXIT_MATCH;

	if (o->json && n >= 0 &&
	    !print_json_line(json_pack(
		    "{s:I,s:I,s:s}", "satisfy", (json_int_t)n, "nodes",
		    (json_int_t)count, "hostlist", hl ? hl : "")))
		rc = EXIT_INVALID;
	else if (hl && !o->json)
		printf("%s\n", hl);
	free(hl);
	return rc;
}

/* One line of --batch: writes the result line to stdout. */
static void batch_line(const struct opts *o, const char *line, size_t len)
{
	json_error_t jerr;
	json_t *in = json_loadb(line, len, 0, &jerr), *jextra, *jexpr;
	json_t *res;
	xc_extra_t *extra = NULL;
	char *text = NULL;
	xc_expr_t *e = NULL;
	xc_error_t err;

	if (!in || !json_is_object(in) ||
	    !(jexpr = json_object_get(in, "expr")) || !json_is_string(jexpr)) {
		res = json_pack(
			"{s:s, s:s, s:i, s:s}", "result", "error", "code",
			xc_errcode_name(XC_E_JSON), "offset",
			in ? 0 : jerr.position, "message",
			in ? "expected {\"extra\": ..., \"expr\": \"...\"}"
			   : jerr.text);
		goto print;
	}
	e = xc_parse(json_string_value(jexpr), &o->limits, &err);
	if (!e) {
		res = json_pack("{s:s, s:s, s:I, s:I, s:s}", "result", "error",
				"code", xc_errcode_name(err.code), "offset",
				(json_int_t)err.offset, "end",
				(json_int_t)err.end, "message", err.message);
		goto print;
	}
	/* An object is written back as text (reals exactly) and read as
	 * Slurm reads Extra, like a string. */
	jextra = json_object_get(in, "extra");
	if (json_is_object(jextra))
		text = extra_text(jextra);
	else if (json_is_string(jextra))
		text = strdup(json_string_value(jextra));
	if (text)
		extra = xc_extra_load(text, strlen(text), &o->limits, NULL,
				      &err);
	if (text && err.code == XC_E_NOMEM) {
		fputs("{\"result\":\"error\",\"code\":\"nomem\"}\n", stdout);
	} else {
		fputs(xc_match(e, extra) ? "{\"result\":\"match\"}\n"
					 : "{\"result\":\"nomatch\"}\n",
		      stdout);
	}
	xc_extra_destroy(extra);
	free(text);
	xc_expr_destroy(e);
	json_decref(in);
	return;
print:
	if (!res || !put_json(stdout, res, JSON_COMPACT))
		fputs("{\"result\":\"error\",\"code\":\"nomem\"}\n", stdout);
	json_decref(res);
	xc_expr_destroy(e);
	json_decref(in);
}

static int cmd_batch(const struct opts *o)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	while ((len = getline(&line, &cap, stdin)) >= 0) {
		while (len > 0 &&
		       (line[len - 1] == '\n' || line[len - 1] == '\r'))
			len--;
		batch_line(o, line, (size_t)len);
	}
	free(line);
	if (fflush(stdout) != 0 || ferror(stdin))
		return fail("%s", strerror(errno));
	return EXIT_MATCH;
}

/* eval REQUEST --node-extra JSON: "match" or "no match", or with --json
 * {"result": "match"|"nomatch"}. */
static int eval_extra(const struct opts *o, const xc_expr_t *e)
{
	xc_extra_t *extra = load_extra_arg(o);
	int rc = xc_match(e, extra) ? EXIT_MATCH : EXIT_NOMATCH;

	if (!o->json)
		printf("%s\n", rc == EXIT_MATCH ? "match" : "no match");
	else if (!print_json_line(
			 json_pack("{s:s}", "result",
				   rc == EXIT_MATCH ? "match" : "nomatch")))
		rc = EXIT_INVALID;
	xc_extra_destroy(extra);
	return rc;
}

/* What a message that asks for --node-extra adds when --extra gave the
 * REQUEST (main.c, read_extra): a user who meant --extra JSON, its old
 * spelling, without a REQUEST sees why it is not the node's Extra. */
static const char *extra_is_request(const struct opts *o)
{
	return o->extra ? " (--extra gave the REQUEST)" : "";
}

int cmd_eval(const struct opts *o)
{
	xc_expr_t *e;
	int rc;

	if (o->batch)
		return cmd_batch(o);
	if (o->within && !o->nodes && !o->slurm)
		return fail("--within goes with --nodes or --slurm");
	if (!!o->node_extra + !!o->nodes + o->slurm != 1)
		return fail(
			"eval needs one of --node-extra, --nodes, --slurm%s",
			extra_is_request(o));
	if (!(e = parse_request(o)))
		return EXIT_INVALID;
	rc = o->node_extra ? eval_extra(o, e) : eval_nodes(o, e);
	xc_expr_destroy(e);
	return rc;
}

int cmd_explain(const struct opts *o)
{
	xc_expr_t *e;
	xc_extra_t *extra;
	char *text;
	int rc;

	if (!o->node_extra)
		return fail("explain needs --node-extra JSON%s",
			    extra_is_request(o));
	if (!(e = parse_request(o)))
		return EXIT_INVALID;
	extra = load_extra_arg(o);
	rc = xc_match(e, extra) ? EXIT_MATCH : EXIT_NOMATCH;
	if (o->json) {
		json_t *tree = extra ? explain_json(e, extra) : NULL;

		if ((extra && !tree) ||
		    !print_json_line(json_pack(
			    "{s:s,s:o*,s:s*}", "result",
			    rc == EXIT_MATCH ? "match" : "nomatch", "tree",
			    tree, "why",
			    extra ? NULL
				  : "node Extra is not a JSON object: no request matches it")))
			rc = EXIT_INVALID;
	} else {
		text = xc_explain(e, extra);
		fputs(text ? text : "out of memory\n", stdout);
		free(text);
	}
	xc_extra_destroy(extra);
	xc_expr_destroy(e);
	return rc;
}
