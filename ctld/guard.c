/*
 * guard.c - what the guard at placement keeps between placements
 * (guard.h): the nodes' Extra as last read, the requests and tiers
 * parsed with their answers; the bits it set in each job's excluded nodes
 * are guard_jobs.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/linkhash.h>

#include "guard_private.h"

static void req_free(struct guard_req *r)
{
	if (!r)
		return;
	xc_expr_destroy(r->expr);
	free(r->known);
	free(r->fails);
	free(r);
}

static void request_free(struct lh_entry *e)
{
	free(lh_entry_k(e));
	req_free((struct guard_req *)lh_entry_v(e));
}

struct guard *guard_create(const xc_limits_t *limits)
{
	static uint64_t serials;
	struct guard *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->serial = ++serials;
	g->limits = xc_limits_in_force(limits);
	if (!(g->requests = lh_kchar_table_new(64, request_free)) ||
	    !(g->tiers = lh_kchar_table_new(64, request_free))) {
		if (g->requests)
			lh_table_free(g->requests);
		free(g);
		return NULL;
	}
	return g;
}

static void node_forget(struct node_seen *s)
{
	free(s->text);
	xc_extra_destroy(s->extra);
	memset(s, 0, sizeof(*s));
}

static void nodes_free(struct guard *g)
{
	guard_cols_drop(g);
	for (size_t i = 0; i < g->nnodes; i++)
		node_forget(&g->nodes[i]);
	free(g->nodes);
	free(g->changed);
	g->nodes = NULL;
	g->changed = NULL;
	g->nnodes = 0;
}

void guard_destroy(struct guard *g)
{
	if (!g)
		return;
	nodes_free(g);
	lh_table_free(g->requests);
	lh_table_free(g->tiers);
	for (size_t k = 0; k < g->jobs_cap; k++)
		guard_job_clear(g, &g->jobs[k]);
	free(g->jobs);
	free(g);
}

/* Drops every request kept in *table (their answers with them); false
 * when out of memory (the old table is kept). */
static bool table_drop(struct lh_table **table)
{
	struct lh_table *fresh = lh_kchar_table_new(64, request_free);

	if (!fresh)
		return false;
	lh_table_free(*table);
	*table = fresh;
	return true;
}

/* Drops every request and tier kept; false when out of memory. */
static bool requests_drop(struct guard *g)
{
	return table_drop(&g->requests) && table_drop(&g->tiers);
}

enum guard_look guard_look_needed(const struct guard *g, size_t nnodes,
				  long long updated, long long now,
				  bool unstamped)
{
	/* (a clock set back could meet a node's stamp as recorded: every
	 * node then read afresh) */
	if (!g->looked || nnodes != g->nnodes || updated != g->seen ||
	    now < g->looked_at || now < g->read_max)
		return GUARD_LOOK_ALL;
	/* the look came in the stamp's second (an update after it in that
	 * second left the stamp as it was): a look now settles it */
	if (g->looked_at <= g->seen && now > g->looked_at)
		return GUARD_LOOK_ALL;
	/* nothing stamped changed since; a change Slurm stamps only in the
	 * node's own record is seen by its stamp */
	if (g->looked_at > g->seen)
		return unstamped ? GUARD_LOOK_REGISTERED : GUARD_LOOK_NONE;
	return GUARD_LOOK_CANDIDATES;
}

void guard_looked_all(struct guard *g, long long updated, long long now)
{
	g->looked = true;
	g->seen = updated;
	g->looked_at = now;
}

/* A new node count: every node read afresh, every request's answers
 * gone (they are sized by it).  False when out of memory. */
static bool nodes_resize(struct guard *g, size_t nnodes)
{
	struct node_seen *fresh = calloc(nnodes ? nnodes : 1, sizeof(*fresh));
	uint64_t *changed = calloc(GUARD_WORDS(nnodes) + 1, sizeof(*changed));

	if (!fresh || !changed || !requests_drop(g)) {
		free(fresh);
		free(changed);
		return false;
	}
	nodes_free(g);
	g->nodes = fresh;
	g->changed = changed;
	g->changes += GUARD_CHANGE_LOG + 1; /* every node, for the look */
	g->nnodes = nnodes;
	g->looked = false;
	return true;
}

/* The answers for the nodes in g->changed forgotten by every request
 * kept: once a request for each word that changed (a look at 65,536
 * changed nodes with 1,024 requests kept is 1,024 words a request), and
 * g->changed cleared. */
static void answers_forget(struct guard *g)
{
	size_t words = GUARD_WORDS(g->nnodes), k = 0;
	struct lh_entry *e;

	/* the words that changed, listed once for all the requests */
	size_t *at = malloc(words * sizeof(*at));

	for (size_t w = 0; at && w < words; w++)
		if (g->changed[w])
			at[k++] = w;
	for (int t = 0; t < 2; t++) {
		lh_foreach(t ? g->tiers : g->requests, e)
		{
			struct guard_req *r = (struct guard_req *)lh_entry_v(e);

			if (!r->known)
				continue;
			if (at)
				for (size_t j = 0; j < k; j++)
					r->known[at[j]] &= ~g->changed[at[j]];
			else /* out of memory: every word */
				for (size_t w = 0; w < words; w++)
					r->known[w] &= ~g->changed[w];
		}
	}
	free(at);
	memset(g->changed, 0, words * sizeof(*g->changed));
}

/* Reads node `i`'s Extra `extra` if it differs from the text last read
 * (marked in g->changed); 1 changed, 0 the same, -1 out of memory (the
 * node is left unread: kept off until read). */
static int node_read(struct guard *g, size_t i, const char *extra)
{
	struct node_seen *s = &g->nodes[i];
	xc_error_t err = { 0 };
	xc_extra_state_t state = XC_EXTRA_UNSET;
	char *copy = NULL;

	if (s->read && !extra == !s->text &&
	    (!extra || !strcmp(extra, s->text)))
		return 0;
	g->changed[i / 64] |= 1ULL << (i % 64);
	g->change_log[g->changes++ % GUARD_CHANGE_LOG] = (uint32_t)i;
	node_forget(s);
	if (extra && !(copy = strdup(extra)))
		return -1;
	if (extra)
		s->extra = xc_extra_load(extra, strlen(extra), &g->limits,
					 &state, &err);
	if (err.code == XC_E_NOMEM) {
		free(copy);
		return -1;
	}
	if (g->say && state != XC_EXTRA_OBJECT && state != XC_EXTRA_UNSET) {
		char why[96];

		if (g->told++ < GUARD_UNUSABLE_MAX)
			g->say(i,
			       xc_extra_state_explain(state, &g->limits, why,
						      sizeof(why)),
			       g->say_arg);
		else
			g->untold++;
	}
	s->text = copy;
	s->read = true;
	return 1;
}

void guard_on_unusable(struct guard *g,
		       void (*say)(size_t i, const char *why, void *arg),
		       void *arg)
{
	g->say = say;
	g->say_arg = arg;
}

long guard_look(struct guard *g, size_t nnodes, const uint64_t *which,
		const char *(*extra_of)(size_t i, void *arg), void *arg)
{
	return guard_look_stamps(g, nnodes, which, extra_of, NULL, arg, 0,
				 false);
}

long guard_look_stamps(struct guard *g, size_t nnodes, const uint64_t *which,
		       const char *(*extra_of)(size_t i, void *arg),
		       long long (*stamp_of)(size_t i, void *arg), void *arg,
		       long long now, bool skip)
{
	long changed = 0;
	bool nomem = false;

	if (nnodes != g->nnodes && !nodes_resize(g, nnodes))
		return -1;
	g->told = g->untold = 0;
	for (size_t w = 0; w < GUARD_WORDS(nnodes); w++) {
		uint64_t bits = which ? which[w] : ~0ULL;

		while (bits) {
			size_t i = w * 64 + (size_t)__builtin_ctzll(bits);
			int r;

			struct node_seen *n;
			long long stamp = 0;

			bits &= bits - 1;
			if (i >= nnodes)
				break;
			n = &g->nodes[i];
			if (stamp_of) {
				stamp = stamp_of(i, arg);
				/* its own stamp as at a read in a later
				 * second: nothing can have changed it */
				if (skip && n->read && n->stamped &&
				    stamp == n->stamp && stamp < n->read_at)
					continue;
			}
			if ((r = node_read(g, i, extra_of(i, arg))) < 0) {
				nomem = true;
				continue;
			}
			changed += r;
			n->stamped = stamp_of != NULL;
			n->stamp = stamp;
			n->read_at = now;
			if (stamp_of && now > g->read_max)
				g->read_max = now;
		}
	}
	if (changed || nomem)
		answers_forget(g);
	if (g->untold) {
		char more[96];

		snprintf(
			more, sizeof(more),
			"%zu more nodes whose Extra jobs with --extra skip, not named",
			g->untold);
		g->say(GUARD_UNUSABLE_MORE, more, g->say_arg);
	}
	return nomem ? -1 : changed;
}

uint64_t guard_changes(const struct guard *g)
{
	return g->changes;
}

bool guard_changed_since(const struct guard *g, uint64_t since, uint64_t *which)
{
	if (since > g->changes || g->changes - since > GUARD_CHANGE_LOG)
		return false;
	for (uint64_t c = since; c < g->changes; c++) {
		uint32_t i = g->change_log[c % GUARD_CHANGE_LOG];

		which[i / 64] |= 1ULL << (i % 64);
	}
	return true;
}

const xc_limits_t *guard_limits(const struct guard *g)
{
	return &g->limits;
}

size_t guard_evaluated(const struct guard *g)
{
	return g->evaluated;
}

/* How many leaves `e` has (what evaluating it on one node costs). */
static size_t leaves_of(const xc_expr_t *e)
{
	size_t n = 0, count = xc_expr_count(e);

	if (!count)
		return 1;
	for (size_t i = 0; i < count; i++)
		n += leaves_of(xc_expr_child(e, i));
	return n;
}

/* guard_request() in *table (the requests', or the tiers'); with
 * `budget` (non-NULL), a new entry's parse paid from it first (`over`:
 * set when it did not fit, nothing parsed). */
static struct guard_req *request_in(struct guard *g, struct lh_table **table,
				    const char *text, size_t *budget,
				    bool *over)
{
	struct guard_req *r;
	size_t words = GUARD_WORDS(g->nnodes);
	char *key;
	xc_error_t err;

	if (!g->nnodes)
		return NULL;
	if (lh_table_lookup_ex(*table, text, (void **)&r))
		return r->expr ? r : NULL;
	/* a tier not kept yet: its parse comes out of `budget` first (a
	 * text's 16 bytes cost about an answer); past it, *over */
	if (budget) {
		size_t parse = 1 + strlen(text) / 16;

		if (*budget < parse) {
			*over = true;
			return NULL;
		}
		*budget -= parse;
	}
	/* Bounded: past the limit every request of the table is parsed and
	 * evaluated afresh from the jobs placed next (a placement parses
	 * one, and its tiers). */
	if ((*table)->count >= GUARD_MAX_REQUESTS && !table_drop(table))
		return NULL;
	if (!(r = calloc(1, sizeof(*r))))
		return NULL;
	r->expr = xc_parse(text, &g->limits, &err);
	/* An invalid request is kept as such: parsed once too; a failure
	 * for want of memory is not kept. */
	if ((!r->expr && err.code == XC_E_NOMEM) ||
	    (r->expr && (!(r->known = calloc(words, sizeof(uint64_t))) ||
			 !(r->fails = calloc(words, sizeof(uint64_t))))) ||
	    !(key = strdup(text))) {
		req_free(r);
		return NULL;
	}
	if (lh_table_insert(*table, key, r) < 0) {
		free(key);
		req_free(r);
		return NULL;
	}
	/* an answer: a node's record and text read (some 200 ns), then
	 * each leaf (some 14 ns): tests/bench/bench_guard */
	if (r->expr) {
		r->leaves = leaves_of(r->expr);
		r->cost = 1 + r->leaves / 16;
	}
	return r->expr ? r : NULL;
}

struct guard_req *guard_request(struct guard *g, const char *text)
{
	return request_in(g, &g->requests, text, NULL, NULL);
}

struct guard_req *guard_tier(struct guard *g, const char *text)
{
	return request_in(g, &g->tiers, text, NULL, NULL);
}

/* Whether node `i`, as last read, satisfies `r` (evaluated now). */
static bool satisfies(const struct guard *g, const struct guard_req *r,
		      size_t i)
{
	const struct node_seen *s = &g->nodes[i];

	return s->read && s->extra && xc_match(r->expr, s->extra);
}

size_t guard_keep_off(struct guard *g, struct guard_req *r,
		      const uint64_t *pool, const uint64_t *cand, uint64_t *off,
		      uint32_t *list, size_t *left)
{
	size_t n = 0;

	(void)guard_verdict(g, r, pool, off, left);
	for (size_t w = 0; w < GUARD_WORDS(g->nnodes); w++) {
		off[w] &= cand[w];
		for (uint64_t b = off[w]; b; b &= b - 1)
			list[n++] =
				(uint32_t)(w * 64 + (size_t)__builtin_ctzll(b));
	}
	return n;
}

bool guard_req_matches(struct guard *g, struct guard_req *r, size_t i)
{
	return r && i < g->nnodes && satisfies(g, r, i);
}

/* guard_verdict(), evaluating at most *budget answers not kept (each
 * taken from it); false when that was not enough (`off` and *left then
 * partial; the answers evaluated are kept). */
static bool verdict(struct guard *g, struct guard_req *r, const uint64_t *cand,
		    uint64_t *off, size_t *left, size_t *n_off, size_t *budget)
{
	size_t n = 0, ok = 0;

	/* many answers not kept: every node's by the columns at once, when
	 * that costs less (guard_cols.c) */
	if (g->cols) {
		size_t unknown = 0, cols = guard_cols_cost(g, r);

		for (size_t w = 0;
		     w < GUARD_WORDS(g->nnodes) && unknown * r->cost <= cols;
		     w++)
			unknown += (size_t)__builtin_popcountll(cand[w] &
								~r->known[w]);
		if (unknown * r->cost > cols)
			(void)guard_cols_answer(g, r, budget);
	}

	for (size_t w = 0; w < GUARD_WORDS(g->nnodes); w++) {
		uint64_t c = cand[w], unknown = c & ~r->known[w];

		if (!c) { /* (the look's few changed nodes: most words) */
			off[w] = 0;
			continue;
		}
		while (unknown) {
			size_t i = w * 64 + (size_t)__builtin_ctzll(unknown);
			uint64_t m = 1ULL << (i % 64);

			unknown &= unknown - 1;
			if (i >= g->nnodes) {
				c &= ~m; /* past the last node: none */
				continue;
			}
			/* a node not read (out of memory then) is kept
			 * off and asked again next time */
			if (!g->nodes[i].read) {
				r->fails[w] |= m;
				continue;
			}
			if (*budget < r->cost)
				return false; /* those evaluated are kept */
			r->known[w] |= m;
			g->evaluated++;
			*budget -= r->cost;
			if (satisfies(g, r, i))
				r->fails[w] &= ~m;
			else
				r->fails[w] |= m;
		}
		off[w] = c & r->fails[w];
		n += (size_t)__builtin_popcountll(off[w]);
		ok += (size_t)__builtin_popcountll(c & ~r->fails[w]);
	}
	*left = ok;
	*n_off = n;
	return true;
}

size_t guard_verdict(struct guard *g, struct guard_req *r, const uint64_t *cand,
		     uint64_t *off, size_t *left)
{
	size_t n = 0, budget = SIZE_MAX;

	(void)verdict(g, r, cand, off, left, &n, &budget);
	return n;
}

bool guard_verdict_within(struct guard *g, struct guard_req *r,
			  const uint64_t *cand, uint64_t *off, size_t *left,
			  size_t *budget)
{
	size_t n = 0;

	return verdict(g, r, cand, off, left, &n, budget);
}

int guard_count(struct guard *g, const char *text, const uint64_t *usable,
		const uint64_t *free, uint64_t *scratch, size_t *budget,
		size_t *nodes, size_t *free_nodes)
{
	struct guard_req *r;
	size_t ok = 0, n_off, n_free = 0;
	bool over = false;

	if (!(r = request_in(g, &g->tiers, text, budget, &over)))
		return over ? -1 : 0;
	if (!verdict(g, r, usable, scratch, &ok, &n_off, budget))
		return -1;
	for (size_t w = 0; free && w < GUARD_WORDS(g->nnodes); w++)
		n_free += (size_t)__builtin_popcountll(usable[w] & ~scratch[w] &
						       free[w]);
	*nodes = ok;
	*free_nodes = n_free;
	return 1;
}

size_t guard_requests_kept(const struct guard *g)
{
	return (size_t)(g->requests->count + g->tiers->count);
}
