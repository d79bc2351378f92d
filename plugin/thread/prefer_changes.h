/*
 * prefer_changes.h - where Slurm filters by `extra` itself (23.11+
 * extra_constraints): the owners' changes of preferences (`slurm-extra
 * prefer`; hints.h prefer_set), taken from the hints at each round and
 * applied to the jobs they name at every round that plans them, until
 * the jobs' AdminComments show them (thread_prefer.c; doc/preferences.md
 * "Preferences", "Changing them").  The job's data cannot show such a
 * change before the thread writes it, and an update of the thread's that
 * Slurm refuses, or that a later update made stale, would otherwise lose
 * it.  Thread-only: no lock.
 */
#ifndef SLURM_EXTRA_PREFER_CHANGES_H
#define SLURM_EXTRA_PREFER_CHANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "slurm_compat.h"
#include "hints.h"
#include "job_state.h"
#include "prefer.h"

/* A change not shown yet is dropped this long (s) after its last update
 * was taken: Slurm refuses the thread's update of its job every time. */
#define PREFER_CHANGE_TTL_S 120

/* One target's change: what the updates naming it asked, merged (the last
 * tiers given, the last wait given, each with the seq of its update, so
 * that changes of overlapping targets, an array and one of its tasks,
 * apply in the order they were made). */
struct prefer_pending {
	uint32_t id, task, offset; /* what they named (hint_names) */
	uint32_t owner;		   /* the job's owner, as job_modify() knew
				      it, else the caller */
	bool privileged;	   /* every update merged into it came from
				      root or SlurmUser; else each came from
				      `owner`, and it applies only to a job
				      of theirs (prefer_changes_of) */
	uint64_t tiers_seq;	   /* the update that gave c.tiers (0: none) */
	uint64_t wait_seq;	   /* the update that gave c.wait (0: none) */
	struct prefer_change c;	   /* tiers malloc'd, NULL: kept */
	time_t since;		   /* when last taken or merged */
	bool fresh;		   /* taken or merged since the last plan
				      of the jobs it names */
	bool gone;		   /* to be dropped (compact) */
	bool found;		   /* this round: a pending job it names */
	bool unshown;		   /* this round: one of them does not show
				      it yet */
};

/* The changes, at most HINTS_MAX of them, HINTS_PER_OWNER of one owner's
 * and HINTS_BYTES of tiers in all, as hints are; one per target. */
struct prefer_changes {
	struct prefer_pending *v;
	size_t n, cap, bytes;
	size_t *by_id;	 /* prefer_changes_start(): indices sorted by id */
	size_t *hit;	 /* scratch: the changes naming one job */
	size_t hits;	 /* how many, from prefer_changes_of() */
	uint64_t losses; /* changes dropped by the bounds or their age */
};

/* Moves the trusted changes of `taken` (the hints a round took, in order)
 * from root, SlurmUser or the job's owner as job_modify() knew it (hints.h
 * `privileged`, `owner`) into `c` at `now`, their tiers moved out of the hints (freed with `c`):
 * a change of a target `c` has already is merged into it, a new one past
 * the bounds is dropped (counted in c->losses).  Out of memory, the new
 * ones are dropped too.  Log-linear in the hints and the changes. */
void prefer_changes_take(struct prefer_changes *c, struct hints *taken,
			 time_t now);

/* The ids of up to `max` fresh changes (each the id it names, distinct)
 * into ids[], their freshness cleared: the jobs to load alone and plan
 * at a round that loads no other (thread_prefer.c).  How many. */
size_t prefer_changes_fresh(struct prefer_changes *c, uint32_t *ids,
			    size_t max);

/* Before a round plans the jobs: indexes `c` by id, clears found and
 * unshown.  0, or -1 when out of memory (nothing is applied then). */
int prefer_changes_start(struct prefer_changes *c);

/* The number of changes naming pending `job` (hint_names' rule) from
 * root, SlurmUser or the job's owner (hint_from_owner's rule), kept
 * for prefer_changes_apply(): a few look-ups by target, and for a
 * pending array record (which holds its tasks not split yet) the changes
 * of its array's tasks. */
size_t prefer_changes_of(struct prefer_changes *c, const slurm_job_info_t *job);

/* Applies the changes prefer_changes_of() found to `st` (the job's state
 * as read): the tiers and the wait of the latest updates that gave them;
 * marks them found, and unshown unless `st` showed their result already.
 * 0, or -1 when out of memory (`st` then as it was). */
int prefer_changes_apply(struct prefer_changes *c, struct sx_job_state *st);

/* After a round planned every pending job: drops the changes that every
 * job they name shows, that name no pending job, or that are older than
 * PREFER_CHANGE_TTL_S at `now` (counted in c->losses). */
void prefer_changes_end(struct prefer_changes *c, time_t now);

/* Frees every change and empties `c`. */
void prefer_changes_free(struct prefer_changes *c);

#endif
