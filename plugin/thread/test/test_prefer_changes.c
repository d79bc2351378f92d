/*
 * test_prefer_changes.c - the owners' changes of preferences where Slurm
 * filters (prefer_changes.h; doc/preferences.md "Preferences", "Changing
 * them"): taken from the hints, one per target (the last tiers and the
 * last wait), applied in the order of their updates to the jobs they name
 * (an array's records too), kept while a job does not show them, dropped
 * once every job shows them, when none is pending, past their age, and
 * past the bounds of hints.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "hints.h"
#include "prefer_changes.h"

/* libslurm exports Slurm's bitstring functions; no public header declares
 * them all (slurm_compat.h declares size, test, copy, free). */
extern bitstr_t *slurm_bit_alloc(bitoff_t nbits);
extern void slurm_bit_set(bitstr_t *b, bitoff_t bit);

static struct prefer_changes c;
static struct hints set;

static void teardown(void)
{
	prefer_changes_free(&c);
	hints_free(&set);
}

TestSuite(prefer_changes, .fini = teardown);

/* A trusted change of job `id` by `owner`: `tiers` (NULL: kept) and
 * `wait` (-1: kept), added to `set`. */
static void change(uint32_t id, uint32_t owner, const char *tiers, long wait)
{
	struct job_hint h = { .id = id,
			      .task = NO_VAL,
			      .offset = NO_VAL,
			      .owner = owner,
			      .caller = owner,
			      .trusted = true,
			      .prefer_set = true,
			      .prefer = { .tiers = tiers ? strdup(tiers) : NULL,
					  .wait = wait } };

	cr_assert(hints_add(&set, &h));
}

/* A trusted change of task `task` of array `id` to `tiers`, added to
 * `set`. */
static void task_change(uint32_t id, uint32_t task, const char *tiers)
{
	struct job_hint h = { .id = id,
			      .task = task,
			      .offset = NO_VAL,
			      .owner = 1000,
			      .caller = 1000,
			      .trusted = true,
			      .prefer_set = true,
			      .prefer = { .tiers = strdup(tiers),
					  .wait = -1 } };

	cr_assert(hints_add(&set, &h));
}

/* The hints so far taken into `c` at `now`. */
static void take(time_t now)
{
	struct hints taken;

	hints_take(&set, set.seq, &taken);
	prefer_changes_take(&c, &taken, now);
	hints_free(&taken);
}

/* A pending job record `id` (array task of `array`, 0 for none). */
static slurm_job_info_t job(uint32_t id, uint32_t array)
{
	slurm_job_info_t j = { .job_id = id,
			       .array_job_id = array,
			       .array_task_id = array ? 1 : NO_VAL,
			       .user_id = 1000 };

	return j;
}

/* A state with one tier `tier` and wait `wait`. */
static void state(struct sx_job_state *st, const char *tier, long wait)
{
	memset(st, 0, sizeof(*st));
	st->prefer = calloc(1, sizeof(char *));
	st->prefer[0] = strdup(tier);
	st->n_prefer = 1;
	st->wait = wait;
}

/* One change per target: the last tiers given and the last wait given. */
Test(prefer_changes, merged_per_target)
{
	change(7, 1000, "a=1\036", 60);
	change(7, 1000, NULL, 5);
	take(100);
	change(7, 1000, "b=1\036", -1);
	change(8, 1000, "", 0);
	take(101);
	cr_assert_eq(c.n, 2);
	cr_assert_str_eq(c.v[0].c.tiers, "b=1\036");
	cr_assert_eq(c.v[0].c.wait, 5);
	cr_assert_eq(c.v[0].since, 101, "its age from the last");
	cr_assert_eq(c.bytes, strlen("b=1\036") + 1 + 1);
}

/* Applied to the jobs it names, an array's task by its array's id; shown
 * by the job's state once written, then dropped. */
Test(prefer_changes, applied_until_shown)
{
	slurm_job_info_t task = job(12, 10), other = job(11, 0);
	struct sx_job_state st;

	change(10, 1000, "b=1\036", 30);
	take(100);
	cr_assert_eq(prefer_changes_start(&c), 0);
	cr_assert_eq(prefer_changes_of(&c, &other), 0);
	cr_assert_eq(prefer_changes_of(&c, &task), 1);
	state(&st, "a=1", 60);
	cr_assert_eq(prefer_changes_apply(&c, &st), 0);
	cr_assert_str_eq(st.prefer[0], "b=1");
	cr_assert_eq(st.wait, 30);
	prefer_changes_end(&c, 101);
	cr_assert_eq(c.n, 1, "not shown yet: kept");
	/* the next round: the job's AdminComment shows it */
	cr_assert_eq(prefer_changes_start(&c), 0);
	cr_assert_eq(prefer_changes_of(&c, &task), 1);
	cr_assert_eq(prefer_changes_apply(&c, &st), 0);
	prefer_changes_end(&c, 102);
	cr_assert_eq(c.n, 0, "shown: dropped");
	cr_assert_eq(c.losses, 0);
	sx_job_state_free(&st);
}

/* A change no pending job is named by goes; one never shown goes after
 * PREFER_CHANGE_TTL_S, counted lost. */
Test(prefer_changes, dropped_when_no_job_or_too_old)
{
	slurm_job_info_t j = job(7, 0);
	struct sx_job_state st;

	change(5, 1000, "b=1\036", -1);
	change(7, 1000, "b=1\036", -1);
	take(100);
	state(&st, "a=1", 0);
	for (time_t now = 101; now <= 160 + PREFER_CHANGE_TTL_S; now += 60) {
		struct sx_job_state again = { 0 };

		cr_assert_eq(prefer_changes_start(&c), 0);
		cr_assert_eq(prefer_changes_of(&c, &j), 1);
		cr_assert_eq(sx_job_state_copy_prefer(&st, &again), 0);
		cr_assert_eq(prefer_changes_apply(&c, &again), 0);
		sx_job_state_free(&again);
		prefer_changes_end(&c, now);
		cr_assert_eq(c.n, now - 100 < PREFER_CHANGE_TTL_S ? 1 : 0,
			     "at %lld", (long long)now);
	}
	cr_assert_eq(c.losses, 1, "the old one; job 5's had no job");
	sx_job_state_free(&st);
}

/* Changes naming one job apply in the order of their updates, whatever
 * the targets (the array, then its task). */
Test(prefer_changes, in_the_order_of_the_updates)
{
	slurm_job_info_t task = job(12, 10);
	struct sx_job_state st;

	change(10, 1000, "b=1\036", -1);
	task_change(10, 1, "c=1\036");
	take(100);
	cr_assert_eq(prefer_changes_start(&c), 0);
	cr_assert_eq(prefer_changes_of(&c, &task), 2);
	state(&st, "a=1", 0);
	cr_assert_eq(prefer_changes_apply(&c, &st), 0);
	cr_assert_str_eq(st.prefer[0], "c=1", "the task's, the later");
	sx_job_state_free(&st);
	prefer_changes_end(&c, 101);
}

/* Untrusted hints carry nothing here; past HINTS_PER_OWNER targets of one
 * owner the newest are dropped, another owner's still taken. */
Test(prefer_changes, bounded_per_owner)
{
	struct job_hint h = { .id = 1,
			      .task = NO_VAL,
			      .offset = NO_VAL,
			      .owner = 1001,
			      .prefer_set = true,
			      .prefer = { .tiers = strdup("a=1\036"),
					  .wait = -1 } };

	cr_assert(hints_add(&set, &h));
	take(100);
	cr_assert_eq(c.n, 0, "untrusted");
	for (uint32_t id = 1; id <= HINTS_PER_OWNER + 2; id++) {
		change(id, 1000, "a=1\036", -1);
		if (set.n == HINTS_PER_OWNER / 2)
			take(100);
	}
	change(HINTS_PER_OWNER + 10, 1002, "a=1\036", -1);
	take(100);
	cr_assert_eq(c.n, HINTS_PER_OWNER + 1, "%zu", c.n);
	cr_assert_eq(c.losses, 2, "%llu lost", (unsigned long long)c.losses);
	cr_assert_eq(set.losses, 0, "no hint lost");
}

/* The jobs of new changes, loaded alone at a round that loads no other:
 * each id once, then no longer fresh; a merge makes it fresh again. */
Test(prefer_changes, fresh_ids_once)
{
	uint32_t ids[4];

	change(7, 1000, "a=1\036", -1);
	change(8, 1000, "a=1\036", -1);
	change(7, 1000, NULL, 5);
	take(100);
	cr_assert_eq(prefer_changes_fresh(&c, ids, 4), 2);
	cr_assert(ids[0] == 7 && ids[1] == 8);
	cr_assert_eq(prefer_changes_fresh(&c, ids, 4), 0);
	change(8, 1000, NULL, 9);
	take(101);
	cr_assert_eq(prefer_changes_fresh(&c, ids, 1), 1);
	cr_assert_eq(ids[0], 8);
}

/* A whole array's tiers, then one task's, then the array's wait alone:
 * the task has its own tiers (the later) and the array's wait. */
Test(prefer_changes, overlapping_targets_keep_their_order)
{
	slurm_job_info_t task = job(12, 10);
	struct sx_job_state st;

	change(10, 1000, "x=1\036", -1);
	take(100);
	task_change(10, 1, "y=1\036");
	take(101);
	change(10, 1000, NULL, 30);
	take(102);
	cr_assert_eq(prefer_changes_start(&c), 0);
	cr_assert_eq(prefer_changes_of(&c, &task), 2);
	state(&st, "a=1", 0);
	cr_assert_eq(prefer_changes_apply(&c, &st), 0);
	cr_assert_str_eq(st.prefer[0], "y=1", "the task's tiers, the later");
	cr_assert_eq(st.wait, 30, "the array's wait, the latest");
	sx_job_state_free(&st);
	prefer_changes_end(&c, 103);
}

/* At an owner's bound, a take with a merge into an old change and a new
 * change drops the new one: the old one and its merge are kept. */
Test(prefer_changes, the_bound_drops_the_new_not_the_old)
{
	for (uint32_t id = 1; id <= HINTS_PER_OWNER; id++) {
		change(id, 1000, "a=1\036", -1);
		if (set.n == HINTS_PER_OWNER / 2)
			take(100);
	}
	take(100);
	cr_assert_eq(c.n, HINTS_PER_OWNER);
	change(1, 1000, "b=2\036", -1);
	change(HINTS_PER_OWNER + 1, 1000, "a=1\036", -1);
	take(101);
	cr_assert_eq(c.n, HINTS_PER_OWNER);
	cr_assert_eq(c.losses, 1);
	for (size_t i = 0; i < c.n; i++) {
		cr_assert_neq(c.v[i].id, HINTS_PER_OWNER + 1, "the new one");
		if (c.v[i].id == 1)
			cr_assert_str_eq(c.v[i].c.tiers, "b=2\036",
					 "the old one, merged");
	}
}

/* Only the owner's, root's and SlurmUser's changes are taken or applied:
 * a trusted change whose caller is not the owner job_modify() knew is
 * dropped at once, and one of a job it did not know (its owner the
 * caller) changes only a job of the caller's. */
Test(prefer_changes, only_the_owners_root_or_slurmuser)
{
	slurm_job_info_t j = job(7, 0), mine = job(8, 0);
	struct job_hint h = { .id = 7,
			      .task = NO_VAL,
			      .offset = NO_VAL,
			      .owner = 1000,
			      .caller = 2000,
			      .trusted = true,
			      .prefer_set = true,
			      .prefer = { .tiers = strdup("a=1\036"),
					  .wait = -1 } };

	cr_assert(hints_add(&set, &h));
	take(100);
	cr_assert_eq(c.n, 0, "another caller's change of the owner's job");
	change(7, 2000, "b=1\036", -1); /* job 7 unknown: the caller's */
	change(8, 1000, "c=1\036", -1);
	take(101);
	cr_assert_eq(c.n, 2);
	cr_assert_eq(prefer_changes_start(&c), 0);
	cr_assert_eq(prefer_changes_of(&c, &j), 0, "job 7 is 1000's");
	cr_assert_eq(prefer_changes_of(&c, &mine), 1);
	prefer_changes_end(&c, 102);

	h = (struct job_hint){ .id = 7,
			       .task = NO_VAL,
			       .offset = NO_VAL,
			       .caller = 0,
			       .privileged = true,
			       .trusted = true,
			       .prefer_set = true,
			       .prefer = { .tiers = strdup("d=1\036"),
					   .wait = -1 } };
	cr_assert(hints_add(&set, &h));
	take(103);
	cr_assert_eq(prefer_changes_start(&c), 0);
	cr_assert_eq(prefer_changes_of(&c, &j), 1, "root's");
	prefer_changes_end(&c, 104);
}

/* Any uid owns changes, the largest too (an old nfsnobody). */
Test(prefer_changes, any_owner)
{
	change(7, 4294967294u, "a=1\036", -1);
	take(100);
	cr_assert_eq(c.n, 1);
}

/* A task's change, then a later one of its whole array: the array's, the
 * later, wins for that task too. */
Test(prefer_changes, a_later_array_change_wins_over_a_task)
{
	slurm_job_info_t task = job(12, 10);
	struct sx_job_state st;

	task_change(10, 1, "y=1\036");
	take(100);
	change(10, 1000, "x=1\036", -1);
	take(101);
	cr_assert_eq(prefer_changes_start(&c), 0);
	cr_assert_eq(prefer_changes_of(&c, &task), 2);
	state(&st, "a=1", 0);
	cr_assert_eq(prefer_changes_apply(&c, &st), 0);
	cr_assert_str_eq(st.prefer[0], "x=1");
	sx_job_state_free(&st);
	prefer_changes_end(&c, 102);
}

/* An array's pending record holds its tasks not split yet: a change of
 * one of them names it (hint_names), one of a task it no longer holds
 * does not. */
Test(prefer_changes, the_pending_array_record_has_its_tasks_changes)
{
	slurm_job_info_t rec = { .job_id = 10,
				 .array_job_id = 10,
				 .array_task_id = NO_VAL,
				 .array_bitmap = slurm_bit_alloc(4),
				 .user_id = 1000 };

	slurm_bit_set(rec.array_bitmap, 2);
	task_change(10, 2, "y=1\036");
	task_change(10, 3, "z=1\036");
	take(100);
	cr_assert_eq(prefer_changes_start(&c), 0);
	cr_assert_eq(prefer_changes_of(&c, &rec), 1, "task 2's alone");
	cr_assert_str_eq(c.v[c.hit[0]].c.tiers, "y=1\036");
	prefer_changes_end(&c, 101);
	slurm_bit_free((bitstr_t **)&rec.array_bitmap);
}
