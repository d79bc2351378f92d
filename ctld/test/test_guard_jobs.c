/*
 * test_guard_jobs.c - what the guard at placement remembers of each job
 * (ctld/guard_jobs.c): its own bits taken back only from a bitmap it
 * left, whatever Slurm did with the bitmap in between (a rebuild,
 * backfill's copy with its reservations, an array's next record), jobs
 * forgotten once gone, the records bounded.
 */
#include "guard_fixture.h"

/* Clears node `node` of a job's excluded nodes, for the take-back. */
static void bclear(void *bits, uint32_t node, void *arg)
{
	(void)arg;
	((struct bits *)bits)->b[node] = false;
}

/* The guard's bits come back out of the bitmap it left, and only those:
 * a node the user excluded stays excluded. */
Test(guard, its_own_bits_are_taken_back)
{
	struct bits b = { 0 };
	struct guard_taken t;
	uint32_t added[] = { 2, 5 };

	b.b[7] = true; /* the user's */
	cr_assert_eq(
		guard_job_take_back(g, &ops, 10, 0, &b, 1, &t, bclear, NULL),
		0);
	b.b[2] = b.b[5] = true;
	cr_assert_eq(guard_job_left(g, &ops, 10, &t, &b, 1, added, 2), 1);
	cr_assert_eq(guard_jobs_kept(g), 1);
	cr_assert_eq(
		guard_job_take_back(g, &ops, 10, 0, &b, 1, &t, bclear, NULL),
		2);
	cr_assert_not(b.b[2] || b.b[5]);
	cr_assert(b.b[7]);
	/* nothing added this time: the job is forgotten */
	cr_assert_eq(guard_job_left(g, &ops, 10, &t, &b, 1, NULL, 0), 1);
	cr_assert_eq(guard_jobs_kept(g), 0);
}

/* Slurm rebuilt the bitmap from a new ExcNodeList (the user excluded
 * node 2 since): the guard's old state does not match, node 2 stays. */
Test(guard, a_rebuilt_bitmap_is_left_alone)
{
	struct bits b = { 0 };
	struct guard_taken t = { -1 };
	uint32_t added[] = { 2 };

	b.b[2] = true;
	cr_assert_eq(guard_job_left(g, &ops, 10, &t, &b, 1, added, 1), 1);
	/* the same bits, another text: the user's own list now */
	cr_assert_eq(
		guard_job_take_back(g, &ops, 10, 0, &b, 2, &t, bclear, NULL),
		0);
	cr_assert(b.b[2]);
	/* the same text, other bits */
	b.b[9] = true;
	cr_assert_eq(
		guard_job_take_back(g, &ops, 10, 0, &b, 1, &t, bclear, NULL),
		0);
	cr_assert(b.b[2]);
}

/* Backfill places with the bitmap and its reservations ORed in, then
 * puts back a copy of the bitmap as it was: the guard's bits in that
 * copy (from the main scheduler's placement before) are taken back at
 * the next placement, never backfill's reservations. */
Test(guard, backfill_copy_then_main_scheduler)
{
	struct bits b = { 0 }, saved;
	struct guard_taken t = { -1 };
	uint32_t first[] = { 3 }, during[] = { 4 };

	/* main scheduler: node 3 stopped matching */
	b.b[3] = true;
	cr_assert_eq(guard_job_left(g, &ops, 10, &t, &b, 1, first, 1), 1);
	/* backfill: a copy kept, reservations (node 12) ORed in */
	saved = b;
	b.b[12] = true;
	cr_assert_eq(
		guard_job_take_back(g, &ops, 10, 0, &b, 1, &t, bclear, NULL),
		0);
	cr_assert(b.b[12] && b.b[3]);
	b.b[4] = true; /* node 4 stopped matching too */
	cr_assert_eq(guard_job_left(g, &ops, 10, &t, &b, 1, during, 1), 1);
	/* backfill throws its bitmap away and puts the copy back */
	b = saved;
	/* main scheduler again: node 3's bit goes, the rest was never there */
	cr_assert_eq(
		guard_job_take_back(g, &ops, 10, 0, &b, 1, &t, bclear, NULL),
		1);
	cr_assert_not(b.b[3]);
	cr_assert_not(b.b[4] || b.b[12]);
}

/* An array's next record gets a copy of the bitmap as the guard left it
 * for the array: those bits go from it too. */
Test(guard, an_arrays_next_record)
{
	struct bits b = { 0 }, next;
	struct guard_taken t = { -1 };
	uint32_t added[] = { 6 };

	b.b[6] = true;
	cr_assert_eq(guard_job_left(g, &ops, 100, &t, &b, 1, added, 1), 1);
	next = b;
	cr_assert_eq(guard_job_take_back(g, &ops, 104, 100, &next, 1, &t,
					 bclear, NULL),
		     1);
	cr_assert_not(next.b[6]);
	cr_assert_eq(t.slot, -1);
	/* the array's own record is still remembered */
	cr_assert_eq(
		guard_job_take_back(g, &ops, 100, 0, &b, 1, &t, bclear, NULL),
		1);
}

static bool gone_odd(uint32_t id, void *arg)
{
	(void)arg;
	return id % 2;
}

/* Jobs no longer pending are forgotten a few at a time; a thousand
 * recorded and swept leave only the pending ones, each still found. */
Test(guard, sweep_forgets_jobs_gone)
{
	struct bits b = { 0 };
	struct guard_taken t = { -1 };
	uint32_t added[] = { 1 };
	size_t swept = 0;

	b.b[1] = true;
	for (uint32_t id = 1; id <= 1000; id++)
		cr_assert_eq(guard_job_left(g, &ops, id, &t, &b, 1, added, 1),
			     1);
	cr_assert_eq(guard_jobs_kept(g), 1000);
	for (int k = 0; k < 10000 && guard_jobs_kept(g) > 500; k++) {
		size_t s = guard_jobs_sweep(g, &ops, gone_odd, NULL, 4);

		cr_assert_leq(s, 4);
		swept += s;
	}
	cr_assert_eq(swept, 500);
	cr_assert_eq(guard_jobs_kept(g), 500);
	for (uint32_t id = 2; id <= 1000; id += 2) {
		struct bits c = b;

		cr_assert_eq(guard_job_take_back(g, &ops, id, 0, &c, 1, &t,
						 bclear, NULL),
			     1, "job %u", id);
	}
}

/* Jobs and nodes a job are bounded: past them nothing is recorded (the
 * caller says so in the log). */
Test(guard, records_are_bounded)
{
	struct bits b = { 0 };
	struct guard_taken t = { -1 };
	uint32_t *many = calloc(GUARD_MAX_JOB_NODES + 1, sizeof(*many));

	cr_assert_not_null(many);
	cr_assert_eq(guard_job_left(g, &ops, 1, &t, &b, 1, many,
				    GUARD_MAX_JOB_NODES + 1),
		     0);
	for (uint32_t id = 1; id <= GUARD_MAX_JOBS; id++)
		cr_assert_eq(guard_job_left(g, &ops, id, &t, &b, 1, many, 1),
			     1);
	cr_assert_eq(
		guard_job_left(g, &ops, GUARD_MAX_JOBS + 1, &t, &b, 1, many, 1),
		0);
	cr_assert_eq(guard_jobs_kept(g), GUARD_MAX_JOBS);
	free(many);
}
