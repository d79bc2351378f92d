/*
 * cmd_flux.c - the commands to-flux (a request as a Flux constraint,
 * symbolic or resolved to a hostlist, alone or in a jobspec) and
 * from-flux (a symbolic constraint back to a request) (cli.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"

/* The resolved form: {"hostlist": ["<RFC 29 hostlist>"]}; NULL after
 * printing why not (*rc set). */
static json_t *resolve(const struct opts *o, const xc_expr_t *e, int *rc)
{
	size_t count;
	char *hl;
	long n = match_hostlist(o, e, &hl, &count);
	json_t *j = hl ? json_pack("{s:[s]}", "hostlist", hl) : NULL;

	if (hl && !j)
		say("out of memory");
	*rc = n < 0 || (hl && !j) ? EXIT_INVALID
	      : n == 0		  ? EXIT_NOMATCH
				  : EXIT_MATCH;
	free(hl);
	return j;
}

int add_to_jobspec(json_t *js, json_t *c)
{
	json_t *attrs, *sys, *old;

	if (!json_is_object(js))
		goto bad;
	if (!(attrs = json_object_get(js, "attributes"))) {
		json_object_set_new(js, "attributes", attrs = json_object());
	}
	if (!json_is_object(attrs))
		goto bad;
	if (!(sys = json_object_get(attrs, "system")))
		json_object_set_new(attrs, "system", sys = json_object());
	if (!json_is_object(sys))
		goto bad;
	old = json_object_get(sys, "constraints");
	if (old)
		c = json_pack("{s:[O,o]}", "and", old, c);
	if (!c || json_object_set_new(sys, "constraints", c) < 0) {
		say("out of memory");
		return -1;
	}
	return 0;
bad:
	json_decref(c);
	say("error: the jobspec must be an object whose attributes and attributes.system are objects");
	return -1;
}

json_t *flux_constraint(const struct opts *o, int *rc)
{
	xc_expr_t *e;
	xc_error_t err;
	json_t *c;

	*rc = EXIT_MATCH;
	if (o->resolve && !!o->nodes + o->slurm != 1) {
		*rc = fail("--resolve needs one of --nodes, --slurm");
		return NULL;
	}
	if (!o->resolve && (o->nodes || o->slurm || o->within)) {
		*rc = fail("--nodes, --slurm and --within go with --resolve");
		return NULL;
	}
	if (!(e = parse_or_report(o))) {
		*rc = EXIT_INVALID;
		return NULL;
	}
	if (o->resolve) {
		c = resolve(o, e, rc);
	} else if (!(c = xc_to_flux(e, &err))) {
		say("error: %s", err.message);
		*rc = EXIT_INVALID;
	}
	xc_expr_destroy(e);
	return c;
}

int cmd_to_flux(const struct opts *o)
{
	json_t *c, *js;
	int rc;

	if (drop_prefer(o) < 0)
		return EXIT_INVALID;
	if (!(c = flux_constraint(o, &rc)))
		return rc;
	if (!o->jobspec) {
		print_json_shortest(c);
		json_decref(c);
		return rc;
	}
	if (o->jobspec_file) {
		if (!(js = load_json_arg(o->jobspec_file, o->jobspec_file))) {
			json_decref(c);
			return EXIT_INVALID;
		}
	} else {
		js = json_object();
	}
	if (add_to_jobspec(js, c) < 0)
		rc = EXIT_INVALID;
	else
		print_json_shortest(js);
	json_decref(js);
	return rc;
}

int cmd_from_flux(const struct opts *o)
{
	size_t max = o->limits.max_flux_length ? o->limits.max_flux_length
					       : XC_DEFAULT_MAX_FLUX_LENGTH;
	char *input = NULL;
	const char *json = o->request;
	size_t len = strlen(json);
	xc_error_t err;
	xc_expr_t *e;

	if (strcmp(json, "-") == 0) {
		if (!(json = input = read_bounded(stdin, max, &len)))
			return fail("out of memory");
	}
	e = xc_from_flux_text(json, len, &o->limits, &err);
	free(input);
	if (!e)
		return fail("error: %s", err.message);
	return print_request(e);
}
