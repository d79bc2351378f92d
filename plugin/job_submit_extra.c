/*
 * job_submit_extra.c - JobSubmitPlugins=extra: keeps a job with an
 * `--extra` request off the nodes whose Extra data do not satisfy it, as
 * Slurm 23.11+ does with its own extra constraints (doc/language.md §7): an
 * invalid request is refused at submission; a valid one is accepted and
 * the job waits until some node satisfies it, following Extra changes.
 *
 * The request comes from job_desc->extra (Slurm 23.02+ clients) or, from
 * clients without `--extra`, from the SPANK option of spank_extra.so, which
 * reaches slurmctld in job_desc->spank_job_env.  It is parsed with the
 * library (parser/) and checked here; who filters by it is one of
 * (entry_filter(), entry.h):
 *   - burst_buffer/extra (BurstBufferType, ctld/): its guard keeps the
 *     job off the nodes that do not satisfy it at each placement, and its
 *     look in backfill's plans, reading the job's request and the user's
 *     own exclusions from the state this plugin writes into its
 *     AdminComment (guard_record(); doc/guard.md "The guard alone");
 *   - Slurm itself, 23.11+ with SchedulerParameters=extra_constraints:
 *     this plugin then only checks each request (positioned errors; and
 *     the requests that crash 23.11.0-23.11.6's parser never reach it) and
 *     hands a SPANK request over to job_desc->extra; preferences only
 *     burst_buffer/extra keeps there (else refused);
 *   - nobody: every request is refused (NO_FILTER_HERE), as a job that
 *     ran anywhere would be a wrong answer.
 * This file holds init(), fini() and job_submit(); job_modify() is
 * modify.c's, and what both use entry.c's.
 *
 * Everything here must be safe inside slurmctld: no abort, every failure a
 * refusal with a message or a log line, request text escaped in logs.
 */
#define _GNU_SOURCE /* asprintf */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "slurm_compat.h"
#include "elapsed.h"
#include "job_state.h"
#include "slurm_hostlist.h"
#include "plugin_config.h"
#include "entry.h"
#include "ctld.h"
#include "caps.h"
#include "guard_caps.h"
#include "prefer.h"
#include "xc.h"
#include "xc_util.h"

const char plugin_name[] = "Job submit plugin for --extra node filters";
const char plugin_type[] = "job_submit/extra";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

static void log_config_problem(const char *message)
{
	slurm_error("%s: %s", plugin_type, message);
}

/* What init() says of who filters (entry_filter()), with settings
 * `cfg`. */
static const char *filter_text(enum entry_filter by,
			       const struct plugin_config *cfg)
{
	switch (by) {
	case FILTER_GUARD:
		return "Carrier=guard: burst_buffer/extra filters jobs by --extra inside slurmctld, at each placement; this plugin checks and records requests";
	case FILTER_SLURM:
		return cfg->carrier_guard
			       ? "SchedulerParameters has extra_constraints: Slurm filters by --extra itself; this plugin checks requests, and burst_buffer/extra keeps the preferences (Carrier=guard)"
			       : "SchedulerParameters has extra_constraints: Slurm filters by --extra itself; this plugin checks requests and refuses --extra-prefer (BurstBufferType=burst_buffer/extra keeps preferences)";
	default:
		return NO_FILTER_HERE + sizeof("--extra: ") - 1;
	}
}

/* Reads extra.conf (plugin_config.h) and logs what the plugin does: who
 * filters (entry_filter(); nobody: an error line, every request then
 * refused).  Always SLURM_SUCCESS: a plugin that refuses what it cannot
 * filter lets slurmctld run. */
int init(void)
{
	struct plugin_config cfg;
	enum entry_filter by;
	char path[4096];

	plugin_config_path(path, sizeof(path));
	plugin_config_read(&cfg, path, log_config_problem);
	entry_carrier(&cfg);
	slurm_info(
		"%s: slurm-extra %s built for Slurm %d.%02d.%d; %s %s; Carrier=%s MaxPendingRequests=%zu MaxPendingRequestsPerUser=%zu MaxPreferringJobsPerUser=%zu MaxRequestLength=%zu MaxDepth=%u MaxExtraLength=%zu",
		plugin_type, PACKAGE_VERSION,
		SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
		SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
		SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER),
		cfg.found ? "read" : "no", path,
		cfg.carrier_guard ? "guard" : "none", cfg.max_requests,
		cfg.max_user_requests, cfg.max_prefer_jobs,
		cfg.limits.max_request_length, cfg.limits.max_depth,
		cfg.limits.max_extra_length);
	by = entry_filter(&cfg);
	if (by == FILTER_NONE)
		slurm_error("%s: %s: every request is refused", plugin_type,
			    filter_text(by, &cfg));
	else
		slurm_info("%s: %s", plugin_type, filter_text(by, &cfg));
	entry_cfg = cfg;
	entry_self = getuid();
	entry_on = true;
	return SLURM_SUCCESS;
}

/* Forgets the caps' census. */
int fini(void)
{
	entry_on = false;
	caps_free();
	guard_caps_forget();
	return SLURM_SUCCESS;
}

/*
 * Carrier=guard: burst_buffer/extra keeps the job off the nodes whose
 * Extra does not satisfy its request, inside slurmctld, where Slurm
 * places it (its guard) and in backfill's plans (its look), reading the
 * request from the job's state (doc/guard.md "The guard alone").  So
 * here the job gets its state alone (`st`: its request, tiers and the
 * user's own exclusions as at submission, filled by the caller) in its
 * AdminComment:
 * nothing excluded, held or counted, and Slurm answers the submission as
 * it would without the plugin.  SLURM_SUCCESS or the refusal (out of
 * memory).
 */
static int guard_record(job_desc_msg_t *job_desc, struct sx_job_state *st,
			char **err_msg)
{
	free(st->status);
	/* the user's list (read by Slurm already) and its hash, for a filter
	 * mode switched to later: the guard reads the job's own list */
	st->wrote = xc_text_hash(st->exclude);
	if (!(st->status = strdup(SX_GUARD_STATUS)) ||
	    set_desc_state(&job_desc->admin_comment, st) < 0)
		return refuse(err_msg, SLURM_ERROR, "--extra: out of memory");
	return SLURM_SUCCESS;
}

/* Fills a new job's state `st` (its tiers read) with what every mode
 * keeps: the user's own exclusions, in normal form (a node there is no
 * preferred node), its request, the admin's text.  SLURM_SUCCESS or the
 * refusal. */
static int state_of(const job_desc_msg_t *job_desc, const char *request,
		    struct sx_job_state *st, char **err_msg)
{
	if (!(st->exclude = sx_hostlist_normal(job_desc->exc_nodes)))
		return refuse(
			err_msg, ESLURM_INVALID_NODE_NAME,
			"--extra: the job's excluded nodes are not a valid hostlist");
	if (!(st->request = strdup(request)) ||
	    (job_desc->admin_comment && *job_desc->admin_comment &&
	     !(st->admin = strdup(job_desc->admin_comment))))
		return refuse(err_msg, SLURM_ERROR, "--extra: out of memory");
	return SLURM_SUCCESS;
}

/* Reads a job's preferences (prefer.h) from its SPANK environment into
 * `st` and checks each tier as a request (the rendered error in *err_msg,
 * ESLURM_INVALID_FEATURE).  SLURM_SUCCESS or the refusal. */
static int read_prefer(const job_desc_msg_t *job_desc, uint32_t uid,
		       struct sx_job_state *st, char **err_msg)
{
	char why[256];
	int rc = prefer_from_env(job_desc->spank_job_env,
				 job_desc->spank_job_env_size, request_limit(),
				 st, why, sizeof(why));

	if (rc < 0)
		return refuse(err_msg, SLURM_ERROR, "--extra: out of memory");
	if (rc > 0)
		return refuse(err_msg, ESLURM_INVALID_FEATURE, why);
	return check_tiers(st, uid, err_msg);
}

/* The owner of a job being submitted: its user_id, else the caller. */
static uint32_t job_owner(const job_desc_msg_t *job_desc, uint32_t submit_uid)
{
	return job_desc->user_id != NO_VAL ? job_desc->user_id : submit_uid;
}

/*
 * A submission (slurmctld's job_submit_g_submit(), its locks held): a job
 * with a request (job_desc->extra, else the SPANK option's variable) has
 * it checked, and refused with the rendered error (ESLURM_INVALID_FEATURE
 * in *err_msg, Slurm's allocator) when invalid; then, by who filters
 * (entry_filter()): burst_buffer/extra's job gets its state in its
 * AdminComment (guard_record()) once the caps admit it; where Slurm
 * filters by `extra` itself, the request is Slurm's (preferences the
 * guard's, else refused: PREFER_NEEDS_GUARD); where nobody does, it is
 * refused (NO_FILTER_HERE).  A job without a request is left alone.
 */
static int submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	struct timespec t0;
	struct sx_job_state st = { 0 };
	const char *request;
	xc_expr_t *expr;
	char ebuf[256];
	int rc = SLURM_SUCCESS;

	if (!job_desc)
		return SLURM_SUCCESS;
	if (!(request = job_request(job_desc))) {
		if (prefer_from_env(job_desc->spank_job_env,
				    job_desc->spank_job_env_size,
				    request_limit(), &st, ebuf,
				    sizeof(ebuf)) == 0 &&
		    !st.n_prefer)
			return SLURM_SUCCESS;
		sx_job_state_free(&st);
		return refuse(
			err_msg, ESLURM_INVALID_FEATURE,
			"--extra-prefer: it needs a request (--extra) that every node the job may run on satisfies");
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!entry_on)
		return refuse(
			err_msg, SLURM_ERROR,
			"--extra: the job_submit/extra plugin is not running");
	if (!(expr = parse_or_refuse(request, submit_uid, err_msg, &rc)))
		return rc;
	/* From 23.02 the job's own `extra` holds its request, as a 23.02
	 * client's `--extra` would: Slurm filters by it when
	 * extra_constraints is on, and `scontrol update` may change it.  A
	 * request from the SPANK option (an older client) is copied
	 * there. */
	if (SX_SLURM_HAS_EXTRA_OPTION &&
	    (!job_desc->extra || !*job_desc->extra) &&
	    set_desc_string(&job_desc->extra, request) < 0) {
		xc_expr_destroy(expr);
		return refuse(err_msg, SLURM_ERROR, "--extra: out of memory");
	}
	if ((rc = read_prefer(job_desc, submit_uid, &st, err_msg)) !=
	    SLURM_SUCCESS) {
		sx_job_state_free(&st);
		xc_expr_destroy(expr);
		return rc;
	}
	/* Where Slurm filters by `extra` itself, the request is Slurm's; the
	 * preferences only burst_buffer/extra keeps (below), at placement
	 * (doc/preferences.md "Preferences") */
	if (sx_slurm_filters_extra() && !(st.n_prefer && guard_keeps())) {
		if (st.n_prefer)
			rc = refuse(err_msg, ESLURM_NOT_SUPPORTED,
				    PREFER_NEEDS_GUARD);
		sx_job_state_free(&st);
		xc_expr_destroy(expr);
		return rc;
	}
	if (!guard_keeps())
		rc = refuse(err_msg, ESLURM_NOT_SUPPORTED, NO_FILTER_HERE);
	else if ((rc = state_of(job_desc, request, &st, err_msg)) ==
			 SLURM_SUCCESS &&
		 (rc = guard_admit(sx_guard_api(),
				   job_owner(job_desc, submit_uid), request,
				   &st, st.n_prefer, err_msg)) == SLURM_SUCCESS)
		rc = guard_record(job_desc, &st, err_msg);
	if (rc == SLURM_SUCCESS)
		slurm_verbose("%s: uid %u: '%s': %s (%.3f ms)", plugin_type,
			      submit_uid,
			      xc_escape(request, ebuf, sizeof(ebuf)), st.status,
			      ms_since(&t0));
	sx_job_state_free(&st);
	xc_expr_destroy(expr);
	return rc;
}

/* job_submit() leaves errno as Slurm had it, as job_modify() does
 * (modify.c): Slurm's update path answers with a stale errno
 * (src/slurmctld/job_mgr.c _update_job()); its submission path reads none
 * after the plugins (job_mgr.c, 22.05-26.05), and neither entry point
 * lets the plugin's calls choose Slurm's answer. */
int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	int saved = errno, rc = submit(job_desc, submit_uid, err_msg);

	errno = saved;
	return rc;
}
