/*
 * test_plugin_modify.c - job_submit/extra's job_modify() outside
 * slurmctld, in the context of test_plugin_fixture.h: an update of
 * anything but the plugin's fields passes untouched; a new request is
 * checked as at submission; job_modify() as each Slurm calls it, errno
 * left as Slurm had it; a super user's AdminComment keeps the state
 * burst_buffer/extra reads; where nothing filters, a new request or
 * preferences are refused (doc/guard.md "Updates").  The owner's changes
 * of preferences and requests written into the job's state, and the
 * caps, are test_plugin_guard.c's.
 */
#define _GNU_SOURCE /* asprintf */

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "entry.h"
#include "job_state.h"
#include "plugin_config.h"
#include "prefer.h"

#include <criterion/criterion.h>

#include "test_plugin_fixture.h"
#include "test_plugin_prefer.h"

Test(plugin, an_update_of_other_fields_changes_nothing)
{
	job_desc_msg_t *d = update(&desc, "7");

	d->time_limit = 60;
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_null(d->exc_nodes);
	cr_assert_null(d->admin_comment);
	cr_assert_null(d->req_nodes);
	cr_assert_eq(d->time_limit, 60);
}

/* A new request is checked as at submission. */
Test(plugin, an_invalid_new_request_is_refused)
{
	job_desc_msg_t *d = update(&desc, "7");

	if (!SX_SLURM_HAS_EXTRA_OPTION)
		cr_skip_test(
			"22.05 has no `extra` in updates: the plugin ignores it too");

	set_str(&d->extra, "gpu=");
	set_str(&d->exc_nodes, "n1");
	assert_refused_request(modify(d, OWNER, &err));
	cr_assert_str_eq(d->exc_nodes, "n1");
	cr_assert_null(d->admin_comment);
}

Test(plugin, an_update_without_the_plugin_running_passes)
{
	job_desc_msg_t *d = update(&desc, "7");

	set_str(&d->exc_nodes, "n1");
	entry_on = false;
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	entry_on = true;
	cr_assert_str_eq(d->exc_nodes, "n1");
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
	cr_assert_null(err);
}

/* 22.05 ignores `extra` in an update (its Extra is not a job field there):
 * the plugin neither refuses an invalid one nor drops the job's request. */
Test(plugin, an_extra_in_a_22_05_update_is_ignored)
{
	job_desc_msg_t *d = update(&desc, "7");

	if (SX_SLURM_HAS_EXTRA_OPTION)
		cr_skip_test("from 23.02 `extra` is the job's request");
	set_str(&d->extra, "gpu=");
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_null(err);
}

/* Slurm answers a change of partition with errno when it finds no
 * association (src/slurmctld/job_mgr.c _update_job()): job_modify()
 * leaves errno as it found it, though reading a wait sets it (strtol). */
Test(plugin, job_modify_leaves_errno_as_slurm_had_it)
{
	job_desc_msg_t *d = update(&desc, "7");
	char *env[2] = { NULL, NULL };
	int rc;

	carry(d, env, NULL, "600");
	errno = EAGAIN;
#if SX_MODIFY_HAS_ERR_MSG
	rc = job_modify(d, NULL, OWNER, &err);
#else
	rc = job_modify(d, NULL, OWNER);
#endif
	cr_assert_eq(errno, EAGAIN, "errno %d (%s) after job_modify()", errno,
		     strerror(errno));
	cr_assert_neq(rc, SLURM_SUCCESS, "no record lent: refused");
	carried_free(d, env);
}

/* A job's AdminComment as job_submit() writes it with Carrier=guard. */
#define GUARD_STATE                                                            \
	"site note " SX_STATE_MARK                                             \
	"burst_buffer/extra keeps the job off at placement; held=0; "          \
	"exclude=n1; request=" REQUEST

/* 8 tiers of about 1,000 bytes each, within the request limit: the
 * largest change job_modify() copies (PREFER_TIERS_MAX), malloc'd. */
static char *largest_tiers(void)
{
	size_t limit = request_limit(), len = 0;
	char *t = malloc(PREFER_TIERS_MAX(limit) + 1);

	cr_assert_not_null(t);
	for (int i = 0; i < SX_MAX_PREFER; i++) {
		len += (size_t)sprintf(t + len, "gpu=true&k%d=", i);
		while (len % (limit + 1) < limit - 8)
			t[len++] = 'a';
		t[len++] = PREFER_SEP;
	}
	t[len] = '\0';
	return t;
}

/* What a refused or repeated update reads of its change is freed: 1,000
 * of them, each with the largest change read, leave the heap as it was
 * (the sanitizer build's leak check says so of every path too).  Before,
 * the repeat of one update across an array's records (22.05: another
 * user's with a list, each record's call reading the change again) and
 * the caps' refusal of a new request (23.02+) kept every copy: about
 * 8 MB here, 95 MB with 100 KB tiers. */
Test(plugin, refused_and_repeated_changes_are_freed)
{
	char *tiers = largest_tiers(), *env[2] = { NULL, NULL }, extra[32];
	struct fake_record job = { strdup(GUARD_STATE), OWNER, 0, NULL, NULL };
	struct census fresh;
	size_t before = 0;

	cr_assert_eq(census_count_jobs(NULL, 0, &fresh), 0);
	caps_take(&fresh, 0);
	entry_cfg.max_user_requests = 1;
	for (int i = 0; i <= 1000; i++) {
		job_desc_msg_t *d = update(&desc, "7");
		uint32_t caller = SX_OWNER_CHECKED_FIRST ? OWNER : OTHER;

		if (i == 1) /* after one of each: what stays is a leak */
			before = mallinfo2().uordblks;
		set_str(&d->exc_nodes, "n1");
#if SX_SLURM_HAS_EXTRA_OPTION
		snprintf(extra, sizeof(extra), "gpu=true&y=%d", i);
		set_str(&d->extra, extra); /* a new request past the cap */
#else
		(void)extra;
#endif
		for (int k = 0; k < 2; k++) { /* two records of an array */
			carry(d, env, tiers, "60");
			modify_prefer_as(d, env, caller, &job);
			slurm_xfree((void **)&err);
		}
		desc_free(d);
	}
	cr_assert_lt(mallinfo2().uordblks, before + 65536,
		     "%zu bytes more after 1,000 updates",
		     mallinfo2().uordblks - before);
	free(tiers);
	free(job.admin);
}

/* A super user's AdminComment keeps the job's state after it (the record
 * read through burst_buffer/extra: modify_as()'s `api`), a state copied
 * into it replaced by the job's own; a job without a state is Slurm's
 * alone, and the record not written (Slurm
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

/* ----------------------------------------------------- nothing filters */

/* Neither burst_buffer/extra nor Slurm's own filter: a new request, or a
 * change of preferences, is refused (entry.h NO_FILTER_HERE); an invalid
 * request still with its caret; a request dropped and any other field
 * are Slurm's. */
Test(plugin, where_nothing_filters_a_new_request_is_refused)
{
	job_desc_msg_t *d = update(&desc, "7");
	char *env[2] = { NULL, NULL };

	by_nobody();
	carry(d, env, "gpu=false\036", "60");
	assert_no_filter_here(modify_prefer(d, env, OWNER));
	slurm_xfree((void **)&err);
	d->time_limit = 60;
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	if (!SX_SLURM_HAS_EXTRA_OPTION)
		return; /* 22.05: no `extra` in updates */
	set_str(&d->extra, REQUEST);
	assert_no_filter_here(modify(d, OWNER, &err));
	cr_assert_str_eq(d->extra, REQUEST, "the update's own, untouched");
	cr_assert_null(d->admin_comment);
	slurm_xfree((void **)&err);
	set_str(&d->extra, "gpu=");
	assert_refused_request(modify(d, OWNER, &err));
	slurm_xfree((void **)&err);
	set_str(&d->extra, "");
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS, "%s", err);
}
