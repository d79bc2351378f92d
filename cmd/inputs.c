/*
 * inputs.c - what the command reads: the request, one node's Extra
 * (--extra), a file of nodes (--nodes), the running cluster's nodes
 * (--slurm), a hostlist (--within), a JSON document (--jobspec FILE), a
 * bounded standard input (from-flux -) and a Slurm job (why --job).
 * Every reader says on stderr why it failed (cli.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "slurm_compat.h"

#include "job_state.h"
#include "prefer.h"
#include "slurm_nodes.h"

#include "cli.h"
#include "xc_util.h"

void report_error(const char *input, const xc_error_t *err, const char *what)
{
	char prefix[96];
	char *text;

	snprintf(prefix, sizeof(prefix), "%s: error: %s", prog, what);
	text = xc_error_render(input, err, prefix);
	fprintf(stderr, "%s\n", text ? text : err->message);
	free(text);
}

xc_expr_t *parse_or_report(const struct opts *o)
{
	xc_error_t err;
	xc_expr_t *e = xc_parse(o->request, &o->limits, &err);

	if (!e)
		report_error(o->request, &err, "");
	return e;
}

xc_expr_t *parse_request(const struct opts *o)
{
	xc_error_t err;
	xc_expr_t *e;

	if (!o->json)
		return parse_or_report(o);
	if (!(e = xc_parse(o->request, &o->limits, &err)))
		print_json_line(error_json(&err));
	return e;
}

xc_extra_t *load_extra_arg(const struct opts *o)
{
	xc_extra_state_t st;
	xc_error_t err;
	xc_extra_t *extra = xc_extra_load(o->node_extra, strlen(o->node_extra),
					  &o->limits, &st, &err);

	if (err.code != XC_OK)
		say("error: %s", err.message);
	else if (!extra)
		say("note: node Extra is %s: no request matches it",
		    xc_extra_state_text(st));
	return extra;
}

json_t *load_json_arg(const char *arg, const char *what)
{
	json_error_t jerr;
	json_t *j;

	if (strcmp(arg, "-") == 0)
		j = json_loadf(stdin, JSON_DECODE_ANY, &jerr);
	else
		j = json_load_file(arg, JSON_DECODE_ANY, &jerr);
	if (!j && jerr.line < 0) /* jansson's mark of an I/O error */
		say("error: cannot read %s: %s", what, jerr.text);
	else if (!j)
		say("error: %s is not valid JSON: %s (line %d, column %d)",
		    what, jerr.text, jerr.line, jerr.column);
	return j;
}

char *extra_text(const json_t *v)
{
	return json_dumps(v, JSON_COMPACT | JSON_REAL_PRECISION(17));
}

/* Adds node `name` whose Extra the file gives as an object (extra_text). */
static int add_node_object(xc_nodes_t *t, const char *name, const json_t *v,
			   xc_error_t *err)
{
	char *text = extra_text(v);
	int r;

	if (!text) {
		snprintf(err->message, sizeof(err->message), "out of memory");
		return -1;
	}
	r = xc_nodes_add(t, name, text, NULL, err);
	free(text);
	return r;
}

/* Adds the nodes of a --nodes file to `t`; -1 after printing why not. */
static int load_nodes_file(const char *path, xc_nodes_t *t)
{
	json_t *root = load_json_arg(path, path), *v;
	const char *name;
	int rc = 0;

	if (!root)
		return -1;
	if (!json_is_object(root)) {
		say("%s: expected a JSON object mapping node names to Extra",
		    path);
		json_decref(root);
		return -1;
	}
	json_object_foreach (root, name, v) {
		xc_error_t err;
		int r;

		if (json_is_string(v) || json_is_null(v))
			r = xc_nodes_add(t, name, json_string_value(v), NULL,
					 &err);
		else if (json_is_object(v))
			r = add_node_object(t, name, v, &err);
		else {
			say("%s: node '%s': Extra must be an object, a string or null",
			    path, name);
			rc = -1;
			break;
		}
		if (r < 0) {
			say("%s", err.message);
			rc = -1;
			break;
		}
	}
	json_decref(root);
	return rc;
}

/* Adds the nodes of the running cluster to `t`; -1 after printing why
 * not. */
static int load_nodes_slurm(xc_nodes_t *t)
{
	node_info_msg_t *msg = NULL;
	xc_error_t err;
	int rc = 0;

	slurm_init(NULL);
	if (slurm_load_node((time_t)0, &msg, SHOW_ALL) != SLURM_SUCCESS) {
		say("cannot read the cluster's nodes: %s",
		    slurm_strerror(sx_slurm_errno()));
		return -1;
	}
	if (sx_nodes_add_msg(t, msg, &err) < 0) {
		say("%s", err.message);
		rc = -1;
	}
	sx_free_node_info_msg(msg);
	return rc;
}

int load_table(const struct opts *o, xc_nodes_t *t)
{
	if (!t) {
		say("out of memory");
		return -1;
	}
	return o->slurm ? load_nodes_slurm(t) : load_nodes_file(o->nodes, t);
}

/* Reads a hostlist from `f` to its end, whitespace read as ',' (once, and
 * not after a ','), one trailing ',' dropped: names one per line do as
 * well as a hostlist.  A malloc'd string, or NULL when out of memory. */
static char *read_hostlist(FILE *f)
{
	struct xc_text m;
	char *text;
	int ch, last = ',';

	if (!xc_text_open(&m))
		return NULL;
	while ((ch = getc(f)) != EOF) {
		if (isspace(ch) && last == ',')
			continue;
		if (isspace(ch))
			ch = ',';
		if (putc(ch, m.out) == EOF)
			break; /* xc_text_close() says so */
		last = ch;
	}
	if (!(text = xc_text_close(&m)))
		return NULL;
	if (*text && text[strlen(text) - 1] == ',')
		text[strlen(text) - 1] = '\0';
	return text;
}

bool *node_flags(const xc_nodes_t *t)
{
	size_t count = xc_nodes_count(t);
	bool *flags = calloc(count ? count : 1, sizeof(*flags));

	if (!flags)
		say("out of memory");
	return flags;
}

int read_within(const char *arg, const xc_nodes_t *t, bool *in, size_t *unknown)
{
	char *text = strcmp(arg, "-") == 0 ? read_hostlist(stdin) : strdup(arg);
	int rc = -1;

	*unknown = 0;
	if (!text)
		say("out of memory");
	else if (!*text)
		say("--within: an empty hostlist");
	else if (sx_nodes_mark(t, text, in, true, unknown) < 0)
		say("--within: '%s' is not a hostlist", text);
	else
		rc = 0;
	free(text);
	return rc;
}

char *read_bounded(FILE *f, size_t max, size_t *len)
{
	char *buf = malloc(max + 2);

	if (!buf)
		return NULL;
	*len = fread(buf, 1, max + 1, f);
	buf[*len] = '\0';
	return buf;
}

/* Whether `name` is one of the comma-separated names of `list`. */
static bool list_has(const char *list, const char *name)
{
	size_t n = name ? strlen(name) : 0;

	for (const char *hit = n ? strstr(list, name) : NULL; hit;
	     hit = strstr(hit + 1, name))
		if ((hit == list || hit[-1] == ',') &&
		    (hit[n] == ',' || hit[n] == '\0'))
			return true;
	return false;
}

/* The nodes of the partitions of `parts` that `list` (a job's
 * comma-separated partitions) names, their hostlists joined by ',': ""
 * when none is named or has nodes.  Malloc'd; NULL when out of memory. */
static char *partitions_nodes(const char *list,
			      const partition_info_msg_t *parts)
{
	struct xc_text m;
	bool any = false;

	if (!xc_text_open(&m))
		return NULL;
	for (uint32_t p = 0; p < parts->record_count; p++) {
		const partition_info_t *pi = &parts->partition_array[p];

		if (!list_has(list, pi->name) || !pi->nodes || !*pi->nodes)
			continue;
		fprintf(m.out, "%s%s", any ? "," : "", pi->nodes);
		any = true;
	}
	return xc_text_close(&m); /* NULL when a write ran out of memory */
}

int load_job(uint32_t jid, job_info_msg_t **jobs, char **pnodes)
{
	partition_info_msg_t *parts = NULL;
	const char *partition;

	*pnodes = NULL;
	if (sx_load_job(jobs, jid, SHOW_ALL) != SLURM_SUCCESS ||
	    !(*jobs)->record_count) {
		say("cannot read job %u: %s", jid,
		    slurm_strerror(sx_slurm_errno()));
		if (*jobs)
			sx_free_job_info_msg(*jobs);
		*jobs = NULL;
		return -1;
	}
	/* the nodes of its partitions */
	partition = (*jobs)->job_array[0].partition;
	if (partition &&
	    slurm_load_partitions((time_t)0, &parts, SHOW_ALL) ==
		    SLURM_SUCCESS &&
	    !(*pnodes = partitions_nodes(partition, parts))) {
		say("out of memory");
		slurm_free_partition_info_msg(parts);
		sx_free_job_info_msg(*jobs);
		*jobs = NULL;
		return -1;
	}
	if (parts)
		slurm_free_partition_info_msg(parts);
	return 0;
}

int read_job(const slurm_job_info_t *job, const char *pnodes,
	     const xc_nodes_t *t, bool *in, char **request, char *what,
	     size_t size, struct sx_job_state *prefs)
{
	struct sx_job_state st = { 0 };
	size_t count = xc_nodes_count(t);
	int rc = -1;

	*request = NULL;
	if (sx_job_state_parse(job->admin_comment, &st) && st.request)
		*request = strdup(st.request);
#if SX_SLURM_HAS_EXTRA_OPTION
	else if (job->extra && *job->extra)
		*request = strdup(job->extra);
#endif
	if (!*request) {
		say("job %u has no --extra request", job->job_id);
		goto out;
	}
	snprintf(what, size, "job %u (%s, partition %s)", job->job_id,
		 (job->job_state & JOB_STATE_BASE) == JOB_PENDING   ? "pending"
		 : (job->job_state & JOB_STATE_BASE) == JOB_RUNNING ? "running"
								    : "ended",
		 job->partition ? job->partition : "none");
	if (pnodes && *pnodes) {
		if (sx_nodes_mark(t, pnodes, in, true, NULL) < 0) {
			say("job %u: its partitions' nodes '%s' are not a hostlist",
			    job->job_id, pnodes);
			goto out;
		}
	} else {
		for (size_t i = 0; i < count; i++)
			in[i] = true;
	}
	/* less the user's own excluded nodes (kept as Slurm read them) */
	if (st.exclude && *st.exclude)
		(void)sx_nodes_mark(t, st.exclude, in, false, NULL);
	if (prefs) { /* its preferences and status, moved */
		memset(prefs, 0, sizeof(*prefs));
		prefs->prefer = st.prefer;
		prefs->n_prefer = st.n_prefer;
		prefs->wait = st.wait;
		prefs->status = st.status;
		st.prefer = NULL;
		st.n_prefer = 0;
		st.status = NULL;
	}
	rc = 0;
out:
	if (rc < 0) {
		free(*request);
		*request = NULL;
	}
	sx_job_state_free(&st);
	return rc;
}

int read_prefer(const struct opts *o, struct sx_job_state *st)
{
	char why[512];

	memset(st, 0, sizeof(*st));
	if (o->nextra_prefer > SX_MAX_PREFER) {
		say("--extra-prefer: at most %d preferences", SX_MAX_PREFER);
		return -1;
	}
	if (o->nextra_prefer &&
	    !(st->prefer = calloc((size_t)o->nextra_prefer, sizeof(char *)))) {
		say("out of memory");
		return -1;
	}
	for (int i = 0; i < o->nextra_prefer; i++) {
		xc_error_t err;
		xc_expr_t *e;

		if (strchr(o->extra_prefer[i], PREFER_SEP)) {
			say("--extra-prefer: a control byte (0x1E) in the request");
			sx_job_state_free(st);
			return -1;
		}
		e = xc_parse(o->extra_prefer[i], &o->limits, &err);

		if (!e) {
			json_t *j;

			if (o->json) { /* which tier: "preference": N */
				if ((j = error_json(&err)) &&
				    json_object_set_new(j, "preference",
							json_integer(i + 1)) <
					    0) {
					json_decref(j);
					j = NULL;
				}
				print_json_line(j);
			} else
				report_error(o->extra_prefer[i], &err,
					     "--extra-prefer: ");
			sx_job_state_free(st);
			return -1;
		}
		xc_expr_destroy(e);
		if (!(st->prefer[st->n_prefer++] =
			      strdup(o->extra_prefer[i]))) {
			say("out of memory");
			sx_job_state_free(st);
			return -1;
		}
	}
	if (o->extra_prefer_wait &&
	    prefer_wait_read(o->extra_prefer_wait, &st->wait, why,
			     sizeof(why)) < 0) {
		say("%s", why);
		sx_job_state_free(st);
		return -1;
	}
	if (o->extra_prefer_wait && !o->nextra_prefer) {
		say("--extra-prefer-wait: it needs --extra-prefer");
		sx_job_state_free(st);
		return -1;
	}
	return 0;
}

int drop_prefer(const struct opts *o)
{
	struct sx_job_state st;

	if (read_prefer(o, &st) < 0)
		return -1;
	sx_job_state_free(&st);
	if (o->nextra_prefer || o->extra_prefer_wait)
		say("--extra-prefer%s: dropped: Flux has no preferences (RFC 31 constraints are requirements)",
		    o->nextra_prefer ? "" : "-wait");
	return 0;
}
