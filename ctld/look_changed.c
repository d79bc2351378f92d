/*
 * look_changed.c - what the look's walk of what changed visits
 * (look_changed.h).
 */
#include <stdlib.h>

#include "look.h"
#include "look_changed.h"
#include "look_queue.h"

static uint32_t *carried, queued[LOOK_CHANGED_PIECE];
static size_t carried_cap, carried_n, carried_at, queued_n, queued_at;

bool look_changed_take(void)
{
	bool lost = false;

	if (queued_at < queued_n)
		return false;
	queued_at = 0;
	queued_n = look_queue_take(queued, LOOK_CHANGED_PIECE, &lost);
	return lost;
}

bool look_changed_carrying(void)
{
	return carried_at < carried_n;
}

bool look_changed_list_due(uint64_t changes, uint64_t seen)
{
	return !look_changed_carrying() && changes != seen;
}

int look_changed_carry(const struct look *lk)
{
	size_t n = look_jobs_carried(lk, carried, carried_cap);

	if (n > carried_cap) {
		uint32_t *more = realloc(carried, n * sizeof(*more));

		if (!more)
			return -1;
		carried = more;
		carried_cap = n;
		n = look_jobs_carried(lk, carried, carried_cap);
	}
	carried_n = n;
	carried_at = 0;
	return 0;
}

uint32_t look_changed_next(void)
{
	if (queued_at < queued_n)
		return queued[queued_at];
	return carried_at < carried_n ? carried[carried_at] : 0;
}

void look_changed_visited(void)
{
	if (queued_at < queued_n)
		queued_at++;
	else if (carried_at < carried_n)
		carried_at++;
}

void look_changed_clear(void)
{
	carried_n = carried_at = queued_n = queued_at = 0;
}

void look_changed_free(void)
{
	free(carried);
	carried = NULL;
	carried_cap = 0;
	look_changed_clear();
}
