/*
 * test_refilter_prefer_rounds.c - the rounds of jobs with preferences
 * (plan_prefer.h; doc/preferences.md "Preferences"; doc/thread.md "Work
 * follows change"): a
 * job is planned again only when what its pick reads changes (its
 * eligibility, the end of its wait, its tiers' nodes, with no wait the
 * free nodes), a held job costs nothing per round, and jobs with the
 * same tiers share their evaluation.  Nodes: n1-n2 {"gpu":true}, n3-n4
 * {"gpu":false} (test_refilter_fixture.h).
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "plan_prefer.h"
#include "prefer.h"
#include "test_refilter_fixture.h"

TestSuite(refilter_prefer_rounds, .init = round_setup, .fini = round_teardown);

/* The thread's rounds over the fixture's table, the memo and the known
 * jobs kept from one to the next (refilter.h), the updates not applied:
 * a job's AdminComment stays as the test set it. */
struct rounds {
	struct refilter_memo memo;
	struct known_jobs known;
	struct refilter_in in;
	struct refilter_stats stats; /* the last round's */
};

static void rounds_start(struct rounds *r, time_t now)
{
	memset(r, 0, sizeof(*r));
	cr_assert_eq(memo_init(&r->memo, 600), 0);
	r->in = (struct refilter_in){
		.table = t, .memo = &r->memo, .now = now, .jobs = jobs
	};
}

/* One round: how many jobs it planned. */
static size_t round_run(struct rounds *r)
{
	struct known_jobs next = { 0 };
	struct job_update *u = NULL;
	size_t n = 0;

	memset(&r->stats, 0, sizeof(r->stats));
	r->in.prev = &r->known;
	cr_assert_eq(
		refilter_plan(&r->in,
			      &(struct refilter_out){ .updates = &u,
						      .n = &n,
						      .known = &next,
						      .stats = &r->stats }),
		0);
	job_updates_free(u, n);
	known_jobs_free(&r->known);
	r->known = next;
	return r->stats.planned;
}

static void rounds_end(struct rounds *r)
{
	known_jobs_free(&r->known);
	memo_free(&r->memo);
}

/* `rounds` rounds 10 s apart of one job with the tier gpu=true, wait
 * `wait`, eligible at `eligible`, from `now`: the jobs planned in all. */
static size_t planned_in(int rounds, long wait, time_t eligible, time_t now)
{
	const char *tiers[] = { "gpu=true" };
	struct rounds r;
	size_t planned = 0;

	jobs = jobs_new(1);
	job_prefer_set(&jobs->job_array[0], tiers, 1, wait, eligible, "");
	rounds_start(&r, now);
	for (int round = 0; round < rounds; round++, r.in.now += 10)
		planned += round_run(&r);
	rounds_end(&r);
	return planned;
}

/* Its pick reads nothing that changed: kept as any job, its wait lasting
 * (doc/thread.md "Work follows change"), and still counted for the
 * thread's rounds (its deadline). */
Test(refilter_prefer_rounds, kept_while_nothing_its_pick_reads_changes)
{
	const char *tiers[] = { "gpu=true" };
	struct rounds r;

	cr_assert_eq(planned_in(3, 600, 1000000, 1000000), 1);
	jobs_free(jobs);
	jobs = jobs_new(1);
	job_prefer_set(&jobs->job_array[0], tiers, 1, 600, 1000000, "");
	rounds_start(&r, 1000000);
	cr_assert_eq(round_run(&r), 1);
	r.in.now += 10;
	cr_assert_eq(round_run(&r), 0);
	cr_assert_eq(r.stats.preferring, 1);
	cr_assert_eq(r.stats.prefer_live, 1);
	cr_assert_eq(r.stats.prefer_next, 1000600, "its deadline, kept");
	rounds_end(&r);
}

Test(refilter_prefer_rounds, kept_as_any_job_once_its_wait_is_over)
{
	cr_assert_eq(planned_in(3, 60, 1000000, 1000100), 1);
}

/* Planned again in the round its wait ends. */
Test(refilter_prefer_rounds, planned_again_when_its_wait_ends)
{
	/* rounds at +30, +40, +50 (kept), +60 (over), +70 (kept) */
	cr_assert_eq(planned_in(5, 60, 1000000, 1000030), 2);
}

/* A held job (EligibleTime not set) keeps its narrowing until it is
 * eligible, and costs nothing per round: its pick reads no clock. */
Test(refilter_prefer_rounds, a_held_job_costs_nothing_per_round)
{
	const char *tiers[] = { "gpu=false" };
	struct rounds r;
	size_t planned = 0;

	jobs = jobs_new(1);
	job_prefer_set(&jobs->job_array[0], tiers, 1, 60, 0, "");
	jobs->job_array[0].priority = 0;
	jobs->job_array[0].submit_time = 900000;
	rounds_start(&r, 1000000);
	for (int round = 0; round < 5; round++, r.in.now += 3600)
		planned += round_run(&r);
	cr_assert_eq(planned, 1, "planned once in 5 rounds over 5 hours");
	cr_assert_eq(r.stats.prefer_next, 0, "no deadline while held");
	/* released: Slurm sets EligibleTime at its next look, and the wait
	 * counts from it */
	jobs->job_array[0].priority = 1000;
	jobs->job_array[0].eligible_time = r.in.now;
	cr_assert_eq(round_run(&r), 1);
	cr_assert_eq(r.stats.prefer_next, r.in.now + 60);
	rounds_end(&r);
}

/* A dependent job is planned again when Slurm makes it eligible. */
Test(refilter_prefer_rounds, planned_again_when_it_becomes_eligible)
{
	const char *tiers[] = { "gpu=true" };
	struct rounds r;

	jobs = jobs_new(1);
	job_prefer_set(&jobs->job_array[0], tiers, 1, 600, 0, "");
	jobs->job_array[0].state_reason = WAIT_DEPENDENCY;
	rounds_start(&r, 1000000);
	cr_assert_eq(round_run(&r), 1);
	cr_assert_eq(round_run(&r), 0);
	jobs->job_array[0].state_reason = WAIT_NO_REASON;
	jobs->job_array[0].eligible_time = 1000000;
	cr_assert_eq(round_run(&r), 1, "eligible now");
	cr_assert_eq(r.stats.prefer_next, 1000600);
	cr_assert_eq(round_run(&r), 0);
	rounds_end(&r);
}

/* Node `node`'s Extra is now `extra`, as node_table.c tells the memo. */
static void node_changed(struct rounds *r, size_t node, const char *extra)
{
	xc_extra_t *e = xc_extra_load(extra, strlen(extra), NULL, NULL, NULL);
	const xc_extra_t *const one[1] = { e };

	memo_nodes_changed(&r->memo, t, &node, one, 1);
	xc_extra_destroy(e);
}

/* Planned again when a tier's nodes change, a stronger one's too (its
 * pick may move to it), and not for a node no tier sees change. */
Test(refilter_prefer_rounds, planned_again_when_a_tiers_nodes_change)
{
	const char *tiers[] = { "cache=ds1", "gpu=true" };
	struct rounds r;

	jobs = jobs_new(1);
	job_prefer_set(&jobs->job_array[0], tiers, 2, 600, 1000000, "");
	rounds_start(&r, 1000000);
	cr_assert_eq(round_run(&r), 1);
	cr_assert_eq(round_run(&r), 0);
	node_changed(&r, 3, "{\"gpu\":false,\"other\":1}");
	cr_assert_eq(round_run(&r), 0, "no tier's nodes moved");
	node_changed(&r, 3, "{\"gpu\":false,\"cache\":\"ds1\"}");
	cr_assert_eq(round_run(&r), 1, "the stronger tier has a node now");
	cr_assert_eq(round_run(&r), 0);
	node_changed(&r, 1, "{\"gpu\":false}");
	cr_assert_eq(round_run(&r), 1, "the weaker tier lost one");
	rounds_end(&r);
}

/* With no wait the free nodes matter: planned again when they change;
 * with a wait they do not. */
Test(refilter_prefer_rounds, the_free_nodes_plan_only_a_job_with_no_wait)
{
	const char *tiers[] = { "gpu=true" };
	bool free_nodes[4] = { true, false, false, false };
	struct rounds r;

	jobs = jobs_new(2);
	job_prefer_set(&jobs->job_array[0], tiers, 1, 0, 1000000, "");
	job_prefer_set(&jobs->job_array[1], tiers, 1, 600, 1000000, "");
	jobs->job_array[1].job_id = 8;
	rounds_start(&r, 1000000);
	r.in.free = free_nodes;
	cr_assert_eq(round_run(&r), 2);
	cr_assert_eq(r.stats.prefer_free, 1);
	cr_assert_eq(round_run(&r), 0);
	cr_assert_eq(r.stats.prefer_free, 1, "counted, kept");
	free_nodes[0] = false;
	free_nodes[1] = true;
	cr_assert_eq(round_run(&r), 1, "the job with no wait");
	r.in.now += PREFER_NOW_S;
	cr_assert_eq(round_run(&r), 1, "its window is over");
	free_nodes[1] = false;
	cr_assert_eq(round_run(&r), 0, "no longer in its window");
	rounds_end(&r);
}

/* Jobs with the same tiers share their evaluation and counts: a round of
 * many costs their look-ups, and each distinct tier once. */
Test(refilter_prefer_rounds, jobs_with_the_same_tiers_share_a_pick)
{
	const char *tiers[] = { "cache=ds1", "gpu=true" };
	struct rounds r;

	jobs = jobs_new(50);
	for (uint32_t j = 0; j < 50; j++) {
		job_prefer_set(&jobs->job_array[j], tiers, 2, 600, 1000000, "");
		jobs->job_array[j].job_id = 100 + j;
	}
	rounds_start(&r, 1000000);
	cr_assert_eq(round_run(&r), 50);
	for (size_t i = 0; i < r.known.count; i++)
		cr_assert_eq(r.known.jobs[i].req, r.known.jobs[0].req,
			     "one effective request");
	cr_assert_eq(round_run(&r), 0);
	rounds_end(&r);
}
