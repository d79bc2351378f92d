/*
 * guard_caps.c - the caps where burst_buffer/extra alone filters
 * (guard_caps.h).
 */
#include <pthread.h>
#include <time.h>

#include "caps.h"
#include "entry.h"
#include "guard_caps.h"
#include "prefer.h"

/* The number of the last request admitted in each second that admitted
 * one since the census was last taken, oldest first, so that the census
 * of a walk begun at T forgets those admitted before
 * T - GUARD_CENSUS_MARGIN_S: as long as walks take.  At most MARKS
 * seconds (the oldest dropped past them: fewer forgotten then, never one
 * whose job a walk did not hold).  Under `lock`. */
#define MARKS 4096
static struct mark {
	time_t at;
	uint64_t seq;
} marks[MARKS];
static size_t marks_from, marks_n; /* a ring: the oldest, how many */
static uint64_t walk_taken;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static struct mark *mark_at(size_t k)
{
	return &marks[(marks_from + k) % MARKS];
}

static void mark(time_t now, uint64_t seq)
{
	struct mark *last = marks_n ? mark_at(marks_n - 1) : NULL;

	if (last && last->seq == seq)
		return; /* nothing admitted since */
	if (last && last->at == now) {
		last->seq = seq;
		return;
	}
	if (marks_n == MARKS) {
		marks_from = (marks_from + 1) % MARKS;
		marks_n--;
	}
	*mark_at(marks_n++) = (struct mark){ now, seq };
}

/* The last request admitted at `before` or earlier (0: none known), the
 * marks up to it dropped: the census taken forgets up to it. */
static uint64_t upto(time_t before)
{
	uint64_t best = 0;

	while (marks_n && mark_at(0)->at <= before) {
		best = mark_at(0)->seq;
		marks_from = (marks_from + 1) % MARKS;
		marks_n--;
	}
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

	/* (job_submit() may run beside another under the job read lock:
	 * the marks and the walk taken are this lock's) */
	pthread_mutex_lock(&lock);
	if (api && api->census(&jobs, &n, &at, &walk) == 0 &&
	    walk != walk_taken) {
		/* out of memory: no caps until the next walk's count */
		(void)caps_take_jobs(jobs, n,
				     upto((time_t)at - GUARD_CENSUS_MARGIN_S));
		walk_taken = walk;
	}
	rc = admit_hash(prefer_census_hash(request, st), owner, err_msg);
	if (rc == SLURM_SUCCESS && preferring)
		rc = admit_prefer(owner, err_msg);
	mark(time(NULL), caps_seq());
	pthread_mutex_unlock(&lock);
	return rc;
}

void guard_caps_forget(void)
{
	pthread_mutex_lock(&lock);
	marks_from = marks_n = 0;
	walk_taken = 0;
	pthread_mutex_unlock(&lock);
}
