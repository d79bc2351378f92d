/*
 * thread_prefer.c - preferences where Slurm filters by `extra` itself
 * (SchedulerParameters=extra_constraints, 23.11+; doc/preferences.md
 * "Preferences"): the thread keeps each pending job's `extra` at its
 * effective request (prefer.h), "(R)&(Pi)" while a tier narrows it and R
 * after, and its AdminComment state saying so; Slurm's own filter does
 * the rest.  The state's wrote= is the hash of the `extra` the plugin last
 * set: a job whose `extra` differs was updated by its owner (or an admin),
 * whose text becomes its request.  The node data are loaded only when a
 * pick can change with them (plan_prefer_wants_nodes()), and nothing at
 * all while no pending job has preferences (r->prefer_seen; a submission
 * or a change with some asks for a round).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "elapsed.h"
#include "memo.h"
#include "node_table.h"
#include "pace.h"
#include "plan_prefer.h"
#include "prefer_changes.h"
#include "slurm_hostlist.h"
#include "thread_private.h"
#include "xc_util.h"

#if SX_SLURM_HAS_EXTRA_OPTION

/* The words of the status after a preference's. */
#define SLURM_FILTERS SX_SLURM_STATUS

/* What one own-filter round plans. */
struct own_plan {
	struct job_update *ups;
	size_t n, cap;
	size_t preferring;
	size_t live;	    /* eligible, their wait lasting: their pick
			       follows the nodes (plan_prefer_wants_nodes) */
	size_t prefer_free; /* with no wait, in their window */
	time_t next;
	/* a plan of every job (plan_all): what the caps and job_modify()
	 * read of its jobs with preferences (count_job) */
	bool collect;
	struct census_job *counted; /* for census_count_jobs() */
	size_t ncounted, counted_cap;
	struct known_jobs known; /* for thread_known_target() */
	size_t known_cap;
};

/* Counts pending `job` (state `st`, with preferences or a change of them)
 * for the caps and keeps it known to job_modify() (census.h, known_jobs.h;
 * doc/design.md "Caps"): its request and tiers hashed as where the plugin
 * filters (prefer_census_hash() of its canonical text, the memo's).  -1
 * when out of memory. */
static int count_job(struct plan_prefer_in *in, const slurm_job_info_t *job,
		     const struct sx_job_state *st, struct own_plan *p)
{
	struct memo_request *req = NULL;
	struct known_job *k;
	uint64_t hash;

	if (memo_request_of(in->memo, st->request ? st->request : "",
			    in->limits, &req) < 0)
		return -1;
	hash = prefer_census_hash(req ? req->canonical : st->request, st);
	if (xc_grow((void **)&p->counted, &p->counted_cap, p->ncounted + 1,
		    sizeof(*p->counted)) < 0 ||
	    xc_grow((void **)&p->known.jobs, &p->known_cap, p->known.count + 1,
		    sizeof(*p->known.jobs)) < 0)
		return -1;
	if (st->n_prefer)
		p->counted[p->ncounted++] = (struct census_job){
			.uid = job->user_id, .hash = hash, .prefers = true
		};
	k = &p->known.jobs[p->known.count];
	*k = (struct known_job){ .job_id = job->job_id,
				 .array_job_id = job->array_job_id,
				 .array_task_id = job->array_task_id,
				 .het_job_id = job->het_job_id,
				 .het_job_offset = job->het_job_offset,
				 .user_id = job->user_id,
				 .request_hash = hash,
				 .num_nodes = job->num_nodes };
	if (sx_job_state_copy(st, st->admin, &k->st) < 0)
		return -1;
	p->known.count++;
	return 0;
}

/* Publishes what a plan of every job counted: the census (its entries
 * admitted up to `upto` are in the jobs) and the known jobs, under
 * r->lock; out of memory, no caps until the next count. */
static void publish(struct thread *r, struct own_plan *p, uint64_t upto)
{
	struct census fresh;
	struct known_jobs old;
	int counted = census_count_jobs(p->counted, p->ncounted, &fresh);

	known_jobs_sort(&p->known); /* outside the lock: a sort */
	pthread_mutex_lock(&r->lock);
	old = r->known;
	r->known = p->known;
	p->known = (struct known_jobs){ 0 };
	/* (a thread left to stop by itself after fini() leaves the census,
	 * the plugin's, to the next init()) */
	if (__atomic_load_n(&r->stopping, __ATOMIC_RELAXED)) {
		if (counted == 0)
			census_free(&fresh);
	} else if (counted == 0) {
		caps_take(&fresh, upto);
	} else {
		caps_invalidate();
	}
	pthread_mutex_unlock(&r->lock);
	if (counted < 0)
		slurm_error(
			"%s: out of memory counting the jobs with preferences: no caps on them this round",
			plugin_type);
	known_jobs_free(&old);
}

/* A new state for pending `job`, which has none of the plugin's (it was
 * submitted without preferences): its `extra` the request, its
 * AdminComment the admin's.  false when out of memory. */
static bool new_state(const slurm_job_info_t *job, struct sx_job_state *st)
{
	memset(st, 0, sizeof(*st));
	if ((st->request = strdup(job->extra)) &&
	    (!job->admin_comment || !*job->admin_comment ||
	     (st->admin = strdup(job->admin_comment))))
		return true;
	sx_job_state_free(st);
	return false;
}

/* Plans job `job` into p (an update when its `extra` or state must
 * change): a job with preferences, or one its owner changed them of (the
 * changes of r->prefer_changes naming it applied, in order).  -1 when out
 * of memory. */
static int plan_job(struct thread *r, const slurm_job_info_t *job,
		    struct plan_prefer_in *in, struct own_plan *p)
{
	struct sx_job_state st;
	struct prefer_pick pick;
	char *effective = NULL, *note = NULL, *status = NULL, *comment = NULL;
	const char *extra = job->extra, *want;
	size_t changes;
	int rc = -1;

	if ((job->job_state & JOB_STATE_BASE) != JOB_PENDING || !extra ||
	    !*extra)
		return 0;
	changes = prefer_changes_of(&r->prefer_changes, job);
	if (!sx_job_state_parse(job->admin_comment, &st) &&
	    (!changes || !new_state(job, &st)))
		return changes ? -1 : 0;
	if (prefer_changes_apply(&r->prefer_changes, &st) < 0)
		goto out;
	if (!st.n_prefer && !changes) {
		sx_job_state_free(&st);
		return 0;
	}
	/* an `extra` the plugin did not write: the owner's new request */
	if (xc_text_hash(extra) != st.wrote &&
	    strcmp(extra, st.request ? st.request : "") != 0) {
		free(st.request);
		if (!(st.request = strdup(extra)))
			goto out;
	}
	/* where Slurm filters, the job's ExcNodeList is all its user's */
	free(st.exclude);
	if (!(st.exclude = sx_hostlist_normal(job->exc_nodes)) &&
	    !(st.exclude = strdup("")))
		goto out;
	if (plan_prefer(in, job, &st, &effective, &note, &pick) < 0 ||
	    (p->collect && count_job(in, job, &st, p) < 0))
		goto out;
	p->preferring += st.n_prefer > 0;
	p->live += pick.waiting && plan_prefer_eligible(job, &st) > 0;
	p->prefer_free += pick.waiting && st.wait <= 0;
	if (pick.tier && pick.until > in->now &&
	    (!p->next || pick.until < p->next))
		p->next = pick.until;
	want = effective ? effective : st.request;
	if (!(status = malloc(strlen(note) + sizeof(SLURM_FILTERS))))
		goto out;
	strcat(strcpy(status, note), SLURM_FILTERS);
	free(st.status);
	st.status = status;
	status = NULL;
	st.wrote = xc_text_hash(want);
	if (!(comment = sx_job_state_format(&st)))
		goto out;
	if (strcmp(want, extra) == 0 && job->admin_comment &&
	    strcmp(job->admin_comment, comment) == 0) {
		rc = 0; /* as it should be */
		goto out;
	}
	/* `extra` only when it changes: the same text again is no update */
	if (job_update_extra(job, want, comment, &p->ups[p->n]) < 0)
		goto out;
	if (strcmp(want, extra) == 0) {
		free(p->ups[p->n].extra);
		p->ups[p->n].extra = NULL;
	}
	p->n++;
	rc = 0;
out:
	free(effective);
	free(note);
	free(status);
	free(comment);
	sx_job_state_free(&st);
	return rc;
}

/* The changes of preferences whose jobs a round loads alone, at most. */
#define PREFER_FRESH_MAX 16

/* What plan_job() reads besides the job, for a plan at `now`: *in made
 * (its scratch malloc'd: plan_in_free).  0, or -1 when out of memory. */
static int plan_in(struct thread *r, time_t now, struct plan_prefer_in *in)
{
	size_t count = xc_nodes_count(r->table);

	*in = (struct plan_prefer_in){ .memo = &r->memo,
				       .table = r->table,
				       .limits = &r->cfg.limits,
				       .free = r->free_count == count ? r->free
								      : NULL,
				       .parts = &r->parts,
				       .max_len = PREFER_SLURM_MAX_LEN,
				       .now = now };
	if (!(in->matched = calloc(count ? count : 1, sizeof(bool))) ||
	    !(in->usable = malloc((count ? count : 1) * sizeof(bool))) ||
	    plan_prefer_start(in) < 0 ||
	    prefer_changes_start(&r->prefer_changes) < 0) {
		free(in->matched);
		free(in->usable);
		plan_prefer_end(in);
		return -1;
	}
	return 0;
}

static void plan_in_free(struct plan_prefer_in *in)
{
	free(in->matched);
	free(in->usable);
	plan_prefer_end(in);
}

/* Plans every job of `msg` into p.  -1 when out of memory. */
static int plan_msg(struct thread *r, const job_info_msg_t *msg,
		    struct plan_prefer_in *in, struct own_plan *p)
{
	if (xc_grow((void **)&p->ups, &p->cap, p->n + msg->record_count + 1,
		    sizeof(*p->ups)) < 0)
		return -1;
	for (uint32_t i = 0; i < msg->record_count; i++)
		if (plan_job(r, &msg->job_array[i], in, p) < 0)
			return -1;
	return 0;
}

/* Plans every pending job of r->jobs with preferences or a change of
 * them; the changes every job shows are dropped after, and the caps'
 * census and the known jobs published (publish(), `upto`: census.seq
 * before the jobs were loaded).  -1 when out of memory. */
static int plan_all(struct thread *r, time_t now, uint64_t upto,
		    struct own_plan *p)
{
	struct plan_prefer_in in;
	bool all;
	int rc = -1;

	if (!r->jobs || !r->table)
		return 0;
	if (plan_in(r, now, &in) < 0)
		return -1;
	(void)memo_round(&r->memo, &all);
	p->collect = true;
	if (plan_msg(r, r->jobs, &in, p) == 0) {
		rc = 0;
		prefer_changes_end(&r->prefer_changes, now);
		publish(r, p, upto);
	}
	free(p->counted);
	p->counted = NULL;
	known_jobs_free(&p->known);
	if (rc == 0)
		memo_round_end(&r->memo);
	else
		memo_plan_all(&r->memo);
	plan_in_free(&in);
	return rc;
}

/* Plans the jobs the fresh changes of preferences name, each loaded alone
 * (at most PREFER_FRESH_MAX a round; a record two of them name, once): a
 * change takes effect at the next round though no load of every job is
 * due (an owner's ask within 10 s of their last), its cost that of its
 * jobs.  The memo's round is the full plan's: the requests evaluated here
 * count as used in it.  -1 when out of memory. */
static int plan_fresh(struct thread *r, time_t now, struct own_plan *p)
{
	uint32_t ids[PREFER_FRESH_MAX];
	size_t n =
		prefer_changes_fresh(&r->prefer_changes, ids, PREFER_FRESH_MAX);
	struct plan_prefer_in in;
	int rc = 0;

	if (!n || !r->table)
		return 0;
	if (plan_in(r, now, &in) < 0)
		return -1;
	for (size_t k = 0; k < n && rc == 0; k++) {
		job_info_msg_t *msg = NULL;
		bool again = false;

		if (sx_load_job(&msg, ids[k], SHOW_ALL) != SLURM_SUCCESS)
			continue; /* gone: the next full plan drops it */
		/* a task or component named by its own job id whose array's
		 * or het job's id is fresh too: that load plans it */
		for (size_t j = 0; j < n && !again; j++)
			for (uint32_t i = 0; j != k && i < msg->record_count;
			     i++)
				again |= (msg->job_array[i].array_job_id ==
						  ids[j] ||
					  msg->job_array[i].het_job_id ==
						  ids[j]) &&
					 msg->job_array[i].job_id == ids[k];
		if (!again)
			rc = plan_msg(r, msg, &in, p);
		sx_free_job_info_msg(msg);
	}
	if (rc < 0)
		memo_plan_all(&r->memo);
	plan_in_free(&in);
	return rc;
}

void thread_prefer_slurm_round(struct thread *r)
{
	struct own_plan p = { 0 };
	struct refilter_stats stats = { 0 };
	struct prefer_watch watch;
	uint64_t urgent, since, census_upto;
	bool nodes = false, submitted, asked, full = true, starting;
	double paced; /* s between loads of every job */
	time_t now;

	struct hints taken;
	uint64_t lost = r->prefer_changes.losses;

	pthread_mutex_lock(&r->lock);
	urgent = r->urgent;
	since = r->hints.seq;
	census_upto = caps_seq();
	submitted = r->submit_next != 0 || r->submit_free; /* a job narrowed
							     at submission */
	thread_take_deadline(r);
	/* the owners' changes of preferences; the hints of new requests
	 * only made the updates planned before them stale */
	hints_take(&r->hints, since, &taken);
	pthread_mutex_unlock(&r->lock);
	prefer_changes_take(&r->prefer_changes, &taken, time(NULL));
	hints_free(&taken);
	if (r->prefer_changes.losses != lost)
		slurm_error(
			"%s: %" PRIu64
			" changes of jobs' preferences dropped (bounds, or not shown in %d s)",
			plugin_type, r->prefer_changes.losses - lost,
			PREFER_CHANGE_TTL_S);
	asked = urgent != r->urgent_seen || submitted || r->prefer_changes.n;
	watch = (struct prefer_watch){ .asked = asked,
				       .pending = r->prefer_seen,
				       .live = r->prefer_jobs };
	if (asked) /* a submission with preferences, or a change of them */
		r->prefer_seen = true;
	if (!r->prefer_seen)
		return; /* no pending job has preferences: nothing loaded */
	now = time(NULL);
	/* Soon after the thread starts, slurmctld may still be recovering
	 * its jobs (a restart) and answer a load without them: the jobs are
	 * loaded every JOBS_PACED_S then, and a load without preferring jobs
	 * is not taken for the last word (below). */
	starting = ms_since(&r->started) < PREFER_START_S * 1000.0;
	paced = r->prefer_changes.n || starting ? JOBS_PACED_S
						: JOBS_BACKSTOP_S;
	/* a submission with preferences is planned at the next round (one
	 * load of the jobs a round at most, while they come) */
	watch.jobs_due = asked || thread_prefer_due(r, now) || !r->jobs ||
			 ms_since(&r->jobs_asked) >= paced * 1000.0;
	/* the nodes only when a pick can change with them */
	if (plan_prefer_wants_nodes(&watch)) {
		nodes = node_table_load(r);
		thread_parts_due(r);
		now = time(NULL);
	}
	if (!nodes && !submitted && urgent == r->urgent_seen &&
	    !thread_prefer_due(r, now) && r->jobs &&
	    ms_since(&r->jobs_asked) < paced * 1000.0) {
		full = false; /* the fresh changes' jobs alone */
	} else {
		clock_gettime(CLOCK_MONOTONIC, &r->jobs_asked);
		r->urgent_seen = urgent;
		if (thread_load_jobs(r) < 0)
			return;
	}
	if ((full ? plan_all(r, now, census_upto, &p)
		  : plan_fresh(r, now, &p)) < 0) {
		slurm_error("%s: out of memory planning preferences",
			    plugin_type);
		job_updates_free(p.ups, p.n);
		return;
	}
	pace_send_updates(r, p.ups, p.n, since, &stats);
	if (p.n)
		slurm_verbose(
			"%s: preferences: %zu pending jobs have some, %zu updates sent, %zu refused",
			plugin_type, p.preferring, stats.sent, stats.failed);
	job_updates_free(p.ups, p.n);
	if (!full) { /* a narrowing's end among them, the next at the latest */
		if (p.next && (!r->prefer_next || p.next < r->prefer_next))
			r->prefer_next = p.next;
		if (stats.failed &&
		    (!r->prefer_next || now + 10 < r->prefer_next))
			r->prefer_next = now + 10;
		return;
	}
	r->prefer_free = p.prefer_free;
	r->prefer_jobs = p.live; /* the jobs whose pick follows the nodes */
	r->parts_changed = false;
	/* a refused update: planned again in 10 s (not every round: Slurm
	 * may refuse it every time) */
	r->prefer_next = stats.failed && (!p.next || now + 10 < p.next)
				 ? now + 10
				 : p.next;
	r->free_changed = false;
	/* none pending: nothing is loaded until a submission or a change
	 * with preferences asks */
	r->prefer_seen = p.preferring > 0 || r->prefer_changes.n || starting;
}

#else

void thread_prefer_slurm_round(struct thread *r)
{
	(void)r; /* Slurm filters by `extra` from 23.11 only */
}

#endif
