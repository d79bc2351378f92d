/*
 * test_carry_fresh.c - what the check of the site's lists before the
 * feature carrier's node updates costs slurmctld (pace.h,
 * pace_send_nodes(); doc/thread.md "Carriers"): a round whose updates
 * name CARRY_FRESH_SINGLE_MAX nodes or fewer loads each alone, a larger
 * one loads every node once, from the plan's last_update; "no change"
 * sends every update as planned, a change sends only the updates whose
 * nodes' lists still agree.  slurmctld is played (test_carry_fixture.h).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <slurm/slurm.h>

#include "carry.h"
#include "test_carry_fixture.h"

/* n1-n40: past CARRY_FRESH_SINGLE_MAX. */
#define NNODES 40

/* n1-n20 with the site's feature a, n21-n40 with b: two updates. */
static void setup(void)
{
	carry_fixture_setup(NNODES);
	for (size_t i = 0; i < NNODES; i++)
		infos[i].features = (char *)(i < 20 ? "a" : "b");
}

TestSuite(carry_fresh, .init = setup, .fini = carry_fixture_teardown);

/* The round's updates name CARRY_FRESH_SINGLE_MAX nodes: each is loaded
 * alone, one single-node load a node, and no load of every node. */
Test(carry_fresh, a_round_of_a_few_nodes_loads_each_alone)
{
	char feature[SX_FEATURE_LEN + 1];

	cr_assert_lt(CARRY_FRESH_SINGLE_MAX, NNODES);
	msg.record_count = CARRY_FRESH_SINGLE_MAX; /* the rest unseen */
	cr_assert_eq(round_sent(feature), 1);
	cr_expect_eq(loads, CARRY_FRESH_SINGLE_MAX, "one load a node");
	cr_expect_eq(loads_since, 0, "no load of every node");
	cr_expect_eq(nsent, 1);
	cr_expect(ok[0]);
}

/* One node more: one load of every node for the round, asked from the
 * last_update of the load the plan was made from, and no single load. */
Test(carry_fresh, one_node_more_loads_every_node_once)
{
	char feature[SX_FEATURE_LEN + 1];

	cr_assert_lt(CARRY_FRESH_SINGLE_MAX + 1, NNODES);
	msg.record_count = CARRY_FRESH_SINGLE_MAX + 1;
	cr_assert_eq(round_sent(feature), 1);
	cr_expect_eq(loads, 0, "no single load");
	cr_expect_eq(loads_since, 1, "one load of every node");
	cr_expect_eq(since_asked, 1000, "since the plan's load");
	cr_expect(ok[0]);
}

/* Two updates naming 40 nodes: one load of every node for the round,
 * not one an update; both sent with the lists it shows. */
Test(carry_fresh, a_large_round_loads_every_node_once_for_all_its_updates)
{
	char feature[SX_FEATURE_LEN + 1], want[128];

	cr_assert_eq(round_sent(feature), 2);
	cr_expect_eq(loads, 0);
	cr_expect_eq(loads_since, 1);
	cr_expect(ok[0] && ok[1]);
	expand("a,F", feature, want, sizeof(want));
	cr_expect_str_eq(sent_to("n[1-20]")->avail, want);
	expand("b,F", feature, want, sizeof(want));
	cr_expect_str_eq(sent_to("n[21-40]")->avail, want);
}

/* slurmctld answers that no node changed since the plan's load: every
 * update is sent with its planned lists, no node read again. */
Test(carry_fresh, no_change_since_the_plan_sends_every_update_as_planned)
{
	char feature[SX_FEATURE_LEN + 1], want[128];

	no_change = true;
	cr_assert_eq(round_sent(feature), 2);
	cr_expect_eq(loads, 0);
	cr_expect_eq(loads_since, 1);
	cr_expect_eq(nsent, 2);
	cr_expect(ok[0] && ok[1]);
	expand("a,F", feature, want, sizeof(want));
	cr_expect_str_eq(sent_to("n[1-20]")->avail, want);
	cr_expect_str_eq(sent_to("n[1-20]")->act, want);
	expand("b,F", feature, want, sizeof(want));
	cr_expect_str_eq(sent_to("n[21-40]")->avail, want);
}

/* An admin adds a feature to n2 after the thread's load: the update
 * naming n2 is skipped (its nodes' lists no longer agree), the other
 * sent; the next round's load shows n2's change, and its plan sends n2
 * its own lists. */
Test(carry_fresh, an_admins_change_skips_only_the_updates_naming_its_node)
{
	node_info_t admin[NNODES];
	char feature[SX_FEATURE_LEN + 1], want[128];

	memcpy(admin, infos, sizeof(admin));
	admin[1].features = (char *)"a,adm";
	fresh = admin;
	cr_assert_eq(round_sent(feature), 2);
	cr_expect_eq(loads_since, 1);
	cr_expect_eq(nsent, 1, "only the update not naming n2");
	cr_expect_not(was_sent("n[1-20]"));
	expand("b,F", feature, want, sizeof(want));
	cr_expect_str_eq(sent_to("n[21-40]")->avail, want);
	/* the next round: the thread's load shows the admin's change (and
	 * not the feature n[21-40] got: the test's load is the one before) */
	memcpy(infos, admin, sizeof(admin));
	cr_assert_eq(round_sent(feature), 3, "n2, n[1,3-20] and n[21-40]");
	expand("a,adm,F", feature, want, sizeof(want));
	cr_expect_str_eq(sent_to("n2")->avail, want);
	expand("a,F", feature, want, sizeof(want));
	cr_expect_str_eq(sent_to("n[1,3-20]")->avail, want);
}

/* An admin changes every node of n[1-20] alike (scontrol update
 * nodename=n[1-20] activefeatures=): its nodes still agree, and the
 * update sends their lists as the round's load shows them. */
Test(carry_fresh, a_change_all_its_nodes_share_is_sent_as_it_is_now)
{
	node_info_t admin[NNODES];
	char feature[SX_FEATURE_LEN + 1], want[128];

	memcpy(admin, infos, sizeof(admin));
	for (size_t i = 0; i < 20; i++)
		admin[i].features_act = (char *)"";
	fresh = admin;
	cr_assert_eq(round_sent(feature), 2);
	cr_expect_eq(nsent, 2);
	expand("a,F", feature, want, sizeof(want));
	cr_expect_str_eq(sent_to("n[1-20]")->avail, want);
	expand("F", feature, want, sizeof(want));
	cr_expect_str_eq(sent_to("n[1-20]")->act, want, "nothing of a active");
}

/* The round's load shows another node in n35's place (a node added or
 * removed since the plan's load): the update naming it waits for the
 * next round's load, the other is sent. */
Test(carry_fresh, a_node_not_in_its_place_skips_the_update_naming_it)
{
	node_info_t moved[NNODES];
	char feature[SX_FEATURE_LEN + 1];

	memcpy(moved, infos, sizeof(moved));
	moved[34].name = (char *)"n99";
	fresh = moved;
	cr_assert_eq(round_sent(feature), 2);
	cr_expect_eq(nsent, 1);
	cr_expect(was_sent("n[1-20]"));
	cr_expect_not(was_sent("n[21-40]"));
}

/* The round's load fails: no update is sent, none with stale lists, and
 * no node is loaded alone instead. */
Test(carry_fresh, a_failed_load_of_every_node_sends_nothing)
{
	char feature[SX_FEATURE_LEN + 1];

	load_fails = true;
	cr_assert_eq(round_sent(feature), 2);
	cr_expect_eq(loads_since, 1);
	cr_expect_eq(loads, 0);
	cr_expect_eq(nsent, 0);
	cr_expect_not(ok[0] || ok[1]);
}
