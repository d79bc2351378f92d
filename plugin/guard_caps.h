/*
 * guard_caps.h - the caps on distinct pending requests and on pending
 * jobs with preferences (MaxPendingRequests, MaxPendingRequestsPerUser,
 * MaxPreferringJobsPerUser; doc/design.md "Caps") where burst_buffer/
 * extra filters (Carrier=guard, doc/guard.md "The guard alone"): the
 * census (caps.h) is the look's count at its last whole walk
 * (ctld/look_census.h, lent through guard_api.h), with the requests
 * admitted since.
 */
#ifndef SLURM_EXTRA_GUARD_CAPS_H
#define SLURM_EXTRA_GUARD_CAPS_H

#include <stdbool.h>
#include <stdint.h>

#include "guard_api.h"
#include "job_state.h"

/* Seconds before the walk's start that a request admitted must be for
 * the walk to be taken to hold its job: job_submit() runs under the job
 * read lock, the job is made later under the write lock, and the look
 * may walk in between: behind backfill's holds, and behind the other
 * submissions, which Slurm lets allocate one at a time
 * (_throttle_start(), src/slurmctld/proc_req.c: some 60 ms each at
 * 65,536 nodes, so that a burst of a thousand takes a minute). */
#define GUARD_CENSUS_MARGIN_S 60

/*
 * Whether `owner` may have one more pending job with request `request`
 * (its text as the job will hold it: the look counts the same text) and
 * the tiers of `st` (may have none), counted against the caps as a
 * submission is where the plugin filters (census_admit()), and, when
 * `preferring` (a job given preferences it had none of), against
 * MaxPreferringJobsPerUser.  The look's newest count is taken first when
 * `api` lends one.  Without one (no walk yet, another build), nothing is
 * refused, as before a first count.  SLURM_SUCCESS (admitted,
 * recorded) or the refusal (ESLURM_ACCOUNTING_POLICY naming the setting;
 * SLURM_ERROR out of memory).  With slurmctld's job lock held (read at
 * least).
 */
int guard_admit(const struct sx_guard_api *api, uint32_t owner,
		const char *request, const struct sx_job_state *st,
		bool preferring, char **err_msg);

/* Forgets the marks and the walk taken (fini(): the census goes with
 * them, caps_free()). */
void guard_caps_forget(void);

#endif
