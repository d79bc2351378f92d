/*
 * test_guard_budget.c - what the tiers of every placement may cost a
 * second (ctld/guard.h, doc/guard.md "Preferences there"): the
 * second's budget, a user's share of it, the texts a placement compares,
 * and the tier applied once counted.  The guard's nodes and requests are
 * test_guard.c's.
 */
#include "guard_fixture.h"

/* The tiers' budget is one a second: what is taken within a second stays
 * taken, a new second (or a clock set back) gives it whole again; one
 * user takes at most a quarter of it, so that it takes four users to
 * spend it all. */
Test(guard, the_tiers_budget_is_a_seconds_and_shared)
{
	const size_t share = GUARD_TIER_USER_SHARE;

	cr_assert_eq(GUARD_TIER_BUDGET, 4 * share);
	cr_assert_eq(guard_tiers_allowance(g, 1000, 100), share);
	guard_tiers_spend(g, 1000, 100, 1000);
	cr_assert_eq(guard_tiers_allowance(g, 1000, 100), share - 1000);
	guard_tiers_spend(g, 1000, 100, share - 1000);
	cr_assert_eq(guard_tiers_allowance(g, 1000, 100), 0,
		     "one user past its share");
	/* the others keep theirs, until the budget for all runs out */
	cr_assert_eq(guard_tiers_allowance(g, 1001, 100), share);
	guard_tiers_spend(g, 1001, 100, share);
	guard_tiers_spend(g, 1002, 100, share - 10);
	cr_assert_eq(guard_tiers_allowance(g, 1003, 100), share);
	cr_assert_eq(guard_tiers_allowance(g, 1002, 100), 10);
	guard_tiers_spend(g, 1003, 100, share);
	cr_assert_eq(guard_tiers_allowance(g, 1004, 100), 10,
		     "the budget left for all");
	guard_tiers_spend(g, 1004, 100, 10);
	cr_assert_eq(guard_tiers_allowance(g, 1002, 100), 0);
	/* a new second, or a clock set back: whole again */
	cr_assert_eq(guard_tiers_allowance(g, 1000, 101), share);
	guard_tiers_spend(g, 1000, 101, share);
	cr_assert_eq(guard_tiers_allowance(g, 1000, 99), share);
}

/* Past GUARD_TIER_USERS users in one second, a user shares the share of
 * the user whose slot its uid hashes to: the two together never get
 * more than one share, and the slot stays its owner's. */
Test(guard, users_past_the_slots_share_a_share)
{
	const size_t share = GUARD_TIER_USER_SHARE;
	const uint32_t far = GUARD_TIER_USERS; /* hashes to slot 0 */

	/* uid 0 in slot 0, uid `far` in the next free one (1), uids 2 to
	 * 63 in theirs: every slot taken */
	guard_tiers_spend(g, 0, 100, 1);
	guard_tiers_spend(g, far, 100, 2000);
	for (uint32_t uid = 2; uid < GUARD_TIER_USERS; uid++)
		guard_tiers_spend(g, uid, 100, 1);
	/* uid 1 finds no slot: it shares slot 1, which stays uid `far`'s */
	cr_assert_eq(guard_tiers_allowance(g, 1, 100), share - 2000);
	guard_tiers_spend(g, 1, 100, 1);
	cr_assert_eq(guard_tiers_allowance(g, far, 100), share - 2001,
		     "uid far still finds its slot, with what uid 1 spent");
	cr_assert_eq(guard_tiers_allowance(g, 1, 100), share - 2001);
	cr_assert_eq(guard_tiers_allowance(g, 0, 100), share - 1);
	/* a later uid hashing to slot 0 shares uid 0's share */
	guard_tiers_spend(g, 2 * far, 100, share - 1);
	cr_assert_eq(guard_tiers_allowance(g, 0, 100), 0);
	cr_assert_eq(guard_tiers_allowance(g, 2 * far, 100), 0);
	/* while a slot is free, uids 2 and 66 are told apart */
	cr_assert_eq(guard_tiers_allowance(g, 2, 101), share);
	guard_tiers_spend(g, 2 + far, 101, 5);
	cr_assert_eq(
		guard_tiers_allowance(g, 2, 101), share,
		"a slot taken by another uid is passed over while one is free");
	cr_assert_eq(guard_tiers_allowance(g, 2 + far, 101), share - 5);
}

/* The texts a placement compares come out of its user's allowance;
 * past it, once a second for a user who took nothing yet, and at most
 * half of what is left for all. */
Test(guard, the_texts_compared_within_what_a_user_may_take)
{
	const size_t share = GUARD_TIER_USER_SHARE;
	size_t budget, compared;

	budget = guard_tiers_allowance(g, 7, 100);
	cr_assert(guard_tiers_compare(g, share, 100, 100, &budget, &compared));
	cr_assert_eq(budget, share - 100);
	cr_assert_eq(compared, 100);
	/* past the allowance, the user untouched: allowed, budget to 0 */
	budget = share;
	cr_assert(guard_tiers_compare(g, share, share + 1, 100, &budget,
				      &compared));
	cr_assert_eq(budget, 0);
	cr_assert_eq(compared, share + 1);
	/* not past half of what is left for all */
	budget = share;
	cr_assert_not(guard_tiers_compare(g, share, GUARD_TIER_BUDGET / 2 + 1,
					  100, &budget, &compared));
	cr_assert_eq(budget, share, "nothing taken");
	cr_assert_eq(compared, 0);
	/* a user who took some of its share already: within it only */
	guard_tiers_spend(g, 7, 100, 10);
	budget = guard_tiers_allowance(g, 7, 100);
	cr_assert_eq(budget, share - 10);
	cr_assert_not(
		guard_tiers_compare(g, budget, share, 100, &budget, &compared));
	cr_assert(guard_tiers_compare(g, budget, share - 10, 100, &budget,
				      &compared));
	cr_assert_eq(budget, 0);
	/* every user overspending once: each takes at most half of what is
	 * left, so the others keep some */
	for (uint32_t u = 20; u < 24; u++) {
		size_t left = guard_tiers_left(g, 100), more = left / 2;

		budget = guard_tiers_allowance(g, u, 100);
		if (budget < share)
			break;
		cr_assert(guard_tiers_compare(g, share, more, 100, &budget,
					      &compared));
		guard_tiers_spend(g, u, 100, compared);
		cr_assert_eq(guard_tiers_left(g, 100), left - more);
		cr_assert_gt(guard_tiers_left(g, 100), 0);
	}
}

/* What a user overspent goes out of the second's budget for all (down
 * to 0) and leaves the user nothing more that second. */
Test(guard, a_placement_may_overspend_its_users_share)
{
	cr_assert_eq(guard_tiers_left(g, 100), GUARD_TIER_BUDGET);
	guard_tiers_spend(g, 7, 100, GUARD_TIER_USER_SHARE + 100);
	cr_assert_eq(guard_tiers_left(g, 100),
		     GUARD_TIER_BUDGET - GUARD_TIER_USER_SHARE - 100);
	cr_assert_eq(guard_tiers_allowance(g, 7, 100), 0);
	guard_tiers_spend(g, 8, 100, GUARD_TIER_BUDGET);
	cr_assert_eq(guard_tiers_left(g, 100), 0, "spent down to 0, no lower");
	cr_assert_eq(guard_tiers_allowance(g, 9, 100), 0);
	cr_assert_eq(guard_tiers_left(g, 101), GUARD_TIER_BUDGET);
}

/* The tier applied: the pick when every tier it needed was counted, else
 * the tier carried; where the excluded nodes hold more than the user's
 * own, never weaker than the tier carried. */
Test(guard, the_tier_applied)
{
	cr_assert_eq(guard_tier_applied(true, 2, 1, false), 2,
		     "the feature carries: the pick, weaker or not");
	cr_assert_eq(guard_tier_applied(true, 0, 1, false), 0);
	cr_assert_eq(guard_tier_applied(true, 1, 2, false), 1);
	cr_assert_eq(guard_tier_applied(false, 0, 2, false), 2,
		     "not counted: the tier carried");
	cr_assert_eq(guard_tier_applied(false, 0, 0, true), 0);
	cr_assert_eq(guard_tier_applied(true, 2, 1, true), 1,
		     "by the list: never weaker than carried");
	cr_assert_eq(guard_tier_applied(true, 0, 1, true), 1);
	cr_assert_eq(guard_tier_applied(true, 1, 2, true), 1,
		     "by the list: a stronger tier picked");
	cr_assert_eq(guard_tier_applied(true, 3, 0, true), 3,
		     "nothing carried: the pick");
}
