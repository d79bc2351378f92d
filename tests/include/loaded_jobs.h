/*
 * loaded_jobs.h - pending job records as the plugin's thread loads them,
 * each asking gpu=true with the state the plugin wrote for it: what the
 * re-filtering tests (test_refilter_fixture.h) and the plugin's
 * (test_plugin_fixture.h) build their jobs from.  Static inline: the
 * plugin's tests include the plugin's source and link no fixture.
 */
#ifndef TESTS_LOADED_JOBS_H
#define TESTS_LOADED_JOBS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <slurm/slurm.h>

#include "job_filter.h"
#include "job_state.h"
#include "slurm_compat.h"

#define REQUEST "gpu=true"
#define TWO_OF_FOUR "2 of 4 nodes satisfy the request"
#define ONE_OF_FOUR "1 of 4 nodes satisfy the request"

/* A pending plain job of `user_id`, without an id or state yet. */
static inline void job_pending(slurm_job_info_t *j, uint32_t user_id)
{
	j->array_task_id = NO_VAL;
	j->job_state = JOB_PENDING;
	j->priority = 1000;
	j->user_id = user_id;
}

/* Job `j`: id `job_id`, ExcNodeList `exc` (NULL: none), and the plugin's
 * state for the request gpu=true with `status`, `held` and the user's own
 * `exclude` (job_free). */
static inline void job_set(slurm_job_info_t *j, uint32_t job_id,
			   const char *exc, const char *status, bool held,
			   const char *exclude)
{
	/* as the plugin wrote it: wrote= the hash of the job's list */
	struct sx_job_state state = { .status = (char *)status,
				      .held = held,
				      .wrote = hostlist_hash(exc),
				      .exclude = (char *)exclude,
				      .request = REQUEST };

	j->job_id = job_id;
	j->exc_nodes = exc ? strdup(exc) : NULL;
	j->admin_comment = sx_job_state_format(&state);
	cr_assert_not_null(j->admin_comment);
#if SX_SLURM_HAS_EXTRA_OPTION
	j->extra = strdup(REQUEST); /* from 23.02 the job's own request */
#endif
}

/* Job `j` is component `offset` of heterogeneous job `het_job_id`. */
static inline void job_het(slurm_job_info_t *j, uint32_t het_job_id,
			   uint32_t offset)
{
	j->het_job_id = het_job_id;
	j->het_job_offset = offset;
}

/* Job `j` is task `task` of array job `array_job_id`, a record of its own. */
static inline void job_array_task(slurm_job_info_t *j, uint32_t array_job_id,
				  uint32_t task)
{
	j->array_job_id = array_job_id;
	j->array_task_id = task;
}

/* Frees the strings set in job `j`. */
static inline void job_free(slurm_job_info_t *j)
{
	free(j->exc_nodes);
	free(j->req_nodes);
	free(j->admin_comment);
	free(j->features);
	free(j->prefer);
#if SX_SLURM_HAS_EXTRA_OPTION
	free(j->extra);
#endif
}

#endif
