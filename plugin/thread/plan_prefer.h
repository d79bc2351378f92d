/*
 * plan_prefer.h - what a round's plan (refilter.c) makes of a job's
 * preferences (prefer.h; doc/design.md "Preferences"): the effective
 * request it is filtered by this round, from the memo's evaluations.
 */
#ifndef SLURM_EXTRA_PLAN_PREFER_H
#define SLURM_EXTRA_PLAN_PREFER_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "slurm_compat.h"
#include "job_state.h"
#include "memo.h"
#include "parts.h"
#include "prefer.h"
#include "refilter.h"
#include "xc.h"

/* What the round reads besides the job (all borrowed). */
struct plan_prefer_in {
	struct refilter_memo *memo; /* the round's (memo.h) */
	const xc_nodes_t *table;    /* the memo's table */
	const xc_limits_t *limits;  /* the requests' limits (NULL: defaults) */
	const bool *free;	    /* per node: free now (NULL: none known) */
	const struct parts *parts;  /* the partitions' nodes (NULL: every
				       node counts) */
	time_t now;		    /* the round's clock */
	bool *matched, *usable;	    /* scratch, a bool a node each */
	size_t max_len;		    /* prefer_nodes.max_len */
};

/* The preference of pending `job` (state `st`, which has preferences)
 * this round: *effective the text of its effective request (malloc'd; NULL:
 * its request alone), *note the words before its status (prefer_note,
 * malloc'd), *pick what was picked.  Each tier's text is evaluated by the
 * memo, once while its nodes do not change.  0, or -1 when out of
 * memory. */
int plan_prefer(const struct plan_prefer_in *in, const slurm_job_info_t *job,
		const struct sx_job_state *st, char **effective, char **note,
		struct prefer_pick *pick);

/* plan_prefer() of a job of a round's plan, counted in `stats` (its
 * preferring, prefer_free and prefer_next: refilter.h); *live tells
 * whether its wait lasts (prefer_pick.waiting).  0, or -1 when out of
 * memory. */
int plan_prefer_counted(const struct plan_prefer_in *in,
			const slurm_job_info_t *job,
			const struct sx_job_state *st, char **effective,
			char **note, bool *live, struct refilter_stats *stats);

#endif
