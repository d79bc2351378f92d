/*
 * look_cands.c - the jobs of a walk that would take a set of the look's
 * or hold one (look_cands.h).
 */
#include <stdlib.h>

#include "look_cands.h"
#include "xc_util.h"

static struct look_cand *cands;
static size_t ncands, cap;

void look_cands_add(uint32_t job_id, uint32_t priority)
{
	if (xc_grow((void **)&cands, &cap, ncands + 1, sizeof(*cands)) < 0)
		return;
	cands[ncands++] = (struct look_cand){ job_id, priority };
}

static int by_priority(const void *a, const void *b)
{
	const struct look_cand *x = a, *y = b;

	return x->priority < y->priority   ? 1
	       : x->priority > y->priority ? -1
					   : 0;
}

const struct look_cand *look_cands_sorted(size_t first, size_t *n)
{
	if (ncands > first)
		qsort(cands, ncands, sizeof(*cands), by_priority);
	*n = ncands;
	return cands;
}

void look_cands_clear(void)
{
	ncands = 0;
}

void look_cands_free(void)
{
	free(cands);
	cands = NULL;
	ncands = cap = 0;
}
