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
#include "look_visit.h"
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
/* the distinct requests the look carries: half the guard's table */
#define LOOK_REQUESTS (GUARD_MAX_REQUESTS / 2)
#define LOOK_SWEEP_EVERY 20 /* walks */
#define STATS_EVERY_S 60

/* (the thread's own; shared with placements only under the job lock;
 * the state a job's visit shares: look_visit.h) */
static uint64_t round_no, walks, changes_seen;
static time_t walked_at, stamp_seen; /* the last whole walk's start, and
					 last_job_update then */
static time_t whole_done_at;	     /* and its end (0: none yet) */
static bool walking;
/* the walk under way began after a change of the nodes' Extra */
static bool walk_read;
/* a walk of what changed is under way; it began after a change of the
 * nodes' Extra */
static bool changed_walking, changed_read;
static time_t changed_began; /* when the one under way began */
static struct {
	uint64_t holds, walks, short_walks, short_jobs, ns, cpu_ns, ns_max,
		cpu_of_max, read_ns_max, ended;
	/* as the last hold left them */
	size_t jobs_kept, requests_kept, cols_answered;
	time_t since;
} stats;

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
			(double)stats.read_ns_max / 1e6, look_tally.written,
			look_tally.patched, look_tally.set, look_tally.freed,
			look_tally.left, stats.jobs_kept, stats.requests_kept,
			stats.ended, look_dues_count(), look_cols_installs(),
			stats.cols_answered);
	memset(&stats, 0, sizeof(stats));
	memset(&look_tally, 0, sizeof(look_tally));
	stats.since = now;
}

/* A look for `nnodes` nodes (another count: afresh); false out of memory. */
static bool look_for(size_t nnodes)
{
	if (look_lk && look_nodes(look_lk) == nnodes)
		return true;
	look_destroy(look_lk);
	walked_at = stamp_seen = whole_done_at = 0;
	look_changed_clear();
	changed_walking = changed_read = false;
	look_walk_stop();
	walking = false;
	look_cands_clear();
	return (look_lk = look_create(nnodes, LOOK_REQUESTS)) != NULL;
}

static bool job_gone(uint32_t job_id, void *arg)
{
	(void)arg;
	return !find_job_record(job_id);
}

const uint64_t *look_slurm_base(struct job_record *job_ptr,
				unsigned long long text_hash)
{
	__typeof__(job_ptr->details) details = job_ptr->details;
	uint64_t *bits;

	if (!look_lk || !details || !details->exc_node_bitmap ||
	    look_nodes(look_lk) != (size_t)node_record_count ||
	    !(bits = records_words(details->exc_node_bitmap,
				   node_record_count)))
		return NULL;
	return look_job_base(look_lk, job_ptr->job_id, bits, text_hash);
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

/* What the hold leaves kept, for the minute's line. */
static void stats_kept(struct guard *g)
{
	stats.jobs_kept = look_jobs_kept(look_lk);
	stats.requests_kept = look_requests_kept(look_lk);
	stats.cols_answered = guard_cols_evaluated(g);
}

/* What the library holds in slurmctld for burst_buffer/extra after a
 * walk that followed a change of the nodes' Extra (as the thread's node
 * table says it: tests/cluster/load.sh reads it). */
static void say_walked_after_change(void)
{
	verbose("%s: the look walked after a change of the nodes' Extra: %zu jobs, %zu requests kept; library objects live: %ld",
		plugin_type, look_jobs_kept(look_lk),
		look_requests_kept(look_lk), xc_live_objects());
}

/* A job's excluded nodes changed, as by a job update: backfill plans
 * again (its _more_work() reads the stamp; raised, never lowered), and
 * the main scheduler tries the jobs; told once. */
static void tell_touched(time_t now)
{
	if (!look_touched)
		return;
	if (now > last_job_update)
		last_job_update = now;
	queue_job_scheduler();
	look_touched = false;
}

/* The end of a walk of what changed, or of a change with nothing to
 * visit. */
static void changed_end(time_t now)
{
	changed_walking = false;
	if (changed_read)
		say_walked_after_change();
	changed_read = false;
	tell_touched(now);
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
		if (look_changed_carry(look_lk) < 0) { /* every job instead */
			look_say_once(
				3,
				"out of memory listing the jobs it carries: it walks every job");
			look_again = true;
			return true;
		}
		changed_read = true;
		changes_seen = guard_changes(g);
	}
	if (!look_changed_next()) {
		changed_end(now); /* (a change with nothing to visit) */
		/* (the count holds only where no job changed since) */
		if (!moved && !look_want_whole)
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
		look_want_whole = true;
	t_jobs = ns_now();
	for (size_t k = 0; *budget && (id = look_changed_next()) &&
			   (!k++ || ns_now() - t0 < LOOK_HOLD_NS ||
			    ns_now() - t_jobs < LOOK_JOBS_MIN_NS);) {
		job_record_t *job_ptr = find_job_record(id);

		/* (a job gone since: forgotten by the sweep) */
		if (job_ptr &&
		    !look_visit(g, job_ptr, nnodes, budget, LOOK_VISIT_CHANGED))
			break; /* this job look_again, in the next hold */
		look_changed_visited();
		stats.short_jobs++;
	}
	stats_kept(g);
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
	look_slurm_filters = records_slurm_filters();
	look_hold_now = now;
	look_hold_t0 = t0;
	if (!g || !nnodes || !job_list ||
	    (look_slurm_filters && !guard_slurm_alone()))
		return false;
	if (!look_for(nnodes)) {
		look_say_once(
			2,
			"out of memory: jobs are kept off at their placement only");
		return false;
	}
	/* (where Slurm filters, only while its last walk found a job whose
	 * preferences' wait lasts: the guard's placements of those then
	 * find the nodes read) */
	look = look_slurm_filters && !look_dues_count()
		       ? GUARD_LOOK_NONE
		       : guard_look_needed(g, nnodes, last_node_update, now,
					   records_extra_unstamped);
	if (look != GUARD_LOOK_NONE || look_reading()) {
		uint64_t t_read = ns_now();

		if (!look_read_nodes(g, nnodes, look, now)) {
			look_say_once(3,
				      "out of memory reading the nodes' Extra");
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

		look_want_whole |= look_changed_take();
		moved = look_jobs_changed(last_job_update, stamp_seen,
					  walked_at, now);
		if (!look_whole_due(look_want_whole || moved, look_again,
				    whole_done_at, now))
			return changed_walk(g, nnodes, now, t0, &budget, moved);
		look_walk_stop();
		walking = true;
		/* (`look_touched`: what a walk cut short wrote, told at this
		 * one's end) */
		look_again = look_want_whole = false;
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
		look_round(look_lk, ++round_no);
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
		if (!look_visit(g, job_ptr, nnodes, &budget,
				LOOK_VISIT_WHOLE)) {
			look_walk_again(job_ptr->job_id); /* next hold */
			break;
		}
	}
	stats_kept(g);
	if (!done)
		return true;
	if (look_walk_lost()) { /* (not a whole walk: none of it counts) */
		look_walk_stop();
		walking = false;
		look_census_fail();
		look_dues_fail();
		look_again = true;
		return true;
	}
	look_walk_stop();
	walking = false;
	look_census_end();
	look_dues_end();
	look_touched |= look_leftover_give(); /* what a switch left */
	if (walk_read)
		say_walked_after_change();
	look_sets_share(g, nnodes, &budget);
	tell_touched(now);
	if (++walks % LOOK_SWEEP_EVERY == 0)
		(void)look_sweep(look_lk, job_gone, NULL);
	stats.walks++;
	whole_done_at = now;
	return look_again || look_reading();
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
	look_again = false;
}

void look_slurm_release(void)
{
	look_destroy(look_lk);
	look_lk = NULL;
	look_changed_free();
	changed_walking = changed_read = look_want_whole = false;
	look_cands_free();
	look_walk_stop();
	walking = false;
	look_read_free();
	look_cols_free();
	look_dues_free();
}
