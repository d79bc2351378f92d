/*
 * caps.h - the plugin's one census of the pending requests (census.h)
 * and the lock that guards it: the caps MaxPendingRequests,
 * MaxPendingRequestsPerUser and MaxPreferringJobsPerUser (extra.conf(5);
 * doc/design.md "Caps") count against it: job_submit() and
 * job_modify() take burst_buffer/extra's look's count (guard_caps.h).
 *
 * Each function below takes the census' lock itself, for its own
 * length: inside guard_caps.c's, never the other way round.
 */
#ifndef SLURM_EXTRA_CAPS_H
#define SLURM_EXTRA_CAPS_H

#include <stddef.h>
#include <stdint.h>

#include "census.h"
#include "guard_api.h"

/* census_admit() against the plugin's census: 0 admitted (recorded),
 * 1 refused by a cap (`why`, `size` bytes, names the setting), -1 out of
 * memory.  `max_total` and `max_user`: the settings (0: no cap). */
int caps_admit(uint32_t uid, uint64_t hash, size_t max_total, size_t max_user,
	       char *why, size_t size);

/* census_admit_prefer() against it (`max_user`:
 * MaxPreferringJobsPerUser, 0: no cap); the same answers. */
int caps_admit_prefer(uint32_t uid, size_t max_user, char *why, size_t size);

/* census_take(): *fresh (census_count_jobs(), emptied) becomes the
 * census, the entries admitted up to number `upto` forgotten. */
void caps_take(struct census *fresh, uint64_t upto);

/* The census counted from `jobs` (n of them: the look's, guard_api.h)
 * and taken as caps_take() does.  -1 out of memory: the caps forgotten
 * (nothing refused) until the next count. */
int caps_take_jobs(const struct sx_guard_census_job *jobs, size_t n,
		   uint64_t upto);

/* No census: nothing refused until the next is taken (a count failed). */
void caps_invalidate(void);

/* The number of the last request or preferring job admitted (census.h's
 * seq): a count of the jobs begun after it holds it. */
uint64_t caps_seq(void);

/* Frees the census (fini(), and the tests), its number kept: a number
 * read before stays below every one admitted after. */
void caps_free(void);

/* The census itself, for the tests. */
struct census *caps_census(void);

#endif
