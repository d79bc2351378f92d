/*
 * test_carry_site.c - the site's own features in the feature carrier's
 * node updates (carry.h, pace.h, doc/design.md "Carriers"): what the
 * carrier sends to slurmctld, caught where pace_send_nodes() sends it
 * (pace_ctld, played here).  A feature the site made available but not
 * active stays inactive; the site's lists are kept apart, whatever the
 * plugin adds to both.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <slurm/slurm.h>

#include "carry.h"
#include "ctld.h"
#include "memo.h"
#include "pace.h"
#include "thread_private.h"

#include "leakcheck.h"

/* The nodes: all satisfy the request "gpu=true". */
static const char *const names[] = { "n1", "n2", "n3" };
#define NNODES (sizeof(names) / sizeof(names[0]))

static xc_nodes_t *table;
static struct thread r;
static node_info_t infos[NNODES];
static node_info_msg_t msg = { .record_count = NNODES, .node_array = infos };

/* What slurmctld was sent: each update's names and lists. */
#define MAX_SENT 8
static struct sent {
	char *names, *avail, *act;
} sent[MAX_SENT];
static size_t nsent;

static int play_update(const char *nodes, const char *avail, const char *act)
{
	cr_assert_lt(nsent, MAX_SENT);
	sent[nsent].names = strdup(nodes);
	sent[nsent].avail = strdup(avail);
	sent[nsent].act = strdup(act);
	nsent++;
	return SLURM_SUCCESS;
}

static struct pace_ctld real;

static void setup(void)
{
	xc_error_t err;

	table = xc_nodes_create(NULL);
	cr_assert(table);
	for (size_t i = 0; i < NNODES; i++)
		cr_assert_eq(xc_nodes_add(table, names[i], "{\"gpu\":true}",
					  NULL, &err),
			     0);
	cr_assert_eq(xc_nodes_compile(table, &err), 0);
	memset(&r, 0, sizeof(r));
	thread_init_sync(&r);
	r.cfg.update_budget = 1000; /* nothing owed: no wait */
	r.table = table;
	cr_assert_eq(memo_init(&r.memo, 0), 0);
	cr_assert_eq(carry_init(&r.carry), 0);
	carry_conf(&r.carry, sx_conf_time(), true, true);
	memset(infos, 0, sizeof(infos));
	for (size_t i = 0; i < NNODES; i++)
		infos[i].name = (char *)names[i];
	real = pace_ctld;
	pace_ctld.update = play_update;
	nsent = 0;
}

static void teardown(void)
{
	pace_ctld = real;
	for (size_t k = 0; k < nsent; k++) {
		free(sent[k].names);
		free(sent[k].avail);
		free(sent[k].act);
	}
	carry_free(&r.carry);
	memo_free(&r.memo);
	xc_nodes_destroy(table);
	pthread_mutex_destroy(&r.lock);
	pthread_cond_destroy(&r.wake);
	xc_leak_check();
}

TestSuite(carry_site, .init = setup, .fini = teardown);

static void lock(void *arg)
{
	(void)arg;
}

/* The thread's load of the nodes (carry_seen()), a round in which a job
 * of "gpu=true" wants the carrier, its plan and the updates sent as
 * pace_send_nodes() sends them; the request's feature into `feature`.
 * How many updates were planned. */
static size_t round_sent(char feature[SX_FEATURE_LEN + 1])
{
	struct refilter_stats stats = { 0 };
	struct memo_request *req;
	struct carry_update *ups;
	bool all, matched[NNODES], evaluated, ok[MAX_SENT];
	uint64_t round;
	size_t n;

	cr_assert_eq(carry_seen(&r.carry, &msg, NNODES), 0);
	round = memo_round(&r.memo, &all);
	cr_assert_eq(memo_request_of(&r.memo, "gpu=true", NULL, &req), 0);
	cr_assert_eq(memo_matched(&r.memo, req, table, matched, &evaluated), 0);
	req->carry_round = round;
	cr_assert_eq(carry_plan(&r.carry, &r.memo, table, round, &ups, &n, lock,
				lock, NULL),
		     0);
	cr_assert_leq(n, MAX_SENT);
	pace_send_nodes(&r, ups, n, ok, &stats);
	carry_done(&r.carry, &r.memo, ups, n, ok, round);
	carry_updates_free(ups, n);
	memcpy(feature, req->feature, SX_FEATURE_LEN + 1);
	return n;
}

/* The update sent for `nodes`, or a failure. */
static const struct sent *sent_to(const char *nodes)
{
	for (size_t k = 0; k < nsent; k++)
		if (strcmp(sent[k].names, nodes) == 0)
			return &sent[k];
	cr_assert_fail("no update sent to %s", nodes);
	return NULL;
}

/* `want` with each "F" token replaced by the request's feature. */
static void expand(const char *want, const char *feature, char *out,
		   size_t size)
{
	size_t len = 0;

	for (const char *p = want; *p && len + SX_FEATURE_LEN + 1 < size; p++)
		if (*p == 'F' && (p == want || p[-1] == ',') &&
		    (!p[1] || p[1] == ',')) {
			memcpy(out + len, feature, SX_FEATURE_LEN);
			len += SX_FEATURE_LEN;
		} else {
			out[len++] = *p;
		}
	out[len] = '\0';
}

/* One node's lists as the thread's load shows them, and the lists the
 * carrier's update must send it ("F": the request's feature). */
struct site_row {
	const char *what;
	const char *avail, *act; /* act NULL: unset (Slurm's "the same") */
	const char *sent_avail, *sent_act;
};

static const struct site_row site_rows[] = {
	{ "a feature available but not active stays inactive", "a,b", "a",
	  "a,b,F", "a,F" },
	{ "active the same as available: both the same", "a,b", "a,b", "a,b,F",
	  "a,b,F" },
	{ "an unset active list is the available one (update_node())", "a,b",
	  NULL, "a,b,F", "a,b,F" },
	{ "nothing active: only the plugin's", "a,b", "", "a,b,F", "F" },
	{ "the site's order kept in each list", "c,a,b", "b,c", "c,a,b,F",
	  "b,c,F" },
	{ "no site feature at all", NULL, NULL, "F", "F" },
	{ "an active feature not available is never sent (Slurm refuses it)",
	  "a", "a,z", "a,F", "a,F" },
};

Test(carry_site, the_site_lists_are_kept_apart_in_the_update_sent)
{
	for (size_t i = 0; i < sizeof(site_rows) / sizeof(site_rows[0]); i++) {
		const struct site_row *row = &site_rows[i];
		char feature[SX_FEATURE_LEN + 1], want[128];
		const struct sent *s;

		/* one node, the others hidden from this load */
		carry_free(&r.carry);
		cr_assert_eq(carry_init(&r.carry), 0);
		carry_conf(&r.carry, sx_conf_time(), true, true);
		infos[0].features = (char *)row->avail;
		infos[0].features_act = (char *)row->act;
		msg.record_count = 1;
		cr_assert_eq(round_sent(feature), 1, "%s", row->what);
		s = &sent[nsent - 1];
		cr_expect_str_eq(s->names, "n1", "%s", row->what);
		expand(row->sent_avail, feature, want, sizeof(want));
		cr_expect_str_eq(s->avail, want, "%s: available", row->what);
		expand(row->sent_act, feature, want, sizeof(want));
		cr_expect_str_eq(s->act, want, "%s: active", row->what);
	}
	msg.record_count = NNODES;
}

/* Nodes with the same available list but different active ones get an
 * update each: one update gives every node it names the same lists
 * (update_node()). */
Test(carry_site, nodes_whose_active_lists_differ_are_updated_apart)
{
	char feature[SX_FEATURE_LEN + 1], want[128];
	const struct sent *s;

	infos[0].features = infos[1].features = infos[2].features =
		(char *)"a,b";
	infos[0].features_act = (char *)"a";
	infos[1].features_act = (char *)"a,b";
	infos[2].features_act = (char *)"a";
	cr_assert_eq(round_sent(feature), 2);
	s = sent_to("n[1,3]");
	expand("a,b,F", feature, want, sizeof(want));
	cr_expect_str_eq(s->avail, want);
	expand("a,F", feature, want, sizeof(want));
	cr_expect_str_eq(s->act, want, "b stays inactive on n1 and n3");
	s = sent_to("n2");
	expand("a,b,F", feature, want, sizeof(want));
	cr_expect_str_eq(s->avail, want);
	cr_expect_str_eq(s->act, want);
}

/* The plugin's own names in the lists are not the site's: a stale one
 * of the plugin's active but not available is taken off both. */
Test(carry_site, the_plugins_names_are_not_the_sites)
{
	char feature[SX_FEATURE_LEN + 1], want[128];
	const struct sent *s;

	infos[0].features = (char *)"a,b,xc_000000000001";
	infos[0].features_act = (char *)"xc_000000000002,a";
	msg.record_count = 1;
	cr_assert_eq(round_sent(feature), 1);
	s = sent_to("n1");
	expand("a,b,F", feature, want, sizeof(want));
	cr_expect_str_eq(s->avail, want);
	expand("a,F", feature, want, sizeof(want));
	cr_expect_str_eq(s->act, want);
	msg.record_count = NNODES;
}
