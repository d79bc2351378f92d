/*
 * job_loads.h - which jobs a round of the thread loads from slurmctld
 * beside a load of every job (doc/thread.md "Work follows change"): the
 * jobs users' updates named (job_modify()'s hints), each loaded alone
 * with slurm_load_job() and put in place of its records in the thread's
 * copy of the jobs (thread_load_hinted(), kept_jobs_splice()); and the jobs whose updates Slurm refused, planned
 * again after a delay that doubles with each refusal, so that neither a
 * user's loop of updates of their own job nor a job whose update is
 * refused again and again has the thread load every job.  Thread only,
 * but for what is said.
 */
#ifndef SLURM_EXTRA_JOB_LOADS_H
#define SLURM_EXTRA_JOB_LOADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "slurm_compat.h"
#include "job_update.h"
#include "known_jobs.h"

/* At most this many jobs (distinct ids a hint names) are loaded one by one
 * in a round; more, and the round loads every job, at the pace of users'
 * asks (JOBS_PACED_S, thread_private.h).  A load of one job costs
 * slurmctld one job's pack (pack_one_job(), src/slurmctld/job_mgr.c),
 * 64 of them far less than a load of every job at the sizes where that
 * matters. */
#define HINTED_LOAD_MAX 64

/* The jobs whose updates Slurm refused, each planned again (a hint of its
 * own, without content: hints.h) once its delay passed: 1 s after the
 * first refusal, doubling up to JOB_RETRY_MAX_S; forgotten when its
 * update is taken, or JOB_RETRY_KEEP_S after its last retry.  At most
 * HINTS_MAX jobs; past that a refusal has every job planned again
 * (job_retry_refused()'s answer). */
#define JOB_RETRY_MAX_S 64
#define JOB_RETRY_KEEP_S (2 * JOB_RETRY_MAX_S)

struct job_retry {
	uint32_t job_id;
	uint32_t user_id;     /* its owner: whose hints the retry counts
				  among */
	unsigned delay_s;     /* the last delay (1, 2, 4 ... JOB_RETRY_MAX_S) */
	struct timespec next; /* when it is planned again (CLOCK_MONOTONIC),
				  or, once retried, forgotten */
	bool retried;	      /* its retry was given (job_retry_due) */
};

struct job_retries {
	struct job_retry *v; /* by job_id */
	size_t n, cap;
};

/* The outcome of the round's `n` updates `ups` at `now` (CLOCK_MONOTONIC):
 * each refused one's job gets its next delay, each taken one's is
 * forgotten.  false when a refused job could not be kept (the bound, or
 * memory): the caller plans every job again. */
bool job_retry_refused(struct job_retries *t, const struct job_update *ups,
		       size_t n, const struct timespec *now);

/* The jobs whose delay passed at `now`, at most `max` of them, into
 * ids[] and owners[] (marked retried: each once a refusal), and those
 * retried JOB_RETRY_KEEP_S ago forgotten.  How many. */
size_t job_retry_due(struct job_retries *t, const struct timespec *now,
		     uint32_t *ids, uint32_t *owners, size_t max);

/* Frees `t` and empties it. */
void job_retries_free(struct job_retries *t);

#endif
