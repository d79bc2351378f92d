/*
 * test_guard_cols.c - the guard's columns (guard.h "Columns",
 * guard_cols.c): the same answers as node by node, kept current by the
 * node changes replayed, dropped when too far behind, and a copy
 * installed only in the guard, node count and moment it was made for.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"

#define N 300

static char *texts[N];

/* Two guards for each test, and the nodes' texts, freed after it. */
static struct guard *one, *two;

static void guards_make(void)
{
	one = guard_create(NULL);
	two = guard_create(NULL);
	cr_assert(one && two);
}

static void guards_free(void)
{
	guard_destroy(one);
	guard_destroy(two);
	for (size_t i = 0; i < N; i++) {
		free(texts[i]);
		texts[i] = NULL;
	}
}

TestSuite(guard_cols, .init = guards_make, .fini = guards_free);

static const char *extra_of(size_t i, void *arg)
{
	(void)arg;
	return texts[i];
}

/* Node i's Extra, by a seeded generator: keys left out, values of the
 * wrong type, nulls, texts that are not an object or not JSON, none. */
static void node_text(size_t i, unsigned *seed)
{
	static const char *const racks[] = { "r1", "r2", "r3", "r10" };
	static const char *const gpus[] = { "true", "false", "\"true\"" };
	char gpu[32] = "", mem[32] = "null", buf[256];
	int k = rand_r(seed) % 20;

	free(texts[i]);
	texts[i] = NULL;
	if (k == 0)
		return; /* no Extra */
	if (k == 1 || k == 2) {
		texts[i] = strdup(k == 1 ? "not json" : "[1,2]");
		return;
	}
	if (k != 3) /* (3: no gpu) */
		snprintf(gpu, sizeof(gpu), "\"gpu\":%s,",
			 gpus[k == 4 ? 2 : rand_r(seed) % 2]);
	if (k != 5) /* (5: a null memory) */
		snprintf(mem, sizeof(mem), "%d", 64 << (rand_r(seed) % 5));
	snprintf(buf, sizeof(buf),
		 "{%s\"mem\":%s,\"rack\":\"%s\",\"load\":0.%d}", gpu, mem,
		 racks[rand_r(seed) % 4], rand_r(seed) % 10);
	texts[i] = strdup(buf);
}

static const char *const requests[] = {
	"gpu=true",	     "gpu=true&mem>=512",
	"rack!=r3",	     "(rack=r1|rack=r10)&load<0.5",
	"mem>100|gpu=false", "mem<=128&rack<r2",
	"gpu!=true",
};
#define NREQ (sizeof(requests) / sizeof(requests[0]))

/* What guard `g` keeps off of every node for each request, into
 * off[NREQ][words]. */
static void verdicts(struct guard *g, uint64_t off[NREQ][GUARD_WORDS(N)])
{
	uint64_t all[GUARD_WORDS(N)];

	memset(all, 0xff, sizeof(all));
	all[GUARD_WORDS(N) - 1] = (1ULL << (N % 64)) - 1;
	for (size_t r = 0; r < NREQ; r++) {
		struct guard_req *req = guard_request(g, requests[r]);
		size_t left;

		cr_assert_not_null(req, "%s", requests[r]);
		(void)guard_verdict(g, req, all, off[r], &left);
	}
}

static void look_all(struct guard *g)
{
	cr_assert_geq(guard_look(g, N, NULL, extra_of, NULL), 0);
	guard_looked_all(g, 1, 2);
}

/* Both guards look at every node, then keep off the same nodes for
 * every request. */
static void same_answers(struct guard *plain, struct guard *cols,
			 const char *what, int round)
{
	uint64_t a[NREQ][GUARD_WORDS(N)], b[NREQ][GUARD_WORDS(N)];

	look_all(plain);
	look_all(cols);
	verdicts(plain, a);
	verdicts(cols, b);
	cr_assert_eq(memcmp(a, b, sizeof(a)), 0, "%s %d", what, round);
}

/* A copy of `g`'s nodes, complete (in chunks of 7 nodes), built. */
static struct guard_cols_copy *built(struct guard *g)
{
	struct guard_cols_copy *c = guard_cols_copy(g);
	int r;

	cr_assert_not_null(c);
	cr_assert_not(guard_cols_build(c), "not complete: not built");
	while (!(r = guard_cols_copy_more(g, c, 7)))
		;
	cr_assert_eq(r, 1);
	cr_assert(guard_cols_build(c));
	return c;
}

static void with_columns(struct guard *g)
{
	struct guard_cols_copy *c = built(g);

	cr_assert(guard_cols_install(g, c));
	cr_assert_null(guard_cols_copy(g), "current columns: nothing to copy");
}

Test(guard_cols, the_same_answers_as_node_by_node)
{
	unsigned seed = 52;
	struct guard *plain = one, *cols = two;
	size_t by_cols;

	for (size_t i = 0; i < N; i++)
		node_text(i, &seed);
	look_all(cols);
	with_columns(cols);
	same_answers(plain, cols, "first", 0);
	cr_assert_eq(guard_cols_evaluated(cols), NREQ);
	cr_assert_eq(guard_evaluated(cols), 0, "no answer one by one");
	cr_assert_eq(guard_evaluated(plain), NREQ * N);

	/* some nodes changed (fewer than GUARD_COLS_REPLAY): replayed in
	 * the columns, which answer the nodes again (at 300 nodes they cost
	 * less than some 10 answers one by one) */
	for (int round = 0; round < 20; round++) {
		for (int k = 0; k < 24; k++)
			node_text((size_t)rand_r(&seed) % N, &seed);
		by_cols = guard_cols_evaluated(cols);
		same_answers(plain, cols, "round", round);
		cr_assert_null(guard_cols_copy(cols), "kept current");
		cr_assert_gt(guard_cols_evaluated(cols), by_cols);
	}

	/* every node changed, past the replay: the columns are dropped and
	 * the answers the same one by one, twice (built again between) */
	for (int round = 0; round < 2; round++) {
		for (size_t i = 0; i < N; i++)
			node_text(i, &seed);
		by_cols = guard_cols_evaluated(cols);
		same_answers(plain, cols, "every node changed", round);
		cr_assert_eq(guard_cols_evaluated(cols), by_cols, "dropped");
		with_columns(cols);
	}
}

Test(guard_cols, installed_only_where_it_was_copied)
{
	unsigned seed = 7;
	struct guard *g = one, *other = two;
	struct guard_cols_copy *c;

	for (size_t i = 0; i < N; i++)
		node_text(i, &seed);
	cr_assert_geq(guard_look(g, N, NULL, extra_of, NULL), 0);
	cr_assert_null(guard_cols_copy(g), "not every node read yet");
	guard_looked_all(g, 1, 2);
	look_all(other);

	/* another guard */
	c = built(g);
	cr_assert_not(guard_cols_install(other, c));

	/* more changes since than it replays */
	c = built(g);
	for (size_t i = 0; i <= GUARD_COLS_REPLAY; i++) {
		char text[32];

		snprintf(text, sizeof(text), "{\"gpu\":true,\"v\":%zu}", i);
		free(texts[i]);
		texts[i] = strdup(text);
	}
	look_all(g);
	cr_assert_not(guard_cols_install(g, c));

	/* a few changes since: replayed (node 6 changed and back) */
	c = built(g);
	free(texts[5]);
	texts[5] = strdup("{\"gpu\":false}");
	look_all(g);
	{
		char *was = texts[6];

		texts[6] = strdup("{\"gpu\":true,\"mem\":1}");
		look_all(g);
		free(texts[6]);
		texts[6] = was;
		look_all(g);
	}
	cr_assert(guard_cols_install(g, c));
	same_answers(other, g, "replayed", 0);
	cr_assert_gt(guard_cols_evaluated(g), 0);

	/* another node count while a copy is under way: it cannot go on */
	c = guard_cols_copy(other);
	cr_assert_eq(guard_cols_copy_more(other, c, 7), 0);
	cr_assert_geq(guard_look(other, N - 1, NULL, extra_of, NULL), 0);
	guard_looked_all(other, 1, 2);
	cr_assert_eq(guard_cols_copy_more(other, c, 7), -1);
	guard_cols_copy_free(c);
	guard_cols_copy_free(NULL);
}

Test(guard_cols, used_only_where_they_cost_less)
{
	unsigned seed = 11;
	struct guard *g = one, *plain = two;
	uint64_t cand[GUARD_WORDS(N)] = { 0 }, off[GUARD_WORDS(N)],
		 off2[GUARD_WORDS(N)];
	struct guard_req *r, *r2;
	size_t left, left2, budget;

	for (size_t i = 0; i < N; i++)
		node_text(i, &seed);
	look_all(g);
	look_all(plain);
	with_columns(g);

	/* two candidates: answered one by one */
	cand[0] = 0x3;
	r = guard_request(g, "gpu=true&mem>=512");
	(void)guard_verdict(g, r, cand, off, &left);
	cr_assert_eq(guard_cols_evaluated(g), 0);
	cr_assert_eq(guard_evaluated(g), 2);

	/* every node, with a budget below the columns' cost: one by one,
	 * as far as it goes, the same answers */
	memset(cand, 0xff, sizeof(cand));
	cand[GUARD_WORDS(N) - 1] = (1ULL << (N % 64)) - 1;
	r = guard_request(g, "rack!=r3");
	budget = 5;
	cr_assert_not(guard_verdict_within(g, r, cand, off, &left, &budget));
	cr_assert_eq(guard_cols_evaluated(g), 0);
	cr_assert_eq(guard_evaluated(g), 2 + 5);
	/* and with enough: the columns, charged less than N answers */
	budget = N;
	cr_assert(guard_verdict_within(g, r, cand, off, &left, &budget));
	cr_assert_eq(guard_cols_evaluated(g), 1);
	cr_assert_gt(budget, 0);
	r2 = guard_request(plain, "rack!=r3");
	(void)guard_verdict(plain, r2, cand, off2, &left2);
	cr_assert_eq(memcmp(off, off2, sizeof(off)), 0);
	cr_assert_eq(left, left2);
}
