/*
 * job_update.c - the update of one pending job: planned, its ExcNodeList
 * built as it is sent, sent, freed (job_update.h).
 */
#define _GNU_SOURCE /* asprintf */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carrier.h"
#include "job_update.h"

/* Whether the plugin's own hold is still on the job: held=1 in its state,
 * given at the job's restart count it has now (a job requeued since ran
 * after the plugin's hold was lifted: `scontrol requeuehold` is someone
 * else's hold), and priority 0 with a hold's reason.  (Slurm 22.05 reads
 * the priority a job_submit plugin set as the user's: its hold says
 * JobHeldUser.  Anyone else's hold, applied, clears held=1 through its
 * hint, so held=1 is the plugin's.) */
static bool plugin_hold_on(const slurm_job_info_t *job,
			   const struct sx_job_state *st)
{
	return sx_job_state_held_now(st, job->restart_cnt) &&
	       job->priority == 0 &&
	       (job->state_reason == WAIT_HELD ||
		job->state_reason == WAIT_HELD_USER);
}

/* Fills u->job_id, ids and job_id_str for `job`; -1 when out of memory. */
static int name_update(const slurm_job_info_t *job, struct job_update *u)
{
	u->job_id = job->job_id;
	u->ids[0] = job->job_id;
	u->ids[1] = job->array_job_id;
	u->ids[2] = job->het_job_id;
	u->user_id = job->user_id;
	return asprintf(&u->job_id_str, "%u", job->job_id) < 0 ? -1 : 0;
}

/* Copies `r` into update `u` (lazy); -1 when out of memory. */
static int keep_recipe(const struct exc_recipe *r, struct job_update *u)
{
	u->exc_lazy = true;
	if ((r->request && !(u->exc_request = strdup(r->request))) ||
	    (r->user && !(u->exc_user = strdup(r->user))) ||
	    (r->req && !(u->exc_req = strdup(r->req))))
		return -1;
	return 0;
}

static void free_recipe(struct job_update *u)
{
	free(u->exc_request);
	free(u->exc_user);
	free(u->exc_req);
	u->exc_request = u->exc_user = u->exc_req = NULL;
}

/* Whether update `u` can only let its job use more nodes, so that it may
 * wait behind the others: it leaves the excluded nodes alone and does not
 * hold the job (a release, or a new state).  An update that changes the
 * excluded nodes may take one away (telling which would cost a reading of
 * both lists, a millisecond at 100,000 nodes), and goes first. */
static bool gains(const struct job_update *u)
{
	return !u->exc_nodes && !u->exc_lazy && u->priority != 0 &&
	       !u->features && !u->prefer;
}

int job_update_plan(const slurm_job_info_t *job, struct sx_job_state *st,
		    const struct job_filter *f, uint64_t want, uint64_t have,
		    uint64_t exc_hash, const struct exc_recipe *recipe,
		    const struct job_carrier *jc, struct job_update *u)
{
	char *comment = NULL,
	     *status = jc && jc->status ? strdup(jc->status) : filter_status(f);
	bool hold_on = plugin_hold_on(job, st), change = false;
	int rc = -1;

	memset(u, 0, sizeof(*u));
	u->priority = NO_VAL;
	if (!status)
		return -1;
	if (sx_status_note_len(st->status)) { /* why the job waits again */
		char *both = sx_status_keep_note(st->status, status);

		free(status);
		if (!(status = both))
			return -1;
	}
	/* The hold: the plugin releases only its own. */
	if (hold_on && !filter_must_hold(f)) {
		u->priority = INFINITE;
		st->held = false;
	} else if (!hold_on && filter_must_hold(f) && job->priority != 0) {
		u->priority = 0;
		st->held = true;
		st->held_at = (unsigned)job->restart_cnt + 1;
	} else if (st->held && !hold_on) {
		st->held = false; /* someone else released or re-held it */
	}
	/* The exclusions, compared as text (by hash: the lists are not
	 * kept): slurmctld keeps the text an update gives, so after one
	 * update they compare equal; a list written another way at
	 * submission costs one extra update. */
	if (have != want) {
		u->exc_text = want;
		if (keep_recipe(recipe, u) < 0)
			goto out;
	}
	st->wrote = exc_hash; /* the job has the list, or gets it */
	free(st->status);
	st->status = status;
	status = NULL;
	if (!(comment = sx_job_state_format(st)))
		goto out;
	if (jc && ((jc->features && !(u->features = strdup(jc->features))) ||
		   (jc->prefer && !(u->prefer = strdup(jc->prefer)))))
		goto out;
	change = u->exc_lazy || u->priority != NO_VAL || u->features ||
		 u->prefer || (jc && jc->touch) || !job->admin_comment ||
		 strcmp(job->admin_comment, comment) != 0;
	if (change) {
		if (name_update(job, u) < 0)
			goto out;
		u->admin_comment = comment;
		comment = NULL;
	}
	rc = change;
out:
	if (rc < 1) {
		free_recipe(u);
		u->exc_lazy = false;
		free(u->features);
		free(u->prefer);
		u->features = u->prefer = NULL;
	} else {
		u->gains = gains(u);
	}
	free(status);
	free(comment);
	return rc;
}

/* The constraint `have` (NULL: none) less feature `name` into *out
 * (malloc'd), or NULL when it does not end with it.  -1 when out of
 * memory. */
static int drop_feature(const char *have, const char *name, char **out)
{
	*out = NULL;
	if (!name || !have)
		return 0;
	if (!(*out = sx_constraint_own(have, name)))
		return -1;
	if (!strcmp(*out, have)) {
		free(*out);
		*out = NULL;
	}
	return 0;
}

int job_update_drop(const slurm_job_info_t *job, const struct sx_job_state *st,
		    const char *name, struct job_update *u)
{
	memset(u, 0, sizeof(*u));
	u->priority = plugin_hold_on(job, st) ? INFINITE : NO_VAL;
	if (!(u->exc_nodes = strdup(st->exclude ? st->exclude : "")) ||
	    !(u->admin_comment = strdup(st->admin ? st->admin : "")) ||
	    drop_feature(job->features, name, &u->features) < 0 ||
	    drop_feature(job->prefer, name, &u->prefer) < 0 ||
	    name_update(job, u) < 0) {
		free(u->exc_nodes);
		free(u->admin_comment);
		free(u->features);
		free(u->prefer);
		memset(u, 0, sizeof(*u));
		return -1;
	}
	u->gains = gains(u); /* the user's own back */
	return 1;
}

void job_update_free(struct job_update *u)
{
	free(u->job_id_str);
	free(u->exc_nodes);
	free(u->features);
	free(u->prefer);
	free_recipe(u);
	free(u->admin_comment);
	memset(u, 0, sizeof(*u));
}

void job_updates_free(struct job_update *updates, size_t n)
{
	for (size_t i = 0; updates && i < n; i++)
		job_update_free(&updates[i]);
	free(updates);
}

int job_update_build(const xc_nodes_t *table, const xc_limits_t *limits,
		     struct job_update *u)
{
	struct job_filter f = { 0 };
	xc_expr_t *expr = NULL;
	bool *matched = NULL;
	int rc = -1;

	if (!u->exc_lazy)
		return 0;
	if (u->exc_request) {
		if (!(expr = xc_parse(u->exc_request, limits, NULL)) ||
		    !(matched = filter_match(table, expr)))
			goto out;
	} else {
		size_t count = xc_nodes_count(table);

		if (!(matched = malloc((count ? count : 1) * sizeof(*matched))))
			goto out;
		for (size_t k = 0; k < count; k++)
			matched[k] = true;
	}
	if (filter_compute(table, matched, u->exc_user, u->exc_req, &f) < 0)
		goto out;
	if (!f.exc && !(f.exc = strdup("")))
		goto out;
	if (xc_text_hash(f.exc) != u->exc_text)
		goto out; /* not what was planned: plan again */
	u->exc_nodes = f.exc;
	f.exc = NULL;
	u->exc_lazy = false;
	free_recipe(u);
	rc = 0;
out:
	filter_free(&f);
	free(matched);
	xc_expr_destroy(expr);
	return rc;
}

bool job_update_send(const struct job_update *u)
{
	job_desc_msg_t desc;

	/* By its job id alone: update_job() (src/slurmctld/job_mgr.c,
	 * 22.05-26.05) updates exactly that record, a pending array record
	 * with all its tasks, a het job's leader alone; a job_id_str would
	 * take update_job_str()'s path, where an array id also updates its
	 * split tasks and a leader every component. */
	slurm_init_job_desc_msg(&desc);
	SX_DESC_JOB_ID(&desc) = u->job_id;
	desc.exc_nodes = u->exc_nodes;
	desc.features = u->features;
	desc.prefer = u->prefer;
	desc.priority = u->priority;
	desc.admin_comment = u->admin_comment;
	if (slurm_update_job(&desc) != SLURM_SUCCESS) {
		slurm_verbose("job_submit/extra: update of job %u refused: %s",
			      u->job_id, slurm_strerror(sx_slurm_errno()));
		return false;
	}
	return true;
}
