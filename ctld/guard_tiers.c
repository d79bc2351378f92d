/*
 * guard_tiers.c - a job's preferences at a placement (guard_tiers.h,
 * doc/guard.md "Preferences there"): which tier it goes by, counted by
 * the one picker, prefer_pick_tiers(), on the guard's kept answers.
 */
#include <stdlib.h>
#include <string.h>

#include "guard_tiers.h"
#include "prefer.h"

/* A job with preferences and a wait, at a placement: its state with its
 * request as the guard reads it (request_of()), for prefer_pick_tiers(). */
struct tiers {
	struct guard *g;
	const struct sx_job_state *st;
	const char *request;
	time_t now;
	const uint64_t *usable; /* the nodes a tier counts */
	const uint64_t *free;	/* those free now (NULL: none known free) */
	uint64_t *scratch;
	size_t *budget; /* what the placement may still take */
};

/* prefer_count_fn: tier i of the job, "(R)&(Pi)", on the nodes of its
 * partitions it did not exclude (`usable`), and those of them free (for
 * a job with no wait), within what the placement may take (-1 past it:
 * no tier picked this once). */
static int tier_count(void *arg, unsigned i, size_t *n, size_t *n_free)
{
	const struct tiers *t = arg;
	int rc;
	char *text = prefer_compose(t->request, t->st->prefer[i]);

	if (!text)
		return -1;
	rc = guard_count(t->g, text, t->usable, t->free, t->scratch, t->budget,
			 n, n_free);
	free(text);
	return rc;
}

bool guard_tiers_apply(const struct sx_job_state *with, time_t eligible,
		       time_t now, bool free_read)
{
	return with->n_prefer && (with->wait > 0 || free_read) &&
	       prefer_waiting(with, eligible, now);
}

unsigned guard_carried_tier(const struct sx_job_state *st)
{
	static const char mark[] = "preferring tier ";
	const char *at = st->status;
	unsigned long i;

	/* (after a requeue's note, root's or SlurmUser's words) */
	if (!at ||
	    strncmp(at += sx_status_note_len(at), mark, sizeof(mark) - 1) != 0)
		return 0;
	i = strtoul(at + sizeof(mark) - 1, NULL, 10);
	return i <= st->n_prefer ? (unsigned)i : 0;
}

struct guard_req *guard_effective(struct guard *g,
				  const struct sx_job_state *with,
				  time_t eligible, time_t now, bool picks,
				  unsigned carried, bool by_list,
				  const uint64_t *usable,
				  const uint64_t *free_nodes, uint64_t *scratch,
				  size_t *budget, unsigned *tier, bool *over)
{
	struct tiers t = { g,	   with,       with->request, now,
			   usable, free_nodes, scratch,	      budget };
	struct prefer_pick pick = { 0 };
	struct guard_req *r = NULL;
	bool counted = false;
	unsigned want;
	char *text;

	*tier = 0;
	*over = false;
	if (picks && !(counted = prefer_pick_tiers(with, eligible, now,
						   tier_count, &t, &pick) == 0))
		*over = true; /* the budget, or memory */
	want = guard_tier_applied(counted, pick.tier, carried, by_list);
	if (want &&
	    (text = prefer_compose(with->request, with->prefer[want - 1]))) {
		if ((r = guard_tier(g, text)))
			*tier = want;
		free(text);
	}
	return r ? r : guard_request(g, with->request);
}
