/*
 * refilter.h - keeping pending jobs off the nodes whose Extra does not
 * satisfy their request, as the node data change (doc/language.md §7):
 * job_submit/extra's thread re-filters every pending job that has a
 * request whenever the node data or the jobs change, with the filter of
 * one job that job_submit() and job_modify() use too (job_filter.h), and
 * takes the hints of job_modify() (hints.h) only where the jobs' data
 * show them applied.
 */
#ifndef SLURM_EXTRA_REFILTER_H
#define SLURM_EXTRA_REFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slurm_compat.h"
#include "carry.h"
#include "hints.h"
#include "job_filter.h"
#include "job_state.h"
#include "job_update.h"
#include "known_jobs.h"
#include "memo.h"
#include "parts.h"
#include "slurm_hostlist.h"
#include "slurm_nodes.h"
#include "xc.h"

struct refilter_stats {
	size_t pending;	     /* pending jobs with a request */
	size_t planned;	     /* of them, those planned (the others unchanged
			    since their plan: memo.h) */
	size_t requests;     /* distinct requests evaluated */
	size_t updates;	     /* updates planned */
	size_t sent;	     /* updates sent (fewer when the plugin stopped) */
	size_t failed;	     /* updates Slurm refused (or job_modify() refused
			    as planned from data older than a change), and
			    requests not evaluated for lack of memory: the
			    next round plans again */
	size_t paced;	     /* waits for the update budget (UpdateBudget) */
	size_t node_updates; /* the feature carrier's node updates sent */
	size_t node_failed;  /* of them, refused */
	size_t preferring;   /* pending jobs with preferences (prefer.h),
				planned or kept */
	size_t prefer_live;  /* of them, those whose wait lasts (not
				eligible yet, with a wait, too): their pick
				may follow the nodes */
	size_t prefer_free;  /* of them, those with no wait still in their
				window: the free nodes matter to them */
	time_t prefer_next;  /* the earliest end of a job's narrowing by a
				preference after the round's clock (0:
				none): a round is due then */
	double plan_ms, send_ms;
};

/* What a round plans from (refilter_plan): all of it the caller's,
 * borrowed for the call; only `memo` is written. */
struct refilter_in {
	const xc_nodes_t *table;       /* the nodes the requests are
					  evaluated over (node_table.h) */
	const job_info_msg_t *jobs;    /* the jobs loaded (kept_jobs_keep,
					  kept_jobs.h); NULL or none: nothing
					  to plan */
	const xc_limits_t *limits;     /* the requests' limits (NULL: xc.h's
					  defaults) */
	const struct hints *hints;     /* job_modify()'s, in order of their
					  seq (NULL: none) */
	uint64_t upto;		       /* the hints of seq <= upto taken */
	const struct known_jobs *prev; /* the jobs of the round before,
					  sorted (NULL: none) */
	struct refilter_memo *memo;    /* the thread's (memo.h), or NULL:
					  every job planned, nothing kept */
	const struct carry *carry;     /* the feature carrier (carry.h), or
					  NULL: every job by its ExcNodeList */
	const bool *free;	       /* per node of table: free now
					  (node_table.h), or NULL: none */
	const struct parts *parts;     /* the partitions' nodes (parts.h),
					  or NULL: every node counts */
	time_t now;		       /* the round's clock, for preferences */
};

/* Where refilter_plan() puts its plan: places of the caller's. */
struct refilter_out {
	struct job_update **updates;  /* set: the updates (malloc'd, maybe
					 empty; free with job_updates_free),
					 NULL when no job was planned */
	size_t *n;		      /* set: how many */
	struct known_jobs *known;     /* filled with every job still
					 filtered, sorted by id (free with
					 known_jobs_free), or NULL: not
					 wanted */
	struct refilter_stats *stats; /* added to, never reset */
};

/*
 * Plans the updates for the pending jobs of in->jobs that have a request:
 * the plugin's state in its AdminComment, or (Slurm 23.02+) a non-empty
 * `extra` (a request set by `scontrol update job=N extra=...` on a job
 * submitted without one).  From 23.02 the request is the job's own
 * `extra`; a job whose `extra` an update emptied is given back its
 * user's exclusions and no longer filtered.  The hints of in->hints up to
 * in->upto are taken first, each on the jobs it names whose loaded data
 * show it applied (doc/thread.md "Updates"); in->prev, the jobs of the
 * round before, gives back the state of a job whose AdminComment an admin
 * replaced.
 *
 * With in->memo (the thread's, memo.h), what the rounds before computed is
 * kept and work follows change (doc/thread.md "Work follows change"): a
 * job of in->prev planned with the same memo whose print is the same,
 * that no hint names and whose request's nodes did not change since is
 * kept as it is, unplanned; each distinct request text is parsed once
 * while a job has it, and each distinct request (its canonical text)
 * evaluated over in->table once while its nodes do not change
 * (memo_nodes_changed(), memo_nodes_anew() tell the memo of the table's
 * changes); an invalid one excludes nothing more.  Sets *out->updates
 * (count *out->n) to the jobs whose exclusions, hold or state changed,
 * fills *out->known (when wanted) with every job it still filters, and
 * adds to *out->stats.  Returns 0, or -1 when memory runs out (nothing
 * planned: *out->updates NULL, *out->known empty; with a memo, its next
 * round plans every job).
 */
int refilter_plan(const struct refilter_in *in, const struct refilter_out *out);

#endif
