/*
 * look.h - the look: each waiting job's excluded nodes kept in step with
 * its request between placements, inside slurmctld (doc/guard.md "The
 * look"), without Slurm's headers.
 *
 * The guard (guard.h) makes a placement exact, but Slurm reads a job's
 * excluded nodes elsewhere too: backfill plans every job it reaches with
 * them (src/plugins/sched/backfill/backfill.c, 22.05.8 line 2438, before
 * any burst buffer call), and the main scheduler only reaches a job its
 * partition's queue lets it reach.  So a thread of the guard's plugin
 * looks, once a round, at which nodes' answers changed for each request
 * kept (`fail`: the nodes whose Extra does not satisfy it, over every
 * node) and sets each waiting job's excluded nodes to
 *
 *     base | fail(request)
 *
 * where `base` is what Slurm itself made of them (rebuilt from the
 * ExcNodeList text, and from 24.11 the complement of the required nodes:
 * src/slurmctld/job_mgr.c).  What it keeps per job is that base (runs of
 * nodes, most often none), the version of the request's answers last
 * applied, a hash of what Slurm rebuilds the set from, and one node it
 * set that the base does not hold (the sentinel): Slurm rebuilding the
 * set (a job update, a restart) clears it, and then the set as found is
 * the new base.  A copy of the set (backfill's, an array task's) keeps
 * it.  A round patches only the nodes whose answer changed since the
 * version the job has (a log per request), so its cost follows what
 * changed; past the log, the whole set is written again.
 *
 * Not thread-safe: the caller serializes (slurmctld's job write lock).
 */
#ifndef SLURM_EXTRA_LOOK_H
#define SLURM_EXTRA_LOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A request's changed nodes remembered for the jobs behind it: a job
 * older than these gets its whole set written again. */
#define LOOK_LOG 256
/* A base of more runs than this is kept whole (a copy of the words), for
 * at most LOOK_MAX_DENSE jobs; past them a job is left as Slurm keeps it
 * (the guard still decides its placements), said by look_job_apply(). */
#define LOOK_MAX_RUNS 64
#define LOOK_MAX_DENSE 1024

struct look;

/* A new look over `nnodes` nodes, keeping at most `max_requests` requests
 * (each nnodes/8 bytes of answers).  NULL when out of memory. */
struct look *look_create(size_t nnodes, size_t max_requests);

/* Frees it all; accepts NULL. */
void look_destroy(struct look *lk);

/* The node count it was made for. */
size_t look_nodes(const struct look *lk);

/* Whether the jobs may have changed since the last walk began (doc/guard.md
 * "The look"), by Slurm's stamp of the job table, last_job_update
 * (seconds): set by every submission, update, start and end, by the
 * main scheduler's and backfill's passes (src/slurmctld/job_scheduler.c,
 * 22.05.8 line 591; src/plugins/sched/backfill/backfill.c lines 2586,
 * 2629) and by the look's own writes, and not only forward: backfill
 * writes a second it read before yielding the locks (backfill.c lines
 * 2001, 2006).  `stamp` is it now, `seen` what it was when the last walk
 * began, `walked_at` the second that walk began (0 and 0: none yet),
 * `now` the second.  A stamp that moved either way: a change since.  A
 * stamp unmoved in that walk's own second may hide a change after the
 * walk began: one walk once the second has passed settles it (a walk
 * within the second would meet the same doubt, and so walk again and
 * again while the second lasts).  A clock set back behind the walk: a
 * walk. */
bool look_jobs_changed(long long stamp, long long seen, long long walked_at,
		       long long now);

/* A walk of every job follows the job stamp (look_jobs_changed()) at most
 * once in this many seconds: between, the look visits only the jobs
 * queued as made or changed (look_queue.h) and, after a change of the
 * nodes' Extra, the jobs it carries (look_jobs_carried()). */
#define LOOK_WHOLE_EVERY_S 5

/* Whether a walk of every job begins now (doc/guard.md "The look"):
 * `wanted` (the jobs may have changed by the stamp, the queue overflowed,
 * a job visited since wants a set) and at least LOOK_WHOLE_EVERY_S after
 * the last one ended at `whole_at` (seconds; 0: none yet, which begins
 * one at once: counted from its end, so that walks of what changed run
 * between walks of every job however long those take), or a clock set
 * back behind it.  `again` (a walk's work
 * left: sets not given within its hold, a walk not whole) begins one at
 * once. */
bool look_whole_due(bool wanted, bool again, long long whole_at, long long now);

/* The jobs kept whose set may hold the look's nodes (it applied a
 * request's answers to them, or gave them their set): what a change of
 * the nodes' Extra may make it write.  Up to `cap` ids into `ids`;
 * returns how many there are (more than `cap`: the caller asks again
 * with room for them).  Their order is the table's. */
size_t look_jobs_carried(const struct look *lk, uint32_t *ids, size_t cap);

/* Starts round `round` (any number that differs from the last one's):
 * the requests met in it are the ones look_req_seen() says are fresh. */
void look_round(struct look *lk, uint64_t round);

/* The request `text` (NUL-terminated) in this round: its index (>= 0),
 * with *fresh true the first time this round (the caller then gives its
 * answers with look_req_update()); -1 when no more requests can be kept
 * (max_requests) or out of memory. */
int look_req_seen(struct look *lk, const char *text, bool *fresh);

/* The answers of request `req` now: `fail` (words over the node count:
 * the nodes whose Extra does not satisfy it), for the nodes of `which`
 * (words; NULL: every node), the others' kept.  Changed nodes are logged
 * for the jobs behind it.  `changes`: the caller's count of node changes
 * these answers follow (guard_changes()), for look_req_changes().
 * Returns how many nodes changed. */
size_t look_req_update(struct look *lk, int req, const uint64_t *which,
		       const uint64_t *fail, uint64_t changes);

/* The count of node changes request `req`'s answers follow (0 for a
 * request new to the look: none given yet). */
uint64_t look_req_changes(const struct look *lk, int req);

struct guard;
struct guard_req;

/* Request `req`'s answers brought up to the node changes guard `g` found
 * (guard.h, whose request `r` it is: guard_request() of the same text):
 * nothing when they follow them already (look_req_changes()); else a
 * verdict on the nodes changed since (guard_changed_since()), or on every
 * node for a request new to the look or past the guard's log, at most
 * *budget answers evaluated (guard_verdict_within()).  False when the
 * budget ran out: the answers stay as they were, and the jobs behind
 * the request must wait for a call that succeeds. */
bool look_req_answer(struct look *lk, int req, struct guard *g,
		     struct guard_req *r, size_t *budget);

/* What look_job_apply() did. */
enum look_did {
	LOOK_SAME,     /* nothing to write */
	LOOK_PATCHED,  /* the nodes changed since its version */
	LOOK_WRITTEN,  /* the whole set written */
	LOOK_LEFT,     /* left as Slurm keeps it (no room for its base) */
	LOOK_NEED_SET, /* `bits` is NULL and there is something to set: the
			  caller gives it an empty set and calls again */
};

/* Sets job `job_id`'s excluded nodes `bits` (words over the node count,
 * NULL when Slurm keeps none) to its base | the answers of request `req`
 * (look_req_seen() this round).  `text`: a hash of what Slurm rebuilds
 * the set from; `own_empty`: what it rebuilds it from is empty (no
 * ExcNodeList, from 24.11 no required nodes either), so the base is
 * none whatever the set holds (the look's or the guard's bits in a copy
 * are never taken for Slurm's); `alt_id`: the array's job id (0: none),
 * whose base a new task whose set is a copy takes.  Never clears a node
 * of the base. */
enum look_did look_job_apply(struct look *lk, uint32_t job_id, uint32_t alt_id,
			     int req, uint64_t *bits, unsigned long long text,
			     bool own_empty);

/* Job `job_id`'s base (words, the look's own: good until the next call
 * into the look) when `bits` still hold the look's nodes as it left
 * them (the same `text`, its sentinel set), else NULL (the set is
 * Slurm's own, or the look sets none of it): what a placement judges by,
 * so that a job whose request no node satisfies now never meets every
 * node excluded (Slurm 22.05 then holds it, _schedule(),
 * src/slurmctld/job_scheduler.c). */
const uint64_t *look_job_base(struct look *lk, uint32_t job_id,
			      const uint64_t *bits, unsigned long long text);

/* Puts that base back into `bits`, for a job the look no longer carries
 * (no request any more); the next look_job_apply() writes the set
 * whole.  True when it did. */
bool look_job_restore(struct look *lk, uint32_t job_id, uint64_t *bits,
		      unsigned long long text);

/* Whether job `job_id` is kept (look_job_apply() met it, and it was not
 * forgotten since). */
bool look_job_kept(struct look *lk, uint32_t job_id);

/* Whether job `job_id`'s set is one the caller gave it for the look
 * (LOOK_NEED_SET): look_job_set_given() after giving it; with `given`
 * false, after taking it away (freed: the job has none again, nothing of
 * the look's).  Nothing for a job not kept. */
bool look_job_given(struct look *lk, uint32_t job_id);
void look_job_set_given(struct look *lk, uint32_t job_id, bool given);

/* Job `job_id` no longer waits (it runs, or ended): kept (its base and
 * the node it set, so that a requeued job's set is told from Slurm's)
 * but no longer carried (look_jobs_carried()); the next
 * look_job_apply() writes its set whole.  Nothing when not kept. */
void look_job_park(struct look *lk, uint32_t job_id);

/* Forgets job `job_id` (its base); nothing when not kept. */
void look_job_forget(struct look *lk, uint32_t job_id);

/* Forgets every job for which gone(job_id, arg) is true (its record is
 * gone: a requeued job keeps its set, so it is kept while it runs).
 * Returns how many were forgotten. */
size_t look_sweep(struct look *lk, bool (*gone)(uint32_t, void *), void *arg);

/* The words of node sets read or written since the last call (a set
 * written whole, a node looked for that the base does not hold), for the
 * caller's account of a hold's work. */
size_t look_work(struct look *lk);

/* How many jobs and requests are kept; the jobs whose base is kept
 * whole. */
size_t look_jobs_kept(const struct look *lk);
size_t look_requests_kept(const struct look *lk);
size_t look_dense_kept(const struct look *lk);

#endif
