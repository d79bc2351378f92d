/*
 * job_update.h - the update the re-filtering thread sends to one pending
 * job (refilter.h): what it changes, planned from the job's filter
 * (job_filter.h) or from its emptied request, its ExcNodeList built only
 * as it is sent, the update sent, and freed.  The rules of a job's hold
 * and exclusions are those of doc/thread.md "Updates".
 */
#ifndef SLURM_EXTRA_JOB_UPDATE_H
#define SLURM_EXTRA_JOB_UPDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slurm_compat.h"
#include "job_filter.h"
#include "job_state.h"
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
	char *features;	     /* new constraint ("" clears), or NULL: keep */
	char *prefer;	     /* new --prefer ("" clears), or NULL: keep */
	char *admin_comment; /* new state (always set) */
	bool to_feature;     /* it gives the job its request's feature in
				place of the plugin's exclusions: held back
				when the round's node updates failed */
	bool gains;	     /* it cannot take a node from the job (the
				excluded nodes unchanged, no hold): sent after
				the updates that may */
	bool refused;	     /* sent (or built) and refused: its job is
				planned again after a delay (job_loads.h) */
};

/* How a job's filter was made, for job_update_build() to make it again:
 * the request's canonical text (NULL: all nodes matched), and the user's
 * exclusions and required nodes given to filter_compute() (NULL: none).
 * Borrowed: job_update_plan() copies what it keeps. */
struct exc_recipe {
	const char *request, *user, *req;
};

/* What the feature carrier changes in a job's update (carry.h), borrowed
 * by job_update_plan(), which copies what it keeps. */
struct job_carrier {
	const char *status;   /* the status to write, or NULL: the filter's
			     (filter_status) */
	const char *features; /* the constraint to set, or NULL: keep */
	const char *prefer;   /* the --prefer to set, or NULL: keep */
	bool touch;	      /* update even when nothing else changes: a
			     job Slurm set aside (BadConstraints, priority
			     0) while its feature was on too few nodes is
			     taken up again by any update (_update_job(),
			     src/slurmctld/job_mgr.c) */
};

/* Plans the update of pending `job` from its filter `f` (its counts;
 * f->exc is not read), whose list hashes to `want` (xc_text_hash(), ""
 * for none) and whose excluded nodes hash to `exc_hash` (hostlist_hash():
 * the jobs sharing a filter share both), the job's own list hashing to
 * `have` (xc_text_hash()).  The plugin holds the job when the filter
 * says so (filter_must_hold) and releases only its own hold (held=1 at
 * the job's restart count, priority 0 with a hold's reason: job_state.h);
 * the lists are compared as text, by hash.  Writes the job's state `st`
 * as the update leaves it (status, held, wrote), and fills *u (zeroed
 * first): a new ExcNodeList kept as its `recipe` (copied; the list is
 * built when the update is sent, job_update_build), the priority, the new
 * AdminComment, u->gains; with `jc` (NULL: none), the constraint and
 * --prefer the feature carrier sets and its status.  0 when nothing changes (*u then holds nothing
 * to free), 1 when an update is planned (job_updates_free frees it), -1
 * when out of memory. */
int job_update_plan(const slurm_job_info_t *job, struct sx_job_state *st,
		    const struct job_filter *f, uint64_t want, uint64_t have,
		    uint64_t exc_hash, const struct exc_recipe *recipe,
		    const struct job_carrier *jc, struct job_update *u);

/* Plans into *u (zeroed first) the update of pending `job` whose request
 * an update emptied (Slurm 23.02+: its own `extra`), from its state `st`:
 * its user's own exclusions back as its ExcNodeList, the feature `name`
 * of its former request (NULL: none) taken out of its constraint and
 * --prefer (carry.h), the plugin's hold released, its state gone (an
 * admin's AdminComment kept, job_state.h).  1, or -1 when out of memory
 * (*u then holds nothing to free). */
int job_update_drop(const slurm_job_info_t *job, const struct sx_job_state *st,
		    const char *name, struct job_update *u);

/* Sends one update, by the job's id alone, which names exactly that
 * record in every version (slurm_update_job; doc/thread.md "Updates",
 * names).  The Slurm API: never with slurmctld's locks held.  false when
 * Slurm refused it (logged). */
bool job_update_send(const struct job_update *u);

/* Builds the ExcNodeList of update `u` planned without it (exc_lazy):
 * the request evaluated again on `table` (the thread's, unchanged since
 * the plan: only the thread writes it, between rounds) with `limits`, and
 * the job's filter written, into u->exc_nodes (malloc'd; the recipe freed).
 * So a round holds one list at a time, not one per update (doc/thread.md
 * "The update budget").  0 (also when there was nothing to build), -1
 * when out of memory or when the list differs from the one planned (its
 * hash): the update is not sent, and the next round plans again. */
int job_update_build(const xc_nodes_t *table, const xc_limits_t *limits,
		     struct job_update *u);

/* Frees the strings of one update and zeroes it. */
void job_update_free(struct job_update *u);

/* Frees `n` updates and the array (NULL: nothing). */
void job_updates_free(struct job_update *updates, size_t n);

#endif
