/*
 * guard_tiers.h - a job's preferences at a placement (doc/guard.md
 * "Preferences there"), without Slurm's headers: whether the guard picks
 * among them, the tier an earlier release's thread carried, and the
 * request the job goes by, for guard_slurm.c.
 */
#ifndef SLURM_EXTRA_GUARD_TIERS_H
#define SLURM_EXTRA_GUARD_TIERS_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "guard.h"
#include "job_state.h"

/* Whether the guard picks among the preferences of a job with state
 * `with` (its request as the guard reads it), eligible at `eligible` (its
 * details->begin_time, Slurm's EligibleTime), at `now`: a
 * job with preferences and a wait, while its wait lasts (the rule:
 * prefer_pick_tiers(), slurm/prefer.h); with no wait, while its
 * PREFER_NOW_S last, when `free_read`: the guard reads the free nodes
 * (Carrier=guard: records_free_nodes()).  Else a job with no wait goes by
 * its request alone. */
bool guard_tiers_apply(const struct sx_job_state *with, time_t eligible,
		       time_t now, bool free_read);

/* The tier an earlier release's thread carried a job with state `st` by,
 * as its status says after any requeue's note ("preferring tier i of
 * n"); 0 for none or past its tiers. */
unsigned guard_carried_tier(const struct sx_job_state *st);

/* The request a job with state `with` (its request as the guard reads
 * it), eligible at `eligible`, goes by at this placement while its wait
 * lasts: when `picks`, "(R)&(Pi)" for the strongest tier that a node of
 * `usable` (words: its partitions less its excluded nodes) satisfies
 * now, one of them in `free_nodes` for a job with no wait (words; NULL:
 * none known free), counted within *budget (what the placement may still take:
 * guard_tiers_allowance(), less what it took; lowered by what the
 * counts cost, guard_count()); the tier applied is
 * guard_tier_applied()'s
 * (`carried`: guard_carried_tier(); `by_list`: its excluded nodes hold
 * more than its user's own).  The request alone for tier 0.  `scratch`:
 * words, overwritten.  *tier: the tier; *over: the tiers could not all
 * be counted (the budget, or memory).  NULL as guard_request(). */
struct guard_req *guard_effective(struct guard *g,
				  const struct sx_job_state *with,
				  time_t eligible, time_t now, bool picks,
				  unsigned carried, bool by_list,
				  const uint64_t *usable,
				  const uint64_t *free_nodes, uint64_t *scratch,
				  size_t *budget, unsigned *tier, bool *over);

#endif
