/*
 * refilter.c - the filter of one job, and re-filtering every pending job
 * (refilter.h).  Hostlists are read with Slurm's own functions
 * (slurm_hostlist_*); a job's excluded nodes are written in one pass over
 * the node table (xc_nodes_hostlist), which Slurm's push-sort-rank takes
 * 10x longer to do at 10,000 nodes (2.1 ms) and under slurmctld's locks.
 */
#define _GNU_SOURCE /* asprintf */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "refilter.h"

char *xc_hostlist_normal(const char *hostlist)
{
	xc_hostlist_t hl;
	char *s;

	if (!hostlist || !*hostlist)
		return strdup("");
	if (!(hl = slurm_hostlist_create(hostlist)))
		return NULL;
	slurm_hostlist_uniq(hl);
	s = xc_hostlist_string(hl);
	slurm_hostlist_destroy(hl);
	return s;
}

int xc_filter_compute_slurm(const xc_nodes_t *table, const bool *matched,
			    const char *user_exc, const char *req,
			    struct xc_filter *f)
{
	xc_hostlist_t exc = NULL, user = NULL, required = NULL;
	size_t count = xc_nodes_count(table);
	int rc = -1;

	memset(f, 0, sizeof(*f));
	f->total = count;
	if (!(exc = slurm_hostlist_create(user_exc ? user_exc : "")) ||
	    (user_exc && *user_exc &&
	     !(user = slurm_hostlist_create(user_exc))) ||
	    (req && *req && !(required = slurm_hostlist_create(req))))
		goto out;
	for (size_t i = 0; i < count; i++) {
		const char *name = xc_nodes_name(table, i);

		if (matched[i]) {
			if (!user || slurm_hostlist_find(user, name) < 0)
				f->allowed++;
		} else if (required &&
			   slurm_hostlist_find(required, name) >= 0) {
			f->req_unmatched = true;
		} else if (!slurm_hostlist_push_host(exc, name)) {
			goto out;
		}
	}
	slurm_hostlist_uniq(exc);
	if (slurm_hostlist_count(exc) > 0 &&
	    !(f->exc = xc_hostlist_string(exc)))
		goto out;
	rc = 0;
out:
	if (exc)
		slurm_hostlist_destroy(exc);
	if (user)
		slurm_hostlist_destroy(user);
	if (required)
		slurm_hostlist_destroy(required);
	return rc;
}

/* Marks in `set` the table's nodes named by `hostlist`; -1 when it is not
 * a hostlist or out of memory, 1 when it names a node not in the table. */
static int mark_hosts(const xc_nodes_t *table, const char *hostlist, bool *set)
{
	xc_hostlist_t hl = slurm_hostlist_create(hostlist);
	char *host;
	int rc = 0;

	if (!hl)
		return -1;
	while ((host = slurm_hostlist_shift(hl))) {
		long i = xc_nodes_find(table, host);

		if (i < 0)
			rc = 1;
		else
			set[i] = true;
		free(host);
	}
	slurm_hostlist_destroy(hl);
	return rc;
}

int xc_filter_compute(const xc_nodes_t *table, const bool *matched,
		      const char *user_exc, const char *req,
		      struct xc_filter *f)
{
	size_t count = xc_nodes_count(table);
	bool *exc = NULL, *user = NULL, *required = NULL;
	bool has_user = user_exc && *user_exc, has_req = req && *req;
	int rc = -1, m;

	/* Without the name index, or with a user's exclusion the table does
	 * not know (kept as it is), Slurm's hostlist functions do it all. */
	if (!xc_nodes_compiled(table))
		return xc_filter_compute_slurm(table, matched, user_exc, req,
					       f);
	memset(f, 0, sizeof(*f));
	f->total = count;
	/* three arrays of one allocation: excluded, user's, required */
	if (!(exc = calloc(count ? 3 * count : 1, sizeof(*exc))))
		return -1;
	user = exc + count;
	required = user + count;
	if (has_user && (m = mark_hosts(table, user_exc, user)) != 0) {
		if (m > 0) {
			free(exc);
			return xc_filter_compute_slurm(table, matched, user_exc,
						       req, f);
		}
		goto out;
	}
	if (has_req && mark_hosts(table, req, required) < 0)
		goto out;
	for (size_t i = 0; i < count; i++) {
		if (matched[i]) {
			f->allowed += !user[i];
			exc[i] = user[i];
		} else if (required[i]) {
			f->req_unmatched = true;
			exc[i] = user[i];
		} else {
			exc[i] = true;
		}
	}
	if (!(f->exc = xc_nodes_hostlist(table, exc)))
		goto out;
	if (!*f->exc) {
		free(f->exc);
		f->exc = NULL;
	}
	rc = 0;
out:
	free(exc);
	return rc;
}

char *xc_filter_status(const struct xc_filter *f)
{
	char *s = NULL;
	int rc;

	if (f->req_unmatched)
		rc = asprintf(
			&s,
			"held: a required node does not satisfy the request (%zu of %zu nodes do; slurm-extra why --job ID tells why)",
			f->allowed, f->total);
	else if (f->allowed == 0)
		rc = asprintf(
			&s,
			"waiting for a node whose Extra satisfies the request (none of %zu does; slurm-extra why --job ID tells why)",
			f->total);
	else
		rc = asprintf(&s, "%zu of %zu nodes satisfy the request",
			      f->allowed, f->total);
	return rc < 0 ? NULL : s;
}

void xc_filter_free(struct xc_filter *f)
{
	free(f->exc);
	f->exc = NULL;
}

/* ------------------------------------------------------ the whole queue */

/* One pending job with a request, while planning. */
struct item {
	const slurm_job_info_t *job;
	struct xc_job_state st;
	char *canonical; /* the request's canonical text; NULL if invalid */
};

static int by_canonical(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (!x->canonical || !y->canonical)
		return !x->canonical - !y->canonical;
	return strcmp(x->canonical, y->canonical);
}

static int by_job_id(const void *a, const void *b)
{
	uint32_t x = ((const struct xc_known_job *)a)->job_id,
		 y = ((const struct xc_known_job *)b)->job_id;

	return (x > y) - (x < y);
}

/* The job id string an update names `job` by: a pending array record
 * stands for several tasks, a het job component for itself. */
static void job_id_str(const slurm_job_info_t *job, char *buf, size_t size)
{
	if (job->array_task_str && job->array_task_id == NO_VAL) {
		size_t n = strcspn(job->array_task_str, "%");

		snprintf(buf, size, "%u_[%.*s]", job->array_job_id, (int)n,
			 job->array_task_str);
	} else if (job->array_job_id && job->array_task_id != NO_VAL) {
		snprintf(buf, size, "%u_%u", job->array_job_id,
			 job->array_task_id);
	} else if (job->het_job_id) {
		snprintf(buf, size, "%u+%u", job->het_job_id,
			 job->het_job_offset);
	} else {
		snprintf(buf, size, "%u", job->job_id);
	}
}

/* Whether the plugin's own hold is still on the job: held=1 in its state
 * and priority 0 with a hold's reason.  (Slurm 22.05 reads the priority a
 * job_submit plugin set as the user's: its hold says JobHeldUser.  Anyone
 * else's hold clears held=1 in job_modify(), so held=1 is the plugin's.) */
static bool plugin_hold_on(const slurm_job_info_t *job,
			   const struct xc_job_state *st)
{
	return st->held && job->priority == 0 &&
	       (job->state_reason == WAIT_HELD ||
		job->state_reason == WAIT_HELD_USER);
}

/* Plans the update of one job from its filter; *u unchanged (and 0
 * returned) when nothing changes, 1 when an update is planned, -1 when
 * out of memory. */
static int plan_one(const slurm_job_info_t *job, struct xc_job_state *st,
		    const struct xc_filter *f, struct xc_job_update *u)
{
	char *comment = NULL, *status = xc_filter_status(f);
	bool hold_on = plugin_hold_on(job, st), change = false;
	int rc = -1;

	memset(u, 0, sizeof(*u));
	u->priority = NO_VAL;
	if (!status)
		return -1;
	/* The hold: the plugin releases only its own. */
	if (hold_on && !xc_filter_must_hold(f)) {
		u->priority = INFINITE;
		st->held = false;
	} else if (!hold_on && xc_filter_must_hold(f) && job->priority != 0) {
		u->priority = 0;
		st->held = true;
	} else if (st->held && !hold_on) {
		st->held = false; /* someone else released or re-held it */
	}
	/* The exclusions, compared as text: slurmctld keeps the text an
	 * update gives, so after one update they compare equal; a list
	 * written another way at submission costs one extra update. */
	if (strcmp(job->exc_nodes ? job->exc_nodes : "",
		   f->exc ? f->exc : "") != 0 &&
	    !(u->exc_nodes = strdup(f->exc ? f->exc : "")))
		goto out;
	free(st->status);
	st->status = status;
	status = NULL;
	if (!(comment = xc_job_state_format(st)))
		goto out;
	change = u->exc_nodes || u->priority != NO_VAL || !job->admin_comment ||
		 strcmp(job->admin_comment, comment) != 0;
	if (change) {
		u->job_id = job->job_id;
		job_id_str(job, u->job_id_str, sizeof(u->job_id_str));
		u->admin_comment = comment;
		comment = NULL;
	}
	rc = change;
out:
	if (rc < 0) {
		free(u->exc_nodes);
		u->exc_nodes = NULL;
	}
	free(status);
	free(comment);
	return rc;
}

void xc_job_updates_free(struct xc_job_update *updates, size_t n)
{
	for (size_t i = 0; updates && i < n; i++) {
		free(updates[i].exc_nodes);
		free(updates[i].admin_comment);
	}
	free(updates);
}

void xc_known_jobs_free(struct xc_known_jobs *known)
{
	for (size_t i = 0; known && i < known->count; i++) {
		xc_job_state_free(&known->jobs[i].st);
		free(known->jobs[i].req_nodes);
	}
	if (known) {
		free(known->jobs);
		known->jobs = NULL;
		known->count = 0;
	}
}

const struct xc_known_job *xc_known_job_find(const struct xc_known_jobs *known,
					     uint32_t job_id)
{
	struct xc_known_job probe = { .job_id = job_id };
	const struct xc_known_job *k;

	if (!known || !known->count || !job_id)
		return NULL;
	k = bsearch(&probe, known->jobs, known->count, sizeof(probe),
		    by_job_id);
	for (size_t i = 0; !k && i < known->count; i++)
		if (known->jobs[i].array_job_id == job_id)
			k = &known->jobs[i];
	return k;
}

uint32_t xc_update_job_id(const job_desc_msg_t *job_desc)
{
	unsigned long id;
	char *end;

	if (XC_DESC_JOB_ID(job_desc) && XC_DESC_JOB_ID(job_desc) != NO_VAL)
		return XC_DESC_JOB_ID(job_desc);
	if (!job_desc->job_id_str)
		return 0;
	id = strtoul(job_desc->job_id_str, &end, 10);
	return end == job_desc->job_id_str || id > UINT32_MAX ? 0
							      : (uint32_t)id;
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 +
	       (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* Applies the mods of `job` (by its id, or its array's) to `st`; -1 when
 * out of memory. */
static int apply_mods(const slurm_job_info_t *job, struct xc_job_state *st,
		      struct xc_job_mod *mods, size_t nmods)
{
	for (size_t m = 0; m < nmods; m++) {
		if (mods[m].job_id != job->job_id &&
		    (!job->array_job_id || mods[m].job_id != job->array_job_id))
			continue;
		if (mods[m].exclude) {
			char *x = strdup(mods[m].exclude);

			if (!x)
				return -1;
			free(st->exclude);
			st->exclude = x;
		}
		if (mods[m].hold_taken)
			st->held = false;
		mods[m].applied = true;
	}
	return 0;
}

int xc_refilter_plan(const xc_nodes_t *table, const job_info_msg_t *jobs,
		     const xc_limits_t *limits, struct xc_job_mod *mods,
		     size_t nmods, struct xc_job_update **updates, size_t *n,
		     struct xc_known_jobs *known,
		     struct xc_refilter_stats *stats)
{
	size_t count = xc_nodes_count(table), nitems = 0, nup = 0;
	struct item *items = NULL;
	struct xc_job_update *ups = NULL;
	struct xc_filter base = { 0 };
	bool *matched = NULL, have_base = false;
	struct timespec t0;
	int rc = -1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	*updates = NULL;
	*n = 0;
	if (known)
		memset(known, 0, sizeof(*known));
	if (!jobs || !jobs->record_count)
		return 0;
	if (!(items = calloc(jobs->record_count, sizeof(*items))) ||
	    !(matched = calloc(count ? count : 1, sizeof(*matched))))
		goto out;
	for (uint32_t i = 0; i < jobs->record_count; i++) {
		const slurm_job_info_t *job = &jobs->job_array[i];
		struct item *it = &items[nitems];
		xc_expr_t *e;

		if ((job->job_state & JOB_STATE_BASE) != JOB_PENDING ||
		    !xc_job_state_parse(job->admin_comment, &it->st))
			continue;
		it->job = job;
		nitems++;
		if (apply_mods(job, &it->st, mods, nmods) < 0)
			goto out;
		/* An invalid stored request (an admin edited it) excludes
		 * nothing more: canonical stays NULL. */
		if ((e = xc_parse(it->st.request, limits, NULL))) {
			it->canonical = xc_format(e);
			xc_expr_destroy(e);
		}
	}
	/* Each distinct request once: sorted, then one evaluation a run. */
	qsort(items, nitems, sizeof(*items), by_canonical);
	if (nitems && !(ups = calloc(nitems, sizeof(*ups))))
		goto out;
	for (size_t i = 0; i < nitems; i++) {
		struct item *it = &items[i];
		bool own = *it->st.exclude ||
			   (it->job->req_nodes && *it->job->req_nodes);
		struct xc_filter f, *use = &f;
		int r;

		if (i == 0 || by_canonical(it, &items[i - 1]) != 0) {
			xc_expr_t *e = it->canonical ? xc_parse(it->canonical,
								limits, NULL)
						     : NULL;

			if (e) {
				xc_nodes_match(table, e, matched);
				stats->requests++;
			} else {
				for (size_t k = 0; k < count; k++)
					matched[k] = true;
			}
			xc_expr_destroy(e);
			xc_filter_free(&base);
			have_base = false;
		}
		/* Jobs with no exclusions or required nodes of their own share
		 * their request's filter, computed once. */
		if (!own && !have_base) {
			if (xc_filter_compute(table, matched, NULL, NULL,
					      &base) < 0)
				goto out;
			have_base = true;
		}
		if (!own)
			use = &base;
		else if (xc_filter_compute(table, matched, it->st.exclude,
					   it->job->req_nodes, &f) < 0)
			continue; /* an unreadable hostlist: leave the job */
		r = plan_one(it->job, &it->st, use, &ups[nup]);
		if (own)
			xc_filter_free(&f);
		if (r < 0)
			goto out;
		nup += r;
	}
	if (known) {
		if (nitems &&
		    !(known->jobs = calloc(nitems, sizeof(*known->jobs))))
			goto out;
		for (size_t i = 0; i < nitems; i++) {
			struct xc_known_job *k = &known->jobs[known->count++];

			k->job_id = items[i].job->job_id;
			k->array_job_id = items[i].job->array_job_id;
			k->st = items[i].st;
			memset(&items[i].st, 0, sizeof(items[i].st));
			if (items[i].job->req_nodes &&
			    !(k->req_nodes = strdup(items[i].job->req_nodes)))
				goto out;
		}
		qsort(known->jobs, known->count, sizeof(*known->jobs),
		      by_job_id);
	}
	*updates = ups;
	*n = nup;
	ups = NULL;
	rc = 0;
	stats->pending += nitems;
	stats->updates += nup;
out:
	if (rc < 0 && known)
		xc_known_jobs_free(known);
	xc_job_updates_free(ups, nup);
	for (size_t i = 0; items && i < nitems; i++) {
		xc_job_state_free(&items[i].st);
		free(items[i].canonical);
	}
	free(items);
	free(matched);
	xc_filter_free(&base);
	stats->plan_ms += ms_since(&t0);
	return rc;
}

void xc_refilter_send(const struct xc_job_update *updates, size_t n,
		      struct xc_refilter_stats *stats, const bool *stop)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 0; i < n; i++) {
		if (stop && __atomic_load_n(stop, __ATOMIC_RELAXED))
			break;
		const struct xc_job_update *u = &updates[i];
		job_desc_msg_t desc;
		job_array_resp_msg_t *resp = NULL;

		slurm_init_job_desc_msg(&desc);
		desc.job_id_str = (char *)u->job_id_str;
		desc.exc_nodes = u->exc_nodes;
		desc.priority = u->priority;
		desc.admin_comment = u->admin_comment;
		if (slurm_update_job2(&desc, &resp) != SLURM_SUCCESS) {
			stats->failed++;
			slurm_verbose(
				"job_submit/extra: update of job %s refused: %s",
				u->job_id_str,
				slurm_strerror(xc_slurm_errno()));
		}
		if (resp)
			slurm_free_job_array_resp(resp);
	}
	stats->send_ms += ms_since(&t0);
}
