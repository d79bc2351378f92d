/*
 * guard.h - the guard at placement, without Slurm's headers: what it
 * keeps between placements and the decision it makes for one job
 * (doc/design.md "The guard at placement").
 *
 * slurmctld calls the burst_buffer plugin's stage-in test for every job
 * it is about to place (select_nodes(), src/slurmctld/node_scheduler.c,
 * 22.05.8 line 2407, 24.11.5 line 2635), holding the job and node write
 * locks, before it reads the job's excluded nodes.  There the guard makes
 * sure that no node the job could be given now fails the job's request as
 * the node's Extra is *now*: the thread's ExcNodeList or feature follows
 * a change a second or so later, the guard closes that window.  The
 * entry points (burst_buffer_extra.c) read Slurm's records; this part
 * keeps:
 *
 *  - each node's Extra as last read, parsed once per change of its text
 *    (compared byte for byte: Slurm frees and copies the text in place,
 *    the address alone says nothing);
 *  - each distinct request parsed once (at most GUARD_MAX_REQUESTS kept,
 *    the least recently used dropped);
 *  - per job, the nodes the guard itself added to the job's excluded
 *    nodes, so that it takes them back at the next placement (struct
 *    guard_taken below; the thread's ExcNodeList or feature keeps every
 *    other node that does not match off, so these are the nodes whose
 *    Extra changed since it last updated the job: few).
 *
 * Not thread-safe: the caller serializes (slurmctld's job write lock).
 */
#ifndef SLURM_EXTRA_GUARD_H
#define SLURM_EXTRA_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xc.h"

#define GUARD_MAX_REQUESTS 1024
#define GUARD_MAX_JOB_NODES 4096
#define GUARD_MAX_JOBS 4096

struct guard;

/* A new guard evaluating with `limits` (copied; NULL: the defaults).
 * NULL when out of memory. */
struct guard *guard_create(const xc_limits_t *limits);

/* Frees it all; accepts NULL. */
void guard_destroy(struct guard *g);

/* The parsed request of `text` (NUL-terminated), parsed once while it is
 * kept; borrowed until the next guard_request() call.  NULL for an invalid
 * request (the caller then keeps no node off, as the thread:
 * doc/design.md) or out of memory (not kept: parsed again next time). */
const xc_expr_t *guard_request(struct guard *g, const char *text);

/* Whether node `i` (slurmctld's node index, < 2^31), whose Extra is now
 * `extra` (NUL-terminated, or NULL for none), satisfies `req`.  The node's
 * text is compared with the one last read and parsed again only when it
 * differs.  Out of memory: false (the node is kept off; the next call
 * tries again). */
bool guard_node_matches(struct guard *g, const xc_expr_t *req, size_t i,
			const char *extra);

/* How the guard copies, compares and frees a job's excluded nodes (a
 * Slurm bitmap in slurmctld, anything in the tests). */
struct guard_bits_ops {
	void *(*copy)(const void *bits); /* NULL when out of memory */
	bool (*equal)(const void *a, const void *b);
	void (*free)(void *bits);
};

/* What the guard remembers of one job between placements: up to two
 * states it left the job's excluded nodes in (a copy of the bitmap, the
 * hash of the job's ExcNodeList text then) and, for each, the nodes it
 * had added.  Slurm may rebuild the bitmap from the text (from 24.11 at
 * every job update, 22.05 at an ExcNodeList update, a restart always:
 * the guard's bits are then gone with it), place the job by backfill
 * with a copy it throws away (src/plugins/sched/backfill/backfill.c
 * _start_job(): the copy holds backfill's reservations too), or give
 * an array's next record a copy of the bitmap as the guard left it.  The
 * guard takes its bits back only from a bitmap equal to one it left,
 * under the same text: nothing anyone else set is ever cleared. */
struct guard_taken {
	int slot; /* which state matched (-1: none) */
};

/* Clears from `bits` (the job's excluded nodes now; `text` a hash of
 * what Slurm rebuilds them from: the ExcNodeList text, the required
 * nodes, the node count) the nodes the guard added when it left them in
 * exactly that state, for job `job_id` or else `alt_id` (the array's
 * job id, 0 for none): through clear(bits, node, arg).  Returns how many
 * were cleared; t->slot says which state matched, for guard_job_left(). */
size_t guard_job_take_back(struct guard *g, const struct guard_bits_ops *ops,
			   uint32_t job_id, uint32_t alt_id, void *bits,
			   unsigned long long text, struct guard_taken *t,
			   void (*clear)(void *bits, uint32_t node, void *arg),
			   void *arg);

/* Whether guard_job_left() could record `n` nodes for job `job_id` now
 * (the bounds: GUARD_MAX_JOBS jobs, GUARD_MAX_JOB_NODES nodes a job).
 * The caller sets no bit it could not take back. */
bool guard_job_can_record(const struct guard *g, uint32_t job_id, size_t n);

/* Records that the guard left job `job_id`'s excluded nodes as `bits`
 * (copied), text hash `text`, having added `nodes` (n; 0 records
 * nothing and forgets the job).  At most
 * GUARD_MAX_JOBS jobs are remembered.  1 recorded, 0 not (too many jobs,
 * too many nodes: those bits stay until Slurm rebuilds the bitmap; each
 * is a node that did not satisfy the request), -1 out of memory. */
int guard_job_left(struct guard *g, const struct guard_bits_ops *ops,
		   uint32_t job_id, const struct guard_taken *t,
		   const void *bits, unsigned long long text,
		   const uint32_t *nodes, size_t n);

/* Forgets every job for which `gone(job_id, arg)` says it is no longer
 * pending, looking at no more than `max` of them from where the last call
 * stopped (bounded work a call).  Returns how many were forgotten. */
size_t guard_jobs_sweep(struct guard *g, const struct guard_bits_ops *ops,
			bool (*gone)(uint32_t, void *), void *arg, size_t max);

/* How many jobs and requests are kept (for the log and the tests). */
size_t guard_jobs_kept(const struct guard *g);
size_t guard_requests_kept(const struct guard *g);

#endif
