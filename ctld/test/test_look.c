/*
 * test_look.c - the look (ctld/look.c): a waiting job's excluded nodes
 * kept as its base | its request's failing nodes, patched by what
 * changed, the base (the user's own, what Slurm rebuilt) never cleared,
 * a rebuild or a copy told apart, the bounds.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "look_fixture.h"

TestSuite(look, .init = setup, .fini = teardown);

/* A job Slurm keeps no set for asks for one, then gets exactly the
 * failing nodes. */
Test(look, a_job_without_a_set_gets_the_failing_nodes)
{
	uint64_t bits[WORDS] = { 0 };
	int r = answers("a=1", (unsigned[]){ 3, 70, 199, NODES });

	cr_assert_eq(look_job_apply(lk, 10, 0, r, NULL, 7, false),
		     LOOK_NEED_SET);
	cr_assert_eq(look_job_apply(lk, 10, 0, r, bits, 7, false),
		     LOOK_WRITTEN);
	cr_assert(has(bits, 3) && has(bits, 70) && has(bits, 199));
	cr_assert_eq(count(bits), 3);
	cr_assert_eq(look_job_apply(lk, 10, 0, r, bits, 7, false), LOOK_SAME);
}

/* A request no node fails needs no set. */
Test(look, nothing_failing_needs_no_set)
{
	int r = answers("a=1", (unsigned[]){ NODES });

	cr_assert_eq(look_job_apply(lk, 10, 0, r, NULL, 7, false), LOOK_SAME);
}

/* The user's own excluded nodes stay excluded when they come to
 * satisfy the request; the look's own come back. */
Test(look, the_base_is_never_cleared)
{
	uint64_t bits[WORDS] = { 0 };
	int r;

	set(bits, 4);
	set(bits, 5);
	r = answers("a=1", (unsigned[]){ 5, 6, NODES });
	cr_assert_eq(look_job_apply(lk, 10, 0, r, bits, 7, false),
		     LOOK_WRITTEN);
	cr_assert(has(bits, 4) && has(bits, 5) && has(bits, 6));
	cr_assert_eq(count(bits), 3);
	r = answers("a=1", (unsigned[]){ NODES });
	cr_assert_eq(look_job_apply(lk, 10, 0, r, bits, 7, false),
		     LOOK_PATCHED);
	cr_assert(has(bits, 4) && has(bits, 5));
	cr_assert_not(has(bits, 6));
	cr_assert_eq(count(bits), 2);
}

/* A change patches the changed nodes only: a bit someone else set in
 * between (backfill's reservations are in a copy; here, to see the
 * patch) is not rewritten. */
Test(look, a_change_is_patched)
{
	uint64_t bits[WORDS] = { 0 };
	int r = answers("a=1", (unsigned[]){ 1, NODES });

	cr_assert_eq(look_job_apply(lk, 10, 0, r, bits, 7, false),
		     LOOK_WRITTEN);
	set(bits, 150); /* not the look's */
	r = answers("a=1", (unsigned[]){ 1, 2, NODES });
	cr_assert_eq(look_job_apply(lk, 10, 0, r, bits, 7, false),
		     LOOK_PATCHED);
	cr_assert(has(bits, 1) && has(bits, 2) && has(bits, 150));
}

/* Slurm rebuilt the set from the same text (24.11 at any job update):
 * the look's node is gone, so what is found is the base, and the look
 * writes the failing nodes again. */
Test(look, a_rebuild_is_noticed)
{
	uint64_t bits[WORDS] = { 0 };
	int r = answers("a=1", (unsigned[]){ 8, 9, NODES });

	cr_assert_eq(look_job_apply(lk, 10, 0, r, bits, 7, false),
		     LOOK_WRITTEN);
	memset(bits, 0, sizeof(bits));
	set(bits, 30); /* rebuilt: the user's own, now */
	cr_assert_eq(look_job_apply(lk, 10, 0, r, bits, 7, false),
		     LOOK_WRITTEN);
	cr_assert(has(bits, 8) && has(bits, 9) && has(bits, 30));
	/* and node 30 is the base from then on */
	r = answers("a=1", (unsigned[]){ 30, NODES });
	cr_assert_eq(look_job_apply(lk, 10, 0, r, bits, 7, false),
		     LOOK_PATCHED);
	r = answers("a=1", (unsigned[]){ NODES });
	cr_assert_eq(look_job_apply(lk, 10, 0, r, bits, 7, false),
		     LOOK_PATCHED);
	cr_assert(has(bits, 30));
	cr_assert_eq(count(bits), 1);
}

/* Another text (the user's update of its ExcNodeList) is another base,
 * even when the look's node is still set. */
Test(look, another_text_is_another_base)
{
	uint64_t bits[WORDS] = { 0 };
	int r = answers("a=1", (unsigned[]){ 8, NODES });

	cr_assert_eq(look_job_apply(lk, 10, 0, r, bits, 7, false),
		     LOOK_WRITTEN);
	/* the user now excludes node 8 itself */
	cr_assert_eq(look_job_apply(lk, 10, 0, r, bits, 8, false),
		     LOOK_WRITTEN);
	r = answers("a=1", (unsigned[]){ NODES });
	(void)look_job_apply(lk, 10, 0, r, bits, 8, false);
	cr_assert(has(bits, 8));
}

/* An array task whose set is a copy of its array's (the look's bits in
 * it) takes the array's base, not the copy: the look's nodes come back
 * when they satisfy the request. */
Test(look, an_array_task_takes_its_arrays_base)
{
	uint64_t meta[WORDS] = { 0 }, task[WORDS];
	int r;

	set(meta, 40); /* the user's */
	r = answers("a=1", (unsigned[]){ 41, 42, NODES });
	cr_assert_eq(look_job_apply(lk, 10, 0, r, meta, 7, false),
		     LOOK_WRITTEN);
	memcpy(task, meta, sizeof(task));
	r = answers("a=1", (unsigned[]){ NODES });
	cr_assert_eq(look_job_apply(lk, 10, 0, r, meta, 7, false),
		     LOOK_PATCHED);
	cr_assert_eq(look_job_apply(lk, 11, 10, r, task, 7, false),
		     LOOK_WRITTEN);
	cr_assert(has(task, 40));
	cr_assert_eq(count(task), 1);
	/* without the array known, the copy would be taken as the base */
	cr_assert_eq(look_job_apply(lk, 12, 99, r, meta, 7, false),
		     LOOK_WRITTEN);
}

/* Past the log, the whole set is written again, and is right. */
Test(look, past_the_log_the_set_is_written_whole)
{
	uint64_t bits[WORDS] = { 0 };
	int r = answers("a=1", (unsigned[]){ NODES });

	cr_assert_eq(look_job_apply(lk, 10, 0, r, bits, 7, false),
		     LOOK_WRITTEN);
	set(bits, 0); /* the user's, with its new text */
	cr_assert_eq(look_job_apply(lk, 10, 0, r, bits, 9, false),
		     LOOK_WRITTEN);
	for (unsigned i = 0; i < LOOK_LOG + 10; i++)
		r = answers("a=1", (unsigned[]){ 1 + i % 150, NODES });
	cr_assert_eq(look_job_apply(lk, 10, 0, r, bits, 9, false),
		     LOOK_WRITTEN);
	cr_assert(has(bits, 0) && has(bits, 1 + (LOOK_LOG + 9) % 150));
	cr_assert_eq(count(bits), 2);
}

/* A base of many runs is kept whole; past LOOK_MAX_DENSE such jobs, a
 * job is left as Slurm keeps it (its set untouched). */
Test(look, a_base_of_many_runs_is_kept_whole_within_bounds)
{
	uint64_t base[WORDS] = { 0 }, bits[WORDS];
	int r = answers("a=1", (unsigned[]){ 1, NODES });

	for (unsigned n = 10; n < NODES; n += 2)
		set(base, n); /* 95 runs */
	for (uint32_t id = 1; id <= LOOK_MAX_DENSE; id++) {
		memcpy(bits, base, sizeof(bits));
		cr_assert_eq(look_job_apply(lk, id, 0, r, bits, 7, false),
			     LOOK_WRITTEN);
	}
	cr_assert_eq(look_dense_kept(lk), LOOK_MAX_DENSE);
	memcpy(bits, base, sizeof(bits));
	cr_assert_eq(look_job_apply(lk, 5000, 0, r, bits, 7, false), LOOK_LEFT);
	cr_assert_not(has(bits, 1));
	/* the whole base is right */
	r = answers("a=1", (unsigned[]){ NODES });
	memcpy(bits, base, sizeof(bits));
	set(bits, 1);
	cr_assert_eq(look_job_apply(lk, 7, 0, r, bits, 7, false), LOOK_PATCHED);
	cr_assert_eq(memcmp(bits, base, sizeof(bits)), 0);
}

/* Gone jobs are forgotten, their bases freed. */
static bool odd(uint32_t id, void *arg)
{
	(void)arg;
	return id % 2;
}

Test(look, gone_jobs_are_forgotten)
{
	uint64_t bits[WORDS] = { 0 };
	int r = answers("a=1", (unsigned[]){ 2, NODES });

	for (uint32_t id = 1; id <= 300; id++) {
		memset(bits, 0, sizeof(bits));
		(void)look_job_apply(lk, id, 0, r, bits, 7, false);
	}
	cr_assert_eq(look_jobs_kept(lk), 300);
	cr_assert_eq(look_sweep(lk, odd, NULL), 150);
	cr_assert_eq(look_jobs_kept(lk), 150);
	/* the even ones still known: a patch, not a capture */
	memset(bits, 0, sizeof(bits));
	set(bits, 2);
	r = answers("a=1", (unsigned[]){ NODES });
	for (uint32_t id = 2; id <= 300; id += 2) {
		memset(bits, 0, sizeof(bits));
		set(bits, 2);
		cr_assert_eq(look_job_apply(lk, id, 0, r, bits, 7, false),
			     LOOK_PATCHED, "job %u", id);
		cr_assert_eq(count(bits), 0);
	}
}

/* Requests: at most as many as made for; one not met for a round gives
 * its slot to a new one, and its jobs are then written whole. */
Test(look, a_request_slot_is_reused_only_when_unseen)
{
	bool fresh;
	int r[4];
	uint64_t bits[WORDS] = { 0 };

	look_round(lk, ++round_no);
	for (int i = 0; i < 4; i++) {
		char t[8];

		snprintf(t, sizeof(t), "a=%d", i);
		cr_assert_geq(r[i] = look_req_seen(lk, t, &fresh), 0);
	}
	cr_assert_eq(look_job_apply(lk, 10, 0, r[0], bits, 7, false),
		     LOOK_WRITTEN);
	cr_assert_eq(look_req_seen(lk, "b=1", &fresh), -1);
	cr_assert_eq(look_req_seen(lk, "a=0", &fresh), r[0]);
	cr_assert_not(fresh);
	look_round(lk, ++round_no);
	look_round(lk, ++round_no);
	cr_assert_eq(look_req_seen(lk, "a=0", &fresh), r[0]);
	cr_assert(fresh);
	cr_assert_geq(look_req_seen(lk, "b=1", &fresh), 0);
	cr_assert_eq(look_requests_kept(lk), 4);
}

/* -- with the guard's answers (look_req_answer()) ------------------------ */

static char *node_text[NODES];

static const char *text_at(size_t i, void *arg)
{
	(void)arg;
	return node_text[i];
}

static void texts(const char *all, unsigned odd_one, const char *odd)
{
	for (unsigned i = 0; i < NODES; i++) {
		free(node_text[i]);
		node_text[i] = strdup(i == odd_one ? odd : all);
	}
}

/* A request's answers follow the nodes a look found changed, whoever
 * looked: a placement's look at a few nodes too; a job's set follows. */
Test(look, answers_follow_the_guards_changes)
{
	struct guard *g = guard_create(NULL);
	uint64_t bits[WORDS] = { 0 }, one[WORDS] = { 0 };
	struct guard_req *r;
	size_t budget = SIZE_MAX;
	bool fresh;
	int i;

	cr_assert_not_null(g);
	texts("{\"a\":1}", 5, "{\"a\":0}");
	cr_assert_eq(guard_look(g, NODES, NULL, text_at, NULL), NODES);
	look_round(lk, ++round_no);
	i = look_req_seen(lk, "a=1", &fresh);
	cr_assert_not_null(r = guard_request(g, "a=1"));
	cr_assert(look_req_answer(lk, i, g, r, &budget));
	cr_assert_eq(look_req_changes(lk, i), guard_changes(g));
	cr_assert_eq(look_job_apply(lk, 10, 0, i, bits, 7, false),
		     LOOK_WRITTEN);
	cr_assert(has(bits, 5));
	cr_assert_eq(count(bits), 1);
	/* a placement looks at node 5 and 9 only: 5 matches, 9 no longer */
	texts("{\"a\":1}", 9, "{\"a\":0}");
	set(one, 5);
	set(one, 9);
	cr_assert_eq(guard_look(g, NODES, one, text_at, NULL), 2);
	look_round(lk, ++round_no);
	cr_assert_eq(look_req_seen(lk, "a=1", &fresh), i);
	cr_assert_neq(look_req_changes(lk, i), guard_changes(g));
	cr_assert_not_null(r = guard_request(g, "a=1"));
	cr_assert(look_req_answer(lk, i, g, r, &budget));
	cr_assert_eq(look_job_apply(lk, 10, 0, i, bits, 7, false),
		     LOOK_PATCHED);
	cr_assert(has(bits, 9));
	cr_assert_eq(count(bits), 1);
	/* a budget too small for a new request's answers: none given */
	look_round(lk, ++round_no);
	i = look_req_seen(lk, "a=0", &fresh);
	cr_assert_not_null(r = guard_request(g, "a=0"));
	budget = 3;
	cr_assert_not(look_req_answer(lk, i, g, r, &budget));
	cr_assert_eq(look_req_changes(lk, i), 0);
	for (unsigned k = 0; k < NODES; k++)
		free(node_text[k]);
	memset(node_text, 0, sizeof(node_text));
	guard_destroy(g);
}

/* A placement judges by the job's own set (the user's node 40), while
 * the set holds the look's nodes as it left them; a set Slurm rebuilt
 * since is Slurm's own.  A job the look no longer carries gets its own
 * set back, and is written whole if carried again. */
Test(look, a_placement_judges_by_the_jobs_own_set)
{
	uint64_t bits[WORDS] = { 0 }, own[WORDS] = { 0 };
	const uint64_t *b;
	int r;

	set(bits, 40);
	set(own, 40);
	r = answers("a=1", (unsigned[]){ 41, NODES });
	cr_assert_null(look_job_base(lk, 10, bits, 7), "not known yet");
	cr_assert_eq(look_job_apply(lk, 10, 0, r, bits, 7, false),
		     LOOK_WRITTEN);
	cr_assert_not_null(b = look_job_base(lk, 10, bits, 7));
	cr_assert_eq(memcmp(b, own, sizeof(own)), 0);
	cr_assert(has(bits, 41), "the set itself untouched");
	cr_assert_null(look_job_base(lk, 10, bits, 8), "another text: Slurm's");
	cr_assert(look_job_restore(lk, 10, bits, 7));
	cr_assert_eq(memcmp(bits, own, sizeof(own)), 0);
	cr_assert_null(look_job_base(lk, 10, bits, 7), "nothing of the look's");
	cr_assert_eq(look_job_apply(lk, 10, 0, r, bits, 7, false),
		     LOOK_WRITTEN);
	cr_assert(has(bits, 40) && has(bits, 41));
	cr_assert_eq(count(bits), 2);
	look_job_forget(lk, 10);
	cr_assert_eq(look_jobs_kept(lk), 0);
}

/* A job whose own set is empty by its texts has no base, whatever its
 * set holds: a copy with the look's bits (an array task whose array the
 * look does not know, a set given before a restart of the look) comes
 * back whole when its nodes match. */
Test(look, an_empty_own_set_is_no_base)
{
	uint64_t bits[WORDS] = { 0 };
	int r = answers("a=1", (unsigned[]){ NODES });

	set(bits, 5); /* the look's, from before */
	set(bits, 6);
	cr_assert_eq(look_job_apply(lk, 12, 99, r, bits, 7, true),
		     LOOK_WRITTEN);
	cr_assert_eq(count(bits), 0);
}

/* An update of more nodes than the log holds, then a small one: a job
 * from before the big one is written whole, never patched from what the
 * log kept (a look of 1,024 nodes of its own). */
Test(look, a_job_older_than_the_log_is_written_whole)
{
	enum {
		N = 1024,
		W = GUARD_WORDS(N)
	};
	struct look *big = look_create(N, 1);
	uint64_t fail[W] = { 0 }, bits[W] = { 0 };
	bool fresh;
	int r;

	cr_assert_not_null(big);
	look_round(big, 1);
	r = look_req_seen(big, "a=1", &fresh);
	for (unsigned i = 0; i < LOOK_LOG - 6; i++) { /* the log nearly full */
		fail[0] ^= 1ULL << (i % 50);
		(void)look_req_update(big, r, NULL, fail, 1);
	}
	cr_assert_eq(look_job_apply(big, 10, 0, r, bits, 7, false),
		     LOOK_WRITTEN);
	for (unsigned i = 100; i < 400; i++) /* 300 nodes */
		fail[i / 64] |= 1ULL << (i % 64);
	(void)look_req_update(big, r, NULL, fail, 2);
	for (unsigned i = 0; i < 5; i++) { /* small ones after it */
		fail[15] ^= 1ULL << (i % 7);
		(void)look_req_update(big, r, NULL, fail, 3);
	}
	cr_assert_eq(look_job_apply(big, 10, 0, r, bits, 7, false),
		     LOOK_WRITTEN);
	cr_assert_eq(memcmp(bits, fail, sizeof(bits)), 0);
	look_destroy(big);
}

/* Jobs forgotten out of a chain of colliding slots (ids whose home
 * slot is the same in the first table of 64), then the look destroyed:
 * each base moves with its job and is freed once. */
Test(look, forgetting_moves_each_base_once)
{
	uint64_t bits[WORDS];
	uint32_t ids[4];
	int k = 0, r = answers("a=1", (unsigned[]){ 1, NODES });
	size_t home = (1u * 2654435761u) & 63;

	for (uint32_t id = 1; k < 4; id++)
		if ((((size_t)id * 2654435761u) & 63) == home)
			ids[k++] = id;
	for (k = 0; k < 4; k++) {
		memset(bits, 0, sizeof(bits));
		set(bits, 100 + (unsigned)k); /* a base of one run each */
		cr_assert_eq(look_job_apply(lk, ids[k], 0, r, bits, 7, false),
			     LOOK_WRITTEN);
	}
	look_job_forget(lk, ids[0]); /* the others move back */
	look_job_forget(lk, ids[2]);
	cr_assert_eq(look_jobs_kept(lk), 2);
	for (k = 1; k < 4; k += 2) {
		memset(bits, 0, sizeof(bits));
		set(bits, 100 + (unsigned)k);
		set(bits, 1);
		cr_assert_eq(look_job_apply(lk, ids[k], 0, r, bits, 7, false),
			     LOOK_SAME, "job %u", ids[k]);
	}
	/* within the test, so that a crash there is this test's */
	look_destroy(lk);
	lk = look_create(NODES, 4);
	cr_assert_not_null(lk);
}

/* A set the caller gave (LOOK_NEED_SET) is marked so; taken away, the
 * job has none, and a later set is written whole. */
Test(look, a_given_set_taken_away_is_written_whole_again)
{
	uint64_t bits[WORDS] = { 0 };
	int r = answers("a=1", (unsigned[]){ 7, NODES });

	cr_assert_not(look_job_kept(lk, 10));
	cr_assert_eq(look_job_apply(lk, 10, 0, r, NULL, 7, true),
		     LOOK_NEED_SET);
	cr_assert(look_job_kept(lk, 10));
	look_job_set_given(lk, 10, true);
	cr_assert_eq(look_job_apply(lk, 10, 0, r, bits, 7, true), LOOK_WRITTEN);
	cr_assert(look_job_given(lk, 10) && has(bits, 7));
	look_job_set_given(lk, 10, false); /* freed by the caller */
	cr_assert_not(look_job_given(lk, 10));
	cr_assert_eq(look_job_apply(lk, 10, 0, r, NULL, 7, true),
		     LOOK_NEED_SET);
	memset(bits, 0, sizeof(bits));
	cr_assert_eq(look_job_apply(lk, 10, 0, r, bits, 7, true), LOOK_WRITTEN);
	cr_assert(has(bits, 7));
}

/* A request past the slots takes the one met longest ago, not the first
 * one free to take. */
Test(look, the_request_met_longest_ago_gives_its_slot)
{
	bool fresh;
	int r[4], b;

	look_round(lk, 10);
	for (int i = 0; i < 4; i++) {
		char t[8];

		snprintf(t, sizeof(t), "a=%d", i);
		cr_assert_geq(r[i] = look_req_seen(lk, t, &fresh), 0);
	}
	look_round(lk, 12);
	cr_assert_eq(look_req_seen(lk, "a=0", &fresh), r[0]);
	look_round(lk, 13);
	cr_assert_eq(look_req_seen(lk, "a=3", &fresh), r[3]);
	cr_assert_eq(look_req_seen(lk, "a=1", &fresh), r[1]);
	look_round(lk, 20);
	b = look_req_seen(lk, "b=1", &fresh);
	cr_assert_eq(b, r[2], "a=2, met at 10, gives its slot");
	cr_assert_eq(look_req_seen(lk, "a=0", &fresh), r[0]);
	cr_assert_eq(look_req_seen(lk, "a=3", &fresh), r[3]);
}
