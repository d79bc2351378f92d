/*
 * guard_jobs.c - what the guard at placement remembers of each job
 * (guard.h, struct guard_taken): the states it left the job's excluded
 * nodes in and the nodes it added, taken back only from a bitmap equal to
 * one it left.
 */
#include <stdlib.h>
#include <string.h>

#include "guard_private.h"

/* The slot of job `id`, or the free slot it would take; NULL when the
 * table has no slots yet. */
static struct job_rec *job_slot(const struct guard *g, uint32_t id)
{
	if (!g->jobs_cap)
		return NULL;
	for (size_t k = (id * 2654435761u) & (g->jobs_cap - 1);;
	     k = (k + 1) & (g->jobs_cap - 1))
		if (g->jobs[k].id == id || !g->jobs[k].id)
			return &g->jobs[k];
}

static void left_clear(struct guard *g, struct left *l)
{
	if (l->bits)
		g->ops->free(l->bits);
	free(l->nodes);
	memset(l, 0, sizeof(*l));
}

/* Frees what slot `r` holds, leaving it as it is in the table. */
void guard_job_clear(struct guard *g, struct job_rec *r)
{
	for (int s = 0; s < 2; s++)
		left_clear(g, &r->left[s]);
}

/* Removes the record in slot `r` (backward-shift deletion, so that every
 * other record stays reachable from its home slot). */
static void job_remove(struct guard *g, struct job_rec *r)
{
	size_t hole = (size_t)(r - g->jobs), k = hole;

	guard_job_clear(g, r);
	memset(r, 0, sizeof(*r));
	g->jobs_n--;
	for (;;) {
		size_t home;

		k = (k + 1) & (g->jobs_cap - 1);
		if (!g->jobs[k].id)
			return;
		home = (g->jobs[k].id * 2654435761u) & (g->jobs_cap - 1);
		/* moves back unless its home lies in (hole, k] */
		if ((k > hole) ? (home <= hole || home > k)
			       : (home <= hole && home > k)) {
			g->jobs[hole] = g->jobs[k];
			memset(&g->jobs[k], 0, sizeof(g->jobs[k]));
			hole = k;
		}
	}
}

static int jobs_grow(struct guard *g)
{
	size_t cap = g->jobs_cap ? 2 * g->jobs_cap : 64;
	struct job_rec *old = g->jobs, *grown = calloc(cap, sizeof(*grown));
	size_t oldcap = g->jobs_cap;

	if (!grown)
		return -1;
	g->jobs = grown;
	g->jobs_cap = cap;
	for (size_t k = 0; k < oldcap; k++)
		if (old[k].id)
			*job_slot(g, old[k].id) = old[k];
	free(old);
	g->sweep_at = 0;
	return 0;
}

/* The state of `r` that `bits` (text hash `text`) is, or -1. */
static int matching(const struct guard *g, const struct job_rec *r,
		    const void *bits, unsigned long long text)
{
	for (int s = 0; r && r->id && s < 2; s++)
		if (r->left[s].bits && r->left[s].text == text &&
		    g->ops->equal(r->left[s].bits, bits))
			return s;
	return -1;
}

size_t guard_job_take_back(struct guard *g, const struct guard_bits_ops *ops,
			   uint32_t job_id, uint32_t alt_id, void *bits,
			   unsigned long long text, struct guard_taken *t,
			   void (*clear)(void *bits, uint32_t node, void *arg),
			   void *arg)
{
	struct job_rec *r = job_id ? job_slot(g, job_id) : NULL;
	int s;

	g->ops = ops;
	t->slot = -1;
	if ((s = matching(g, r, bits, text)) < 0 && alt_id &&
	    alt_id != job_id) {
		/* an array's next record, given the bitmap as it was left:
		 * its bits go, the record stays the other job's */
		struct job_rec *a = job_slot(g, alt_id);
		int as = matching(g, a, bits, text);

		if (as >= 0) {
			for (size_t k = 0; k < a->left[as].n; k++)
				clear(bits, a->left[as].nodes[k], arg);
			return a->left[as].n;
		}
		return 0;
	}
	if (s < 0)
		return 0;
	t->slot = s;
	for (size_t k = 0; k < r->left[s].n; k++)
		clear(bits, r->left[s].nodes[k], arg);
	return r->left[s].n;
}

bool guard_job_can_record(const struct guard *g, uint32_t job_id, size_t n)
{
	const struct job_rec *r = job_id ? job_slot(g, job_id) : NULL;

	if (!job_id || n > GUARD_MAX_JOB_NODES)
		return false;
	return (r && r->id) || g->jobs_n < GUARD_MAX_JOBS;
}

int guard_job_left(struct guard *g, const struct guard_bits_ops *ops,
		   uint32_t job_id, const struct guard_taken *t,
		   const void *bits, unsigned long long text,
		   const uint32_t *nodes, size_t n)
{
	struct job_rec *r = job_id ? job_slot(g, job_id) : NULL;
	struct left *l;
	int s = t->slot;

	g->ops = ops;
	if (!job_id)
		return -1;
	if (!n) {
		/* nothing of the guard's in this bitmap now; a state it
		 * left before that did not match is one Slurm rebuilt or
		 * threw away */
		if (r && r->id)
			job_remove(g, r);
		return 1;
	}
	if (!guard_job_can_record(g, job_id, n))
		return 0;
	if (!r || !r->id) {
		if (g->jobs_n >= GUARD_MAX_JOBS)
			return 0;
		if (2 * (g->jobs_n + 1) > g->jobs_cap) {
			if (jobs_grow(g) < 0)
				return -1;
		}
		r = job_slot(g, job_id);
		r->id = job_id;
		g->jobs_n++;
	}
	/* the state taken back is replaced; else the one written longer
	 * ago (a backfill copy's, or one Slurm rebuilt since) */
	if (s < 0)
		s = r->left[0].written <= r->left[1].written ? 0 : 1;
	l = &r->left[s];
	left_clear(g, l);
	if (!(l->bits = ops->copy(bits)) ||
	    !(l->nodes = malloc(n * sizeof(*l->nodes)))) {
		job_remove(g, r);
		return -1;
	}
	memcpy(l->nodes, nodes, n * sizeof(*l->nodes));
	l->n = n;
	l->text = text;
	l->written = ++g->clock;
	return 1;
}

size_t guard_jobs_sweep(struct guard *g, const struct guard_bits_ops *ops,
			bool (*gone)(uint32_t, void *), void *arg, size_t max)
{
	size_t forgotten = 0;

	g->ops = ops;
	for (size_t looked = 0;
	     g->jobs_n && looked < max && looked < g->jobs_cap; looked++) {
		struct job_rec *r;

		if (g->sweep_at >= g->jobs_cap)
			g->sweep_at = 0;
		r = &g->jobs[g->sweep_at];
		if (r->id && gone(r->id, arg)) {
			job_remove(g, r); /* the slot may hold another now */
			forgotten++;
			continue;
		}
		g->sweep_at++;
	}
	return forgotten;
}

size_t guard_jobs_kept(const struct guard *g)
{
	return g->jobs_n;
}
