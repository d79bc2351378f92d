/*
 * job_submit_extra.c - JobSubmitPlugins=extra: keeps a job with an
 * `--extra` request off the nodes whose Extra data do not satisfy it.
 *
 * The request comes from job_desc->extra (Slurm 23.02+ clients) or, from
 * clients without `--extra`, from the SPANK option of spank_extra.so, which
 * reaches slurmctld in job_desc->spank_job_env.  It is parsed and evaluated
 * with the library (parser/), against a node table that a thread of this
 * plugin keeps current with slurm_load_node(): job_submit() runs with
 * slurmctld's node lock held and must not call the Slurm API itself.  The
 * non-matching nodes are added to the job's excluded nodes.
 *
 * Everything here must be safe inside slurmctld: no abort, every failure a
 * refusal with a message or a log line, request text escaped in logs.
 */
#define _GNU_SOURCE /* dladdr, RTLD_NODELETE */

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm_compat.h"
#include "plugin_config.h"
#include "xc.h"

const char plugin_name[] = "Job submit plugin for --extra node filters";
const char plugin_type[] = "job_submit/extra";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* The entry points slurmctld calls. */
int init(void);
int fini(void);
int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg);
int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid,
	       char **err_msg);

/* The SPANK option's variable: _SLURM_SPANK_OPTION_<plugin>_<option>. */
#define SPANK_VAR "_SLURM_SPANK_OPTION_extra_extra="

/*
 * The node table and the thread that refreshes it.  Each init() makes a new
 * context; the plugin and its thread each hold a reference.  fini() waits
 * at most 0.9 s for the thread: a thread still inside slurm_load_node() then
 * (slurmctld may be unable to answer it until fini returns, e.g. during a
 * reconfigure that holds its locks) is detached, and frees the context
 * itself when the call returns.  The plugin's code stays mapped for it:
 * init() marks the plugin RTLD_NODELETE.
 */
struct refresher {
	pthread_mutex_t lock; /* guards everything below */
	pthread_cond_t wake;  /* fini -> thread: stop; thread -> fini: done */
	struct xc_plugin_config cfg;
	xc_nodes_t *table; /* NULL until the first load */
	time_t table_time; /* last_update of the loaded node data */
	bool stopping;	   /* fini asked the thread to stop */
	bool exited;	   /* the thread has left its loop */
	bool failing;	   /* the last load failed (log once) */
	int refs;	   /* plugin + thread */
	pthread_t thread;
};

/* The context job_submit() uses.  init(), fini() and job_submit() are
 * serialised by slurmctld (its job_submit context lock). */
static struct refresher *current;

static void log_config_problem(const char *message)
{
	slurm_error("%s: %s", plugin_type, message);
}

/* Drops one reference, with r->lock held; frees `r` at the last one. */
static void release(struct refresher *r)
{
	bool last = --r->refs == 0;

	pthread_mutex_unlock(&r->lock);
	if (!last)
		return;
	xc_nodes_destroy(r->table);
	pthread_cond_destroy(&r->wake);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

/* Loads the node data when it changed since r->table_time and swaps in a
 * new table.  Only the thread writes the table, so it reads the old one
 * without the lock. */
static void refresh(struct refresher *r)
{
	node_info_msg_t *msg = NULL;
	xc_nodes_t *fresh, *old;
	char ebuf[256], why[96];
	size_t anew = 0;

	if (slurm_load_node(r->table_time, &msg, SHOW_ALL) != SLURM_SUCCESS) {
		int e = slurm_get_errno();

		if (e != SLURM_NO_CHANGE_IN_DATA && !r->failing) {
			slurm_verbose("%s: cannot load node data yet: %s",
				      plugin_type, slurm_strerror(e));
			r->failing = true;
		}
		return;
	}
	if (r->failing)
		slurm_verbose("%s: node data loaded", plugin_type);
	r->failing = false;
	if (!(fresh = xc_nodes_create(&r->cfg.limits))) {
		xc_free_node_info_msg(msg);
		return;
	}
	for (uint32_t i = 0; i < msg->record_count; i++) {
		node_info_t *n = &msg->node_array[i];
		xc_extra_state_t st;
		xc_error_t err;
		int rc;

		if (!n->name)
			continue;
		rc = xc_nodes_add(fresh, n->name, n->extra, r->table, &err);
		if (rc < 0) {
			slurm_error("%s: %s", plugin_type, err.message);
			xc_nodes_destroy(fresh);
			xc_free_node_info_msg(msg);
			return;
		}
		anew += rc == 0;
		/* Say once, when it is read, that a node's Extra is unusable. */
		st = xc_nodes_state(fresh, xc_nodes_count(fresh) - 1);
		if (rc == 0 && st != XC_EXTRA_OBJECT && st != XC_EXTRA_UNSET)
			slurm_info(
				"%s: node %s: Extra is %s; jobs with --extra skip it",
				plugin_type,
				xc_escape(n->name, ebuf, sizeof(ebuf)),
				xc_extra_state_explain(st, &r->cfg.limits, why,
						       sizeof(why)));
	}
	pthread_mutex_lock(&r->lock);
	old = r->table;
	r->table = fresh;
	r->table_time = msg->last_update;
	pthread_mutex_unlock(&r->lock);
	xc_nodes_destroy(old);
	xc_free_node_info_msg(msg);
	/* The live count is the load test's proof that nothing leaks. */
	slurm_verbose(
		"%s: node table: %zu nodes, %zu read anew, digest %016llx; library objects live: %ld",
		plugin_type, xc_nodes_count(fresh), anew,
		xc_nodes_digest(fresh), xc_live_objects());
}

static void *refresh_thread(void *arg)
{
	struct refresher *r = arg;

	pthread_mutex_lock(&r->lock);
	while (!r->stopping) {
		struct timespec until;
		double whole, frac = modf(r->cfg.refresh_interval, &whole);

		pthread_mutex_unlock(&r->lock);
		refresh(r);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += (time_t)whole;
		until.tv_nsec += (long)(frac * 1e9);
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&r->lock);
		while (!r->stopping &&
		       pthread_cond_timedwait(&r->wake, &r->lock, &until) == 0)
			;
	}
	r->exited = true;
	pthread_cond_broadcast(&r->wake);
	release(r);
	return NULL;
}

/* Keeps this plugin's code mapped after Slurm unloads it, for a detached
 * refresh thread still running. */
static void stay_mapped(void)
{
	Dl_info info;

	if (dladdr((void *)stay_mapped, &info) && info.dli_fname &&
	    !dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE))
		slurm_verbose("%s: cannot pin the plugin: %s", plugin_type,
			      dlerror());
}

int init(void)
{
	struct refresher *r = calloc(1, sizeof(*r));
	char path[4096];
	int rc;

	if (!r)
		return SLURM_ERROR;
	xc_plugin_config_path(path, sizeof(path));
	xc_plugin_config_read(&r->cfg, path, log_config_problem);
	slurm_info(
		"%s: %s %s; RefreshInterval=%g MaxRequestLength=%zu MaxDepth=%u MaxExtraLength=%zu",
		plugin_type, r->cfg.found ? "read" : "no", path,
		r->cfg.refresh_interval, r->cfg.limits.max_request_length,
		r->cfg.limits.max_depth, r->cfg.limits.max_extra_length);
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->wake, NULL);
	r->refs = 2;
	stay_mapped();
	rc = pthread_create(&r->thread, NULL, refresh_thread, r);
	if (rc != 0) {
		slurm_error("%s: cannot start the node data thread: %s",
			    plugin_type, strerror(rc));
		pthread_mutex_lock(&r->lock);
		r->refs = 1;
		release(r);
		return SLURM_ERROR;
	}
	current = r;
	return SLURM_SUCCESS;
}

int fini(void)
{
	struct refresher *r = current;
	struct timespec t0, t1, until;
	long ms;

	if (!r)
		return SLURM_SUCCESS;
	current = NULL;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* At most 0.9 s, so that fini returns within 1 s. */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += 900000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&r->lock);
	r->stopping = true;
	pthread_cond_broadcast(&r->wake);
	while (!r->exited &&
	       pthread_cond_timedwait(&r->wake, &r->lock, &until) == 0)
		;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (long)((t1.tv_sec - t0.tv_sec) * 1000 +
		    (t1.tv_nsec - t0.tv_nsec) / 1000000);
	if (r->exited) {
		pthread_mutex_unlock(&r->lock);
		pthread_join(r->thread, NULL);
		slurm_info("%s: node data thread stopped in %ld ms",
			   plugin_type, ms);
		pthread_mutex_lock(&r->lock);
	} else {
		pthread_detach(r->thread);
		slurm_info(
			"%s: node data thread stopped in %ld ms (left to finish its Slurm call on its own)",
			plugin_type, ms);
	}
	release(r);
	return SLURM_SUCCESS;
}

/* The job's request, borrowed from job_desc; NULL when it has none. */
static const char *job_request(const job_desc_msg_t *job_desc)
{
	if (job_desc->extra && job_desc->extra[0])
		return job_desc->extra;
	for (uint32_t i = 0;
	     job_desc->spank_job_env && i < job_desc->spank_job_env_size; i++) {
		const char *v = job_desc->spank_job_env[i];

		if (v && strncmp(v, SPANK_VAR, sizeof(SPANK_VAR) - 1) == 0)
			return v + sizeof(SPANK_VAR) - 1;
	}
	return NULL;
}

/* Sets *err_msg (Slurm's allocator) and returns `rc`. */
static int refuse(char **err_msg, int rc, const char *text)
{
	if (err_msg && text) {
		slurm_xfree((void **)err_msg); /* one an earlier plugin left */
		*err_msg = slurm_xstrdup(text);
	}
	return rc;
}

/* With the table's lock held: adds the nodes of `table` that `expr` does
 * not match to job_desc->exc_nodes.  Returns SLURM_SUCCESS or refuses. */
static int filter_nodes(job_desc_msg_t *job_desc, const xc_nodes_t *table,
			const xc_expr_t *expr, const char *request,
			uint32_t uid, char **err_msg)
{
	size_t count = xc_nodes_count(table), n;
	bool *matched = calloc(count ? count : 1, sizeof(*matched));
	hostlist_t hl;
	char msg[512], ebuf[256];
	int rc = SLURM_SUCCESS;

	if (!matched)
		return refuse(err_msg, SLURM_ERROR, "--extra: out of memory");
	n = xc_nodes_match(table, expr, matched);
	if (n == 0) {
		slurm_info("%s: uid %u: no node satisfies '%s' (%zu checked)",
			   plugin_type, uid,
			   xc_escape(request, ebuf, sizeof(ebuf)), count);
		snprintf(msg, sizeof(msg),
			 "--extra: no node satisfies the request (%zu checked)",
			 count);
		free(matched);
		return refuse(err_msg, ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE,
			      msg);
	}
	hl = slurm_hostlist_create(job_desc->exc_nodes ? job_desc->exc_nodes
						       : "");
	if (!hl) {
		free(matched);
		return refuse(
			err_msg, ESLURM_INVALID_NODE_NAME,
			"--extra: the job's excluded nodes are not a valid hostlist");
	}
	for (size_t i = 0; i < count; i++)
		if (!matched[i])
			slurm_hostlist_push_host(hl, xc_nodes_name(table, i));
	free(matched);
	if (slurm_hostlist_count(hl) > 0) {
		char *exc;

		slurm_hostlist_uniq(hl);
		exc = slurm_hostlist_ranged_string_xmalloc(hl);
		if (!exc) {
			rc = refuse(err_msg, SLURM_ERROR,
				    "--extra: out of memory");
		} else {
			slurm_xfree((void **)&job_desc->exc_nodes);
			job_desc->exc_nodes = exc;
		}
	}
	slurm_hostlist_destroy(hl);
	if (rc == SLURM_SUCCESS)
		slurm_verbose(
			"%s: uid %u: '%s' matches %zu of %zu nodes; excluded %s",
			plugin_type, uid,
			xc_escape(request, ebuf, sizeof(ebuf)), n, count,
			job_desc->exc_nodes ? job_desc->exc_nodes : "none");
	return rc;
}

int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	const char *request;
	xc_expr_t *expr;
	xc_error_t err;
	char ebuf[256];
	int rc;

	if (!job_desc || !(request = job_request(job_desc)))
		return SLURM_SUCCESS;
	if (!current)
		return refuse(
			err_msg, SLURM_ERROR,
			"--extra: the job_submit/extra plugin is not running");
	if (!(expr = xc_parse(request, &current->cfg.limits, &err))) {
		char *text = xc_error_render(request, &err, "--extra: ");
		char mbuf[2 * XC_ERROR_MESSAGE_SIZE];

		/* The message quotes the request: escaped too. */
		slurm_info("%s: uid %u: invalid request '%s': %s", plugin_type,
			   submit_uid, xc_escape(request, ebuf, sizeof(ebuf)),
			   xc_escape(err.message, mbuf, sizeof(mbuf)));
		rc = refuse(err_msg, ESLURM_INVALID_FEATURE,
			    text ? text : err.message);
		free(text);
		return rc;
	}
	pthread_mutex_lock(&current->lock);
	if (!current->table)
		rc = refuse(
			err_msg, SLURM_ERROR,
			"--extra: node data are not loaded yet; submit again in a few seconds");
	else
		rc = filter_nodes(job_desc, current->table, expr, request,
				  submit_uid, err_msg);
	pthread_mutex_unlock(&current->lock);
	xc_expr_destroy(expr);
	return rc;
}

/* The filter is applied at submission; a later update keeps it. */
int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid,
	       char **err_msg)
{
	(void)job_desc;
	(void)job_ptr;
	(void)submit_uid;
	(void)err_msg;
	return SLURM_SUCCESS;
}
