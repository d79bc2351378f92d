/*
 * test_plugin.c - job_submit/extra's job_submit() outside slurmctld, in
 * the context of test_plugin_fixture.h (the thread's state built by hand
 * through thread_private.h): the plugin's exclusions and state,
 * refusals of an invalid request, and the hold when too few nodes are
 * left.  job_modify() is test_plugin_modify.c's, the thread's
 * test_plugin_thread.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "entry.h"
#include "job_filter.h"
#include "job_state.h"
#include "plugin_config.h"
#include "prefer.h"

#include <criterion/criterion.h>

#include "test_plugin_fixture.h"

/* ---------------------------------------------------------- job_submit */

Test(plugin, a_submission_gets_the_plugins_exclusions_and_state)
{
	job_desc_msg_t *d = submission(&desc, REQUEST);
	uint32_t priority = d->priority;

	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_null(err);
	cr_assert_str_eq(d->exc_nodes, "n[3-4]");
	cr_assert_eq(d->priority, priority, "priority %u", d->priority);
	state_of(d->admin_comment, &st);
	cr_assert_null(st.admin);
	cr_assert_str_eq(st.status, TWO_OF_FOUR);
	cr_assert_str_eq(st.request, REQUEST);
	cr_assert_str_eq(st.exclude, "");
	cr_assert_not(st.held);
}

Test(plugin, an_invalid_request_is_refused_at_submission)
{
	job_desc_msg_t *d = submission(&desc, "gpu=");

	assert_refused_request(job_submit(d, OWNER, &err));
	cr_assert_null(d->exc_nodes);
	cr_assert_null(d->admin_comment);
}

Test(plugin, the_users_exclusions_are_kept_with_the_plugins)
{
	job_desc_msg_t *d = submission(&desc, REQUEST);

	set_str(&d->exc_nodes, "n1");
	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->exc_nodes, "n[1,3-4]");
	state_of(d->admin_comment, &st);
	cr_assert_str_eq(st.exclude, "n1");
	cr_assert_str_eq(st.status, ONE_OF_FOUR);
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
Test(plugin, a_request_from_the_spank_option_is_filtered_too)
{
	job_desc_msg_t *d = submission(&desc, NULL);
	char *env[] = { "FOO=bar", SPANK_VAR "gpu=false" };

	d->spank_job_env = env;
	d->spank_job_env_size = 2;
	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_SUCCESS);
	d->spank_job_env = NULL;
	d->spank_job_env_size = 0;
	cr_assert_str_eq(d->exc_nodes, "n[1-2]");
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

/* ------------------------------------------------------------ the hold */

Test(plugin, too_few_nodes_left_of_enough_holds_the_job)
{
	job_desc_msg_t *d = submission(&desc, REQUEST);

	d->min_nodes = 3; /* 2 match, 4 in the cluster */
	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_eq(d->priority, 0, "priority %u", d->priority);
	cr_assert_str_eq(d->exc_nodes, "n[3-4]");
	state_of(d->admin_comment, &st);
	cr_assert(st.held);
}

Test(plugin, more_nodes_than_the_cluster_has_is_left_to_slurm)
{
	job_desc_msg_t *d = submission(&desc, REQUEST);
	uint32_t priority = d->priority;

	d->min_nodes = 5;
	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_eq(d->priority, priority, "priority %u", d->priority);
	cr_assert_neq(d->priority, 0);
	state_of(d->admin_comment, &st);
	cr_assert_not(st.held);
}

Test(plugin, no_node_matching_holds_the_job)
{
	job_desc_msg_t *d = submission(&desc, "mem>100");

	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_eq(d->priority, 0, "priority %u", d->priority);
	cr_assert_str_eq(d->exc_nodes, "n[1-4]");
	state_of(d->admin_comment, &st);
	cr_assert(st.held);
	cr_assert_str_eq(st.request, "mem>100");
}

/* The user's own hold is theirs to release: held=0. */
Test(plugin, the_users_own_hold_is_not_the_plugins)
{
	job_desc_msg_t *d = submission(&desc, REQUEST);

	d->min_nodes = 3;
	d->priority = 0;
	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_eq(d->priority, 0);
	state_of(d->admin_comment, &st);
	cr_assert_not(st.held);
}

/* A required node that does not match: not excluded (Slurm would refuse
 * the job), and the plugin holds the job. */
Test(plugin, a_required_node_that_does_not_match_holds_the_job)
{
	job_desc_msg_t *d = submission(&desc, REQUEST);

	set_str(&d->req_nodes, "n3");
	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->exc_nodes, "n4");
	cr_assert_eq(d->priority, 0, "priority %u", d->priority);
	state_of(d->admin_comment, &st);
	cr_assert(st.held);
}

/* ----------------------------------------------------------- job_modify */

/* ------------------------------------------------------------- caps */

/* Past MaxPendingRequestsPerUser a new request is refused as Slurm
 * refuses past MaxSubmitJobs, with a message naming the setting; a request
 * the user has pending already, and another user's, are taken
 * (doc/design.md "Caps").  The job's owner counts, not the submitter. */
Test(plugin, a_new_request_past_the_users_cap_is_refused)
{
	job_desc_msg_t *d = submission(&desc, REQUEST);
	struct census fresh;

	cr_assert_eq(census_count(NULL, &fresh), 0); /* the thread's count */
	caps_take(&fresh, 0);
	entry_cfg.max_user_requests = 1;
	d->user_id = OWNER;
	cr_assert_eq(job_submit(d, 0, &err), SLURM_SUCCESS, "%s", err);
	desc_free(d);
	d = submission(&desc, "gpu=false");
	d->user_id = OWNER;
	cr_assert_eq(job_submit(d, OWNER, &err), ESLURM_ACCOUNTING_POLICY);
	cr_assert(err && strstr(err, "MaxPendingRequestsPerUser=1"), "%s", err);
	slurm_xfree((void **)&err);
	desc_free(d);
	d = submission(&desc, REQUEST); /* the one pending: taken */
	d->user_id = OWNER;
	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_SUCCESS, "%s", err);
	desc_free(d);
	d = submission(&desc, "gpu=false"); /* another user */
	d->user_id = OWNER + 1;
	cr_assert_eq(job_submit(d, OWNER + 1, &err), SLURM_SUCCESS, "%s", err);
}

/* ------------------------------------------ job_submit: preferences */

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

Test(plugin, a_preference_with_a_wait_narrows_the_new_job)
{
	job_desc_msg_t *d = preferring(ANY, "gpu=false\036", "60");
	int rc = job_submit(d, OWNER, &err);

	submit_done(d);
	cr_assert_eq(rc, SLURM_SUCCESS, "%s", err);
	cr_assert_str_eq(d->exc_nodes, "n[1-2]");
	state_of(d->admin_comment, &st);
	cr_assert_str_eq(st.request, ANY);
	cr_assert_eq(st.n_prefer, 1);
	cr_assert_str_eq(st.prefer[0], "gpu=false");
	cr_assert_eq(st.wait, 60);
	cr_assert(strncmp(st.status, "preferring tier 1 of 1 (2 nodes) until ",
			  39) == 0,
		  "%s", st.status);
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

/* No wait: narrowed only to a free node of the strongest tier that has
 * one; none known free, the request alone. */
Test(plugin, a_preference_without_a_wait_wants_a_free_node)
{
	struct thread *r = entry_thread;
	job_desc_msg_t *d = preferring(ANY, "gpu=false\036gpu=true\036", "0");
	int rc = job_submit(d, OWNER, &err);

	submit_done(d);
	cr_assert_eq(rc, SLURM_SUCCESS, "%s", err);
	cr_assert_str_eq(d->exc_nodes, "");
	desc_free(d);
	r->free = calloc(4, sizeof(bool));
	r->free_count = 4;
	r->free[1] = true; /* n2 */
	d = preferring(ANY, "gpu=false\036gpu=true\036", "0");
	rc = job_submit(d, OWNER, &err);
	submit_done(d);
	cr_assert_eq(rc, SLURM_SUCCESS, "%s", err);
	/* the tier's nodes, n1 busy too: Slurm's scheduler picks n2 */
	cr_assert_str_eq(d->exc_nodes, "n[3-4]");
	state_of(d->admin_comment, &st);
	cr_assert_eq(st.n_prefer, 2);
	cr_assert(strncmp(st.status,
			  "preferring tier 2 of 2 (2 nodes, one free) ",
			  43) == 0,
		  "%s", st.status);
}

/* A held submission waits for its EligibleTime. */
Test(plugin, a_held_job_keeps_its_preference_until_eligible)
{
	job_desc_msg_t *d = preferring(ANY, "gpu=true\036", "30");
	int rc;

	d->priority = 0;
	rc = job_submit(d, OWNER, &err);
	submit_done(d);
	cr_assert_eq(rc, SLURM_SUCCESS, "%s", err);
	cr_assert_str_eq(d->exc_nodes, "n[3-4]");
	state_of(d->admin_comment, &st);
	cr_assert(strstr(st.status, "until the job is eligible; "), "%s",
		  st.status);
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

/* A job whose partitions the thread has not loaded (created since) is
 * not narrowed at submission: on 22.05 Slurm would refuse a job kept off
 * every node of its partition. */
Test(plugin, a_partition_not_known_is_not_narrowed)
{
	job_desc_msg_t *d = preferring(ANY, "gpu=false\036", "60");
	int rc;

	set_str(&d->partition, "new");
	rc = job_submit(d, OWNER, &err);
	submit_done(d);
	cr_assert_eq(rc, SLURM_SUCCESS, "%s", err);
	cr_assert_str_eq(d->exc_nodes, "");
	slurm_xfree((void **)&d->partition);
	desc_free(d);
	d = preferring(ANY, "gpu=false\036", "60");
	set_str(&d->partition, "debug");
	rc = job_submit(d, OWNER, &err);
	submit_done(d);
	slurm_xfree((void **)&d->partition);
	cr_assert_eq(rc, SLURM_SUCCESS, "%s", err);
	cr_assert_str_eq(d->exc_nodes, "n[1-2]");
}

/* Past MaxPreferringJobsPerUser (1,000 by default) a job with
 * preferences is refused as Slurm refuses past MaxSubmitJobs, with a
 * message naming the setting; one without preferences is taken
 * (doc/design.md "Caps"). */
Test(plugin, a_job_with_preferences_past_the_users_cap_is_refused)
{
	struct census fresh;
	job_desc_msg_t *d;
	int rc = SLURM_SUCCESS;

	cr_assert_eq(census_count(NULL, &fresh), 0); /* the thread's count */
	caps_take(&fresh, 0);
	for (int i = 0; i <= 1000 && rc == SLURM_SUCCESS; i++) {
		d = preferring(ANY, "gpu=false\036", "60");
		d->user_id = OWNER;
		rc = job_submit(d, OWNER, &err);
		submit_done(d);
		desc_free(d);
		cr_assert(i == 1000 || rc == SLURM_SUCCESS, "%d: %s", i, err);
	}
	cr_assert_eq(rc, ESLURM_ACCOUNTING_POLICY, "the 1,001st is refused");
	cr_assert(err && strstr(err, "MaxPreferringJobsPerUser=1000"), "%s",
		  err);
	slurm_xfree((void **)&err);
	d = submission(&desc, ANY); /* no preferences: taken */
	d->user_id = OWNER;
	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_SUCCESS, "%s", err);
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
	cr_assert_eq(st.wrote, hostlist_hash("n1"));
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

/* An invalid request is refused as in every mode. */
Test(plugin, by_the_guard_an_invalid_request_is_refused)
{
	job_desc_msg_t *d = submission(&desc, "gpu=");

	by_guard();
	assert_refused_request(job_submit(d, OWNER, &err));
	cr_assert_null(d->admin_comment);
}
