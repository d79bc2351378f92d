/*
 * test_carry_site.c - the site's own features in the feature carrier's
 * node updates (carry.h, pace.h, doc/thread.md "Carriers"): what the
 * carrier sends to slurmctld, caught where pace_send_nodes() sends it
 * (pace_ctld, played here).  A feature the site made available but not
 * active stays inactive; the site's lists are kept apart, whatever the
 * plugin adds to both.  The site's lists sent are those of each node
 * loaded alone right before its update (pace_ctld.load, played from
 * `fresh`): an admin's change after the thread's load of every node is
 * kept.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>
#include <slurm/slurm.h>

#include "carry.h"
#include "ctld.h"
#include "pace.h"
#include "test_carry_fixture.h"

/* n1-n3, all satisfying the request "gpu=true". */
#define NNODES 3

static void setup(void)
{
	carry_fixture_setup(NNODES);
}

TestSuite(carry_site, .init = setup, .fini = carry_fixture_teardown);

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

/* ------------------------------------- an admin's change in the window */

/* An admin adds a feature to n1 after the thread loaded every node and
 * before the carrier's update (scontrol update nodename=n1
 * availablefeatures=a,adm): the update sends the admin's list, not the
 * one the thread's load showed; one load of n1 alone for it. */
Test(carry_site, an_admins_change_after_the_load_is_kept)
{
	node_info_t admin[NNODES];
	char feature[SX_FEATURE_LEN + 1], want[128];
	const struct sent *s;

	infos[0].features = (char *)"a";
	msg.record_count = 1;
	memcpy(admin, infos, sizeof(admin));
	admin[0].features = (char *)"a,adm"; /* active unset: the same */
	fresh = admin;
	cr_assert_eq(round_sent(feature), 1);
	cr_expect_eq(loads, 1, "one load of the one node updated");
	cr_expect(ok[0]);
	s = sent_to("n1");
	expand("a,adm,F", feature, want, sizeof(want));
	cr_expect_str_eq(s->avail, want, "the admin's feature kept");
	cr_expect_str_eq(s->act, want);
	msg.record_count = NNODES;
}

/* An admin deactivates b on n1 in the window (scontrol update
 * nodename=n1 availablefeatures=a,b activefeatures=a): it stays inactive
 * in the carrier's update. */
Test(carry_site, an_admins_deactivation_after_the_load_is_kept)
{
	node_info_t admin[NNODES];
	char feature[SX_FEATURE_LEN + 1], want[128];
	const struct sent *s;

	infos[0].features = (char *)"a,b";
	msg.record_count = 1;
	memcpy(admin, infos, sizeof(admin));
	admin[0].features_act = (char *)"a";
	fresh = admin;
	cr_assert_eq(round_sent(feature), 1);
	s = sent_to("n1");
	expand("a,b,F", feature, want, sizeof(want));
	cr_expect_str_eq(s->avail, want);
	expand("a,F", feature, want, sizeof(want));
	cr_expect_str_eq(s->act, want, "b stays inactive");
	msg.record_count = NNODES;
}

/* The plugin's own names as the fresh load shows them are not the
 * site's: an admin who took the plugin's feature off n1 gets it back,
 * their own list kept. */
Test(carry_site, the_plugins_names_in_the_fresh_load_are_not_the_sites)
{
	node_info_t admin[NNODES];
	char feature[SX_FEATURE_LEN + 1], want[128];
	const struct sent *s;

	infos[0].features = (char *)"a";
	msg.record_count = 1;
	memcpy(admin, infos, sizeof(admin));
	admin[0].features = (char *)"a,xc_000000000009,c";
	fresh = admin;
	cr_assert_eq(round_sent(feature), 1);
	s = sent_to("n1");
	expand("a,c,F", feature, want, sizeof(want));
	cr_expect_str_eq(s->avail, want);
	cr_expect_str_eq(s->act, want);
	msg.record_count = NNODES;
}

/* One update names n1-n3 (same lists at the thread's load); an admin
 * changes n2 alone in the window.  One update gives every node it names
 * the same lists, so it is not sent (ok false: the round's counts stay
 * as lowered); the next round's load shows n2's change, and its plan
 * sends n2 its own lists and n[1,3] theirs. */
Test(carry_site, an_update_whose_nodes_now_differ_waits_for_the_next_load)
{
	node_info_t admin[NNODES];
	char feature[SX_FEATURE_LEN + 1], want[128];
	const struct sent *s;

	for (size_t i = 0; i < NNODES; i++)
		infos[i].features = (char *)"a";
	memcpy(admin, infos, sizeof(admin));
	admin[1].features = (char *)"a,adm";
	fresh = admin;
	cr_assert_eq(round_sent(feature), 1, "one update for n[1-3]");
	cr_expect_eq(nsent, 0, "not sent");
	cr_expect_not(ok[0]);
	cr_expect_leq(loads, 3, "at most one load a node");
	/* the next round: the thread's load shows the admin's change */
	memcpy(infos, admin, sizeof(admin));
	loads = 0;
	cr_assert_eq(round_sent(feature), 2);
	cr_expect_eq(loads, 3, "one load a node updated");
	cr_expect(ok[0] && ok[1]);
	s = sent_to("n2");
	expand("a,adm,F", feature, want, sizeof(want));
	cr_expect_str_eq(s->avail, want);
	cr_expect_str_eq(s->act, want);
	s = sent_to("n[1,3]");
	expand("a,F", feature, want, sizeof(want));
	cr_expect_str_eq(s->avail, want);
}

/* A node that cannot be loaded alone (slurmctld does not answer, or no
 * longer knows it): its update is not sent, never sent with the stale
 * lists. */
Test(carry_site, a_node_not_loaded_alone_is_not_updated)
{
	char feature[SX_FEATURE_LEN + 1];
	node_info_t gone[NNODES];

	infos[0].features = (char *)"a";
	msg.record_count = 1;
	load_fails = true;
	cr_assert_eq(round_sent(feature), 1);
	cr_expect_eq(nsent, 0);
	cr_expect_not(ok[0]);
	/* no record for it: renamed or removed since */
	load_fails = false;
	memcpy(gone, infos, sizeof(gone));
	gone[0].name = (char *)"n9";
	fresh = gone;
	cr_assert_eq(round_sent(feature), 1);
	cr_expect_eq(nsent, 0);
	cr_expect_not(ok[0]);
	msg.record_count = NNODES;
}

/* ------------------------------------------------------------ figures */

/* A node's site lists in the figures: ten site features (two inactive)
 * and four of the plugin's, 122 bytes available. */
static const char fig_avail[] =
	"rack17,ib,hdr200,gpu,a100,nvlink,bigmem,scratch,x86_64,el9,"
	"xc_0123456789ab,xc_123456789abc,xc_23456789abcd,xc_3456789abcde";
static const char fig_act[] =
	"rack17,ib,hdr200,gpu,a100,nvlink,x86_64,el9,"
	"xc_0123456789ab,xc_123456789abc,xc_23456789abcd,xc_3456789abcde";
static const char fig_ours[] = "xc_0123456789ab,xc_123456789abc,"
			       "xc_23456789abcd,xc_3456789abcde";

static double ms_between(const struct timespec *t0, const struct timespec *t1)
{
	return (double)(t1->tv_sec - t0->tv_sec) * 1e3 +
	       (double)(t1->tv_nsec - t0->tv_nsec) / 1e6;
}

/* What the fresh lists cost the thread (printed, never asserted): per
 * node read (carry_fresh_read()) and per update (carry_fresh_lists()),
 * as a node loaded alone gives them. */
Test(carry_site, figures_of_the_fresh_lists)
{
	struct carry_update u = { .ours = (char *)fig_ours };
	node_info_t node = { .name = (char *)"n1",
			     .features = (char *)fig_avail,
			     .features_act = (char *)fig_act };
	struct carry_fresh f = { 0 };
	struct timespec t0, t1;
	char *a, *b;
	const size_t nodes = 10000;

	u.nodes = nodes;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 0; i < nodes; i++)
		cr_assert_eq(carry_fresh_read(&f, &node), 0);
	cr_assert_eq(carry_fresh_lists(&f, &u, &a, &b), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(stderr,
		"figures: carry_fresh: %zu nodes of %zu-byte lists read, "
		"their lists built: %.3f ms (%.0f ns a node)\n",
		nodes, sizeof(fig_avail) - 1, ms_between(&t0, &t1),
		ms_between(&t0, &t1) * 1e6 / (double)nodes);
	cr_expect_str_eq(b, fig_act, "the inactive ones stay so");
	cr_expect_not(f.differ);
	free(a);
	free(b);
	carry_fresh_free(&f);
}

/* The round's load of every node, played: `fig_msg` as it is, or no
 * change; updates counted, not kept. */
static node_info_msg_t *fig_msg;
static bool fig_no_change;
static size_t fig_updates;

static int fig_load_since(time_t since, node_info_msg_t **out)
{
	(void)since;
	*out = fig_no_change ? NULL : fig_msg;
	return fig_no_change ? SLURM_NO_CHANGE_IN_DATA : SLURM_SUCCESS;
}

static void fig_free(node_info_msg_t *m)
{
	(void)m; /* fig_msg: the test's */
}

static int fig_update(const char *nodes, const char *avail, const char *act)
{
	(void)nodes;
	(void)avail;
	(void)act;
	fig_updates++;
	return SLURM_SUCCESS;
}

/* What the round's check costs the thread when its updates name every
 * node (a request's first placement), printed, never asserted: the load
 * of every node matched to the table by name, each node's lists read,
 * each update's lists built (pace_send_nodes(), ten updates of a tenth
 * of the nodes each), slurmctld played at no cost; then the same round
 * when slurmctld answers no change. */
static void figure_round(size_t nodes)
{
	xc_nodes_t *big = xc_nodes_create(NULL), *small = r.table;
	node_info_msg_t m = { .record_count = (uint32_t)nodes };
	struct carry_update ups[10];
	struct refilter_stats stats = { 0 };
	char(*nm)[16] = calloc(nodes, sizeof(*nm));
	bool sent_ok[10];
	struct timespec t0, t1, t2;
	xc_error_t err;
	double ms, none_ms;

	m.node_array = calloc(nodes, sizeof(*m.node_array));
	cr_assert(big && nm && m.node_array);
	for (size_t i = 0; i < nodes; i++) {
		snprintf(nm[i], sizeof(nm[i]), "n%zu", i + 1);
		cr_assert_eq(xc_nodes_add(big, nm[i], NULL, NULL, &err), 0);
		m.node_array[i] =
			(node_info_t){ .name = nm[i],
				       .features = (char *)fig_avail,
				       .features_act = (char *)fig_act };
	}
	for (size_t k = 0; k < 10; k++) {
		size_t from = k * nodes / 10, to = (k + 1) * nodes / 10;

		ups[k] = (struct carry_update){
			.names = (char *)"n[...]",
			.ours = (char *)fig_ours,
			.features = (char *)fig_avail,
			.features_act = (char *)fig_act,
			.nodes = to - from,
			.idx = malloc((to - from) * sizeof(size_t)),
		};
		cr_assert(ups[k].idx);
		for (size_t i = from; i < to; i++)
			ups[k].idx[i - from] = i;
	}
	pace_ctld.load_since = fig_load_since;
	pace_ctld.free_msg = fig_free;
	pace_ctld.update = fig_update;
	fig_msg = &m;
	r.table = big;
	fig_updates = 0;
	fig_no_change = false;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pace_send_nodes(&r, ups, 10, sent_ok, &stats);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cr_expect_eq(fig_updates, 10, "every update sent");
	fig_no_change = true;
	pace_send_nodes(&r, ups, 10, sent_ok, &stats);
	clock_gettime(CLOCK_MONOTONIC, &t2);
	cr_expect_eq(fig_updates, 20);
	ms = ms_between(&t0, &t1);
	none_ms = ms_between(&t1, &t2);
	fprintf(stderr,
		"figures: carry_fresh round: %zu nodes in 10 updates, the load "
		"of every node compared: %.3f ms (%.0f ns a node); "
		"no change: %.3f ms\n",
		nodes, ms, ms * 1e6 / (double)nodes, none_ms);
	r.table = small;
	for (size_t k = 0; k < 10; k++)
		free(ups[k].idx);
	free(m.node_array);
	free(nm);
	xc_nodes_destroy(big);
}

Test(carry_site, figures_of_the_rounds_load)
{
	figure_round(10000);
	figure_round(65536);
}
