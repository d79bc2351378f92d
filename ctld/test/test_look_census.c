/*
 * test_look_census.c - the look's count of the pending jobs with a
 * request (look_census.h), which job_submit/extra reads for the caps
 * where the guard filters alone: none before a whole walk; a walk's
 * count published only at its end, whole; each job's hash the one
 * job_submit() computes for the same request and tiers.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "leakcheck.h"
#include "look_census.h"
#include "prefer.h"

static void teardown(void)
{
	look_census_free();
	xc_leak_check();
}

TestSuite(look_census, .fini = teardown);

Test(look_census, none_before_a_whole_walk)
{
	const struct sx_guard_census_job *jobs;
	size_t n;
	long long at;
	uint64_t walk;

	cr_assert_eq(look_census_get(&jobs, &n, &at, &walk), -1);
	look_census_begin(100);
	look_census_add(1001, "gpu=true", NULL);
	cr_assert_eq(look_census_get(&jobs, &n, &at, &walk), -1,
		     "a walk under way is not published");
}

Test(look_census, a_walk_published_whole_at_its_end)
{
	char *tiers[] = { "fast=1", "fast=2" };
	struct sx_job_state st = { .prefer = tiers, .n_prefer = 2 };
	const struct sx_guard_census_job *jobs;
	size_t n;
	long long at;
	uint64_t walk;

	look_census_begin(100);
	look_census_add(1001, "gpu=true", NULL);
	look_census_add(1001, "gpu=true", &st);
	look_census_add(1002, "gpu=true", &(struct sx_job_state){ 0 });
	look_census_end();
	cr_assert_eq(look_census_get(&jobs, &n, &at, &walk), 0);
	cr_assert_eq(n, 3);
	cr_assert_eq(at, 100);
	cr_assert_eq(walk, 1);
	cr_assert_eq(jobs[0].uid, 1001);
	cr_assert_eq(jobs[0].hash, prefer_census_hash("gpu=true", NULL));
	cr_assert_not(jobs[0].prefers);
	cr_assert_eq(jobs[1].hash, prefer_census_hash("gpu=true", &st));
	cr_assert_neq(jobs[1].hash, jobs[0].hash, "other tiers: another");
	cr_assert(jobs[1].prefers);
	cr_assert_eq(jobs[2].uid, 1002);
	cr_assert_eq(jobs[2].hash, jobs[0].hash);

	/* the next walk: the last stays until it ends */
	look_census_begin(200);
	for (int i = 0; i < 3000; i++) /* (grown past its first block) */
		look_census_add(1003, "mem>=64", NULL);
	cr_assert_eq(look_census_get(&jobs, &n, &at, &walk), 0);
	cr_assert_eq(n, 3);
	cr_assert_eq(at, 100);
	look_census_end();
	cr_assert_eq(look_census_get(&jobs, &n, &at, &walk), 0);
	cr_assert_eq(n, 3000);
	cr_assert_eq(at, 200);
	cr_assert_eq(walk, 2);
	cr_assert_eq(jobs[2999].uid, 1003);

	/* a walk with no job: none pending */
	look_census_begin(300);
	look_census_end();
	cr_assert_eq(look_census_get(&jobs, &n, &at, &walk), 0);
	cr_assert_eq(n, 0);
	cr_assert_eq(walk, 3);
}

/* A walk that could not list its jobs publishes nothing, and leaves the
 * last count as it was, not held to be current; a quiet look (nothing
 * changed since the walk began) publishes the last count again as of
 * now, once a second at most, but not after such a walk. */
Test(look_census, a_failed_walk_and_a_quiet_look)
{
	const struct sx_guard_census_job *jobs;
	size_t n;
	long long at;
	uint64_t walk;

	look_census_still(50); /* none yet: nothing */
	cr_assert_eq(look_census_get(&jobs, &n, &at, &walk), -1);
	look_census_begin(100);
	look_census_add(1001, "gpu=true", NULL);
	look_census_end();
	look_census_still(100);
	cr_assert_eq(look_census_get(&jobs, &n, &at, &walk), 0);
	cr_assert_eq(walk, 1, "the same second: not again");
	look_census_still(105);
	cr_assert_eq(look_census_get(&jobs, &n, &at, &walk), 0);
	cr_assert_eq(walk, 2);
	cr_assert_eq(at, 105);
	cr_assert_eq(n, 1);

	look_census_begin(200);
	look_census_add(1001, "gpu=true", NULL);
	look_census_fail();
	look_census_add(1002, "mem>=64", NULL);
	look_census_end();
	look_census_still(210);
	cr_assert_eq(look_census_get(&jobs, &n, &at, &walk), 0);
	cr_assert_eq(walk, 2, "nothing published after a failed walk");
	cr_assert_eq(at, 105);
	look_census_begin(300);
	look_census_end();
	cr_assert_eq(look_census_get(&jobs, &n, &at, &walk), 0);
	cr_assert_eq(walk, 3);
	cr_assert_eq(n, 0);
}
