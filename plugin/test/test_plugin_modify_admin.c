/*
 * test_plugin_modify_admin.c - job_submit/extra's job_modify() outside
 * slurmctld, in the context of test_plugin_fixture.h (the thread's state
 * built by hand through thread_private.h), for what comes from
 * slurmctld's side and its admins: the thread's own update, passed or
 * refused when someone else changed its job after it was planned; a super
 * user's AdminComment, on a whole array or holding a state; the requeue
 * note of the check at start; job_modify() as each Slurm calls it
 * (doc/thread.md "Updates").  Users' updates are test_plugin_modify.c's.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "entry.h"
#include "job_filter.h"
#include "job_state.h"
#include "plugin_config.h"

#include <criterion/criterion.h>

#include "test_plugin_fixture.h"

/* ------------------------------------------------ the thread's own update */

static struct job_update thread_update = { .job_id = 7,
					   .ids = { 7, 0, 0 },
					   .job_id_str = (char *)"7" };

/* The thread's update of job 7, as job_update_send() sends it. */
static job_desc_msg_t *threads_desc(job_desc_msg_t *d)
{
	update(d, "7");
	set_str(&d->exc_nodes, "n[3-4]");
	set_str(&d->admin_comment, SX_STATE_MARK TWO_OF_FOUR
		"; held=0; exclude=; request=" REQUEST);
	return d;
}

Test(plugin, the_threads_own_update_passes_unhinted)
{
	job_desc_msg_t *d = threads_desc(&desc);

	entry_thread->inflight = &thread_update;
	entry_thread->inflight_since = entry_thread->hints.seq;
	cr_assert_eq(modify(d, getuid(), &err), SLURM_SUCCESS);
	cr_assert_null(err);
	cr_assert_eq(entry_thread->hints.n, 0, "%zu hints",
		     entry_thread->hints.n);
	cr_assert_str_eq(d->exc_nodes, "n[3-4]");
}

Test(plugin, the_threads_update_after_someone_elses_is_refused)
{
	job_desc_msg_t *d = threads_desc(&desc), *users = update(&desc2, "7");
	int rc;

	entry_thread->inflight = &thread_update;
	entry_thread->inflight_since = entry_thread->hints.seq;
	users->priority = 0;
	cr_assert_eq(modify(users, OWNER, &err), SLURM_SUCCESS);
	cr_assert_eq(entry_thread->hints.n, 1);
	rc = modify(d, getuid(), &err);
	cr_assert_neq(rc, SLURM_SUCCESS);
	cr_assert_not_null(err);
	cr_assert_not_null(strstr(err, "changed"), "'%s'", err);
	cr_assert_eq(entry_thread->hints.n, 1, "%zu hints",
		     entry_thread->hints.n);
}

/* Only a hint for its job, after its plan, stops the thread's update. */
Test(plugin, the_threads_update_passes_other_jobs_and_older_hints)
{
	job_desc_msg_t *d = threads_desc(&desc), *users = update(&desc2, "8");

	users->priority = 0;
	cr_assert_eq(modify(users, OWNER, &err), SLURM_SUCCESS);
	entry_thread->inflight = &thread_update;
	entry_thread->inflight_since =
		0; /* planned before the hint for job 8 */
	cr_assert_eq(modify(d, getuid(), &err), SLURM_SUCCESS);
	desc_free(users);
	users = update(&desc2, "7");
	users->priority = 0;
	entry_thread->inflight = NULL;
	cr_assert_eq(modify(users, OWNER, &err), SLURM_SUCCESS);
	entry_thread->inflight = &thread_update;
	entry_thread->inflight_since =
		entry_thread->hints.seq; /* planned after it */
	cr_assert_eq(modify(d, getuid(), &err), SLURM_SUCCESS);
	cr_assert_null(err);
}

/* job_modify() has the prototype slurmctld calls it through: three
 * arguments on 22.05 (src/slurmctld/job_submit.c), four from 23.02.  With
 * a fourth on 22.05 it read a register's leftover as err_msg, and a
 * refusal freed and wrote through it. */
Test(plugin, job_modify_has_slurms_prototype)
{
	job_desc_msg_t *d = update(&desc, "7");
#if SX_MODIFY_HAS_ERR_MSG
	int (*slurm_calls)(job_desc_msg_t *, void *, uint32_t, char **) =
		job_modify;

	d->priority = 0;
	cr_assert_eq(slurm_calls(d, NULL, OWNER, &err), SLURM_SUCCESS);
#else
	int (*slurm_calls)(job_desc_msg_t *, void *, uint32_t) = job_modify;

	d->priority = 0;
	cr_assert_eq(slurm_calls(d, NULL, OWNER), SLURM_SUCCESS);
#endif
	cr_assert_eq(entry_thread->hints.n, 1);
}

/* 22.05 ignores `extra` in an update (its Extra is not a job field there):
 * the plugin neither refuses an invalid one nor drops the job's filter. */
Test(plugin, an_extra_in_a_22_05_update_is_ignored)
{
	job_desc_msg_t *d = update(&desc, "7");

	if (SX_SLURM_HAS_EXTRA_OPTION)
		cr_skip_test("from 23.02 `extra` is the job's request");
	set_str(&d->extra, "gpu=");
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_null(err);
	cr_assert_eq(entry_thread->hints.n, 0, "nothing the plan reads");
}

/* Root's AdminComment on a whole array: Slurm calls job_modify() once per
 * record with the same job_desc; the state is appended once (it grew by
 * one state a record: quadratic in the tasks). */
Test(plugin, an_admin_comment_on_a_whole_array_gets_one_state)
{
	job_desc_msg_t *d = update(&desc, "7");
	char *first;

	set_str(&d->admin_comment, "reboot first");
	cr_assert_eq(modify(d, 0, &err), SLURM_SUCCESS);
	first = strdup(d->admin_comment);
	for (int record = 1; record < 4; record++)
		cr_assert_eq(modify(d, 0, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->admin_comment, first);
	cr_assert_eq(entry_thread->hints.n, 1);
	free(first);
}

/* An admin's text that holds a state (copied from `scontrol show job`):
 * theirs is kept, the old state dropped, one state after it. */
Test(plugin, a_state_inside_an_admins_text_is_not_kept_twice)
{
	job_desc_msg_t *d = update(&desc, "7");

	set_str(&d->admin_comment,
		"note " MARK "old; held=0; exclude=n9; request=old=1");
	cr_assert_eq(modify(d, 0, &err), SLURM_SUCCESS);
	state_of(d->admin_comment, &st);
	cr_assert_str_eq(st.admin, "note");
	cr_assert_str_eq(st.request, REQUEST);
	cr_assert_null(strstr(strstr(d->admin_comment, MARK) + 1, MARK),
		       "two states: '%s'", d->admin_comment);
}

/* ------------------------------------------- the check at start's note */

/* `slurm-extra prolog-slurmctld` (root's or SlurmUser's) writes the job's
 * state with its requeue note in front of the status: the note is taken,
 * the rest of the state is the plugin's own (job_state.h). */
Test(plugin, the_checks_requeue_note_is_taken_from_root)
{
	job_desc_msg_t *d = update(&desc, "7");

	set_str(&d->admin_comment, MARK
		"requeued T: n3 no longer; old; held=0; exclude=n9; request=old=1");
	cr_assert_eq(modify(d, 0, &err), SLURM_SUCCESS);
	state_of(d->admin_comment, &st);
	cr_assert_str_eq(st.status, "requeued T: n3 no longer; " TWO_OF_FOUR);
	cr_assert_str_eq(st.request, REQUEST);
	cr_assert_str_eq(st.exclude, "");
	cr_assert_null(st.admin);
}

/* Another administrator's (Slurm lets AdminLevel=Administrator set
 * AdminComment) is not: only the plugin's status stays. */
Test(plugin, a_requeue_note_from_an_operator_is_not_taken)
{
	job_desc_msg_t *d = update(&desc, "7");

	set_str(&d->admin_comment, MARK
		"requeued T: n3 no longer; old; held=0; exclude=; request=old=1");
	cr_assert_eq(modify(d, OTHER, &err), SLURM_SUCCESS);
	state_of(d->admin_comment, &st);
	cr_assert_str_eq(st.status, TWO_OF_FOUR);
}

/* ------------------------------------------------------- Carrier=guard */

/* A job's AdminComment as job_submit() writes it with Carrier=guard. */
#define GUARD_STATE                                                            \
	"site note " SX_STATE_MARK                                             \
	"burst_buffer/extra keeps the job off at placement; held=0; "          \
	"exclude=n1; request=" REQUEST

/* A super user's AdminComment keeps the job's state after it (the record
 * read through burst_buffer/extra: modify_as()'s `api`), a state copied
 * into it replaced by the job's own; a job without a state is Slurm's
 * alone (no thread: by_guard()), and the record not written (Slurm
 * sets the AdminComment). */
Test(plugin, by_the_guard_a_super_users_comment_keeps_the_state)
{
	job_desc_msg_t *d = update(&desc, "7");
	struct fake_record job = { strdup(GUARD_STATE), OWNER, 0, NULL, NULL };

	by_guard();
	set_str(&d->admin_comment, "reviewed");
	cr_assert_eq(modify_as(d, &fake_api, &job, 0, &err), SLURM_SUCCESS);
	state_of(d->admin_comment, &st);
	cr_assert_str_eq(st.admin, "reviewed");
	cr_assert_str_eq(st.request, REQUEST);
	cr_assert_str_eq(st.exclude, "n1");
	sx_job_state_free(&st);

	/* a state copied from `scontrol show job`, another request in it */
	d = update(&desc2, "7");
	set_str(&d->admin_comment,
		"again  " SX_STATE_MARK "x; held=0; exclude=; request=mem>1");
	cr_assert_eq(modify_as(d, &fake_api, &job, 0, &err), SLURM_SUCCESS);
	state_of(d->admin_comment, &st);
	cr_assert_str_eq(st.admin, "again");
	cr_assert_str_eq(st.request, REQUEST);
	sx_job_state_free(&st);
	desc_free(&desc);
	cr_assert_eq(job.sets, 0);

	/* no state: as the caller set it */
	d = update(&desc, "7");
	set_str(&d->admin_comment, "mine");
	free(job.admin);
	job.admin = strdup("a note of the site");
	cr_assert_eq(modify_as(d, &fake_api, &job, 0, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->admin_comment, "mine");
	free(job.admin);
}

/* One update, several records (a heterogeneous job's components, an
 * array's tasks: Slurm hands each the same job_desc): each record gets
 * its own state after the admin's text, and one without a state gets the
 * admin's text alone, never the state the last record left in the
 * job_desc. */
Test(plugin, by_the_guard_one_comment_for_several_records)
{
	job_desc_msg_t *d = update(&desc, "200");
	struct fake_record with = { strdup(GUARD_STATE), OWNER, 0, NULL, NULL };
	struct fake_record without = { strdup("site"), OWNER, 0, NULL, NULL };

	by_guard();
	set_str(&d->admin_comment, "reviewed");
	cr_assert_eq(modify_as(d, &fake_api, &with, 0, &err), SLURM_SUCCESS);
	state_of(d->admin_comment, &st);
	cr_assert_str_eq(st.request, REQUEST);
	sx_job_state_free(&st);
	cr_assert_eq(modify_as(d, &fake_api, &without, 0, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->admin_comment, "reviewed");
	cr_assert_eq(modify_as(d, &fake_api, &with, 0, &err), SLURM_SUCCESS);
	state_of(d->admin_comment, &st);
	cr_assert_str_eq(st.admin, "reviewed");
	cr_assert_str_eq(st.request, REQUEST);
	free(with.admin);
	free(without.admin);
}

/* burst_buffer/extra lends no record (another build): an AdminComment
 * update is refused, saying why, where it would replace the request. */
Test(plugin, by_the_guard_no_record_no_comment)
{
	job_desc_msg_t *d = update(&desc, "7");

	by_guard();
	set_str(&d->admin_comment, "reviewed");
	cr_assert_eq(modify_as(d, NULL, NULL, 0, &err), ESLURM_NOT_SUPPORTED);
	cr_assert_not_null(err);
	cr_assert_not_null(strstr(err, "burst_buffer/extra"), "%s", err);
}
