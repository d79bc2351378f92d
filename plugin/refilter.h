/*
 * refilter.h - keeping pending jobs off the nodes whose Extra does not
 * satisfy their request, as the node data change (semantics.md 7):
 * job_submit/extra's thread re-filters every pending job that has a
 * request whenever the node data or the jobs change, and job_submit() and
 * job_modify() use the same computation for one job.
 *
 * A job's excluded nodes are the user's own (kept in its AdminComment,
 * job_state.h) and every node whose Extra does not satisfy the request,
 * except the nodes the job requires (Slurm refuses a job whose required
 * and excluded nodes overlap).  No node left, or a required node that
 * does not satisfy the request, and the job must wait:
 *   - no node satisfies it: the exclusions cover the partition and Slurm's
 *     scheduler itself holds the job as BadConstraints; Slurm lifts that
 *     the next time the job is updated (its ExcNodeList, by this plugin,
 *     when a node comes to match);
 *   - a required node does not: nothing can be excluded, so the plugin
 *     holds the job (priority 0, held=1 in its state) and releases it when
 *     all its required nodes satisfy the request.
 * A hold by the user or an admin is never released here.
 */
#ifndef SLURM_EXTRA_REFILTER_H
#define SLURM_EXTRA_REFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slurm_compat.h"
#include "job_state.h"
#include "xc.h"

/* What a job's request leaves it, against a node table. */
struct xc_filter {
	char *exc;	    /* excluded nodes (malloc'd ranged hostlist), or
			       NULL for none */
	size_t allowed;	    /* nodes that satisfy the request and that the
			       user did not exclude */
	size_t total;	    /* nodes in the table */
	bool req_unmatched; /* a required node does not satisfy it */
};

/* Computes the filter of a job from `matched` (xc_nodes_match() of its
 * request over `table`), the user's own excluded nodes `user_exc` and the
 * job's required nodes `req` (hostlists; NULL or "" for none).  On a
 * compiled table (xc_nodes_compile) the excluded nodes are written in one
 * pass in table order (xc_nodes_hostlist), and the user's and required
 * hostlists are looked up by name; otherwise, or when the user excluded a
 * node the table does not know, it is xc_filter_compute_slurm().  Returns
 * 0, or -1 when a hostlist cannot be read or memory runs out. */
int xc_filter_compute(const xc_nodes_t *table, const bool *matched,
		      const char *user_exc, const char *req,
		      struct xc_filter *f);

/* The same with Slurm's hostlist functions alone: the user's exclusions,
 * then each excluded node pushed, then sorted and ranged by Slurm.  The
 * reference the tests hold xc_filter_compute() to. */
int xc_filter_compute_slurm(const xc_nodes_t *table, const bool *matched,
			    const char *user_exc, const char *req,
			    struct xc_filter *f);

/* The status words of a job's state for a filter (malloc'd), e.g.
 * "2 of 4 nodes satisfy the request". */
char *xc_filter_status(const struct xc_filter *f);

/* Whether the plugin must hold the job: a required node does not satisfy
 * its request. */
static inline bool xc_filter_must_hold(const struct xc_filter *f)
{
	return f->req_unmatched;
}

void xc_filter_free(struct xc_filter *f);

/* A ranged hostlist of `hostlist` with duplicates removed, in Slurm's
 * order (malloc'd; "" for NULL or empty), so that two lists of the same
 * nodes compare equal as text; NULL if it is not a hostlist. */
char *xc_hostlist_normal(const char *hostlist);

/* One update the thread sends to a job. */
struct xc_job_update {
	uint32_t job_id;
	char job_id_str[64]; /* "123", "123_4", "123_[5-9]", "123+1" */
	char *exc_nodes;     /* new ExcNodeList ("" clears), or NULL: keep */
	uint32_t priority;   /* 0 hold, INFINITE release, NO_VAL: keep */
	char *admin_comment; /* new state (always set) */
};

struct xc_refilter_stats {
	size_t pending;	 /* pending jobs with a request */
	size_t requests; /* distinct requests evaluated */
	size_t updates;	 /* updates planned (and sent) */
	size_t failed;	 /* updates Slurm refused */
	double plan_ms, send_ms;
};

/* One pending job with a request, as the thread last saw it: what
 * job_modify() needs, by job id. */
struct xc_known_job {
	uint32_t job_id;
	uint32_t array_job_id; /* 0 unless an array's task or tasks */
	struct xc_job_state st;
	char *req_nodes; /* required nodes, or NULL */
};

struct xc_known_jobs {
	struct xc_known_job *jobs; /* sorted by job_id */
	size_t count;
};

/* A change job_modify() saw for a job the thread had not seen yet: the
 * next round applies it to the job's state instead of undoing it. */
struct xc_job_mod {
	uint32_t job_id;
	char *exclude;	 /* the user's new excluded nodes, or NULL: same */
	bool hold_taken; /* someone held the job: the plugin's hold is theirs */
	bool applied;	 /* set by xc_refilter_plan */
	time_t at;
};

/* Plans the updates for every pending job of `jobs` whose AdminComment
 * holds the plugin's state: each distinct request (canonical text) is
 * parsed and evaluated over `table` once.  `mods` (may be NULL) are applied
 * to the states of their jobs first, and marked applied.  Fills *updates (count *n;
 * xc_job_updates_free) with the jobs whose exclusions, hold or status
 * changed, and *known (xc_known_jobs_free; may be NULL) with every such
 * job.  Returns 0, or -1 when memory runs out (nothing planned). */
int xc_refilter_plan(const xc_nodes_t *table, const job_info_msg_t *jobs,
		     const xc_limits_t *limits, struct xc_job_mod *mods,
		     size_t nmods, struct xc_job_update **updates, size_t *n,
		     struct xc_known_jobs *known,
		     struct xc_refilter_stats *stats);

/* Sends the updates (slurm_update_job2; the Slurm API: never with
 * slurmctld's locks held).  Counts the refused ones in stats->failed.
 * Stops early once *stop (may be NULL) is true: the plugin is being
 * unloaded, and the next round starts over anyway. */
void xc_refilter_send(const struct xc_job_update *updates, size_t n,
		      struct xc_refilter_stats *stats, const bool *stop);

void xc_job_updates_free(struct xc_job_update *updates, size_t n);
void xc_known_jobs_free(struct xc_known_jobs *known);

/* The job of `known` with `job_id`, or else a task of the array whose id
 * it is (all of an array's tasks have its request), or NULL. */
const struct xc_known_job *xc_known_job_find(const struct xc_known_jobs *known,
					     uint32_t job_id);

/* The job id an update names: job_desc->job_id, or the number that starts
 * job_id_str ("123", "123_4", "123+1"); 0 when none. */
uint32_t xc_update_job_id(const job_desc_msg_t *job_desc);

#endif
