/*
 * test_refilter_carry.c - the thread's plan with the feature carrier
 * (refilter.h, carry.h, doc/thread.md "Carriers"), on the fixture's table
 * (n1-n2 {"gpu":true}, n3-n4 {"gpu":false}) with the thread's memo and
 * carrier: a job of a request whose feature slurmctld does not know yet
 * keeps its ExcNodeList and makes the request want the feature; once the
 * feature is on its nodes the next round moves the job to it, its
 * ExcNodeList its user's own; a carried job then needs no update while
 * its request's nodes change but not its chance; with the carrier off the
 * feature is taken out of its constraint; a job Slurm set aside while its
 * feature was on no node is touched once its count rose; a job with
 * preferences given its request's feature at submission loses it when
 * the thread picks a tier.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "carry.h"
#include "ctld.h"
#include "memo.h"
#include "prefer.h"
#include "test_refilter_fixture.h"
#include "thread.h"

static struct refilter_memo memo;
static struct carry c;
static node_info_t infos[4];
static node_info_msg_t nmsg = { .record_count = 4, .node_array = infos };
static struct known_jobs prev;
/* The clock of thread_round()'s plans (0: as the other tests plan). */
static time_t round_now;

static void noop(void *arg)
{
	(void)arg;
}

static void setup(void)
{
	static const char *names[] = { "n1", "n2", "n3", "n4" };

	round_setup();
	round_now = 0;
	/* the thread's: a job unchanged since its plan is kept, not planned */
	cr_assert_eq(memo_init(&memo, 600), 0);
	cr_assert_eq(carry_init(&c), 0);
	carry_conf(&c, sx_conf_time(), true, true);
	for (size_t i = 0; i < 4; i++)
		infos[i].name = (char *)names[i];
	cr_assert_eq(carry_seen(&c, &nmsg, 4), 0);
}

static void teardown(void)
{
	known_jobs_free(&prev);
	carry_free(&c);
	memo_free(&memo);
	round_teardown();
}

TestSuite(plan_carrier, .init = setup, .fini = teardown);

/* A round of the thread: the plan with memo and carrier (the known jobs
 * kept for the next), then the carrier's node updates, all applied. */
static void thread_round(void)
{
	struct carry_update *ups = NULL;
	size_t n = 0;
	bool ok[8];

	plan_free(&p);
	cr_assert_eq(refilter_plan(&(struct refilter_in){ .table = t,
							  .now = round_now,
							  .jobs = jobs,
							  .prev = &prev,
							  .memo = &memo,
							  .carry = &c },
				   &(struct refilter_out){ .updates = &p.u,
							   .n = &p.n,
							   .known = &p.known,
							   .stats = &p.stats }),
		     0);
	known_jobs_free(&prev);
	prev = p.known;
	p.known = (struct known_jobs){ 0 };
	for (size_t i = 0; i < p.n; i++)
		cr_assert_eq(job_update_build(t, NULL, &p.u[i]), 0);
	cr_assert_eq(carry_plan(&c, &memo, t, memo.round, &ups, &n, noop, noop,
				NULL),
		     0);
	cr_assert_leq(n, 8);
	for (size_t k = 0; k < n; k++)
		ok[k] = true;
	carry_done(&c, &memo, ups, n, ok, memo.round);
	carry_updates_free(ups, n);
}

/* Applies update `u` to job `j` as slurmctld would. */
static void apply(slurm_job_info_t *j, const struct job_update *u)
{
	if (u->exc_nodes) {
		free(j->exc_nodes);
		j->exc_nodes = *u->exc_nodes ? strdup(u->exc_nodes) : NULL;
	}
	if (u->features) {
		free(j->features);
		j->features = *u->features ? strdup(u->features) : NULL;
	}
	if (u->prefer) {
		free(j->prefer);
		j->prefer = *u->prefer ? strdup(u->prefer) : NULL;
	}
	free(j->admin_comment);
	j->admin_comment = strdup(u->admin_comment);
	if (u->priority != NO_VAL)
		j->priority = u->priority == INFINITE ? 1000 : u->priority;
}

static char F[SX_FEATURE_LEN + 1];

/* One job of gpu=true as job_submit() filtered it before its feature was
 * known: ExcNodeList n[3-4], constraint `constraint`. */
static slurm_job_info_t *gpu_job(const char *constraint)
{
	jobs = one_job(7, "n[3-4]", "2 of 4 nodes satisfy the request", false,
		       "");
	jobs->job_array[0].features = dup_or_null(constraint);
	jobs->job_array[0].num_nodes = 1;
	sx_feature_name(xc_text_hash(REQUEST), F);
	return &jobs->job_array[0];
}

Test(plan_carrier, a_job_moves_to_its_feature_once_slurmctld_knows_it)
{
	slurm_job_info_t *j = gpu_job("ib");
	struct memo_request *req;
	char want[64];

	thread_round();
	cr_assert_eq(p.n, 0, "not known yet: the job keeps its ExcNodeList");
	cr_assert_eq(memo_request_of(&memo, REQUEST, NULL, &req), 0);
	cr_assert_eq(req->carry_owner, 1000, "claimed for the job's owner");
	thread_round(); /* the feature became known at the first's end */
	cr_assert_eq(p.n, 1);
	snprintf(want, sizeof(want), "ib&%s", F);
	cr_assert_str_eq(p.u[0].features, want);
	cr_assert_str_eq(p.u[0].exc_nodes, "", "the user's own: none");
	cr_assert(strstr(p.u[0].admin_comment, F));
	apply(j, &p.u[0]);
	thread_round();
	cr_assert_eq(p.n, 0, "as the thread wants it");
}

Test(plan_carrier, a_node_change_updates_no_carried_job)
{
	slurm_job_info_t *j = gpu_job("");
	size_t node = 2;
	xc_extra_t *e;
	xc_error_t err;

	thread_round();
	thread_round();
	cr_assert_eq(p.n, 1);
	apply(j, &p.u[0]);
	thread_round();
	/* n3 comes to match: the request gains a node, the job nothing */
	cr_assert_eq(xc_nodes_update(t, 2, "{\"gpu\":true}", &err), 1);
	e = xc_extra_load("{\"gpu\":true}", 12, NULL, NULL, &err);
	cr_assert_not_null(e);
	memo_nodes_changed(&memo, t, &node, (const xc_extra_t *const *)&e, 1);
	xc_extra_destroy(e);
	thread_round();
	cr_assert_eq(p.n, 0, "no job update");
	cr_assert_gt(p.stats.planned, 0, "the job was planned again");
}

Test(plan_carrier, with_the_carrier_off_the_feature_leaves_the_constraint)
{
	slurm_job_info_t *j = gpu_job("");
	char with[64];

	snprintf(with, sizeof(with), "ib&%s", F);
	free(j->features);
	j->features = strdup(with);
	free(j->exc_nodes);
	j->exc_nodes = NULL;
	carry_conf(&c, sx_conf_time(), true, false); /* Carrier=exclusions */
	thread_round();
	cr_assert_eq(p.n, 1);
	cr_assert_str_eq(p.u[0].features, "ib");
	cr_assert_str_eq(p.u[0].exc_nodes, "n[3-4]");
}

Test(plan_carrier, required_nodes_keep_the_exclusions)
{
	slurm_job_info_t *j = gpu_job("");

	j->req_nodes = strdup("n1");
	thread_round();
	thread_round();
	cr_assert_eq(p.n, 0, "never moved to the feature");
	cr_assert_str_eq(j->features, "");
	cr_assert_str_eq(j->exc_nodes, "n[3-4]");
}

Test(plan_carrier, a_carried_job_left_unplanned_keeps_its_feature_on_its_nodes)
{
	slurm_job_info_t *j = gpu_job("");
	char name[SX_FEATURE_LEN + 1];

	thread_round();
	thread_round();
	cr_assert_eq(p.n, 1);
	apply(j, &p.u[0]);
	thread_round(); /* planned: its data changed */
	cr_assert_eq(carry_lookup(&c, REQUEST, name), 2);
	for (int k = 0; k < 3; k++) {
		thread_round(); /* nothing changed: the job is kept */
		cr_assert_eq(p.stats.planned, 0, "round %d: kept unplanned", k);
		cr_assert_eq(carry_lookup(&c, REQUEST, name), 2,
			     "round %d: its feature still on n[1-2]", k);
	}
}

Test(plan_carrier, a_job_set_aside_is_touched_once_its_feature_is_back)
{
	slurm_job_info_t *j = gpu_job("");

	thread_round();
	thread_round();
	cr_assert_eq(p.n, 1);
	apply(j, &p.u[0]);
	thread_round();
	cr_assert_eq(p.n, 0);
	/* Slurm set it aside (22.05: priority 0, BadConstraints) */
	j->priority = 0;
	j->state_reason = FAIL_BAD_CONSTRAINTS;
	thread_round();
	cr_assert_eq(p.n, 0, "its feature's count did not rise: left");
	/* the feature leaves its nodes (a reconfigure), and comes back */
	carry_conf(&c, sx_conf_time(), true, true);
	cr_assert_eq(carry_seen(&c, &nmsg, 4), 0);
	thread_round(); /* the nodes updated, the count rose */
	thread_round();
	cr_assert_eq(p.n, 1, "touched");
	cr_assert_eq(p.u[0].priority, NO_VAL, "by an update of nothing else");
	cr_assert_null(p.u[0].features);
	j->priority = 1000;
	j->state_reason = 0;
	thread_round();
	cr_assert_eq(p.n, 0, "once");
	/* set aside again, the touch refused or never seen: a round that
	 * plans every job touches it */
	j->priority = 0;
	j->state_reason = FAIL_BAD_CONSTRAINTS;
	thread_round();
	cr_assert_eq(p.n, 0, "no rise: left");
	memo_plan_all(&memo);
	thread_round();
	cr_assert_eq(p.n, 1, "a full round touches it");
}

/* Node `i`'s Extra changed in place to `extra`, as node_table_load() tells
 * the memo. */
static void node_changed(size_t i, const char *extra)
{
	xc_extra_t *e;
	xc_error_t err;

	cr_assert_eq(xc_nodes_update(t, i, extra, &err), 1);
	e = xc_extra_load(extra, strlen(extra), NULL, NULL, &err);
	cr_assert_not_null(e);
	memo_nodes_changed(&memo, t, &i, (const xc_extra_t *const *)&e, 1);
	xc_extra_destroy(e);
}

Test(plan_carrier, a_node_change_the_feature_answers_needs_no_plan)
{
	slurm_job_info_t *j = gpu_job("");

	cr_assert_not(carry_covers(&c, &memo), "nothing planned yet");
	thread_round();
	node_changed(2, "{\"gpu\":true}");
	cr_assert_not(carry_covers(&c, &memo),
		      "its job still goes by its ExcNodeList");
	thread_round();
	cr_assert_eq(p.n, 1);
	apply(j, &p.u[0]);
	thread_round();			   /* carried now */
	node_changed(3, "{\"gpu\":true}"); /* 3 nodes to 4 */
	cr_expect(carry_covers(&c, &memo), "3 to 4 nodes: the same chance");
	node_changed(0, "{\"gpu\":false}");
	node_changed(1, "{\"gpu\":false}");
	node_changed(2, "{\"gpu\":false}");
	cr_expect(carry_covers(&c, &memo), "1 node: the same chance");
	node_changed(3, "{\"gpu\":false}");
	cr_expect_not(carry_covers(&c, &memo), "none: its status changes");
}

/* Job 7 of ANY with tier "gpu=true", a wait of 600 s from `eligible`,
 * one node, its constraint "ib&" and the feature of request `text`
 * (as job_submit() gives it). */
static void prefer_job_with_feature_of(const char *text, time_t eligible)
{
	const char *tiers[] = { "gpu=true" };
	char name[SX_FEATURE_LEN + 1], have[64];
	xc_expr_t *e = xc_parse(text, NULL, NULL);
	char *canonical = e ? xc_format(e) : NULL;

	cr_assert_not_null(canonical);
	sx_feature_name(xc_text_hash(canonical), name);
	free(canonical);
	xc_expr_destroy(e);
	jobs = jobs_new(1);
	job_prefer_set(&jobs->job_array[0], tiers, 1, 600, eligible, "");
	snprintf(have, sizeof(have), "ib&%s", name);
	jobs->job_array[0].features = strdup(have);
	jobs->job_array[0].num_nodes = 1;
}

/* A job with preferences that job_submit() gave its request's feature
 * (the thread has never planned it), whose first tier the thread then
 * picks, a request whose feature slurmctld does not know yet: it goes by
 * its ExcNodeList, its constraint without that feature (the thread takes
 * a feature no job goes by off the nodes: kept, it would leave the job
 * waiting for good), the user's own constraint kept. */
Test(plan_carrier, a_tier_picked_after_submission_takes_its_feature_out)
{
	const struct job_update *u;

	prefer_job_with_feature_of(ANY, time(NULL) - 10);
	thread_round();
	u = only_update(&p, 7);
	cr_assert_str_eq(u->exc_nodes, "n[3-4]", "tier 1: gpu=true");
	cr_assert_not_null(u->features, "its constraint is set");
	cr_assert_str_eq(u->features, "ib", "the user's own alone");
	cr_assert(strstr(u->admin_comment, "preferring tier 1 of 1"));
}

/* The same when job_submit() gave it its first tier's feature and the
 * thread, the wait over, goes by its request alone. */
Test(plan_carrier, the_request_alone_takes_a_tiers_feature_out)
{
	char *text = prefer_compose(ANY, "gpu=true");
	const struct job_update *u;

	cr_assert_not_null(text);
	round_now = time(NULL);
	prefer_job_with_feature_of(text, round_now - 10000);
	free(text);
	thread_round();
	u = only_update(&p, 7);
	cr_assert_not_null(u->features, "its constraint is set");
	cr_assert_str_eq(u->features, "ib", "the user's own alone");
	cr_assert_null(strstr(u->admin_comment, "preferring tier"));
	round_now = 0;
}
