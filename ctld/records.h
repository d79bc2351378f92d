/*
 * records.h - what the ctld wing reads of slurmctld's own records, for
 * the guard at placement (guard_slurm.c) and the look (look_slurm.c):
 * node sets as words, each node's Extra and stamp, a job's request and
 * what Slurm rebuilds its excluded nodes from.  Built only against the
 * configured source tree of the exact Slurm it runs in; every function
 * is called with the locks its comment names held by the caller.
 */
#ifndef SLURM_EXTRA_RECORDS_H
#define SLURM_EXTRA_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "job_state.h"

/* Slurm's bitstr_t as words: the magic and the size head them
 * (src/common/bitstring.c 22.05.8 and 24.11.5: BITSTR_MAGIC,
 * BITSTR_OVERHEAD 2, _bit_word(), _bit_mask(); checked at load and on
 * every set read).  NULL for a set not laid out so, or not `n` nodes.
 * `b` is a bitstr_t *. */
uint64_t *records_words(void *b, int64_t n);

/* Whether a node of `req` (a job's required nodes: details->
 * req_node_bitmap, a bitstr_t *; NULL: none) would be kept off: one of
 * the `n` node indices of `failing` (those that fail its request), or one
 * the look keeps off (`ex`, the job's excluded nodes as words, less the
 * look's base `own`: a set the look gave before the nodes were required,
 * as 22.05 leaves it at an update of them; either NULL: none).  A set of
 * another size than the node table (rebuilt): true, the job waits. */
bool records_required_off(void *req, const uint32_t *failing, size_t n,
			  const uint64_t *ex, const uint64_t *own,
			  size_t words);

/* Whether Slurm's node sets are laid out as records_words() reads them
 * (checked once, at the plugin's init()). */
bool records_words_laid_out(void);

/* What job_submit/extra beside the guard may read and write of a job
 * record (guard_api.h; exported under SX_GUARD_API). */
extern const struct sx_guard_api sx_guard_record_api;

/* The request the guard filters `job_ptr` (a job_record_t *) by, or
 * NULL: from Slurm 23.02 the job's own Extra (an update of it is the
 * request's), on 22.05 the request= of the state job_submit/extra keeps
 * in the AdminComment (job_state.h).  A job without the plugin's state
 * has none on 22.05, and from 23.02 none where Slurm filters by Extra
 * itself (records_slurm_filters(): Slurm's to apply), its Extra
 * elsewhere (a job submitted while Slurm filtered, then turned off, or
 * before the plugins were loaded).  *st gets the state when it names preferences (on 22.05 always),
 * the caller's to free with sx_job_state_free(); zeroed otherwise.  The
 * job read lock held. */
const char *records_request_of(void *job_ptr, struct sx_job_state *st);

/* A hash of what Slurm rebuilds a job's excluded nodes from: its
 * ExcNodeList text, and from 24.11 its required nodes (_update_job()
 * ORs their complement in, src/slurmctld/job_mgr.c 24.11.5 line 13583)
 * and node count; 22.05 rebuilds them from the ExcNodeList alone, at an
 * update of it (_update_job(), job_mgr.c 22.05.8 lines 12905-12929).
 * Reads strlen() of both texts. */
unsigned long long records_rebuilt_from(const char *exc_nodes,
					const char *req_nodes,
					uint32_t min_nodes);

/* Whether what Slurm rebuilds a job's excluded nodes from holds no node:
 * no ExcNodeList, and from 24.11 no required nodes turned into excluded
 * ones either (_update_job() ORs in their complement when they are more
 * than the job's node count, and frees `req_node_bitmap` then:
 * src/slurmctld/job_mgr.c 24.11.5 lines 13577-13585).  Then the job's own
 * set is empty, whatever the bitmap holds. */
bool records_own_empty(const char *exc_nodes, const char *req_nodes,
		       const void *req_node_bitmap);

/* Whether this is backfill's thread ("bckfl": backfill_agent(),
 * src/plugins/sched/backfill/backfill.c, 22.05.8 and 24.11.5): its
 * _start_job() places the job with a copy of the excluded nodes ORed
 * with its reservations and puts the bitmap back afterwards. */
bool records_in_backfill(void);

/* Node i's Extra now (NUL-terminated, NULL for none), for guard_look();
 * the node read lock held. */
const char *records_extra_at(size_t i, void *arg);

/* From 24.11 a slurmd registration sets a node's Extra without the
 * table's stamp (validate_node_specs(), src/slurmctld/node_mgr.c 24.11.5
 * line 3412), and then, on every path, the node's own last_response to
 * the second it began (line 3645); 22.05 sets Extra only in
 * update_node(), at a restart and at a reconfigure (read_config.c,
 * stamped by init_node_conf()). */
extern const bool records_extra_unstamped;

/* The stamp a look records and may skip by (guard_look_stamps(): node
 * i's last_response), NULL on 22.05; the node read lock held. */
extern long long (*const records_stamp_of)(size_t i, void *arg);

/* Whether Slurm filters by a job's `extra` itself (SchedulerParameters=
 * extra_constraints, 23.11 and later: src/common/extra_constraints.c):
 * then the guard and the look stand aside. */
bool records_slurm_filters(void);

/* The nodes free now, one bit a node of `nnodes` (words)
 * (doc/preferences.md "Preferences"): idle, or allocated with a
 * CPU left (mixed), neither drained, failing, unresponsive, in
 * maintenance, powered down, powering up, reserved nor rebooting.  The
 * CPUs allocated are the select plugin's, summed by
 * select_g_select_nodeinfo_set_all() as for every load of the nodes
 * (again only when the nodes changed since).  Read at most once in
 * second `now`: a later call in that second gets the same words, which
 * may count free a node taken since.
 * Borrowed until records_release(); NULL out of memory.  The job and
 * node write locks held (a placement). */
const uint64_t *records_free_nodes(size_t nnodes, time_t now);

/* What records_free_nodes() keeps, freed (the plugin's fini()). */
void records_release(void);

#endif
