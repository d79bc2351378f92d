/*
 * census.c - the distinct requests of the pending jobs (census.h).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "census.h"
#include "xc.h"
#include "xc_util.h"

static int by_pair(const void *a, const void *b)
{
	const struct census_entry *x = a, *y = b;

	if (x->uid != y->uid)
		return x->uid < y->uid ? -1 : 1;
	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

static int by_hash(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* bsearch() of n elements, false for none (bsearch wants an array). */
static bool found(const void *key, const void *v, size_t n, size_t size,
		  int (*cmp)(const void *, const void *))
{
	return n && bsearch(key, v, n, size, cmp);
}

static int by_uid(const void *a, const void *b)
{
	const struct census_job *x = a, *y = b;

	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

/* The users' counts of preferring jobs of `jobs` (sorted by uid here)
 * into fresh->users.  -1 when out of memory. */
static int count_users(struct census_job *jobs, size_t n, struct census *fresh)
{
	size_t nu = 0;

	qsort(jobs, n, sizeof(*jobs), by_uid);
	if (!(fresh->users = calloc(n ? n : 1, sizeof(*fresh->users))))
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!jobs[i].prefers)
			continue;
		if (!nu || fresh->users[nu - 1].uid != jobs[i].uid)
			fresh->users[nu++].uid = jobs[i].uid;
		fresh->users[nu - 1].preferring++;
	}
	fresh->nusers = nu;
	return 0;
}

int census_count_jobs(const struct census_job *jobs, size_t n,
		      struct census *fresh)
{
	struct census_job *v;
	size_t np = 0, na = 0;

	memset(fresh, 0, sizeof(*fresh));
	fresh->pairs = calloc(n ? n : 1, sizeof(*fresh->pairs));
	fresh->all = calloc(n ? n : 1, sizeof(*fresh->all));
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!fresh->pairs || !fresh->all || !v) {
		free(v);
		census_free(fresh);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		fresh->pairs[i].uid = jobs[i].uid;
		fresh->pairs[i].hash = fresh->all[i] = jobs[i].hash;
		v[i] = jobs[i];
	}
	if (count_users(v, n, fresh) < 0) {
		free(v);
		census_free(fresh);
		return -1;
	}
	free(v);
	qsort(fresh->pairs, n, sizeof(*fresh->pairs), by_pair);
	qsort(fresh->all, n, sizeof(*fresh->all), by_hash);
	for (size_t i = 0; i < n; i++) {
		if (!np || by_pair(&fresh->pairs[i], &fresh->pairs[np - 1]))
			fresh->pairs[np++] = fresh->pairs[i];
		if (!na || fresh->all[i] != fresh->all[na - 1])
			fresh->all[na++] = fresh->all[i];
	}
	fresh->npairs = np;
	fresh->nall = na;
	fresh->valid = true;
	return 0;
}

void census_take(struct census *c, struct census *fresh, uint64_t upto)
{
	size_t keep = 0, nnew = 0;
	uint64_t *hashes;

	free(c->pairs);
	free(c->all);
	free(c->users);
	c->pairs = fresh->pairs;
	c->npairs = fresh->npairs;
	c->all = fresh->all;
	c->nall = fresh->nall;
	c->users = fresh->users;
	c->nusers = fresh->nusers;
	c->valid = fresh->valid;
	memset(fresh, 0, sizeof(*fresh));
	/* the jobs with preferences admitted up to `upto` are in the jobs */
	for (size_t i = 0; i < c->nrecent_prefer; i++)
		if (c->recent_prefer[i].seq > upto)
			c->recent_prefer[keep++] = c->recent_prefer[i];
	c->nrecent_prefer = keep;
	keep = 0;
	/* What was admitted up to `upto` is in the jobs now (or was refused
	 * after job_submit()): it goes.  What came since stays counted. */
	for (size_t i = 0; i < c->nrecent; i++)
		if (c->recent[i].seq > upto &&
		    !found(&c->recent[i], c->pairs, c->npairs,
			   sizeof(*c->pairs), by_pair))
			c->recent[keep++] = c->recent[i];
	c->nrecent = keep;
	/* the distinct hashes among them that the jobs do not hold (what
	 * came in one round), sorted: linear after the sort.  Out of memory,
	 * no caps until the next count (nothing refused wrongly). */
	if (!(hashes = malloc((keep ? keep : 1) * sizeof(*hashes)))) {
		c->valid = false;
		return;
	}
	for (size_t i = 0; i < keep; i++)
		hashes[i] = c->recent[i].hash;
	qsort(hashes, keep, sizeof(*hashes), by_hash);
	for (size_t i = 0; i < keep; i++)
		if (!i || hashes[i - 1] != hashes[i])
			nnew += !found(&hashes[i], c->all, c->nall,
				       sizeof(*c->all), by_hash);
	free(hashes);
	c->recent_new = nnew;
}

void census_invalidate(struct census *c)
{
	free(c->pairs);
	free(c->all);
	free(c->users);
	c->pairs = NULL;
	c->all = NULL;
	c->users = NULL;
	c->npairs = c->nall = c->nrecent = c->recent_new = 0;
	c->nusers = c->nrecent_prefer = 0;
	c->valid = false;
}

/* How many pairs of `c` are user `uid`'s (sorted by uid: a range). */
static size_t user_pairs(const struct census *c, uint32_t uid)
{
	size_t lo = 0, hi = c->npairs, first;

	while (lo < hi) { /* the first pair of uid or above */
		size_t mid = lo + (hi - lo) / 2;

		if (c->pairs[mid].uid < uid)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	hi = c->npairs;
	while (lo < hi) { /* the first pair above uid */
		size_t mid = lo + (hi - lo) / 2;

		if (c->pairs[mid].uid <= uid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - first;
}

int census_admit(struct census *c, uint32_t uid, uint64_t hash,
		 size_t max_total, size_t max_user, char *why, size_t size)
{
	struct census_entry key = { .uid = uid, .hash = hash };
	size_t user;
	bool seen;

	/* no cap, or no census yet (or its last count failed): nothing to
	 * count against, so nothing is refused */
	if ((!max_total && !max_user) || !c->valid ||
	    found(&key, c->pairs, c->npairs, sizeof(key), by_pair))
		return 0;
	user = user_pairs(c, uid);
	seen = found(&hash, c->all, c->nall, sizeof(hash), by_hash);
	for (size_t i = 0; i < c->nrecent; i++) {
		const struct census_entry *e = &c->recent[i];

		if (e->uid == uid && e->hash == hash)
			return 0;
		user += e->uid == uid;
		seen = seen || e->hash == hash;
	}
	if (max_user && user >= max_user) {
		snprintf(
			why, size,
			"--extra: user %u has %zu distinct requests pending, the most allowed (MaxPendingRequestsPerUser=%zu in extra.conf): reuse one of them, or cancel some of those jobs or wait until they start (counted again within about 10 seconds)",
			uid, user, max_user);
		return 1;
	}
	if (max_total && !seen && c->nall + c->recent_new >= max_total) {
		snprintf(
			why, size,
			"--extra: %zu distinct requests are pending, the most allowed (MaxPendingRequests=%zu in extra.conf): reuse a request already pending, or wait until some of those jobs start (counted again within about 10 seconds)",
			c->nall + c->recent_new, max_total);
		return 1;
	}
	if (xc_grow((void **)&c->recent, &c->cap, c->nrecent + 1,
		    sizeof(*c->recent)) < 0)
		return -1;
	key.seq = ++c->seq;
	c->recent[c->nrecent++] = key;
	c->recent_new += !seen;
	return 0;
}

static int user_cmp(const void *key, const void *elt)
{
	uint32_t uid = *(const uint32_t *)key;
	const struct census_user *u = elt;

	return uid < u->uid ? -1 : uid > u->uid;
}

int census_admit_prefer(struct census *c, uint32_t uid, size_t max_user,
			char *why, size_t size)
{
	const struct census_user *u;
	size_t n;

	if (!max_user || !c->valid)
		return 0;
	u = c->nusers ? bsearch(&uid, c->users, c->nusers, sizeof(*c->users),
				user_cmp)
		      : NULL;
	n = u ? u->preferring : 0;
	for (size_t i = 0; i < c->nrecent_prefer; i++)
		n += c->recent_prefer[i].uid == uid;
	if (n >= max_user) {
		snprintf(
			why, size,
			"--extra-prefer: user %u has %zu pending jobs with preferences, the most allowed (MaxPreferringJobsPerUser=%zu in extra.conf): drop the preferences of some (slurm-extra prefer --job ID --none), cancel some of those jobs or wait until they start (counted again within about 10 seconds)",
			uid, n, max_user);
		return 1;
	}
	if (xc_grow((void **)&c->recent_prefer, &c->cap_prefer,
		    c->nrecent_prefer + 1, sizeof(*c->recent_prefer)) < 0)
		return -1;
	c->recent_prefer[c->nrecent_prefer++] =
		(struct census_entry){ .uid = uid, .seq = ++c->seq };
	return 0;
}

void census_free(struct census *c)
{
	free(c->pairs);
	free(c->all);
	free(c->users);
	free(c->recent_prefer);
	free(c->recent);
	memset(c, 0, sizeof(*c));
}
