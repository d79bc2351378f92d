/*
 * plan_carrier.c - what a round's plan makes of the feature carrier
 * (plan_carrier.h): how each job goes (its request's feature, or its
 * ExcNodeList), which job Slurm set aside is touched, what the plan
 * leaves each request for carry_covers().
 */
#include <json-c/linkhash.h>
#include <stdlib.h>
#include <string.h>

#include "carrier.h"
#include "plan_carrier.h"

/* Frees what *cd holds and zeroes it. */
void plan_carrier_free(struct plan_carried *cd)
{
	free(cd->features);
	free(cd->prefer);
	memset(cd, 0, sizeof(*cd));
}

/* `*want` (malloc'd) as the job's field, unless the job has it already
 * (then freed, NULL). */
static void unless_same(char **want, const char *have)
{
	if (*want && !strcmp(*want, have ? have : "")) {
		free(*want);
		*want = NULL;
	}
}

/* *own (malloc'd) less feature `name` at its end, if there.  -1 when out
 * of memory. */
static int strip_also(char **own, const char *name)
{
	char *less = sx_constraint_own(*own, name);

	if (!less)
		return -1;
	free(*own);
	*own = less;
	return 0;
}

int plan_carrier(const struct carry *c, const struct known_jobs *prev,
		 uint64_t round, const slurm_job_info_t *job,
		 struct memo_request *req, const char *stale,
		 struct plan_carried *cd)
{
	const struct known_job *k = known_job_find(prev, job->job_id);
	const char *name;
	char *own_f = NULL, *own_p = NULL;
	enum sx_constraint_why wf = SX_CONSTRAINT_OK, wp = SX_CONSTRAINT_OK;
	bool known, carries, may;
	int rc = -1;

	memset(cd, 0, sizeof(*cd));
	if (!c || !req)
		return 0;
	name = req->feature;
	if (!(own_f = sx_constraint_own(job->features, name)) ||
	    !(own_p = sx_constraint_own(job->prefer, name)))
		goto out;
	carries = job->features && strcmp(own_f, job->features) != 0;
	/* the feature of the request it had when the thread last planned it
	 * (an update changed the request since): not its user's either */
	if (!carries && k && *k->feature && strcmp(k->feature, name) != 0 &&
	    (strip_also(&own_f, k->feature) < 0 ||
	     strip_also(&own_p, k->feature) < 0))
		goto out;
	/* the feature job_submit() gave it for another of its tiers */
	if (!carries && stale && *stale && strcmp(stale, name) != 0 &&
	    (strip_also(&own_f, stale) < 0 || strip_also(&own_p, stale) < 0))
		goto out;
	may = carry_may(c, req, &known, &cd->count) &&
	      !(job->req_nodes && *job->req_nodes);
	if (may) {
		wf = sx_constraint_with(own_f, name, &cd->features);
		if (wf == SX_CONSTRAINT_OK && *own_p)
			wp = sx_constraint_with(own_p, name, &cd->prefer);
		if (wf == SX_CONSTRAINT_NOMEM || wp == SX_CONSTRAINT_NOMEM)
			goto out;
		may = wf == SX_CONSTRAINT_OK && wp == SX_CONSTRAINT_OK;
	}
	if (may) {
		if (req->carry_round != round ||
		    job->user_id < req->carry_owner)
			req->carry_owner = job->user_id;
		req->carry_round = round;
		cd->wants = true;
		cd->by_feature = known || carries;
	}
	if (!cd->by_feature) {
		free(cd->features);
		free(cd->prefer);
		cd->features = own_f;
		cd->prefer = own_p;
		own_f = own_p = NULL;
	}
	unless_same(&cd->features, job->features);
	unless_same(&cd->prefer, job->prefer);
	rc = 0;
out:
	if (rc < 0)
		plan_carrier_free(cd);
	free(own_f);
	free(own_p);
	return rc;
}

bool plan_needs_touch(const struct known_jobs *prev, bool all,
		      const slurm_job_info_t *job,
		      const struct memo_request *req,
		      const struct plan_carried *cd)
{
	const struct known_job *k = known_job_find(prev, job->job_id);
	uint32_t min = job->num_nodes ? job->num_nodes : 1;

	return cd->by_feature && job->priority == 0 &&
	       job->state_reason == FAIL_BAD_CONSTRAINTS && cd->count >= min &&
	       (req->rose > (k ? k->planned : 0) || all);
}

void plan_summarize(struct refilter_memo *memo, const struct known_jobs *known)
{
	struct lh_entry *e;

	lh_foreach(memo->requests, e)
	{
		struct memo_request *r = (struct memo_request *)lh_entry_v(e);

		r->carried_only = true;
		r->max_nodes = 0;
		r->count_at_plan = memo_request_count(r);
	}
	for (size_t i = 0; i < known->count; i++) {
		const struct known_job *k = &known->jobs[i];

		if (!k->req)
			continue;
		if (!k->carried || k->own_exc)
			k->req->carried_only = false;
		if (k->num_nodes > k->req->max_nodes)
			k->req->max_nodes = k->num_nodes;
	}
}
