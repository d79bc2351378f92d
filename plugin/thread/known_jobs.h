/*
 * known_jobs.h - the pending jobs with a request as the thread last saw
 * them, for job_modify(), and the job an update names among them.
 */
#ifndef SLURM_EXTRA_KNOWN_JOBS_H
#define SLURM_EXTRA_KNOWN_JOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slurm_compat.h"
#include "carrier.h"
#include "census.h"
#include "job_state.h"

/* One pending job with a request, as the thread last saw it: what
 * job_modify() needs, by job id. */
struct known_job {
	uint32_t job_id;
	uint32_t array_job_id;	 /* 0 unless an array's task or tasks */
	uint32_t array_task_id;	 /* NO_VAL for a pending array record */
	uint32_t het_job_id;	 /* 0 unless a heterogeneous job's component */
	uint32_t het_job_offset; /* the component's offset */
	uint32_t user_id;	 /* the job's owner */
	struct sx_job_state st;
	char *req_nodes;		  /* required nodes, or NULL */
	char *features;			  /* its constraint, or NULL */
	char *prefer;			  /* its --prefer, or NULL */
	char feature[SX_FEATURE_LEN + 1]; /* its request's feature (carry.h),
					     "" for an invalid one */
	bool wants_feature;    /* it may go by that feature (the plan's
			       plan_carrier): a round that keeps it unchanged
			       still wants the name on its nodes */
	bool prefer_live;      /* it has preferences whose wait lasted at
				  its plan (prefer_waiting); the plan folds
				  this into its print (plan_prefer_print()) */
	bool prefer_pending;   /* its preferences are its owner's change,
				  which its AdminComment did not show at
				  its plan (job_changes_take) */
	bool carried;	       /* it goes by that feature (its plan's update
				  leaves it so) */
	bool own_exc;	       /* it has exclusions or required nodes of its
				  own */
	uint32_t num_nodes;    /* the nodes it asks for (at least) */
	uint64_t request_hash; /* xc_text_hash of its request's canonical
				  text (of the text itself when invalid) */
	/* for the next round (memo.h): */
	uint64_t print;		  /* memo_job_print() of the job as planned */
	uint64_t planned;	  /* the round that planned it */
	struct memo_request *req; /* its request in the thread's memo,
					   or NULL: planned again next round
					   (borrowed: the memo keeps every
					   request a job of the last round
					   had) */
};

struct known_jobs {
	struct known_job *jobs; /* sorted by job_id */
	size_t count;
	/* indices into jobs (known_jobs_sort), so that an update naming an
	 * array task or a het component finds it in O(log n) under
	 * slurmctld's job write lock; without them (out of memory), a
	 * scan */
	uint32_t *by_array; /* the array tasks and records, by (array_job_id,
			       array_task_id) */
	size_t n_array;
	uint32_t *by_het; /* het components, by (het_job_id, het_job_offset) */
	size_t n_het;
	bool indexed; /* both indices made (each NULL when it has none) */
};

/* Frees every job of `known` and empties it (NULL: nothing). */
void known_jobs_free(struct known_jobs *known);

/* Fills `to` with a copy of `from` (its strings its own; `req` is the
 * same memo's).  0, or -1 when out of memory (`to` then holds no string to
 * free). */
int known_job_copy(const struct known_job *from, struct known_job *to);

/* Sorts known->jobs by job_id, as known_job_find() needs them, and
 * indexes its array tasks and het components for known_target() (outside
 * slurmctld's locks: the thread's, once a round).  Out of memory, the
 * indices are left out and those look-ups scan. */
void known_jobs_sort(struct known_jobs *known);

/* The job of `known` (sorted: known_jobs_sort) with `job_id`, borrowed;
 * NULL when none, for job_id 0 and for a NULL `known`. */
const struct known_job *known_job_find(const struct known_jobs *known,
				       uint32_t job_id);

/* What an update names, read exactly as slurmctld reads it
 * (_slurm_rpc_update_job(), update_job_str(), src/slurmctld/job_mgr.c and
 * proc_req.c, 22.05-26.05; doc/guard.md "Updates"): job_id_str when set
 * ("123", "123_4", "123_[1-3]", "123+1"), job_desc->job_id never read
 * then; job_desc->job_id only without it.  The id is strtol()'s long cast
 * to uint32_t, as Slurm casts it ("4294967396" names job 100), and 0 for
 * a string Slurm refuses (not above 0, LONG_MAX, or followed by anything
 * but '_' or '+').  *task is the array task of "123_4" (NO_VAL otherwise,
 * also for a list or range of tasks: the array as a whole), *offset the
 * het component of "123+1" (NO_VAL otherwise). */
void update_target(const job_desc_msg_t *job_desc, uint32_t *id, uint32_t *task,
		   uint32_t *offset);

/* The job of `known` an update naming (id, task, offset) applies to for
 * the plugin (borrowed): a het component by leader and offset, an array
 * task (or the pending array record holding it), or the job with that id;
 * NULL when none.  *het_all is set when the update names a heterogeneous
 * job's leader alone: Slurm then applies it to every component
 * (doc/thread.md "Updates"). */
const struct known_job *known_target(const struct known_jobs *known,
				     uint32_t id, uint32_t task,
				     uint32_t offset, bool *het_all);

/* Counts the census (census.h) of `known` (the round's pending jobs
 * with a request, each with its request_hash) into *fresh, valid; the
 * thread does it outside its lock (a sort of every job).  -1 when out of
 * memory (*fresh then empty). */
int census_count(const struct known_jobs *known, struct census *fresh);

#endif
