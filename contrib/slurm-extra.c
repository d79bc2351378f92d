/*
 * slurm-extra - check, evaluate and explain `--extra` requests.
 *
 *   slurm-extra check REQUEST
 *   slurm-extra eval REQUEST (--extra JSON | --nodes FILE | --slurm)
 *   slurm-extra eval --batch                  (JSON Lines on stdin)
 *   slurm-extra explain REQUEST --extra JSON
 *
 * Exit status: 0 valid / match, 1 no match, 2 invalid request or input.
 * See slurm-extra(1).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "xc.h"

#define EXIT_MATCH 0
#define EXIT_NOMATCH 1
#define EXIT_INVALID 2

static const char *prog = "slurm-extra";

struct opts {
	const char *extra;   /* --extra JSON */
	const char *nodes;   /* --nodes FILE */
	bool slurm;          /* --slurm */
	bool batch;          /* --batch */
	bool verbose;        /* -v */
	xc_limits_t limits;
	const char *request;
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: %s check REQUEST\n"
		"       %s eval REQUEST (--extra JSON | --nodes FILE | --slurm)\n"
		"       %s eval --batch  < lines.jsonl\n"
		"       %s explain REQUEST --extra JSON\n"
		"Options:\n"
		"  --extra JSON        one node's Extra (a JSON object)\n"
		"  --nodes FILE        JSON object: node name -> Extra ('-': stdin)\n"
		"  --slurm             the nodes of the running Slurm cluster\n"
		"  --batch             JSON Lines {\"extra\":..,\"expr\":..} on stdin\n"
		"  --max-length N      longest request accepted (default %d)\n"
		"  -v, --verbose       say how many nodes were checked\n"
		"  -h, --help          this text\n"
		"Exit status: 0 valid or match, 1 no match, 2 invalid.\n",
		prog, prog, prog, prog, XC_DEFAULT_MAX_REQUEST_LENGTH);
}

/* Parses the request or prints the rendered error; NULL on error. */
static xc_expr_t *parse_or_report(const struct opts *o)
{
	xc_error_t err;
	xc_expr_t *e = xc_parse(o->request, &o->limits, &err);
	char prefix[64];
	char *text;

	if (e)
		return e;
	snprintf(prefix, sizeof(prefix), "%s: error: ", prog);
	text = xc_error_render(o->request, &err, prefix);
	fprintf(stderr, "%s\n", text ? text : err.message);
	free(text);
	return NULL;
}

static int cmd_check(const struct opts *o)
{
	xc_expr_t *e = parse_or_report(o);
	char *text;

	if (!e)
		return EXIT_INVALID;
	text = xc_format(e);
	printf("%s\n", text);
	free(text);
	xc_expr_destroy(e);
	return EXIT_MATCH;
}

/* One node's Extra from --extra, or NULL after saying why it matches
 * nothing. */
static json_t *load_extra_arg(const struct opts *o)
{
	xc_extra_state_t st;
	json_t *extra = xc_extra_load(o->extra, strlen(o->extra), &o->limits,
				      &st);

	if (!extra)
		fprintf(stderr, "%s: note: node Extra is %s: no request matches it\n",
			prog, xc_extra_state_text(st));
	return extra;
}

/* Adds the nodes of a --nodes file to `t`; -1 after printing why not. */
static int load_nodes_file(const char *path, xc_nodes_t *t)
{
	json_error_t jerr;
	json_t *root, *v;
	const char *name;
	int rc = 0;

	root = strcmp(path, "-") == 0 ? json_loadf(stdin, 0, &jerr)
				      : json_load_file(path, 0, &jerr);
	if (!root) {
		fprintf(stderr, "%s: %s:%d:%d: %s\n", prog, path, jerr.line,
			jerr.column, jerr.text);
		return -1;
	}
	if (!json_is_object(root)) {
		fprintf(stderr, "%s: %s: expected a JSON object mapping node names to Extra\n",
			prog, path);
		json_decref(root);
		return -1;
	}
	json_object_foreach(root, name, v) {
		xc_error_t err;
		int r;

		if (json_is_string(v))
			r = xc_nodes_add(t, name, json_string_value(v), NULL,
					 &err);
		else if (json_is_object(v) || json_is_null(v))
			r = xc_nodes_add_json(t, name, v, &err);
		else {
			fprintf(stderr, "%s: %s: node '%s': Extra must be an object, a string or null\n",
				prog, path, name);
			rc = -1;
			break;
		}
		if (r < 0) {
			fprintf(stderr, "%s: %s\n", prog, err.message);
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
	int rc = 0;

	slurm_init(NULL);
	if (slurm_load_node((time_t)0, &msg, SHOW_ALL) != SLURM_SUCCESS) {
		fprintf(stderr, "%s: cannot read the cluster's nodes: %s\n",
			prog, slurm_strerror(slurm_get_errno()));
		return -1;
	}
	for (uint32_t i = 0; i < msg->record_count; i++) {
		node_info_t *n = &msg->node_array[i];
		xc_error_t err;

		if (!n->name)
			continue;
		if (xc_nodes_add(t, n->name, n->extra, NULL, &err) < 0) {
			fprintf(stderr, "%s: %s\n", prog, err.message);
			rc = -1;
			break;
		}
	}
	slurm_free_node_info_msg(msg);
	return rc;
}

/* Prints the matching nodes of `t` as one Slurm hostlist. */
static int print_hostlist(const xc_nodes_t *t, const bool *matched)
{
	hostlist_t hl = slurm_hostlist_create("");
	char *text;

	if (!hl)
		return -1;
	for (size_t i = 0; i < xc_nodes_count(t); i++)
		if (matched[i])
			slurm_hostlist_push_host(hl, xc_nodes_name(t, i));
	slurm_hostlist_uniq(hl);
	text = slurm_hostlist_ranged_string_malloc(hl);
	slurm_hostlist_destroy(hl);
	if (!text)
		return -1;
	printf("%s\n", text);
	free(text);
	return 0;
}

static int eval_nodes(const struct opts *o, xc_expr_t *e)
{
	xc_nodes_t *t = xc_nodes_create(&o->limits);
	bool *matched = NULL;
	size_t n, count;
	int rc = EXIT_INVALID;

	if (!t)
		goto out;
	if ((o->slurm ? load_nodes_slurm(t) : load_nodes_file(o->nodes, t)) < 0)
		goto out;
	count = xc_nodes_count(t);
	matched = calloc(count ? count : 1, sizeof(*matched));
	if (!matched)
		goto out;
	n = xc_nodes_match(t, e, matched);
	if (o->verbose) {
		for (size_t i = 0; i < count; i++)
			if (xc_nodes_state(t, i) != XC_EXTRA_OBJECT)
				fprintf(stderr, "%s: node %s: Extra is %s\n",
					prog, xc_nodes_name(t, i),
					xc_extra_state_text(xc_nodes_state(t, i)));
		fprintf(stderr, "%s: %zu of %zu nodes match\n", prog, n, count);
	}
	if (n == 0) {
		fprintf(stderr, "%s: no node satisfies the request (%zu checked)\n",
			prog, count);
		rc = EXIT_NOMATCH;
	} else if (print_hostlist(t, matched) == 0) {
		rc = EXIT_MATCH;
	}
out:
	free(matched);
	xc_nodes_destroy(t);
	return rc;
}

/* One line of --batch: writes the result line to stdout. */
static void batch_line(const struct opts *o, const char *line, size_t len)
{
	json_error_t jerr;
	json_t *in = json_loadb(line, len, 0, &jerr), *jextra, *jexpr;
	json_t *extra = NULL, *res;
	xc_expr_t *e = NULL;
	xc_error_t err;

	if (!in || !json_is_object(in) ||
	    !(jexpr = json_object_get(in, "expr")) || !json_is_string(jexpr)) {
		res = json_pack("{s:s, s:s, s:i, s:s}", "result", "error",
				"code", xc_errcode_name(XC_E_JSON), "offset",
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
	jextra = json_object_get(in, "extra");
	if (json_is_string(jextra))
		extra = xc_extra_load(json_string_value(jextra),
				      json_string_length(jextra), &o->limits,
				      NULL);
	else if (json_is_object(jextra))
		extra = json_incref(jextra);
	fputs(xc_match(e, extra) ? "{\"result\":\"match\"}\n"
				 : "{\"result\":\"nomatch\"}\n",
	      stdout);
	json_decref(extra);
	xc_expr_destroy(e);
	json_decref(in);
	return;
print:
	if (res) {
		json_dumpf(res, stdout, JSON_COMPACT);
		fputc('\n', stdout);
	} else {
		fputs("{\"result\":\"error\",\"code\":\"nomem\"}\n", stdout);
	}
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
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			len--;
		batch_line(o, line, (size_t)len);
	}
	free(line);
	if (fflush(stdout) != 0 || ferror(stdin)) {
		fprintf(stderr, "%s: %s\n", prog, strerror(errno));
		return EXIT_INVALID;
	}
	return EXIT_MATCH;
}

static int cmd_eval(const struct opts *o)
{
	xc_expr_t *e;
	json_t *extra;
	int rc;

	if (o->batch)
		return cmd_batch(o);
	if (!!o->extra + !!o->nodes + o->slurm != 1) {
		fprintf(stderr, "%s: eval needs one of --extra, --nodes, --slurm\n",
			prog);
		return EXIT_INVALID;
	}
	if (!(e = parse_or_report(o)))
		return EXIT_INVALID;
	if (o->extra) {
		extra = load_extra_arg(o);
		rc = xc_match(e, extra) ? EXIT_MATCH : EXIT_NOMATCH;
		printf("%s\n", rc == EXIT_MATCH ? "match" : "no match");
		json_decref(extra);
	} else {
		rc = eval_nodes(o, e);
	}
	xc_expr_destroy(e);
	return rc;
}

static int cmd_explain(const struct opts *o)
{
	xc_expr_t *e;
	json_t *extra;
	char *text;
	int rc;

	if (!o->extra) {
		fprintf(stderr, "%s: explain needs --extra JSON\n", prog);
		return EXIT_INVALID;
	}
	if (!(e = parse_or_report(o)))
		return EXIT_INVALID;
	extra = load_extra_arg(o);
	text = xc_explain(e, extra);
	rc = xc_match(e, extra) ? EXIT_MATCH : EXIT_NOMATCH;
	fputs(text ? text : "out of memory\n", stdout);
	free(text);
	json_decref(extra);
	xc_expr_destroy(e);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "extra", required_argument, NULL, 'e' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "slurm", no_argument, NULL, 's' },
		{ "batch", no_argument, NULL, 'b' },
		{ "max-length", required_argument, NULL, 'L' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { 0 };
	const char *cmd;
	char *end;
	int c;

	if (argc < 2) {
		usage(stderr);
		return EXIT_INVALID;
	}
	cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
		usage(stdout);
		return 0;
	}
	optind = 2;
	while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'e': o.extra = optarg; break;
		case 'n': o.nodes = optarg; break;
		case 's': o.slurm = true; break;
		case 'b': o.batch = true; break;
		case 'v': o.verbose = true; break;
		case 'L':
			errno = 0;
			o.limits.max_request_length = strtoul(optarg, &end, 10);
			if (errno || *end || o.limits.max_request_length == 0) {
				fprintf(stderr, "%s: --max-length: a positive number expected\n",
					prog);
				return EXIT_INVALID;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_INVALID;
		}
	}
	if (optind < argc)
		o.request = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (quote the request)\n",
			prog, argv[optind]);
		return EXIT_INVALID;
	}
	if (!o.request && !(strcmp(cmd, "eval") == 0 && o.batch)) {
		fprintf(stderr, "%s: %s needs a REQUEST\n", prog, cmd);
		usage(stderr);
		return EXIT_INVALID;
	}
	if (strcmp(cmd, "check") == 0)
		return cmd_check(&o);
	if (strcmp(cmd, "eval") == 0)
		return cmd_eval(&o);
	if (strcmp(cmd, "explain") == 0)
		return cmd_explain(&o);
	fprintf(stderr, "%s: unknown command '%s'\n", prog, cmd);
	usage(stderr);
	return EXIT_INVALID;
}
