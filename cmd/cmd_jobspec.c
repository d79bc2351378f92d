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
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <jansson.h>
#include <slurm/slurm.h>

#include "cli.h"
#include "shape.h"
#include "slurm_compat.h"
#include "xc_util.h"

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
	json_t *slot, *with, *res;

	if ((o->nnodes && count_option(o->nnodes, "-N", &nodes) < 0) ||
	    (o->ntasks && count_option(o->ntasks, "-n", &tasks) < 0) ||
	    (o->cores && count_option(o->cores, "-c", &cores) < 0) ||
	    (o->gpus && count_option(o->gpus, "--gpus-per-task", &gpus) < 0))
		return NULL;
	if (o->exclusive && !nodes) {
		/* flux-core's from_command(): "exclusive can only be set
		 * with a node count" */
		fail("--exclusive asks for whole nodes: it goes with -N");
		return NULL;
	}
	if (!tasks)
		tasks = nodes ? nodes : 1;
	if (nodes && tasks < nodes) {
		fail("-n %ld asks for fewer tasks than -N %ld nodes", tasks,
		     nodes);
		return NULL;
	}
	*total = nodes && tasks % nodes ? tasks : 0;
	with = json_pack("[{s:s,s:i}]", "type", "core", "count", (int)cores);
	if (with && gpus &&
	    json_array_append_new(with, json_pack("{s:s,s:i}", "type", "gpu",
						  "count", (int)gpus)) < 0)
		json_decref(with), with = NULL;
	slot = with ? json_pack("{s:s,s:I,s:s,s:o}", "type", "slot", "count",
				(json_int_t)(nodes ? (tasks + nodes - 1) / nodes
						   : tasks),
				"label", "task", "with", with)
		    : NULL;
	if (!slot)
		res = NULL;
	else if (!nodes)
		res = json_pack("[o]", slot);
	else if (o->exclusive)
		res = json_pack("[{s:s,s:i,s:b,s:[o]}]", "type", "node",
				"count", (int)nodes, "exclusive", 1, "with",
				slot);
	else
		res = json_pack("[{s:s,s:i,s:[o]}]", "type", "node", "count",
				(int)nodes, "with", slot);
	if (!res)
		say("out of memory");
	return res;
}

/* The resources of --shape (RFC 46), or NULL after printing the error
 * with its column and caret. */
static json_t *shape_resources(const struct opts *o)
{
	xc_error_t err;
	json_t *r = shape_parse(o->shape, strlen(o->shape), &o->limits, &err);

	if (!r)
		report_error(o->shape, &err, "--shape: ");
	return r;
}

/* The time limit in seconds (0: none), as flux run -t reads it: a
 * decimal number is minutes, and one with a unit (ms, s, m, h, d) Flux's
 * standard duration (RFC 23; flux-core's parse_fsd()); else Slurm's
 * forms (MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS, "UNLIMITED"), read
 * by Slurm's own slurm_time_str2secs.  Returns 0, or -1 after saying
 * why not. */
static int time_limit(const char *text, double *secs)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = { { "", 60 },  { "ms", 0.001 }, { "s", 1 },
		      { "m", 60 }, { "h", 3600 },   { "d", 86400 } };
	char *end;
	double v;
	int s;

	*secs = 0;
	if (text[0] == '-') /* libslurm reads -1 as unlimited; Flux refuses */
		goto bad;
	/* a decimal number: no sign, hex, inf or nan for strtod() */
	if ((text[0] >= '0' && text[0] <= '9') || text[0] == '.') {
		errno = 0;
		v = strtod(text, &end);
		if (!errno && isfinite(v) &&
		    strspn(text, "0123456789.eE+-") >= (size_t)(end - text))
			for (size_t i = 0; i < sizeof(units) / sizeof(*units);
			     i++)
				if (strcmp(end, units[i].unit) == 0 &&
				    isfinite(v * units[i].scale)) {
					*secs = v * units[i].scale;
					return 0;
				}
	}
	if (strchr(text, ':') || strchr(text, '-') ||
	    strcasecmp(text, "unlimited") == 0 ||
	    strcasecmp(text, "infinite") == 0) {
		s = slurm_time_str2secs(text);
		if (s == (int)INFINITE) /* none */
			return 0;
		if (s != (int)NO_VAL && s >= 0) {
			*secs = s;
			return 0;
		}
	}
bad:
	fail("-t: '%s' is not a time limit: minutes, a number with ms, s, m, h or d, or Slurm's [D-]HH:MM[:SS]",
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

/* --env-remove's patterns (slurm-extra(1), "jobspec"): one that starts
 * with '/' is a POSIX extended regular expression (a closing '/'
 * dropped) matched at the start of a variable's name, as flux run
 * matches its Python one (re.match); any other is a glob matched against
 * the whole name (fnmatch), as flux run's. */
struct env_filter {
	const struct opts *o;
	regex_t re[CLI_LIST_MAX];
	bool compiled[CLI_LIST_MAX];
};

static void env_filter_free(struct env_filter *f)
{
	for (int i = 0; i < CLI_LIST_MAX; i++)
		if (f->compiled[i])
			regfree(&f->re[i]);
}

/* Compiles the regular expressions of o's --env-remove.  Returns 0, or
 * -1 after saying which one is wrong (nothing left to free). */
static int env_filter_init(struct env_filter *f, const struct opts *o)
{
	memset(f, 0, sizeof(*f));
	f->o = o;
	for (int i = 0; i < o->nenv_remove; i++) {
		const char *p = o->env_remove[i];
		size_t n = strlen(p);
		char *re;
		int rc;

		if (p[0] != '/')
			continue;
		while (n > 1 && p[n - 1] == '/') /* flux's rstrip("/") */
			n--;
		if (!(re = strndup(p + 1, n - 1))) {
			env_filter_free(f);
			say("out of memory");
			return -1;
		}
		rc = regcomp(&f->re[i], re, REG_EXTENDED);
		free(re);
		if (rc != 0) {
			char why[128];

			regerror(rc, &f->re[i], why, sizeof(why));
			env_filter_free(f);
			fail("--env-remove '%s': %s", p, why);
			return -1;
		}
		f->compiled[i] = true;
	}
	return 0;
}

/* Whether variable `name` is one --env-remove leaves out: a regular
 * expression must match from the name's start (POSIX finds the leftmost
 * match, which starts there when one does). */
static bool env_removed(const struct env_filter *f, const char *name)
{
	regmatch_t m[1];

	for (int i = 0; i < f->o->nenv_remove; i++)
		if (f->compiled[i] ? regexec(&f->re[i], name, 1, m, 0) == 0 &&
					     m[0].rm_so == 0
				   : fnmatch(f->o->env_remove[i], name, 0) == 0)
			return true;
	return false;
}

/* This process's environment, as flux run copies it, less what `f`
 * leaves out; a variable whose name or value is not UTF-8 cannot be a
 * JSON string and is left out, with a note.  NULL after saying why
 * not (out of memory). */
static json_t *environment(const struct env_filter *f)
{
	json_t *env = json_object();
	size_t skipped = 0;

	for (char **e = environ; env && *e; e++) {
		const char *eq = strchr(*e, '=');
		char *name;
		json_t *v;

		if (!eq ||
		    !xc_valid_utf8((const unsigned char *)*e, strlen(*e))) {
			skipped++;
			continue;
		}
		if (!(name = strndup(*e, (size_t)(eq - *e))))
			goto nomem;
		if (env_removed(f, name)) {
			free(name);
			continue;
		}
		v = json_string(eq + 1);
		if (!v || json_object_set_new(env, name, v) < 0) {
			free(name);
			goto nomem;
		}
		free(name);
	}
	if (!env)
		goto nomem;
	if (skipped)
		say("note: %zu environment variables left out (not NAME=VALUE in UTF-8)",
		    skipped);
	return env;
nomem:
	json_decref(env);
	say("out of memory");
	return NULL;
}

/* attributes.system: duration, cwd, environment, as flux run writes
 * them: the duration 0 without -t, else in seconds as a real (flux-core's
 * Jobspec.duration stores float(seconds)).  NULL after saying why
 * not. */
static json_t *system_attributes(const struct opts *o, double duration,
				 const struct env_filter *f)
{
	json_t *env, *sys;
	char cwd[PATH_MAX];

	if (!getcwd(cwd, sizeof(cwd))) {
		say("cannot tell the current directory: %s", strerror(errno));
		return NULL;
	}
	if (!xc_valid_utf8((const unsigned char *)cwd, strlen(cwd))) {
		say("the current directory's name is not UTF-8: a jobspec's cwd (a JSON string) cannot hold it");
		return NULL;
	}
	if (!(env = environment(f)))
		return NULL;
	sys = json_pack("{s:o,s:s,s:o}", "duration",
			o->time_limit ? json_real(duration) : json_integer(0),
			"cwd", cwd, "environment", env);
	if (!sys)
		say("out of memory");
	return sys;
}

/* The command's words as a JSON array, or NULL after saying why not. */
static json_t *command_words(const struct opts *o)
{
	json_t *command = json_array();

	for (int i = 0; command && i < o->ncommand; i++) {
		if (!xc_valid_utf8((const unsigned char *)o->command[i],
				   strlen(o->command[i]))) {
			json_decref(command);
			fail("the command's words must be UTF-8 (JSON strings): word %d is not",
			     i + 1);
			return NULL;
		}
		if (json_array_append_new(command, json_string(o->command[i])) <
		    0)
			json_decref(command), command = NULL;
	}
	if (!command)
		say("out of memory");
	return command;
}

int cmd_jobspec(const struct opts *o)
{
	bool slurm =
		o->nnodes || o->ntasks || o->cores || o->gpus || o->exclusive;
	json_t *res = NULL, *js = NULL, *command = NULL, *tasks = NULL;
	json_t *sys, *c = NULL;
	struct env_filter f;
	xc_error_t err;
	double duration = 0;
	long total = 0;
	int rc = EXIT_MATCH;

	if (drop_prefer(o) < 0)
		return EXIT_INVALID;
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
	if (env_filter_init(&f, o) < 0)
		return EXIT_INVALID;
	rc = EXIT_INVALID;
	res = o->shape ? shape_resources(o) : slurm_resources(o, &total);
	if (!res)
		goto out;
	if (!o->any_shape && shape_check_v1(res, &err) < 0) {
		fail("--shape: not jobspec V1 (RFC 25): %s (--any-shape writes it all the same)",
		     err.message);
		goto out;
	}
	if (!(command = command_words(o)))
		goto out;
	if (!(tasks = json_array()) ||
	    add_tasks(tasks, res, command, total, 1) < 0) {
		say("out of memory");
		goto out;
	}
	if (json_array_size(tasks) == 0) {
		fail("--shape: no slot: a jobspec's tasks run in slots (RFC 14), and this shape has none");
		goto out;
	}
	if (o->extra) {
		struct opts ro = *o;

		ro.request = o->extra;
		if (!(c = flux_constraint(&ro, &rc)))
			goto out;
	}
	rc = EXIT_INVALID;
	if (!(sys = system_attributes(o, duration, &f)))
		goto out;
	js = json_pack("{s:o,s:o,s:{s:o},s:i}", "resources", res, "tasks",
		       tasks, "attributes", "system", sys, "version", 1);
	res = tasks = NULL; /* taken, even on failure */
	if (!js) {
		say("out of memory");
		goto out;
	}
	if (c && add_to_jobspec(js, c) < 0) {
		c = NULL; /* taken */
		goto out;
	}
	c = NULL;
	print_json_shortest(js);
	rc = EXIT_MATCH;
out:
	env_filter_free(&f);
	json_decref(c);
	json_decref(js);
	json_decref(tasks);
	json_decref(command);
	json_decref(res);
	return rc;
}
