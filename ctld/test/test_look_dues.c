/*
 * test_look_dues.c - the ends of the preferences' waits the look follows
 * (look_dues.h): a wait's end due once, at eligible + wait (PREFER_NOW_S
 * with none), not before; a job not eligible when listed read again until
 * it is, each in turn within the budget; a job that no longer waits forgotten; a walk
 * published only at its end.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "leakcheck.h"
#include "look_dues.h"
#include "prefer.h"

/* what the callback answers, per job id (index), and how often it was
 * asked */
static time_t eligible[8];
static unsigned asked[8];

static time_t eligible_of(uint32_t job_id, void *arg)
{
	(void)arg;
	cr_assert_lt(job_id, 8);
	asked[job_id]++;
	return eligible[job_id];
}

static bool due(time_t now, size_t budget)
{
	return look_dues_due(now, eligible_of, NULL, &budget);
}

static void teardown(void)
{
	look_dues_free();
	xc_leak_check();
}

TestSuite(look_dues, .fini = teardown);

Test(look_dues, a_wait_ends_once_at_eligible_plus_wait)
{
	look_dues_begin();
	look_dues_add(1, 5, 1000, 1000);
	look_dues_add(2, 0, 1000, 1000); /* no wait: PREFER_NOW_S */
	look_dues_end();
	cr_assert_eq(look_dues_count(), 2);
	cr_assert_not(due(1004, 10));
	cr_assert(due(1005, 10), "the 5 s wait ends at 1005");
	cr_assert_eq(look_dues_count(), 1);
	cr_assert_not(due(1006, 10), "said once");
	cr_assert_not(due(1000 + PREFER_NOW_S - 1, 10));
	cr_assert(due(1000 + PREFER_NOW_S, 10));
	cr_assert_eq(look_dues_count(), 0);
	cr_assert_eq(asked[1] + asked[2], 0, "known ends read no job");
}

Test(look_dues, a_wait_over_before_the_last_try_is_not_listed)
{
	look_dues_begin();
	look_dues_add(1, 5, 1000, 1006); /* tried after its end */
	look_dues_add(2, 5, 1000, 1005); /* tried in its end's second */
	look_dues_add(3, 5, 1000, 1001); /* ended since its last try */
	look_dues_end();
	cr_assert_eq(look_dues_count(), 2);
	cr_assert(due(1010, 10), "due at once: no try since the end");
	cr_assert_eq(look_dues_count(), 0);
}

Test(look_dues, a_job_not_eligible_is_read_until_it_is)
{
	look_dues_begin();
	look_dues_add(3, 60, 0, 1000); /* held: its wait has not begun */
	look_dues_end();
	eligible[3] = 0;
	cr_assert_not(due(5000, 10), "not eligible: no end");
	cr_assert_eq(asked[3], 1);
	cr_assert_eq(look_dues_count(), 1);
	eligible[3] = 5000; /* released, looked at by the scheduler */
	cr_assert_not(due(5001, 10));
	cr_assert_eq(asked[3], 2);
	cr_assert_not(due(5059, 10));
	cr_assert_eq(asked[3], 2, "its end known: not read again");
	cr_assert(due(5060, 10));
}

Test(look_dues, one_not_eligible_among_known_ends_is_read_each_time)
{
	look_dues_begin();
	look_dues_add(1, 60, 0, 1000);
	look_dues_add(2, 500, 1000, 1000);
	look_dues_add(3, 600, 1000, 1000);
	look_dues_end();
	eligible[1] = 0;
	for (int i = 0; i < 5; i++)
		cr_assert_not(due(1100 + i, 10));
	cr_assert_eq(asked[1], 5, "read at every call while not eligible");
	eligible[1] = 1200;
	cr_assert_not(due(1200, 10));
	cr_assert_not(due(1259, 10));
	cr_assert(due(1260, 10), "its end followed once known");
	cr_assert_eq(look_dues_count(), 2);
}

Test(look_dues, a_job_that_no_longer_waits_is_forgotten)
{
	look_dues_begin();
	look_dues_add(4, 60, 0, 1000);
	look_dues_end();
	eligible[4] = -1; /* started, or gone */
	cr_assert_not(due(2000, 10));
	cr_assert_eq(look_dues_count(), 0);
}

Test(look_dues, the_budget_bounds_the_reads_and_each_job_gets_its_turn)
{
	size_t budget = 2;

	look_dues_begin();
	for (uint32_t j = 0; j < 6; j++)
		look_dues_add(j, 10, 0, 1000);
	look_dues_end();
	for (int i = 0; i < 6; i++)
		eligible[i] = 0;
	cr_assert_not(look_dues_due(1000, eligible_of, NULL, &budget));
	cr_assert_eq(budget, 0, "each read one unit of the budget");
	cr_assert_eq(asked[0] + asked[1] + asked[2] + asked[3] + asked[4] +
			     asked[5],
		     2, "two reads for a budget of two");
	eligible[3] = -1; /* one read leaves: the turns go on past it */
	cr_assert_not(due(1000, 2));
	cr_assert_not(due(1000, 2));
	for (int i = 0; i < 6; i++)
		cr_assert_eq(asked[i], 1, "job %d read once in three calls", i);
	cr_assert_eq(look_dues_count(), 5);
	cr_assert_not(due(1000, 0));
	cr_assert_eq(asked[0] + asked[1] + asked[2] + asked[4] + asked[5], 5,
		     "no budget, no read");
	cr_assert_not(due(1000, 5));
	for (int i = 0; i < 6; i++)
		cr_assert_eq(asked[i], i == 3 ? 1 : 2,
			     "job %d: its second turn", i);
}

/* A walk that lists job 1 (its end at 1005), and the next one begun,
 * listing job 2 (its end at 1050). */
static void a_walk_and_the_next_begun(void)
{
	look_dues_begin();
	look_dues_add(1, 5, 1000, 1000);
	look_dues_end();
	look_dues_begin();
	look_dues_add(2, 50, 1000, 1000);
}

Test(look_dues, a_walk_is_published_at_its_end)
{
	a_walk_and_the_next_begun();
	cr_assert_eq(look_dues_count(), 1, "the last walk's list until then");
	cr_assert(due(1005, 10), "the last walk's job");
	look_dues_end();
	cr_assert_eq(look_dues_count(), 1);
	cr_assert_not(due(1049, 10));
	cr_assert(due(1050, 10));
}

Test(look_dues, a_failed_walk_keeps_the_last_list)
{
	a_walk_and_the_next_begun();
	look_dues_fail();
	look_dues_end();
	cr_assert_eq(look_dues_count(), 1);
	cr_assert(due(1005, 10));
	cr_assert_eq(look_dues_count(), 0);
}
