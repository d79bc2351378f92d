/*
 * look_slurm.c - the look in slurmctld (look.h; doc/guard.md "The
 * look"): what its thread (look_thread.c) does in one hold of the job
 * write and node read locks: when a node's Extra or a job changed since
 * its last walk, it answers each waiting job's request over every node
 * from the guard's kept answers and sets the job's excluded nodes to
 * what Slurm made of them | the nodes that fail it: backfill's plans see
 * the answer the guard enforces at placement.
 *
 * What one hold may cost is bounded (LOOK_BUDGET units: an answer
 * evaluated, and for each job 1 + the bytes of its texts read /64 + the
 * words of its set written /64; and its jobs' work ends LOOK_HOLD_NS
 * after the hold began, LOOK_JOBS_MIN_NS after the jobs began at least);
 * a walk iterates slurmctld's job list across holds and goes on from the
 * job it stopped at in the next.
 * The sets the look gives jobs that had none are Slurm's own bitmaps,
 * which slurmctld packs into every answer about pending jobs (nodes/4
 * bytes a job): at most LOOK_SETS of them, to the jobs of the highest
 * priority.  A plugin
 * thread may take slurmctld's locks (lock_slurmctld(),
 * src/slurmctld/locks.h); fini() stops it before the guard is freed.
 */
#include "config.h" /* Slurm's, from the configured tree */

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "guard.h"
#include "guard_slurm.h"
#include "guard_tiers.h"
#include "look.h"
#include "look_cands.h"
#include "look_census.h"
#include "look_queue.h"
#include "look_changed.h"
#include "look_cols.h"
#include "look_dues.h"
#include "look_leftover.h"
#include "look_read.h"
#include "look_slurm.h"
#include "look_walk.h"
#include "ns_now.h"
#include "records.h"

extern const char plugin_type[]; /* burst_buffer_extra.c's */

/* the work of one hold: 65,536 answers are some 4 ms of one core at two
 * leaves a request (tests/bench/bench_look) */
#define LOOK_BUDGET 65536
/* and what one hold may take, ns, from its start: its jobs' work stops
 * there (one job at least a hold while budget is left), so that a hold
 * stays under 20 ms with the one job past it */
#define LOOK_HOLD_NS (10 * 1000000ULL)
/* and the jobs' least, after a long read of the nodes */
#define LOOK_JOBS_MIN_NS (3 * 1000000ULL)
/* the sets given at a walk's end stop this long after the hold began
 * (the others: the next walk) */
#define LOOK_SHARE_UNTIL_NS (14 * 1000000ULL)
/* the distinct requests the look carries: half the guard's table */
#define LOOK_REQUESTS (GUARD_MAX_REQUESTS / 2)
/* the sets it gives jobs that had none: 8 MiB at 65,536 nodes */
#define LOOK_SETS 1024
#define LOOK_SWEEP_EVERY 20 /* walks */
#define STATS_EVERY_S 60

/* (the thread's own; shared with placements only under the job lock) */
static struct look *lk;
static uint64_t round_no, walks, changes_seen;
static time_t walked_at, stamp_seen; /* the last whole walk's start, and
					 last_job_update then */
static time_t whole_done_at;	     /* and its end (0: none yet) */
/* a walk of what changed met a job that wants a set (given at a whole
 * walk's end), or the queue overflowed: a whole walk is wanted */
static bool want_whole;
/* the clock of the hold under way, and when it began (ns_now()) */
static time_t hold_now;
static uint64_t hold_t0;
static bool walking, again, touched, said[5];
/* Slurm filters by the request itself (this hold's reading) */
static bool slurm_filters;
/* the walk under way began after a change of the nodes' Extra */
static bool walk_read;
/* a walk of what changed is under way; it began after a change of the
 * nodes' Extra */
static bool changed_walking, changed_read;
static time_t changed_began; /* when the one under way began */
static struct {
	uint64_t holds, walks, short_walks, short_jobs, ns, cpu_ns, ns_max,
		cpu_of_max, read_ns_max, written, patched, left, set, freed,
		ended;
	/* as the last hold left them */
	size_t jobs_kept, requests_kept, cols_answered;
	time_t since;
} stats;

static void say_once(int which, const char *what)
{
	if (said[which])
		return;
	said[which] = true;
	error("%s: the look: %s (said once)", plugin_type, what);
}

static void stats_log(time_t now)
{
	if (!stats.since)
		stats.since = now;
	if (now - stats.since < STATS_EVERY_S)
		return;
	if (stats.holds)
		verbose("%s: the look: %" PRIu64 " walks (%" PRIu64
			" of every job, %" PRIu64
			" of the jobs changed: %" PRIu64
			" jobs visited), %" PRIu64
			" holds of the job write and node read locks in %ld s, %.2f ms each on average (%.1f ms in all on the look's CPU), %.2f ms at most (%.2f ms of it on the look's CPU; at most %.2f ms reading the nodes' Extra); jobs' excluded nodes written whole %" PRIu64
			", patched %" PRIu64 ", given a set %" PRIu64
			", a set taken back %" PRIu64 ", left to Slurm %" PRIu64
			"; %zu jobs, %zu requests kept; scheduling queued at the end of a preference's wait %" PRIu64
			" times, %zu waits followed; the guard's columns installed %" PRIu64
			" times, requests answered by them %zu (ever)",
			plugin_type, stats.walks + stats.short_walks,
			stats.walks, stats.short_walks, stats.short_jobs,
			stats.holds, (long)(now - stats.since),
			(double)stats.ns / 1e6 / (double)stats.holds,
			(double)stats.cpu_ns / 1e6, (double)stats.ns_max / 1e6,
			(double)stats.cpu_of_max / 1e6,
			(double)stats.read_ns_max / 1e6, stats.written,
			stats.patched, stats.set, stats.freed, stats.left,
			stats.jobs_kept, stats.requests_kept, stats.ended,
			look_dues_count(), look_cols_installs(),
			stats.cols_answered);
	memset(&stats, 0, sizeof(stats));
	stats.since = now;
}

/* A look for `nnodes` nodes (another count: afresh); false out of memory. */
static bool look_for(size_t nnodes)
{
	if (lk && look_nodes(lk) == nnodes)
		return true;
	look_destroy(lk);
	walked_at = stamp_seen = whole_done_at = 0;
	look_changed_clear();
	changed_walking = changed_read = false;
	look_walk_stop();
	walking = false;
	look_cands_clear();
	return (lk = look_create(nnodes, LOOK_REQUESTS)) != NULL;
}

static bool job_gone(uint32_t job_id, void *arg)
{
	(void)arg;
	return !find_job_record(job_id);
}

/* A set the look gave `job_ptr` taken back (freed: the job has none
 * again), when Slurm's own is empty; true when it was. */
static bool set_take_back(job_record_t *job_ptr)
{
	__typeof__(job_ptr->details) details = job_ptr->details;

	if (!details || !look_job_given(lk, job_ptr->job_id))
		return false;
	if (records_own_empty(details->exc_nodes, details->req_nodes,
			      details->req_node_bitmap))
		FREE_NULL_BITMAP(details->exc_node_bitmap);
	look_job_set_given(lk, job_ptr->job_id, false);
	stats.freed++;
	return true;
}

/* A job the look no longer carries (no request, an invalid one, no room
 * for it): what it set taken back, the job forgotten. */
static void job_drop(job_record_t *job_ptr)
{
	__typeof__(job_ptr->details) details = job_ptr->details;
	uint64_t *bits;

	if (!look_job_kept(lk, job_ptr->job_id))
		return; /* (most jobs: none with a request) */
	if (details->exc_node_bitmap &&
	    (bits = records_words(details->exc_node_bitmap,
				  node_record_count)) &&
	    look_job_restore(lk, job_ptr->job_id, bits,
			     records_rebuilt_from(details->exc_nodes,
						  details->req_nodes,
						  details->min_nodes)))
		touched = true; /* nodes given back: as a job update */
	touched |= set_take_back(job_ptr);
	look_job_forget(lk, job_ptr->job_id);
}

/* What one job's texts cost to read, in budget units. */
static size_t texts_cost(const job_record_t *job_ptr)
{
	__typeof__(job_ptr->details) details = job_ptr->details;
	size_t n = 0;

	if (details->exc_nodes)
		n += strlen(details->exc_nodes);
	if (details->req_nodes)
		n += strlen(details->req_nodes);
	if (job_ptr->admin_comment)
		n += strlen(job_ptr->admin_comment);
	return 1 + n / 64;
}

/* Where Slurm filters by the request itself: the nodes the guard kept
 * waiting job `job_ptr` off for a preference's tier (its state `st`; NULL:
 * no request) go back once, at this hold's clock, it picks none (the
 * wait over, the tiers or the request dropped): backfill plans by the
 * job's own set and places with a copy, so its placements never take
 * them back (guard.h).  A job whose wait ends later is listed among the
 * walk's dues, whose end queues a pass of the main scheduler, whose
 * placement takes them back. */
static void tier_bits_back(job_record_t *job_ptr, const struct sx_job_state *st)
{
	__typeof__(job_ptr->details) details = job_ptr->details;

	if (!details->exc_node_bitmap ||
	    (st && guard_tiers_apply(st, details->begin_time, hold_now, true)))
		return;
	if (guard_slurm_hand_over(job_ptr,
				  records_rebuilt_from(details->exc_nodes,
						       details->req_nodes,
						       details->min_nodes)))
		touched = true;
}

/* How a walk visits a job: in a walk of every job (counted, and a
 * candidate for a set); at that walk's end, among the LOOK_SETS of the
 * highest priority (it may be given a set); in a walk of what changed
 * (its set kept in step; one that wants a set wants a whole walk). */
enum visit {
	VISIT_WHOLE,
	VISIT_SHARE,
	VISIT_CHANGED
};

/* One job: its excluded nodes as its base | its request's failing nodes,
 * visited as `how`.  *budget: the work left for this hold.  False when
 * its request's answers could not be given within it: the caller looks
 * at the job again in its next hold. */
static bool look_job(struct guard *g, job_record_t *job_ptr, size_t nnodes,
		     size_t *budget, enum visit how)
{
	bool give = how == VISIT_SHARE, whole = how == VISIT_WHOLE;
	__typeof__(job_ptr->details) details = job_ptr->details;
	struct sx_job_state st = { 0 };
	const char *text = NULL;
	struct guard_req *req;
	unsigned long long hash;
	enum look_did did;
	uint64_t *bits = NULL;
	bool fresh, own_empty, ok = true;
	size_t cost;
	int i;

	if (!details)
		goto out;
	if (!IS_JOB_PENDING(job_ptr)) {
		/* a set it gave a job that no longer waits: slurmctld
		 * packs none for it, but it is memory */
		if (look_job_kept(lk, job_ptr->job_id) &&
		    set_take_back(job_ptr))
			look_job_forget(lk, job_ptr->job_id);
		else /* (kept for a requeue; no change of Extra visits it) */
			look_job_park(lk, job_ptr->job_id);
		goto out;
	}
	cost = texts_cost(job_ptr);
	*budget -= cost < *budget ? cost : *budget;
	if (!(text = records_request_of(job_ptr, &st))) {
		if (slurm_filters)
			tier_bits_back(job_ptr, NULL);
		job_drop(job_ptr);
		goto out;
	}
	if (slurm_filters) { /* Slurm's to apply */
		tier_bits_back(job_ptr, &st);
		goto out;
	}
	if ((i = look_req_seen(lk, text, &fresh)) < 0) {
		say_once(
			0,
			"more distinct requests waiting than it carries: the others' jobs are kept off at their placement only");
		job_drop(job_ptr);
		goto out;
	}
	/* an invalid request (the limits shrank since) keeps nothing off;
	 * nor is a node the job requires (--nodelist) ever kept off: Slurm
	 * would take the job for never runnable (priority 0: schedule(),
	 * src/slurmctld/job_scheduler.c, 22.05.8 line 1930), where its own
	 * filter lets it wait; the guard keeps it waiting at its placement
	 * while a required node does not satisfy it */
	if (!(req = guard_request(g, text)) || details->req_node_bitmap) {
		job_drop(job_ptr);
		goto out;
	}
	if (look_req_changes(lk, i) != guard_changes(g) &&
	    (!*budget || !look_req_answer(lk, i, g, req, budget))) {
		/* its answers not given within this hold's budget: the
		 * next hold goes on from this job (the answers evaluated
		 * are kept) */
		ok = false;
		goto out;
	}
	if (details->exc_node_bitmap &&
	    !(bits = records_words(details->exc_node_bitmap, (int64_t)nnodes)))
		goto out; /* the node table being rebuilt */
	hash = records_rebuilt_from(details->exc_nodes, details->req_nodes,
				    details->min_nodes);
	own_empty = records_own_empty(details->exc_nodes, details->req_nodes,
				      details->req_node_bitmap);
	/* a set Slurm made its own, or freed, since the look gave it one
	 * (24.11 rebuilds the set at every job update) */
	if ((!own_empty || !bits) && look_job_given(lk, job_ptr->job_id))
		look_job_set_given(lk, job_ptr->job_id, false);
	guard_slurm_hand_over(job_ptr, hash);
	did = look_job_apply(lk, job_ptr->job_id, job_ptr->array_job_id, i,
			     bits, hash, own_empty);
	if (did == LOOK_NEED_SET) {
		if (!give) { /* given one at a whole walk's end */
			if (whole)
				look_cands_add(job_ptr->job_id,
					       job_ptr->priority);
			else
				want_whole = true;
			goto out;
		}
		details->exc_node_bitmap = bit_alloc(nnodes);
		bits = records_words(details->exc_node_bitmap, (int64_t)nnodes);
		look_job_set_given(lk, job_ptr->job_id, true);
		stats.set++;
		did = bits ? look_job_apply(lk, job_ptr->job_id,
					    job_ptr->array_job_id, i, bits,
					    hash, own_empty)
			   : LOOK_LEFT;
	} else if (whole && look_job_given(lk, job_ptr->job_id)) {
		/* holds one: kept if still among them */
		look_cands_add(job_ptr->job_id, job_ptr->priority);
	}
	cost = look_work(lk) / 64;
	*budget -= cost < *budget ? cost : *budget;
	touched |= did == LOOK_WRITTEN || did == LOOK_PATCHED;
	stats.written += did == LOOK_WRITTEN;
	stats.patched += did == LOOK_PATCHED;
	stats.left += did == LOOK_LEFT;
	if (did == LOOK_LEFT)
		say_once(
			1,
			"a job's excluded nodes too scattered to keep their base: it is kept off at its placement only");
out:
	/* counted once a walk, for the caps (look_census.h: where Slurm
	 * filters, the jobs with preferences alone, which the guard keeps),
	 * and the end of its preferences' wait followed (look_dues.h) */
	if (text && ok && whole) {
		look_leftover_add(job_ptr, &st);
		if (!slurm_filters || st.n_prefer)
			look_census_add(job_ptr->user_id, text, &st);
		if (st.n_prefer)
			look_dues_add(job_ptr->job_id, st.wait,
				      details->begin_time,
				      job_ptr->last_sched_eval);
	}
	sx_job_state_free(&st);
	return ok;
}

/* The walk's end: the LOOK_SETS jobs of the highest priority among those
 * that would take a set or hold one get one, within what is left of the
 * hold's budget (*budget), the others' are taken back. */
static void sets_share(struct guard *g, size_t nnodes, size_t *budget)
{
	size_t ncands;
	const struct look_cand *cands = look_cands_sorted(LOOK_SETS, &ncands);

	for (size_t k = 0; k < ncands; k++) {
		job_record_t *job_ptr = find_job_record(cands[k].job_id);

		if (!job_ptr || !IS_JOB_PENDING(job_ptr))
			continue;
		if (k >= LOOK_SETS) {
			if (set_take_back(job_ptr))
				touched = true;
			continue;
		}
		/* (past the hold's budget or time: the next walk, soon) */
		if (!look_job_given(lk, job_ptr->job_id) &&
		    (!*budget || ns_now() - hold_t0 > LOOK_SHARE_UNTIL_NS ||
		     !look_job(g, job_ptr, nnodes, budget, VISIT_SHARE)))
			again = true;
	}
	if (ncands > LOOK_SETS)
		say_once(
			4,
			"more waiting jobs with a request and no excluded nodes than it gives sets to: those of the lowest priority are kept off at their placement only");
	look_cands_clear();
}

const uint64_t *look_slurm_base(struct job_record *job_ptr,
				unsigned long long text_hash)
{
	__typeof__(job_ptr->details) details = job_ptr->details;
	uint64_t *bits;

	if (!lk || !details || !details->exc_node_bitmap ||
	    look_nodes(lk) != (size_t)node_record_count ||
	    !(bits = records_words(details->exc_node_bitmap,
				   node_record_count)))
		return NULL;
	return look_job_base(lk, job_ptr->job_id, bits, text_hash);
}

/* look_due_eligible_fn: a listed job's EligibleTime now (the job write
 * lock held). */
static time_t eligible_of(uint32_t job_id, void *arg)
{
	job_record_t *job_ptr = find_job_record(job_id);

	(void)arg;
	if (!job_ptr || !IS_JOB_PENDING(job_ptr) || !job_ptr->details)
		return -1;
	return job_ptr->details->begin_time;
}

/* The end of a walk of what changed, or of a change with nothing to
 * visit: the line tests/cluster/load.sh reads after a change of the
 * nodes' Extra, and a job's set written told as a job update is. */
static void changed_end(time_t now)
{
	changed_walking = false;
	if (changed_read)
		verbose("%s: the look walked after a change of the nodes' Extra: %zu jobs, %zu requests kept; library objects live: %ld",
			plugin_type, look_jobs_kept(lk), look_requests_kept(lk),
			xc_live_objects());
	changed_read = false;
	if (touched) { /* as at a whole walk's end */
		if (now > last_job_update)
			last_job_update = now;
		queue_job_scheduler();
		touched = false;
	}
}

/* A walk of what changed, between walks of every job (look_changed.h):
 * the jobs queued as made or changed, and after a change any look found
 * (a placement's too) the jobs the look carries, listed once the last
 * such list is done, within the hold's budget and time (*budget, from
 * `t0`), going on in the next hold from where it stopped.  `moved`: the
 * job stamp moved since the last walk of every job began.  True when
 * work is left. */
static bool changed_walk(struct guard *g, size_t nnodes, time_t now,
			 uint64_t t0, size_t *budget, bool moved)
{
	uint64_t t_jobs;
	uint32_t id;

	if (look_changed_list_due(guard_changes(g), changes_seen)) {
		if (look_changed_carry(lk) < 0) { /* every job instead */
			say_once(
				3,
				"out of memory listing the jobs it carries: it walks every job");
			again = true;
			return true;
		}
		changed_read = true;
		changes_seen = guard_changes(g);
	}
	if (!look_changed_next()) {
		changed_end(now); /* (a change with nothing to visit) */
		/* (the count holds only where no job changed since) */
		if (!moved && !want_whole)
			look_census_still(now);
		return look_reading();
	}
	if (!changed_walking) {
		changed_walking = true;
		changed_began = now;
		stats.short_walks++;
	}
	/* (one under way this long, the queue's pieces ahead of its list:
	 * a walk of every job takes it over) */
	if (now - changed_began >= LOOK_WHOLE_EVERY_S || now < changed_began)
		want_whole = true;
	t_jobs = ns_now();
	for (size_t k = 0; *budget && (id = look_changed_next()) &&
			   (!k++ || ns_now() - t0 < LOOK_HOLD_NS ||
			    ns_now() - t_jobs < LOOK_JOBS_MIN_NS);) {
		job_record_t *job_ptr = find_job_record(id);

		/* (a job gone since: forgotten by the sweep) */
		if (job_ptr &&
		    !look_job(g, job_ptr, nnodes, budget, VISIT_CHANGED))
			break; /* this job again, in the next hold */
		look_changed_visited();
		stats.short_jobs++;
	}
	stats.jobs_kept = look_jobs_kept(lk);
	stats.requests_kept = look_requests_kept(lk);
	stats.cols_answered = guard_cols_evaluated(g);
	if (look_changed_next())
		return true;
	changed_end(now);
	/* (a change met during the list: the next list at once) */
	return guard_changes(g) != changes_seen || look_reading();
}

/* One hold of the locks: true when work is left (a walk cut short, or
 * one to do again). */
bool look_slurm_hold(time_t now, uint64_t t0)
{
	uint64_t t_jobs;
	bool done = false;
	struct guard *g = guard_slurm_guard();
	size_t nnodes = (size_t)node_record_count, budget = LOOK_BUDGET;
	enum guard_look look;
	job_record_t *job_ptr;

	/* where Slurm filters by the request itself, the look keeps no
	 * job's excluded nodes (and reads the nodes' Extra only for the
	 * preferences' placements, below): it follows the
	 * preferences' ends, counts for the caps and gives back what a
	 * thread wrote; and only with the guard alone, as the guard */
	slurm_filters = records_slurm_filters();
	hold_now = now;
	hold_t0 = t0;
	if (!g || !nnodes || !job_list ||
	    (slurm_filters && !guard_slurm_alone()))
		return false;
	if (!look_for(nnodes)) {
		say_once(
			2,
			"out of memory: jobs are kept off at their placement only");
		return false;
	}
	/* (where Slurm filters, only while its last walk found a job whose
	 * preferences' wait lasts: the guard's placements of those then
	 * find the nodes read) */
	look = slurm_filters && !look_dues_count()
		       ? GUARD_LOOK_NONE
		       : guard_look_needed(g, nnodes, last_node_update, now,
					   records_extra_unstamped);
	if (look != GUARD_LOOK_NONE || look_reading()) {
		uint64_t t_read = ns_now();

		if (!look_read_nodes(g, nnodes, look, now)) {
			say_once(3, "out of memory reading the nodes' Extra");
			return false;
		}
		t_read = ns_now() - t_read;
		if (t_read > stats.read_ns_max)
			stats.read_ns_max = t_read;
	}
	/* a preference's wait ended: the job goes by its request alone from
	 * now, which no update tells Slurm's scheduler */
	if (look_dues_due(now, eligible_of, NULL, &budget)) {
		stats.ended++;
		queue_job_scheduler();
	}
	/* a walk of every job begins on Slurm's job stamp moved since the
	 * last one began (in seconds: look_jobs_changed()), on a job met
	 * since that wants a set, or on the queue's overflow, at most once
	 * in LOOK_WHOLE_EVERY_S; at once before the first and on work left
	 * (look_whole_due()).  Between, a walk of what changed */
	if (!walking) {
		bool moved;

		want_whole |= look_changed_take();
		moved = look_jobs_changed(last_job_update, stamp_seen,
					  walked_at, now);
		if (!look_whole_due(want_whole || moved, again, whole_done_at,
				    now))
			return changed_walk(g, nnodes, now, t0, &budget, moved);
		look_walk_stop();
		walking = true;
		/* (`touched`: what a walk cut short wrote, told at this
		 * one's end) */
		again = want_whole = false;
		/* (it meets them all) */
		look_changed_clear();
		changed_walking = false;
		look_queue_clear();
		look_cands_clear();
		walked_at = now;
		stamp_seen = last_job_update;
		/* (a change a walk of what changed listed: told at this
		 * one's end) */
		walk_read = changes_seen != guard_changes(g) || changed_read;
		changed_read = false;
		changes_seen = guard_changes(g);
		look_round(lk, ++round_no);
		look_census_begin(now);
		look_dues_begin();
		look_leftover_begin();
	}
	/* (some LOOK_JOBS_MIN_NS at least, however long what came before
	 * took: a read of the nodes under way must not stall the walk) */
	t_jobs = ns_now();
	for (size_t k = 0; budget && (!k++ || ns_now() - t0 < LOOK_HOLD_NS ||
				      ns_now() - t_jobs < LOOK_JOBS_MIN_NS);) {
		if (!(job_ptr = look_walk_next())) {
			done = true;
			break;
		}
		if (!look_job(g, job_ptr, nnodes, &budget, VISIT_WHOLE)) {
			look_walk_again(job_ptr->job_id); /* next hold */
			break;
		}
	}
	stats.jobs_kept = look_jobs_kept(lk);
	stats.requests_kept = look_requests_kept(lk);
	stats.cols_answered = guard_cols_evaluated(g);
	if (!done)
		return true;
	if (look_walk_lost()) { /* (not a whole walk: none of it counts) */
		look_walk_stop();
		walking = false;
		look_census_fail();
		look_dues_fail();
		again = true;
		return true;
	}
	look_walk_stop();
	walking = false;
	look_census_end();
	look_dues_end();
	touched |= look_leftover_give(); /* what a switch left */
	/* what the library holds in slurmctld for burst_buffer/extra after
	 * a walk that followed a change of the nodes' Extra (as the
	 * thread's node table says it: tests/cluster/load.sh reads it) */
	if (walk_read)
		verbose("%s: the look walked after a change of the nodes' Extra: %zu jobs, %zu requests kept; library objects live: %ld",
			plugin_type, stats.jobs_kept, stats.requests_kept,
			xc_live_objects());
	sets_share(g, nnodes, &budget);
	/* a job's excluded nodes changed, as by a job update: backfill
	 * plans again (its _more_work() reads the stamp; raised, never
	 * lowered), and the main scheduler tries the jobs */
	if (touched) {
		if (now > last_job_update)
			last_job_update = now;
		queue_job_scheduler();
		touched = false;
	}
	if (++walks % LOOK_SWEEP_EVERY == 0)
		(void)look_sweep(lk, job_gone, NULL);
	stats.walks++;
	whole_done_at = now;
	return again || look_reading();
}

void look_slurm_held(uint64_t ns, uint64_t cpu_ns, time_t now)
{
	stats.holds++;
	stats.ns += ns;
	stats.cpu_ns += cpu_ns;
	if (ns > stats.ns_max) {
		stats.ns_max = ns;
		stats.cpu_of_max = cpu_ns;
	}
	stats_log(now);
}

void look_slurm_begin(void)
{
	/* (the thread that did not stop exits when it gets the locks,
	 * touching nothing) */
	look_walk_forget();
	look_slurm_release();
	changes_seen = 0;
	walked_at = stamp_seen = whole_done_at = 0;
	again = false;
}

void look_slurm_release(void)
{
	look_destroy(lk);
	lk = NULL;
	look_changed_free();
	changed_walking = changed_read = want_whole = false;
	look_cands_free();
	look_walk_stop();
	walking = false;
	look_read_free();
	look_cols_free();
	look_dues_free();
}
