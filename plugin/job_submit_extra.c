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
 * plugin keeps current with slurm_load_node() (thread_private.h, node_table.h):
 * job_submit() and job_modify() run with slurmctld's locks held and must
 * not call the Slurm API themselves.  The non-matching nodes join the
 * job's excluded nodes (job_filter.h); the job's request and the user's
 * own exclusions are kept in its AdminComment (job_state.h).  The same
 * thread re-filters every pending job with a request whenever the node
 * data or the jobs change (refilter.h), and sends only the updates that
 * change something.  This file holds the entry points and what only they
 * use.
 *
 * On Slurm 23.11 and later with SchedulerParameters=extra_constraints,
 * Slurm filters by `extra` itself: this plugin then only checks each
 * request (positioned errors; and the requests that crash 23.11.0-23.11.6's
 * parser never reach it), hands a SPANK request over to job_desc->extra,
 * and its thread stands idle.  Without extra_constraints, it filters as on
 * 22.05, from job_desc->extra.
 *
 * Everything here must be safe inside slurmctld: no abort, every failure a
 * refusal with a message or a log line, request text escaped in logs.
 */
#define _GNU_SOURCE /* asprintf */

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "slurm_compat.h"
#include "elapsed.h"
#include "job_state.h"
#include "slurm_hostlist.h"
#include "plugin_config.h"
#include "job_filter.h"
#include "thread.h"
#include "xc.h"

const char plugin_name[] = "Job submit plugin for --extra node filters";
const char plugin_type[] = "job_submit/extra";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* The entry points slurmctld calls. */
int init(void);
int fini(void);
int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg);
#if SX_MODIFY_HAS_ERR_MSG
int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid,
	       char **err_msg);
#else
int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid);
#endif

/* The SPANK option's variable: _SLURM_SPANK_OPTION_<plugin>_<option>. */
#define SPANK_VAR "_SLURM_SPANK_OPTION_extra_extra="

/* The context job_submit() uses.  init(), fini() and job_submit() are
 * serialised by slurmctld (its job_submit context lock). */
static struct thread *current;

/* What job_modify() last set, to tell Slurm's repeat calls for the records
 * of one update (modify()); under the thread's lock. */
static struct {
	const job_desc_msg_t *desc; /* its last job_desc, */
	const char *exc;	    /* the ExcNodeList it set there */
	const char *admin;	    /* the AdminComment it set there */
	uint64_t id_hash;	    /* text_hash() of its job_id_str, */
	uint64_t exc_hash;	    /* of the ExcNodeList it set, */
	uint64_t admin_hash;	    /* of the AdminComment it set */
} last;

static void log_config_problem(const char *message)
{
	slurm_error("%s: %s", plugin_type, message);
}

/* Reads extra.conf (plugin_config.h), logs what the plugin does and starts
 * its thread (thread_private.h).  SLURM_ERROR when the thread cannot start
 * (logged): Slurm then refuses to run without the plugin. */
int init(void)
{
	struct plugin_config cfg;
	bool slurm_filters = sx_slurm_filters_extra();
	char path[4096];

	plugin_config_path(path, sizeof(path));
	plugin_config_read(&cfg, path, log_config_problem);
	slurm_info(
		"%s: slurm-extra %s built for Slurm %d.%02d.%d; %s %s; RefreshInterval=%g UpdateBudget=%zu MaxPendingRequests=%zu MaxPendingRequestsPerUser=%zu MaxRequestLength=%zu MaxDepth=%u MaxExtraLength=%zu MallocMmapThreshold=%zu MallocTrimInterval=%zu",
		plugin_type, PACKAGE_VERSION,
		SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
		SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
		SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER),
		cfg.found ? "read" : "no", path, cfg.refresh_interval,
		cfg.update_budget, cfg.max_requests, cfg.max_user_requests,
		cfg.limits.max_request_length, cfg.limits.max_depth,
		cfg.limits.max_extra_length, cfg.mmap_threshold,
		cfg.trim_interval);
	slurm_info("%s: %s", plugin_type, thread_mode_text(slurm_filters));
	thread_tune_malloc(&cfg, slurm_filters);
	memset(&last, 0, sizeof(last));
	if (!(current = thread_start(&cfg, getuid(), slurm_filters)))
		return SLURM_ERROR;
	return SLURM_SUCCESS;
}

/* Stops the thread (thread_stop: fini returns within 1 s). */
int fini(void)
{
	struct thread *t = current;

	if (!t)
		return SLURM_SUCCESS;
	current = NULL;
	thread_stop(t);
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

/* Replaces a job_desc string with a copy of `text` from Slurm's allocator
 * (Slurm frees it); -1 when out of memory. */
static int set_desc_string(char **field, const char *text)
{
	char *copy = slurm_xstrdup(text);

	if (!copy)
		return -1;
	slurm_xfree((void **)field);
	*field = copy;
	return 0;
}

/*
 * With the thread's lock held: the filter of a job with request `expr`, its
 * state `st` (the user's own exclusions) and required nodes `req_nodes`,
 * against the current table, written into job_desc: exc_nodes, the hold
 * when `may_hold`, and admin_comment from `st`.  Returns SLURM_SUCCESS or
 * refuses.  Without a table yet (right after slurmctld starts) the job is
 * held, and the thread sets it right.
 */
static int apply_filter(job_desc_msg_t *job_desc, const xc_expr_t *expr,
			struct sx_job_state *st, const char *req_nodes,
			bool may_hold, char **err_msg)
{
	const xc_nodes_t *table = thread_table(current);
	struct job_filter f = { 0 };
	bool *matched = NULL, hold;
	char *comment = NULL;
	int rc = SLURM_SUCCESS;

	free(st->status);
	st->status = NULL;
	if (table) {
		size_t count = xc_nodes_count(table), min_nodes;

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
		st->status = filter_status(&f);
		st->wrote = hostlist_hash(f.exc);
		/* Fewer nodes left than the job asks for, though the cluster
		 * has enough: Slurm would refuse the submission for the
		 * plugin's exclusions ("Requested node configuration is not
		 * available"), where Slurm alone, and 23.11's own filter,
		 * accept the job and let it wait.  So it starts held; the
		 * thread releases it, and Slurm's scheduler then keeps it
		 * waiting (BadConstraints) until enough nodes match.  A job
		 * asking for more nodes than the cluster has is left to Slurm
		 * to refuse, as it would without the plugin. */
		min_nodes = job_desc->min_nodes == NO_VAL ||
					    job_desc->min_nodes == 0
				    ? 1
				    : job_desc->min_nodes;
		hold = (f.allowed < min_nodes && min_nodes <= count) ||
		       filter_must_hold(&f);
		if (set_desc_string(&job_desc->exc_nodes, f.exc ? f.exc : "") <
		    0)
			rc = refuse(err_msg, SLURM_ERROR,
				    "--extra: out of memory");
	} else {
		st->status = strdup("held until the node data are loaded");
		st->wrote = hostlist_hash(job_desc->exc_nodes);
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
	if (rc == SLURM_SUCCESS &&
	    (!st->status || !(comment = sx_job_state_format(st)) ||
	     set_desc_string(&job_desc->admin_comment, comment) < 0))
		rc = refuse(err_msg, SLURM_ERROR, "--extra: out of memory");
	free(comment);
	filter_free(&f);
	return rc;
}

/* Parses `request`; NULL and *rc set after refusing it with the rendered
 * error. */
static xc_expr_t *parse_or_refuse(const char *request, uint32_t uid,
				  char **err_msg, int *rc)
{
	xc_error_t err;
	xc_expr_t *expr =
		xc_parse(request, &thread_config(current)->limits, &err);
	char ebuf[256], mbuf[2 * XC_ERROR_MESSAGE_SIZE];
	char *text;

	if (expr)
		return expr;
	text = xc_error_render(request, &err, "--extra: ");
	/* The message quotes the request: escaped too. */
	slurm_info("%s: uid %u: invalid request '%s': %s", plugin_type, uid,
		   xc_escape(request, ebuf, sizeof(ebuf)),
		   xc_escape(err.message, mbuf, sizeof(mbuf)));
	*rc = refuse(err_msg, ESLURM_INVALID_FEATURE,
		     text ? text : err.message);
	free(text);
	return NULL;
}

/* The caps on distinct pending requests (census.h, doc/design.md
 * "Caps"): SLURM_SUCCESS when user `uid` (the job's owner) may have one
 * more job with request `expr`, else the refusal (ESLURM_ACCOUNTING_POLICY,
 * as Slurm's MaxSubmitJobs; *err_msg says which cap).  *hash (may be NULL)
 * gets the request's (xc_text_hash() of its canonical text, as
 * known_job.request_hash).  With the thread's lock held. */
static int admit(const xc_expr_t *expr, uint32_t uid, uint64_t *hash,
		 char **err_msg)
{
	char *canonical = xc_format(expr), why[512];
	uint64_t h;
	int rc;

	if (!canonical)
		return refuse(err_msg, SLURM_ERROR, "--extra: out of memory");
	h = xc_text_hash(canonical);
	if (hash)
		*hash = h;
	rc = thread_admit(current, uid, h, why, sizeof(why));
	free(canonical);
	if (rc < 0)
		return refuse(err_msg, SLURM_ERROR, "--extra: out of memory");
	if (rc > 0) {
		slurm_verbose("%s: uid %u: refused: %s", plugin_type, uid, why);
		return refuse(err_msg, ESLURM_ACCOUNTING_POLICY, why);
	}
	return SLURM_SUCCESS;
}

/*
 * A submission (slurmctld's job_submit_g_submit(), its locks held): a job
 * with a request (job_desc->extra, else the SPANK option's variable) has
 * it checked, and refused with the rendered error (ESLURM_INVALID_FEATURE
 * in *err_msg, Slurm's allocator) when invalid; then, unless Slurm filters
 * by `extra` itself, the nodes whose Extra does not satisfy it join its
 * excluded nodes, its state goes into its AdminComment, and it starts
 * held when too few nodes match (doc/design.md "Submissions").  A job
 * without a request is left alone.
 */
int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	struct timespec t0;
	struct sx_job_state st = { 0 };
	const char *request;
	xc_expr_t *expr;
	char ebuf[256], xbuf[256];
	int rc = SLURM_SUCCESS;

	if (!job_desc || !(request = job_request(job_desc)))
		return SLURM_SUCCESS;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!current)
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
	if (sx_slurm_filters_extra()) {
		xc_expr_destroy(expr);
		return rc;
	}
	if (!(st.exclude = sx_hostlist_normal(job_desc->exc_nodes))) {
		rc = refuse(
			err_msg, ESLURM_INVALID_NODE_NAME,
			"--extra: the job's excluded nodes are not a valid hostlist");
	} else if (!(st.request = strdup(request)) ||
		   (job_desc->admin_comment && *job_desc->admin_comment &&
		    !(st.admin = strdup(job_desc->admin_comment)))) {
		rc = refuse(err_msg, SLURM_ERROR, "--extra: out of memory");
	} else {
		thread_lock(current);
		rc = apply_filter(job_desc, expr, &st, job_desc->req_nodes,
				  true, err_msg);
		if (rc == SLURM_SUCCESS)
			rc = admit(expr,
				   job_desc->user_id != NO_VAL
					   ? job_desc->user_id
					   : submit_uid,
				   NULL, err_msg);
		/* a job the plugin held waits for the thread to release it:
		 * a load at the next round */
		if (rc == SLURM_SUCCESS && st.held)
			thread_ask_urgent(current);
		thread_unlock(current);
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

/* xc_text_hash() of the first 4 KB of `text` ("" for NULL): what tells a
 * repeat call of job_modify() (modify()), bounded, as it runs once per
 * record of a whole array under slurmctld's job write lock. */
static uint64_t text_hash(const char *text)
{
	char head[4096];
	size_t n = text ? strnlen(text, sizeof(head) - 1) : 0;

	if (n)
		memcpy(head, text, n);
	head[n] = '\0';
	return xc_text_hash(head);
}

/* Replaces a malloc'd string with a copy of `text`; -1 when out of
 * memory. */
static int replace_string(char **field, const char *text)
{
	char *copy = strdup(text);

	if (!copy)
		return -1;
	free(*field);
	*field = copy;
	return 0;
}

/*
 * With the thread's lock held: the plugin's filter kept on an update of
 * pending-only fields of known job `k` by someone else: the excluded nodes
 * it sets (or, for new required nodes, the user's own) become the user's
 * own, and the nodes whose Extra does not satisfy the request are added
 * to job_desc->exc_nodes, a field the caller is setting anyway (Slurm
 * checks it with their rights, as without the plugin), less the required
 * ones (Slurm refuses an update whose required nodes are excluded).  `h`
 * records what was set.  A list that is not a hostlist, or a request that
 * no longer parses, is left to Slurm as it is; a user's list beyond the
 * table is kept as written with the plugin's nodes after it
 * (filter_update_list(), whose cost is bounded by the table).  -1 when
 * out of memory.
 */
static int keep_filter(job_desc_msg_t *job_desc, const struct known_job *k,
		       const xc_expr_t *expr, struct job_hint *h)
{
	const xc_nodes_t *table = thread_table(current);
	struct update_list l = { 0 };
	bool *matched;
	int rc;

	if (!table || !expr)
		return 0;
	if (!(matched = filter_match(table, expr)))
		return -1;
	rc = filter_update_list(
		table, matched, job_desc->exc_nodes, k->st.exclude,
		job_desc->req_nodes ? job_desc->req_nodes : k->req_nodes, &l);
	free(matched);
	if (rc == 0 && set_desc_string(&job_desc->exc_nodes, l.exc) < 0)
		rc = -1;
	if (rc == 0) {
		last.exc = job_desc->exc_nodes;
		last.exc_hash = text_hash(job_desc->exc_nodes);
		h->exc = true;
		h->exc_hash = l.exc_hash;
		h->exc_text = l.exc_text;
		h->user_exc = l.user;
		l.user = NULL;
	}
	free(l.exc);
	free(l.user);
	return rc < 0 ? -1 : 0;
}

/*
 * An update of a job by anyone but this plugin's thread.  Slurm alone
 * decides whether it is allowed and what it does; the plugin adds nothing
 * the caller could not set, and never writes its state on a caller's
 * behalf: AdminComment only where the caller sets it (Slurm checked them
 * as a super user before job_modify()), so a user's update is never
 * refused for a field the plugin added.
 *   - a new request (`extra`, 23.02+) is checked as at submission, so an
 *     invalid one never reaches Slurm's own parser;
 *   - new excluded or required nodes of a known pending job keep the
 *     plugin's exclusions (keep_filter());
 *   - a new AdminComment of a super user keeps the plugin's state after
 *     it; from root or SlurmUser, the requeue note of the check at start
 *     (`slurm-extra prolog-slurmctld`) in it is kept in front of the
 *     state's status (job_state.h);
 *   - everything is recorded as a hint for the thread (refilter.h), which
 *     takes it only once the job's data show Slurm applied the update.
 * The thread's own update (in flight, from slurmctld's uid) passes, unless
 * someone else updated its job after the thread planned it.  With Slurm's
 * own extra_constraints on, a new request is only checked.
 */
static int modify(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	const struct known_job *k;
	struct job_hint h = { 0 };
	struct sx_job_state st = { 0 };
	xc_expr_t *expr = NULL, *kept = NULL;
	bool het_all, stale, new_request, plan_field, hinted, required_out;
	char *comment = NULL;
	uint32_t id, task, offset;
	uint64_t request_hash = 0; /* of `expr` (admit()) */
	size_t pending;
	int rc = SLURM_SUCCESS;

	if (!job_desc || !current)
		return SLURM_SUCCESS;
	thread_lock(current);
	if (thread_own_update(current, job_desc, submit_uid, &stale)) {
		thread_unlock(current);
		return stale ? refuse(err_msg, SLURM_ERROR,
				      "--extra: the job changed since this update was planned")
			     : SLURM_SUCCESS;
	}
	thread_unlock(current);
	/* 22.05 ignores `extra` in an update: so does the plugin. */
	if (SX_SLURM_HAS_EXTRA_OPTION && job_desc->extra && *job_desc->extra &&
	    !(expr = parse_or_refuse(job_desc->extra, submit_uid, err_msg,
				     &rc)))
		return rc;
	if (sx_slurm_filters_extra()) { /* checked: the rest is Slurm's */
		xc_expr_destroy(expr);
		return SLURM_SUCCESS;
	}
	thread_lock(current);
	/* Slurm calls job_modify() once per record for an update of a whole
	 * array or heterogeneous job, with the same job_desc: the first
	 * call did it all (an AdminComment appended to again and again grew
	 * with every record).  The same job_desc still holding the very
	 * strings the plugin set there, with the texts it set and for the
	 * same job, is that: the addresses alone may be those of a later
	 * update's, allocated where the last one's were freed. */
	if (job_desc == last.desc &&
	    text_hash(job_desc->job_id_str) == last.id_hash &&
	    ((last.exc && job_desc->exc_nodes == last.exc &&
	      text_hash(job_desc->exc_nodes) == last.exc_hash) ||
	     (last.admin && job_desc->admin_comment == last.admin &&
	      text_hash(job_desc->admin_comment) == last.admin_hash))) {
		thread_unlock(current);
		xc_expr_destroy(expr);
		return SLURM_SUCCESS;
	}
	last.desc = job_desc;
	last.id_hash = text_hash(job_desc->job_id_str);
	last.exc = last.admin = NULL;
	k = thread_known_target(current, job_desc, &id, &task, &offset,
				&het_all);
	/* A new request counts against the caps as a submission's does
	 * (else an update would pass them), for the job's owner. */
	if (expr && (rc = admit(expr, k ? k->user_id : submit_uid,
				&request_hash, err_msg)) != SLURM_SUCCESS) {
		thread_unlock(current);
		xc_expr_destroy(expr);
		return rc;
	}
	h.id = id;
	h.task = task;
	h.offset = offset;
	h.owner = k ? k->user_id : submit_uid; /* unknown: the caller's */
	/* On 22.05 Slurm has not checked the caller yet: only the owner's,
	 * root's and SlurmUser's hints are taken (anyone else's update is
	 * refused, or theirs is an operator's: the job's data then show it,
	 * and the thread keeps what they set as the user's). */
	h.trusted = SX_OWNER_CHECKED_FIRST || submit_uid == 0 ||
		    submit_uid == (uint32_t)thread_slurm_user(current) ||
		    submit_uid == (k ? k->user_id : job_desc->user_id);
	h.hold = job_desc->priority == 0;
	new_request = SX_SLURM_HAS_EXTRA_OPTION && job_desc->extra != NULL;
	/* A hint only for an update of a field the plan reads: anyone's
	 * update of anything else (a comment, a time limit) costs the thread
	 * nothing, and an untrusted one of a job the thread filters neither
	 * (Slurm refuses it, or it is an operator's, whose list the job's
	 * data show). */
	plan_field = job_desc->exc_nodes || job_desc->req_nodes ||
		     job_desc->priority != NO_VAL || job_desc->admin_comment ||
		     new_request;
	hinted = plan_field && (h.trusted || !k);
	if (k && !het_all && (job_desc->exc_nodes || job_desc->req_nodes)) {
		/* A request of its own, else the one the job has. */
		if (!expr && !new_request)
			kept = xc_parse(k->st.request,
					&thread_config(current)->limits, NULL);
	}
	required_out = k && !het_all && job_desc->req_nodes &&
		       filter_excludes_required(thread_table(current),
						expr ? expr : kept,
						job_desc->req_nodes);
	if (k && !het_all && (job_desc->exc_nodes || required_out)) {
		if (keep_filter(job_desc, k, expr ? expr : kept, &h) < 0)
			rc = refuse(err_msg, SLURM_ERROR,
				    "--extra: out of memory");
	}
	if (!h.exc && job_desc->exc_nodes) {
		h.exc = true; /* as the caller set it: all the user's own */
		h.exc_hash = hostlist_hash(job_desc->exc_nodes);
	}
	if (rc == SLURM_SUCCESS && k && !het_all && job_desc->admin_comment) {
		/* A super user's AdminComment (Slurm checked before us),
		 * less any state of ours it holds (copied from `scontrol show
		 * job`): one state, always the plugin's. */
		char *mark = strstr(job_desc->admin_comment, SX_STATE_MARK);
		struct sx_job_state given = { 0 };
		char *note = NULL;

		/* The requeue note of `slurm-extra prolog-slurmctld`
		 * (SlurmUser's or root's), kept in front of the status (the
		 * thread keeps it there too); the rest of a given state is
		 * ignored.  Out of memory: the status as it was. */
		if (mark &&
		    (submit_uid == 0 ||
		     submit_uid == (uint32_t)thread_slurm_user(current)) &&
		    sx_job_state_parse(mark, &given) &&
		    sx_status_note_len(given.status))
			note = sx_status_keep_note(given.status, k->st.status);
		sx_job_state_free(&given);
		if (mark) {
			while (mark > job_desc->admin_comment &&
			       mark[-1] == ' ')
				mark--;
			*mark = '\0';
		}
		if (sx_job_state_copy(&k->st, job_desc->admin_comment, &st) <
			    0 ||
		    (h.user_exc && replace_string(&st.exclude, h.user_exc) < 0))
			rc = refuse(err_msg, SLURM_ERROR,
				    "--extra: out of memory");
		if (note && rc == SLURM_SUCCESS) {
			free(st.status);
			st.status = note;
			note = NULL;
		}
		free(note);
		st.held = st.held && !h.hold;
		if (h.exc) /* what this update sets */
			st.wrote = h.exc_hash;
		if (rc == SLURM_SUCCESS &&
		    (!(comment = sx_job_state_format(&st)) ||
		     set_desc_string(&job_desc->admin_comment, comment) < 0))
			rc = refuse(err_msg, SLURM_ERROR,
				    "--extra: out of memory");
		else {
			last.admin = job_desc->admin_comment;
			last.admin_hash = text_hash(job_desc->admin_comment);
		}
	}
	/* What the update changed of the job's filter and this call did not
	 * set: the thread at its next round, not at the pace of users'
	 * asks (thread.c, JOBS_PACED_S), at most once in HINTS_URGENT_S
	 * per owner (hints_urgent).  Of a job the thread has not seen (an id
	 * above its last load's: a job below it that it does not know has no
	 * request, or is not pending), its list, required nodes or request;
	 * of a job it knows, from a caller who may update it: a whole
	 * heterogeneous job's list or required nodes, another request,
	 * required nodes the request excludes (the job then held), a
	 * release of the plugin's hold. */
	if (rc == SLURM_SUCCESS && hinted &&
	    (!k ? id > thread_max_job_id(current) &&
			     (job_desc->exc_nodes || job_desc->req_nodes ||
			      new_request)
		: h.trusted && ((het_all && (job_desc->exc_nodes ||
					     job_desc->req_nodes)) ||
				(new_request &&
				 (!expr || request_hash != k->request_hash)) ||
				(required_out && !k->st.held) ||
				(k->st.held && job_desc->priority != NO_VAL &&
				 job_desc->priority != 0))) &&
	    thread_urgent_allowed(current, h.owner))
		thread_ask_urgent(current);
	if (rc == SLURM_SUCCESS && hinted &&
	    !thread_hint(current, &h, &pending))
		slurm_verbose(
			"%s: more updates than the thread can follow (%zu pending); its next updates are planned anew",
			plugin_type, pending);
	free(h.user_exc);
	thread_unlock(current);
	free(comment);
	sx_job_state_free(&st);
	xc_expr_destroy(kept);
	xc_expr_destroy(expr);
	return rc;
}

/* An update of a job (slurmctld's job_submit_g_modify(), its locks held):
 * modify(), by the rules of doc/design.md "Updates".  Slurm 22.05 calls
 * it with three arguments (src/slurmctld/job_submit.c: no err_msg), 23.02
 * and later with four; job_ptr (slurmctld's job record) is not read. */
#if SX_MODIFY_HAS_ERR_MSG
int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid,
	       char **err_msg)
{
	(void)job_ptr;
	return modify(job_desc, submit_uid, err_msg);
}
#else
int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid)
{
	(void)job_ptr;
	return modify(job_desc, submit_uid, NULL);
}
#endif
