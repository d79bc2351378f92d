/*
 * refilter.c - the plan of a round of the re-filtering thread: every
 * pending job with a request read (refilter_read.c), its filter computed
 * and compared with what it has (refilter.h), each job's update planned
 * (job_update.h).
 */
#include <json-c/linkhash.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "elapsed.h"
#include "job_changes.h"
#include "job_update.h"
#include "memo.h"
#include "plan_carrier.h"
#include "plan_prefer.h"
#include "prefer.h"
#include "refilter.h"
#include "refilter_private.h"
#include "thread.h"
#include "xc_util.h"

/* hostlist_hash() of `exc`, a job's filter from `table` (written by
 * xc_nodes_hostlist(), or by Slurm when it holds names the table does
 * not know), whose text hashes to `text`: the text hash itself when the
 * table is in Slurm's order (sx_nodes_in_slurm_order, asked once a
 * table), where Slurm's reading gives back the same text (Slurm's own
 * text reads back unchanged too). */
static uint64_t hosts_hash(struct refilter_memo *memo, const xc_nodes_t *table,
			   const char *exc, uint64_t text)
{
	if (memo->normal < 0) /* not asked yet (out of memory: as 0) */
		memo->normal = sx_nodes_in_slurm_order(table) == 1;
	return memo->normal == 1 ? text : hostlist_hash(exc);
}

/* The filter shared by the jobs of request `req` (NULL: an invalid one,
 * all nodes matched) with no exclusions or required nodes of their own,
 * from `matched`: its counts in *f (f->exc NULL), the hashes of its list
 * in *text and *hosts; computed once while the request's nodes do not
 * change (kept in `req`).  -1 when out of memory. */
static int shared_filter(struct refilter_memo *memo, const xc_nodes_t *table,
			 const bool *matched, struct memo_request *req,
			 struct job_filter *f, uint64_t *text, uint64_t *hosts)
{
	if (!req || !req->base_ok) {
		struct job_filter b;

		/* Slurm's reading of a list of thousands of nodes costs
		 * about 1 ms (hostlist_hash): once a request. */
		if (filter_compute(table, matched, NULL, NULL, &b) < 0)
			return -1;
		*text = xc_text_hash(b.exc ? b.exc : "");
		*hosts = hosts_hash(memo, table, b.exc, *text);
		filter_free(&b);
		*f = b;
		if (req) {
			req->base = b;
			req->base_text = *text;
			req->base_hosts = *hosts;
			req->base_ok = true;
		}
		return 0;
	}
	*f = req->base;
	*text = req->base_text;
	*hosts = req->base_hosts;
	return 0;
}

/* Items by their request (its canonical text; the invalid ones first). */
static int by_request(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (!x->req || !y->req)
		return !x->req - !y->req;
	return x->req == y->req ? 0
				: strcmp(x->req->canonical, y->req->canonical);
}

/* The known job of planned item `it` (k zeroed), its state moved there. */
static int know(const struct item *it, uint64_t round, struct known_job *k)
{
	const slurm_job_info_t *job = it->job;

	k->job_id = job->job_id;
	k->array_job_id = job->array_job_id;
	k->array_task_id = job->array_task_id;
	k->het_job_id = job->het_job_id;
	k->het_job_offset = job->het_job_offset;
	k->user_id = job->user_id;
	k->request_hash = prefer_census_hash(
		it->st.n_prefer
			? (it->base ? it->base->canonical : it->st.request)
		: it->req ? it->req->canonical
			  : it->st.request,
		&it->st);
	k->prefer_live = it->prefer_live;
	k->prefer_pending = it->prefer_pending;
	k->print = it->print;
	k->planned = round;
	k->wants_feature = it->wants;
	k->carried = it->carried;
	k->own_exc = (it->st.exclude && *it->st.exclude) ||
		     (job->req_nodes && *job->req_nodes);
	k->num_nodes = job->num_nodes;
	k->req = it->planned ? it->req : NULL;
	if (it->req)
		memcpy(k->feature, it->req->feature, sizeof(k->feature));
	/* as the round's update leaves them: job_modify() reads them */
	const char *features = it->features ? it->features : job->features;
	const char *prefer = it->prefer ? it->prefer : job->prefer;

	if ((job->req_nodes && !(k->req_nodes = strdup(job->req_nodes))) ||
	    (features && !(k->features = strdup(features))) ||
	    (prefer && !(k->prefer = strdup(prefer))))
		return -1;
	k->st = it->st;
	return 0;
}

/* The round's memo, its number, and (for jobs to plan) its arrays.  -1
 * when out of memory. */
static int planning_start(struct planning *p)
{
	const struct refilter_in *in = p->in;

	p->count = xc_nodes_count(in->table);
	if (!in->memo) { /* every job planned, nothing kept */
		if (memo_init(&p->own, 0) < 0)
			return -1;
	}
	p->m = in->memo ? in->memo : &p->own;
	p->round = memo_round(p->m, &p->all);
	return 0;
}

/* The arrays of a round with jobs: its items, the nodes a request
 * matches, the ids the hints name.  -1 when out of memory. */
static int planning_alloc(struct planning *p)
{
	const struct refilter_in *in = p->in;

	if (!(p->items = calloc(in->jobs->record_count, sizeof(*p->items))) ||
	    !(p->matched =
		      calloc(p->count ? p->count : 1, sizeof(*p->matched))) ||
	    !(p->every =
		      malloc((p->count ? p->count : 1) * sizeof(*p->every))) ||
	    !(p->usable =
		      malloc((p->count ? p->count : 1) * sizeof(*p->usable))) ||
	    hints_ids(in->hints, in->upto, &p->ids, &p->nids) < 0)
		return -1;
	for (size_t k = 0; k < p->count; k++)
		p->every[k] = true;
	p->open_text = xc_text_hash("");
	p->open_hosts = hostlist_hash("");
	p->pin = (struct plan_prefer_in){ .memo = p->m,
					  .table = in->table,
					  .limits = in->limits,
					  .free = in->free,
					  .parts = in->parts,
					  .now = in->now,
					  .matched = p->matched,
					  .usable = p->usable };
	return plan_prefer_start(&p->pin);
}

/* Starts the run of the items of `it`'s request: the nodes it matches
 * (evaluated unless its nodes did not change; all of them for an invalid
 * one) and the filter its jobs share.  -1 when out of memory; a request
 * not evaluated for lack of memory leaves its run's jobs as they are
 * (p->run_failed), planned again next round. */
static int start_run(struct planning *p, const struct item *it,
		     struct refilter_stats *stats)
{
	bool evaluated = false;

	p->run = it;
	p->run_failed = false;
	if (it->req) {
		p->run_failed = memo_matched(p->m, it->req, p->in->table,
					     p->matched, &evaluated) < 0;
		stats->failed += p->run_failed;
		stats->requests += evaluated;
	} else {
		for (size_t k = 0; k < p->count; k++)
			p->matched[k] = true;
	}
	if (!p->run_failed &&
	    shared_filter(p->m, p->in->table, p->matched, it->req, &p->base,
			  &p->base_text, &p->base_hosts) < 0)
		return -1;
	return 0;
}

/* The feature the job's constraint ends with when it is that of another
 * request the job may have gone by than `it->req`: its request alone or
 * one of its tiers' "(R)&(Pi)", into `out` ("" for none).  job_submit()
 * gives a job with preferences the feature of the request it picked at
 * submission, before the thread has planned it (known_job's feature is
 * then none): a tier the thread picks since must take it out, not keep
 * it as the user's own (the thread takes that feature off the nodes once
 * no job goes by it, and the job would then wait, BadConstraints, for
 * good).  Every text is one the round looks up anyway (plan_prefer.c);
 * -1 when out of memory. */
static int stale_feature(struct planning *p, const struct item *it,
			 char out[SX_FEATURE_LEN + 1])
{
	const char *features = it->job->features;
	char last[SX_FEATURE_LEN + 1];

	out[0] = '\0';
	/* first the cheap test: its last name is the plugin's, not the
	 * feature of the request it goes by now */
	if (!it->req || !it->st.n_prefer || !it->st.request ||
	    !sx_constraint_last_ours(features, last) ||
	    !strcmp(last, it->req->feature))
		return 0;
	for (unsigned i = 0; i <= it->st.n_prefer && !out[0]; i++) {
		char *text =
			i ? prefer_compose(it->st.request, it->st.prefer[i - 1])
			  : strdup(it->st.request);
		struct memo_request *r = NULL;
		int rc = text ? memo_request_of(p->m, text, p->in->limits, &r)
			      : -1;

		free(text);
		if (rc < 0)
			return -1;
		if (r && !strcmp(r->feature, last))
			memcpy(out, last, SX_FEATURE_LEN + 1);
	}
	return 0;
}

/* Plans item `it` of the current run: its filter (the run's own, or its
 * own with exclusions or required nodes of its own) compared with what
 * the job has, into the next update when anything changes.  A job carried
 * by its feature keeps its user's own exclusions alone, and its status
 * says what the request's nodes mean to it (carry_status), with no count.
 * `own_exc`: whether it has exclusions or required nodes of its own, as
 * read before an adopted job's exclusions are trimmed.  -1 when out of
 * memory. */
static int plan_item(struct planning *p, struct item *it, bool own_exc)
{
	const xc_nodes_t *table = p->in->table;
	struct job_filter f, use;
	uint64_t want, hosts;
	struct exc_recipe recipe;
	struct plan_carried cd;
	struct job_carrier jc = { 0 };
	char *status = NULL, stale[SX_FEATURE_LEN + 1];
	int r;

	if (stale_feature(p, it, stale) < 0 ||
	    plan_carrier(p->in->carry, p->in->prev, p->round, it->job, it->req,
			 stale, &cd) < 0)
		return -1;
	it->wants = cd.wants; /* paired with its request's carry_round */
	if (it->adopted && *it->st.exclude &&
	    job_changes_adopted(table, p->matched, &it->st.exclude) < 0) {
		plan_carrier_free(&cd);
		return -1;
	}
	/* Jobs with no exclusions or required nodes of their own share their
	 * request's filter; the others compute their own. */
	if (!own_exc) {
		use = p->base;
		want = p->base_text;
		hosts = p->base_hosts;
	} else if (filter_compute(table, p->matched, it->st.exclude,
				  it->job->req_nodes, &f) < 0) {
		plan_carrier_free(&cd);
		return 0; /* an unreadable hostlist: leave the job */
	} else {
		want = xc_text_hash(f.exc ? f.exc : "");
		hosts = hosts_hash(p->m, table, f.exc, want);
		filter_free(&f);
		use = f;
	}
	recipe = (struct exc_recipe){
		.request = it->req ? it->req->canonical : NULL,
		.user = own_exc ? it->st.exclude : NULL,
		.req = own_exc ? it->job->req_nodes : NULL,
	};
	if (cd.by_feature) {
		/* the user's own exclusions alone (no required nodes) */
		if (!own_exc) {
			want = p->open_text;
			hosts = p->open_hosts;
		} else if (filter_compute(table, p->every, it->st.exclude, NULL,
					  &f) < 0) {
			plan_carrier_free(&cd);
			return 0;
		} else {
			want = xc_text_hash(f.exc ? f.exc : "");
			hosts = hosts_hash(p->m, table, f.exc, want);
			filter_free(&f);
		}
		recipe.request = NULL;
		if (!(status = carry_status(it->req->feature, use.allowed,
					    use.total, it->job->num_nodes))) {
			plan_carrier_free(&cd);
			return -1;
		}
	}
	if (it->note && *it->note) { /* the preference's words first */
		char *plain = status ? status : filter_status(&use), *both;

		both = plain ? malloc(strlen(it->note) + strlen(plain) + 1)
			     : NULL;
		if (both)
			strcat(strcpy(both, it->note), plain);
		if (plain != status)
			free(plain);
		free(status);
		if (!(status = both)) {
			plan_carrier_free(&cd);
			return -1;
		}
	}
	jc = (struct job_carrier){ .status = status,
				   .features = cd.features,
				   .prefer = cd.prefer,
				   .touch = plan_needs_touch(p->in->prev,
							     p->all, it->job,
							     it->req, &cd) };
	r = job_update_plan(it->job, &it->st, &use, want, it->exc_text, hosts,
			    &recipe, &jc, &p->ups[p->nup]);
	free(status);
	it->carried = cd.by_feature;
	if (r > 0) { /* what the update sets, for know() */
		p->ups[p->nup].to_feature = cd.by_feature && cd.features;
		it->features = cd.features;
		it->prefer = cd.prefer;
		cd.features = cd.prefer = NULL;
	}
	plan_carrier_free(&cd);
	if (r < 0)
		return -1;
	it->planned = true;
	p->nup += r;
	return 0;
}

/* Plans every item: sorted by request, each distinct request once a run
 * (none while its nodes do not change), each job's update from its
 * filter; a job whose request was emptied gets its own exclusions back.
 * -1 when out of memory. */
static int plan_items(struct planning *p, struct refilter_stats *stats)
{
	qsort(p->items, p->nitems, sizeof(*p->items), by_request);
	if (p->nitems && !(p->ups = calloc(p->nitems, sizeof(*p->ups))))
		return -1;
	for (size_t i = 0; i < p->nitems; i++) {
		struct item *it = &p->items[i];
		bool own_exc = *it->st.exclude ||
			       (it->job->req_nodes && *it->job->req_nodes);

		if (it->dropped) {
			struct job_update *u = &p->ups[p->nup];
			struct memo_request *was = NULL;

			/* the former request's feature, if the job has it */
			if (p->in->carry && it->st.request &&
			    memo_request_of(p->m, it->st.request, p->in->limits,
					    &was) < 0)
				return -1;
			if (job_update_drop(it->job, &it->st,
					    was ? was->feature : NULL, u) < 0)
				return -1;
			p->nup++;
			continue;
		}
		/* A new run (the jobs whose requests were emptied, which sort
		 * among the invalid ones, take no part) */
		if ((!p->run || by_request(it, p->run) != 0) &&
		    start_run(p, it, stats) < 0)
			return -1;
		if (p->run_failed)
			continue;
		if (plan_item(p, it, own_exc) < 0)
			return -1;
	}
	return 0;
}

/* Fills *known with every job the round still filters: the items planned
 * (their states moved there) and the jobs kept unchanged (moved), sorted
 * by id.  -1 when out of memory (the caller frees *known). */
static int know_all(struct planning *p, struct known_jobs *known)
{
	size_t total = p->kept.count + p->nitems;

	if (total && !(known->jobs = calloc(total, sizeof(*known->jobs))))
		return -1;
	for (size_t i = 0; i < p->nitems; i++) {
		struct item *it = &p->items[i];

		if (it->dropped)
			continue;
		if (know(it, p->round, &known->jobs[known->count]) < 0) {
			known->count++;
			return -1;
		}
		memset(&it->st, 0, sizeof(it->st));
		if (!p->in->memo)
			known->jobs[known->count].req = NULL;
		known->count++;
	}
	if (p->kept.count)
		memcpy(known->jobs + known->count, p->kept.jobs,
		       p->kept.count * sizeof(*p->kept.jobs));
	known->count += p->kept.count;
	free(p->kept.jobs);
	p->kept.jobs = NULL;
	p->kept.count = 0;
	known_jobs_sort(known);
	return 0;
}

/* Frees what the round held but what it handed over; tells the memo how
 * the round ended (rc 0: what no job had is freed; -1: its next round
 * plans every job). */
static void planning_end(struct planning *p, int rc, struct known_jobs *known)
{
	if (rc < 0 && known)
		known_jobs_free(known);
	known_jobs_free(&p->kept);
	job_updates_free(p->ups, p->nup);
	for (size_t i = 0; p->items && i < p->nitems; i++) {
		sx_job_state_free(&p->items[i].st);
		free(p->items[i].features);
		free(p->items[i].prefer);
		free(p->items[i].note);
	}
	free(p->items);
	free(p->matched);
	free(p->usable);
	free(p->every);
	free(p->ids);
	plan_prefer_end(&p->pin);
	if (!p->in->memo)
		memo_free(&p->own);
	else if (rc == 0)
		memo_round_end(p->in->memo); /* what no job had is freed */
	else
		memo_plan_all(p->in->memo);
}

int refilter_plan(const struct refilter_in *in, const struct refilter_out *out)
{
	struct planning p = { .in = in };
	struct timespec t0;
	int rc = -1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	*out->updates = NULL;
	*out->n = 0;
	if (out->known)
		memset(out->known, 0, sizeof(*out->known));
	if (planning_start(&p) < 0)
		return -1;
	if (!in->jobs || !in->jobs->record_count) {
		rc = 0;
		goto done;
	}
	if (planning_alloc(&p) < 0)
		goto done;
	for (uint32_t i = 0; i < in->jobs->record_count; i++)
		if (refilter_read_job(&p, &in->jobs->job_array[i], out) < 0)
			goto done;
	if (plan_items(&p, out->stats) < 0 ||
	    (out->known && know_all(&p, out->known) < 0))
		goto done;
	*out->updates = p.ups;
	*out->n = p.nup;
	p.ups = NULL;
	if (in->memo && out->known)
		plan_summarize(in->memo, out->known);
	rc = 0;
	out->stats->pending += p.nitems + p.nkept;
	out->stats->planned += p.nitems;
	out->stats->updates += p.nup;
done:
	planning_end(&p, rc, out->known);
	out->stats->plan_ms += ms_since(&t0);
	return rc;
}
