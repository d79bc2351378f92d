/*
 * test_refilter_prefer.c - a round's plan of jobs with preferences
 * (prefer.h, plan_prefer.h; doc/preferences.md "Preferences"): the effective
 * request while the wait lasts and after, tiers strongest first, the free
 * nodes with no wait, the user's own exclusions, and a job planned again
 * only when what its pick reads changes (doc/thread.md "Work follows
 * change").  Nodes: n1-n2 {"gpu":true},
 * n3-n4 {"gpu":false} (test_refilter_fixture.h).
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "prefer.h"
#include "test_refilter_fixture.h"

TestSuite(refilter_prefer, .init = round_setup, .fini = round_teardown);

/* The one update planned for job 7: its ExcNodeList (NULL: the job's
 * kept), the start of its status, and its preferences kept (`tiers`). */
static void expect(const char *exc, const char *status_start, unsigned tiers)
{
	const struct job_update *u = only_update(&p, 7);
	struct sx_job_state st;

	if (exc)
		cr_assert_str_eq(u->exc_nodes, exc);
	else
		cr_assert_null(u->exc_nodes, "%s", u->exc_nodes);
	planned_state(u, &st);
	cr_assert(strncmp(st.status, status_start, strlen(status_start)) == 0,
		  "status: %s", st.status);
	cr_assert_eq(st.n_prefer, tiers);
	sx_job_state_free(&st);
}

/* While the wait lasts the job goes by "(R)&(P)"; the round's stats say
 * when the narrowing ends. */
Test(refilter_prefer, the_wait_narrows_to_the_preferred_nodes)
{
	const char *tiers[] = { "gpu=true" };

	plan_now = 1000000;
	jobs = jobs_new(1);
	job_prefer_set(&jobs->job_array[0], tiers, 1, 60, plan_now - 10, "");
	plan(t, jobs, NULL, 0, NULL, &p);
	expect("n[3-4]", "preferring tier 1 of 1 (2 nodes) until ",
	       sizeof(tiers) / sizeof(*tiers));
	cr_assert_eq(p.stats.preferring, 1);
	cr_assert_eq(p.stats.prefer_free, 0,
		     "a wait: the free nodes do not matter");
	cr_assert_eq(p.stats.prefer_next, plan_now + 50);
}

/* Once EligibleTime + wait has passed, the request alone. */
Test(refilter_prefer, after_the_wait_the_request_alone)
{
	const char *tiers[] = { "gpu=true" };

	plan_now = 1000000;
	jobs = jobs_new(1);
	job_prefer_set(&jobs->job_array[0], tiers, 1, 60, plan_now - 60, "");
	plan(t, jobs, NULL, 0, NULL, &p);
	expect(NULL, "4 of 4 nodes satisfy the request",
	       sizeof(tiers) / sizeof(*tiers));
	cr_assert_eq(p.stats.preferring, 1);
	cr_assert_eq(p.stats.prefer_next, 0);
}

/* A job not eligible yet (EligibleTime not set) has not begun its wait. */
Test(refilter_prefer, a_job_not_eligible_yet_waits)
{
	const char *tiers[] = { "gpu=false" };

	jobs = jobs_new(1);
	job_prefer_set(&jobs->job_array[0], tiers, 1, 60, 0, "");
	plan(t, jobs, NULL, 0, NULL, &p);
	expect("n[1-2]",
	       "preferring tier 1 of 1 (2 nodes) until the job is eligible; ",
	       sizeof(tiers) / sizeof(*tiers));
	cr_assert_eq(p.stats.prefer_next, 0);
}

/* Released (or new on 24.11), before Slurm set its EligibleTime: its wait
 * has not begun, whatever its submission's time. */
Test(refilter_prefer, a_released_job_waits_from_its_new_eligible_time)
{
	const char *tiers[] = { "gpu=false" };

	plan_now = 1000000;
	jobs = jobs_new(1);
	job_prefer_set(&jobs->job_array[0], tiers, 1, 60, 0, "");
	jobs->job_array[0].submit_time = plan_now - 3600;
	plan(t, jobs, NULL, 0, NULL, &p);
	expect("n[1-2]",
	       "preferring tier 1 of 1 (2 nodes) until the job is eligible; ",
	       1);
	plan_free(&p);
	jobs->job_array[0].eligible_time = plan_now - 10;
	plan(t, jobs, NULL, 0, NULL, &p);
	expect("n[1-2]", "preferring tier 1 of 1 (2 nodes) until ", 1);
	cr_assert_eq(p.stats.prefer_next, plan_now + 50);
}

/* Tiers strongest first: one no node satisfies is passed over, and an
 * invalid one narrows nothing. */
Test(refilter_prefer, the_strongest_tier_with_a_node)
{
	const char *tiers[] = { "cache=ds1", "gpu=(", "gpu=false" };

	plan_now = 1000000;
	jobs = jobs_new(1);
	job_prefer_set(&jobs->job_array[0], tiers, 3, 60, plan_now, "");
	plan(t, jobs, NULL, 0, NULL, &p);
	expect("n[1-2]", "preferring tier 3 of 3 (2 nodes) until ",
	       sizeof(tiers) / sizeof(*tiers));
}

/* No wait: a tier counts only while one of its nodes is free, and for
 * PREFER_NOW_S at most. */
Test(refilter_prefer, no_wait_narrows_only_to_a_free_node)
{
	const char *tiers[] = { "gpu=true" };
	const bool none[4] = { false, false, true, true },
		   n2[4] = { false, true, true, true };

	plan_now = 1000000;
	jobs = jobs_new(1);
	job_prefer_set(&jobs->job_array[0], tiers, 1, 0, plan_now, "");
	plan_free_nodes = none; /* n1, n2 busy */
	plan(t, jobs, NULL, 0, NULL, &p);
	cr_assert_eq(p.stats.prefer_free, 1, "no wait: the free nodes matter");
	expect(NULL, "4 of 4 nodes satisfy the request",
	       sizeof(tiers) / sizeof(*tiers));
	plan_free(&p);
	plan_free_nodes = n2;
	plan(t, jobs, NULL, 0, NULL, &p);
	expect("n[3-4]", "preferring tier 1 of 1 (2 nodes, one free) until ",
	       sizeof(tiers) / sizeof(*tiers));
	cr_assert_eq(p.stats.prefer_next, plan_now + PREFER_NOW_S);
	plan_free(&p);
	plan_now += PREFER_NOW_S;
	plan(t, jobs, NULL, 0, NULL, &p);
	cr_assert_eq(p.stats.prefer_free, 0, "its window is over");
	expect(NULL, "4 of 4 nodes satisfy the request",
	       sizeof(tiers) / sizeof(*tiers));
}

/* A node the user excluded is no preferred node. */
Test(refilter_prefer, the_users_exclusions_are_not_preferred)
{
	const char *tiers[] = { "gpu=true" };

	plan_now = 1000000;
	jobs = jobs_new(1);
	job_prefer_set(&jobs->job_array[0], tiers, 1, 60, plan_now, "n[1-2]");
	free(jobs->job_array[0].exc_nodes);
	jobs->job_array[0].exc_nodes = strdup("n[1-2]");
	plugin_wrote(&jobs->job_array[0], "n[1-2]");
	plan(t, jobs, NULL, 0, NULL, &p);
	cr_assert_eq(p.n, 1);
	expect(NULL, "2 of 4 nodes satisfy the request",
	       sizeof(tiers) / sizeof(*tiers));
}

/* A preferred node outside the job's partitions is no preferred node; a
 * partition the maps do not know has none. */
Test(refilter_prefer, only_the_jobs_partitions_count)
{
	const char *tiers[] = { "gpu=true" };
	bool n12[4] = { true, true, false, false },
	     n34[4] = { false, false, true, true };
	struct part_map maps[2] = {
		{ .name = "gpus", .nodes = n12 },
		{ .name = "cpus", .nodes = n34, .is_default = true }
	};
	struct parts parts = { .maps = maps, .n = 2, .count = 4 };
	bool usable[4];

	plan_now = 1000000;
	plan_parts = &parts;
	jobs = jobs_new(1);
	job_prefer_set(&jobs->job_array[0], tiers, 1, 60, plan_now, "");
	jobs->job_array[0].partition = (char *)"cpus";
	plan(t, jobs, NULL, 0, NULL, &p);
	expect(NULL, "4 of 4 nodes satisfy the request",
	       sizeof(tiers) / sizeof(*tiers));
	plan_free(&p);
	jobs->job_array[0].partition = (char *)"cpus,gpus";
	plan(t, jobs, NULL, 0, NULL, &p);
	expect("n[3-4]", "preferring tier 1 of 1 (2 nodes) until ",
	       sizeof(tiers) / sizeof(*tiers));
	jobs->job_array[0].partition = NULL; /* not the fixture's to free */
	/* parts_usable alone: the default partition; an unknown one */
	memset(usable, 1, sizeof(usable));
	cr_assert_eq(parts_usable(&parts, NULL, 4, usable), 0);
	cr_assert(!usable[0] && !usable[1] && usable[2] && usable[3]);
	memset(usable, 1, sizeof(usable));
	cr_assert_eq(parts_usable(&parts, "gpus,nosuch", 4, usable), 1);
	cr_assert(!usable[0] && !usable[1] && !usable[2] && !usable[3],
		  "not known: no node is a preferred one");
}

/* A change of the preferences (slurm-extra prefer) as job_modify() hints
 * it: `tiers` (each ended by PREFER_SEP, "" for none; NULL: kept) and
 * `wait` (-1: kept). */
static struct job_hint prefer_hint(uint32_t id, bool trusted, const char *tiers,
				   long wait)
{
	struct job_hint h = { .id = id,
			      .task = NO_VAL,
			      .offset = NO_VAL,
			      .caller = 1000, /* the job's owner */
			      .trusted = trusted,
			      .prefer_set = true,
			      .prefer = { .tiers = dup_or_null(tiers),
					  .wait = wait } };

	return h;
}

/* The owner's change replaces the tiers and the wait: the job goes by the
 * new tier, and its state keeps the change. */
Test(refilter_prefer, the_owners_change_is_taken)
{
	const char *tiers[] = { "gpu=true" };
	struct job_hint h = prefer_hint(7, true, "gpu=false\036", 600);
	struct sx_job_state st;

	plan_now = 1000000;
	jobs = jobs_new(1);
	job_prefer_set(&jobs->job_array[0], tiers, 1, 60, plan_now - 100, "");
	cr_assert(hints_add(&hints, &h));
	plan(t, jobs, &hints, hints.seq, NULL, &p);
	planned_state(only_update(&p, 7), &st);
	cr_assert_str_eq(only_update(&p, 7)->exc_nodes, "n[1-2]",
			 "the new tier, with its wait of 600 s");
	cr_assert_eq(st.n_prefer, 1);
	cr_assert_str_eq(st.prefer[0], "gpu=false");
	cr_assert_eq(st.wait, 600);
	sx_job_state_free(&st);
	cr_assert(p.known.count == 1 && p.known.jobs[0].prefer_pending,
		  "not in its AdminComment yet");
}

/* Dropped (no tiers): the request alone, at once. */
Test(refilter_prefer, the_owner_drops_them)
{
	const char *tiers[] = { "gpu=true" };
	struct job_hint h = prefer_hint(7, true, "", 0);
	struct sx_job_state st;

	plan_now = 1000000;
	jobs = jobs_new(1);
	job_prefer_set(&jobs->job_array[0], tiers, 1, 3600, plan_now - 5, "");
	cr_assert(hints_add(&hints, &h));
	plan(t, jobs, &hints, hints.seq, NULL, &p);
	expect(NULL, "4 of 4 nodes satisfy the request", 0);
	planned_state(only_update(&p, 7), &st);
	cr_assert_eq(st.wait, 0);
	sx_job_state_free(&st);
}

/* An untrusted hint (22.05: not the owner's, root's or SlurmUser's) changes
 * nothing: Slurm refuses that caller's update. */
Test(refilter_prefer, another_users_change_is_not_taken)
{
	const char *tiers[] = { "gpu=true" };
	struct job_hint h = prefer_hint(7, false, "", 0);

	plan_now = 1000000;
	jobs = jobs_new(1);
	job_prefer_set(&jobs->job_array[0], tiers, 1, 60, plan_now - 10, "");
	cr_assert(hints_add(&hints, &h));
	cr_assert_null(hints.v[0].prefer.tiers, "kept without its content");
	plan(t, jobs, &hints, hints.seq, NULL, &p);
	expect("n[3-4]", "preferring tier 1 of 1 (2 nodes) until ", 1);
}

/* A trusted change whose caller is not the job's owner, root or
 * SlurmUser (an update Slurm checked against another job than the one it
 * named to the plugin, or an operator's) changes nothing either. */
Test(refilter_prefer, a_trusted_change_of_another_caller_is_not_taken)
{
	const char *tiers[] = { "gpu=true" };
	struct job_hint h = prefer_hint(7, true, "", 0);

	h.caller = 2000;
	plan_now = 1000000;
	jobs = jobs_new(1);
	job_prefer_set(&jobs->job_array[0], tiers, 1, 60, plan_now - 10, "");
	cr_assert(hints_add(&hints, &h));
	plan(t, jobs, &hints, hints.seq, NULL, &p);
	expect("n[3-4]", "preferring tier 1 of 1 (2 nodes) until ", 1);
}

/* A change whose update did not reach the job (refused, or stale) is
 * kept from the round before while the AdminComment does not show it,
 * and no longer once it does. */
Test(refilter_prefer, a_change_outlives_its_refused_update)
{
	const char *tiers[] = { "gpu=true" }, *now[] = { "gpu=false" };
	struct job_hint h = prefer_hint(7, true, "gpu=false\036", -1);
	struct known_jobs before;
	struct sx_job_state st;

	plan_now = 1000000;
	jobs = jobs_new(1);
	job_prefer_set(&jobs->job_array[0], tiers, 1, 60, plan_now - 10, "");
	cr_assert(hints_add(&hints, &h));
	plan(t, jobs, &hints, hints.seq, NULL, &p);
	before = p.known;
	memset(&p.known, 0, sizeof(p.known));
	plan_free(&p);
	/* the next round, its hint taken: the job as it was */
	plan(t, jobs, NULL, 0, &before, &p);
	planned_state(only_update(&p, 7), &st);
	cr_assert_str_eq(st.prefer[0], "gpu=false", "the change kept");
	cr_assert_eq(st.wait, 60, "its wait as it was");
	sx_job_state_free(&st);
	known_jobs_free(&before);
	before = p.known;
	memset(&p.known, 0, sizeof(p.known));
	plan_free(&p);
	/* the AdminComment shows it now: no longer pending */
	cr_assert(sx_job_state_parse(jobs->job_array[0].admin_comment, &st));
	free(st.prefer[0]);
	st.prefer[0] = strdup(now[0]);
	free(jobs->job_array[0].admin_comment);
	jobs->job_array[0].admin_comment = sx_job_state_format(&st);
	sx_job_state_free(&st);
	plan(t, jobs, NULL, 0, &before, &p);
	cr_assert(p.known.count == 1 && !p.known.jobs[0].prefer_pending);
	known_jobs_free(&before);
}
