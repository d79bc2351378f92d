/*
 * plan_prefer.h - what a round's plan (refilter.c) makes of a job's
 * preferences (prefer.h;
 * doc/preferences.md "Preferences"; doc/thread.md "Work follows change"):
 * the effective
 * request it is filtered by this round, from the memo's evaluations, and
 * what that pick reads, so that a job whose pick cannot change is not
 * planned again.
 *
 * A round evaluates each distinct tier once: the tiers of a job's
 * preferences are looked up once a round for each distinct request and
 * tiers (a *tier set*), and the nodes of each tier counted once a round
 * for each distinct partition list (a job with exclusions of its own
 * counts its own), in a cache of the round's (struct prefer_round), so
 * that a plan of J jobs with T tiers over N nodes costs about
 * J x T look-ups plus N for each distinct tier and partition list, not
 * J x T x N.
 */
#ifndef SLURM_EXTRA_PLAN_PREFER_H
#define SLURM_EXTRA_PLAN_PREFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "slurm_compat.h"
#include "job_state.h"
#include "memo.h"
#include "parts.h"
#include "prefer.h"
#include "refilter.h"
#include "xc.h"

/* A round's cache (plan_prefer.c): its tier sets and counts. */
struct prefer_round;

/* What the round reads besides the job (all borrowed but `round`). */
struct plan_prefer_in {
	struct refilter_memo *memo; /* the round's (memo.h) */
	const xc_nodes_t *table;    /* the memo's table */
	const xc_limits_t *limits;  /* the requests' limits (NULL: defaults) */
	const bool *free;	    /* per node: free now (NULL: none known) */
	const struct parts *parts;  /* the partitions' nodes (NULL: every
				       node counts) */
	time_t now;		    /* the round's clock */
	bool *matched, *usable;	    /* scratch, a bool a node each */
	struct prefer_round *round; /* the round's cache
				       (plan_prefer_start), or NULL: each
				       job's tiers evaluated for it alone */
};

/* Makes in->round, a cache for one round of the memo's (its requests are
 * borrowed: it lives no longer than the round).  0, or -1 when out of
 * memory (in->round NULL). */
int plan_prefer_start(struct plan_prefer_in *in);

/* Frees in->round (NULL: nothing) and sets it NULL. */
void plan_prefer_end(struct plan_prefer_in *in);

/*
 * When pending `job`, with state `st`, became eligible, for its wait
 * (prefer.h): its EligibleTime (details->begin_time) when set; else 0,
 * not eligible yet, but for a job with no wait that is neither held nor
 * waiting for a dependency, whose window counts from its submission (as
 * job_submit() picked it).  Slurm zeroes EligibleTime when it holds a job
 * and again when it releases one (_hold_job_rec(), _release_job_rec()),
 * and sets it at the scheduler's next look (job_independent(),
 * src/slurmctld/job_mgr.c 24.11), so a held job, a released one before
 * that look and a new one before it (24.11+) have none: with a wait,
 * their wait has not begun (their narrowing kept, not re-evaluated by
 * the clock), and it counts from the EligibleTime Slurm sets, as Slurm's
 * own --prefer applies from the job's eligibility.
 */
time_t plan_prefer_eligible(const slurm_job_info_t *job,
			    const struct sx_job_state *st);

/*
 * `print` (memo_job_print() of pending `job`) with what the pick of `job`
 * (state `st`, with preferences) reads besides it and its tiers' nodes
 * folded in: its
 * eligibility (plan_prefer_eligible), whether its wait lasts at in->now
 * (*live), its partitions and, while it lasts, the partitions' load
 * (parts.time) and, with no wait, the free nodes.  Two equal prints of a
 * job whose tiers' nodes did not change (plan_prefer_tiers_changed) give
 * the same pick: the plan keeps it.  Linear in the free nodes once a
 * round (in->round), else each call.
 */
uint64_t plan_prefer_print(struct plan_prefer_in *in,
			   const slurm_job_info_t *job,
			   const struct sx_job_state *st, uint64_t print,
			   bool *live);

/* Whether a tier of `st` (with preferences) had its nodes changed after
 * round `planned` (memo_request.changed), or is new to the memo: *changed.
 * Its tiers are marked used by the round (the memo keeps them).  0, or -1
 * when out of memory. */
int plan_prefer_tiers_changed(struct plan_prefer_in *in,
			      const struct sx_job_state *st, uint64_t planned,
			      bool *changed);

/* The preference of pending `job` (state `st`, which has preferences)
 * this round: *effective the text of its effective request (malloc'd; NULL:
 * its request alone), *note the words before its status (prefer_note,
 * malloc'd), *pick what was picked.  Each tier is evaluated by the memo,
 * once while its nodes do not change, and counted once a round for each
 * partition list (in->round).  0, or -1 when out of memory. */
int plan_prefer(struct plan_prefer_in *in, const slurm_job_info_t *job,
		const struct sx_job_state *st, char **effective, char **note,
		struct prefer_pick *pick);

/* Counts pending `job` (state `st`, with preferences) in `stats`
 * (preferring, prefer_live, prefer_free, prefer_next: refilter.h) by
 * `pick` (its plan's), or (NULL) as a job kept from its last plan, whose
 * deadline is counted whatever its tier. */
void plan_prefer_count(const struct plan_prefer_in *in,
		       const slurm_job_info_t *job,
		       const struct sx_job_state *st,
		       const struct prefer_pick *pick,
		       struct refilter_stats *stats);

/* plan_prefer() of a job of a round's plan, counted in `stats`
 * (plan_prefer_count); *live tells whether its wait lasts
 * (prefer_pick.waiting).  0, or -1 when out of memory. */
int plan_prefer_counted(struct plan_prefer_in *in, const slurm_job_info_t *job,
			const struct sx_job_state *st, char **effective,
			char **note, bool *live, struct refilter_stats *stats);

#endif
