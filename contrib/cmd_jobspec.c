/*
 * cmd_jobspec.c - the command jobspec: a whole RFC 14 jobspec, version 1,
 * from an RFC 46 shape or from Slurm's job options, with a command and
 * the constraint of an --extra request (doc/flux.md "A whole jobspec";
 * slurm-extra(1), "jobspec").
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <jansson.h>
#include <slurm/slurm.h>

#include "cli.h"
#include "slurm_compat.h"

extern char **environ;

/* A count option (-N, -n, -c, --gpus-per-task): 1 to INT_MAX, as Flux
 * takes them.  Returns 0, or -1 after saying why not. */
static int count_option(const char *text, const char *name, long *out)
{
	size_t v;

	if (xc_read_count(text, 1, INT_MAX, &v) < 0) {
		fail("%s: a whole number from 1 to %d expected, not '%s'", name,
		     INT_MAX, text);
		return -1;
	}
	*out = (long)v;
	return 0;
}

/* The resources of Slurm's -N, -n, -c and --gpus-per-task (and
 * --exclusive), as flux run makes them (flux-core's JobspecV1
 * from_command): with -N, N nodes each holding ceil(n/N) slots "task";
 * without, n slots; a slot holds c cores and g gpus.  *total gets n when
 * the tasks do not fill the slots evenly (their count is then "total"),
 * else 0.  Returns the shape's JSON, or NULL after saying why not. */
static json_t *slurm_resources(const struct opts *o, long *total)
{
	long nodes = 0, tasks = 0, cores = 1, gpus = 0;
	json_t *slot, *with;

	if ((o->nnodes && count_option(o->nnodes, "-N", &nodes) < 0) ||
	    (o->ntasks && count_option(o->ntasks, "-n", &tasks) < 0) ||
	    (o->cores && count_option(o->cores, "-c", &cores) < 0) ||
	    (o->gpus && count_option(o->gpus, "--gpus-per-task", &gpus) < 0))
		return NULL;
	if (!tasks)
		tasks = nodes ? nodes : 1;
	if (nodes && tasks < nodes) {
		fail("-n %ld asks for fewer tasks than -N %ld nodes", tasks,
		     nodes);
		return NULL;
	}
	*total = nodes && tasks % nodes ? tasks : 0;
	with = json_pack("[{s:s,s:i}]", "type", "core", "count", (int)cores);
	if (with && gpus)
		json_array_append_new(with,
				      json_pack("{s:s,s:i}", "type", "gpu",
						"count", (int)gpus));
	slot = json_pack(
		"{s:s,s:I,s:s,s:o}", "type", "slot", "count",
		(json_int_t)(nodes ? (tasks + nodes - 1) / nodes : tasks),
		"label", "task", "with", with);
	if (!nodes)
		return slot ? json_pack("[o]", slot) : NULL;
	if (o->exclusive)
		return json_pack("[{s:s,s:i,s:b,s:[o]}]", "type", "node",
				 "count", (int)nodes, "exclusive", 1, "with",
				 slot);
	return json_pack("[{s:s,s:i,s:[o]}]", "type", "node", "count",
			 (int)nodes, "with", slot);
}

/* The resources of --shape (RFC 46), or NULL after printing the error
 * with its column and caret. */
static json_t *shape_resources(const struct opts *o)
{
	xc_error_t err;
	json_t *r =
		xc_shape_parse(o->shape, strlen(o->shape), &o->limits, &err);
	char prefix[64], *text;

	if (r)
		return r;
	snprintf(prefix, sizeof(prefix), "%s: error: --shape: ", prog);
	text = xc_error_render(o->shape, &err, prefix);
	fprintf(stderr, "%s\n", text ? text : err.message);
	free(text);
	return NULL;
}

/* The time limit in seconds (0: none): Flux's standard duration (a
 * number with s, m, h or d; a bare number is minutes, as flux run -t
 * and Slurm's -t read it) or Slurm's forms (MM:SS, HH:MM:SS, D-HH,
 * D-HH:MM, D-HH:MM:SS; "UNLIMITED"), read by Slurm's own
 * slurm_time_str2secs.  Returns 0, or -1 after saying why not. */
static int time_limit(const char *text, double *secs)
{
	static const struct {
		char suffix;
		double scale;
	} units[] = { { 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 } };
	size_t n = strlen(text);
	char *end;
	double v;
	int s;

	*secs = 0;
	if (n && (strchr(text, ':') || strchr(text, '-') ||
		  strcasecmp(text, "unlimited") == 0 ||
		  strcasecmp(text, "infinite") == 0)) {
		s = slurm_time_str2secs(text);
		if (s == (int)INFINITE) /* none */
			return 0;
		if (s == (int)NO_VAL || s < 0)
			goto bad;
		*secs = s;
		return 0;
	}
	errno = 0;
	v = strtod(text, &end);
	if (end == text || errno || !isfinite(v) || v < 0 || text[0] == '-' ||
	    text[0] == '+' || (*end && end[1]))
		goto bad;
	if (!*end) {
		*secs = v * 60;
		return 0;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (*end == units[i].suffix) {
			*secs = v * units[i].scale;
			return 0;
		}
bad:
	fail("-t: '%s' is not a time limit: minutes, a number with s, m, h or d, or Slurm's [D-]HH:MM[:SS]",
	     text);
	return -1;
}

/* Adds one task per slot of `list` (depth first, in order) to `tasks`:
 * the command, the slot's label, per_slot 1 or `total`. */
static int add_tasks(json_t *tasks, const json_t *list, json_t *command,
		     long total, unsigned depth)
{
	json_t *v;
	size_t i;

	if (depth > XC_MAX_DEPTH_LIMIT)
		return 0;
	json_array_foreach (list, i, v) {
		const char *type =
			json_string_value(json_object_get(v, "type"));

		if (type && strcmp(type, "slot") == 0) {
			json_t *count =
				total ? json_pack("{s:I}", "total",
						  (json_int_t)total)
				      : json_pack("{s:i}", "per_slot", 1);
			json_t *t = json_pack(
				"{s:O,s:O,s:o}", "command", command, "slot",
				json_object_get(v, "label"), "count", count);

			if (!t || json_array_append_new(tasks, t) < 0)
				return -1;
		}
		if (add_tasks(tasks, json_object_get(v, "with"), command, total,
			      depth + 1) < 0)
			return -1;
	}
	return 0;
}

/* attributes.system: duration, cwd, environment (all of this process's,
 * as flux run copies it, less the names that glob `remove` matches, as
 * its --env-remove does; a variable whose name or value is not UTF-8
 * cannot be a JSON string and is left out, with a note).  NULL after
 * saying why not. */
static json_t *system_attributes(double duration, const char *remove)
{
	json_t *env = json_object(), *sys, *dur;
	char cwd[PATH_MAX];
	size_t skipped = 0;

	if (!getcwd(cwd, sizeof(cwd))) {
		say("cannot tell the current directory: %s", strerror(errno));
		json_decref(env);
		return NULL;
	}
	for (char **e = environ; env && *e; e++) {
		const char *eq = strchr(*e, '=');
		char *name = eq ? strndup(*e, (size_t)(eq - *e)) : NULL;
		json_t *v = eq ? json_string(eq + 1) : NULL;

		if (name && v && remove && fnmatch(remove, name, 0) == 0)
			json_decref(v);
		else if (!name || !v)
			skipped++, json_decref(v);
		else if (json_object_set_new(env, name, v) < 0)
			skipped++;
		free(name);
	}
	if (skipped)
		say("note: %zu environment variables left out (not NAME=VALUE in UTF-8)",
		    skipped);
	/* a whole number of seconds as an integer, as flux run writes it */
	dur = duration == floor(duration) && duration < 9007199254740992.0
		      ? json_integer((json_int_t)duration)
		      : json_real(duration);
	if (env && dur)
		sys = json_pack("{s:o,s:s,s:o}", "duration", dur, "cwd", cwd,
				"environment", env);
	else
		sys = NULL, json_decref(env), json_decref(dur);
	if (!sys)
		say("out of memory");
	return sys;
}

int cmd_jobspec(const struct opts *o)
{
	bool slurm =
		o->nnodes || o->ntasks || o->cores || o->gpus || o->exclusive;
	json_t *res, *js, *command, *tasks, *sys, *c = NULL;
	xc_error_t err;
	double duration = 0;
	long total = 0;
	int rc = EXIT_MATCH;

	if (o->request)
		return fail(
			"unexpected argument '%s': the command goes after '--'",
			o->request);
	if (!o->ncommand)
		return fail(
			"jobspec needs a command after '--': jobspec --shape SHAPE -- COMMAND [ARGS...]");
	if (!o->shape == !slurm)
		return fail(
			o->shape
				? "--shape, or Slurm's -N, -n, -c, --gpus-per-task and --exclusive: not both"
				: "jobspec needs --shape SHAPE, or Slurm's -N, -n, -c, --gpus-per-task");
	if (!o->extra && (o->resolve || o->nodes || o->slurm || o->within))
		return fail(
			"--resolve, --nodes, --slurm and --within go with --extra");
	if (o->time_limit && time_limit(o->time_limit, &duration) < 0)
		return EXIT_INVALID;
	res = o->shape ? shape_resources(o) : slurm_resources(o, &total);
	if (!res)
		return EXIT_INVALID;
	if (!o->any_shape && xc_shape_check_v1(res, &err) < 0) {
		json_decref(res);
		return fail(
			"--shape: not jobspec V1 (RFC 25): %s (--any-shape writes it all the same)",
			err.message);
	}
	if (o->extra) {
		struct opts ro = *o;

		ro.request = o->extra;
		if (!(c = flux_constraint(&ro, &rc))) {
			json_decref(res);
			return rc;
		}
	}
	command = json_array();
	for (int i = 0; command && i < o->ncommand; i++)
		if (json_array_append_new(command, json_string(o->command[i])) <
		    0) {
			json_decref(command);
			json_decref(res);
			json_decref(c);
			return fail(
				"the command's words must be UTF-8 (JSON strings)");
		}
	tasks = json_array();
	if (!command || !tasks ||
	    add_tasks(tasks, res, command, total, 1) < 0 ||
	    !(sys = system_attributes(duration, o->env_remove))) {
		if (!command || !tasks)
			say("out of memory");
		json_decref(command);
		json_decref(tasks);
		json_decref(res);
		json_decref(c);
		return EXIT_INVALID;
	}
	json_decref(command);
	js = json_pack("{s:o,s:o,s:{s:o},s:i}", "resources", res, "tasks",
		       tasks, "attributes", "system", sys, "version", 1);
	if (!js || (c && add_to_jobspec(js, c) < 0)) {
		json_decref(js);
		return EXIT_INVALID;
	}
	print_json_shortest(js);
	json_decref(js);
	return rc;
}
