/*
 * modify.h - what job_modify()'s two files share (modify.c, the update
 * where the plugin filters; modify_prefer.c, the preferences).  Private
 * to plugin/; every function runs with slurmctld's locks held, as
 * job_modify() does.
 */
#ifndef SLURM_EXTRA_MODIFY_H
#define SLURM_EXTRA_MODIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "slurm_compat.h"
#include "prefer.h"
#include "thread.h"

/* Who hint `h` comes from: `submit_uid`, privileged when root or
 * SlurmUser; `trusted` when Slurm checked the caller before job_modify()
 * (23.02+) or will accept them (22.05: the owner, root, SlurmUser).  A
 * trusted hint counts among the hints of the owner of the job `k` it
 * names, any other among the caller's own (hints.h `owner`), so that
 * another user's updates never spend an owner's bounds. */
void hint_caller(struct job_hint *h, const struct known_job *k,
		 uint32_t submit_uid, bool trusted);

/*
 * With the thread's lock held: an owner's change of the preferences of the
 * job update `d` names (`slurm-extra prefer`; prefer.h, struct
 * prefer_change; doc/preferences.md "Preferences", "Changing them"), read from
 * its SPANK environment (`got`: prefer_change_from_env()'s answer, `why`
 * its reason when 2), into hint `h` (its tiers moved out of `c`), which
 * the thread takes as it is at its next round.
 *   - Of a caller Slurm may still refuse (h->trusted false: 22.05, not the
 *     owner, root or SlurmUser) nothing is read: Slurm answers them as
 *     without the plugin.  On 22.05 the owner is told also of a job the
 *     thread does not know yet (`k` NULL): _update_job() sets the
 *     update's user_id to the job's owner before job_modify() (a caller
 *     but a super user cannot send one: _slurm_rpc_update_job(),
 *     src/slurmctld/job_mgr.c and proc_req.c, 22.05.8).
 *   - A caller Slurm let update the job who is not its owner, root or
 *     SlurmUser (23.02+: an operator, a coordinator) is refused: the
 *     preferences are the owner's.
 *   - Otherwise it must come alone (Slurm may refuse the rest of the
 *     update after job_modify(), and the change would still be taken),
 *     each tier is checked as a request, and the wait; a job given
 *     preferences counts against MaxPreferringJobsPerUser.
 * SLURM_SUCCESS or the refusal.
 */
int take_prefer(const job_desc_msg_t *d, struct prefer_change *c, int got,
		const char *why, const struct known_job *k, uint32_t submit_uid,
		struct job_hint *h, char **err_msg);

/*
 * Carrier=guard: the change `c` of the preferences of job record
 * `job_ptr` (prefer_change_from_env()'s `got` and `why`) by `submit_uid`,
 * written into the job's state at once through `api` (burst_buffer/
 * extra's, slurm/guard_api.h): no thread carries it, and Slurm would
 * refuse the owner an AdminComment.  Only the job's owner, root and
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
