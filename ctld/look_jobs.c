/*
 * look_jobs.c - the look's table of jobs and each job's base, what Slurm
 * itself made of its excluded nodes, as runs of nodes or whole
 * (look_private.h; doc/guard.md "The look").
 */
#include <stdlib.h>
#include <string.h>

#include "look_private.h"

void look_base_free(struct look *lk, struct look_job *j)
{
	if (j->dense)
		lk->dense_n--;
	free(j->runs);
	free(j->dense);
	j->runs = NULL;
	j->dense = NULL;
	j->nruns = 0;
}

static size_t job_hash(uint32_t id, size_t cap)
{
	return ((size_t)id * 2654435761u) & (cap - 1);
}

struct look_job *look_job_find(struct look *lk, uint32_t id)
{
	for (size_t i = job_hash(id, lk->jobs_cap);;
	     i = (i + 1) & (lk->jobs_cap - 1)) {
		if (lk->jobs[i].id == id)
			return &lk->jobs[i];
		if (!lk->jobs[i].id)
			return NULL;
	}
}

static bool jobs_grow(struct look *lk)
{
	size_t cap = lk->jobs_cap * 2;
	struct look_job *old = lk->jobs, *t = calloc(cap, sizeof(*t));

	if (!t)
		return false;
	for (size_t i = 0; i < lk->jobs_cap; i++) {
		size_t at;

		if (!old[i].id)
			continue;
		for (at = job_hash(old[i].id, cap); t[at].id;
		     at = (at + 1) & (cap - 1))
			;
		t[at] = old[i];
	}
	free(old);
	lk->jobs = t;
	lk->jobs_cap = cap;
	return true;
}

struct look_job *look_job_add(struct look *lk, uint32_t id)
{
	size_t at;

	if ((lk->jobs_n + 1) * 2 > lk->jobs_cap && !jobs_grow(lk))
		return NULL;
	for (at = job_hash(id, lk->jobs_cap); lk->jobs[at].id;
	     at = (at + 1) & (lk->jobs_cap - 1))
		;
	memset(&lk->jobs[at], 0, sizeof(lk->jobs[at]));
	lk->jobs[at].id = id;
	lk->jobs[at].req = -1;
	lk->jobs[at].sentinel = -1;
	lk->jobs_n++;
	return &lk->jobs[at];
}

/* Removes slot `at`, moving the ones after it back (linear probing). */
void look_job_remove(struct look *lk, size_t at)
{
	size_t mask = lk->jobs_cap - 1, i = at;

	look_base_free(lk, &lk->jobs[at]);
	memset(&lk->jobs[at], 0, sizeof(lk->jobs[at]));
	lk->jobs_n--;
	for (i = (i + 1) & mask; lk->jobs[i].id; i = (i + 1) & mask) {
		struct look_job j = lk->jobs[i];
		size_t to;

		/* (its base moves with it: the slot left holds none) */
		memset(&lk->jobs[i], 0, sizeof(lk->jobs[i]));
		for (to = job_hash(j.id, lk->jobs_cap); lk->jobs[to].id;
		     to = (to + 1) & mask)
			;
		lk->jobs[to] = j;
	}
}

/* Job j's base, expanded into the look's scratch words. */
const uint64_t *look_base_words(struct look *lk, const struct look_job *j)
{
	uint64_t *w = lk->scratch;

	if (j->dense)
		return j->dense;
	lk->work += lk->words;
	memset(w, 0, lk->words * sizeof(*w));
	for (uint32_t r = 0; r < j->nruns; r++)
		for (uint32_t n = j->runs[2 * r]; n < j->runs[2 * r + 1]; n++) {
			if (n % 64 == 0 && n + 64 <= j->runs[2 * r + 1]) {
				w[n / 64] = ~0ULL;
				n += 63;
				continue;
			}
			w[n / 64] |= 1ULL << (n % 64);
		}
	return w;
}

bool look_base_has(const struct look_job *j, uint32_t n)
{
	size_t lo = 0, hi = j->nruns;

	if (j->dense)
		return (j->dense[n / 64] >> (n % 64)) & 1;
	while (lo < hi) { /* the runs are in order */
		size_t mid = (lo + hi) / 2;

		if (n < j->runs[2 * mid])
			hi = mid;
		else if (n >= j->runs[2 * mid + 1])
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

/* The set as found (NULL: none) is Slurm's own: job j's base.  False
 * when it has more runs than kept and no room is left whole. */
bool look_base_capture(struct look *lk, struct look_job *j,
		       const uint64_t *bits)
{
	uint32_t runs[2 * LOOK_MAX_RUNS];
	uint32_t n = 0;
	int64_t start = -1;

	look_base_free(lk, j);
	j->sentinel = -1;
	if (!bits)
		return true;
	lk->work += lk->words; /* (every word read, a node's bits at most) */
	for (size_t i = 0; i < lk->nnodes; i++) {
		bool set = (bits[i / 64] >> (i % 64)) & 1;

		if (i % 64 == 0 && i + 64 <= lk->nnodes &&
		    bits[i / 64] == (start < 0 ? 0 : ~0ULL)) {
			i += 63; /* a word that changes nothing */
			continue;
		}
		if (set && start < 0) {
			start = (int64_t)i;
		} else if (!set && start >= 0) {
			if (n == LOOK_MAX_RUNS)
				goto whole;
			runs[2 * n] = (uint32_t)start;
			runs[2 * n + 1] = (uint32_t)i;
			n++;
			start = -1;
		}
	}
	if (start >= 0) {
		if (n == LOOK_MAX_RUNS)
			goto whole;
		runs[2 * n] = (uint32_t)start;
		runs[2 * n + 1] = (uint32_t)lk->nnodes;
		n++;
	}
	if (n && !(j->runs = malloc(2 * n * sizeof(*j->runs))))
		return false;
	if (n)
		memcpy(j->runs, runs, 2 * n * sizeof(*runs));
	j->nruns = n;
	return true;
whole:
	if (lk->dense_n >= LOOK_MAX_DENSE ||
	    !(j->dense = malloc(lk->words * sizeof(*j->dense))))
		return false;
	memcpy(j->dense, bits, lk->words * sizeof(*j->dense));
	lk->dense_n++;
	return true;
}

bool look_base_copy(struct look *lk, struct look_job *to,
		    const struct look_job *from)
{
	look_base_free(lk, to);
	to->sentinel = -1;
	if (from->dense) {
		if (lk->dense_n >= LOOK_MAX_DENSE ||
		    !(to->dense = malloc(lk->words * sizeof(*to->dense))))
			return false;
		memcpy(to->dense, from->dense, lk->words * sizeof(*to->dense));
		lk->dense_n++;
	} else if (from->nruns) {
		if (!(to->runs = malloc(2 * from->nruns * sizeof(*to->runs))))
			return false;
		memcpy(to->runs, from->runs,
		       2 * from->nruns * sizeof(*to->runs));
		to->nruns = from->nruns;
	}
	return true;
}
