/*
 * test_refilter.c - the plan of a round of the re-filtering thread
 * (plugin/thread/refilter.h) from the jobs' own data, on job records built here
 * against the node table of test_refilter_fixture.h (every job asking
 * gpu=true: the plugin's own exclusions are n[3-4]):
 *   - a job already as the plan wants it is left alone, a new one gets the
 *     plugin's exclusions, a required node that does not match holds it;
 *   - the plugin's hold released, a user's hold never;
 *   - the names an update gives a job record (array record with every
 *     task, array task, heterogeneous component, plain job) and its ids;
 *   - the state of a job whose AdminComment an admin replaced, taken back
 *     from the previous round (`prev`);
 *   - a list changed with no hint, an emptied request, an adopted one;
 *   - each distinct request evaluated once; an invalid one excludes
 *     nothing more.
 * The hints of job_modify() and the lists built when sent are
 * test_refilter_hints.c's; the job an update names, test_refilter_known.c's.
 */
#define _GNU_SOURCE /* asprintf */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <slurm/slurm.h>

#include "kept_jobs.h"
#include "test_refilter_fixture.h"

TestSuite(refilter, .init = round_setup, .fini = round_teardown);

/* ---------------------------------------------------- one job, no hint */

Test(refilter, a_job_as_the_plan_wants_it_is_left_alone)
{
	jobs = one_job(5, "n[3-4]", TWO_OF_FOUR, false, "");
	plan(t, jobs, NULL, 0, NULL, &p);
	cr_assert_eq(p.n, 0, "%zu updates for an unchanged job", p.n);
	cr_assert_eq(p.stats.pending, 1);
	cr_assert_eq(p.known.count, 1);
	cr_assert_eq(p.known.jobs[0].job_id, 5);
	cr_assert_str_eq(p.known.jobs[0].st.exclude, "");
	cr_assert_str_eq(p.known.jobs[0].st.request, REQUEST);
}

Test(refilter, a_new_job_gets_the_plugins_exclusions)
{
	const struct job_update *u;
	struct sx_job_state st;

	jobs = one_job(5, NULL, "new", false, "");
	plan(t, jobs, NULL, 0, NULL, &p);
	u = only_update(&p, 5);
	cr_assert_str_eq(u->exc_nodes, "n[3-4]");
	cr_assert_eq(u->priority, NO_VAL);
	planned_state(u, &st);
	cr_assert_str_eq(st.status, TWO_OF_FOUR);
	cr_assert_str_eq(st.exclude, "");
	cr_assert_not(st.held);
	sx_job_state_free(&st);
}

/* A job the check at start requeued (`slurm-extra prolog-slurmctld` put
 * its note in front of the status): the thread re-filters it, and keeps
 * the note in front of the status it writes, so that the job still says
 * why it waits again (job_state.h). */
Test(refilter, a_requeue_note_is_kept_in_front_of_the_status)
{
	const struct job_update *u;
	struct sx_job_state st;
	const char *note = "requeued 2026-11-23T12:00:01: n3 no longer "
			   "satisfied the request when the job was to start; ";
	char *status;

	cr_assert(asprintf(&status, "%s%s", note, "new") > 0);
	jobs = one_job(5, NULL, status, false, "");
	free(status);
	plan(t, jobs, NULL, 0, NULL, &p);
	u = only_update(&p, 5);
	cr_assert_str_eq(u->exc_nodes, "n[3-4]");
	planned_state(u, &st);
	cr_assert_eq(strncmp(st.status, note, strlen(note)), 0, "%s",
		     st.status);
	cr_assert_str_eq(st.status + strlen(note), TWO_OF_FOUR);
	sx_job_state_free(&st);
}

Test(refilter, a_required_node_that_does_not_match_holds_the_job)
{
	const struct job_update *u;
	struct sx_job_state st;

	jobs = one_job(5, NULL, "new", false, "");
	jobs->job_array[0].req_nodes = strdup("n3");
	plan(t, jobs, NULL, 0, NULL, &p);
	u = only_update(&p, 5);
	cr_assert_eq(u->priority, 0);
	/* n3 is required: excluding it would make Slurm refuse the job */
	cr_assert_str_eq(u->exc_nodes, "n4");
	planned_state(u, &st);
	cr_assert(st.held);
	cr_assert_str_eq(st.status, HELD_STATUS);
	sx_job_state_free(&st);
}

/* ------------------------------------------------------------- holds */

/* Job 9 held by the plugin: its required node n1 did not match, and now
 * does (req_nodes n1 against this table). */
static job_info_msg_t *held_job(void)
{
	job_info_msg_t *m = one_job(9, "n[3-4]", HELD_STATUS, true, "");
	slurm_job_info_t *j = &m->job_array[0];

	j->req_nodes = strdup("n1");
	j->priority = 0;
	j->state_reason = WAIT_HELD_USER;
	return m;
}

Test(refilter, the_plugins_hold_is_released_when_the_required_node_matches)
{
	const struct job_update *u;
	struct sx_job_state st;

	jobs = held_job();
	plan(t, jobs, NULL, 0, NULL, &p);
	u = only_update(&p, 9);
	cr_assert_eq(u->priority, INFINITE, "priority %u", u->priority);
	cr_assert_null(u->exc_nodes);
	planned_state(u, &st);
	cr_assert_not(st.held);
	cr_assert_str_eq(st.status, TWO_OF_FOUR);
	sx_job_state_free(&st);
}

/* Job 9 of `jobs` planned with the hints so far: its hold is kept, and
 * held=1 is gone from its state (the hold is someone else's). */
static void hold_kept_as_someone_elses(void)
{
	const struct job_update *u;
	struct sx_job_state st;

	plan(t, jobs, &hints, hints.seq, NULL, &p);
	u = only_update(&p, 9);
	cr_assert_eq(u->priority, NO_VAL, "priority %u", u->priority);
	planned_state(u, &st);
	cr_assert_not(st.held);
	sx_job_state_free(&st);
}

/* The user held the job after the plugin did: the hold is theirs now.
 * Another caller's trusted hold before (an update Slurm checked against
 * another job than the one it named to the plugin, an operator's) is not
 * taken: the plugin's hold stays the plugin's, released. */
Test(refilter, a_users_hold_is_not_released)
{
	struct job_hint h = { .id = 9,
			      .task = NO_VAL,
			      .offset = NO_VAL,
			      .caller = 1000, /* the job's owner */
			      .trusted = true,
			      .hold = true },
			other = h;

	jobs = held_job();
	other.caller = 2000;
	add_hint(&hints, other);
	plan(t, jobs, &hints, hints.seq, NULL, &p);
	cr_assert_eq(only_update(&p, 9)->priority, INFINITE,
		     "another caller's: the plugin's hold, released");
	plan_free(&p);
	add_hint(&hints, h);
	hold_kept_as_someone_elses();
}

/* The plugin held the job (held=1), someone released it and it ran
 * before the thread saw it released; then `scontrol requeuehold` held it
 * again (its restart count 1 now).  That hold is not the plugin's to
 * release: before, the thread took the stale held=1 for its own and let
 * the job run. */
Test(refilter, a_hold_after_a_requeue_is_not_the_plugins)
{
	slurm_job_info_t *j;
	struct sx_job_state st;

	jobs = held_job();
	/* held by this version at submission: held=1/0 */
	j = &jobs->job_array[0];
	cr_assert(sx_job_state_parse(j->admin_comment, &st));
	st.held_at = 1;
	free(j->admin_comment);
	j->admin_comment = sx_job_state_format(&st);
	sx_job_state_free(&st);
	cr_assert_not_null(strstr(j->admin_comment, "; held=1/0; "));
	j->restart_cnt = 1;
	hold_kept_as_someone_elses();
}

/* A bare held=1, an earlier version's, is the plugin's hold whatever the
 * job's restart count (its own check at start requeues jobs): released
 * when its required node matches. */
Test(refilter, an_earlier_versions_hold_is_released_after_a_requeue)
{
	jobs = held_job();
	jobs->job_array[0].restart_cnt = 1;
	plan(t, jobs, NULL, 0, NULL, &p);
	cr_assert_eq(only_update(&p, 9)->priority, INFINITE);
}

/* The plugin's own hold of a job requeued before is its own: given and
 * taken at the job's restart count (held=1/2). */
Test(refilter, the_plugins_hold_of_a_requeued_job_is_its_own)
{
	const struct job_update *u;
	struct sx_job_state st;
	slurm_job_info_t *j;

	jobs = one_job(5, NULL, "new", false, "");
	j = &jobs->job_array[0];
	j->req_nodes = strdup("n3");
	j->restart_cnt = 2;
	plan(t, jobs, NULL, 0, NULL, &p);
	u = only_update(&p, 5);
	cr_assert_eq(u->priority, 0);
	cr_assert_not_null(strstr(u->admin_comment, "; held=1/2;"), "'%s'",
			   u->admin_comment);
	planned_state(u, &st);
	cr_assert_eq(st.held_at, 3);
	sx_job_state_free(&st);
	/* applied; then n3 matches (required n1 instead): released */
	free(j->admin_comment);
	j->admin_comment = strdup(u->admin_comment);
	free(j->req_nodes);
	j->req_nodes = strdup("n1");
	j->priority = 0;
	j->state_reason = WAIT_HELD_USER;
	plan_free(&p);
	plan(t, jobs, NULL, 0, NULL, &p);
	cr_assert_eq(only_update(&p, 5)->priority, INFINITE);
}

/* ------------------------------------------------------------- names */

/* An update is sent by the record's own job id: update_job() then updates
 * exactly that record (a pending array record with all its tasks, a het
 * component alone), where a job_id_str names more (doc/guard.md "Updates"). */
Test(refilter, updates_name_exactly_their_job_record)
{
	slurm_job_info_t *array, *task, *het, *plain;
	static const struct {
		uint32_t job_id;
		const char *name;
		uint32_t ids[3];
	} want[] = {
		{ 123, "123", { 123, 123, 0 } },
		{ 130, "130", { 130, 123, 0 } },
		{ 201, "201", { 201, 0, 200 } },
		{ 7, "7", { 7, 0, 0 } },
	};

	jobs = jobs_new(4);
	array = &jobs->job_array[0];
	task = &jobs->job_array[1];
	het = &jobs->job_array[2];
	plain = &jobs->job_array[3];
	/* no ExcNodeList yet: each gets an update */
	job_set(array, 123, NULL, TWO_OF_FOUR, false, "");
	array->array_job_id = 123;
	array->array_bitmap = slurm_bit_alloc(8);
	for (int b = 1; b < 8; b++)
		if (b != 2 && b != 4)
			slurm_bit_set(array->array_bitmap, b);
	job_set(task, 130, NULL, TWO_OF_FOUR, false, "");
	job_array_task(task, 123, 4);
	job_set(het, 201, NULL, TWO_OF_FOUR, false, "");
	job_het(het, 200, 1);
	job_set(plain, 7, NULL, TWO_OF_FOUR, false, "");

	plan(t, jobs, NULL, 0, NULL, &p);
	cr_assert_eq(p.n, 4);
	for (size_t k = 0; k < sizeof(want) / sizeof(*want); k++) {
		const struct job_update *u = update_of(&p, want[k].job_id);

		cr_assert_str_eq(u->job_id_str, want[k].name);
		for (int i = 0; i < 3; i++)
			cr_assert_eq(u->ids[i], want[k].ids[i],
				     "job %u: ids[%d] %u, not %u",
				     want[k].job_id, i, u->ids[i],
				     want[k].ids[i]);
		cr_assert_str_eq(u->exc_nodes, "n[3-4]");
	}
}

/* --------------------------------------------------------------- prev */

/* An admin replaced the AdminComment: the state of the previous round is
 * written back after their text. */
Test(refilter, a_replaced_state_is_taken_back_from_prev)
{
	job_info_msg_t *before = jobs_new(1), *after = jobs_new(2);
	const struct job_update *u;
	struct sx_job_state st;
	struct plan p0;
	char want[512];

	job_set(&before->job_array[0], 42, "n[1,3-4]", ONE_OF_FOUR, false,
		"n1");
	plan(t, before, NULL, 0, NULL, &p0);
	cr_assert_eq(p0.n, 0);
	cr_assert_eq(p0.known.count, 1);

	after->job_array[0].job_id = 42;
	after->job_array[0].exc_nodes = strdup("n[1,3-4]");
	after->job_array[0].admin_comment = strdup("reboot first");
#if SX_SLURM_HAS_EXTRA_OPTION
	after->job_array[0].extra = strdup(REQUEST); /* its own request */
#endif
	/* never had a state, nor was known */
	after->job_array[1].job_id = 43;
	after->job_array[1].admin_comment = strdup("reboot first");

	plan(t, after, NULL, 0, &p0.known, &p);
	u = only_update(&p, 42);
	snprintf(want, sizeof(want),
		 "reboot first " SX_STATE_MARK ONE_OF_FOUR
		 "; held=0; wrote=%016llx; exclude=n1; request=" REQUEST,
		 (unsigned long long)hostlist_hash("n[1,3-4]"));
	cr_assert_str_eq(u->admin_comment, want);
	cr_assert_null(u->exc_nodes);
	cr_assert_eq(u->priority, NO_VAL);
	planned_state(u, &st);
	cr_assert_str_eq(st.admin, "reboot first");
	cr_assert_str_eq(st.request, REQUEST);
	cr_assert_str_eq(st.exclude, "n1");
	sx_job_state_free(&st);
	cr_assert_eq(p.known.count, 1);
	cr_assert_eq(p.known.jobs[0].job_id, 42);
	cr_assert_null(known_job_find(&p.known, 43));
	plan_free(&p0);
	jobs_free(before);
	jobs_free(after);
}

/* ------------------------------------------------------ emptied request */

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
/* `scontrol update job=50 extra=`: the job is given back its user's own
 * exclusions, its state is removed and it is no longer filtered. */
Test(refilter, an_emptied_request_gives_back_the_users_exclusions)
{
	const struct job_update *u;

	jobs = one_job(50, "n[1,3-4]", ONE_OF_FOUR, false, "n1");
	/* its `extra` emptied by an update: the job's data say so */
	free(jobs->job_array[0].extra);
	jobs->job_array[0].extra = NULL;
	plan(t, jobs, NULL, 0, NULL, &p);
	u = only_update(&p, 50);
	cr_assert_str_eq(u->exc_nodes, "n1");
	cr_assert_str_eq(u->admin_comment, "");
	cr_assert_eq(u->priority, NO_VAL);
	cr_assert_eq(p.known.count, 0, "no longer filtered");
}
#endif

/* A list changed with no hint at all (the hint lost, a restart between
 * the update and the round, an update made while Slurm filtered): someone
 * Slurm let set it, so all of it is the user's own; the plugin never
 * writes the old list back. */
Test(refilter, a_changed_list_without_a_hint_is_the_users)
{
	const struct job_update *u;
	struct sx_job_state st;

	jobs = one_job(5, "n[2,4]", TWO_OF_FOUR, false, "");
	plugin_wrote(&jobs->job_array[0], "n[3-4]");
	plan(t, jobs, NULL, 0, NULL, &p);
	u = only_update(&p, 5);
	/* the user's n[2,4] and the plugin's n[3-4] */
	cr_assert_str_eq(u->exc_nodes, "n[2-4]");
	planned_state(u, &st);
	cr_assert_str_eq(st.exclude, "n[2,4]");
	cr_assert_eq(st.wrote, hostlist_hash("n[2-4]"));
	sx_job_state_free(&st);
}

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
/* A job with a request in `extra` and no state (set by an update, or a
 * state an admin's AdminComment replaced before the thread saw the job):
 * its nodes that satisfy the request are the user's own; the others may be
 * the plugin's from submission, and are not frozen as the user's. */
Test(refilter, an_adopted_request_keeps_only_matching_nodes_as_the_users)
{
	slurm_job_info_t *j;
	const struct job_update *u;
	struct sx_job_state st;

	jobs = jobs_new(1);
	j = &jobs->job_array[0];
	j->job_id = 60;
	j->exc_nodes = strdup("n[1,3-4]");
	j->admin_comment = strdup("note");
	j->extra = strdup(REQUEST);
	plan(t, jobs, NULL, 0, NULL, &p);
	u = only_update(&p, 60);
	cr_assert_null(u->exc_nodes, "'%s'", u->exc_nodes);
	planned_state(u, &st);
	cr_assert_str_eq(st.exclude, "n1");
	cr_assert_str_eq(st.admin, "note");
	sx_job_state_free(&st);
}
#endif

/* ------------------------------------------------------------ requests */

/* One request written three ways: parsed once a text, evaluated once (its
 * canonical text), and every job as the plan wants it. */
Test(refilter, requests_written_differently_are_evaluated_once)
{
	static const char *const spelled[] = { "gpu=true", "(gpu=true)",
					       "((gpu=true))", "gpu=true" };

	jobs = jobs_new(4);
	for (uint32_t k = 0; k < 4; k++) {
		job_set(&jobs->job_array[k], 5 + k, "n[3-4]", TWO_OF_FOUR,
			false, "");
		request_set(&jobs->job_array[k], spelled[k]);
	}
	plan(t, jobs, NULL, 0, NULL, &p);
	cr_assert_eq(p.stats.requests, 1, "%zu requests evaluated",
		     p.stats.requests);
	cr_assert_eq(p.stats.pending, 4);
	cr_assert_eq(p.n, 0, "%zu updates", p.n);
	cr_assert_str_eq(known_job_find(&p.known, 6)->st.request, "(gpu=true)");
}

/* A stored request that no longer parses (an admin edited it, or
 * MaxRequestLength shrank): nothing excluded beyond the user's own. */
Test(refilter, an_invalid_stored_request_excludes_nothing_more)
{
	const struct job_update *u;
	struct sx_job_state st;

	jobs = jobs_new(2);
	job_set(&jobs->job_array[0], 5, "n[3-4]", TWO_OF_FOUR, false, "");
	request_set(&jobs->job_array[0], "gpu=");
	job_set(&jobs->job_array[1], 6, "n[3-4]", TWO_OF_FOUR, false, "");
	plan(t, jobs, NULL, 0, NULL, &p);
	cr_assert_eq(p.stats.requests, 1);
	u = only_update(&p, 5);
	cr_assert_str_eq(u->exc_nodes, "");
	planned_state(u, &st);
	cr_assert_str_eq(st.status, "4 of 4 nodes satisfy the request");
	cr_assert_str_eq(st.request, "gpu=");
	sx_job_state_free(&st);
}

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
/* A job whose request was emptied comes first among the jobs without a
 * valid request (they sort last): the invalid request after it is still
 * not evaluated as the one before it. */
Test(refilter, an_invalid_request_after_an_emptied_one_excludes_nothing_more)
{
	const struct job_update *u;

	jobs = jobs_new(2);
	job_set(&jobs->job_array[0], 50, "n[1,3-4]", ONE_OF_FOUR, false, "n1");
	request_set(&jobs->job_array[0], ""); /* `scontrol update extra=` */
	job_set(&jobs->job_array[1], 51, "n[3-4]", TWO_OF_FOUR, false, "");
	request_set(&jobs->job_array[1], "gpu=");
	plan(t, jobs, NULL, 0, NULL, &p);
	cr_assert_eq(p.n, 2, "%zu updates", p.n);
	cr_assert_eq(p.known.count, 1, "job 50 no longer filtered");
	u = update_of(&p, 51);
	cr_assert_str_eq(u->exc_nodes, "", "'%s'", u->exc_nodes);
	cr_assert_eq(u->priority, NO_VAL);
}
#endif

/* ------------------------------------------------ what a round keeps */

/* kept_jobs_keep(): of a loaded answer, the jobs a round may plan, with
 * what it reads of them; a round planned from what it kept plans the
 * same updates as from the whole answer. */
Test(refilter, the_jobs_kept_plan_as_the_whole_answer)
{
	slurm_job_info_t *array, *running, *plain, *known_only;
	struct known_jobs known = { 0 };
	/* job 12: its AdminComment emptied by an admin; the round before
	 * knew its state (read_item takes it back from `prev`) */
	struct known_job k = { .job_id = 12,
			       .st = { .status = TWO_OF_FOUR,
				       .exclude = "",
				       .request = REQUEST } };
	job_info_msg_t *kept;
	struct plan whole;

	jobs = jobs_new(5);
	jobs->last_update = 1234;
	array = &jobs->job_array[0];
	job_set(array, 123, NULL, TWO_OF_FOUR, false, "");
	array->array_job_id = 123;
	array->array_bitmap = slurm_bit_alloc(8);
	slurm_bit_set(array->array_bitmap, 3);
	running = &jobs->job_array[1];
	job_set(running, 9, "n3", TWO_OF_FOUR, false, "");
	running->job_state = JOB_RUNNING;
	plain = &jobs->job_array[2]; /* no request, no state */
	plain->job_id = 10;
	plain->req_nodes = strdup("n1");
	job_set(&jobs->job_array[3], 11, "n[3-4]", TWO_OF_FOUR, false, "");
	jobs->job_array[3].req_nodes = strdup("n2");
	known_only = &jobs->job_array[4]; /* its state replaced, known */
	known_only->job_id = 12;

	known.jobs = &k;
	known.count = 1;
	kept = kept_jobs_keep(jobs, &known);
	cr_assert_not_null(kept);
	cr_assert_eq(kept->last_update, 1234);
	cr_assert_eq(kept->record_count, 3, "%u kept", kept->record_count);
	cr_assert_eq(kept->job_array[0].job_id, 123);
	cr_assert_eq(kept->job_array[0].array_job_id, 123);
	cr_assert(slurm_bit_test(kept->job_array[0].array_bitmap, 3));
	cr_assert_not(slurm_bit_test(kept->job_array[0].array_bitmap, 2));
	cr_assert_str_eq(kept->job_array[0].admin_comment,
			 array->admin_comment);
	cr_assert_null(kept->job_array[0].exc_nodes);
	cr_assert_eq(kept->job_array[1].job_id, 11);
	cr_assert_str_eq(kept->job_array[1].exc_nodes, "n[3-4]");
	cr_assert_str_eq(kept->job_array[1].req_nodes, "n2");
	cr_assert_eq(kept->job_array[1].priority, 1000);
	cr_assert_eq(kept->job_array[1].job_state, JOB_PENDING);
#if SX_SLURM_HAS_EXTRA_OPTION
	cr_assert_str_eq(kept->job_array[1].extra, REQUEST);
#endif
	cr_assert_eq(kept->job_array[2].job_id, 12);
	cr_assert_null(kept->job_array[2].admin_comment);

	plan(t, jobs, NULL, 0, &known, &whole);
	plan(t, kept, NULL, 0, &known, &p);
	cr_assert_not_null(update_of(&whole, 12),
			   "job 12 is planned from prev");
	cr_assert_eq(p.n, whole.n);
	cr_assert_eq(p.known.count, whole.known.count);
	for (size_t i = 0; i < whole.n; i++) {
		const struct job_update *u = update_of(&p, whole.u[i].job_id);

		cr_assert_str_eq(u->exc_nodes ? u->exc_nodes : "(none)",
				 whole.u[i].exc_nodes ? whole.u[i].exc_nodes
						      : "(none)");
		cr_assert_eq(u->priority, whole.u[i].priority);
	}
	plan_free(&whole);
	kept_jobs_free(kept);
}

Test(refilter, nothing_loaded_keeps_an_empty_list)
{
	job_info_msg_t *kept = kept_jobs_keep(NULL, NULL);

	cr_assert_not_null(kept);
	cr_assert_eq(kept->record_count, 0);
	kept_jobs_free(kept);
	kept_jobs_free(NULL);
}
