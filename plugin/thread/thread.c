/*
 * thread.c - job_submit/extra's thread (thread_private.h): one round every
 * RefreshInterval, the node data and the jobs loaded, and when either
 * changed every pending job with a request re-filtered (refilter.h) and
 * the updates sent (pace.h); its start and its stop.
 */
#define _GNU_SOURCE /* dladdr, RTLD_DEFAULT, RTLD_NODELETE */

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "elapsed.h"
#include "memory.h"
#include "node_table.h"
#include "pace.h"
#include "thread_private.h"

/* Drops one reference, with r->lock held; frees `r` at the last one. */
static void release(struct thread *r)
{
	bool last = --r->refs == 0;

	pthread_mutex_unlock(&r->lock);
	if (!last)
		return;
	xc_nodes_destroy(r->table);
	free(r->free);
	parts_free(&r->parts);
	known_jobs_free(&r->known);
	hints_free(&r->hints);
	memo_free(&r->memo);
	carry_free(&r->carry);
	kept_jobs_free(r->jobs);
	job_retries_free(&r->retries);
	pthread_cond_destroy(&r->wake);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

struct thread_control thread_control = { .ping = slurm_ping };

bool thread_in_control(void)
{
	struct thread_control *c = &thread_control;

	if (!c->looked) {
		c->primary = dlsym(RTLD_DEFAULT, "slurmctld_primary");
		c->looked = true;
	}
	if (!c->primary || *c->primary)
		return true;
	return c->ping(0) != SLURM_SUCCESS;
}

const char *thread_mode_text(bool slurm_filters, bool guard)
{
	return slurm_filters && guard
		       ? "SchedulerParameters has extra_constraints: Slurm filters by --extra itself; this plugin checks requests, burst_buffer/extra keeps the preferences (Carrier=guard), and runs no thread"
	       : slurm_filters
		       ? "SchedulerParameters has extra_constraints: Slurm filters by --extra itself; this plugin checks requests, refuses --extra-prefer (BurstBufferType=burst_buffer/extra keeps preferences), and runs no thread"
	       : guard ? "Carrier=guard: burst_buffer/extra filters jobs by --extra inside slurmctld; this plugin checks and records requests, and runs no thread"
		       : "this plugin filters jobs by --extra";
}

/* A round plans every job at least this often (s), a backstop for what
 * no hint told (memo.h). */
#define FULL_ROUND_S 600

void thread_take_deadline(struct thread *r)
{
	if (r->submit_next &&
	    (!r->prefer_next || r->submit_next < r->prefer_next))
		r->prefer_next = r->submit_next;
	if (r->submit_free && !r->prefer_free)
		r->prefer_free = 1; /* until the next plan counts them */
	r->submit_next = 0;
	r->submit_free = false;
}

void thread_parts_due(struct thread *r)
{
	if (r->table && (r->prefer_jobs || !r->parts.maps ||
			 r->parts.count != xc_nodes_count(r->table)))
		node_table_parts(r);
}

bool thread_prefer_due(const struct thread *r, time_t now)
{
	return (r->prefer_next && now >= r->prefer_next) ||
	       (r->prefer_free && r->free_changed) ||
	       (r->prefer_jobs && r->parts_changed);
}

/* A round this long (s, from its load of the data to its last update) is
 * logged at info: the thread is behind. */
#define BEHIND_S 5.0

/* What one round carries from stage to stage (refresh_round). */
struct round {
	struct timespec start; /* its load of the data (CLOCK_MONOTONIC) */
	bool nodes;	       /* some node's Extra changed (node_table_load) */
	int jobs;	       /* load_jobs(): 1 new, 0 the same, -1 none */
	uint64_t upto;	       /* hints.seq before the load: hints taken */
	uint64_t census_upto;  /* caps_seq() before the load */
	uint64_t asked;	       /* users' asks so far (thread_users_asks) */
	uint64_t urgent;       /* their urgent asks so far (the same) */
	bool prefer;	       /* jobs with preferences want a plan
				  (thread_prefer_due) */
	time_t now;	       /* the round's clock (preferences) */
	enum {
		LOAD_NONE,
		LOAD_ALL,
		LOAD_HINTED
	} load;			       /* round_decide */
	uint32_t ids[HINTED_LOAD_MAX]; /* LOAD_HINTED: the jobs to load */
	size_t n_ids;
};

/* Stage: whether the plugin filters (Slurm does not), a change logged. */
static bool round_filters(struct thread *r)
{
	bool slurm = sx_slurm_filters_extra();

	if (slurm != r->slurm_filters) {
		slurm_info("%s: %s", plugin_type,
			   thread_mode_text(slurm, r->cfg.carrier_guard));
		thread_tune_malloc(&r->cfg, slurm);
	}
	r->slurm_filters = slurm;
	if (slurm) {
		/* Slurm filters: nothing to keep current.  job_modify() leaves
		 * no hints meanwhile: every job is planned when it stops. */
		memo_plan_all(&r->memo);
		return false;
	}
	return true;
}

/* Stage: whether this slurmctld is in control (not a backup), logged. */
static bool round_in_control(struct thread *r)
{
	if (thread_in_control() == r->backup) {
		r->backup = !r->backup;
		if (!r->backup) { /* taken over: its first plan is timed */
			clock_gettime(CLOCK_MONOTONIC, &r->started);
			r->planned_once = false;
		}
		slurm_info(
			"%s: %s", plugin_type,
			r->backup
				? "a backup controller while the primary answers: the thread stands idle"
				: "in control: the thread filters");
	}
	if (r->backup) {
		memo_plan_all(&r->memo); /* another wrote meanwhile */
		return false;
	}
	return true;
}

/* Stage: the memo made at the first round; false out of memory. */
static bool round_memo_ready(struct thread *r)
{
	if (!r->memo.texts && memo_init(&r->memo, FULL_ROUND_S) < 0) {
		slurm_error("%s: out of memory starting the round",
			    plugin_type);
		return false;
	}
	return true;
}

/* Stage: the node data loaded, then the hints and asks so far read. */
static void round_load_nodes(struct thread *r, struct round *w)
{
	clock_gettime(CLOCK_MONOTONIC, &w->start); /* the data of the round */
	w->nodes = node_table_load(r);
	thread_parts_due(r);
	w->now = time(NULL);
	w->prefer = thread_prefer_due(r, w->now);
	thread_retries_due(r, &w->start);
	pthread_mutex_lock(&r->lock);
	w->upto = r->hints.seq;
	w->census_upto = caps_seq();
	thread_users_asks(r, &w->asked, &w->urgent);
	thread_take_deadline(r);
	pthread_mutex_unlock(&r->lock);
}

/* Stage: what the round loads (w->load): every job when
 * thread_jobs_wanted() says so; else the jobs the new hints name, one by
 * one, or every job at the pace of users' asks when they name more than
 * HINTED_LOAD_MAX; else none.  True when the round plans: something
 * loaded, or the jobs with preferences want a plan (their deadline, the
 * free nodes: planned from the jobs as last loaded, unless hints wait for
 * a load). */
static bool round_decide(struct thread *r, struct round *w)
{
	if (w->asked != r->asked_seen && !time_set(&r->unloaded_since))
		clock_gettime(CLOCK_MONOTONIC, &r->unloaded_since);
	w->load = thread_jobs_wanted(r,
				     thread_nodes_want_jobs(
					     r, w->nodes, w->urgent, w->asked),
				     w->urgent, w->asked)
			  ? LOAD_ALL
			  : LOAD_NONE;
	r->asked_round = w->asked;
	if (w->load == LOAD_NONE && w->upto > r->hints_loaded) {
		int rc = thread_hinted_ids(r, w->upto, w->ids, &w->n_ids);

		if (rc > 0 && w->n_ids) /* (none: a loss, loaded at pace) */
			w->load = LOAD_HINTED;
		else if (rc < 0 ||
			 ms_since(&r->jobs_asked) >= JOBS_PACED_S * 1000.0)
			w->load = LOAD_ALL;
	}
	/* (no plan from the jobs as last loaded while hints wait for their
	 * load: an update after it, an operator's on 22.05, which makes no
	 * plan stale, would be written over) */
	return w->load != LOAD_NONE ||
	       (w->prefer && w->upto <= r->hints_loaded);
}

/* Stage: the jobs loaded (w->load); false when they could not be (none
 * planned).  A round that loads none plans from the jobs as last loaded
 * and takes no hint since (their jobs' data are not loaded). */
static bool round_load_jobs(struct thread *r, struct round *w)
{
	if (w->load == LOAD_NONE) {
		w->upto = r->hints_loaded;
		return r->table && r->jobs;
	}
	if (w->load == LOAD_HINTED &&
	    thread_load_hinted(r, w->ids, w->n_ids) == 0) {
		r->hints_loaded = w->upto;
		return r->table != NULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &r->jobs_asked);
	w->jobs = thread_load_jobs(r);
	/* Not loaded now: old jobs would undo what changed since; the
	 * hints wait for the next round, which loads again. */
	r->jobs_due = !r->table || !r->jobs || w->jobs < 0;
	if (r->jobs_due)
		return false;
	r->asked_seen = w->asked;
	r->urgent_seen = w->urgent;
	r->unloaded_since = (struct timespec){ 0 };
	r->hints_loaded = w->upto;
	return true;
}

/* Stage: the hints up to w->upto taken (*taken); false: nothing to plan. */
static bool round_take_hints(struct thread *r, const struct round *w,
			     struct hints *taken)
{
	uint64_t lost;

	pthread_mutex_lock(&r->lock);
	hints_take(&r->hints, w->upto, taken);
	lost = r->hints.losses;
	pthread_mutex_unlock(&r->lock);
	/* A hint dropped: the job it named is not known, so every job is
	 * planned (the job's data tell what changed), once every job is
	 * loaded (a loss asks for that load). */
	if (w->load == LOAD_ALL) {
		if (lost != r->lost_seen || r->replan)
			memo_plan_all(&r->memo);
		r->lost_seen = lost;
	}
	/* Nothing new: no round.  A hint is always planned, in the round
	 * that takes it: an update applied after `upto` was read but before
	 * the jobs were loaded shows in the jobs, but its job is known as
	 * changed only by its hint, taken the round after (memo.h); a hint
	 * of an update Slurm refused plans its job alone. */
	if (!w->nodes && !w->jobs && !r->replan && !r->carry_due && !taken->n &&
	    !r->memo.plan_all && !w->prefer) {
		hints_free(taken);
		return false;
	}
	return true;
}

/* Stage: the plan's jobs made r->known, the caps counted (after a load
 * of every job).  *known is
 * moved into r->known (the old one freed) and left empty. */
static void round_publish(struct thread *r, const struct round *w,
			  struct known_jobs *known)
{
	struct known_jobs old;
	struct census fresh;
	/* counted from a load of every job only: after a load of the hinted
	 * ones, a job submitted since the last count is in `known` and in
	 * the census' entries admitted since, both */
	bool count = w->load == LOAD_ALL;
	int counted = count ? census_count(known, &fresh) /* a sort: outside
							     the lock */
			    : 0;

	pthread_mutex_lock(&r->lock);
	old = r->known;
	r->known = *known;
	*known = (struct known_jobs){ 0 };
	/* (a thread left to stop by itself after fini() leaves the census,
	 * the plugin's, to the next init()) */
	if (__atomic_load_n(&r->stopping, __ATOMIC_RELAXED)) {
		if (count && counted == 0)
			census_free(&fresh);
	} else if (count && counted == 0) {
		caps_take(&fresh, w->census_upto);
	} else if (counted < 0) {
		caps_invalidate(); /* no caps until counted */
	}
	pthread_mutex_unlock(&r->lock);
	if (counted < 0)
		slurm_error(
			"%s: out of memory counting the pending requests: no caps on them this round",
			plugin_type);
	known_jobs_free(&old);
}

/* Stage: the round's times and counts logged (at info when behind). */
static void round_report(const struct thread *r, const struct round *w,
			 const struct refilter_stats *stats, size_t n)
{
	/* How far behind the node data the round's last update came: a
	 * change after the round's load waits for the next round. */
	double behind = ms_since(&w->start) / 1000;

	if (behind >= BEHIND_S)
		slurm_info(
			"%s: the thread is %.1f s behind the node data: its round planned %zu jobs in %.1f ms and sent %zu updates in %.1f ms (%zu waits for UpdateBudget=%zu)",
			plugin_type, behind, stats->planned, stats->plan_ms,
			stats->sent, stats->send_ms, stats->paced,
			r->cfg.update_budget);
	if (n || stats->node_updates || stats->plan_ms >= 100)
		slurm_verbose(
			"%s: re-filtered %zu of %zu pending jobs (%zu requests evaluated, %zu KB kept) in %.1f ms; %zu of %zu updates sent in %.1f ms, %zu refused, %zu waits for UpdateBudget; %zu node feature updates, %zu refused",
			plugin_type, stats->planned, stats->pending,
			stats->requests, r->memo.bytes / 1024, stats->plan_ms,
			stats->sent, stats->updates, stats->send_ms,
			stats->failed, stats->paced, stats->node_updates,
			stats->node_failed);
}

/* A round's plan, from round_plan() to round_send(). */
struct planned {
	struct refilter_stats stats;
	struct job_update *updates;
	size_t n;
	bool nodes_failed; /* a node update of the carrier's was refused or
			      not sent (thread_carry_round) */
};

/* Stage: take the hints, plan, publish; false when nothing was planned. */
static bool round_plan(struct thread *r, const struct round *w,
		       struct planned *p)
{
	struct known_jobs known;
	struct hints taken;
	int rc;

	if (!round_take_hints(r, w, &taken))
		return false;
	r->replan = false;
	r->carry_due = false;
	rc = refilter_plan(&(struct refilter_in){ .table = r->table,
						  .jobs = r->jobs,
						  .limits = &r->cfg.limits,
						  .hints = &taken,
						  .upto = w->upto,
						  .prev = &r->known,
						  .memo = &r->memo,
						  .carry = &r->carry,
						  .free = r->free,
						  .parts = &r->parts,
						  .now = w->now },
			   &(struct refilter_out){ .updates = &p->updates,
						   .n = &p->n,
						   .known = &known,
						   .stats = &p->stats });
	hints_free(&taken);
	if (rc < 0) {
		slurm_error("%s: out of memory re-filtering jobs", plugin_type);
		return false;
	}
	round_publish(r, w, &known);
	r->prefer_free = p->stats.prefer_free;
	r->prefer_jobs = p->stats.preferring;
	r->parts_changed = false;
	r->prefer_next = p->stats.prefer_next;
	r->free_changed = false;
	return true;
}

/* Stage: send the plan's job updates (but the moves to a feature after a
 * refused node update: every job is planned again next round), report. */
static void round_send(struct thread *r, const struct round *w,
		       struct planned *p)
{
	size_t planned = p->n;

	if (p->nodes_failed)
		p->n = thread_hold_back_moves(r, p->updates, p->n);
	pace_send_updates(r, p->updates, p->n, w->upto, &p->stats);
	/* a refused update plans its job again after its delay, alone */
	r->replan =
		p->n != planned ||
		!job_retry_refused(&r->retries, p->updates, p->n, &w->start);
	job_updates_free(p->updates, p->n);
	p->updates = NULL;
	round_report(r, w, &p->stats, p->n);
}

/*
 * One round of the thread, in stages: the node data, the feature
 * carrier's node updates for what changed in them, the jobs, and when the
 * nodes (unless the carrier's updates answered it all: carry_covers) or
 * the jobs changed, every pending job with a request re-filtered; the
 * carrier's node updates for that plan (before the jobs' updates, which
 * may name a feature they add); after a round that loaded new jobs (its
 * updates sent and freed too), glibc's free memory given back.  The hints
 * of job_modify() given before the jobs are loaded are reflected in them
 * (an update holds slurmctld's job write lock from job_modify() until it
 * is applied); the round takes those, and its updates are refused if a
 * later one touches their job.
 */
static void refresh_round(struct thread *r)
{
	struct round w = { 0 };
	struct planned p = { 0 };
	bool planned;

	/* Slurm filters (no thread is started then: entry_wants_thread()),
	 * or burst_buffer/extra does (Carrier=guard): nothing to load */
	if (!round_filters(r) || r->cfg.carrier_guard || !round_in_control(r) ||
	    !round_memo_ready(r))
		return;
	thread_carry_conf(r);
	round_load_nodes(r, &w);
	/* the nodes' change answered first, for the requests of the last
	 * plan; then again for the requests of this round's */
	thread_carry_round(r, &p.stats, &p.nodes_failed);
	planned = round_decide(r, &w) && round_load_jobs(r, &w) &&
		  round_plan(r, &w, &p);
	if (planned) {
		thread_carry_round(r, &p.stats, &p.nodes_failed);
		round_send(r, &w, &p);
		if (!r->planned_once) /* how long a start leaves jobs unplanned */
			slurm_info(
				"%s: first plan since the thread started or took control: %zu pending jobs with a request planned in %.1f ms, %zu of %zu updates sent (%zu refused), %.1f s after it started or took control",
				plugin_type, p.stats.planned, p.stats.plan_ms,
				p.stats.sent, p.stats.updates, p.stats.failed,
				ms_since(&r->started) / 1000);
		r->planned_once = true;
	}
	if (w.jobs == 1) /* new jobs loaded */
		thread_trim_after_load(r);
}

static void *refresh_thread(void *arg)
{
	struct thread *r = arg;

	pthread_mutex_lock(&r->lock);
	while (!r->stopping) {
		struct timespec until;

		pthread_mutex_unlock(&r->lock);
		refresh_round(r);
		until = pace_deadline(r->cfg.refresh_interval);
		pthread_mutex_lock(&r->lock);
		(void)pace_wait_until(r, &until);
	}
	r->exited = true;
	pthread_cond_broadcast(&r->wake);
	release(r);
	return NULL;
}

/* Keeps this plugin's code mapped after Slurm unloads it, for a detached
 * thread still running (thread_stop). */
static void stay_mapped(void)
{
	Dl_info info;

	if (dladdr((void *)stay_mapped, &info) && info.dli_fname &&
	    !dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE))
		slurm_verbose("%s: cannot pin the plugin: %s", plugin_type,
			      dlerror());
}

void thread_init_sync(struct thread *r)
{
	pthread_condattr_t attr;

	pthread_mutex_init(&r->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&r->wake, &attr);
	pthread_condattr_destroy(&attr);
}

struct thread *thread_start(const struct plugin_config *cfg, uid_t self,
			    bool slurm_filters)
{
	struct thread *r = calloc(1, sizeof(*r));
	int rc;

	if (!r) {
		slurm_error(
			"%s: cannot start the node data thread: out of memory",
			plugin_type);
		return NULL;
	}
	r->cfg = *cfg;
	r->self = self;
	clock_gettime(CLOCK_MONOTONIC, &r->started);
	r->slurm_filters = slurm_filters;
	/* before any entry point can look a name up */
	if (carry_init(&r->carry) < 0) {
		slurm_error(
			"%s: cannot start the node data thread: out of memory",
			plugin_type);
		free(r);
		return NULL;
	}
	thread_init_sync(r);
	r->refs = 2;
	stay_mapped();
	rc = pthread_create(&r->thread, NULL, refresh_thread, r);
	if (rc != 0) {
		slurm_error("%s: cannot start the node data thread: %s",
			    plugin_type, strerror(rc));
		pthread_mutex_lock(&r->lock);
		r->refs = 1;
		release(r);
		return NULL;
	}
	/* its name in slurmctld's tasks (top -H, /proc/PID/task/TID/comm):
	 * THREAD_NAME, thread.h */
	(void)pthread_setname_np(r->thread, THREAD_NAME);
	return r;
}

void thread_stop(struct thread *r)
{
	struct timespec t0, until;
	long ms;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	until = pace_deadline(0.9); /* so that fini returns within 1 s */
	pthread_mutex_lock(&r->lock);
	__atomic_store_n(&r->stopping, true, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&r->wake);
	while (!r->exited &&
	       pthread_cond_timedwait(&r->wake, &r->lock, &until) == 0)
		;
	ms = (long)ms_since(&t0);
	if (r->exited) {
		pthread_mutex_unlock(&r->lock);
		pthread_join(r->thread, NULL);
		slurm_info("%s: node data thread stopped in %ld ms",
			   plugin_type, ms);
		pthread_mutex_lock(&r->lock);
	} else {
		pthread_detach(r->thread);
		slurm_info(
			"%s: node data thread stopped in %ld ms (left to finish its Slurm call on its own)",
			plugin_type, ms);
	}
	release(r);
}
