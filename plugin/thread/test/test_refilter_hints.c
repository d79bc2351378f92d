/*
 * test_refilter_hints.c - the hints of job_modify() (plugin/thread/hints.h) and
 * how the thread's plan takes them, against the node table of
 * test_refilter_fixture.h:
 *   - taken only when trusted, only up to `upto`, and only where the loaded
 *     job shows the update applied (its ExcNodeList, its hold);
 *   - a task split out of an array: its hints are not the array record's;
 *   - hints_newer / hints_take: which plans an update makes stale, the
 *     bytes and the bound of the set;
 *   - a list built when its update is sent, refused when the table
 *     changed since the plan.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <slurm/slurm.h>

#include "test_refilter_fixture.h"

TestSuite(refilter, .init = round_setup, .fini = round_teardown);

/* ------------------------------------------------------- ExcNodeList hints */

/* Job 5, to which the plugin gave n[3-4], and an update (by its owner:
 * `trusted`) that set ExcNodeList=n1: job_modify() added the plugin's
 * n[3-4], and the job shows n[1,3-4] applied.  Planned with the update's
 * hint: the job's only update. */
static const struct job_update *n1_applied(bool trusted)
{
	jobs = one_job(5, "n[1,3-4]", TWO_OF_FOUR, false, "");
	plugin_wrote(&jobs->job_array[0], "n[3-4]");
	add_hint(&hints, exc_hint(5, trusted, "n[1,3-4]", "n1"));
	plan(t, jobs, &hints, hints.seq, NULL, &p);
	return only_update(&p, 5);
}

/* The owner set ExcNodeList=n1; job_modify() added the plugin's n[3-4]. */
Test(refilter, an_applied_trusted_exclusion_becomes_the_users)
{
	const struct job_update *u = n1_applied(true);
	struct sx_job_state st;

	cr_assert_null(u->exc_nodes, "ExcNodeList changed to '%s'",
		       u->exc_nodes);
	cr_assert_eq(u->priority, NO_VAL);
	planned_state(u, &st);
	cr_assert_str_eq(st.exclude, "n1");
	cr_assert_str_eq(st.status, ONE_OF_FOUR);
	sx_job_state_free(&st);
}

/* Job 5 as the plugin left it, ExcNodeList n[3-4], and the hint of an
 * update that set ExcNodeList=`set` (`user` the user's own part, by its
 * owner: `trusted`) which Slurm then refused: the round planned with it. */
static void refused_update_planned(bool trusted, const char *set,
				   const char *user)
{
	jobs = one_job(5, "n[3-4]", TWO_OF_FOUR, false, "");
	add_hint(&hints, exc_hint(5, trusted, set, user));
	plan(t, jobs, &hints, hints.seq, NULL, &p);
}

/* Slurm refused the update: the job's ExcNodeList is still n[3-4]. */
Test(refilter, a_refused_exclusion_is_not_taken)
{
	refused_update_planned(true, "n[1,3-4]", "n1");
	cr_assert_eq(p.n, 0, "%zu updates", p.n);
	cr_assert_eq(p.known.count, 1);
	cr_assert_str_eq(p.known.jobs[0].st.exclude, "");
}

/* On 22.05 an update by someone not the owner (an operator, a
 * coordinator: Slurm let them) is untrusted: its hint is not kept, and
 * the job's list, changed since the plugin wrote it, is taken whole as
 * the user's (never written back). */
Test(refilter, an_applied_exclusion_of_an_operator_is_taken_whole)
{
	jobs = one_job(5, "n[1,3-4]", TWO_OF_FOUR, false, "");
	plugin_wrote(&jobs->job_array[0], "n[3-4]");
	cr_assert(
		hints_add(&hints, &(struct job_hint){
					  .id = 5,
					  .task = NO_VAL,
					  .offset = NO_VAL,
					  .exc = true,
					  .exc_hash = hostlist_hash("n[1,3-4]"),
				  }));
	cr_assert_eq(hints.n, 1);
	cr_assert_not(hints.v[0].exc,
		      "an untrusted hint is kept without its list");
	plan(t, jobs, &hints, hints.seq, NULL, &p);
	cr_assert_null(only_update(&p, 5)->exc_nodes);
	cr_assert_str_eq(known_job_find(&p.known, 5)->st.exclude, "n[1,3-4]");
}

/* 22.05: the owner set ExcNodeList=n1 (the plugin added n[3-4]); another
 * user then re-sent the list the job shows, n[1,3-4], which Slurm
 * refused after job_modify().  The owner's part stays n1: before, the
 * other user's hint, naming the very list the job had, made all of it
 * the owner's, and the job never used n3 or n4 again. */
Test(refilter, another_users_resent_list_never_becomes_the_owners)
{
	struct job_hint owners = exc_hint(5, true, "n[1,3-4]", "n1"),
			others = exc_hint(5, false, "n[1,3-4]", "n[1,3-4]");

	jobs = one_job(5, "n[1,3-4]", TWO_OF_FOUR, false, "");
	plugin_wrote(&jobs->job_array[0], "n[3-4]");
	add_hint(&hints, owners);
	cr_assert(hints_add(&hints, &others));
	plan(t, jobs, &hints, hints.seq, NULL, &p);
	cr_assert_str_eq(known_job_find(&p.known, 5)->st.exclude, "n1");
}

/* A trusted update whose caller is not the job's owner, root or SlurmUser
 * (Slurm checked it against another job than the one it named to the
 * plugin, or an operator's) that re-sent the list the job has: its
 * content is not taken, and the plugin's n[3-4] never become the owner's
 * own.  root's and SlurmUser's are (privileged). */
Test(refilter, a_list_of_another_caller_is_not_the_owners)
{
	struct job_hint other = exc_hint(5, true, "n[3-4]", "n[3-4]");

	other.caller = 2000;
	jobs = one_job(5, "n[3-4]", TWO_OF_FOUR, false, "");
	add_hint(&hints, other);
	plan(t, jobs, &hints, hints.seq, NULL, &p);
	cr_assert_str_eq(known_job_find(&p.known, 5)->st.exclude, "");
	plan_free(&p);

	other = exc_hint(5, true, "n[3-4]", "n[3-4]");
	other.caller = 0;
	other.privileged = true;
	add_hint(&hints, other);
	plan(t, jobs, &hints, hints.seq, NULL, &p);
	cr_assert_str_eq(known_job_find(&p.known, 5)->st.exclude, "n[3-4]");
}

/* Hints after `upto` wait for the next round. */
Test(refilter, hints_beyond_upto_are_not_taken)
{
	const struct job_update *u;
	struct sx_job_state st;
	uint64_t before;

	jobs = one_job(5, "n[1,3-4]", TWO_OF_FOUR, false, "");
	plugin_wrote(&jobs->job_array[0], "n[3-4]");
	add_hint(&hints, exc_hint(99, true, "n2", NULL)); /* another job */
	before = hints.seq;
	add_hint(&hints, exc_hint(5, true, "n[1,3-4]", "n1"));
	cr_assert_gt(hints.seq, before);

	/* without its hint: the job's list changed since the plugin wrote
	 * it, so all of it is the user's (never written back) */
	plan(t, jobs, &hints, before, NULL, &p);
	u = only_update(&p, 5);
	cr_assert_null(u->exc_nodes);
	planned_state(u, &st);
	cr_assert_str_eq(st.exclude, "n[1,3-4]");
	sx_job_state_free(&st);
	plan_free(&p);

	/* up to the second hint: taken */
	plan(t, jobs, &hints, hints.seq, NULL, &p);
	u = only_update(&p, 5);
	cr_assert_null(u->exc_nodes);
	planned_state(u, &st);
	cr_assert_str_eq(st.exclude, "n1");
	sx_job_state_free(&st);
}

/* ------------------------------------------------------- hints_newer */

Test(refilter, hints_newer_names_the_job_by_any_of_its_ids)
{
	struct hints taken;
	struct job_hint h = { .task = NO_VAL,
			      .offset = NO_VAL,
			      .trusted = true };
	const uint32_t task_ids[3] = { 130, 123, 0 }; /* task 123_4 */
	uint64_t since = hints.seq, first;

	h.id = 999; /* another job */
	add_hint(&hints, h);
	first = hints.seq;
	cr_assert_not(hints_newer(&hints, task_ids, 1000, since));
	h.id = 123; /* the array */
	add_hint(&hints, h);
	cr_assert(hints_newer(&hints, task_ids, 1000, since));
	cr_assert(hints_newer(&hints, task_ids, 1000, first));
	cr_assert_not(hints_newer(&hints, task_ids, 1000, hints.seq),
		      "planned after the hint: not stale");

	/* the first hint taken; the array's still there */
	hints_take(&hints, first, &taken);
	cr_assert_eq(taken.n, 1);
	cr_assert_eq(taken.v[0].id, 999);
	cr_assert_eq(hints.n, 1);
	cr_assert_eq(hints.v[0].id, 123);
	cr_assert(hints_newer(&hints, task_ids, 1000, since));
	hints_free(&taken);

	/* all taken: gone from the set */
	hints_take(&hints, hints.seq, &taken);
	cr_assert_eq(taken.n, 1);
	cr_assert_eq(taken.v[0].id, 123);
	cr_assert_eq(hints.n, 0);
	cr_assert_not(hints_newer(&hints, task_ids, 1000, since));
	hints_free(&taken);
}

Test(refilter, a_taken_hint_gives_back_its_bytes)
{
	struct hints taken;

	add_hint(&hints, exc_hint(5, true, "n[1,3-4]", "n1"));
	cr_assert_eq(hints.bytes, sizeof("n1"));
	hints_take(&hints, hints.seq, &taken);
	cr_assert_eq(hints.bytes, 0);
	cr_assert_eq(taken.n, 1);
	cr_assert_str_eq(taken.v[0].user_exc, "n1");
	hints_free(&taken);
}

/* A hint dropped over the bound (HINTS_BYTES of user exclusions): every
 * update planned before it is stale, whatever job it names. */
Test(refilter, a_dropped_hint_makes_every_earlier_plan_stale)
{
	struct job_hint big = exc_hint(1, true, "n1", NULL),
			over = exc_hint(2, true, "n1", "n[100-200]");
	const uint32_t other[3] = { 5, 0, 0 };
	size_t len = HINTS_BYTES - 10;
	uint64_t since;

	big.user_exc = malloc(len + 1);
	memset(big.user_exc, 'x', len);
	big.user_exc[len] = '\0';
	add_hint(&hints, big);
	cr_assert_eq(hints.bytes, len + 1);
	since = hints.seq;
	cr_assert_not(hints_newer(&hints, other, 1000, since));

	cr_assert_not(hints_add(&hints, &over), "over the bound: dropped");
	cr_assert_null(over.user_exc, "freed when dropped");
	cr_assert_eq(hints.n, 1);
	cr_assert_eq(hints.lost_seq, hints.seq);
	cr_assert(hints_newer(&hints, other, 1000, since));
	cr_assert_not(hints_newer(&hints, other, 1000, hints.seq));
}

/* ------------------------------------------- a task split out of an array */

/*
 * An update naming one task, 123_4, of a pending array record splits the
 * task out as a record of its own (here job 130; doc/guard.md "Updates"):
 * the array record left, 123_[1-3,5-7], was not updated, so the hint must
 * not be taken on it: hint_names() takes a task's hint on a pending array
 * record only while its array_bitmap still holds the task.  (Before it
 * asked, these two failed:
 *   - a user's hold of 123_4 cleared held=1 of the array record the plugin
 *     held: the plugin never released 123_[1-3,5-7];
 *   - a user's ExcNodeList for 123_4 that happened to give the array
 *     record's own list became the array record's user exclusions.)
 */

/* Array record 123 (tasks 1-3,5-7) and its task 4 split out as job 130,
 * both with ExcNodeList `exc`, state `status`, `held` and `exclude`. */
static job_info_msg_t *array_with_split_task(const char *exc,
					     const char *status, bool held,
					     const char *exclude)
{
	job_info_msg_t *m = jobs_new(2);
	slurm_job_info_t *meta = &m->job_array[0], *task = &m->job_array[1];

	job_set(meta, 123, exc, status, held, exclude);
	meta->array_job_id = 123;
	meta->array_bitmap = slurm_bit_alloc(8);
	for (int b = 1; b < 8; b++)
		if (b != 4)
			slurm_bit_set(meta->array_bitmap, b);
	job_set(task, 130, exc, status, held, exclude);
	job_array_task(task, 123, 4);
	return m;
}

Test(refilter, a_hold_of_a_split_task_leaves_the_array_records_hold)
{
	struct job_hint h = { .id = 123,
			      .task = 4,
			      .offset = NO_VAL,
			      .caller = 1000, /* the job's owner */
			      .trusted = true,
			      .hold = true };
	const struct job_update *u;
	struct sx_job_state st;

	jobs = array_with_split_task("n[3-4]", HELD_STATUS, true, "");
	/* both held by the plugin for their required node n1, which now
	 * matches; the user then held 123_4 */
	for (int k = 0; k < 2; k++) {
		jobs->job_array[k].req_nodes = strdup("n1");
		jobs->job_array[k].priority = 0;
		jobs->job_array[k].state_reason = WAIT_HELD_USER;
	}
	add_hint(&hints, h);
	plan(t, jobs, &hints, hints.seq, NULL, &p);
	u = update_of(&p, 130);
	cr_assert_eq(u->priority, NO_VAL, "the user's hold of 123_4 kept");
	u = update_of(&p, 123);
	cr_assert_eq(u->priority, INFINITE,
		     "the plugin's hold of 123_[1-3,5-7] not released");
	planned_state(u, &st);
	cr_assert_not(st.held);
	sx_job_state_free(&st);
}

Test(refilter, an_exclusion_of_a_split_task_is_not_the_array_records)
{
	struct job_hint h = exc_hint(123, true, "n[1,3-4]", "n[1,3]");

	jobs = array_with_split_task("n[1,3-4]", ONE_OF_FOUR, false, "n1");
	/* `scontrol update job=123_4 ExcNodeList=n[1,3]`, the plugin's
	 * n[3-4] added: the same list as the array record's */
	h.task = 4;
	add_hint(&hints, h);
	plan(t, jobs, &hints, hints.seq, NULL, &p);
	cr_assert_str_eq(known_job_find(&p.known, 130)->st.exclude, "n[1,3]");
	cr_assert_str_eq(known_job_find(&p.known, 123)->st.exclude, "n1");
}

/* The thread takes the hints every round, most rounds from none at all
 * (their array not allocated yet): found by UBSan inside slurmctld. */
Test(refilter, taking_from_no_hints_takes_none)
{
	struct hints taken;

	hints_take(&hints, 5, &taken);
	cr_assert_eq(taken.n, 0);
	cr_assert_null(taken.v);
	cr_assert_eq(hints.n, 0);
	cr_assert_eq(hints.lost_seq, 0);
	hints_free(&taken);
}

/* An untrusted hint (22.05: another user's update, refused by Slurm after
 * job_modify()) on a job whose list is the one the plugin wrote: nothing
 * taken, nothing written. */
Test(refilter, a_strangers_refused_exclusion_changes_nothing)
{
	refused_update_planned(false, "n[3-4]", "n3");
	cr_assert_eq(p.n, 0, "%zu updates", p.n);
	cr_assert_str_eq(p.known.jobs[0].st.exclude, "");
}

/* 22.05: another user's updates (refused by Slurm after job_modify())
 * never make the thread's update stale: a loop of them would keep the job
 * from ever being re-filtered. */
Test(refilter, an_untrusted_update_makes_nothing_stale)
{
	struct job_hint h = { .id = 7, .task = NO_VAL, .offset = NO_VAL };
	const uint32_t ids[3] = { 7, 0, 0 };

	for (int i = 0; i < 100; i++)
		add_hint(&hints, h);
	cr_assert_eq(hints.n, 1, "kept once, without content");
	cr_assert_not(hints.v[0].exc);
	cr_assert_not(hints_newer(&hints, ids, 1000, 0));
	h.trusted = true;
	add_hint(&hints, h);
	cr_assert(hints_newer(&hints, ids, 1000, 0));
}

/* ------------------------------------------------------- bounds */

/* One owner's flood of hints (updates of HINTS_PER_OWNER + 1 distinct
 * jobs of theirs in one round) drops their next hint: the thread's plans
 * of that owner's jobs are stale, nobody else's; before, the set's bound
 * was all there was, and one user's flood made every update of the
 * thread stale, round after round. */
Test(refilter, one_owners_flood_makes_only_their_jobs_stale)
{
	const uint32_t theirs[3] = { 1, 0, 0 }, others[3] = { 77777, 0, 0 };
	uint64_t since = hints.seq;
	struct job_hint h = {
		.task = NO_VAL, .offset = NO_VAL, .owner = 2000, .trusted = true
	};

	for (uint32_t i = 0; i < HINTS_PER_OWNER; i++) {
		h.id = 100000 + i;
		add_hint(&hints, h);
	}
	cr_assert_eq(hints.losses, 0);
	h.id = 99;
	cr_assert_not(hints_add(&hints, &h), "past the owner's bound");
	cr_assert_eq(hints.losses, 1);
	cr_assert_eq(hints.lost_seq, 0, "not a loss for all");
	cr_assert(hints_newer(&hints, theirs, 2000, since), "their job");
	cr_assert_not(hints_newer(&hints, others, 1000, since),
		      "another owner's job");
	/* another owner's hints are still kept */
	h.owner = 1000;
	add_hint(&hints, h);
	cr_assert_eq(hints.n, HINTS_PER_OWNER + 1);
	/* taken, the owner's count starts again; their loss still makes
	 * plans from before it stale, and none after */
	{
		struct hints taken;
		uint64_t upto = hints.seq;

		hints_take(&hints, upto, &taken);
		cr_assert_eq(taken.n, HINTS_PER_OWNER + 1);
		hints_free(&taken);
		cr_assert_not(hints_newer(&hints, theirs, 2000, upto));
		h.owner = 2000;
		h.id = 5;
		add_hint(&hints, h);
		cr_assert_eq(hints.losses, 1);
	}
}

/* The same hint again (its update applied to record after record) moves
 * the last one's seq on; a different one is kept apart. */
Test(refilter, the_same_hint_again_is_one_hint)
{
	struct job_hint h = exc_hint(5, true, "n[1,3-4]", "n1"),
			again = exc_hint(5, true, "n[1,3-4]", "n1"),
			other = exc_hint(5, true, "n[1,3-4]", "n3");

	add_hint(&hints, h);
	add_hint(&hints, again);
	cr_assert_eq(hints.n, 1);
	cr_assert_eq(hints.v[0].seq, 2);
	cr_assert_eq(hints.bytes, 3, "one user list kept");
	add_hint(&hints, other);
	cr_assert_eq(hints.n, 2);
}

/* A caller's flood of hints of jobs the thread does not filter (their
 * owner unknown to job_modify(): counted as the caller's; on 22.05 also
 * another user's updates Slurm refuses) costs only the caller's jobs: no
 * loss for everyone, whose updates would then all be refused. */
Test(refilter, a_callers_flood_of_unknown_jobs_costs_only_theirs)
{
	const uint32_t any[3] = { 77777, 0, 0 };
	struct job_hint h = { .task = NO_VAL, .offset = NO_VAL, .owner = 3000 };

	for (uint32_t i = 0; i <= HINTS_PER_OWNER; i++) {
		h.id = 100000 + 2 * i; /* distinct: no coalescing */
		hints_add(&hints, &h);
	}
	cr_assert_eq(hints.losses, 1);
	cr_assert_eq(hints.lost_seq, 0);
	cr_assert_not(hints_newer(&hints, any, 1000, 0));
}

/* Two updates of one user list not read by name, the plugin's nodes after
 * it differing (the table changed between them): two hints, the last
 * one's text hash kept for it.  Coalesced, the job's list (the last
 * update's) would match no hint, and all of it, the plugin's nodes too,
 * would become the user's. */
Test(refilter, hints_of_unread_lists_differing_in_their_text_are_two)
{
	struct job_hint a = { .id = 5,
			      .task = NO_VAL,
			      .offset = NO_VAL,
			      .caller = 1000,
			      .trusted = true,
			      .exc = true,
			      .exc_text = xc_text_hash("x1,n[3-4]"),
			      .user_exc = strdup("x1") },
			b = a;

	b.exc_text = xc_text_hash("x1,n4");
	b.user_exc = strdup("x1");
	add_hint(&hints, a);
	add_hint(&hints, b);
	cr_assert_eq(hints.n, 2);
	cr_assert_eq(hints.v[1].exc_text, xc_text_hash("x1,n4"));
}

/* ------------------------------------------- lists built when sent */

/* A round holds no ExcNodeList: each update keeps how to build it, and
 * the thread builds it as it sends (job_update_build).  Built on the table
 * of the plan it is the list planned; on a table whose nodes changed since
 * it is refused (-1: the next round plans again), never sent stale. */
Test(refilter, a_list_is_built_when_sent_and_refused_if_stale)
{
	struct job_update *ups = NULL;
	struct refilter_stats stats = { 0 };
	size_t n = 0;

	jobs = one_job(5, NULL, "new", false, "");
	cr_assert_eq(
		refilter_plan(&(struct refilter_in){ .table = t, .jobs = jobs },
			      &(struct refilter_out){ .updates = &ups,
						      .n = &n,
						      .stats = &stats }),
		0);
	cr_assert_eq(n, 1);
	cr_assert(ups[0].exc_lazy);
	cr_assert_null(ups[0].exc_nodes, "no list held by the plan");
	cr_assert_str_eq(ups[0].exc_request, REQUEST);
	/* n3 comes to match: the list planned (n[3-4]) is stale */
	cr_assert_eq(xc_nodes_update(t, 2, "{\"gpu\":true}", NULL), 1);
	cr_assert_eq(job_update_build(t, NULL, &ups[0]), -1);
	cr_assert_null(ups[0].exc_nodes);
	/* as it was: built, and the recipe gone */
	cr_assert_eq(xc_nodes_update(t, 2, "{\"gpu\":false}", NULL), 1);
	cr_assert_eq(job_update_build(t, NULL, &ups[0]), 0);
	cr_assert_str_eq(ups[0].exc_nodes, "n[3-4]");
	cr_assert_not(ups[0].exc_lazy);
	cr_assert_null(ups[0].exc_request);
	job_updates_free(ups, n);
}
