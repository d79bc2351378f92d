/*
 * look_slurm.c - the look in slurmctld (look.h; doc/design.md "The
 * look"): a thread of burst_buffer/extra that, every LOOK_PERIOD_MS,
 * takes the job write and node read locks and, when a node's Extra or a
 * job changed since its last round, answers each waiting job's request
 * over every node from the guard's kept answers and sets the job's
 * excluded nodes to what Slurm made of them | the nodes that fail it.
 * Backfill's plans and the main scheduler then see the same answer the
 * guard enforces at the placement, a round after a change at most.
 *
 * What a round may cost is bounded: at most LOOK_ANSWERS answers not
 * kept are evaluated while the locks are held (a request seen for the
 * first time, a node whose Extra changed; the rest is word operations);
 * what is left goes on after the locks are let go three times as long
 * as they were held (LOOK_BREATHE_MS at least): a quarter of the time.
 * A plugin thread may take slurmctld's locks (lock_slurmctld(),
 * src/slurmctld/locks.h); fini() stops it before the guard is freed.
 */
#include "config.h" /* Slurm's, from the configured tree */

#include <inttypes.h>
#include <pthread.h>
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
#include "look.h"
#include "look_slurm.h"
#include "records.h"

extern const char plugin_type[]; /* burst_buffer_extra.c's */

#define LOOK_PERIOD_MS 500
#define LOOK_BREATHE_MS 5
/* answers not kept evaluated under one hold of the locks: about 10 ms
 * of one core at 2 leaves a request (tests/bench/bench_guard) */
#define LOOK_ANSWERS 65536
/* the distinct requests the look carries: half the guard's table, so
 * that the placements' own requests and the look's never drop each
 * other's (guard_request()) */
#define LOOK_REQUESTS (GUARD_MAX_REQUESTS / 2)
#define LOOK_SWEEP_EVERY 20 /* rounds */
#define STATS_EVERY_S 60

static pthread_t thread;
static bool running, stopping;
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;

/* (the thread's own; guard state only under slurmctld's locks) */
static struct look *lk;
static uint64_t round_no;
static time_t walked_at;
static uint64_t changes_seen;
static bool pending_work, said[4];

static struct {
	uint64_t rounds, holds, ns, ns_max, written, patched, left, set;
	time_t since;
} stats;

static uint64_t ns_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

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
		verbose("%s: the look: %" PRIu64 " rounds, %" PRIu64
			" holds of the job write and node read locks in %ld s, %.2f ms each on average, %.2f ms at most; jobs' excluded nodes written whole %" PRIu64
			", patched %" PRIu64 ", given a set %" PRIu64
			", left to Slurm %" PRIu64
			"; %zu jobs, %zu requests kept",
			plugin_type, stats.rounds, stats.holds,
			(long)(now - stats.since),
			(double)stats.ns / 1e6 / (double)stats.holds,
			(double)stats.ns_max / 1e6, stats.written,
			stats.patched, stats.set, stats.left,
			lk ? look_jobs_kept(lk) : 0,
			lk ? look_requests_kept(lk) : 0);
	memset(&stats, 0, sizeof(stats));
	stats.since = now;
}

/* A look for `nnodes` nodes (another count: afresh); false out of memory. */
static bool look_for(size_t nnodes)
{
	if (lk && look_nodes(lk) == nnodes)
		return true;
	look_destroy(lk);
	walked_at = 0;
	return (lk = look_create(nnodes, LOOK_REQUESTS)) != NULL;
}

static bool job_gone(uint32_t job_id, void *arg)
{
	(void)arg;
	return !find_job_record(job_id);
}

/* One job: its excluded nodes as its base | its request's failing
 * nodes.  *budget: the answers left for this hold; false when it ran out
 * (the job and the rest wait for the next hold).  *touched: set when its
 * set was written. */
static bool look_job(struct guard *g, job_record_t *job_ptr, size_t nnodes,
		     size_t *budget, bool *touched)
{
	__typeof__(job_ptr->details) details = job_ptr->details;
	struct sx_job_state st = { 0 };
	const char *text;
	struct guard_req *req;
	unsigned long long hash;
	enum look_did did;
	uint64_t *bits = NULL;
	bool fresh, ok = true;
	int i;

	if (!IS_JOB_PENDING(job_ptr) || !details)
		goto out;
	if (!(text = records_request_of(job_ptr, &st))) {
		/* no request (any more): what the look set is taken back */
		look_slurm_restore(job_ptr);
		look_job_forget(lk, job_ptr->job_id);
		goto out;
	}
	if ((i = look_req_seen(lk, text, &fresh)) < 0) {
		say_once(
			0,
			"more distinct requests waiting than it carries: the others' jobs are kept off at their placement only");
		goto out;
	}
	/* an invalid request (the limits shrank since) keeps nothing off */
	if (!(req = guard_request(g, text))) {
		look_slurm_restore(job_ptr);
		look_job_forget(lk, job_ptr->job_id);
		goto out;
	}
	if (look_req_changes(lk, i) != guard_changes(g) &&
	    (!fresh || !look_req_answer(lk, i, g, req, budget))) {
		/* its answers not given in this hold: the job waits for
		 * the next (it keeps what it has: a node that has just
		 * stopped matching is kept off at the placement) */
		ok = false;
		goto out;
	}
	if (details->exc_node_bitmap &&
	    !(bits = records_words(details->exc_node_bitmap, (int64_t)nnodes)))
		goto out; /* the node table being rebuilt */
	hash = records_rebuilt_from(details->exc_nodes, details->req_nodes,
				    details->min_nodes);
	guard_slurm_hand_over(job_ptr, hash);
	did = look_job_apply(lk, job_ptr->job_id, job_ptr->array_job_id, i,
			     bits, hash);
	if (did == LOOK_NEED_SET) {
		details->exc_node_bitmap = bit_alloc(nnodes);
		bits = records_words(details->exc_node_bitmap, (int64_t)nnodes);
		stats.set++;
		did = bits ? look_job_apply(lk, job_ptr->job_id,
					    job_ptr->array_job_id, i, bits,
					    hash)
			   : LOOK_LEFT;
	}
	*touched |= did == LOOK_WRITTEN || did == LOOK_PATCHED;
	stats.written += did == LOOK_WRITTEN;
	stats.patched += did == LOOK_PATCHED;
	stats.left += did == LOOK_LEFT;
	if (did == LOOK_LEFT)
		say_once(
			1,
			"a job's excluded nodes too scattered to keep their base: it is kept off at its placement only");
out:
	sx_job_state_free(&st);
	return ok;
}

void look_slurm_restore(struct job_record *job_ptr)
{
	__typeof__(job_ptr->details) details = job_ptr->details;
	uint64_t *bits;

	if (!lk || !details || !details->exc_node_bitmap ||
	    look_nodes(lk) != (size_t)node_record_count ||
	    !(bits = records_words(details->exc_node_bitmap,
				   node_record_count)))
		return;
	(void)look_job_restore(lk, job_ptr->job_id, bits,
			       records_rebuilt_from(details->exc_nodes,
						    details->req_nodes,
						    details->min_nodes));
}

/* One hold of the locks: false when the budget ran out (call again). */
static bool look_hold(time_t now)
{
	struct guard *g = guard_slurm_guard();
	size_t nnodes = (size_t)node_record_count, budget = LOOK_ANSWERS;
	enum guard_look look;
	long changed;
	void *it;
	job_record_t *job_ptr;
	bool done = true, touched = false;

	if (!g || !nnodes || !job_list)
		return true;
	if (!look_for(nnodes)) {
		say_once(
			2,
			"out of memory: jobs are kept off at their placement only");
		return true;
	}
	look = guard_look_needed(g, nnodes, last_node_update, now,
				 records_extra_unstamped);
	if (look != GUARD_LOOK_NONE) {
		changed = guard_look_stamps(g, nnodes, NULL, records_extra_at,
					    records_stamp_of, NULL, now,
					    look == GUARD_LOOK_REGISTERED);
		if (changed < 0) {
			say_once(3, "out of memory reading the nodes' Extra");
			return true;
		}
		if (look == GUARD_LOOK_ALL)
			guard_looked_all(g, last_node_update, now);
	}
	/* a change any look found (a placement's too), a job changed since
	 * the second of the last walk (Slurm stamps in seconds), or the last
	 * hold's work left */
	if (guard_changes(g) == changes_seen && !pending_work &&
	    last_job_update < walked_at)
		return true;
	walked_at = now;
	changes_seen = guard_changes(g);
	look_round(lk, ++round_no);
	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it)))
		if (!look_job(g, job_ptr, nnodes, &budget, &touched))
			done = false;
	list_iterator_destroy(it);
	/* a job's excluded nodes changed, as by a job update: backfill
	 * plans again (its _more_work() reads the stamp), and the main
	 * scheduler tries the jobs now */
	if (touched) {
		last_job_update = now;
		queue_job_scheduler();
	}
	if (round_no % LOOK_SWEEP_EVERY == 0)
		(void)look_sweep(lk, job_gone, NULL);
	return done;
}

static void *look_main(void *arg)
{
	slurmctld_lock_t locks = { .job = WRITE_LOCK,
				   .node = READ_LOCK,
				   .part = READ_LOCK };

	long breathe_ns = LOOK_BREATHE_MS * 1000000L;

	(void)arg;
	pthread_mutex_lock(&mutex);
	while (!stopping) {
		struct timespec until;
		uint64_t t0, ns;
		time_t now;
		bool done;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec +=
			pending_work ? breathe_ns : LOOK_PERIOD_MS * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		(void)pthread_cond_timedwait(&wake, &mutex, &until);
		if (stopping)
			break;
		pthread_mutex_unlock(&mutex);
		now = time(NULL);
		lock_slurmctld(locks);
		t0 = ns_now();
		done = look_hold(now);
		ns = ns_now() - t0;
		unlock_slurmctld(locks);
		pending_work = !done;
		/* work left: the locks let go three times as long as held,
		 * so that the look takes a quarter of them at most */
		breathe_ns = 3 * (long)ns > LOOK_BREATHE_MS * 1000000L
				     ? 3 * (long)ns
				     : LOOK_BREATHE_MS * 1000000L;
		stats.holds++;
		stats.rounds += done;
		stats.ns += ns;
		stats.ns_max = ns > stats.ns_max ? ns : stats.ns_max;
		stats_log(now);
		pthread_mutex_lock(&mutex);
	}
	pthread_mutex_unlock(&mutex);
	return NULL;
}

int look_slurm_start(void)
{
	if (running || !guard_slurm_guard())
		return SLURM_SUCCESS;
	stopping = false;
	if (pthread_create(&thread, NULL, look_main, NULL)) {
		error("%s: the look's thread could not start: jobs are kept off at their placement only",
		      plugin_type);
		return SLURM_SUCCESS;
	}
	running = true;
	return SLURM_SUCCESS;
}

void look_slurm_stop(void)
{
	if (!running)
		return;
	pthread_mutex_lock(&mutex);
	stopping = true;
	pthread_cond_signal(&wake);
	pthread_mutex_unlock(&mutex);
	pthread_join(thread, NULL);
	running = false;
	look_destroy(lk);
	lk = NULL;
}
