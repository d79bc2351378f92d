/*
 * test_refilter_memo.c - the thread's memo (plugin/thread/memo.h, doc/thread.md
 * "Work follows change"): a round planned with it gives the updates a
 * round planning every job gives, while it plans only the jobs whose
 * data, hints or request's nodes changed.  Rounds of a small cluster are
 * played from a fixed seed: nodes whose Extra changes in place, jobs
 * submitted and started, users setting their ExcNodeList, the updates
 * applied as slurmctld would.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <slurm/slurm.h>

#include "memo.h"
#include "test_refilter_fixture.h"

TestSuite(refilter, .init = round_setup, .fini = round_teardown);

enum {
	NODES = 12,
	JOBS = 24,
	ROUNDS = 300
};

static const char *const requests[] = {
	"gpu=true",	   "mem>=2",   "gpu=true&mem>=3",
	"gpu=false|mem<1", "mem >= 2", /* another text of the second one */
};

static unsigned seed = 12345;

static unsigned pick(unsigned n)
{
	seed = seed * 1103515245u + 12345u;
	return (seed >> 16) % n;
}

static void node_extra(char *out, size_t size)
{
	snprintf(out, size, "{\"gpu\":%s,\"mem\":%u}",
		 pick(2) ? "true" : "false", pick(5));
}

/* Job j as submitted: pending, its request in its state (and from 23.02
 * in its own extra), no ExcNodeList. */
static void submit(slurm_job_info_t *job, uint32_t id)
{
	struct sx_job_state st = { .status = "new", .exclude = "" };
	const char *request = requests[pick(5)];

	job_free(job);
	memset(job, 0, sizeof(*job));
	job_pending(job, 1000);
	job->job_id = id;
	st.request = (char *)request;
	job->admin_comment = sx_job_state_format(&st);
#if SX_SLURM_HAS_EXTRA_OPTION
	job->extra = strdup(request);
#endif
}

/* Applies update `u` (its list built) to its job, as slurmctld would. */
static void apply(job_info_msg_t *m, const struct job_update *u)
{
	for (uint32_t i = 0; i < m->record_count; i++) {
		slurm_job_info_t *job = &m->job_array[i];

		if (job->job_id != u->job_id)
			continue;
		if (u->exc_nodes) {
			free(job->exc_nodes);
			job->exc_nodes = strdup(u->exc_nodes);
		}
		if (u->priority == 0) {
			job->priority = 0;
			job->state_reason = WAIT_HELD;
		} else if (u->priority == INFINITE) {
			job->priority = 1000;
			job->state_reason = WAIT_NO_REASON;
		}
		free(job->admin_comment);
		job->admin_comment = strdup(u->admin_comment);
	}
}

/* Node i's Extra is `extra` from now on: in place in `table`, and the memo
 * told, as the thread's node table does. */
static void node_changed(xc_nodes_t *table, struct refilter_memo *memo,
			 size_t i, const char *extra)
{
	xc_extra_t *e = xc_extra_load(extra, strlen(extra), NULL, NULL, NULL);
	const xc_extra_t *const one[1] = { e };

	cr_assert_geq(xc_nodes_update(table, i, extra, NULL), 0);
	memo_nodes_changed(memo, table, &i, one, 1);
	xc_extra_destroy(e);
}

static int by_job(const void *a, const void *b)
{
	const struct job_update *x = a, *y = b;

	return (x->job_id > y->job_id) - (x->job_id < y->job_id);
}

/* The two plans give the same updates: the same jobs, lists, holds and
 * states. */
static void same_updates(struct plan *with, struct plan *without,
			 unsigned round)
{
	cr_assert_eq(with->n, without->n,
		     "round %u: %zu updates with the memo, %zu without", round,
		     with->n, without->n);
	if (with->n > 1) { /* qsort() wants an array, even of none */
		qsort(with->u, with->n, sizeof(*with->u), by_job);
		qsort(without->u, without->n, sizeof(*without->u), by_job);
	}
	for (size_t i = 0; i < with->n; i++) {
		const struct job_update *a = &with->u[i], *b = &without->u[i];

		cr_assert_eq(a->job_id, b->job_id, "round %u", round);
		cr_assert_str_eq(a->exc_nodes ? a->exc_nodes : "(none)",
				 b->exc_nodes ? b->exc_nodes : "(none)",
				 "round %u, job %u", round, a->job_id);
		cr_assert_eq(a->priority, b->priority, "round %u, job %u",
			     round, a->job_id);
		cr_assert_str_eq(a->admin_comment, b->admin_comment,
				 "round %u, job %u", round, a->job_id);
	}
}

static const char *str(const char *s)
{
	return s ? s : "(null)";
}

/* The two plans know the same jobs in the same states. */
static void same_known(const struct known_jobs *a, const struct known_jobs *b,
		       unsigned round)
{
	cr_assert_eq(a->count, b->count, "round %u", round);
	for (size_t i = 0; i < a->count; i++) {
		const struct known_job *x = &a->jobs[i], *y = &b->jobs[i];

		cr_assert_eq(x->job_id, y->job_id, "round %u", round);
		cr_assert_str_eq(str(x->st.status), str(y->st.status),
				 "round %u, job %u", round, x->job_id);
		cr_assert_str_eq(str(x->st.exclude), str(y->st.exclude),
				 "round %u, job %u", round, x->job_id);
		cr_assert_str_eq(str(x->st.request), str(y->st.request),
				 "round %u, job %u", round, x->job_id);
		cr_assert_str_eq(str(x->st.admin), str(y->st.admin),
				 "round %u, job %u", round, x->job_id);
		cr_assert_str_eq(str(x->req_nodes), str(y->req_nodes),
				 "round %u, job %u", round, x->job_id);
		cr_assert_eq(x->st.held, y->st.held, "round %u, job %u", round,
			     x->job_id);
		cr_assert_eq(x->st.wrote, y->st.wrote, "round %u, job %u",
			     round, x->job_id);
		cr_assert_eq(x->request_hash, y->request_hash,
			     "round %u, job %u", round, x->job_id);
		cr_assert_eq(x->user_id, y->user_id, "round %u", round);
	}
}

/* One round with the memo (its known jobs `known`) and one without from the
 * same data; the memo's known jobs move on, its updates are applied. */
static size_t both(xc_nodes_t *table, job_info_msg_t *m, struct hints *set,
		   struct refilter_memo *memo, struct known_jobs *known,
		   unsigned round, struct refilter_stats *stats)
{
	size_t sent;

	struct plan with = { 0 }, without = { 0 };
	uint64_t upto = set->seq;

	cr_assert_eq(
		refilter_plan(&(struct refilter_in){ .table = table,
						     .jobs = m,
						     .hints = set,
						     .upto = upto,
						     .prev = known,
						     .memo = memo },
			      &(struct refilter_out){ .updates = &with.u,
						      .n = &with.n,
						      .known = &with.known,
						      .stats = &with.stats }),
		0);
	plan(table, m, set, upto, known, &without);
	for (size_t i = 0; i < with.n; i++)
		cr_assert_eq(job_update_build(table, NULL, &with.u[i]), 0);
	same_updates(&with, &without, round);
	same_known(&with.known, &without.known, round);
	for (size_t i = 0; i < with.n; i++)
		apply(m, &with.u[i]);
	*stats = with.stats;
	sent = with.n;
	known_jobs_free(known);
	*known = with.known;
	with.known = (struct known_jobs){ 0 };
	plan_free(&with);
	plan_free(&without);
	hints_free(set);
	return sent;
}

/* Rounds until one plans no job: the updates of one are read back by the
 * next (their jobs' AdminComment changed), which plans them alone. */
static void settle(xc_nodes_t *table, job_info_msg_t *m,
		   struct refilter_memo *memo, struct known_jobs *known)
{
	struct refilter_stats stats;
	size_t sent = 1;

	for (int k = 0; k < 3 && sent; k++) {
		size_t before = sent;

		sent = both(table, m, &hints, memo, known, 0, &stats);
		if (k)
			cr_assert_eq(stats.planned, before,
				     "only the jobs updated are read back");
	}
	cr_assert_eq(sent, 0, "the rounds settle");
	both(table, m, &hints, memo, known, 0, &stats);
	cr_assert_eq(stats.planned, 0, "settled: no job planned");
}

Test(refilter, a_round_with_the_memo_plans_what_one_without_plans)
{
	struct refilter_memo memo;
	struct known_jobs known = { 0 };
	struct refilter_stats stats;
	xc_nodes_t *table = xc_nodes_create(NULL);
	job_info_msg_t *m = jobs_new(JOBS);
	char name[16], extra[64];
	size_t skipped = 0, quiet = 0;

	cr_assert_eq(memo_init(&memo, 3600), 0);
	for (size_t i = 0; i < NODES; i++) {
		snprintf(name, sizeof(name), "n%zu", i + 1);
		node_extra(extra, sizeof(extra));
		cr_assert_eq(xc_nodes_add(table, name, extra, NULL, NULL), 0);
	}
	cr_assert_eq(xc_nodes_compile(table, NULL), 0);
	for (uint32_t j = 0; j < JOBS; j++) {
		submit(&m->job_array[j], j + 1);
		if (j % 2)
			m->job_array[j].job_state = JOB_COMPLETE; /* not yet */
	}
	for (unsigned round = 1; round <= ROUNDS; round++) {
		unsigned what = pick(6);

		if (what == 0) { /* a node's Extra changes in place */
			size_t i = pick(NODES);

			node_extra(extra, sizeof(extra));
			node_changed(table, &memo, i, extra);
		} else if (what == 1) { /* a job submitted (its id new) */
			uint32_t j = pick(JOBS);

			submit(&m->job_array[j], 100 + round);
		} else if (what == 2) { /* a job starts */
			m->job_array[pick(JOBS)].job_state = JOB_RUNNING;
		} else if (what == 3) { /* its user sets its ExcNodeList */
			slurm_job_info_t *job = &m->job_array[pick(JOBS)];
			const char *set = pick(2) ? "n2" : "n[5-6,70,129]";

			free(job->exc_nodes);
			job->exc_nodes = strdup(set);
			add_hint(&hints,
				 exc_hint(job->job_id, true, set, NULL));
		} else if (what == 4) { /* the job's priority moves */
			m->job_array[pick(JOBS)].priority += 7;
		} /* else nothing new */
		both(table, m, &hints, &memo, &known, round, &stats);
		skipped += stats.pending - stats.planned;
		quiet += stats.planned == 0;
	}
	/* and it did skip: most rounds plan few jobs, some none */
	cr_assert_gt(skipped, (size_t)ROUNDS * 2, "only %zu jobs skipped",
		     skipped);
	cr_assert_gt(quiet, (size_t)ROUNDS / 10, "only %zu quiet rounds",
		     quiet);
	known_jobs_free(&known);
	memo_free(&memo);
	jobs_free(m);
	xc_nodes_destroy(table);
}

/* Nothing changed: no job planned, no request evaluated; a hint or a
 * changed AdminComment plans its job alone (and the jobs updated the
 * round before, to read them back). */
Test(refilter, a_round_in_which_nothing_changed_plans_no_job)
{
	struct refilter_memo memo;
	struct known_jobs known = { 0 };
	struct refilter_stats stats;
	size_t sent;

	cr_assert_eq(memo_init(&memo, 3600), 0);
	jobs = jobs_new(3);
	for (uint32_t j = 0; j < 3; j++)
		job_set(&jobs->job_array[j], j + 1, "n[3-4]", TWO_OF_FOUR,
			false, "");
	cr_assert_eq(both(t, jobs, &hints, &memo, &known, 1, &stats), 0);
	cr_assert_eq(stats.planned, 3, "the first round plans every job");
	cr_assert_eq(stats.requests, 1);
	both(t, jobs, &hints, &memo, &known, 2, &stats);
	cr_assert_eq(stats.pending, 3);
	cr_assert_eq(stats.planned, 0);
	cr_assert_eq(stats.requests, 0);
	/* a hint names job 2: that job alone */
	add_hint(&hints, exc_hint(2, true, "n[3-4]", NULL));
	sent = both(t, jobs, &hints, &memo, &known, 3, &stats);
	cr_assert_eq(stats.planned, 1);
	/* a job's AdminComment changed: that job alone, and job 2 if its
	 * state was updated */
	free(jobs->job_array[0].admin_comment);
	jobs->job_array[0].admin_comment = strdup("mine");
	both(t, jobs, &hints, &memo, &known, 4, &stats);
	cr_assert_eq(stats.planned, 1 + sent);
	settle(t, jobs, &memo, &known);
	/* everything planned when asked (a hint lost, an update refused) */
	memo_plan_all(&memo);
	both(t, jobs, &hints, &memo, &known, 5, &stats);
	cr_assert_eq(stats.planned, 3);
	cr_assert_eq(stats.requests, 0, "its nodes are known");
	known_jobs_free(&known);
	memo_free(&memo);
}

/* A node that changed in place: the jobs of the requests whose nodes it
 * changed are planned, not the others; a table built anew plans all. */
Test(refilter, a_node_change_plans_the_jobs_of_the_requests_it_moves)
{
	struct refilter_memo memo;
	struct known_jobs known = { 0 };
	struct refilter_stats stats;
	size_t n1 = 0, n3 = 2, sent;

	cr_assert_eq(memo_init(&memo, 3600), 0);
	jobs = jobs_new(2);
	job_set(&jobs->job_array[0], 1, "n[3-4]", TWO_OF_FOUR, false, "");
	job_set(&jobs->job_array[1], 2, NULL, "new", false, "");
	request_set(&jobs->job_array[1], "gpu=true|gpu=false");
	both(t, jobs, &hints, &memo, &known, 1, &stats);
	settle(t, jobs, &memo, &known);
	/* n3 gains a GPU: gpu=true's nodes change, not the other's */
	node_changed(t, &memo, n3, "{\"gpu\":true}");
	sent = both(t, jobs, &hints, &memo, &known, 3, &stats);
	cr_assert_eq(stats.planned, 1);
	cr_assert_eq(sent, 1, "job 1 may use n3 now");
	cr_assert_eq(stats.requests, 0, "no request evaluated over the table");
	settle(t, jobs, &memo, &known);
	/* n1's Extra changes but matches the same requests: none planned */
	node_changed(t, &memo, n1, "{\"gpu\":true,\"x\":1}");
	both(t, jobs, &hints, &memo, &known, 4, &stats);
	cr_assert_eq(stats.planned, 0);
	memo_nodes_anew(&memo);
	both(t, jobs, &hints, &memo, &known, 6, &stats);
	cr_assert_eq(stats.planned, 2);
	cr_assert_eq(stats.requests, 2);
	known_jobs_free(&known);
	memo_free(&memo);
}

/* An update applied after the round read the hints but before it loaded
 * the jobs: the round sees the job's new ExcNodeList without its hint, and
 * keeps the job as it was (no print shows the list); the round after takes
 * the hint and plans it as a round without the memo does. */
Test(refilter, a_hint_taken_a_round_late_plans_its_job)
{
	struct refilter_memo memo;
	struct known_jobs known = { 0 };
	struct refilter_stats stats;
	struct plan late = { 0 };

	cr_assert_eq(memo_init(&memo, 3600), 0);
	jobs = jobs_new(2);
	job_set(&jobs->job_array[0], 1, "n[3-4]", TWO_OF_FOUR, false, "");
	job_set(&jobs->job_array[1], 2, "n[3-4]", TWO_OF_FOUR, false, "");
	both(t, jobs, &hints, &memo, &known, 1, &stats);
	settle(t, jobs, &memo, &known);
	/* the user's update: n1 theirs, the plugin's nodes kept by
	 * job_modify() */
	free(jobs->job_array[1].exc_nodes);
	jobs->job_array[1].exc_nodes = strdup("n[1,3-4]");
	add_hint(&hints, exc_hint(2, true, "n[1,3-4]", "n1"));
	/* the round whose hints were read before the update */
	cr_assert_eq(
		refilter_plan(&(struct refilter_in){ .table = t,
						     .jobs = jobs,
						     .hints = &hints,
						     .upto = 0,
						     .prev = &known,
						     .memo = &memo },
			      &(struct refilter_out){ .updates = &late.u,
						      .n = &late.n,
						      .known = &late.known,
						      .stats = &late.stats }),
		0);
	cr_assert_eq(late.stats.planned, 0, "no print shows the list");
	cr_assert_eq(late.n, 0);
	known_jobs_free(&known);
	known = late.known;
	late.known = (struct known_jobs){ 0 };
	plan_free(&late);
	/* the round after takes the hint: the job planned, as without the
	 * memo */
	both(t, jobs, &hints, &memo, &known, 3, &stats);
	cr_assert_eq(stats.planned, 1);
	cr_assert_str_eq(known_job_find(&known, 2)->st.exclude, "n1",
			 "the user's own part is the hint's");
	known_jobs_free(&known);
	memo_free(&memo);
}

/* A round whose jobs have left pending: nothing known, nothing planned
 * (under the sanitizers: no NULL array given to qsort() or memcpy(), which
 * once stopped slurmctld in the round after the last job started). */
Test(refilter, a_round_with_no_pending_job_knows_none)
{
	struct refilter_memo memo;
	struct known_jobs known = { 0 };
	struct refilter_stats stats;

	cr_assert_eq(memo_init(&memo, 3600), 0);
	jobs = jobs_new(2);
	job_set(&jobs->job_array[0], 1, "n[3-4]", TWO_OF_FOUR, false, "");
	job_set(&jobs->job_array[1], 2, "n[3-4]", TWO_OF_FOUR, false, "");
	both(t, jobs, &hints, &memo, &known, 1, &stats);
	cr_assert_eq(known.count, 2);
	jobs->job_array[0].job_state = JOB_RUNNING;
	jobs->job_array[1].job_state = JOB_COMPLETE;
	both(t, jobs, &hints, &memo, &known, 2, &stats);
	cr_assert_eq(known.count, 0);
	cr_assert_eq(stats.pending, 0);
	known_jobs_free(&known);
	memo_free(&memo);
}
