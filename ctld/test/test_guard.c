/*
 * test_guard.c - what the guard at placement keeps (ctld/guard.c): nodes
 * read again only when their Extra changes (or, from 24.11, their own
 * stamp moves), each request's and tier's answers kept until then, a look
 * at the nodes only when Slurm's stamp says one of them may have changed,
 * requests parsed once, the tiers counted within their budget.  Which
 * nodes a look reads: test_guard_reads.c; the jobs' bits:
 * test_guard_jobs.c; the budget's share and the tier applied:
 * test_guard_budget.c.
 */
#include "guard_fixture.h"

/* The guard's answer for node i: a look at every node first. */
static bool judged(struct guard_req *r, size_t i)
{
	cr_assert_geq(guard_look(g, TABLE, NULL, extra_of, NULL), 0);
	return guard_req_matches(g, r, i);
}

/* A node is judged by its Extra now: a changed text is read again. */
Test(guard, a_node_is_judged_by_its_extra_now)
{
	struct guard_req *req;

	cr_assert_null(guard_request(g, "gpu=true")); /* no look yet */
	/* the first look reads every node */
	cr_assert_eq(guard_look(g, TABLE, NULL, extra_of, NULL), TABLE);
	cr_assert_not_null(req = guard_request(g, "gpu=true"));
	table[3] = "{\"gpu\":true}";
	cr_assert(judged(req, 3));
	table[3] = "{\"gpu\":false}";
	cr_assert_not(judged(req, 3));
	table[3] = "{\"gpu\":true}";
	cr_assert(judged(req, 3));
	/* none, not an object, not JSON: no request is satisfied */
	table[3] = NULL;
	table[4] = "[1]";
	table[5] = "{gpu";
	cr_assert_not(judged(req, 3));
	cr_assert_not(judged(req, 4));
	cr_assert_not(judged(req, 5));
	table[999] = "{\"gpu\":true}";
	cr_assert(judged(req, 999));
	memset(table, 0, sizeof(table));
}

/* The same text in another buffer (Slurm frees and copies it) is the
 * same Extra; a text of the same length that differs is not. */
Test(guard, the_text_is_compared_not_its_address)
{
	struct guard_req *req;
	char a[] = "{\"mem\":1024}", b[] = "{\"mem\":1024}",
	     c[] = "{\"mem\":0256}";

	table[0] = a;
	cr_assert_eq(guard_look(g, TABLE, NULL, extra_of, NULL), TABLE);
	req = guard_request(g, "mem>=512");
	cr_assert(guard_req_matches(g, req, 0));
	table[0] = b;
	cr_assert_eq(guard_look(g, TABLE, NULL, extra_of, NULL), 0);
	table[0] = c;
	cr_assert_eq(guard_look(g, TABLE, NULL, extra_of, NULL), 1);
	cr_assert_not(guard_req_matches(g, req, 0));
	memset(table, 0, sizeof(table));
}

/* What the unusable nodes' callback heard: the last node and phrase. */
static int said;
static size_t said_node;
static char said_why[96];

static void say(size_t i, const char *why, void *arg)
{
	cr_assert_eq(arg, &said);
	said++;
	said_node = i;
	snprintf(said_why, sizeof(said_why), "%s", why);
}

/* A node whose Extra jobs skip is told once each time it is read
 * changed: not JSON, not an object, too long; never a usable one or
 * none, never the same text again. */
Test(guard, unusable_nodes_are_told_once_a_change)
{
	static char long_text[70000];

	cr_assert_eq(guard_look(g, TABLE, NULL, extra_of, NULL), TABLE);
	guard_on_unusable(g, say, &said);
	table[7] = "{gpu";
	cr_assert_eq(guard_look(g, TABLE, NULL, extra_of, NULL), 1);
	cr_assert_eq(said, 1);
	cr_assert_eq(said_node, 7);
	cr_assert_str_eq(said_why, "not valid JSON");
	cr_assert_eq(guard_look(g, TABLE, NULL, extra_of, NULL), 0);
	cr_assert_eq(said, 1, "the same text: not told again");
	table[7] = "[1,2,3]";
	(void)guard_look(g, TABLE, NULL, extra_of, NULL);
	cr_assert_eq(said, 2);
	cr_assert_str_eq(said_why, "JSON but not an object");
	table[7] = "{\"gpu\":true}";
	table[8] = "";
	(void)guard_look(g, TABLE, NULL, extra_of, NULL);
	cr_assert_eq(said, 2, "a usable Extra, or none: nothing told");
	memset(long_text, ' ', sizeof(long_text) - 1);
	long_text[0] = '{';
	long_text[sizeof(long_text) - 2] = '}';
	table[9] = long_text;
	(void)guard_look(g, TABLE, NULL, extra_of, NULL);
	cr_assert_eq(said, 3);
	cr_assert_eq(said_node, 9);
	cr_assert(strstr(said_why, "longer than the limit"), "%s", said_why);
	table[9] =
		"{\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}";
	(void)guard_look(g, TABLE, NULL, extra_of, NULL);
	cr_assert_eq(said, 4);
	cr_assert(strstr(said_why, "nested deeper than the limit"), "%s",
		  said_why);
	memset(table, 0, sizeof(table));
}

/* One look names GUARD_UNUSABLE_MAX nodes at most, then says how many
 * more, once; the next look names again. */
Test(guard, one_look_names_a_bounded_number_of_unusable_nodes)
{
	cr_assert_eq(guard_look(g, TABLE, NULL, extra_of, NULL), TABLE);
	guard_on_unusable(g, say, &said);
	for (size_t i = 0; i < 100; i++)
		table[i] = "{bad";
	(void)guard_look(g, TABLE, NULL, extra_of, NULL);
	cr_assert_eq(said, GUARD_UNUSABLE_MAX + 1);
	cr_assert_eq(said_node, GUARD_UNUSABLE_MORE);
	cr_assert_str_eq(
		said_why,
		"68 more nodes whose Extra jobs with --extra skip, not named");
	table[0] = "[]";
	(void)guard_look(g, TABLE, NULL, extra_of, NULL);
	cr_assert_eq(said, GUARD_UNUSABLE_MAX + 2, "a new look names again");
	cr_assert_eq(said_node, 0);
	memset(table, 0, sizeof(table));
}

/* A request is parsed once while kept; an invalid one is kept as none
 * (the caller keeps no node off for it). */
Test(guard, requests_parsed_once_and_invalid_ones_kept_as_none)
{
	struct guard_req *a;

	cr_assert_eq(guard_look(g, TABLE, NULL, extra_of, NULL), TABLE);
	a = guard_request(g, "rack=r1");
	cr_assert_not_null(a);
	cr_assert_eq(guard_request(g, "rack=r1"), a);
	cr_assert_eq(guard_requests_kept(g), 1);
	cr_assert_null(guard_request(g, "rack="));
	cr_assert_null(guard_request(g, "rack="));
	cr_assert_eq(guard_requests_kept(g), 2);
}

/* Past the bound the kept requests are dropped, never more than the
 * bound kept. */
Test(guard, kept_requests_are_bounded)
{
	char text[32];

	cr_assert_eq(guard_look(g, TABLE, NULL, extra_of, NULL), TABLE);
	for (int k = 0; k < 3 * GUARD_MAX_REQUESTS; k++) {
		snprintf(text, sizeof(text), "n=%d", k);
		cr_assert_not_null(guard_request(g, text));
		cr_assert_leq(guard_requests_kept(g), GUARD_MAX_REQUESTS);
	}
}

/* What a placement looks at, from Slurm's stamp of the last node change
 * (1-second resolution) and the time of the last look at every node. */
Test(guard, a_look_follows_the_stamp)
{
	cr_assert_eq(guard_look(g, TABLE, NULL, extra_of, NULL), TABLE);
	cr_assert_eq(guard_look_needed(g, TABLE, 100, 100, false),
		     GUARD_LOOK_ALL);
	guard_looked_all(g, 100, 100);
	/* an update later in second 100 would leave the stamp at 100 */
	cr_assert_eq(guard_look_needed(g, TABLE, 100, 100, false),
		     GUARD_LOOK_CANDIDATES);
	/* second 101: a look now settles second 100 */
	cr_assert_eq(guard_look_needed(g, TABLE, 100, 101, false),
		     GUARD_LOOK_ALL);
	guard_looked_all(g, 100, 101);
	cr_assert_eq(guard_look_needed(g, TABLE, 100, 101, false),
		     GUARD_LOOK_NONE);
	cr_assert_eq(guard_look_needed(g, TABLE, 100, 5000, false),
		     GUARD_LOOK_NONE);
	/* where Slurm sets Extra without the table's stamp (24.11's
	 * registrations): the candidates whose own stamp moved; within the
	 * table stamp's second, every candidate */
	cr_assert_eq(guard_look_needed(g, TABLE, 100, 101, true),
		     GUARD_LOOK_REGISTERED);
	guard_looked_all(g, 103, 103);
	cr_assert_eq(guard_look_needed(g, TABLE, 103, 103, true),
		     GUARD_LOOK_CANDIDATES);
	guard_looked_all(g, 100, 101);
	/* a new stamp, another node count, a clock set back */
	cr_assert_eq(guard_look_needed(g, TABLE, 102, 102, false),
		     GUARD_LOOK_ALL);
	cr_assert_eq(guard_look_needed(g, TABLE + 1, 100, 102, false),
		     GUARD_LOOK_ALL);
	cr_assert_eq(guard_look_needed(g, TABLE, 100, 99, false),
		     GUARD_LOOK_ALL);
}

/* The answers for a request are kept per node: a look at a node that did
 * not change reads its text and evaluates nothing; a node that changed
 * is evaluated again by every request; only the candidates are judged,
 * and the bits past the last node never count. */
Test(guard, answers_kept_until_the_node_changes)
{
	uint64_t cand[GUARD_WORDS(TABLE)] = { 0 }, off[GUARD_WORDS(TABLE)];
	struct guard_req *gpu, *big;
	size_t left, evaluated;

	for (int i = 0; i < TABLE; i++)
		table[i] = (i % 2) ? "{\"gpu\":true,\"mem\":64}"
				   : "{\"gpu\":false,\"mem\":1024}";
	cr_assert_eq(guard_look(g, TABLE, NULL, extra_of, NULL), TABLE);
	gpu = guard_request(g, "gpu=true");
	cand[0] = 0xff;			      /* nodes 0-7 */
	cand[GUARD_WORDS(TABLE) - 1] = ~0ULL; /* 960-999 and past the end */
	cr_assert_eq(guard_verdict(g, gpu, cand, off, &left), 4 + 20);
	cr_assert_eq(left, 4 + 20);
	cr_assert_eq(off[0], 0x55);
	cr_assert_eq(off[GUARD_WORDS(TABLE) - 1] >> (TABLE % 64), 0);
	cr_assert_eq(guard_evaluated(g), 48);
	/* asked again, nothing changed: the kept answers, none evaluated */
	cr_assert_eq(guard_look(g, TABLE, cand, extra_of, NULL), 0);
	cr_assert_eq(guard_verdict(g, gpu, cand, off, &left), 24);
	cr_assert_eq(guard_evaluated(g), 48);
	/* node 1 stops matching: read again, answered again, alone */
	table[1] = "{\"gpu\":false}";
	reads = 0;
	cr_assert_eq(guard_look(g, TABLE, cand, extra_of, NULL), 1);
	cr_assert_eq(reads, 8 + 40);
	cr_assert_eq(guard_verdict(g, gpu, cand, off, &left), 25);
	cr_assert_eq(off[0], 0x57);
	cr_assert_eq(guard_evaluated(g), 49);
	/* another request sees the same node as it is now */
	big = guard_request(g, "mem>=512");
	gpu = guard_request(g, "gpu=true");
	evaluated = guard_evaluated(g);
	cr_assert_eq(guard_verdict(g, big, cand, off, &left), 24);
	cr_assert_eq(off[0], 0xaa);
	cr_assert_eq(guard_evaluated(g), evaluated + 48);
	cr_assert_eq(guard_verdict(g, gpu, cand, off, &left), 25);
	memset(table, 0, sizeof(table));
}

/* A placement's answer: among the job's nodes (pool) those Slurm may
 * choose now (cand) are kept off when they fail; the ones it may not
 * choose count only among those left that satisfy the request. */
Test(guard, kept_off_only_where_slurm_may_choose)
{
	uint64_t pool[GUARD_WORDS(TABLE)] = { 0 },
		 cand[GUARD_WORDS(TABLE)] = { 0 }, off[GUARD_WORDS(TABLE)];
	uint32_t list[TABLE];
	struct guard_req *r;
	size_t left;

	for (int i = 0; i < 8; i++)
		table[i] = (i < 4) ? "{\"ok\":1}" : "{\"ok\":0}";
	cr_assert_eq(guard_look(g, TABLE, NULL, extra_of, NULL), TABLE);
	r = guard_request(g, "ok=1");
	pool[0] = 0xff;	       /* nodes 0-7 */
	cand[0] = 0x3c;	       /* 2-5: the others down or drained */
	pool[15] = 1ULL << 39; /* node 999, no Extra, not available */
	cr_assert_eq(guard_keep_off(g, r, pool, cand, off, list, &left), 2);
	cr_assert_eq(list[0], 4);
	cr_assert_eq(list[1], 5);
	cr_assert_eq(off[0], 0x30);
	cr_assert_eq(off[15], 0);
	cr_assert_eq(left, 4); /* 0-3 */
	memset(table, 0, sizeof(table));
}

/* A tier of a job's preferences is counted on the nodes it may use, those
 * free among them apart, each answer evaluated once (taken from the
 * budget) and kept until the node changes; an invalid tier counts
 * nothing. */
Test(guard, a_tier_counted_on_the_usable_nodes)
{
	uint64_t usable[GUARD_WORDS(TABLE)] = { 0 },
		 free_[GUARD_WORDS(TABLE)] = { 0 }, scratch[GUARD_WORDS(TABLE)];
	size_t n = 99, n_free = 99, budget = 100;

	for (int i = 0; i < 8; i++)
		table[i] = (i % 2) ? "{\"ok\":1,\"ib\":\"p1\"}" : "{\"ok\":1}";
	table[900] = "{\"ok\":1,\"ib\":\"p1\"}";
	cr_assert_eq(guard_look(g, TABLE, NULL, extra_of, NULL), TABLE);
	usable[0] = 0x3f;	/* 0-5: 1, 3, 5 satisfy the tier */
	usable[14] = 1ULL << 4; /* 900 */
	free_[0] = 0x8a;	/* 1 and 3 free, and 7, not usable */
	cr_assert_eq(guard_count(g, "(ok=1)&(ib=p1)", usable, free_, scratch,
				 &budget, &n, &n_free),
		     1);
	cr_assert_eq(n, 4);
	cr_assert_eq(n_free, 2);
	cr_assert_eq(
		budget, 92,
		"its parse (14 bytes: 1), 7 usable nodes evaluated, 1 each");
	cr_assert_eq(guard_count(g, "(ok=1)&(ib=p1)", usable, NULL, scratch,
				 &budget, &n, &n_free),
		     1);
	cr_assert_eq(n, 4);
	cr_assert_eq(n_free, 0, "none known free");
	cr_assert_eq(budget, 92, "the tier and its answers kept");
	{
		/* the tier picked, placed by the answers its count kept */
		struct guard_req *t = guard_tier(g, "(ok=1)&(ib=p1)");
		uint32_t list[TABLE];
		size_t evaluated = guard_evaluated(g), left;

		cr_assert_not_null(t);
		cr_assert_eq(guard_keep_off(g, t, usable, usable, scratch, list,
					    &left),
			     3);
		cr_assert_eq(left, 4);
		cr_assert_eq(guard_evaluated(g), evaluated,
			     "none evaluated again");
	}
	table[3] = "{\"ok\":1}";
	cr_assert_eq(guard_look(g, TABLE, NULL, extra_of, NULL), 1);
	cr_assert_eq(guard_count(g, "(ok=1)&(ib=p1)", usable, free_, scratch,
				 &budget, &n, &n_free),
		     1);
	cr_assert_eq(n, 3, "node 3 changed: counted as it is now");
	cr_assert_eq(n_free, 1);
	cr_assert_lt(budget, 93, "evaluated again");
	n = n_free = 7;
	cr_assert_eq(guard_count(g, "(ok=1)&(", usable, free_, scratch, &budget,
				 &n, &n_free),
		     0);
	cr_assert_eq(n, 7, "an invalid tier: nothing counted");
	memset(table, 0, sizeof(table));
}

/* The tiers of one placement evaluate no more than its budget (an
 * answer of L leaves costing 1 + L/16):
 * past it the count is refused (the caller picks no tier), the answers
 * evaluated are kept, and later placements go on from there to the
 * right count; the tiers kept never drop a request. */
Test(guard, a_tiers_count_within_its_budget)
{
	uint64_t usable[GUARD_WORDS(TABLE)], scratch[GUARD_WORDS(TABLE)];
	size_t n = 0, n_free, budget, calls = 0, evaluated;
	char heavy[256];
	int rc, at;

	for (int i = 0; i < TABLE; i++)
		table[i] = (i % 3) ? "{\"ok\":0}" : "{\"ok\":1}";
	cr_assert_eq(guard_look(g, TABLE, NULL, extra_of, NULL), TABLE);
	memset(usable, 0xff, sizeof(usable));
	/* 32 leaves: 1 + 32/16 = 3 an answer */
	at = snprintf(heavy, sizeof(heavy), "ok=1");
	for (int l = 2; l <= 32; l++)
		at += snprintf(heavy + at, sizeof(heavy) - (size_t)at, "|ok=%d",
			       l + 10);
	evaluated = guard_evaluated(g);
	do {
		budget = 100;
		rc = guard_count(g, heavy, usable, NULL, scratch, &budget, &n,
				 &n_free);
		cr_assert(rc == 1 || rc == -1);
		cr_assert_leq((guard_evaluated(g) - evaluated) * 3, 100,
			      "no more than the budget a call, 3 an answer");
		evaluated = guard_evaluated(g);
		calls++;
	} while (rc < 0 && calls < 100);
	cr_assert_eq(rc, 1);
	cr_assert_gt(calls, 10,
		     "1,000 answers of 3 take over 10 budgets of 100");
	cr_assert_eq(n, (TABLE + 2) / 3, "nodes 0, 3, 6 ... satisfy it");
	{
		struct guard_req *r = guard_request(g, "ok=1");
		char tier[32];

		cr_assert_not_null(r);
		for (int k = 0; k < 3 * GUARD_MAX_REQUESTS; k++) {
			snprintf(tier, sizeof(tier), "(ok=1)&(t=%d)", k);
			budget = 100;
			(void)guard_count(g, tier, usable, NULL, scratch,
					  &budget, &n, &n_free);
		}
		cr_assert_leq(guard_requests_kept(g), 2 * GUARD_MAX_REQUESTS);
		cr_assert(guard_req_matches(g, r, 3), "the request kept");
	}
	memset(table, 0, sizeof(table));
}

/* Another node count (22.05's reconfigure) drops every request with
 * its answers, sized by the old count; the jobs kept stay. */
Test(guard, a_new_node_count)
{
	uint64_t cand[GUARD_WORDS(TABLE)], off[GUARD_WORDS(TABLE)];
	struct bits b = { 0 };
	struct guard_taken t = { -1 };
	uint32_t added[] = { 3 };
	struct guard_req *r;
	size_t left;

	table[0] = "{\"ok\":1}";
	cr_assert_eq(guard_look(g, 10, NULL, extra_of, NULL), 10);
	cr_assert_not_null(guard_request(g, "ok=1"));
	cr_assert_not_null(guard_tier(g, "(ok=1)&(ok=1)"));
	cr_assert_eq(guard_requests_kept(g), 2, "a request and a tier");
	b.b[3] = true;
	cr_assert_eq(guard_job_left(g, &ops, 10, &t, &b, 1, added, 1), 1);
	cr_assert_eq(guard_look_needed(g, TABLE, 1, 2, false), GUARD_LOOK_ALL);
	cr_assert_eq(guard_look(g, TABLE, NULL, extra_of, NULL), TABLE);
	cr_assert_eq(guard_requests_kept(g), 0);
	cr_assert_eq(guard_jobs_kept(g), 1);
	r = guard_request(g, "ok=1");
	memset(cand, 0xff, sizeof(cand));
	cr_assert_eq(guard_verdict(g, r, cand, off, &left), TABLE - 1);
	cr_assert_eq(left, 1);
	/* the tier too, sized by the new count */
	r = guard_tier(g, "(ok=1)&(ok=1)");
	cr_assert_eq(guard_verdict(g, r, cand, off, &left), TABLE - 1);
	cr_assert_eq(left, 1);
	memset(table, 0, sizeof(table));
}

/* A tier not kept yet is parsed only when its parse fits in the budget
 * (1 + its length/16), which it takes first; kept, it costs nothing. */
Test(guard, a_tiers_parse_comes_out_of_the_budget)
{
	uint64_t usable[GUARD_WORDS(TABLE)] = { 0 },
		 scratch[GUARD_WORDS(TABLE)];
	const char *tier = "(ok=1)&(ib=p1|ib=p2|ib=p3|ib=p4)"; /* 32 bytes */
	size_t n = 0, n_free = 0, budget = 2, kept;

	table[0] = "{\"ok\":1,\"ib\":\"p1\"}";
	cr_assert_eq(guard_look(g, TABLE, NULL, extra_of, NULL), TABLE);
	usable[0] = 1;
	kept = guard_requests_kept(g);
	cr_assert_eq(guard_count(g, tier, usable, NULL, scratch, &budget, &n,
				 &n_free),
		     -1);
	cr_assert_eq(budget, 2, "3 for its parse do not fit in 2");
	cr_assert_eq(guard_requests_kept(g), kept, "not parsed");
	budget = 4;
	cr_assert_eq(guard_count(g, tier, usable, NULL, scratch, &budget, &n,
				 &n_free),
		     1);
	cr_assert_eq(budget, 0, "3 for its parse, 1 for the one answer");
	cr_assert_eq(n, 1);
	cr_assert_eq(guard_count(g, tier, usable, NULL, scratch, &budget, &n,
				 &n_free),
		     1, "kept: nothing to pay");
	cr_assert_eq(n, 1);
}
