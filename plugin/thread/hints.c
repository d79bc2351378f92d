/*
 * hints.c - the hints of job_modify() for the thread (hints.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/linkhash.h>

#include "hints.h"
#include "elapsed.h"
#include "xc.h"
#include "xc_util.h"

/* One owner's count of hints, and their last loss. */
struct hints_owner {
	size_t n;
	uint64_t lost_seq;
	struct timespec urgent_at; /* the owner's last urgent ask (0: none) */
};

/* Whether owner `o` asked urgently within HINTS_URGENT_S. */
static bool urgent_lately(const struct hints_owner *o)
{
	return time_set(&o->urgent_at) &&
	       ms_since(&o->urgent_at) < HINTS_URGENT_S * 1000.0;
}

/* The key of `owner` in hints->owners: never NULL (json-c's pointer
 * tables take the pointer as the key), never LH_EMPTY or LH_FREED. */
static const void *owner_key(uint32_t owner)
{
	return (const void *)((uintptr_t)owner + 1);
}

static void free_owner(struct lh_entry *e)
{
	free(lh_entry_v(e));
}

/* The count of `owner`, made when `make`; NULL when none (or out of
 * memory). */
static struct hints_owner *owner_of(struct hints *hints, uint32_t owner,
				    bool make)
{
	struct hints_owner *o = NULL;

	if (!hints->owners) {
		if (!make ||
		    !(hints->owners = lh_kptr_table_new(64, free_owner)))
			return NULL;
	}
	if (lh_table_lookup_ex(hints->owners, owner_key(owner), (void **)&o))
		return o;
	if (!make || !(o = calloc(1, sizeof(*o))))
		return NULL;
	if (lh_table_insert(hints->owners, owner_key(owner), o) < 0) {
		free(o);
		return NULL;
	}
	return o;
}

/* The hint `h` left the set: its owner's count drops (forget_owners()
 * drops the entries left empty). */
static void owner_left(struct hints *hints, const struct job_hint *h)
{
	struct hints_owner *o = owner_of(hints, h->owner, false);

	if (o && o->n)
		o->n--;
}

/* Whether `a` and `b` say the same but for their seq. */
static bool same_hint(const struct job_hint *a, const struct job_hint *b)
{
	return a->id == b->id && a->task == b->task && a->offset == b->offset &&
	       a->owner == b->owner && a->trusted == b->trusted &&
	       a->exc == b->exc && a->exc_hash == b->exc_hash &&
	       a->exc_text == b->exc_text && a->hold == b->hold &&
	       (a->user_exc == NULL) == (b->user_exc == NULL) &&
	       (!a->user_exc || strcmp(a->user_exc, b->user_exc) == 0) &&
	       a->prefer_set == b->prefer_set && a->caller == b->caller &&
	       a->privileged == b->privileged &&
	       a->prefer.wait == b->prefer.wait &&
	       (a->prefer.tiers == NULL) == (b->prefer.tiers == NULL) &&
	       (!a->prefer.tiers ||
		strcmp(a->prefer.tiers, b->prefer.tiers) == 0);
}

/* The bytes of `h` that count in HINTS_BYTES. */
static size_t hint_bytes(const struct job_hint *h)
{
	return (h->user_exc ? strlen(h->user_exc) + 1 : 0) +
	       (h->prefer.tiers ? strlen(h->prefer.tiers) + 1 : 0);
}

/* Frees what `h` holds. */
static void hint_free(struct job_hint *h)
{
	free(h->user_exc);
	h->user_exc = NULL;
	prefer_change_free(&h->prefer);
}

bool hints_add(struct hints *hints, struct job_hint *h)
{
	size_t len;
	struct hints_owner *o;

	if (!h->trusted) { /* it decides nothing */
		free(h->user_exc);
		h->user_exc = NULL;
		h->exc = h->hold = false;
		h->exc_hash = h->exc_text = 0;
		prefer_change_free(&h->prefer);
		h->prefer_set = false;
		h->caller = 0;
		h->privileged = false;
	}
	len = hint_bytes(h);
	h->seq = ++hints->seq;
	if (hints->n && same_hint(&hints->v[hints->n - 1], h)) {
		hints->v[hints->n - 1].seq = h->seq;
		hint_free(h);
		return true;
	}
	o = owner_of(hints, h->owner, true);
	if (o && o->n >= HINTS_PER_OWNER) {
		o->lost_seq = h->seq;
		goto lost;
	}
	if (!o || hints->n == HINTS_MAX || hints->bytes + len > HINTS_BYTES ||
	    xc_grow((void **)&hints->v, &hints->cap, hints->n + 1,
		    sizeof(*hints->v)) < 0) {
		hints->lost_seq = h->seq;
		goto lost;
	}
	o->n++;
	hints->bytes += len;
	hints->v[hints->n++] = *h;
	if (o->n == HINTS_PER_OWNER / 2 || hints->n == HINTS_MAX / 2 ||
	    (hints->bytes >= HINTS_BYTES / 2 &&
	     hints->bytes - len < HINTS_BYTES / 2))
		hints->crowded++;
	h->user_exc = NULL;
	h->prefer.tiers = NULL;
	return true;
lost:
	hint_free(h);
	hints->losses++;
	return false;
}

void hints_lose(struct hints *hints)
{
	hints->lost_seq = ++hints->seq;
	hints->losses++;
}

bool hints_urgent(struct hints *hints, uint32_t owner)
{
	struct hints_owner *o = owner_of(hints, owner, true);

	if (!o || urgent_lately(o))
		return false;
	clock_gettime(CLOCK_MONOTONIC, &o->urgent_at);
	return true;
}

bool hints_newer(const struct hints *hints, const uint32_t ids[3],
		 uint32_t owner, uint64_t since)
{
	struct hints_owner *o = NULL;

	if (hints->lost_seq > since)
		return true;
	if (hints->owners &&
	    lh_table_lookup_ex(hints->owners, owner_key(owner), (void **)&o) &&
	    o->lost_seq > since)
		return true;
	/* Newest last: look back only as far as `since`.  An untrusted
	 * update (22.05: not the owner's, root's or SlurmUser's; Slurm
	 * refuses most) does not count: another user's loop of refused
	 * updates would keep the job from ever being re-filtered. */
	for (size_t i = hints->n; i-- > 0 && hints->v[i].seq > since;)
		for (int k = 0; k < 3; k++)
			if (ids[k] && hints->v[i].id == ids[k] &&
			    hints->v[i].trusted)
				return true;
	return false;
}

/* Removes from `hints` the hints up to `upto`, in order, handing each to
 * `out` (NULL: freed).  Linear. */
static void remove_upto(struct hints *hints, uint64_t upto, struct hints *out)
{
	size_t i = 0;

	for (; i < hints->n && hints->v[i].seq <= upto; i++) {
		struct job_hint *h = &hints->v[i];

		hints->bytes -= hint_bytes(h);
		owner_left(hints, h);
		if (out)
			out->v[out->n++] = *h;
		else
			hint_free(h);
	}
	if (i)
		memmove(hints->v, hints->v + i,
			(hints->n - i) * sizeof(*hints->v));
	hints->n -= i;
}

/* Drops the owners with no hint left whose last loss is up to `upto`:
 * the plans made from now on are newer. */
static void forget_owners(struct hints *hints, uint64_t upto)
{
	struct lh_entry *e, *next;

	if (!hints->owners)
		return;
	lh_foreach_safe(hints->owners, e, next)
	{
		const struct hints_owner *o = lh_entry_v(e);

		if (!o->n && o->lost_seq <= upto && !urgent_lately(o))
			lh_table_delete_entry(hints->owners, e);
	}
}

void hints_take(struct hints *hints, uint64_t upto, struct hints *taken)
{
	size_t k = 0;

	memset(taken, 0, sizeof(*taken));
	while (k < hints->n && hints->v[k].seq <= upto)
		k++;
	if (k && !(taken->v = malloc(k * sizeof(*taken->v)))) {
		/* out of memory: these hints are lost */
		remove_upto(hints, upto, NULL);
		hints->lost_seq =
			upto > hints->lost_seq ? upto : hints->lost_seq;
		hints->losses++;
	} else {
		remove_upto(hints, upto, k ? taken : NULL);
		taken->cap = k;
		taken->seq = upto;
	}
	forget_owners(hints, upto);
}

void hints_free(struct hints *hints)
{
	for (size_t i = 0; i < hints->n; i++)
		hint_free(&hints->v[i]);
	free(hints->v);
	if (hints->owners)
		lh_table_free(hints->owners);
	memset(hints, 0, sizeof(*hints));
}

bool hint_from_owner(const struct job_hint *h, const slurm_job_info_t *job)
{
	return h->privileged || h->caller == job->user_id;
}

bool hint_names(const struct job_hint *h, const slurm_job_info_t *job)
{
	if (h->offset != NO_VAL)
		return job->het_job_id == h->id &&
		       job->het_job_offset == h->offset;
	if (h->task != NO_VAL) /* the task, or the pending record still
				  holding it (its only task: not split) */
		return job->array_job_id == h->id &&
		       (job->array_task_id == h->task ||
			(job->array_task_id == NO_VAL && job->array_bitmap &&
			 (bitoff_t)h->task <
				 slurm_bit_size(job->array_bitmap) &&
			 slurm_bit_test(job->array_bitmap, h->task)));
	return job->job_id == h->id || job->array_job_id == h->id ||
	       job->het_job_id == h->id;
}

static int by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

int hints_ids(const struct hints *hints, uint64_t upto, uint32_t **ids,
	      size_t *n)
{
	size_t k = 0;

	*ids = NULL;
	*n = 0;
	while (hints && k < hints->n && hints->v[k].seq <= upto)
		k++;
	if (!k)
		return 0;
	if (!(*ids = malloc(k * sizeof(**ids))))
		return -1;
	for (size_t i = 0; i < k; i++)
		(*ids)[i] = hints->v[i].id;
	qsort(*ids, k, sizeof(**ids), by_u32);
	*n = k;
	return 0;
}

bool hints_may_name(const uint32_t *ids, size_t n, const slurm_job_info_t *job)
{
	const uint32_t mine[3] = { job->job_id, job->array_job_id,
				   job->het_job_id };

	for (int k = 0; n && k < 3; k++)
		if (mine[k] && bsearch(&mine[k], ids, n, sizeof(*ids), by_u32))
			return true;
	return false;
}
