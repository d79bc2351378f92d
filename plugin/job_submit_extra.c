/*
 * job_submit_extra.c - JobSubmitPlugins=extra: keeps a job with an
 * `--extra` request off the nodes whose Extra data do not satisfy it, as
 * Slurm 23.11+ does with its own extra constraints (doc/language.md §7): an
 * invalid request is refused at submission; a valid one is accepted and
 * the job waits until some node satisfies it, following Extra changes.
 *
 * The request comes from job_desc->extra (Slurm 23.02+ clients) or, from
 * clients without `--extra`, from the SPANK option of spank_extra.so, which
 * reaches slurmctld in job_desc->spank_job_env.  It is parsed and evaluated
 * with the library (parser/) against a node table that a thread of this
 * plugin keeps current with slurm_load_node() (plugin/thread/, thread.h):
 * job_submit() and job_modify() run with slurmctld's locks held and must
 * not call the Slurm API themselves.  The non-matching nodes join the
 * job's excluded nodes (job_filter.h); the job's request and the user's
 * own exclusions are kept in its AdminComment (job_state.h).  The same
 * thread re-filters every pending job with a request whenever the node
 * data or the jobs change (refilter.h), and sends only the updates that
 * change something.  This file holds init(), fini() and job_submit();
 * job_modify() is modify.c's, and what both use entry.c's.
 *
 * On Slurm 23.11 and later with SchedulerParameters=extra_constraints,
 * Slurm filters by `extra` itself: this plugin then only checks each
 * request (positioned errors; and the requests that crash 23.11.0-23.11.6's
 * parser never reach it), hands a SPANK request over to job_desc->extra,
 * and runs no thread; preferences only burst_buffer/extra keeps there
 * (else refused).  Without extra_constraints, it filters as on 22.05,
 * from job_desc->extra.
 *
 * With Carrier=guard, burst_buffer/extra alone filters, inside slurmctld
 * (guard_record()): no thread runs (entry_wants_thread(), entry.h).
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
#include "slurm_nodes.h"
#include "plugin_config.h"
#include "job_filter.h"
#include "entry.h"
#include "carried.h"
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

/* Reads extra.conf (plugin_config.h), logs what the plugin does and starts
 * its thread (thread.h) unless burst_buffer/extra alone filters
 * (entry_wants_thread()).  SLURM_ERROR when the thread cannot start
 * (logged): Slurm then refuses to run without the plugin. */
int init(void)
{
	struct plugin_config cfg;
	bool slurm_filters = sx_slurm_filters_extra();
	char path[4096];

	plugin_config_path(path, sizeof(path));
	plugin_config_read(&cfg, path, log_config_problem);
	entry_carrier(&cfg);
	slurm_info(
		"%s: slurm-extra %s built for Slurm %d.%02d.%d; %s %s; RefreshInterval=%g Carrier=%s UpdateBudget=%zu MaxPendingRequests=%zu MaxPendingRequestsPerUser=%zu MaxPreferringJobsPerUser=%zu MaxRequestLength=%zu MaxDepth=%u MaxExtraLength=%zu MallocMmapThreshold=%zu MallocTrimInterval=%zu",
		plugin_type, PACKAGE_VERSION,
		SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
		SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
		SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER),
		cfg.found ? "read" : "no", path, cfg.refresh_interval,
		cfg.carrier_guard      ? "guard"
		: cfg.carrier_features ? "features"
				       : "exclusions",
		cfg.update_budget, cfg.max_requests, cfg.max_user_requests,
		cfg.max_prefer_jobs, cfg.limits.max_request_length,
		cfg.limits.max_depth, cfg.limits.max_extra_length,
		cfg.mmap_threshold, cfg.trim_interval);
	slurm_info("%s: %s", plugin_type,
		   thread_mode_text(slurm_filters, cfg.carrier_guard));
	modify_forget();
	entry_cfg = cfg;
	entry_self = getuid();
	entry_thread = NULL;
	if (entry_wants_thread(&cfg)) {
		thread_tune_malloc(&cfg, slurm_filters);
		if (!(entry_thread =
			      thread_start(&cfg, entry_self, slurm_filters)))
			return SLURM_ERROR;
	}
	entry_on = true;
	return SLURM_SUCCESS;
}

/* Stops the thread if one runs (thread_stop: fini returns within 1 s) and
 * forgets the caps' census. */
int fini(void)
{
	struct thread *t = entry_thread;

	entry_on = false;
	entry_thread = NULL;
	if (t)
		thread_stop(t);
	caps_free();
	guard_caps_forget();
	return SLURM_SUCCESS;
}

/*
 * With the thread's lock held: the filter of a job with request `expr`, its
 * state `st` (the user's own exclusions) and required nodes `req_nodes`,
 * against the current table, written into job_desc: exc_nodes, the hold
 * when `may_hold`, and admin_comment from `st`.  A job carried by its
 * request's feature `feature` (carried_submit(); NULL: by its
 * ExcNodeList), which `count` nodes carry for sure, keeps its own
 * exclusions and gets a status without counts (carry_status()).
 * `note` (may be NULL) goes before the status: a preference's words
 * (prefer_note).  Returns SLURM_SUCCESS or refuses.  Without a table yet
 * (right after slurmctld starts) the job is held, and the thread sets it
 * right.
 */
static int apply_filter(job_desc_msg_t *job_desc, const xc_expr_t *expr,
			struct sx_job_state *st, const char *req_nodes,
			const char *feature, long count, bool may_hold,
			const char *note, char **err_msg)
{
	const xc_nodes_t *table = thread_table(entry_thread);
	struct job_filter f = { 0 };
	bool *matched = NULL, hold;
	int rc = SLURM_SUCCESS;

	free(st->status);
	st->status = NULL;
	if (table) {
		size_t count_all = xc_nodes_count(table), min_nodes;

		if (!(matched = filter_match(table, expr)))
			return refuse(err_msg, SLURM_ERROR,
				      "--extra: out of memory");
		if (filter_compute(table, matched, st->exclude, req_nodes, &f) <
		    0) {
			free(matched);
			return refuse(
				err_msg, ESLURM_INVALID_NODE_NAME,
				"--extra: the job's excluded or required nodes are not a valid hostlist");
		}
		free(matched);
		/* Fewer nodes left than the job asks for, though the cluster
		 * has enough: Slurm would refuse the submission for the
		 * plugin's exclusions ("Requested node configuration is not
		 * available"), where Slurm alone, and 23.11's own filter,
		 * accept the job and let it wait.  So it starts held; the
		 * thread releases it, and Slurm's scheduler then keeps it
		 * waiting (BadConstraints) until enough nodes match.  A job
		 * asking for more nodes than the cluster has is left to Slurm
		 * to refuse, as it would without the plugin.  A job carried
		 * by its feature is held too while fewer nodes carry it for
		 * sure (a held job naming a feature no node has is accepted,
		 * src/slurmctld/job_mgr.c job_allocate()). */
		min_nodes = job_desc->min_nodes == NO_VAL ||
					    job_desc->min_nodes == 0
				    ? 1
				    : job_desc->min_nodes;
		hold = ((f.allowed < min_nodes ||
			 (feature && (size_t)count < min_nodes)) &&
			min_nodes <= count_all) ||
		       filter_must_hold(&f);
		if (feature) {
			st->status = carry_status(feature, f.allowed, f.total,
						  (uint32_t)min_nodes);
			/* its list is the user's: st->exclude, read */
			st->wrote = xc_text_hash(st->exclude);
		} else {
			st->status = filter_status(&f);
			st->wrote = hostlist_hash(f.exc);
			if (set_desc_string(&job_desc->exc_nodes,
					    f.exc ? f.exc : "") < 0)
				rc = refuse(err_msg, SLURM_ERROR,
					    "--extra: out of memory");
		}
	} else {
		st->status = strdup("held until the node data are loaded");
		st->wrote = xc_text_hash(st->exclude);
		hold = true;
	}
	if (hold && may_hold) {
		if (job_desc->priority == 0) {
			st->held = false; /* the user's own hold */
		} else {
			job_desc->priority = 0;
			st->held = true;
			st->held_at = 1; /* a new job: never requeued */
		}
	}
	if (rc == SLURM_SUCCESS && st->status && note && *note) {
		char *both = malloc(strlen(note) + strlen(st->status) + 1);

		if (both)
			strcat(strcpy(both, note), st->status);
		free(st->status);
		st->status = both;
	}
	if (rc == SLURM_SUCCESS &&
	    (!st->status || set_desc_state(&job_desc->admin_comment, st) < 0))
		rc = refuse(err_msg, SLURM_ERROR, "--extra: out of memory");
	filter_free(&f);
	return rc;
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

/* prefer_match_fn at submission: a text parsed and evaluated over the
 * table `ctx` (its limits are the thread's). */
static int submit_match(void *ctx, const char *text, bool *matched)
{
	xc_error_t err;
	xc_expr_t *e = xc_parse(text, &entry_cfg.limits, &err);
	long n;

	if (!e)
		return err.code == XC_E_NOMEM ? -1 : 0;
	n = xc_nodes_match(ctx, e, matched);
	xc_expr_destroy(e);
	return n < 0 ? -1 : 1;
}

/* With the thread's lock held: the effective request of a new job with
 * preferences (prefer_choose(), eligible now or at its --begin), parsed
 * into *effective (NULL: its request alone), and its note (malloc'd).
 * 0, or -1 when out of memory. */
static int submit_prefer(const job_desc_msg_t *job_desc,
			 const struct sx_job_state *st, xc_expr_t **effective,
			 char **note)
{
	const xc_nodes_t *table = thread_table(entry_thread);
	size_t count = table ? xc_nodes_count(table) : 0;
	time_t now = time(NULL), eligible;
	struct prefer_pick pick;
	struct prefer_nodes nodes = { .count = count,
				      .free = thread_free(entry_thread) };
	bool *usable = NULL;
	char *text = NULL;
	xc_error_t err;
	int rc = -1;

	*effective = NULL;
	*note = NULL;
	if (!table || !st->n_prefer)
		return (*note = strdup("")) ? 0 : -1;
	eligible = job_desc->priority == 0	? 0
		   : job_desc->begin_time > now ? job_desc->begin_time
						: now;
	if (!(nodes.matched = calloc(count ? count : 1, sizeof(bool))) ||
	    !(usable = malloc((count ? count : 1) * sizeof(bool))))
		goto out;
	/* a node outside the job's partitions, or that its user excluded,
	 * is no preferred node */
	for (size_t k = 0; k < count; k++)
		usable[k] = true;
	thread_parts_usable(entry_thread, job_desc->partition, count, usable);
	if (st->exclude && *st->exclude)
		(void)sx_nodes_mark(table, st->exclude, usable, false, NULL);
	nodes.usable = usable;
	if (prefer_choose(st, eligible, now, &nodes, submit_match,
			  (void *)table, &text, &pick) < 0 ||
	    !(*note = prefer_note(st, &pick)))
		goto out;
	if (pick.tier) /* the thread widens it then, at the latest */
		thread_prefer_deadline(entry_thread, pick.until, st->wait <= 0);
	if (text && !(*effective = xc_parse(text, &entry_cfg.limits, &err)))
		goto out; /* the tier parsed before: out of memory */
	rc = 0;
out:
	if (rc < 0) {
		free(*note);
		*note = NULL;
		xc_expr_destroy(*effective);
		*effective = NULL;
	}
	free(text);
	free(nodes.matched);
	free(usable);
	return rc;
}

/* The owner of a job being submitted: its user_id, else the caller. */
static uint32_t job_owner(const job_desc_msg_t *job_desc, uint32_t submit_uid)
{
	return job_desc->user_id != NO_VAL ? job_desc->user_id : submit_uid;
}

/* With the thread's lock held: the caps a new job with request `expr`
 * and state `st` (its tiers) counts against, for `owner` (entry.h admit()
 * and, with preferences, admit_prefer()).  SLURM_SUCCESS or the
 * refusal. */
static int admit_all(const xc_expr_t *expr, const struct sx_job_state *st,
		     uint32_t owner, char **err_msg)
{
	int rc = admit(expr, st, owner, NULL, err_msg);

	if (rc == SLURM_SUCCESS && st->n_prefer)
		rc = admit_prefer(owner, err_msg);
	return rc;
}

/*
 * A submission (slurmctld's job_submit_g_submit(), its locks held): a job
 * with a request (job_desc->extra, else the SPANK option's variable) has
 * it checked, and refused with the rendered error (ESLURM_INVALID_FEATURE
 * in *err_msg, Slurm's allocator) when invalid; then, unless Slurm filters
 * by `extra` itself, the nodes whose Extra does not satisfy it join its
 * excluded nodes, its state goes into its AdminComment, and it starts
 * held when too few nodes match (doc/thread.md "Submissions").  A job
 * without a request is left alone.
 */
static int submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	struct timespec t0;
	struct sx_job_state st = { 0 };
	const char *request;
	xc_expr_t *expr;
	char ebuf[256], xbuf[256];
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
	 * extra_constraints is on, and the thread reads it (an update may
	 * change it).  A request from the SPANK option (an older client)
	 * is copied there. */
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
	if ((rc = state_of(job_desc, request, &st, err_msg)) != SLURM_SUCCESS) {
		;
	} else if (guard_keeps()) {
		if ((rc = guard_admit(sx_guard_api(),
				      job_owner(job_desc, submit_uid), request,
				      &st, st.n_prefer, err_msg)) == 0)
			rc = guard_record(job_desc, &st, err_msg);
	} else if (!entry_thread) { /* (started by init(), but for the guard) */
		rc = refuse(
			err_msg, SLURM_ERROR,
			"--extra: the job_submit/extra plugin is not running");
	} else {
		char name[SX_FEATURE_LEN + 1], *note = NULL;
		xc_expr_t *effective = NULL;
		long count;
		int by = -1;

		thread_lock(entry_thread);
		if (submit_prefer(job_desc, &st, &effective, &note) == 0)
			by = carried_submit(job_desc,
					    effective ? effective : expr, name,
					    &count);
		rc = by < 0 ? refuse(err_msg, SLURM_ERROR,
				     "--extra: out of memory")
			    : apply_filter(job_desc,
					   effective ? effective : expr, &st,
					   job_desc->req_nodes,
					   by ? name : NULL, count, true, note,
					   err_msg);
		xc_expr_destroy(effective);
		free(note);
		if (rc == SLURM_SUCCESS)
			rc = admit_all(expr, &st,
				       job_owner(job_desc, submit_uid),
				       err_msg);
		/* a job the plugin held waits for the thread to release it:
		 * a load at the next round */
		if (rc == SLURM_SUCCESS && st.held)
			thread_ask_urgent(entry_thread);
		thread_unlock(entry_thread);
	}
	if (rc == SLURM_SUCCESS)
		slurm_verbose("%s: uid %u: '%s': %s; excluded %s%s (%.3f ms)",
			      plugin_type, submit_uid,
			      xc_escape(request, ebuf, sizeof(ebuf)), st.status,
			      job_desc->exc_nodes && *job_desc->exc_nodes
				      ? xc_escape(job_desc->exc_nodes, xbuf,
						  sizeof(xbuf))
				      : "none",
			      st.held ? "; held until it is re-filtered" : "",
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
