/*
 * modify.h - what job_modify()'s two files share (modify.c, the update;
 * modify_prefer.c, burst_buffer/extra's jobs' preferences and requests
 * written into their state).  Private
 * to plugin/; every function runs with slurmctld's locks held, as
 * job_modify() does.
 */
#ifndef SLURM_EXTRA_MODIFY_H
#define SLURM_EXTRA_MODIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "slurm_compat.h"
#include "prefer.h"
#include "guard_api.h"

/*
 * Carrier=guard: the change `c` of the preferences of job record
 * `job_ptr` (prefer_change_from_env()'s `got` and `why`) by `submit_uid`,
 * written into the job's state at once through `api` (burst_buffer/
 * extra's, slurm/guard_api.h): Slurm would refuse the owner an
 * AdminComment.  Only the job's owner, root and
 * SlurmUser change it (22.05 checks the caller after job_modify(): anyone
 * else is refused here, as Slurm refuses them the update); the tiers are
 * checked as at submission, alone in their update; a job without a
 * request has none to change.  SLURM_SUCCESS or the refusal.
 */
int guard_change_prefer(job_desc_msg_t *job_desc,
			const struct sx_guard_api *api, void *job_ptr,
			uint32_t submit_uid, struct prefer_change *c, int got,
			const char *why, char **err_msg);

/*
 * Carrier=guard: a new request (`scontrol update job=N extra=...`, 23.02+;
 * already checked as at submission by modify_as()) of job record
 * `job_ptr`, written into its state at once through `api`: the request
 * (the text the state shows; burst_buffer/extra reads the job's Extra,
 * which Slurm sets itself, wherever the state's mark is:
 * records_request_of(), ctld/records.h), a state made for a job that
 * had none (as at submission: status SX_GUARD_STATUS, the job's own
 * ExcNodeList and its hash); an empty one leaves the state with no
 * request, so that an update Slurm refuses after job_modify() (a bad
 * partition, say: _update_job(), src/slurmctld/job_mgr.c 24.11.5) never
 * leaves a job's request unguarded.  Slurm checked the caller before
 * job_modify() there (the owner, an operator, a coordinator).  A state
 * that cannot be read is not written over: refused.  No request in the
 * update: nothing.  SLURM_SUCCESS or the refusal.
 */
int guard_change_request(job_desc_msg_t *job_desc,
			 const struct sx_guard_api *api, void *job_ptr,
			 uint32_t submit_uid, char **err_msg);

#endif
