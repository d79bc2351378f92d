/*
 * look_dues.c - when the waits of the pending jobs with preferences end
 * (look_dues.h).
 */
#include <stdlib.h>

#include "job_state.h"
#include "look_dues.h"
#include "prefer.h"
#include "xc_util.h"

/* a job not eligible when listed: read again until it is */
struct unknown {
	uint32_t job_id;
	long wait;
};

/* A walk's list: the known ends (times), the jobs not eligible yet. */
struct dues {
	time_t *ends;
	size_t n_ends, cap_ends;
	time_t next; /* the earliest of ends (0: none) */
	struct unknown *u;
	size_t n_u, cap_u;
	bool bad; /* out of memory: not published */
};

static struct dues walking, last;
/* where the next call reads the jobs not eligible yet: each in turn */
static size_t next_unknown;

/* prefer_deadline() for a job with wait `wait` eligible at `eligible` */
static time_t deadline(long wait, time_t eligible)
{
	struct sx_job_state st = { .wait = wait };

	return prefer_deadline(&st, eligible);
}

/* One more known end in `l`; false out of memory. */
static bool end_add(struct dues *l, time_t at)
{
	if (xc_grow((void **)&l->ends, &l->cap_ends, l->n_ends + 1,
		    sizeof(*l->ends)) < 0)
		return false;
	l->ends[l->n_ends++] = at;
	if (!l->next || at < l->next)
		l->next = at;
	return true;
}

void look_dues_begin(void)
{
	walking.n_ends = walking.n_u = 0;
	walking.next = 0;
	walking.bad = false;
}

void look_dues_add(uint32_t job_id, long wait, time_t eligible, time_t since)
{
	time_t at = deadline(wait, eligible);

	/* (a try in the second the wait ended may have come before it) */
	if (walking.bad || (at && at < since))
		return;
	if (at) {
		walking.bad = !end_add(&walking, at);
		return;
	}
	if (xc_grow((void **)&walking.u, &walking.cap_u, walking.n_u + 1,
		    sizeof(*walking.u)) < 0) {
		walking.bad = true;
		return;
	}
	walking.u[walking.n_u++] = (struct unknown){ job_id, wait };
}

void look_dues_fail(void)
{
	walking.bad = true;
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

/* The jobs not eligible yet, read in turn from next_unknown, at most
 * `reads` of them: those now eligible join the known ends, those gone
 * leave; the others keep their order.  Returns how many it read. */
static size_t read_unknown(look_due_eligible_fn eligible_of, void *arg,
			   size_t reads)
{
	size_t n = last.n_u, start, kept = 0, stop, turn;

	if (!n || !reads)
		return 0;
	start = next_unknown < n ? next_unknown : 0;
	stop = reads < n ? reads : n;
	/* mark in turn (-1: gone or known, its end added), then compact */
	for (size_t c = 0; c < stop; c++) {
		size_t i = (start + c) % n;
		struct unknown *u = &last.u[i];
		time_t e = eligible_of(u->job_id, arg);

		/* (out of memory: read again next time) */
		if (e < 0 || (e > 0 && end_add(&last, deadline(u->wait, e))))
			u->wait = -1;
	}
	/* the next turn: the first not read, its index less those before
	 * it that leave */
	turn = next_unknown = (start + stop) % n;
	for (size_t i = 0; i < n; i++) {
		if (last.u[i].wait == -1) {
			if (i < turn)
				next_unknown--;
			continue;
		}
		last.u[kept++] = last.u[i];
	}
	last.n_u = kept;
	if (next_unknown >= kept)
		next_unknown = 0;
	return stop;
}

bool look_dues_due(time_t now, look_due_eligible_fn eligible_of, void *arg,
		   size_t *budget)
{
	size_t reads = *budget < LOOK_DUES_READS ? *budget : LOOK_DUES_READS;
	size_t kept = 0;
	time_t next = 0;

	*budget -= read_unknown(eligible_of, arg, reads);
	if (!last.next || last.next > now)
		return false;
	for (size_t i = 0; i < last.n_ends; i++) {
		if (last.ends[i] <= now)
			continue;
		if (!next || last.ends[i] < next)
			next = last.ends[i];
		last.ends[kept++] = last.ends[i];
	}
	last.n_ends = kept;
	last.next = next;
	return true;
}

size_t look_dues_count(void)
{
	return last.n_ends + last.n_u;
}

void look_dues_free(void)
{
	free(walking.ends);
	free(walking.u);
	free(last.ends);
	free(last.u);
	walking = last = (struct dues){ 0 };
	next_unknown = 0;
}
