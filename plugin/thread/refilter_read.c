/*
 * refilter_read.c - the reading of each pending job in a round's plan
 * (refilter_private.h): a job unchanged since its plan kept as it is
 * (doc/thread.md "Work follows change"), any other read into an item,
 * with what others changed in it taken (job_changes.h) and the request
 * it goes by this round parsed.
 */
#include <stdlib.h>
#include <string.h>

#include "job_changes.h"
#include "refilter_private.h"
#include "xc_util.h"

/* Whether pending `job`, known from the round before as `k`, needs no plan
 * this round: nothing the plan reads of it changed (its print, with what
 * its preferences' pick reads: plan_prefer_print), no hint names it, and
 * its request's nodes did not change since its plan (nor, for a job with
 * preferences, its tiers': keep_prefer()). */
static bool unchanged(const struct known_job *k, const slurm_job_info_t *job,
		      uint64_t print, const uint32_t *ids, size_t nids)
{
	return k && k->req && !k->prefer_pending && k->print == print &&
	       k->req->changed <= k->planned && !hints_may_name(ids, nids, job);
}

/* Keeps known job `k`, unchanged since its plan, as it is, its request
 * marked as had this round.  -1 when out of memory. */
static int keep_unchanged(struct planning *p, const struct known_job *k)
{
	struct known_jobs *kept = &p->kept;

	if (xc_grow((void **)&kept->jobs, &p->kcap, kept->count + 1,
		    sizeof(*kept->jobs)) < 0 ||
	    known_job_copy(k, &kept->jobs[kept->count]) < 0)
		return -1;
	kept->count++;
	p->nkept++;
	k->req->used = p->round;
	/* unchanged, it still wants its feature on its request's nodes */
	if (k->wants_feature)
		k->req->carry_round = p->round;
	return 0;
}

/* Keeps known job `k` (pending `job`, whose memo_job_print() is `print`)
 * as it is when unchanged since its plan: for one with preferences, its
 * pick's print too, and while its wait lasts its tiers' nodes (the
 * round's tier set: plan_prefer.h), its preferences counted in `stats`.
 * 1 when kept, 0 when it is to be planned, -1 when out of memory. */
static int keep_prefer(struct planning *p, const struct known_job *k,
		       const slurm_job_info_t *job, uint64_t print,
		       struct refilter_stats *stats)
{
	bool prefers = k->st.n_prefer && k->st.request, live = false;
	bool moved = false;

	if (prefers)
		print = plan_prefer_print(&p->pin, job, &k->st, print, &live);
	if (!unchanged(k, job, print, p->ids, p->nids))
		return 0;
	if (live &&
	    plan_prefer_tiers_changed(&p->pin, &k->st, k->planned, &moved) < 0)
		return -1;
	if (moved)
		return 0;
	if (prefers)
		plan_prefer_count(&p->pin, job, &k->st, NULL, stats);
	return keep_unchanged(p, k) < 0 ? -1 : 1;
}

/* Parses the request item `it` goes by this round into it->req: its
 * request, or its effective request when it has preferences (counted in
 * out->stats, the earliest end of a narrowing kept).  -1 when out of
 * memory. */
static int read_request(struct planning *p, struct item *it,
			const struct refilter_out *out)
{
	const char *text = it->st.request ? it->st.request : "";
	char *effective = NULL;
	int rc;

	if (it->st.n_prefer) {
		if (plan_prefer_counted(&p->pin, it->job, &it->st, &effective,
					&it->note, &it->prefer_live,
					out->stats) < 0)
			return -1;
		if (memo_request_of(p->m, text, p->in->limits, &it->base) < 0) {
			free(effective);
			return -1;
		}
		if (effective)
			text = effective;
	}
	rc = memo_request_of(p->m, text, p->in->limits, &it->req);
	free(effective);
	return rc;
}

int refilter_read_job(struct planning *p, const slurm_job_info_t *job,
		      const struct refilter_out *out)
{
	const struct refilter_in *in = p->in;
	struct item *it = &p->items[p->nitems];
	const struct known_job *k;
	uint64_t print;

	if ((job->job_state & JOB_STATE_BASE) != JOB_PENDING)
		return 0;
	print = memo_job_print(job);
	if (in->memo && !p->all &&
	    (k = known_job_find(in->prev, job->job_id))) {
		int kept = keep_prefer(p, k, job, print, out->stats);

		if (kept)
			return kept < 0 ? -1 : 0;
	}
	if (!job_changes_read(job, in->prev, &it->st, &it->adopted))
		return 0;
	it->job = job;
	p->nitems++;
	it->print = print;
	it->exc_text = xc_text_hash(job->exc_nodes ? job->exc_nodes : "");
	if (job_changes_take(job, known_job_find(in->prev, job->job_id),
			     &it->st, it->exc_text, in->hints, in->upto,
			     &it->prefer_pending) < 0)
		return -1;
	if (it->st.n_prefer && it->st.request)
		it->print = plan_prefer_print(&p->pin, job, &it->st, print,
					      &it->prefer_live);
	/* From 23.02 a job with a request has it in its own `extra`
	 * (job_submit() copies a SPANK one there): emptied by an update, the
	 * job is no longer filtered. */
	it->dropped = SX_SLURM_HAS_EXTRA_OPTION &&
		      (!SX_JOB_EXTRA(job) || !*SX_JOB_EXTRA(job));
	/* Each distinct text parsed once while a job has it: an invalid
	 * stored request (an admin edited it, or the limits shrank since) has
	 * none, and excludes nothing more.  A job with preferences goes by
	 * its effective request (plan_prefer.h). */
	return it->dropped ? 0 : read_request(p, it, out);
}
