/*
 * prefer_changes.c - the owners' changes of preferences where Slurm
 * filters (prefer_changes.h).
 */
#define _GNU_SOURCE /* qsort_r */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "prefer_changes.h"
#include "xc_util.h"

/* The bytes of a change that count in HINTS_BYTES. */
static size_t change_bytes(const struct prefer_change *c)
{
	return c->tiers ? strlen(c->tiers) + 1 : 0;
}

static int cmp_u32(uint32_t a, uint32_t b)
{
	return (a > b) - (a < b);
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/* The order of targets: id, task, offset. */
static int cmp_target(uint32_t id, uint32_t task, uint32_t offset,
		      const struct prefer_pending *p)
{
	int d = cmp_u32(id, p->id);

	if (!d)
		d = cmp_u32(task, p->task);
	return d ? d : cmp_u32(offset, p->offset);
}

/* qsort_r() of indices into the changes `arg` by target. */
static int by_target(const void *a, const void *b, void *arg)
{
	const struct prefer_pending *v = arg, *y = &v[*(const size_t *)b];
	const struct prefer_pending *x = &v[*(const size_t *)a];

	return cmp_target(x->id, x->task, x->offset, y);
}

/* qsort_r() of indices into the hints `arg` by target, then update. */
static int hints_by_target(const void *a, const void *b, void *arg)
{
	const struct job_hint *v = arg, *x = &v[*(const size_t *)a],
			      *y = &v[*(const size_t *)b];
	int d = cmp_u32(x->id, y->id);

	if (!d)
		d = cmp_u32(x->task, y->task);
	if (!d)
		d = cmp_u32(x->offset, y->offset);
	return d ? d : cmp_u64(x->seq, y->seq);
}

/* qsort_r() of indices by owner, then index (the older first). */
static int by_owner(const void *a, const void *b, void *arg)
{
	const struct prefer_pending *v = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int d = cmp_u32(v[i].owner, v[j].owner);

	return d ? d : (i > j) - (i < j);
}

/* qsort() of indices. */
static int by_index(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	return (i > j) - (i < j);
}

/* Indices 0..n-1 of the `n` elements `v` sorted by `cmp`, malloc'd (NULL
 * when out of memory; none for n 0). */
static size_t *sorted(size_t n, void *v,
		      int (*cmp)(const void *, const void *, void *))
{
	size_t *ix = malloc((n ? n : 1) * sizeof(*ix));

	for (size_t i = 0; ix && i < n; i++)
		ix[i] = i;
	if (ix)
		qsort_r(ix, n, sizeof(*ix), cmp, v);
	return ix;
}

/* Merges hint `h` into change `p` at `now`: its tiers (moved) and its
 * wait, when it gives them, each with its seq; the bytes counted in `c`. */
static void merge(struct prefer_changes *c, struct prefer_pending *p,
		  struct job_hint *h, time_t now)
{
	c->bytes -= change_bytes(&p->c);
	if (h->prefer.tiers) {
		free(p->c.tiers);
		p->c.tiers = h->prefer.tiers;
		h->prefer.tiers = NULL;
		p->tiers_seq = h->seq;
	}
	if (!h->privileged && (p->privileged || p->owner != h->owner)) {
		/* the owner's change over one of root's, or over a change
		 * another owner claimed (a job job_modify() did not know):
		 * theirs alone from now */
		p->privileged = false;
		p->owner = h->owner;
	}
	if (h->prefer.wait >= 0) {
		p->c.wait = h->prefer.wait;
		p->wait_seq = h->seq;
	}
	p->fresh = true;
	p->since = now;
	c->bytes += change_bytes(&p->c);
}

/* Drops the changes of `c` marked gone, keeping the order of the others. */
static void compact(struct prefer_changes *c)
{
	size_t k = 0;

	for (size_t i = 0; i < c->n; i++) {
		if (!c->v[i].gone) {
			c->v[k++] = c->v[i];
			continue;
		}
		c->bytes -= change_bytes(&c->v[i].c);
		prefer_change_free(&c->v[i].c);
	}
	c->n = k;
}

/* The owners' bound: past HINTS_PER_OWNER changes of one owner, the new
 * ones (from index `had`) are marked gone and counted lost; the changes
 * kept before are not.  Out of memory, every new one is. */
static void owners_bound(struct prefer_changes *c, size_t had)
{
	size_t *ix = sorted(c->n, c->v, by_owner), run = 0;

	for (size_t i = 0; i < c->n; i++) {
		if (!ix) {
			c->v[i].gone = i >= had;
			c->losses += i >= had;
			continue;
		}
		run = i && c->v[ix[i]].owner == c->v[ix[i - 1]].owner ? run + 1
								      : 1;
		if (run > HINTS_PER_OWNER && ix[i] >= had) {
			c->v[ix[i]].gone = true;
			c->losses++;
		}
	}
	free(ix);
}

/* The change of the target of `h` among the `n` of `c` sorted by `ix`,
 * or NULL. */
static struct prefer_pending *find(struct prefer_changes *c, const size_t *ix,
				   size_t n, uint32_t id, uint32_t task,
				   uint32_t offset)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int d = cmp_target(id, task, offset, &c->v[ix[mid]]);

		if (!d)
			return &c->v[ix[mid]];
		if (d > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Whether hint `h` is a change of preferences to take: trusted, from
 * root, SlurmUser or the owner of the job job_modify() found (a job it
 * did not know: its owner is checked at prefer_changes_of()). */
static bool takes(const struct job_hint *h)
{
	return h->prefer_set && h->trusted &&
	       (h->privileged || h->caller == h->owner);
}

void prefer_changes_take(struct prefer_changes *c, struct hints *taken,
			 time_t now)
{
	size_t had = c->n, *ix = NULL, *hx = NULL, n = 0, cur = SIZE_MAX;
	const struct job_hint *group = NULL; /* the first of cur's target */

	for (size_t i = 0; i < taken->n; i++)
		n += takes(&taken->v[i]);
	if (!n)
		return;
	/* the hints by target, each target's in the order of its updates:
	 * a target looked up once, all its hints merged into its change */
	if ((had && !(ix = sorted(had, c->v, by_target))) ||
	    !(hx = sorted(taken->n, taken->v, hints_by_target))) {
		c->losses += n;
		goto out;
	}
	for (size_t i = 0; i < taken->n; i++) {
		struct job_hint *h = &taken->v[hx[i]];
		struct prefer_pending *p;
		size_t len = change_bytes(&h->prefer);

		if (!takes(h))
			continue;
		if (!group || group->id != h->id || group->task != h->task ||
		    group->offset != h->offset) {
			/* a new target: one of before, or a new change */
			group = h;
			p = had ? find(c, ix, had, h->id, h->task, h->offset)
				: NULL;
			if (p) {
				cur = (size_t)(p - c->v);
			} else if (c->n >= HINTS_MAX ||
				   c->bytes + len > HINTS_BYTES ||
				   xc_grow((void **)&c->v, &c->cap, c->n + 1,
					   sizeof(*c->v)) < 0) {
				cur = SIZE_MAX; /* its hints are lost */
			} else {
				cur = c->n++;
				c->v[cur] = (struct prefer_pending){
					.id = h->id,
					.task = h->task,
					.offset = h->offset,
					.owner = h->owner,
					.privileged = h->privileged,
					.c = { .wait = -1 }
				};
			}
		}
		if (cur == SIZE_MAX ||
		    c->bytes - change_bytes(&c->v[cur].c) + len > HINTS_BYTES) {
			c->losses++;
			continue;
		}
		merge(c, &c->v[cur], h, now);
	}
	if (c->n > had) {
		owners_bound(c, had);
		compact(c);
	}
out:
	free(ix);
	free(hx);
}

size_t prefer_changes_fresh(struct prefer_changes *c, uint32_t *ids, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n && n < max; i++) {
		bool had = false;

		if (!c->v[i].fresh)
			continue;
		c->v[i].fresh = false;
		for (size_t k = 0; k < n && !had; k++) /* max is small */
			had = ids[k] == c->v[i].id;
		if (!had)
			ids[n++] = c->v[i].id;
	}
	return n;
}

int prefer_changes_start(struct prefer_changes *c)
{
	free(c->by_id);
	free(c->hit);
	c->hits = 0;
	c->by_id = sorted(c->n, c->v, by_target);
	c->hit = malloc((c->n ? c->n : 1) * sizeof(*c->hit));
	if (!c->by_id || !c->hit) {
		free(c->by_id);
		free(c->hit);
		c->by_id = c->hit = NULL;
		return -1;
	}
	for (size_t i = 0; i < c->n; i++)
		c->v[i].found = c->v[i].unshown = false;
	return 0;
}

/* Adds the change of the target (id, task, offset), if any, to c->hit,
 * when it may change `job` (root's, SlurmUser's or the job's owner's). */
static void hit(struct prefer_changes *c, const slurm_job_info_t *job,
		uint32_t id, uint32_t task, uint32_t offset)
{
	struct prefer_pending *p;

	if (!id || !(p = find(c, c->by_id, c->n, id, task, offset)) ||
	    (!p->privileged && p->owner != job->user_id))
		return;
	for (size_t k = 0; k < c->hits; k++)
		if (c->hit[k] == (size_t)(p - c->v))
			return; /* the job's id and its array's alike */
	c->hit[c->hits++] = (size_t)(p - c->v);
}

size_t prefer_changes_of(struct prefer_changes *c, const slurm_job_info_t *job)
{
	c->hits = 0;
	if (!c->n || !c->by_id || !c->hit)
		return 0;
	/* a job by its id, an array or het job whole, its task or component
	 * (hint_names) */
	hit(c, job, job->job_id, NO_VAL, NO_VAL);
	hit(c, job, job->array_job_id, NO_VAL, NO_VAL);
	hit(c, job, job->het_job_id, NO_VAL, NO_VAL);
	if (job->het_job_id)
		hit(c, job, job->het_job_id, NO_VAL, job->het_job_offset);
	if (job->array_job_id && job->array_task_id != NO_VAL) {
		hit(c, job, job->array_job_id, job->array_task_id, NO_VAL);
	} else if (job->array_job_id && job->array_bitmap) {
		/* the pending record: its tasks' changes (one such record an
		 * array: the changes of its id are scanned once a round) */
		struct prefer_pending *p;
		size_t lo = 0, hi = c->n;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (c->v[c->by_id[mid]].id < job->array_job_id)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < c->n &&
		       (p = &c->v[c->by_id[lo]])->id == job->array_job_id;
		     lo++) {
			struct job_hint h = { .id = p->id,
					      .task = p->task,
					      .offset = p->offset };

			if (p->task != NO_VAL && hint_names(&h, job))
				hit(c, job, p->id, p->task, p->offset);
		}
	}
	qsort(c->hit, c->hits, sizeof(*c->hit), by_index);
	return c->hits;
}

int prefer_changes_apply(struct prefer_changes *c, struct sx_job_state *st)
{
	struct sx_job_state want = { 0 };
	struct prefer_change latest = { .wait = -1 };
	uint64_t tiers_seq = 0, wait_seq = 0;
	bool same;

	if (!c->hits)
		return 0;
	/* the tiers and the wait of the latest updates that gave them */
	for (size_t j = 0; j < c->hits; j++) {
		const struct prefer_pending *p = &c->v[c->hit[j]];

		if (p->c.tiers && p->tiers_seq > tiers_seq) {
			latest.tiers = p->c.tiers;
			tiers_seq = p->tiers_seq;
		}
		if (p->c.wait >= 0 && p->wait_seq > wait_seq) {
			latest.wait = p->c.wait;
			wait_seq = p->wait_seq;
		}
	}
	if (sx_job_state_copy_prefer(st, &want) < 0 ||
	    prefer_change_apply(&latest, &want) < 0)
		goto fail;
	same = sx_job_state_same_prefer(st, &want);
	if (!same && sx_job_state_copy_prefer(&want, st) < 0)
		goto fail;
	for (size_t j = 0; j < c->hits; j++) {
		c->v[c->hit[j]].found = true;
		c->v[c->hit[j]].unshown |= !same;
	}
	sx_job_state_free(&want);
	return 0;
fail:
	sx_job_state_free(&want);
	return -1;
}

void prefer_changes_end(struct prefer_changes *c, time_t now)
{
	for (size_t i = 0; i < c->n; i++) {
		struct prefer_pending *p = &c->v[i];

		p->fresh = false; /* every job was planned */
		if (p->found && p->unshown &&
		    now - p->since < PREFER_CHANGE_TTL_S)
			continue;
		c->losses += p->found && p->unshown; /* too old */
		p->gone = true;
	}
	compact(c);
	free(c->by_id);
	free(c->hit);
	c->by_id = c->hit = NULL;
	c->hits = 0;
}

void prefer_changes_free(struct prefer_changes *c)
{
	for (size_t i = 0; i < c->n; i++)
		prefer_change_free(&c->v[i].c);
	free(c->v);
	free(c->by_id);
	free(c->hit);
	memset(c, 0, sizeof(*c));
}
