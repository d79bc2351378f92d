/*
 * look.c - each waiting job's excluded nodes kept as its base | its
 * request's failing nodes (look.h; doc/guard.md "The look").
 */
#include <json-c/linkhash.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h" /* GUARD_WORDS */
#include "look_private.h"
#include "xc.h"

struct look *look_create(size_t nnodes, size_t max_requests)
{
	struct look *lk = calloc(1, sizeof(*lk));

	if (!lk)
		return NULL;
	lk->nnodes = nnodes;
	lk->words = GUARD_WORDS(nnodes);
	lk->max_reqs = max_requests ? max_requests : 1;
	lk->reqs = calloc(lk->max_reqs, sizeof(*lk->reqs));
	lk->by_text = lh_kchar_table_new(64, NULL);
	lk->jobs_cap = 64;
	lk->jobs = calloc(lk->jobs_cap, sizeof(*lk->jobs));
	lk->scratch = calloc(lk->words ? lk->words : 1, sizeof(uint64_t));
	lk->which = calloc(lk->words ? lk->words : 1, sizeof(uint64_t));
	lk->fail = calloc(lk->words ? lk->words : 1, sizeof(uint64_t));
	if (!lk->reqs || !lk->by_text || !lk->jobs || !lk->scratch ||
	    !lk->which || !lk->fail) {
		look_destroy(lk);
		return NULL;
	}
	return lk;
}

void look_destroy(struct look *lk)
{
	if (!lk)
		return;
	for (size_t i = 0; lk->reqs && i < lk->max_reqs; i++) {
		free(lk->reqs[i].text);
		free(lk->reqs[i].fail);
	}
	for (size_t i = 0; lk->jobs && i < lk->jobs_cap; i++)
		if (lk->jobs[i].id)
			look_base_free(lk, &lk->jobs[i]);
	if (lk->by_text)
		lh_table_free(lk->by_text);
	free(lk->reqs);
	free(lk->jobs);
	free(lk->scratch);
	free(lk->which);
	free(lk->fail);
	free(lk);
}

bool look_jobs_changed(long long stamp, long long seen, long long walked_at,
		       long long now)
{
	return stamp != seen || now < walked_at ||
	       (seen == walked_at && now > walked_at);
}

bool look_whole_due(bool wanted, bool again, long long whole_at, long long now)
{
	if (again || !whole_at)
		return true;
	return wanted &&
	       (now >= whole_at + LOOK_WHOLE_EVERY_S || now < whole_at);
}

size_t look_nodes(const struct look *lk)
{
	return lk->nnodes;
}

void look_round(struct look *lk, uint64_t round)
{
	lk->round = round;
}

/* A slot for a new request: a free one, else the one met longest ago,
 * in neither this round nor the last (its jobs are written whole when
 * next met); -1. */
static int req_slot(struct look *lk)
{
	int older = -1;

	for (size_t i = 0; i < lk->max_reqs; i++) {
		struct look_req *r = &lk->reqs[i];

		if (!r->text)
			return (int)i;
		/* the one met longest ago */
		if (r->seen + 1 < lk->round &&
		    (older < 0 || r->seen < lk->reqs[older].seen))
			older = (int)i;
	}
	if (older >= 0) {
		struct look_req *r = &lk->reqs[older];

		lh_table_delete(lk->by_text, r->text);
		free(r->text);
		r->text = NULL;
		lk->nreqs--;
	}
	return older;
}

int look_req_seen(struct look *lk, const char *text, bool *fresh)
{
	void *v = NULL;
	struct look_req *r;
	int i;

	*fresh = false;
	if (lh_table_lookup_ex(lk->by_text, text, &v)) {
		r = &lk->reqs[(uintptr_t)v - 1];
		*fresh = r->seen != lk->round;
		r->seen = lk->round;
		return (int)((uintptr_t)v - 1);
	}
	if ((i = req_slot(lk)) < 0)
		return -1;
	r = &lk->reqs[i];
	if (!r->fail &&
	    !(r->fail = calloc(lk->words ? lk->words : 1, sizeof(uint64_t))))
		return -1;
	if (!(r->text = strdup(text)))
		return -1;
	if (lh_table_insert(lk->by_text, r->text, (void *)(uintptr_t)(i + 1))) {
		free(r->text);
		r->text = NULL;
		return -1;
	}
	memset(r->fail, 0, lk->words * sizeof(uint64_t));
	r->nfail = 0;
	r->changes = 0;
	r->gen++;
	/* a new request's first answers are written whole into its jobs */
	r->version = r->lost = 1;
	r->logged = 0;
	r->seen = lk->round;
	lk->nreqs++;
	*fresh = true;
	return i;
}

uint64_t look_req_changes(const struct look *lk, int req)
{
	return lk->reqs[req].changes;
}

size_t look_req_update(struct look *lk, int req, const uint64_t *which,
		       const uint64_t *fail, uint64_t changes)
{
	struct look_req *r = &lk->reqs[req];
	size_t changed = 0;

	for (size_t k = 0; k < lk->words; k++) {
		uint64_t now, d;

		if (which && !which[k])
			continue;
		now = which ? (r->fail[k] & ~which[k]) | (fail[k] & which[k])
			    : fail[k];
		if (!(d = r->fail[k] ^ now))
			continue;
		r->nfail += (size_t)__builtin_popcountll(now & d);
		r->nfail -= (size_t)__builtin_popcountll(r->fail[k] & d);
		changed += (size_t)__builtin_popcountll(d);
		if (changed <= LOOK_LOG)
			for (; d; d &= d - 1) {
				size_t at = r->logged++ % LOOK_LOG;

				/* (only ever raised: an update past the log
				 * left older entries behind it) */
				if (r->logged > LOOK_LOG &&
				    r->log[at].version > r->lost)
					r->lost = r->log[at].version;
				r->log[at].version = r->version + 1;
				r->log[at].node =
					(uint32_t)(k * 64 +
						   (size_t)__builtin_ctzll(d));
			}
		r->fail[k] = now;
	}
	if (changed)
		r->version++;
	/* more than the log holds: every job is written whole */
	if (changed > LOOK_LOG)
		r->lost = r->version;
	r->changes = changes;
	return changed;
}

bool look_req_answer(struct look *lk, int req, struct guard *g,
		     struct guard_req *r, size_t *budget)
{
	uint64_t now = guard_changes(g), since = lk->reqs[req].changes;
	bool some;
	size_t left;

	if (since == now)
		return true;
	memset(lk->which, 0, lk->words * sizeof(*lk->which));
	/* a request new to the look (0) is answered on every node */
	some = since && guard_changed_since(g, since, lk->which);
	if (!some)
		memset(lk->which, 0xff, lk->words * sizeof(*lk->which));
	if (lk->nnodes % 64)
		lk->which[lk->words - 1] &= (1ULL << (lk->nnodes % 64)) - 1;
	if (!guard_verdict_within(g, r, lk->which, lk->fail, &left, budget))
		return false;
	(void)look_req_update(lk, req, some ? lk->which : NULL, lk->fail, now);
	return true;
}

/* A node of `r`'s failing ones that base `b` does not hold, -1: the
 * first from word `from` on (each job its own, so that one node coming
 * back does not make every job of the request look for another). */
static int64_t sentinel_of(struct look *lk, const uint64_t *b,
			   const struct look_req *r, size_t from)
{
	for (size_t c = 0; c < lk->words; c++) {
		size_t k = (from + c) % lk->words;
		uint64_t w = r->fail[k] & ~b[k];

		if (w) {
			lk->work += c + 1;
			return (int64_t)(k * 64 + (size_t)__builtin_ctzll(w));
		}
	}
	lk->work += lk->words;
	return -1;
}

static bool bit_of(const uint64_t *bits, int64_t n)
{
	return (bits[n / 64] >> (n % 64)) & 1;
}

static void write_whole(struct look *lk, struct look_job *j,
			const struct look_req *r, uint64_t *bits)
{
	const uint64_t *b = look_base_words(lk, j);

	for (size_t k = 0; k < lk->words; k++)
		bits[k] = b[k] | r->fail[k];
	j->sentinel =
		sentinel_of(lk, b, r, j->id % (lk->words ? lk->words : 1));
	lk->work += lk->words;
}

/* Job j's base, from the set as found: none when Slurm's own set is
 * empty by what it rebuilds it from (`own_empty`: so the look's or the
 * guard's bits in a set are never taken for Slurm's); false when it
 * cannot be kept. */
static bool base_from(struct look *lk, struct look_job *j, const uint64_t *bits,
		      bool own_empty)
{
	return look_base_capture(lk, j, own_empty ? NULL : bits);
}

enum look_did look_job_apply(struct look *lk, uint32_t job_id, uint32_t alt_id,
			     int req, uint64_t *bits, unsigned long long text,
			     bool own_empty)
{
	struct look_req *r = &lk->reqs[req];
	struct look_job *j = look_job_find(lk, job_id), *alt;
	bool whole = false;

	if (!j) {
		if (!(j = look_job_add(lk, job_id)))
			return LOOK_LEFT;
		j->text = text;
		/* an array task whose set is its array's as the look left it
		 * takes the array's base (a rebuild from the same text would
		 * give the same) */
		alt = alt_id && alt_id != job_id ? look_job_find(lk, alt_id)
						 : NULL;
		if (alt && alt->text == text && !alt->left && !own_empty) {
			if (!look_base_copy(lk, j, alt))
				j->left = true;
		} else if (!base_from(lk, j, bits, own_empty)) {
			j->left = true;
		}
		whole = true;
	} else if (j->text != text || (j->sentinel >= 0 &&
				       (!bits || !bit_of(bits, j->sentinel)))) {
		/* Slurm rebuilt the set: as found, it is the base */
		j->text = text;
		j->left = !base_from(lk, j, bits, own_empty);
		whole = true;
	}
	if (j->left)
		return LOOK_LEFT;
	if (j->req != req || j->gen != r->gen || r->lost > j->version)
		whole = true;
	if (!bits) {
		/* Slurm keeps none, so the base is empty */
		if (!r->nfail) {
			j->req = req;
			j->gen = r->gen;
			j->version = r->version;
			return LOOK_SAME;
		}
		j->req = -1;
		return LOOK_NEED_SET;
	}
	if (!whole && j->version == r->version)
		return LOOK_SAME;
	if (whole) {
		write_whole(lk, j, r, bits);
	} else {
		/* the nodes changed since its version, newest first (each
		 * set to what it is now: the order does not matter) */
		size_t first = r->logged > LOOK_LOG ? r->logged - LOOK_LOG : 0;
		bool lost_sentinel = false;

		for (size_t e = r->logged; e > first; e--) {
			size_t at = (e - 1) % LOOK_LOG;
			uint32_t n = r->log[at].node;

			if (r->log[at].version <= j->version)
				break;
			if (look_base_has(j, n))
				continue;
			if ((r->fail[n / 64] >> (n % 64)) & 1) {
				bits[n / 64] |= 1ULL << (n % 64);
				if (j->sentinel < 0)
					j->sentinel = n;
			} else {
				bits[n / 64] &= ~(1ULL << (n % 64));
				lost_sentinel |= (int64_t)n == j->sentinel;
			}
		}
		if (lost_sentinel)
			j->sentinel = sentinel_of(
				lk, look_base_words(lk, j), r,
				j->id % (lk->words ? lk->words : 1));
	}
	j->req = req;
	j->gen = r->gen;
	j->version = r->version;
	return whole ? LOOK_WRITTEN : LOOK_PATCHED;
}

const uint64_t *look_job_base(struct look *lk, uint32_t job_id,
			      const uint64_t *bits, unsigned long long text)
{
	struct look_job *j = look_job_find(lk, job_id);

	if (!j || j->left || j->text != text || j->sentinel < 0 || !bits ||
	    !bit_of(bits, j->sentinel))
		return NULL;
	return look_base_words(lk, j);
}

bool look_job_restore(struct look *lk, uint32_t job_id, uint64_t *bits,
		      unsigned long long text)
{
	struct look_job *j = look_job_find(lk, job_id);
	const uint64_t *b = look_job_base(lk, job_id, bits, text);

	if (!b)
		return false;
	memcpy(bits, b, lk->words * sizeof(*bits));
	j->sentinel = -1;
	j->req = -1; /* written whole next time */
	return true;
}

bool look_job_kept(struct look *lk, uint32_t job_id)
{
	return look_job_find(lk, job_id) != NULL;
}

bool look_job_given(struct look *lk, uint32_t job_id)
{
	struct look_job *j = look_job_find(lk, job_id);

	return j && j->given;
}

void look_job_set_given(struct look *lk, uint32_t job_id, bool given)
{
	struct look_job *j = look_job_find(lk, job_id);

	if (!j)
		return;
	j->given = given;
	if (!given) { /* its set taken away: none, nothing of the look's */
		j->sentinel = -1;
		j->req = -1;
	}
}

void look_job_park(struct look *lk, uint32_t job_id)
{
	struct look_job *j = look_job_find(lk, job_id);

	if (j)
		j->req = -1;
}

void look_job_forget(struct look *lk, uint32_t job_id)
{
	struct look_job *j = look_job_find(lk, job_id);

	if (j)
		look_job_remove(lk, (size_t)(j - lk->jobs));
}

size_t look_sweep(struct look *lk, bool (*gone)(uint32_t, void *), void *arg)
{
	size_t n = 0;

	for (size_t i = 0; i < lk->jobs_cap;) {
		if (lk->jobs[i].id && gone(lk->jobs[i].id, arg)) {
			look_job_remove(lk, i);
			n++;
			continue; /* another may have moved into slot i */
		}
		i++;
	}
	return n;
}

size_t look_work(struct look *lk)
{
	size_t w = lk->work;

	lk->work = 0;
	return w;
}

size_t look_jobs_kept(const struct look *lk)
{
	return lk->jobs_n;
}

size_t look_requests_kept(const struct look *lk)
{
	return lk->nreqs;
}

size_t look_dense_kept(const struct look *lk)
{
	return lk->dense_n;
}

size_t look_jobs_carried(const struct look *lk, uint32_t *ids, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i < lk->jobs_cap; i++) {
		const struct look_job *j = &lk->jobs[i];

		if (!j->id || (j->req < 0 && !j->given))
			continue;
		if (n < cap)
			ids[n] = j->id;
		n++;
	}
	return n;
}
