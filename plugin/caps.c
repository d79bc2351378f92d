/*
 * caps.c - the plugin's one census and its lock (caps.h).
 */
#include <pthread.h>
#include <stdlib.h>

#include "caps.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct census census;

int caps_admit(uint32_t uid, uint64_t hash, size_t max_total, size_t max_user,
	       char *why, size_t size)
{
	int rc;

	pthread_mutex_lock(&lock);
	rc = census_admit(&census, uid, hash, max_total, max_user, why, size);
	pthread_mutex_unlock(&lock);
	return rc;
}

int caps_admit_prefer(uint32_t uid, size_t max_user, char *why, size_t size)
{
	int rc;

	pthread_mutex_lock(&lock);
	rc = census_admit_prefer(&census, uid, max_user, why, size);
	pthread_mutex_unlock(&lock);
	return rc;
}

void caps_take(struct census *fresh, uint64_t upto)
{
	pthread_mutex_lock(&lock);
	census_take(&census, fresh, upto);
	pthread_mutex_unlock(&lock);
}

int caps_take_jobs(const struct sx_guard_census_job *jobs, size_t n,
		   uint64_t upto)
{
	struct census_job *mine = calloc(n ? n : 1, sizeof(*mine));
	struct census fresh = { 0 };
	int rc = -1;

	for (size_t i = 0; mine && i < n; i++)
		mine[i] = (struct census_job){ .uid = jobs[i].uid,
					       .hash = jobs[i].hash,
					       .prefers = jobs[i].prefers };
	if (mine)
		rc = census_count_jobs(mine, n, &fresh);
	free(mine); /* (the count a sort, outside the lock) */
	if (rc < 0) {
		caps_invalidate();
		return -1;
	}
	caps_take(&fresh, upto);
	return 0;
}

void caps_invalidate(void)
{
	pthread_mutex_lock(&lock);
	census_invalidate(&census);
	pthread_mutex_unlock(&lock);
}

uint64_t caps_seq(void)
{
	uint64_t seq;

	pthread_mutex_lock(&lock);
	seq = census.seq;
	pthread_mutex_unlock(&lock);
	return seq;
}

void caps_free(void)
{
	uint64_t seq;

	pthread_mutex_lock(&lock);
	seq = census.seq; /* (kept: numbers read before stay below it) */
	census_free(&census);
	census.seq = seq;
	pthread_mutex_unlock(&lock);
}

struct census *caps_census(void)
{
	return &census;
}
