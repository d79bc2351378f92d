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
#include "hints.h"
#include "job_filter.h"
#include "job_state.h"
#include "known_jobs.h"
#include "memo.h"
#include "slurm_hostlist.h"
#include "slurm_nodes.h"
#include "xc.h"

/* One update the thread sends to a job. */
struct job_update {
	uint32_t job_id;     /* the job record's own id */
	uint32_t ids[3];     /* job_id, array_job_id, het_job_id (0: none):
				the ids an update of someone else may name it
				by (hints_newer) */
	uint32_t user_id;    /* the job's owner (hints_newer) */
	char *job_id_str;    /* malloc'd: "<job_id>", as job_modify() sees
				the update (it is sent by job_id alone, which
				names exactly this record) */
	char *exc_nodes;     /* new ExcNodeList ("" clears), or NULL: keep
				or, with exc_lazy, not built yet */
	bool exc_lazy;	     /* a new ExcNodeList, built when sent
				(job_update_build) from: */
	char *exc_request;   /*   the request's canonical text (NULL: an
				  invalid one, which excludes nothing) */
	char *exc_user;	     /*   the user's own excluded nodes, or NULL */
	char *exc_req;	     /*   the job's required nodes, or NULL */
	uint64_t exc_text;   /*   xc_text_hash of the list planned */
	uint32_t priority;   /* 0 hold, INFINITE release, NO_VAL: keep */
	char *admin_comment; /* new state (always set) */
	bool gains;	     /* it cannot take a node from the job (the
				excluded nodes unchanged, no hold): sent after
				the updates that may */
};

struct refilter_stats {
	size_t pending;	 /* pending jobs with a request */
	size_t planned;	 /* of them, those planned (the others unchanged
			    since their plan: memo.h) */
	size_t requests; /* distinct requests evaluated */
	size_t updates;	 /* updates planned */
	size_t sent;	 /* updates sent (fewer when the plugin stopped) */
	size_t failed;	 /* updates Slurm refused (or job_modify() refused
			    as planned from data older than a change), and
			    requests not evaluated for lack of memory: the
			    next round plans again */
	size_t paced;	 /* waits for the update budget (UpdateBudget) */
	double plan_ms, send_ms;
};

/*
 * Plans the updates for the pending jobs of `jobs` that have a request:
 * the plugin's state in its AdminComment, or (Slurm 23.02+) a non-empty
 * `extra` (a request set by `scontrol update job=N extra=...` on a job
 * submitted without one).  From 23.02 the request is the job's own
 * `extra`; a job whose `extra` an update emptied is given back its
 * user's exclusions and no longer filtered.  The hints of `hints` (may be
 * NULL) up to `upto` are taken first, each on the jobs it names whose
 * loaded data show it applied (doc/design.md "Updates"); `prev` (may be
 * NULL), the jobs of the round before, gives back the state of a job
 * whose AdminComment an admin replaced.
 *
 * With `memo` (the thread's, memo.h; NULL: every job planned and nothing
 * kept), what the rounds before computed is kept and work follows change
 * (doc/design.md "Work follows change"): a job of `prev` planned with the
 * same memo whose print is the same, that no hint names and whose
 * request's nodes did not change since is kept as it is, unplanned; each
 * distinct request text is parsed once while a job has it, and each
 * distinct request (its canonical text) evaluated over `table` once
 * while its nodes do not change (memo_nodes_changed(), memo_nodes_anew()
 * tell the memo of the table's changes); an invalid one excludes nothing
 * more.  Fills *updates (count *n; job_updates_free) with the jobs whose
 * exclusions, hold or state changed, and *known (known_jobs_free; may be
 * NULL) with every job it still filters, sorted by id; adds to *stats.
 * Returns 0, or -1 when memory runs out (nothing planned; with `memo`,
 * its next round plans every job).
 */
int refilter_plan(const xc_nodes_t *table, const job_info_msg_t *jobs,
		  const xc_limits_t *limits, const struct hints *hints,
		  uint64_t upto, const struct known_jobs *prev,
		  struct refilter_memo *memo, struct job_update **updates,
		  size_t *n, struct known_jobs *known,
		  struct refilter_stats *stats);

/* Sends one update, by the job's id alone, which names exactly that
 * record in every version (slurm_update_job; doc/design.md "Updates",
 * names).  The Slurm API: never with slurmctld's locks held.  false when
 * Slurm refused it (logged). */
bool refilter_send_one(const struct job_update *u);

/* Builds the ExcNodeList of update `u` planned without it (exc_lazy):
 * the request evaluated again on `table` (the thread's, unchanged since
 * the plan: only the thread writes it, between rounds) with `limits`, and
 * the job's filter written, into u->exc_nodes (malloc'd; the recipe freed).
 * So a round holds one list at a time, not one per update (doc/design.md
 * "The update budget").  0 (also when there was nothing to build), -1
 * when out of memory or when the list differs from the one planned (its
 * hash): the update is not sent, and the next round plans again. */
int job_update_build(const xc_nodes_t *table, const xc_limits_t *limits,
		     struct job_update *u);

/* Frees `n` updates and the array (NULL: nothing). */
void job_updates_free(struct job_update *updates, size_t n);

#endif
