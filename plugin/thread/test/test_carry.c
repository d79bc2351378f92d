/*
 * test_carry.c - the feature carrier's state (plugin/thread/carry.h,
 * doc/thread.md "Carriers"): what a load of the nodes tells of their
 * features, the claims of names by requests, the node updates a plan
 * sends (one a distinct new list, the site's features kept), the counts
 * the entry points read (never above the nodes that carry a name while the
 * updates are sent), and what a reconfigure forgets.  Requests and nodes
 * are real: the memo evaluates the requests over a table of Extra texts.
 */
#include <json-c/linkhash.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <slurm/slurm.h>

#include "carry.h"
#include "ctld.h"
#include "memo.h"
#include "thread.h"

/* The nodes: name, Extra, available features (active the same). */
struct node {
	const char *name, *extra, *features;
};

static const struct node nodes[] = {
	{ "n1", "{\"gpu\":true,\"mem\":4}", "ib,big" },
	{ "n2", "{\"gpu\":true,\"mem\":1}", "ib" },
	{ "n3", "{\"gpu\":false,\"mem\":4}", NULL },
	{ "n4", "{\"gpu\":true,\"mem\":4}", "ib,big" },
};
#define NNODES (sizeof(nodes) / sizeof(nodes[0]))

static xc_nodes_t *table;
static struct refilter_memo memo;
static struct carry c;
static node_info_t infos[NNODES];
static node_info_msg_t msg;
static int locks;

static void lock(void *arg)
{
	(void)arg;
	locks++;
}

static void unlock(void *arg)
{
	(void)arg;
}

/* The load of the nodes as slurm_load_node() would give it, with node
 * i's available features `avail[i]` (NULL: the table's) and active the
 * same. */
static void load(const char *const *avail)
{
	memset(infos, 0, sizeof(infos));
	for (size_t i = 0; i < NNODES; i++) {
		infos[i].name = (char *)nodes[i].name;
		infos[i].features =
			(char *)(avail && avail[i] ? avail[i]
						   : nodes[i].features);
	}
	msg.record_count = NNODES;
	msg.node_array = infos;
	cr_assert_eq(carry_seen(&c, &msg, NNODES), 0);
}

static void setup(void)
{
	xc_error_t err;

	table = xc_nodes_create(NULL);
	cr_assert(table);
	for (size_t i = 0; i < NNODES; i++)
		cr_assert_eq(xc_nodes_add(table, nodes[i].name, nodes[i].extra,
					  NULL, &err),
			     0);
	cr_assert_eq(xc_nodes_compile(table, &err), 0);
	cr_assert_eq(memo_init(&memo, 0), 0);
	cr_assert_eq(carry_init(&c), 0);
	carry_conf(&c, sx_conf_time(), true, true);
	locks = 0;
}

static void teardown(void)
{
	carry_free(&c);
	memo_free(&memo);
	xc_nodes_destroy(table);
}

TestSuite(carry, .init = setup, .fini = teardown);

/* Starts a round in which a job of each of `texts` wants the carrier:
 * each request evaluated over the table, marked as wanting it. */
static uint64_t want_round(const char *const *texts, size_t n,
			   struct memo_request **reqs)
{
	bool all, matched[NNODES], evaluated;
	uint64_t round = memo_round(&memo, &all);

	for (size_t k = 0; k < n; k++) {
		cr_assert_eq(memo_request_of(&memo, texts[k], NULL, &reqs[k]),
			     0);
		cr_assert(reqs[k]);
		cr_assert_eq(memo_matched(&memo, reqs[k], table, matched,
					  &evaluated),
			     0);
		reqs[k]->carry_round = round;
	}
	return round;
}

/* Plans, "sends" every update (ok[k] from `fail`: the k-th fails when
 * fail == k + 1), records the outcome; the updates are the caller's. */
static struct carry_update *plan_send(uint64_t round, size_t *n, size_t fail)
{
	struct carry_update *ups = NULL;
	bool ok[16];

	cr_assert_eq(carry_plan(&c, &memo, table, round, &ups, n, lock, unlock,
				NULL),
		     0);
	cr_assert_leq(*n, 16);
	for (size_t k = 0; k < *n; k++)
		ok[k] = fail != k + 1;
	carry_done(&c, &memo, ups, *n, ok, round);
	return ups;
}

static long lookup(const char *canonical, char *name)
{
	return carry_lookup(&c, canonical, name);
}

Test(carry, a_request_gets_its_feature_on_the_nodes_it_matches)
{
	const char *texts[] = { "gpu=true" };
	struct memo_request *r[1];
	char name[SX_FEATURE_LEN + 1], want[64];
	struct carry_update *ups;
	size_t n;
	uint64_t round;

	load(NULL);
	cr_expect_eq(lookup("gpu=true", name), -1,
		     "not known before any node has it");
	round = want_round(texts, 1, r);
	ups = plan_send(round, &n, 0);
	/* n1 and n4 share their site's list (ib,big) and the set; n2 its
	 * own (ib); n3 does not match. */
	cr_assert_eq(n, 2);
	for (size_t k = 0; k < n; k++) {
		if (!strcmp(ups[k].names, "n[1,4]")) {
			snprintf(want, sizeof(want), "ib,big,%s",
				 r[0]->feature);
			cr_expect_eq(ups[k].nodes, 2);
		} else {
			cr_expect_str_eq(ups[k].names, "n2");
			snprintf(want, sizeof(want), "ib,%s", r[0]->feature);
		}
		cr_expect_str_eq(ups[k].features, want);
	}
	cr_expect_eq(lookup(r[0]->canonical, name), 3);
	cr_expect_str_eq(name, r[0]->feature);
	cr_expect_eq(r[0]->changed, round + 1, "its jobs planned again");
	cr_expect_eq(r[0]->rose, round + 1);
	carry_updates_free(ups, n);
	/* Nothing changed: no update. */
	ups = plan_send(want_round(texts, 1, r), &n, 0);
	cr_expect_eq(n, 0);
	carry_updates_free(ups, n);
}

Test(carry, a_load_showing_the_features_needs_no_update)
{
	const char *texts[] = { "mem>=4" };
	struct memo_request *r[1];
	char name[SX_FEATURE_LEN + 1], l1[64], l3[64];
	const char *avail[NNODES] = { 0 };
	struct carry_update *ups;
	size_t n;
	uint64_t round = want_round(texts, 1, r);

	/* as a slurmctld restarted with -R keeps them */
	snprintf(l1, sizeof(l1), "ib,%s,big", r[0]->feature);
	snprintf(l3, sizeof(l3), "%s", r[0]->feature);
	avail[0] = avail[3] = l1;
	avail[2] = l3;
	load(avail);
	ups = plan_send(round, &n, 0);
	cr_expect_eq(n, 0, "the order of a node's list does not matter");
	cr_expect_eq(lookup(r[0]->canonical, name), 3);
	carry_updates_free(ups, n);
}

Test(carry, a_name_no_job_wants_leaves_its_nodes_and_is_forgotten)
{
	const char *texts[] = { "gpu=true", "mem>=4" };
	struct memo_request *r[2];
	char name[SX_FEATURE_LEN + 1];
	struct carry_update *ups;
	size_t n;
	uint64_t round;

	load(NULL);
	ups = plan_send(want_round(texts, 2, r), &n, 0);
	carry_updates_free(ups, n);
	cr_assert_eq(lookup(r[1]->canonical, name), 3);
	/* The nodes now carry what was sent. */
	round = want_round(texts, 1, r); /* mem>=4 no longer wanted */
	ups = plan_send(round, &n, 0);
	/* n1, n4 lose it (one list), n3 too (its own) */
	cr_expect_eq(n, 2);
	for (size_t k = 0; k < n; k++) {
		cr_expect_null(strstr(ups[k].features, r[1]->feature));
		if (!strcmp(ups[k].names, "n[1,4]"))
			cr_expect(strstr(ups[k].features, r[0]->feature));
		else
			cr_expect_str_eq(ups[k].names, "n3");
	}
	carry_updates_free(ups, n);
	cr_expect_eq(lookup("mem >= 4", name), -1, "forgotten");
	cr_expect_eq(lookup(r[0]->canonical, name), 3, "the other kept");
}

Test(carry, a_name_another_request_claimed_stays_with_it)
{
	const char *texts[] = { "gpu=true", "mem>=4" };
	struct memo_request *r[2];
	char name[SX_FEATURE_LEN + 1];
	struct carry_update *ups;
	size_t n, count;
	bool known;
	uint64_t round;

	load(NULL);
	round = want_round(texts, 2, r);
	/* mem>=4 made to hash to gpu=true's name (a user searching for a
	 * clash): the first to claim keeps it. */
	memcpy(r[1]->feature, r[0]->feature, sizeof(r[1]->feature));
	r[1]->carry_round = 0;
	ups = plan_send(round, &n, 0);
	carry_updates_free(ups, n);
	cr_expect(carry_may(&c, r[0], &known, &count));
	cr_expect(known);
	cr_expect_eq(count, 3);
	cr_expect_not(carry_may(&c, r[1], &known, &count),
		      "the other request's jobs keep their ExcNodeList");
	cr_expect_eq(carry_lookup_name(&c, r[1]->feature), 3,
		     "the name is on the first request's nodes");
	cr_expect_eq(lookup(r[0]->canonical, name), 3);
	cr_expect_str_eq(name, r[1]->feature);
	/* Both wanting it in a later round changes nothing: the claim
	 * holds, and the nodes carry the first request's nodes alone. */
	round = want_round(texts, 2, r);
	memcpy(r[1]->feature, r[0]->feature, sizeof(r[1]->feature));
	ups = plan_send(round, &n, 0);
	cr_expect_eq(n, 0);
	carry_updates_free(ups, n);
	cr_expect_eq(lookup(r[0]->canonical, name), 3);
	cr_expect_not(r[1]->carry_conflict, "no conflict over a claimed name");
}

Test(carry, a_free_name_two_requests_want_at_once_is_claimed_by_neither)
{
	const char *texts[] = { "gpu=true", "mem>=4" };
	struct memo_request *r[2];
	char name[SX_FEATURE_LEN + 1];
	struct carry_update *ups;
	size_t n, count;
	bool known;
	uint64_t round;

	load(NULL);
	round = want_round(texts, 2, r);
	memcpy(r[1]->feature, r[0]->feature, sizeof(r[1]->feature));
	ups = plan_send(round, &n, 0);
	cr_expect_eq(n, 0, "no node gets it");
	carry_updates_free(ups, n);
	cr_expect(r[0]->carry_conflict);
	cr_expect(r[1]->carry_conflict);
	cr_expect_not(carry_may(&c, r[0], &known, &count));
	cr_expect_not(carry_may(&c, r[1], &known, &count));
	cr_expect_eq(lookup(r[0]->canonical, name), -1);
	cr_expect_eq(carry_lookup_name(&c, r[0]->feature), -1);
}

Test(carry, a_round_that_planned_nothing_forgets_nothing)
{
	const char *texts[] = { "gpu=true" };
	struct memo_request *r[1];
	char name[SX_FEATURE_LEN + 1];
	struct carry_update *ups;
	size_t n;

	load(NULL);
	ups = plan_send(want_round(texts, 1, r), &n, 0);
	carry_updates_free(ups, n);
	cr_assert_eq(lookup(r[0]->canonical, name), 3);
	c.seen = false; /* carry_seen() ran out of memory */
	ups = plan_send(want_round(texts, 1, r), &n, 0);
	carry_updates_free(ups, n);
	cr_expect_eq(lookup(r[0]->canonical, name), 3);
}

Test(carry, a_rise_is_marked_only_above_the_count_before)
{
	const char *texts[] = { "gpu=true", "mem>=4" }; /* n1 n2 n4; n1 n3 n4 */
	struct memo_request *r[2];
	struct carry_update *ups;
	size_t n;
	uint64_t round;
	xc_error_t err;

	load(NULL);
	ups = plan_send(want_round(texts, 2, r), &n, 0);
	carry_updates_free(ups, n);
	/* n3 comes to satisfy gpu=true: its list gains that name, and keeps
	 * mem>=4's */
	cr_assert_eq(
		xc_nodes_update(table, 2, "{\"gpu\":true,\"mem\":4}", &err), 1);
	memo_nodes_anew(&memo);
	round = want_round(texts, 2, r);
	r[0]->max_nodes = 4; /* a job of gpu=true asks for 4 nodes */
	r[1]->max_nodes = 2; /* mem>=4's for 2 */
	ups = plan_send(round, &n, 0);
	cr_expect_eq(n, 1, "n3 alone");
	carry_updates_free(ups, n);
	cr_expect_eq(r[0]->rose, round + 1, "gpu=true rose to 4");
	cr_expect_neq(r[1]->rose, round + 1,
		      "mem>=4: 3 nodes, at least 2 while n3 was updated, its "
		      "jobs needing 2: nothing changed for them");
	/* its jobs asking for one node: 3 to 4 changes nothing for them */
	cr_assert_eq(
		xc_nodes_update(table, 2, "{\"gpu\":false,\"mem\":4}", &err),
		1);
	memo_nodes_anew(&memo);
	ups = plan_send(want_round(texts, 2, r), &n, 0);
	carry_updates_free(ups, n);
	cr_assert_eq(
		xc_nodes_update(table, 2, "{\"gpu\":true,\"mem\":4}", &err), 1);
	memo_nodes_anew(&memo);
	round = want_round(texts, 2, r);
	r[0]->max_nodes = 1;
	ups = plan_send(round, &n, 0);
	cr_expect_eq(n, 1);
	carry_updates_free(ups, n);
	cr_expect_neq(r[0]->rose, round + 1, "3 to 4, its jobs needing 1");
}

Test(carry, a_dip_while_the_updates_are_sent_is_a_rise_after)
{
	const char *texts[] = { "gpu=true" }; /* n1 n2 n4 */
	struct memo_request *r[1];
	struct carry_update *ups;
	size_t n;
	uint64_t round;
	xc_error_t err;

	load(NULL);
	ups = plan_send(want_round(texts, 1, r), &n, 0);
	carry_updates_free(ups, n);
	/* n2 leaves, n3 joins: still 3 nodes, but two updates in some
	 * order: 2 nodes may carry it between them, and a job asking for 3
	 * may be set aside then */
	cr_assert_eq(xc_nodes_update(table, 1, "{\"gpu\":false}", &err), 1);
	cr_assert_eq(xc_nodes_update(table, 2, "{\"gpu\":true}", &err), 1);
	memo_nodes_anew(&memo);
	round = want_round(texts, 1, r);
	r[0]->max_nodes = 3;
	ups = plan_send(round, &n, 0);
	cr_expect_eq(n, 2);
	carry_updates_free(ups, n);
	cr_expect_eq(r[0]->rose, round + 1, "marked: its jobs are planned");
}

Test(carry, counts_fall_before_the_updates_and_rise_after)
{
	const char *texts[] = { "gpu=true" };
	struct memo_request *r[1];
	char name[SX_FEATURE_LEN + 1];
	struct carry_update *ups;
	size_t n, one = 0;
	uint64_t round;
	xc_error_t err;
	bool matched[NNODES], evaluated;

	load(NULL);
	ups = plan_send(want_round(texts, 1, r), &n, 0);
	carry_updates_free(ups, n);
	cr_assert_eq(lookup(r[0]->canonical, name), 3);
	/* n2's Extra changes: it leaves gpu=true, and n3 joins. */
	cr_assert_eq(xc_nodes_update(table, 1, "{\"gpu\":false}", &err), 1);
	cr_assert_eq(xc_nodes_update(table, 2, "{\"gpu\":true}", &err), 1);
	memo_nodes_anew(&memo);
	round = want_round(texts, 1, r);
	cr_assert_eq(memo_matched(&memo, r[0], table, matched, &evaluated), 0);
	locks = 0;
	cr_assert_eq(carry_plan(&c, &memo, table, round, &ups, &n, lock, unlock,
				NULL),
		     0);
	cr_expect_eq(n, 2, "n2 and n3, each its own list");
	cr_expect_eq(locks, 2,
		     "the claims, then the counts lowered, under the lock");
	/* While they are sent: n1 and n4 keep it for sure, n3 may not
	 * have it yet. */
	cr_expect_eq(lookup(r[0]->canonical, name), 2);
	{
		bool ok[2] = { true, false };

		cr_expect_not(carry_done(&c, &memo, ups, n, ok, round),
			      "nothing marked while an update failed");
	}
	cr_expect_eq(lookup(r[0]->canonical, name), 2,
		     "one update refused: not raised");
	for (size_t k = 0; k < n; k++)
		one += ups[k].nodes;
	cr_expect_eq(one, 2);
	carry_updates_free(ups, n);
	/* The next round sends what is still wrong, and raises. */
	ups = plan_send(want_round(texts, 1, r), &n, 0);
	cr_expect_eq(n, 1);
	carry_updates_free(ups, n);
	cr_expect_eq(lookup(r[0]->canonical, name), 3);
}

Test(carry, a_reconfigure_forgets_every_name)
{
	const char *texts[] = { "gpu=true" };
	struct memo_request *r[1];
	char name[SX_FEATURE_LEN + 1];
	struct carry_update *ups;
	size_t n;

	load(NULL);
	ups = plan_send(want_round(texts, 1, r), &n, 0);
	carry_updates_free(ups, n);
	cr_assert_eq(lookup(r[0]->canonical, name), 3);
	/* slurm.conf read again at another time than the thread saw */
	carry_conf(&c, sx_conf_time() + 1, true, true);
	cr_expect_eq(lookup(r[0]->canonical, name), -1);
	/* the thread's next look: the same time again, still unknown until
	 * a node has it (the reconfigure took the features away) */
	carry_conf(&c, sx_conf_time(), true, true);
	cr_expect_eq(lookup(r[0]->canonical, name), -1);
	load(NULL); /* the site's features alone */
	ups = plan_send(want_round(texts, 1, r), &n, 0);
	cr_expect_eq(n, 2);
	carry_updates_free(ups, n);
	cr_expect_eq(lookup(r[0]->canonical, name), 3);
}

Test(carry, off_or_under_a_node_features_plugin_nothing_is_sent)
{
	const char *texts[] = { "gpu=true" };
	struct memo_request *r[1];
	char name[SX_FEATURE_LEN + 1], stale[64];
	const char *avail[NNODES] = { 0 };
	struct carry_update *ups;
	size_t n;
	uint64_t round;

	/* Carrier=exclusions: a stale feature of the plugin's is taken off,
	 * the site's kept. */
	carry_conf(&c, sx_conf_time(), true, false);
	snprintf(stale, sizeof(stale), "ib,xc_0123456789ab,big");
	avail[0] = stale;
	load(avail);
	round = want_round(texts, 1, r);
	ups = plan_send(round, &n, 0);
	cr_assert_eq(n, 1);
	cr_expect_str_eq(ups[0].names, "n1");
	cr_expect_str_eq(ups[0].features, "ib,big");
	carry_updates_free(ups, n);
	cr_expect_eq(lookup(r[0]->canonical, name), -1);
	/* A NodeFeatures plugin owns the features: nothing at all. */
	carry_conf(&c, sx_conf_time(), false, true);
	load(avail);
	ups = plan_send(want_round(texts, 1, r), &n, 0);
	cr_expect_eq(n, 0);
	carry_updates_free(ups, n);
	cr_expect_eq(lookup(r[0]->canonical, name), -1);
}

Test(carry, hidden_nodes_are_never_updated)
{
	const char *texts[] = { "gpu=true" };
	struct memo_request *r[1];
	struct carry_update *ups;
	size_t n;

	/* the load names three nodes; the table's fourth is hidden */
	load(NULL);
	msg.record_count = NNODES - 1;
	cr_assert_eq(carry_seen(&c, &msg, NNODES), 0);
	ups = plan_send(want_round(texts, 1, r), &n, 0);
	cr_expect_gt(n, 0, "the others are updated");
	for (size_t k = 0; k < n; k++)
		cr_expect_null(strstr(ups[k].names, "n4"));
	carry_updates_free(ups, n);
}

Test(carry, the_status_tells_the_jobs_chance_without_counts)
{
	char *none = carry_status("xc_000000000001", 0, 4, 1);
	char *fewer = carry_status("xc_000000000001", 1, 4, 2);
	char *enough = carry_status("xc_000000000001", 2, 4, 2);
	char *more = carry_status("xc_000000000001", 3, 4, 2);

	cr_assert(none && fewer && enough && more);
	cr_expect(strstr(none, "none of 4"));
	cr_expect(strstr(fewer, "waiting for 2 nodes"));
	cr_expect(strstr(enough, "carry feature xc_000000000001"));
	cr_expect_str_eq(enough, more, "a node more changes nothing");
	free(none);
	free(fewer);
	free(enough);
	free(more);
}

/* The bounds on names (carry.h): in one round, 20 distinct requests of one
 * user and 8 of each of ten others, every node matching them all: the
 * first user's jobs get CARRY_MAX_USER_NAMES names, the others' in turn
 * until CARRY_MAX_NAMES, and no node is given more of the plugin's
 * features than that; the requests past them have no name (their jobs go
 * by their ExcNodeList). */
Test(carry, names_are_bounded_in_all_and_per_user)
{
	enum {
		N = 100
	};
	static char texts[N][16];
	const char *tp[N];
	struct memo_request *r[N];
	char name[SX_FEATURE_LEN + 1];
	uint32_t owner[N];
	size_t n, claimed = 0, first = 0;
	struct carry_update *ups;
	uint64_t round;

	for (size_t k = 0; k < N; k++) {
		snprintf(texts[k], sizeof(texts[k]), "mem<%zu", k + 10);
		tp[k] = texts[k];
		owner[k] = k < 20 ? 1000 : 1001 + (uint32_t)(k - 20) / 8;
	}
	load(NULL);
	round = want_round(tp, N, r);
	for (size_t k = 0; k < N; k++)
		r[k]->carry_owner = owner[k];
	ups = plan_send(round, &n, 0);
	for (size_t k = 0; k < n; k++) {
		size_t ours = 0;

		for (const char *f = ups[k].features; (f = strstr(f, "xc_"));
		     f++)
			ours++;
		cr_assert_leq(ours, CARRY_MAX_NAMES, "%s: %zu", ups[k].names,
			      ours);
	}
	carry_updates_free(ups, n);
	for (size_t k = 0; k < N; k++) {
		bool has = lookup(r[k]->canonical, name) >= 0;

		claimed += has;
		first += has && owner[k] == 1000;
	}
	cr_assert_eq(first, CARRY_MAX_USER_NAMES);
	cr_assert_eq(claimed, CARRY_MAX_NAMES);
}

/* A name counts for the least uid among the jobs that want it at each
 * round, not only at its claim: once the first user's jobs leave, it is
 * the remaining user's, and the first user's bound is free again. */
Test(carry, a_names_owner_follows_its_jobs)
{
	const char *texts[] = { "mem<10" };
	struct memo_request *r[1];
	struct carry_name *name;
	struct carry_update *ups;
	size_t n = 0;

	load(NULL);
	for (uint32_t owner = 1000; owner <= 2000; owner += 1000) {
		uint64_t round = want_round(texts, 1, r);

		r[0]->carry_owner = owner; /* 1000's jobs gone at the 2nd */
		/* (n read after the call: an argument's order is unspecified) */
		ups = plan_send(round, &n, 0);
		carry_updates_free(ups, n);
	}
	cr_assert(lh_table_lookup_ex(c.names, r[0]->feature, (void **)&name));
	cr_assert_eq(name->owner, 2000);
}
