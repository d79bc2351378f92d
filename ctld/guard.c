/*
 * guard.c - what the guard at placement keeps between placements
 * (guard.h): the nodes' Extra as last read, the requests parsed, the bits
 * it set in each job's excluded nodes.
 */
#include <stdlib.h>
#include <string.h>

#include <json-c/linkhash.h>

#include "guard.h"

struct node_seen {
	char *text;	   /* the Extra last read (NULL: none) */
	xc_extra_t *extra; /* parsed, or NULL (unset, not an object ...) */
	bool read;	   /* text was read since the node count was set */
	bool stamped;	   /* stamp and read_at hold (guard_look_stamps()) */
	long long stamp;   /* the node's own stamp at that read */
	long long read_at; /* the second of that read */
};

/* A request and what it said of each node, while the node's Extra is the
 * one it was evaluated on. */
struct guard_req {
	xc_expr_t *expr; /* NULL: invalid (kept so, parsed once) */
	uint64_t *known; /* nodes whose answer is kept */
	uint64_t *fails; /* of those, the ones that do not satisfy it */
	size_t cost; /* what evaluating it on a node costs (guard_count()) */
};

/* A state the guard left a job's excluded nodes in. */
struct left {
	void *bits;		 /* a copy, NULL: none */
	unsigned long long text; /* hash of the ExcNodeList then */
	uint64_t written;	 /* when (the guard's own counter) */
	size_t n;
	uint32_t *nodes; /* what the guard had added */
};

struct job_rec {
	uint32_t id; /* 0: a free slot */
	struct left left[2];
};

struct guard {
	xc_limits_t limits;
	struct node_seen *nodes; /* nnodes of them */
	size_t nnodes;
	uint64_t *changed;	   /* a look's changed nodes, words */
	bool looked;		   /* a look at every node recorded */
	long long seen, looked_at; /* Slurm's stamp then, and when */
	size_t evaluated;	   /* answers evaluated (tests, bench) */
	struct lh_table *requests; /* text -> struct guard_req * (key owned) */
	struct lh_table *tiers;	   /* the same, for the tiers counted */
	size_t budget;		   /* the tiers' budget left ... */
	long long budget_at;	   /* ... in this second */
	bool budget_set;
	long long read_max;   /* the latest second a node was read stamped */
	struct job_rec *jobs; /* open addressing by id, 0 = free */
	size_t jobs_cap, jobs_n, sweep_at;
	uint64_t clock;			  /* counts the states written */
	const struct guard_bits_ops *ops; /* what the kept copies are */
};

static void job_clear(struct guard *g, struct job_rec *r);

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
	struct guard *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
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
		job_clear(g, &g->jobs[k]);
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
	char *copy = NULL;

	if (s->read && !extra == !s->text &&
	    (!extra || !strcmp(extra, s->text)))
		return 0;
	g->changed[i / 64] |= 1ULL << (i % 64);
	node_forget(s);
	if (extra && !(copy = strdup(extra)))
		return -1;
	if (extra)
		s->extra = xc_extra_load(extra, strlen(extra), &g->limits, NULL,
					 &err);
	if (err.code == XC_E_NOMEM) {
		free(copy);
		return -1;
	}
	s->text = copy;
	s->read = true;
	return 1;
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
	return nomem ? -1 : changed;
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

/* guard_request() in *table (the requests', or the tiers'). */
static struct guard_req *request_in(struct guard *g, struct lh_table **table,
				    const char *text)
{
	struct guard_req *r;
	size_t words = GUARD_WORDS(g->nnodes);
	char *key;
	xc_error_t err;

	if (!g->nnodes)
		return NULL;
	if (lh_table_lookup_ex(*table, text, (void **)&r))
		return r->expr ? r : NULL;
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
	if (r->expr)
		r->cost = 1 + leaves_of(r->expr) / 16;
	return r->expr ? r : NULL;
}

struct guard_req *guard_request(struct guard *g, const char *text)
{
	return request_in(g, &g->requests, text);
}

size_t *guard_tiers_budget(struct guard *g, long long now)
{
	if (!g->budget_set || now != g->budget_at) {
		g->budget = GUARD_TIER_BUDGET;
		g->budget_at = now;
		g->budget_set = true;
	}
	return &g->budget;
}

unsigned guard_tier_applied(bool counted, unsigned picked, unsigned carried,
			    bool by_list)
{
	if (!counted)
		return carried;
	if (by_list && carried && (!picked || picked > carried))
		return carried;
	return picked;
}

struct guard_req *guard_tier(struct guard *g, const char *text)
{
	return request_in(g, &g->tiers, text);
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

	for (size_t w = 0; w < GUARD_WORDS(g->nnodes); w++) {
		uint64_t c = cand[w], unknown = c & ~r->known[w];

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

int guard_count(struct guard *g, const char *text, const uint64_t *usable,
		const uint64_t *free, uint64_t *scratch, size_t *budget,
		size_t *nodes, size_t *free_nodes)
{
	struct guard_req *r = request_in(g, &g->tiers, text);
	size_t ok = 0, n_off, n_free = 0;

	if (!r)
		return 0;
	if (!verdict(g, r, usable, scratch, &ok, &n_off, budget))
		return -1;
	for (size_t w = 0; free && w < GUARD_WORDS(g->nnodes); w++)
		n_free += (size_t)__builtin_popcountll(usable[w] & ~scratch[w] &
						       free[w]);
	*nodes = ok;
	*free_nodes = n_free;
	return 1;
}

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
static void job_clear(struct guard *g, struct job_rec *r)
{
	for (int s = 0; s < 2; s++)
		left_clear(g, &r->left[s]);
}

/* Removes the record in slot `r` (backward-shift deletion, so that every
 * other record stays reachable from its home slot). */
static void job_remove(struct guard *g, struct job_rec *r)
{
	size_t hole = (size_t)(r - g->jobs), k = hole;

	job_clear(g, r);
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

size_t guard_requests_kept(const struct guard *g)
{
	return (size_t)(g->requests->count + g->tiers->count);
}
