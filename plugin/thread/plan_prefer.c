/*
 * plan_prefer.c - a job's effective request in a round's plan, each
 * distinct tier counted once a round (plan_prefer.h).
 */
#include <stdlib.h>
#include <string.h>

#include "plan_prefer.h"
#include "slurm_nodes.h"
#include "xc_util.h"

/* One distinct request with its tiers, in a round: each tier's request
 * in the memo, looked up once. */
struct tier_set {
	uint64_t key;  /* set_key() */
	char *request; /* the request's text (a copy) */
	char **tiers;  /* the tiers' (copies) */
	unsigned n;    /* how many */
	struct memo_request *req[SX_MAX_PREFER]; /* "(R)&(Pi)" in the memo:
						    NULL when it narrows
						    nothing (invalid) */
	uint64_t changed; /* the latest memo_request.changed of them */
};

/* The nodes of one tier's request, usable by the jobs of one partition
 * list with no exclusions of their own, in a round. */
struct tier_count {
	const struct memo_request *req; /* NULL: an empty slot */
	uint64_t part_key;		/* text_key() of the partition list */
	char *part;			/* the list (a copy; "" for none) */
	size_t nodes, free_nodes;
};

struct prefer_round {
	struct tier_set **sets;	   /* open addressing by key (NULL: empty) */
	size_t nsets, set_cap;	   /* set_cap a power of two, or 0 */
	struct tier_count *counts; /* open addressing by (req, part_key) */
	size_t ncounts, count_cap;
	uint64_t free_print; /* of in->free, made at the start */
};

static uint64_t text_key(const char *s)
{
	return memo_mix_text(0x9e3779b97f4a7c15ULL, s);
}

/* The key of `st`'s request and tiers. */
static uint64_t set_key(const struct sx_job_state *st)
{
	uint64_t h = text_key(st->request);

	for (unsigned i = 0; i < st->n_prefer; i++)
		h = memo_mix_text(h, st->prefer[i]);
	return memo_mix_word(h, st->n_prefer);
}

static bool set_is(const struct tier_set *s, uint64_t key,
		   const struct sx_job_state *st)
{
	if (s->key != key || s->n != st->n_prefer ||
	    strcmp(s->request, st->request ? st->request : "") != 0)
		return false;
	for (unsigned i = 0; i < s->n; i++)
		if (strcmp(s->tiers[i], st->prefer[i]) != 0)
			return false;
	return true;
}

static void set_free(struct tier_set *s)
{
	if (!s)
		return;
	for (unsigned i = 0; s->tiers && i < s->n; i++)
		free(s->tiers[i]);
	free(s->tiers);
	free(s->request);
	free(s);
}

/* Looks up the requests of `s`'s tiers in the memo (s->request and
 * s->tiers set; marked used by the round).  -1 when out of memory. */
static int set_lookup(struct plan_prefer_in *in, struct tier_set *s)
{
	s->changed = 0;
	for (unsigned i = 0; i < s->n; i++) {
		char *text = prefer_compose(s->request, s->tiers[i]);
		int rc = 0;

		s->req[i] = NULL;
		if (!text)
			return -1;
		rc = memo_request_of(in->memo, text, in->limits, &s->req[i]);
		free(text);
		if (rc < 0)
			return -1;
		if (s->req[i] && s->req[i]->changed > s->changed)
			s->changed = s->req[i]->changed;
	}
	return 0;
}

int plan_prefer_start(struct plan_prefer_in *in)
{
	size_t count = xc_nodes_count(in->table);
	uint64_t h = 0x243f6a8885a308d3ULL;

	if (!(in->round = calloc(1, sizeof(*in->round))))
		return -1;
	for (size_t k = 0; in->free && k < count; k++)
		if (in->free[k])
			h = memo_mix_word(h, k + 1);
	in->round->free_print = h;
	return 0;
}

void plan_prefer_end(struct plan_prefer_in *in)
{
	struct prefer_round *r = in->round;

	if (!r)
		return;
	for (size_t i = 0; i < r->set_cap; i++)
		set_free(r->sets[i]);
	for (size_t i = 0; i < r->count_cap; i++)
		free(r->counts[i].part);
	free(r->sets);
	free(r->counts);
	free(r);
	in->round = NULL;
}

/* Doubles the sets' table (from none: 64 slots).  -1 when out of memory. */
static int sets_grow(struct prefer_round *r)
{
	size_t cap = r->set_cap ? 2 * r->set_cap : 64;
	struct tier_set **v = calloc(cap, sizeof(*v));

	if (!v)
		return -1;
	for (size_t i = 0; i < r->set_cap; i++) {
		struct tier_set *s = r->sets[i];
		size_t j;

		if (!s)
			continue;
		for (j = s->key & (cap - 1); v[j]; j = (j + 1) & (cap - 1))
			;
		v[j] = s;
	}
	free(r->sets);
	r->sets = v;
	r->set_cap = cap;
	return 0;
}

/* A new set for `st`, its tiers looked up; NULL when out of memory. */
static struct tier_set *set_new(struct plan_prefer_in *in, uint64_t key,
				const struct sx_job_state *st)
{
	struct tier_set *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->key = key;
	if (!(s->request = strdup(st->request ? st->request : "")) ||
	    !(s->tiers = calloc(st->n_prefer ? st->n_prefer : 1,
				sizeof(char *)))) {
		set_free(s);
		return NULL;
	}
	for (; s->n < st->n_prefer; s->n++)
		if (!(s->tiers[s->n] = strdup(st->prefer[s->n]))) {
			set_free(s);
			return NULL;
		}
	if (set_lookup(in, s) < 0) {
		set_free(s);
		return NULL;
	}
	return s;
}

/* The round's set of `st`'s request and tiers, looked up the first time
 * it is asked for.  NULL when out of memory. */
static const struct tier_set *set_of(struct plan_prefer_in *in,
				     const struct sx_job_state *st)
{
	struct prefer_round *r = in->round;
	uint64_t key = set_key(st);
	size_t j;

	if ((r->nsets + 1) * 2 > r->set_cap && sets_grow(r) < 0)
		return NULL;
	for (j = key & (r->set_cap - 1); r->sets[j];
	     j = (j + 1) & (r->set_cap - 1))
		if (set_is(r->sets[j], key, st))
			return r->sets[j];
	if (!(r->sets[j] = set_new(in, key, st)))
		return NULL;
	r->nsets++;
	return r->sets[j];
}

/* Doubles the counts' table (from none: 256 slots).  -1 when out of
 * memory. */
static int counts_grow(struct prefer_round *r)
{
	size_t cap = r->count_cap ? 2 * r->count_cap : 256;
	struct tier_count *v = calloc(cap, sizeof(*v));

	if (!v)
		return -1;
	for (size_t i = 0; i < r->count_cap; i++) {
		const struct tier_count *c = &r->counts[i];
		size_t j;

		if (!c->req)
			continue;
		for (j = memo_mix_word(c->part_key, (uintptr_t)c->req) &
			 (cap - 1);
		     v[j].req; j = (j + 1) & (cap - 1))
			;
		v[j] = *c;
	}
	free(r->counts);
	r->counts = v;
	r->count_cap = cap;
	return 0;
}

/* The slot of (req, part) in the round's counts: its count, or the empty
 * slot where it goes (c->req NULL).  NULL when out of memory. */
static struct tier_count *count_slot(struct prefer_round *r,
				     const struct memo_request *req,
				     uint64_t part_key, const char *part)
{
	size_t j;

	if ((r->ncounts + 1) * 2 > r->count_cap && counts_grow(r) < 0)
		return NULL;
	for (j = memo_mix_word(part_key, (uintptr_t)req) & (r->count_cap - 1);
	     r->counts[j].req; j = (j + 1) & (r->count_cap - 1)) {
		struct tier_count *c = &r->counts[j];

		if (c->req == req && c->part_key == part_key &&
		    strcmp(c->part, part) == 0)
			return c;
	}
	return &r->counts[j];
}

/* What counting one job's tiers reads (count_tier). */
struct job_tiers {
	struct plan_prefer_in *in;
	const slurm_job_info_t *job;
	const struct sx_job_state *st;
	const struct tier_set *set;
	bool own;	   /* exclusions of its own: counted for it alone */
	bool usable_made;  /* in->usable holds its usable nodes */
	uint64_t part_key; /* text_key(job->partition) */
};

/* in->usable: the nodes of the job's partitions its user did not
 * exclude (a preferred node elsewhere is none). */
static void make_usable(struct job_tiers *j)
{
	struct plan_prefer_in *in = j->in;
	size_t count = xc_nodes_count(in->table);

	for (size_t k = 0; k < count; k++)
		in->usable[k] = true;
	if (in->parts)
		(void)parts_usable(in->parts, j->job->partition, count,
				   in->usable);
	if (j->st->exclude && *j->st->exclude)
		(void)sx_nodes_mark(in->table, j->st->exclude, in->usable,
				    false, NULL);
	j->usable_made = true;
}

/* prefer_count_fn: tier `i` of the job, counted once a round for each
 * partition list (jobs with no exclusions of their own). */
static int count_tier(void *ctx, unsigned i, size_t *nodes, size_t *free_nodes)
{
	struct job_tiers *j = ctx;
	struct plan_prefer_in *in = j->in;
	struct memo_request *req = j->set->req[i];
	const char *part = j->job->partition ? j->job->partition : "";
	struct tier_count *slot = NULL;
	size_t count = xc_nodes_count(in->table), n = 0, nf = 0;
	bool evaluated;

	if (!req)
		return 0; /* narrows nothing */
	if (!j->own && in->round) {
		if (!(slot = count_slot(in->round, req, j->part_key, part)))
			return -1;
		if (slot->req) {
			*nodes = slot->nodes;
			*free_nodes = slot->free_nodes;
			return 1;
		}
	}
	if (!j->usable_made)
		make_usable(j);
	if (memo_matched(in->memo, req, in->table, in->matched, &evaluated) < 0)
		return -1;
	for (size_t k = 0; k < count; k++) {
		bool yes = in->matched[k] && in->usable[k];

		n += yes;
		nf += yes && in->free && in->free[k];
	}
	*nodes = n;
	*free_nodes = nf;
	if (slot) {
		if (!(slot->part = strdup(part)))
			return -1;
		slot->req = req;
		slot->part_key = j->part_key;
		slot->nodes = n;
		slot->free_nodes = nf;
		in->round->ncounts++;
	}
	return 1;
}

time_t plan_prefer_eligible(const slurm_job_info_t *job,
			    const struct sx_job_state *st)
{
	if (job->eligible_time > 0)
		return job->eligible_time;
	if (st->wait > 0 || job->priority == 0 ||
	    job->state_reason == WAIT_DEPENDENCY)
		return 0;
	return job->submit_time;
}

uint64_t plan_prefer_print(struct plan_prefer_in *in,
			   const slurm_job_info_t *job,
			   const struct sx_job_state *st, uint64_t print,
			   bool *live)
{
	time_t eligible = plan_prefer_eligible(job, st);
	uint64_t h = memo_mix_word(print, (uint64_t)eligible);

	*live = prefer_waiting(st, eligible, in->now);
	h = memo_mix_text(memo_mix_word(h, *live), job->partition);
	if (!*live)
		return h;
	h = memo_mix_word(h, in->parts ? (uint64_t)in->parts->time : 0);
	if (st->wait <= 0) {
		struct plan_prefer_in once = *in;

		if (!in->round && plan_prefer_start(&once) == 0) {
			h = memo_mix_word(h, once.round->free_print);
			plan_prefer_end(&once);
		} else if (in->round) {
			h = memo_mix_word(h, in->round->free_print);
		}
	}
	return h;
}

/* The set of `st`: in->round's, or (none) *tmp, which borrows st's
 * strings and holds nothing to free.  NULL when out of memory. */
static const struct tier_set *tiers_of(struct plan_prefer_in *in,
				       const struct sx_job_state *st,
				       struct tier_set *tmp)
{
	if (in->round)
		return set_of(in, st);
	memset(tmp, 0, sizeof(*tmp));
	tmp->request = st->request ? st->request : "";
	tmp->tiers = st->prefer;
	tmp->n = st->n_prefer;
	return set_lookup(in, tmp) < 0 ? NULL : tmp;
}

int plan_prefer_tiers_changed(struct plan_prefer_in *in,
			      const struct sx_job_state *st, uint64_t planned,
			      bool *changed)
{
	struct tier_set tmp;
	const struct tier_set *s = tiers_of(in, st, &tmp);

	if (!s)
		return -1;
	*changed = s->changed > planned;
	return 0;
}

int plan_prefer(struct plan_prefer_in *in, const slurm_job_info_t *job,
		const struct sx_job_state *st, char **effective, char **note,
		struct prefer_pick *pick)
{
	time_t eligible = plan_prefer_eligible(job, st);
	struct tier_set tmp;
	struct job_tiers j = { .in = in,
			       .job = job,
			       .st = st,
			       .own = st->exclude && *st->exclude,
			       .part_key = text_key(job->partition) };

	*effective = *note = NULL;
	if (!prefer_waiting(st, eligible, in->now)) {
		/* the request alone: nothing to evaluate */
		memset(pick, 0, sizeof(*pick));
		return (*note = strdup("")) ? 0 : -1;
	}
	if (!(j.set = tiers_of(in, st, &tmp)) ||
	    prefer_pick_tiers(st, eligible, in->now, count_tier, &j, pick) < 0)
		return -1;
	if (pick->tier && !(*effective = prefer_compose(
				    st->request, st->prefer[pick->tier - 1])))
		return -1;
	if (!(*note = prefer_note(st, pick))) {
		free(*effective);
		*effective = NULL;
		return -1;
	}
	return 0;
}

void plan_prefer_count(const struct plan_prefer_in *in,
		       const slurm_job_info_t *job,
		       const struct sx_job_state *st,
		       const struct prefer_pick *pick,
		       struct refilter_stats *stats)
{
	time_t eligible = plan_prefer_eligible(job, st), until = 0;
	bool live;

	if (pick) {
		live = pick->waiting;
		until = pick->tier ? pick->until : 0;
	} else {
		live = prefer_waiting(st, eligible, in->now);
		until = live ? prefer_deadline(st, eligible) : 0;
	}
	stats->preferring++;
	stats->prefer_live += live;
	stats->prefer_free += live && st->wait <= 0;
	if (until > in->now &&
	    (!stats->prefer_next || until < stats->prefer_next))
		stats->prefer_next = until;
}

int plan_prefer_counted(struct plan_prefer_in *in, const slurm_job_info_t *job,
			const struct sx_job_state *st, char **effective,
			char **note, bool *live, struct refilter_stats *stats)
{
	struct prefer_pick pick;

	if (plan_prefer(in, job, st, effective, note, &pick) < 0)
		return -1;
	plan_prefer_count(in, job, st, &pick, stats);
	*live = pick.waiting;
	return 0;
}
