/*
 * test_census.c - the caps on distinct pending requests (plugin/census.c,
 * doc/design.md "Caps"): what is admitted, what is refused and why, and
 * how a round's census replaces what was admitted before it.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "census.h"

static char why[512];

/* A pending job of user `uid` whose request hashes to `hash` (the job
 * id only names it here). */
static struct census_job job(uint32_t id, uint32_t uid, uint64_t hash)
{
	(void)id;
	return (struct census_job){ .uid = uid, .hash = hash };
}

/* The pending jobs a census is counted from. */
struct jobs {
	struct census_job *v;
	size_t n;
};

/* The census of `known` (NULL: no job), as it is made from the pending
 * jobs: entries admitted up to `upto` are in them. */
static void counted(struct census *c, const struct jobs *known, uint64_t upto)
{
	struct census fresh;

	cr_assert_eq(census_count_jobs(known ? known->v : NULL,
				       known ? known->n : 0, &fresh),
		     0);
	census_take(c, &fresh, upto);
}

/* census_admit() with `why` for its message. */
static int admit(struct census *c, uint32_t uid, uint64_t hash,
		 size_t max_total, size_t max_user)
{
	return census_admit(c, uid, hash, max_total, max_user, why,
			    sizeof(why));
}

Test(census, a_user_past_the_per_user_cap_is_refused)
{
	struct census c = { 0 };

	counted(&c, NULL, 0);
	cr_assert_eq(admit(&c, 1, 10, 0, 2), 0);
	cr_assert_eq(admit(&c, 1, 11, 0, 2), 0);
	cr_assert_eq(admit(&c, 1, 12, 0, 2), 1);
	cr_assert(strstr(why, "user 1 has 2 distinct requests pending") &&
			  strstr(why, "MaxPendingRequestsPerUser=2"),
		  "%s", why);
	/* a request the user has pending already, and another user */
	cr_assert_eq(admit(&c, 1, 11, 0, 2), 0);
	cr_assert_eq(admit(&c, 2, 12, 0, 2), 0);
	census_free(&c);
}

Test(census, a_new_request_past_the_total_cap_is_refused)
{
	struct census c = { 0 };

	counted(&c, NULL, 0);
	cr_assert_eq(admit(&c, 1, 10, 2, 0), 0);
	cr_assert_eq(admit(&c, 2, 11, 2, 0), 0);
	/* someone's pending request: taken by anyone */
	cr_assert_eq(admit(&c, 3, 10, 2, 0), 0);
	cr_assert_eq(admit(&c, 3, 12, 2, 0), 1);
	cr_assert(strstr(why, "2 distinct requests are pending") &&
			  strstr(why, "MaxPendingRequests=2"),
		  "%s", why);
	census_free(&c);
}

Test(census, zero_is_no_cap)
{
	struct census c = { 0 };

	counted(&c, NULL, 0);
	for (uint64_t h = 1; h <= 100; h++)
		cr_assert_eq(admit(&c, 1, h, 0, 0), 0);
	census_free(&c);
}

/* A round's census counts the loaded jobs; what was admitted up to the
 * sequence read before the load is in them and goes, what came after
 * stays counted. */
Test(census, a_round_replaces_what_its_jobs_hold)
{
	struct census c = { 0 };
	struct census_job jobs[3] = { job(1, 1, 10), job(2, 1, 10),
				      job(3, 2, 11) };
	struct jobs known = { jobs, 3 };
	uint64_t upto;

	counted(&c, NULL, 0);
	cr_assert_eq(admit(&c, 1, 10, 100, 100), 0);
	upto = c.seq; /* read before the look walks the jobs */
	cr_assert_eq(admit(&c, 1, 20, 100, 100), 0);
	counted(&c, &known, upto);
	cr_assert_eq(c.npairs, 2);
	cr_assert_eq(c.nall, 2);
	cr_assert_eq(c.nrecent, 1); /* 20: submitted after the load */
	cr_assert_eq(c.recent_new, 1);
	/* user 1 has 10 and 20: a third is past a cap of 2, 10 is not */
	cr_assert_eq(admit(&c, 1, 30, 0, 2), 1);
	cr_assert_eq(admit(&c, 1, 10, 0, 2), 0);
	/* 10, 11 and 20 are pending: a fourth is past a total of 3 */
	cr_assert_eq(admit(&c, 3, 40, 3, 0), 1);
	cr_assert_eq(admit(&c, 3, 20, 3, 0), 0);
	/* the next round's jobs hold 20: it leaves the admitted ones */
	jobs[1].hash = 20;
	counted(&c, &known, c.seq);
	cr_assert_eq(c.nrecent, 0);
	cr_assert_eq(c.nall, 3);
	cr_assert_eq(c.recent_new, 0);
	census_free(&c);
}

/* No census yet (slurmctld just started), or its count failed: nothing to
 * count against, so nothing is refused until the next count. */
Test(census, nothing_is_refused_without_a_census)
{
	struct census c = { 0 };

	cr_assert_eq(admit(&c, 1, 10, 1, 1), 0);
	cr_assert_eq(admit(&c, 1, 11, 1, 1), 0);
	counted(&c, NULL, c.seq);
	cr_assert_eq(admit(&c, 1, 10, 1, 1), 0);
	cr_assert_eq(admit(&c, 1, 11, 1, 1), 1);
	census_invalidate(&c);
	cr_assert_eq(admit(&c, 1, 11, 1, 1), 0);
	census_free(&c);
}

/* MaxPreferringJobsPerUser: a user's pending jobs with preferences,
 * counted from the census (jobs, not distinct requests) and those admitted
 * since; past it, refused with a message naming the setting. */
Test(census, a_user_past_the_preferring_cap_is_refused)
{
	struct census c = { 0 };
	struct census_job v[3] = { job(1, 1, 10), job(2, 1, 10),
				   job(3, 2, 11) };
	struct jobs known = { v, 3 };

	v[0].prefers = v[1].prefers = true; /* user 1: two with some */
	counted(&c, &known, 0);
	cr_assert_eq(census_admit_prefer(&c, 1, 3, why, sizeof(why)), 0);
	cr_assert_eq(census_admit_prefer(&c, 1, 3, why, sizeof(why)), 1,
		     "two pending and one admitted since");
	cr_assert(strstr(why, "user 1 has 3 pending jobs with preferences") &&
			  strstr(why, "MaxPreferringJobsPerUser=3"),
		  "%s", why);
	cr_assert_eq(census_admit_prefer(&c, 2, 3, why, sizeof(why)), 0,
		     "user 2's job has none");
	cr_assert_eq(census_admit_prefer(&c, 1, 0, why, sizeof(why)), 0,
		     "0: no cap");
	/* the next census holds what was admitted up to its load */
	v[0].prefers = false;
	counted(&c, &known, c.seq);
	cr_assert_eq(census_admit_prefer(&c, 1, 3, why, sizeof(why)), 0);
	cr_assert_eq(census_admit_prefer(&c, 1, 3, why, sizeof(why)), 0);
	cr_assert_eq(census_admit_prefer(&c, 1, 3, why, sizeof(why)), 1);
	census_free(&c);
}

/* No census yet (or its count failed): nothing is refused. */
Test(census, no_census_no_preferring_cap)
{
	struct census c = { 0 };

	for (int i = 0; i < 5; i++)
		cr_assert_eq(census_admit_prefer(&c, 1, 1, why, sizeof(why)),
			     0);
	census_free(&c);
}

/* census_count_jobs(): where Slurm filters, the jobs with preferences
 * alone, their hashes as the distinct caps count them. */
Test(census, counted_from_the_jobs_with_preferences)
{
	struct census c = { 0 }, fresh;
	struct census_job v[2] = { { .uid = 1, .hash = 10, .prefers = true },
				   { .uid = 1, .hash = 10, .prefers = true } };

	cr_assert_eq(census_count_jobs(v, 2, &fresh), 0);
	census_take(&c, &fresh, 0);
	cr_assert_eq(c.nall, 1, "one distinct request");
	cr_assert_eq(census_admit_prefer(&c, 1, 2, why, sizeof(why)), 1,
		     "two jobs with preferences");
	census_free(&c);
}
