/*
 * test_look_model.c - the look (ctld/look.c) against a model of what a
 * job's excluded nodes must be, whatever Slurm and the caller do in
 * between: its own set (the user's, what Slurm rebuilds it from) | the
 * nodes failing its request.  Random steps from fixed seeds, each seed a
 * test (the same steps every run): requests' answers changed (a node, a
 * few, many, past the log, some nodes only), jobs' sets written by the
 * look, rebuilt by Slurm from the same text, given a new ExcNodeList,
 * put back, copied to a new job (an array task), forgotten, given a set
 * and taken back, moved to another request; after each write by the look,
 * and at each look_job_base(), the set is compared with the model.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "look.h"

#define N 700 /* nodes: eleven words, the last one partial */
#define W GUARD_WORDS(N)
#define NREQ 4
#define NJOB 24
#define STEPS 60000

struct mjob {
	uint32_t id, alt;
	int req;
	bool own_empty, applied;
	unsigned long long text;
	uint64_t own[W]; /* what Slurm makes of its set */
	uint64_t *bits;	 /* its set, NULL: none */
};

static struct look *lk;
static uint64_t fail[NREQ][W], rnd_state, round_no;
static int reqs[NREQ];
static struct mjob jobs[NJOB];
static uint32_t next_id;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static unsigned below(unsigned n)
{
	return (unsigned)(rnd() % n);
}

static void flip(uint64_t *w, unsigned i)
{
	w[i / 64] ^= 1ULL << (i % 64);
}

static void tail_mask(uint64_t *w)
{
	w[W - 1] &= (1ULL << (N % 64)) - 1;
}

/* none, one run, a few nodes, or a third of them at random */
static void random_set(uint64_t *w)
{
	unsigned kind = below(4), a;

	memset(w, 0, W * sizeof(*w));
	if (kind == 1) {
		a = below(N);
		for (unsigned i = a, e = a + below(N - a); i < e; i++)
			flip(w, i);
	} else if (kind == 2) {
		for (int k = 0; k < 5; k++)
			w[below(N) / 64] |= 1ULL << (below(64));
	} else if (kind == 3) {
		for (unsigned i = 0; i < N; i++)
			if (!below(3))
				flip(w, i);
	}
	tail_mask(w);
}

static bool empty(const uint64_t *w)
{
	for (int k = 0; k < W; k++)
		if (w[k])
			return false;
	return true;
}

static void new_round(void)
{
	static const char *texts[NREQ] = { "a=1", "b=1", "c=1", "d=1" };
	bool fresh;

	look_round(lk, ++round_no);
	for (int q = 0; q < NREQ; q++)
		cr_assert_geq(reqs[q] = look_req_seen(lk, texts[q], &fresh), 0);
}

/* Request q's answers change: a node, a few, more than the log holds,
 * all at random; given for every node or for some only. */
static void answers_change(int q)
{
	uint64_t now[W], which[W];
	unsigned kind = below(4);

	memcpy(now, fail[q], sizeof(now));
	if (kind == 0)
		flip(now, below(N));
	else if (kind == 1)
		for (unsigned k = below(40); k; k--)
			flip(now, below(N));
	else if (kind == 2)
		random_set(now);
	else
		for (int k = 0; k < 300; k++)
			flip(now, below(N));
	tail_mask(now);
	if (below(2)) {
		(void)look_req_update(lk, reqs[q], NULL, now, round_no);
		memcpy(fail[q], now, sizeof(now));
		return;
	}
	random_set(which);
	(void)look_req_update(lk, reqs[q], which, now, round_no);
	for (int k = 0; k < W; k++)
		fail[q][k] = (fail[q][k] & ~which[k]) | (now[k] & which[k]);
}

static void check(const struct mjob *j, long step)
{
	for (int k = 0; k < W; k++) {
		uint64_t want = j->own[k] | fail[j->req][k];

		if (!j->bits)
			cr_assert_eq(want, 0, "step %ld, job %u: no set", step,
				     j->id);
		else
			cr_assert_eq(
				j->bits[k], want,
				"step %ld, job %u, word %d: %llx, want %llx",
				step, j->id, k, (unsigned long long)j->bits[k],
				(unsigned long long)want);
	}
}

static void set_own(struct mjob *j)
{
	random_set(j->own);
	j->own_empty = empty(j->own);
	j->text = rnd();
	free(j->bits);
	j->bits = NULL;
	if (!j->own_empty) { /* Slurm's rebuild from the new text */
		cr_assert_not_null(j->bits = malloc(W * sizeof(uint64_t)));
		memcpy(j->bits, j->own, W * sizeof(uint64_t));
	}
}

/* A new job, or an array task whose set is a copy of `from`'s. */
static void job_new(struct mjob *j, const struct mjob *from)
{
	free(j->bits);
	memset(j, 0, sizeof(*j));
	j->id = ++next_id;
	j->req = (int)below(NREQ);
	if (!from) {
		set_own(j);
		return;
	}
	j->alt = from->id;
	j->req = from->req;
	j->own_empty = from->own_empty;
	j->text = from->text;
	memcpy(j->own, from->own, sizeof(j->own));
	if (from->bits) {
		cr_assert_not_null(j->bits = malloc(W * sizeof(uint64_t)));
		memcpy(j->bits, from->bits, W * sizeof(uint64_t));
	}
}

static void apply(struct mjob *j, long step)
{
	enum look_did d = look_job_apply(lk, j->id, j->alt, reqs[j->req],
					 j->bits, j->text, j->own_empty);

	if (d == LOOK_NEED_SET) {
		cr_assert_not_null(j->bits = calloc(W, sizeof(uint64_t)));
		look_job_set_given(lk, j->id, true);
		d = look_job_apply(lk, j->id, j->alt, reqs[j->req], j->bits,
				   j->text, j->own_empty);
	}
	cr_assert_neq(d, LOOK_LEFT, "step %ld: a base of a few runs", step);
	check(j, step);
	j->applied = true;
}

static bool gone(uint32_t id, void *arg)
{
	(void)arg;
	for (int k = 0; k < NJOB; k++)
		if (jobs[k].id == id)
			return false;
	return true;
}

static void run(uint64_t seed)
{
	rnd_state = seed;
	round_no = 0;
	next_id = 0;
	memset(fail, 0, sizeof(fail));
	memset(jobs, 0, sizeof(jobs));
	cr_assert_not_null(lk = look_create(N, NREQ));
	new_round();
	for (int k = 0; k < NJOB; k++)
		job_new(&jobs[k], NULL);
	for (long s = 0; s < STEPS; s++) {
		struct mjob *j = &jobs[below(NJOB)], *src;
		const uint64_t *b;
		unsigned op = below(12);

		if (s % 997 == 0)
			(void)look_sweep(lk, gone, NULL);
		switch (op) {
		case 0:
		case 1: /* answers change */
			new_round();
			answers_change((int)below(NREQ));
			break;
		case 2:
		case 3:
		case 4:
			apply(j, s);
			break;
		case 5: /* Slurm rebuilds the set from the same text */
			free(j->bits);
			j->bits = NULL;
			if (!j->own_empty) {
				cr_assert_not_null(
					j->bits = malloc(W * sizeof(uint64_t)));
				memcpy(j->bits, j->own, W * sizeof(uint64_t));
			}
			break;
		case 6: /* the user's new ExcNodeList */
			set_own(j);
			break;
		case 7: /* what a placement judges by */
			if (j->bits &&
			    (b = look_job_base(lk, j->id, j->bits, j->text)))
				cr_assert_eq(memcmp(b, j->own, sizeof(j->own)),
					     0, "step %ld: the base", s);
			break;
		case 8: /* put back: the job's own set */
			if (j->bits &&
			    look_job_restore(lk, j->id, j->bits, j->text))
				cr_assert_eq(
					memcmp(j->bits, j->own, sizeof(j->own)),
					0, "step %ld: put back", s);
			break;
		case 9: /* gone, a new job or a copy of another's set */
			src = &jobs[below(NJOB)];
			if (below(3) == 0) {
				look_job_forget(lk, j->id);
				job_new(j, NULL);
			} else if (src != j && src->applied) {
				job_new(j, src);
				apply(j, s);
			}
			break;
		case 10: /* a set it gave taken back */
			if (look_job_given(lk, j->id) && j->own_empty) {
				free(j->bits);
				j->bits = NULL;
				look_job_set_given(lk, j->id, false);
			}
			break;
		case 11: /* another request */
			j->req = (int)below(NREQ);
			break;
		}
	}
	for (int k = 0; k < NJOB; k++) {
		jobs[k].id = 0;
		free(jobs[k].bits);
		jobs[k].bits = NULL;
	}
	(void)look_sweep(lk, gone, NULL);
	cr_assert_eq(look_jobs_kept(lk), 0);
	cr_assert_eq(look_dense_kept(lk), 0);
	look_destroy(lk);
}

Test(look_model, seed_1)
{
	run(88172645463325252ULL);
}

Test(look_model, seed_2)
{
	run(0x9e3779b97f4a7c15ULL);
}

Test(look_model, seed_3)
{
	run(12345678910111213ULL);
}
