/*
 * guard_caps.c - the caps where burst_buffer/extra alone filters
 * (guard_caps.h).
 */
#include <time.h>

#include "entry.h"
#include "guard_caps.h"
#include "prefer.h"

/* The number of the last request admitted in each of the last MARKS
 * seconds that admitted one (a second's slot reused MARKS seconds
 * later), so that the census of a walk begun at T forgets those admitted
 * before T - GUARD_CENSUS_MARGIN_S.  Under the thread's lock. */
#define MARKS 64
static struct {
	time_t at;
	uint64_t seq;
} marks[MARKS];
static uint64_t walk_taken;

static void mark(time_t now, uint64_t seq)
{
	marks[(size_t)now % MARKS].at = now;
	marks[(size_t)now % MARKS].seq = seq;
}

/* The last request admitted at `before` or earlier, as far as the marks
 * tell (0: none known; a mark overwritten leaves an earlier one, so that
 * fewer are forgotten: counted twice at worst, never missed). */
static uint64_t upto(time_t before)
{
	uint64_t best = 0;

	for (size_t k = 0; k < MARKS; k++)
		if (marks[k].at && marks[k].at <= before && marks[k].seq > best)
			best = marks[k].seq;
	return best;
}

int guard_admit(const struct sx_guard_api *api, uint32_t owner,
		const char *request, const struct sx_job_state *st,
		bool preferring, char **err_msg)
{
	const struct sx_guard_census_job *jobs;
	long long at;
	uint64_t walk;
	size_t n;
	int rc;

	thread_lock(entry_thread);
	if (api && api->census(&jobs, &n, &at, &walk) == 0 &&
	    walk != walk_taken) {
		/* out of memory: no caps until the next walk's count */
		(void)thread_census_take(
			entry_thread, jobs, n,
			upto((time_t)at - GUARD_CENSUS_MARGIN_S));
		walk_taken = walk;
	}
	rc = admit_hash(prefer_census_hash(request, st), owner, err_msg);
	if (rc == SLURM_SUCCESS && preferring)
		rc = admit_prefer(owner, err_msg);
	mark(time(NULL), thread_census_seq(entry_thread));
	thread_unlock(entry_thread);
	return rc;
}
