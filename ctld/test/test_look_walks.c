/*
 * test_look_walks.c - when the look walks and what it carries
 * (ctld/look.c): a walk of every job on Slurm's job stamp, at most once
 * in its interval; the jobs a change of Extra makes it visit; a job that
 * runs kept for a requeue but not carried.
 */
#include "look_fixture.h"

TestSuite(look, .init = setup, .fini = teardown);

/* A walk begins when Slurm's job stamp moved, either way, since the last
 * walk began; when it is unmoved in that walk's own second, once the
 * second has passed (a change after the walk began leaves the stamp as
 * it was); never again while the second lasts; and after a clock set
 * back. */
Test(look, a_walk_follows_the_job_stamp_once_a_second)
{
	/* (stamp, seen at the walk's start, the walk's second, now) */
	cr_assert(look_jobs_changed(101, 99, 100, 101), "stamped after it");
	cr_assert(look_jobs_changed(5, 0, 0, 5), "no walk yet");
	cr_assert(look_jobs_changed(100, 99, 100, 100),
		  "stamped in its own second, since it began");
	cr_assert_not(look_jobs_changed(100, 100, 100, 100),
		      "unmoved in its own second, the second under way");
	cr_assert(look_jobs_changed(100, 100, 100, 101),
		  "unmoved in its own second, passed: once more");
	cr_assert_not(look_jobs_changed(100, 100, 101, 102),
		      "that walk began after the stamp's second");
	cr_assert_not(look_jobs_changed(99, 99, 100, 250), "nothing since");
	cr_assert(look_jobs_changed(99, 100, 100, 101),
		  "moved back (backfill writes a second read before a yield)");
	cr_assert(look_jobs_changed(99, 99, 100, 90), "the clock set back");
	cr_assert_not(look_jobs_changed(199, 199, 100, 150),
		      "a stamp ahead of a clock set back: one walk, not more");
}

/* A walk of every job follows the stamp at most once in
 * LOOK_WHOLE_EVERY_S; before the first and on work left at once; a clock
 * set back behind the last one does not wait for it. */
Test(look, a_whole_walk_waits_its_interval)
{
	const long long at = 1000, every = LOOK_WHOLE_EVERY_S;

	cr_assert(look_whole_due(false, false, 0, 5), "none yet");
	cr_assert(look_whole_due(false, true, at, at), "work left");
	cr_assert_not(look_whole_due(false, false, at, at + 10 * every),
		      "nothing wanted");
	cr_assert_not(look_whole_due(true, false, at, at),
		      "wanted, in the walk's own second");
	cr_assert_not(look_whole_due(true, false, at, at + every - 1),
		      "wanted, the interval not over");
	cr_assert(look_whole_due(true, false, at, at + every),
		  "wanted, the interval over");
	cr_assert(look_whole_due(true, false, at, at - 1),
		  "wanted, the clock set back");
}

/* What a change of the nodes' Extra makes a walk of what changed visit:
 * exactly the jobs whose set the look wrote or gave, not those it only
 * knows (asked for a set, or whose set it gave back); the count says
 * how much room the ids want. */
Test(look, the_jobs_carried_are_those_it_wrote)
{
	uint64_t own[WORDS] = { 0 }, given[WORDS] = { 0 }, back[WORDS] = { 0 };
	uint32_t ids[8] = { 0 }, one;
	int r = answers("a=1", (unsigned[]){ 3, 70, NODES });
	bool seen[4] = { false };

	set(own, 100);
	cr_assert_eq(look_job_apply(lk, 11, 0, r, own, 7, false),
		     LOOK_WRITTEN); /* its own set */
	cr_assert_eq(look_job_apply(lk, 12, 0, r, NULL, 7, true),
		     LOOK_NEED_SET); /* none yet */
	cr_assert_eq(look_job_apply(lk, 15, 0, r, NULL, 7, true),
		     LOOK_NEED_SET);
	look_job_set_given(lk, 15, true); /* given, not yet written */
	cr_assert_eq(look_jobs_carried(lk, ids, 8), 2, "11 and the given 15");
	cr_assert(ids[0] == 15 || ids[1] == 15);
	look_job_forget(lk, 15);
	cr_assert_eq(look_job_apply(lk, 13, 0, r, NULL, 7, true),
		     LOOK_NEED_SET);
	cr_assert_eq(look_job_apply(lk, 13, 0, r, given, 7, true),
		     LOOK_WRITTEN);
	look_job_set_given(lk, 13, true); /* a set given */
	cr_assert_eq(look_job_apply(lk, 14, 0, r, NULL, 7, true),
		     LOOK_NEED_SET);
	cr_assert_eq(look_job_apply(lk, 14, 0, r, back, 7, true), LOOK_WRITTEN);
	look_job_set_given(lk, 14, true);
	look_job_set_given(lk, 14, false); /* and taken back */
	cr_assert_eq(look_jobs_kept(lk), 4);
	cr_assert_eq(look_jobs_carried(lk, &one, 1), 2, "room for one");
	cr_assert_eq(look_jobs_carried(lk, ids, 8), 2);
	for (size_t k = 0; k < 2; k++) {
		cr_assert(ids[k] >= 11 && ids[k] <= 14);
		seen[ids[k] - 11] = true;
	}
	cr_assert(seen[0] && seen[2], "the own set and the given one");
	cr_assert(!seen[1] && !seen[3]);
	look_job_forget(lk, 11);
	cr_assert_eq(look_jobs_carried(lk, ids, 8), 1);
	cr_assert_eq(ids[0], 13);
}

/* A job that runs is kept, not carried: requeued, its set is told from
 * Slurm's (the look's nodes are not taken for the user's) and written
 * whole. */
Test(look, a_running_job_is_kept_not_carried)
{
	uint64_t bits[WORDS] = { 0 };
	uint32_t ids[2] = { 0 };
	int r = answers("a=1", (unsigned[]){ 3, 70, NODES });

	set(bits, 100); /* the user's own */
	cr_assert_eq(look_job_apply(lk, 31, 0, r, bits, 7, false),
		     LOOK_WRITTEN);
	look_job_park(lk, 31);
	cr_assert(look_job_kept(lk, 31));
	cr_assert_not_null(look_job_base(lk, 31, bits, 7),
			   "its base still told, for a placement");
	cr_assert_eq(look_jobs_carried(lk, ids, 2), 0);
	/* requeued, its set as it was: the base is still the user's */
	cr_assert_eq(look_job_apply(lk, 31, 0, r, bits, 7, false),
		     LOOK_WRITTEN);
	cr_assert(has(bits, 3) && has(bits, 70) && has(bits, 100));
	cr_assert_eq(look_jobs_carried(lk, ids, 2), 1);
	/* and a node that comes to satisfy it leaves the set */
	r = answers("a=1", (unsigned[]){ 70, NODES });
	cr_assert_eq(look_job_apply(lk, 31, 0, r, bits, 7, false),
		     LOOK_PATCHED);
	cr_assert(!has(bits, 3), "the look's node, not taken for the user's");
	cr_assert(has(bits, 70) && has(bits, 100));
}

/* A job without a set whose request no node fails is carried too: a
 * change that makes a node fail it must find that it wants one. */
Test(look, a_job_needing_no_set_yet_is_carried)
{
	uint32_t ids[2] = { 0 };
	int r = answers("a=1", (unsigned[]){ NODES });

	cr_assert_eq(look_job_apply(lk, 21, 0, r, NULL, 7, true), LOOK_SAME);
	cr_assert_eq(look_jobs_carried(lk, ids, 2), 1);
	cr_assert_eq(ids[0], 21);
}
