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

static struct xc_plugin_config cfg;

/* Guards `table` and `table_time`, and wakes the thread for fini(). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static xc_nodes_t *table;      /* NULL until the first load */
static time_t table_time;      /* last_update of the loaded node data */
static bool stopping;
static bool thread_running;
static pthread_t thread;

/* Logs `text` escaped (no control bytes, no '%'). */
static const char *esc(const char *text, char *buf, size_t size)
{
	return xc_escape(text, buf, size);
}

static void log_config_problem(const char *message)
{
	slurm_error("%s: %s", plugin_type, message);
}

/* Loads the node data when it changed since table_time and swaps in a new
 * table.  Only this thread writes `table`, so it reads the old one
 * without the lock. */
static void refresh(void)
{
	static bool failing;
	node_info_msg_t *msg = NULL;
	xc_nodes_t *fresh, *old;
	char ebuf[256];

	if (slurm_load_node(table_time, &msg, SHOW_ALL) != SLURM_SUCCESS) {
		int e = slurm_get_errno();

		if (e != SLURM_NO_CHANGE_IN_DATA && !failing) {
			slurm_verbose("%s: cannot load node data yet: %s",
				      plugin_type, slurm_strerror(e));
			failing = true;
		}
		return;
	}
	if (failing)
		slurm_verbose("%s: node data loaded", plugin_type);
	failing = false;
	if (!(fresh = xc_nodes_create(&cfg.limits))) {
		slurm_free_node_info_msg(msg);
		return;
	}
	for (uint32_t i = 0; i < msg->record_count; i++) {
		node_info_t *n = &msg->node_array[i];
		xc_error_t err;
		int r;

		if (!n->name)
			continue;
		r = xc_nodes_add(fresh, n->name, n->extra, table, &err);
		if (r < 0) {
			slurm_error("%s: %s", plugin_type, err.message);
			xc_nodes_destroy(fresh);
			slurm_free_node_info_msg(msg);
			return;
		}
		/* Say once, when it is read, that a node's Extra is unusable. */
		if (r == 0) {
			xc_extra_state_t st =
				xc_nodes_state(fresh, xc_nodes_count(fresh) - 1);

			char why[96];

			if (st != XC_EXTRA_OBJECT && st != XC_EXTRA_UNSET)
				slurm_info("%s: node %s: Extra is %s; jobs with --extra skip it",
					   plugin_type,
					   esc(n->name, ebuf, sizeof(ebuf)),
					   xc_extra_state_explain(st, &cfg.limits,
								  why, sizeof(why)));
		}
	}
	pthread_mutex_lock(&lock);
	old = table;
	table = fresh;
	table_time = msg->last_update;
	pthread_mutex_unlock(&lock);
	xc_nodes_destroy(old);
	slurm_free_node_info_msg(msg);
}

static void *refresh_thread(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	while (!stopping) {
		struct timespec until;
		double whole, frac = modf(cfg.refresh_interval, &whole);

		pthread_mutex_unlock(&lock);
		refresh();
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += (time_t)whole;
		until.tv_nsec += (long)(frac * 1e9);
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&lock);
		while (!stopping &&
		       pthread_cond_timedwait(&wake, &lock, &until) == 0)
			;
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

int init(void)
{
	char path[4096];
	int rc;

	xc_plugin_config_path(path, sizeof(path));
	xc_plugin_config_read(&cfg, path, log_config_problem);
	slurm_info("%s: %s %s; RefreshInterval=%g MaxRequestLength=%zu MaxDepth=%u MaxExtraLength=%zu MaxExtraDepth=%u",
		   plugin_type, cfg.found ? "read" : "no", path,
		   cfg.refresh_interval, cfg.limits.max_request_length,
		   cfg.limits.max_depth, cfg.limits.max_extra_length,
		   cfg.limits.max_extra_depth);
	pthread_mutex_lock(&lock);
	stopping = false;
	pthread_mutex_unlock(&lock);
	rc = pthread_create(&thread, NULL, refresh_thread, NULL);
	if (rc != 0) {
		slurm_error("%s: cannot start the node data thread: %s",
			    plugin_type, strerror(rc));
		return SLURM_ERROR;
	}
	thread_running = true;
	return SLURM_SUCCESS;
}

int fini(void)
{
	if (thread_running) {
		pthread_mutex_lock(&lock);
		stopping = true;
		pthread_cond_broadcast(&wake);
		pthread_mutex_unlock(&lock);
		pthread_join(thread, NULL);
		thread_running = false;
	}
	pthread_mutex_lock(&lock);
	xc_nodes_destroy(table);
	table = NULL;
	table_time = 0;
	pthread_mutex_unlock(&lock);
	return SLURM_SUCCESS;
}

/* The job's request, borrowed from job_desc; NULL when it has none. */
static const char *job_request(const job_desc_msg_t *job_desc)
{
	if (job_desc->extra && job_desc->extra[0])
		return job_desc->extra;
	for (uint32_t i = 0; job_desc->spank_job_env &&
			     i < job_desc->spank_job_env_size; i++) {
		const char *v = job_desc->spank_job_env[i];

		if (v && strncmp(v, SPANK_VAR, sizeof(SPANK_VAR) - 1) == 0)
			return v + sizeof(SPANK_VAR) - 1;
	}
	return NULL;
}

/* Sets *err_msg (Slurm's allocator) and returns `rc`. */
static int refuse(char **err_msg, int rc, const char *text)
{
	if (err_msg && text)
		*err_msg = slurm_xstrdup(text);
	return rc;
}

/* With the lock held: adds the nodes of `table` that `expr` does not match
 * to job_desc->exc_nodes.  Returns SLURM_SUCCESS or refuses. */
static int filter_nodes(job_desc_msg_t *job_desc, const xc_expr_t *expr,
			const char *request, uint32_t uid, char **err_msg)
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
			   plugin_type, uid, esc(request, ebuf, sizeof(ebuf)),
			   count);
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
		return refuse(err_msg, ESLURM_INVALID_NODE_NAME,
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
			rc = refuse(err_msg, SLURM_ERROR, "--extra: out of memory");
		} else {
			slurm_xfree((void **)&job_desc->exc_nodes);
			job_desc->exc_nodes = exc;
		}
	}
	slurm_hostlist_destroy(hl);
	if (rc == SLURM_SUCCESS)
		slurm_verbose("%s: uid %u: '%s' matches %zu of %zu nodes; excluded %s",
			      plugin_type, uid,
			      esc(request, ebuf, sizeof(ebuf)), n, count,
			      job_desc->exc_nodes ? job_desc->exc_nodes
						  : "none");
	return rc;
}

int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid,
	       char **err_msg)
{
	const char *request;
	xc_expr_t *expr;
	xc_error_t err;
	char ebuf[256];
	int rc;

	if (!job_desc || !(request = job_request(job_desc)))
		return SLURM_SUCCESS;
	if (!(expr = xc_parse(request, &cfg.limits, &err))) {
		char *text = xc_error_render(request, &err, "--extra: ");

		slurm_info("%s: uid %u: invalid request '%s': %s",
			   plugin_type, submit_uid,
			   esc(request, ebuf, sizeof(ebuf)), err.message);
		rc = refuse(err_msg, ESLURM_INVALID_FEATURE,
			    text ? text : err.message);
		free(text);
		return rc;
	}
	pthread_mutex_lock(&lock);
	if (!table)
		rc = refuse(err_msg, SLURM_ERROR,
			    "--extra: node data are not loaded yet; submit again in a few seconds");
	else
		rc = filter_nodes(job_desc, expr, request, submit_uid,
				  err_msg);
	pthread_mutex_unlock(&lock);
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
