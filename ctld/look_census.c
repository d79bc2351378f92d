/*
 * look_census.c - the pending jobs with a request, counted at each of the
 * look's walks (look_census.h).
 */
#include <stdbool.h>
#include <stdlib.h>

#include "look_census.h"
#include "prefer.h"
#include "xc_util.h"

struct count {
	struct sx_guard_census_job *jobs;
	size_t n, cap;
	time_t at;
	bool bad; /* out of memory: not published */
};

static struct count walking, last;
static uint64_t walks;	/* whole walks published */
static bool last_holds; /* the last published is the newest walk's */

void look_census_begin(time_t at)
{
	walking.n = 0;
	walking.at = at;
	walking.bad = false;
}

void look_census_add(uint32_t uid, const char *text,
		     const struct sx_job_state *st)
{
	if (walking.bad)
		return;
	if (xc_grow((void **)&walking.jobs, &walking.cap, walking.n + 1,
		    sizeof(*walking.jobs)) < 0) {
		walking.bad = true;
		return;
	}
	walking.jobs[walking.n++] = (struct sx_guard_census_job){
		.uid = uid,
		.hash = prefer_census_hash(text, st),
		.prefers = st && st->n_prefer > 0,
	};
}

void look_census_fail(void)
{
	walking.bad = true;
}

void look_census_end(void)
{
	struct count t;

	last_holds = !walking.bad;
	if (walking.bad)
		return;
	t = last;
	last = walking;
	walking = t; /* its memory reused by the next walk */
	walks++;
}

void look_census_still(time_t now)
{
	if (!walks || !last_holds || last.at >= now)
		return;
	last.at = now;
	walks++;
}

int look_census_get(const struct sx_guard_census_job **jobs, size_t *n,
		    long long *walked_at, uint64_t *walk)
{
	if (!walks)
		return -1;
	*jobs = last.jobs;
	*n = last.n;
	*walked_at = (long long)last.at;
	*walk = walks;
	return 0;
}

void look_census_free(void)
{
	free(walking.jobs);
	free(last.jobs);
	walking = last = (struct count){ 0 };
	walks = 0;
	last_holds = false;
}
