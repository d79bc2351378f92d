/*
 * guard.h - the guard at placement, without Slurm's headers: what it
 * keeps between placements and the decision it makes for one job
 * (doc/guard.md "The guard at placement").
 *
 * slurmctld calls the burst_buffer plugin's stage-in test for every job
 * it is about to place (select_nodes(), src/slurmctld/node_scheduler.c,
 * 22.05.8 line 2407, 24.11.5 line 2635), holding the job and node write
 * locks, before it reads the job's excluded nodes.  There the guard makes
 * sure that no node the job could be given now fails the job's request as
 * the node's Extra is *now*: the look's set of the job's excluded nodes
 * (look.h) follows a change at its next walk, the guard closes that
 * window.  The entry points (burst_buffer_extra.c) read Slurm's records; this part
 * keeps:
 *
 *  - each node's Extra as last read, parsed once per change of its text
 *    (compared byte for byte: Slurm frees and copies the text in place,
 *    the address alone says nothing), read again only when Slurm's stamp
 *    of the node table says a node may have changed (guard_look_needed());
 *  - each distinct request parsed once (at most GUARD_MAX_REQUESTS kept;
 *    past it all are dropped), with its answer for each node, kept until
 *    that node's Extra changes: a placement with nothing changed costs
 *    word operations over the node sets (tests/bench/bench_guard);
 *  - per job, the nodes the guard itself added to the job's excluded
 *    nodes, so that it takes them back at the next placement (struct
 *    guard_taken below; for a job the look keeps, its set keeps every
 *    other node that does not match off, so these are the nodes whose
 *    Extra changed since its last walk: few; for one it does not keep,
 *    every failing node, up to GUARD_MAX_JOB_NODES).
 *
 * Not thread-safe: the caller serializes (slurmctld calls the burst
 * buffer plugin under the interface's context lock, g_context_lock,
 * src/interfaces/burst_buffer.c 24.11.5, src/slurmctld/burst_buffer.c
 * 22.05.8).
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
/* Sets of nodes are words: node i is bit (i % 64) of word i / 64, as in
 * Slurm's bitstr_t past its two header words on a little-endian host
 * (src/common/bitstring.c, 22.05.8 and 24.11.5: _bit_word(), _bit_mask()). */
#define GUARD_WORDS(nnodes) (((nnodes) + 63) / 64)

struct guard;
struct guard_req; /* a request parsed, with what it said of each node */

/* A new guard evaluating with `limits` (copied; NULL: the defaults).
 * NULL when out of memory. */
struct guard *guard_create(const xc_limits_t *limits);

/* Frees it all; accepts NULL. */
void guard_destroy(struct guard *g);

/* What a placement must look at before the guard's answers hold
 * (doc/guard.md "The guard at placement", "What a placement costs"). */
enum guard_look {
	GUARD_LOOK_NONE,       /* no node's Extra can have changed */
	GUARD_LOOK_CANDIDATES, /* the job's candidate nodes */
	GUARD_LOOK_ALL,	       /* every node, then guard_looked_all() */
	GUARD_LOOK_REGISTERED, /* the job's candidate nodes whose own stamp
				  moved (guard_look_stamps(), `skip`) */
};

/* What to look at, for a node table of `nnodes` nodes whose last change
 * Slurm stamped `updated` (last_node_update: seconds, set by every
 * update_node() and every node state change), at `now` (seconds).
 * GUARD_LOOK_ALL: the first look, another node count, a new stamp, a
 * clock set back, or a look made in the stamp's own second (an update
 * later in that second left the stamp as it was) once that second has
 * passed.  GUARD_LOOK_NONE: no stamped change since a look made after
 * the stamp's second, when every change of Extra is stamped (`unstamped`
 * false: Slurm 22.05, where only update_node() and a restart set it).
 * GUARD_LOOK_CANDIDATES otherwise: within the stamp's second.  Where a
 * change of Extra may come without the table's stamp (`unstamped`: from
 * 24.11 a slurmd registration sets it, validate_node_specs(),
 * src/slurmctld/node_mgr.c 24.11.5 line 3412, with the node's own stamp,
 * its last_response, line 3645, on every path after),
 * GUARD_LOOK_REGISTERED in place of GUARD_LOOK_NONE. */
enum guard_look guard_look_needed(const struct guard *g, size_t nnodes,
				  long long updated, long long now,
				  bool unstamped);

/* Who is told of a node whose Extra jobs with a request skip (not JSON,
 * not an object, too long or too deep: xc_extra_state_t), each time a
 * look reads it changed: say(i, why, arg), `why` the state's phrase
 * (xc_extra_state_explain(), naming the limit), from the look that read
 * it: the look's thread's or a placement's (the job write lock held).
 * NULL: nobody (the default). */
void guard_on_unusable(struct guard *g,
		       void (*say)(size_t i, const char *why, void *arg),
		       void *arg);
/* The nodes one look names at most (a node table rebuilt with many
 * unusable nodes reads each again, under slurmctld's locks); past them,
 * once at the look's end, say(GUARD_UNUSABLE_MORE, "N more ...", arg). */
#define GUARD_UNUSABLE_MAX 32
#define GUARD_UNUSABLE_MORE ((size_t)-1)

/* Compares the Extra of the nodes in `which` (words over `nnodes`; NULL:
 * all of them) with the text last read: extra_of(i, arg) is node i's
 * Extra now (NUL-terminated, NULL for none).  A node whose text differs
 * (compared byte for byte: Slurm frees and copies the text, the address
 * alone says nothing) is parsed again and every request's answer for it
 * forgotten.  Another `nnodes` than the last look's starts afresh
 * (nodes, requests).  Returns how many nodes changed, or -1 when out of
 * memory (the nodes not read are kept off until read; the caller must
 * not call guard_looked_all()). */
long guard_look(struct guard *g, size_t nnodes, const uint64_t *which,
		const char *(*extra_of)(size_t i, void *arg), void *arg);

/* guard_look(), with each node's own stamp: stamp_of(i, arg), a time in
 * seconds that every change of the node's Extra not stamped in the
 * table's moves to the second it came in (NULL: none).  Each node read
 * records its stamp and `now`, the second of the look (seconds).  With
 * `skip`, a node whose stamp is as recorded and earlier than the second
 * of that read is not read: a change since would have moved it (one in
 * the read's own second could leave it as it was, so then it is read).
 * For GUARD_LOOK_REGISTERED; the other looks record the stamps, `skip`
 * false (the table's stamp covers changes the node's does not). */
long guard_look_stamps(struct guard *g, size_t nnodes, const uint64_t *which,
		       const char *(*extra_of)(size_t i, void *arg),
		       long long (*stamp_of)(size_t i, void *arg), void *arg,
		       long long now, bool skip);

/* The node changes remembered for guard_changed_since(). */
#define GUARD_CHANGE_LOG 256

/* How many node changes the looks so far found, whoever looked (a
 * placement at its candidates, the look at every node): a count that
 * only grows (another node count adds more than GUARD_CHANGE_LOG). */
uint64_t guard_changes(const struct guard *g);

/* Sets in `which` (words over the node count; not cleared first) the
 * nodes found changed since guard_changes() said `since`.  False when
 * more than GUARD_CHANGE_LOG changes came since (the log lost some):
 * every node may have changed. */
bool guard_changed_since(const struct guard *g, uint64_t since,
			 uint64_t *which);

/* How many answers (a request on a node) the guard has evaluated one by
 * one. */
size_t guard_evaluated(const struct guard *g);

/*
 * Columns (guard_cols.c; doc/guard.md "The look").  A request whose
 * answers are wanted on more nodes than it pays to evaluate one by one
 * (new to the guard, or after many nodes changed: a look's every request,
 * a placement's new request, a preference's tiers) is answered on every
 * node at once by the library's columns: some 60 times faster than one
 * by one for 3 leaves at 65,536 nodes (tests/bench/bench_look).  The guard has them once the look's
 * thread has built them:
 *
 *     lock:   c = guard_cols_copy(g)             a copy begun
 *     lock:   guard_cols_copy_more(g, c, n)      n nodes' texts copied,
 *                                                 over as many holds
 *     unlock: guard_cols_build(c)                parsed and compiled
 *     lock:   guard_cols_install(g, c)           the changes since the
 *                                                 copy began replayed
 *
 * Then they follow each node change in place while they are at most
 * GUARD_COLS_REPLAY changes behind when next used; further behind, or
 * another node count, they are dropped and built again.  The answers are
 * the same, node for node, as without them.
 */
#define GUARD_COLS_REPLAY 64
struct guard_cols_copy;

/* Under the caller's serialization: a copy of the nodes' Extra texts
 * begun (none copied yet: guard_cols_copy_more()), to build the columns
 * from outside any lock; NULL when the guard has current columns, has not
 * read every node yet (guard_looked_all()), or out of memory.  Owned by
 * the caller: guard_cols_install() or guard_cols_copy_free(). */
struct guard_cols_copy *guard_cols_copy(struct guard *g);

/* Under the caller's serialization: the texts of `n` more nodes copied
 * into `c` (each node's as last read: a node changed since the copy
 * began is replayed at the install).  1 when every node's is copied, 0
 * when more are left, -1 when `c` cannot go on (another guard or node
 * count since, out of memory): the caller frees it. */
int guard_cols_copy_more(const struct guard *g, struct guard_cols_copy *c,
			 size_t n);

/* The columns of a complete copy `c` built (every node's text parsed,
 * then compiled): no guard is read, so no lock is needed (some 0.45 s at
 * 65,536 nodes, tests/bench/bench_look).  False when out of memory or
 * `c` is not complete. */
bool guard_cols_build(struct guard_cols_copy *c);

/* Under the caller's serialization: the columns built from `c` become
 * the guard's, the node changes since the copy began replayed, when it
 * is still the guard copied, with the same node count, at most
 * GUARD_COLS_REPLAY changes since; true then.  `c` is freed either way. */
bool guard_cols_install(struct guard *g, struct guard_cols_copy *c);

/* Frees a copy not installed; accepts NULL. */
void guard_cols_copy_free(struct guard_cols_copy *c);

/* How many requests the columns have answered on every node. */
size_t guard_cols_evaluated(const struct guard *g);

/* The limits the guard parses requests with (guard_create()). */
const xc_limits_t *guard_limits(const struct guard *g);

/* Records a look at every node, at `now`, with Slurm's stamp `updated`. */
void guard_looked_all(struct guard *g, long long updated, long long now);

/* The request `text` (NUL-terminated), parsed once while it is kept (at
 * most GUARD_MAX_REQUESTS; past it every one is dropped, and parsed
 * again when next placed); borrowed until the next guard_request(), or
 * guard_look() with another node count.  NULL for an invalid request
 * (the caller then keeps no node off and lets Slurm decide, said once:
 * doc/guard.md "The guard at placement"), or before any look, or out of
 * memory (not kept: parsed again next time). */
struct guard_req *guard_request(struct guard *g, const char *text);

/* The nodes of `cand` (words over the last look's node count) whose
 * Extra does not satisfy `r`, into `off` (as many words, all written);
 * *left: how many of `cand` satisfy it.  The answer of each node is kept
 * until its Extra changes (guard_look()); the others are evaluated now.
 * Every node of `cand` must have been looked at since it last changed.
 * Returns how many nodes fail. */
size_t guard_verdict(struct guard *g, struct guard_req *r, const uint64_t *cand,
		     uint64_t *off, size_t *left);

/* guard_verdict() evaluating at most *budget answers not kept (each
 * costs the request's cost, guard_count()'s unit; taken from *budget):
 * false when that was not enough (`off` and *left then partial; the
 * answers evaluated are kept, so a later call goes on from there).  For
 * the look (look.h), which answers every request over every node. */
bool guard_verdict_within(struct guard *g, struct guard_req *r,
			  const uint64_t *cand, uint64_t *off, size_t *left,
			  size_t *budget);

/* One tier of a job's preferences counted at a placement (the pick is
 * slurm/prefer.h's prefer_pick_tiers(), the rule of doc/preferences.md
 * "Preferences"): into *nodes how many nodes of `usable` (words over the
 * last look's node count: the job's partitions less its excluded nodes)
 * satisfy request `text` ("(R)&(P)", prefer_compose()), into *free_nodes
 * how many of those are in `free` (words; NULL: none known free).
 * `scratch`: as many words, overwritten.  Every node of `usable` must have
 * been looked at since it last changed.  The tiers are kept apart from
 * the requests, as many (past GUARD_MAX_REQUESTS every tier is dropped,
 * no request), so that tiers never drop another job's request; a
 * request's pointer stays good.  A tier not kept yet costs *budget
 * 1 + its length/16 for its parse, first; each answer not kept costs
 * 1 + L/16 for a tier of L leaves (a node's record and text read, then
 * each leaf: tests/bench/bench_guard): what does not fit is not parsed
 * or evaluated; *budget is lowered by what was.  1 when counted; 0 when `text` is not a valid request, or
 * out of memory (the tier narrows nothing this once); -1 when the budget
 * ran out first (the answers evaluated are kept: a later placement goes
 * on from there). */
int guard_count(struct guard *g, const char *text, const uint64_t *usable,
		const uint64_t *free, uint64_t *scratch, size_t *budget,
		size_t *nodes, size_t *free_nodes);

/* Tier `text` as guard_count() keeps it (its answers there), for the
 * placement's verdict once it is picked: guard_request() in the tiers'
 * table.  NULL as guard_request(). */
struct guard_req *guard_tier(struct guard *g, const char *text);

/* What the tiers of every placement may cost in one second, in answers
 * (guard_count(); a node's text compared counts one), whatever users'
 * preferences say: 2.2-3.6 ms of one core a second measured
 * (doc/benchmarks.md "The guard at placement"). */
#define GUARD_TIER_BUDGET 16384

/* What the tiers of one user's jobs may take of it in one second: a
 * quarter (it takes four users to spend it all; past it only as
 * guard_tiers_compare() lets one placement, never the others' last
 * half). */
#define GUARD_TIER_USER_SHARE (GUARD_TIER_BUDGET / 4)

/* The users whose spending a second is told apart; past as many in one
 * second, a user shares the share of the user whose slot its uid
 * hashes to (uid modulo the slots): the two together get one share. */
#define GUARD_TIER_USERS 64

/* What a placement of a job of user `uid` may take for its tiers in
 * second `now` (seconds), in answers: the least of what is left of the
 * second's budget for all (GUARD_TIER_BUDGET) and of the user's share
 * (GUARD_TIER_USER_SHARE); both whole again at each new second, or a
 * clock set back.  Never fails; 0 once either is spent.  For
 * guard_count() to take from; what was taken then goes to
 * guard_tiers_spend(). */
size_t guard_tiers_allowance(struct guard *g, uint32_t uid, long long now);

/* Takes `spent` answers from the second's budget (down to 0 at most)
 * and adds them to what user `uid` spent in second `now`, past its
 * share if need be (guard_tiers_compare()); once past its share, the
 * user gets nothing more that second. */
void guard_tiers_spend(struct guard *g, uint32_t uid, long long now,
		       size_t spent);

/* What is left of the second's budget for all in second `now`. */
size_t guard_tiers_left(struct guard *g, long long now);

/* Whether a placement whose tiers must first compare `more` node texts
 * (one answer each) may pick them in second `now`: `allowed`, what
 * guard_tiers_allowance() gave its user; *budget, what is left of it,
 * lowered by the compares (to 0 at most).  Within the allowance, yes;
 * past it, only for a user who took nothing of its share yet this
 * second (`allowed` a whole share), and only for at most half of what
 * is left for all: a partition of more nodes than a share still has
 * its tiers picked (their answers kept), once a second a user, never
 * taking the others' last half.  *compared: what to charge
 * (guard_tiers_spend()), 0 when not. */
bool guard_tiers_compare(struct guard *g, size_t allowed, size_t more,
			 long long now, size_t *budget, size_t *compared);

/* The tier a job with preferences goes by at a placement while its wait
 * lasts (doc/guard.md "Preferences there"), 0 for its request alone:
 * `picked`, the tier prefer_pick_tiers() picked, when `counted` (it
 * could count every tier it needed within the budget); else `carried`,
 * the tier its status names (an earlier release's thread wrote it).
 * Where the job's excluded nodes hold more than its user's own
 * (`by_list`: such a thread's list, backfill's reservations), never
 * weaker than `carried`: a tier whose nodes they keep off counted
 * none. */
unsigned guard_tier_applied(bool counted, unsigned picked, unsigned carried,
			    bool by_list);

/* One placement's answer (guard_verdict() on `pool`): the nodes of `cand`
 * (a subset of `pool`, the nodes Slurm may choose now) that fail `r`,
 * into `off` (words) and `list` (their indices, room for every node);
 * *left: how many of `pool` satisfy `r`.  Returns how many are listed. */
size_t guard_keep_off(struct guard *g, struct guard_req *r,
		      const uint64_t *pool, const uint64_t *cand, uint64_t *off,
		      uint32_t *list, size_t *left);

/* Whether node `i` satisfies `r` now, from what the last look read (for
 * the tests and the benchmark). */
bool guard_req_matches(struct guard *g, struct guard_req *r, size_t i);

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
