/*
 * look_dues.c - when the waits of the pending jobs with preferences end
 * (look_dues.h).
 */
#include <stdlib.h>

#include "job_state.h"
#include "look_dues.h"
#include "prefer.h"

struct due {
	uint32_t job_id;
	long wait;
	time_t at; /* when its wait ends; 0: not eligible yet */
};

struct dues {
	struct due *d;
	size_t n, cap;
	bool bad; /* out of memory: not published */
};

static struct dues walking, last;
/* the first unknown end of `last` that the next call reads, so that a
 * budget too small for them all still reaches each in turn */
static size_t next_unknown;

/* prefer_deadline() for a job with wait `wait` eligible at `eligible` */
static time_t deadline(long wait, time_t eligible)
{
	struct sx_job_state st = { .wait = wait };

	return prefer_deadline(&st, eligible);
}

void look_dues_begin(void)
{
	walking.n = 0;
	walking.bad = false;
}

void look_dues_add(uint32_t job_id, long wait, time_t eligible, time_t now)
{
	time_t at = deadline(wait, eligible);

	if (walking.bad || (at && at <= now))
		return;
	if (walking.n == walking.cap) {
		size_t cap = walking.cap ? 2 * walking.cap : 256;
		struct due *d = realloc(walking.d, cap * sizeof(*d));

		if (!d) {
			walking.bad = true;
			return;
		}
		walking.d = d;
		walking.cap = cap;
	}
	walking.d[walking.n++] = (struct due){ job_id, wait, at };
}

void look_dues_end(void)
{
	struct dues t;

	if (walking.bad)
		return;
	t = last;
	last = walking;
	walking = t; /* its memory reused by the next walk */
	next_unknown = 0;
}

bool look_dues_due(time_t now, look_due_eligible_fn eligible_of, void *arg,
		   size_t *budget)
{
	bool due = false;
	size_t i = 0, start = next_unknown;

	while (i < last.n) {
		struct due *d = &last.d[i];

		if (!d->at && i >= start && *budget) {
			time_t eligible = eligible_of(d->job_id, arg);

			--*budget;
			next_unknown = i + 1;
			if (eligible < 0) {
				*d = last.d[--last.n]; /* no longer waits */
				continue;
			}
			d->at = deadline(d->wait, eligible);
		}
		if (d->at && d->at <= now) {
			due = true;
			*d = last.d[--last.n];
			continue;
		}
		i++;
	}
	if (next_unknown >= last.n)
		next_unknown = 0;
	return due;
}

size_t look_dues_count(void)
{
	return last.n;
}

void look_dues_free(void)
{
	free(walking.d);
	free(last.d);
	walking = last = (struct dues){ 0 };
	next_unknown = 0;
}
