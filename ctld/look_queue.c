/*
 * look_queue.c - the jobs the look visits between its walks of every job
 * (look_queue.h).  A ring of job ids under a mutex: the general-purpose
 * piece is twenty lines, smaller than a dependency for it.
 */
#include <pthread.h>

#include "look_queue.h"

static uint32_t ring[LOOK_QUEUE_CAP];
static size_t from, count;
static bool lost;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

bool look_queue_push(uint32_t job_id)
{
	bool ok = true;

	if (!job_id)
		return true;
	pthread_mutex_lock(&lock);
	if (count && ring[(from + count - 1) % LOOK_QUEUE_CAP] == job_id) {
		/* (the last one again: an update refused, retried) */
	} else if (count == LOOK_QUEUE_CAP) {
		lost = true;
		ok = false;
	} else {
		ring[(from + count++) % LOOK_QUEUE_CAP] = job_id;
	}
	pthread_mutex_unlock(&lock);
	return ok;
}

size_t look_queue_take(uint32_t *ids, size_t cap, bool *overflowed)
{
	size_t n = 0;

	pthread_mutex_lock(&lock);
	for (; n < cap && count; n++, count--) {
		ids[n] = ring[from];
		from = (from + 1) % LOOK_QUEUE_CAP;
	}
	if (overflowed) {
		*overflowed = lost;
		lost = false;
	}
	pthread_mutex_unlock(&lock);
	return n;
}

void look_queue_clear(void)
{
	pthread_mutex_lock(&lock);
	from = count = 0;
	lost = false;
	pthread_mutex_unlock(&lock);
}

size_t look_queue_count(void)
{
	size_t n;

	pthread_mutex_lock(&lock);
	n = count;
	pthread_mutex_unlock(&lock);
	return n;
}
