/*
 * test_plugin.c - job_submit/extra's job_submit() outside slurmctld, in
 * the context of test_plugin_fixture.h: a job with a valid request gets
 * the state burst_buffer/extra reads in its AdminComment and nothing
 * else; an invalid one, bad preferences, or a request where nothing
 * filters are refused with the plugin's message; a job without a request
 * is left alone.  job_modify() is test_plugin_modify*.c's and
 * test_plugin_guard.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "entry.h"
#include "job_state.h"
#include "plugin_config.h"
#include "prefer.h"

#include <criterion/criterion.h>

#include "test_plugin_fixture.h"

/* A request every node satisfies, and the SPANK plugin's variables for
 * the preferences `tiers` (each ended by PREFER_SEP) and `wait`. */
#define ANY "gpu=true|gpu=false"
static char env_tiers[256], env_wait[64];
static char *env[2] = { env_tiers, env_wait };

static job_desc_msg_t *preferring(const char *request, const char *tiers,
				  const char *wait)
{
	job_desc_msg_t *d = submission(&desc, request);

	snprintf(env_tiers, sizeof(env_tiers), "%s%s", PREFER_VAR, tiers);
	snprintf(env_wait, sizeof(env_wait), "%s%s", PREFER_WAIT_VAR, wait);
	d->spank_job_env = env;
	d->spank_job_env_size = 2;
	return d;
}

/* The job_desc's borrowed environment is not Slurm's to free. */
static void submit_done(job_desc_msg_t *d)
{
	d->spank_job_env = NULL;
	d->spank_job_env_size = 0;
}

/* ---------------------------------------------------------- job_submit */

Test(plugin, an_invalid_request_is_refused_at_submission)
{
	job_desc_msg_t *d = submission(&desc, "gpu=");

	assert_refused_request(job_submit(d, OWNER, &err));
	cr_assert_null(d->exc_nodes);
	cr_assert_null(d->admin_comment);
}

Test(plugin, excluded_nodes_that_are_not_a_hostlist_are_refused)
{
	job_desc_msg_t *d = submission(&desc, REQUEST);

	/* Not "n[3-1]": libslurm 22.05's hostlist_create() leaks a few bytes
	 * on a bad range, which the sanitizer build would report. */
	sx_hostlist_t hl = slurm_hostlist_create("n[1-2]]");

	if (hl) { /* Slurm 24.11 reads it as a hostlist */
		slurm_hostlist_destroy(hl);
		cr_skip_test("this Slurm's hostlist_create() takes 'n[1-2]]'");
	}
	set_str(&d->exc_nodes, "n[1-2]]");
	cr_assert_eq(job_submit(d, OWNER, &err), ESLURM_INVALID_NODE_NAME);
	assert_plugins_error();
	cr_assert_null(d->admin_comment);
}

Test(plugin, an_admins_comment_at_submission_stays_in_front)
{
	job_desc_msg_t *d = submission(&desc, REQUEST);

	set_str(&d->admin_comment, "keep me");
	cr_assert_eq(job_submit(d, 0, &err), SLURM_SUCCESS);
	cr_assert_eq(strncmp(d->admin_comment, "keep me" MARK, 20), 0, "'%s'",
		     d->admin_comment);
	state_of(d->admin_comment, &st);
	cr_assert_str_eq(st.admin, "keep me");
	cr_assert_str_eq(st.request, REQUEST);
}

/* On 22.05 a client without --extra sends the SPANK option's variable. */
Test(plugin, a_request_from_the_spank_option_is_recorded_too)
{
	job_desc_msg_t *d = submission(&desc, NULL);
	char *spank_env[] = { "FOO=bar", SPANK_VAR "gpu=false" };

	d->spank_job_env = spank_env;
	d->spank_job_env_size = 2;
	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_SUCCESS);
	d->spank_job_env = NULL;
	d->spank_job_env_size = 0;
	cr_assert_null(d->exc_nodes, "the guard keeps it off at placement");
	state_of(d->admin_comment, &st);
	cr_assert_str_eq(st.request, "gpu=false");
}

Test(plugin, a_job_without_a_request_is_left_alone)
{
	job_desc_msg_t *d = submission(&desc, NULL);

	set_str(&d->exc_nodes, "n1");
	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->exc_nodes, "n1");
	cr_assert_null(d->admin_comment);
	cr_assert_null(err);
}

Test(plugin, a_request_without_the_plugin_running_is_refused)
{
	job_desc_msg_t *d = submission(&desc, REQUEST);
	entry_on = false;
	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_ERROR);
	entry_on = true;
	assert_plugins_error();
	cr_assert_null(d->exc_nodes);
}

/* job_submit() leaves errno as it found it, though reading the wait sets
 * it (strtol), as job_modify() does (job_submit_extra.c: Slurm's update
 * path answers with errno, src/slurmctld/job_mgr.c _update_job()). */
Test(plugin, job_submit_leaves_errno_as_slurm_had_it)
{
	job_desc_msg_t *d = preferring(ANY, "gpu=false\036", "60");
	int rc;

	errno = EAGAIN;
	rc = job_submit(d, OWNER, &err);
	submit_done(d);
	cr_assert_eq(errno, EAGAIN, "errno %d (%s) after job_submit()", errno,
		     strerror(errno));
	cr_assert_eq(rc, SLURM_SUCCESS, "%s", err);
}

/* What is refused, with the reason. */
Test(plugin, bad_preferences_are_refused_at_submission)
{
	static const struct {
		const char *request, *tiers, *wait, *says;
	} rows[] = {
		{ ANY, "gpu=\036", "0", "--extra-prefer (preference 1): " },
		{ ANY, "a=1\036b=\036", "0",
		  "--extra-prefer (preference 2): " },
		{ ANY, "a\036b\036c\036d\036e\036f\036g\036h\036i\036", "0",
		  "at most 8" },
		{ ANY, "a=1", "0", "mangled" },
		{ ANY, "a=1\036", "x", "not a number of seconds" },
		{ ANY, "", "60", "it needs --extra-prefer" },
		{ NULL, "a=1\036", "0", "it needs a request" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		job_desc_msg_t *d = preferring(rows[i].request, rows[i].tiers,
					       rows[i].wait);
		int rc = job_submit(d, OWNER, &err);

		submit_done(d);
		cr_assert_neq(rc, SLURM_SUCCESS, "row %zu", i);
		cr_assert_not_null(err, "row %zu", i);
		cr_assert(strstr(err, rows[i].says), "row %zu: %s", i, err);
		cr_assert_null(d->admin_comment, "row %zu", i);
		slurm_xfree((void **)&err);
		desc_free(d);
	}
}

/* A client that submits after refusing one of the options (24.11's sbatch
 * with the SPANK plugin `optional`) sends the mark: refused. */
Test(plugin, what_the_client_refused_is_refused)
{
	job_desc_msg_t *d = submission(&desc, ANY);
	char mark[] = PREFER_REFUSED_VAR "1";
	char *one[1] = { mark };
	int rc;

	d->spank_job_env = one;
	d->spank_job_env_size = 1;
	rc = job_submit(d, OWNER, &err);
	submit_done(d);
	cr_assert_neq(rc, SLURM_SUCCESS);
	cr_assert(err && strstr(err, "refused by the client"), "%s", err);
	cr_assert_null(d->admin_comment);
}

/* ------------------------------------------------------- Carrier=guard */

/* burst_buffer/extra keeps the jobs off (by_guard()): job_submit()
 * records the state it reads and nothing else. */

Test(plugin, by_the_guard_a_submission_gets_its_state_alone)
{
	job_desc_msg_t *d = submission(&desc, REQUEST);
	uint32_t priority = d->priority;

	by_guard();
	set_str(&d->exc_nodes, "n1");
	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_null(err);
	cr_assert_str_eq(d->exc_nodes, "n1", "the user's own list, untouched");
	cr_assert_eq(d->priority, priority, "priority %u", d->priority);
	state_of(d->admin_comment, &st);
	cr_assert_str_eq(st.request, REQUEST);
	cr_assert_str_eq(st.exclude, "n1");
	cr_assert_str_eq(st.status, SX_GUARD_STATUS);
	cr_assert_eq(st.wrote, xc_text_hash("n1"));
	cr_assert_not(st.held);
}

/* No node matching, or a required node that does not: the job is
 * accepted and not held, as by Slurm's own filter; the guard lets it
 * wait at its placement. */
Test(plugin, by_the_guard_no_node_matching_is_not_held)
{
	job_desc_msg_t *d = submission(&desc, "mem>100");
	uint32_t priority = d->priority;

	by_guard();
	d->min_nodes = 3;
	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_eq(d->priority, priority, "priority %u", d->priority);
	cr_assert_null(d->exc_nodes);
	state_of(d->admin_comment, &st);
	cr_assert_not(st.held);
	cr_assert_str_eq(st.request, "mem>100");
	sx_job_state_free(&st);
	desc_free(d);

	d = submission(&desc, REQUEST);
	set_str(&d->req_nodes, "n3");
	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_eq(d->priority, priority, "priority %u", d->priority);
	cr_assert_null(d->exc_nodes);
	state_of(d->admin_comment, &st);
	cr_assert_not(st.held);
}

/* Preferences are recorded for the guard to pick at placement; nothing
 * narrowed here. */
Test(plugin, by_the_guard_preferences_are_recorded)
{
	job_desc_msg_t *d = preferring(ANY, "gpu=false\036", "60");
	int rc;

	by_guard();
	rc = job_submit(d, OWNER, &err);
	submit_done(d);
	cr_assert_eq(rc, SLURM_SUCCESS, "%s", err);
	cr_assert_null(d->exc_nodes);
	state_of(d->admin_comment, &st);
	cr_assert_str_eq(st.request, ANY);
	cr_assert_eq(st.n_prefer, 1);
	cr_assert_str_eq(st.prefer[0], "gpu=false");
	cr_assert_eq(st.wait, 60);
	cr_assert_str_eq(st.status, SX_GUARD_STATUS);
}

/* ----------------------------------------------------- nothing filters */

/* Neither burst_buffer/extra nor Slurm's own filter: a job with a request
 * would run anywhere; refused with ESLURM_NOT_SUPPORTED and the reason
 * (entry.h NO_FILTER_HERE), an invalid one still with its caret,
 * preferences too; a job without a request is Slurm's as ever. */
Test(plugin, where_nothing_filters_a_request_is_refused)
{
	job_desc_msg_t *d = submission(&desc, REQUEST);
	int rc;

	by_nobody();
	assert_no_filter_here(job_submit(d, OWNER, &err));
	cr_assert_null(d->admin_comment);
	cr_assert_null(d->exc_nodes);
	slurm_xfree((void **)&err);
	desc_free(d);

	d = submission(&desc, "gpu=");
	assert_refused_request(job_submit(d, OWNER, &err));
	slurm_xfree((void **)&err);
	desc_free(d);

	d = preferring(ANY, "gpu=false\036", "60");
	rc = job_submit(d, OWNER, &err);
	submit_done(d);
	assert_no_filter_here(rc);
	cr_assert_null(d->admin_comment);
	slurm_xfree((void **)&err);
	desc_free(d);

	d = submission(&desc, NULL);
	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_null(err);
	cr_assert_null(d->admin_comment);
}
