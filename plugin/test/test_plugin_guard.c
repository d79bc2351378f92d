/*
 * test_plugin_guard.c - job_modify() and the caps where burst_buffer/
 * extra alone filters (Carrier=guard, doc/guard.md "The guard alone"),
 * in the context of test_plugin_fixture.h: the job record read and
 * written through the fake record's guard_api (fake_api), the look's
 * census lent by it; the owner's change of preferences and a new request
 * written into the job's state at once, the others refused, and the caps
 * counted from the look's last walk and the requests admitted since.
 */
#define _GNU_SOURCE /* asprintf */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "entry.h"
#include "guard_caps.h"
#include "job_state.h"
#include "prefer.h"

#include <criterion/criterion.h>

#include "test_plugin_fixture.h"
#include "test_plugin_prefer.h"

/* With Carrier=guard the owner's change of preferences goes into the
 * job's state at once, through burst_buffer/extra's view of the record
 * (modify_as()'s `api`), checked as at submission; another user's (22.05
 * checks the caller after job_modify()) and a bad one are refused and
 * change nothing; an update of the job's excluded nodes is Slurm's
 * alone. */
#define GUARD_STATE                                                            \
	SX_STATE_MARK "burst_buffer/extra keeps the job off at placement; "    \
		      "held=0; exclude=; request=" REQUEST

Test(plugin, by_the_guard_the_owners_change_of_preferences_is_written)
{
	job_desc_msg_t *d = update(&desc, "7");
	char *env[2] = { NULL, NULL };
	struct fake_record job = { strdup(GUARD_STATE), OWNER, 0, NULL, NULL };
	int rc;

	by_guard();
	carry(d, env, "gpu=false\036cache=ds1\036", "600");
	rc = modify_prefer_as(d, env, OWNER, &job);
	cr_assert_eq(rc, SLURM_SUCCESS, "%s", err);
	cr_assert_eq(job.sets, 1);
	state_of(job.admin, &st);
	cr_assert_str_eq(st.request, REQUEST);
	cr_assert_eq(st.n_prefer, 2);
	cr_assert_str_eq(st.prefer[0], "gpu=false");
	cr_assert_str_eq(st.prefer[1], "cache=ds1");
	cr_assert_eq(st.wait, 600);
	cr_assert_null(d->admin_comment, "nothing the caller's update sets");
	free(job.admin);
}

Test(plugin, by_the_guard_another_users_or_a_bad_change_is_refused)
{
	job_desc_msg_t *d = update(&desc, "7");
	char *env[2] = { NULL, NULL };
	struct fake_record job = { strdup(GUARD_STATE), OWNER, 0, NULL, NULL };

	by_guard();
	carry(d, env, "gpu=false\036", "600");
	cr_assert_eq(modify_prefer_as(d, env, OTHER, &job),
		     SX_OWNER_CHECKED_FIRST ? ESLURM_ACCESS_DENIED
					    : ESLURM_USER_ID_MISSING);
	slurm_xfree((void **)&err);
	carry(d, env, "gpu=\036", "600");
	cr_assert_eq(modify_prefer_as(d, env, OWNER, &job),
		     ESLURM_INVALID_FEATURE);
	slurm_xfree((void **)&err);
	/* not alone in its update */
	carry(d, env, "gpu=false\036", "600");
	set_str(&d->exc_nodes, "n1");
	cr_assert_eq(modify_prefer_as(d, env, OWNER, &job),
		     ESLURM_INVALID_FEATURE);
	slurm_xfree((void **)&err);
	cr_assert_eq(job.sets, 0);
	cr_assert_str_eq(job.admin, GUARD_STATE);
	/* a job without a request: none to change */
	free(job.admin);
	job.admin = strdup("site note");
	set_str(&d->exc_nodes, NULL);
	carry(d, env, "gpu=false\036", "600");
	cr_assert_eq(modify_prefer_as(d, env, OWNER, &job),
		     ESLURM_INVALID_FEATURE);
	cr_assert_eq(job.sets, 0);
	free(job.admin);

	/* the record not read: refused, saying so */
	slurm_xfree((void **)&err);
	d = update(&desc2, "7");
	carry(d, env, "gpu=false\036", "600");
	cr_assert_eq(modify_prefer(d, env, OWNER), ESLURM_NOT_SUPPORTED);
	slurm_xfree((void **)&err);
	desc_free(&desc2);

	d = update(&desc2, "7");
	set_str(&d->exc_nodes, "n1");
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->exc_nodes, "n1");
	cr_assert_null(d->admin_comment);
}

/* With Carrier=guard a new request (`scontrol update job=N extra=...`,
 * 23.02+) goes into the job's state at once, its tiers kept; a job
 * without a state gets one, as at submission (the admin's text first,
 * its own ExcNodeList and that list's hash); an empty request leaves the
 * state with none, its mark kept (the guard follows the Extra Slurm
 * applies); a bad request is refused and writes nothing.  On 22.05 Slurm
 * ignores `extra` in an update, and so does the plugin. */
Test(plugin, by_the_guard_a_new_request_is_written)
{
	job_desc_msg_t *d = update(&desc, "7");
	char *env[2] = { NULL, NULL };
	struct fake_record job = { strdup("site note"), OWNER, 0, "n[1-2]",
				   NULL };

	by_guard();
	set_str(&d->extra, "gpu=false&mem>=64");
	cr_assert_eq(modify_prefer_as(d, env, OWNER, &job), SLURM_SUCCESS, "%s",
		     err);
	if (!SX_SLURM_HAS_EXTRA_OPTION) {
		cr_assert_eq(job.sets, 0, "22.05: extra is not an update");
		free(job.admin);
		return;
	}
	cr_assert_eq(job.sets, 1);
	state_of(job.admin, &st);
	cr_assert_str_eq(st.request, "gpu=false&mem>=64");
	cr_assert_str_eq(st.admin, "site note");
	cr_assert_str_eq(st.status, SX_GUARD_STATUS);
	cr_assert_str_eq(st.exclude, "n[1-2]");
	cr_assert_eq(st.wrote, xc_text_hash("n[1-2]"));
	sx_job_state_free(&st);

	/* a bad request: refused, nothing written */
	set_str(&d->extra, "gpu=");
	cr_assert_eq(modify_prefer_as(d, env, OWNER, &job),
		     ESLURM_INVALID_FEATURE);
	slurm_xfree((void **)&err);
	cr_assert_eq(job.sets, 1);

	/* emptied: the state kept, with no request */
	set_str(&d->extra, "");
	cr_assert_eq(modify_prefer_as(d, env, OWNER, &job), SLURM_SUCCESS, "%s",
		     err);
	state_of(job.admin, &st);
	cr_assert_str_eq(st.request, "");
	cr_assert_str_eq(st.admin, "site note");
	sx_job_state_free(&st);

	/* emptied on a job with no state: nothing written */
	free(job.admin);
	job.admin = NULL;
	job.sets = 0;
	cr_assert_eq(modify_prefer_as(d, env, OWNER, &job), SLURM_SUCCESS, "%s",
		     err);
	cr_assert_eq(job.sets, 0);
	cr_assert_null(job.admin);

	/* given one with no AdminComment at all: no admin's text */
	job.exc = NULL;
	set_str(&d->extra, "gpu=true");
	cr_assert_eq(modify_prefer_as(d, env, OWNER, &job), SLURM_SUCCESS, "%s",
		     err);
	state_of(job.admin, &st);
	cr_assert_null(st.admin);
	cr_assert_str_eq(st.exclude, "");
	cr_assert_str_eq(st.request, "gpu=true");
	free(job.admin);
}

/* A new request keeps the job's tiers and wait; one sent with an
 * AdminComment of a super user's (holding a state copied from `scontrol
 * show job`) gets the new state after the admin's text, theirs less the
 * copy; the same update for the records of an array or heterogeneous
 * job (one job_desc) gives each its own state; a state that does not
 * parse is not written over; no record lent: refused. */
Test(plugin, by_the_guard_a_new_request_with_other_fields)
{
	job_desc_msg_t *d = update(&desc, "7");
	char *env[2] = { NULL, NULL };
	struct fake_record job = { strdup(GUARD_STATE), OWNER, 0, NULL, NULL },
			   other = { strdup("theirs " GUARD_STATE), OWNER, 0,
				     "n4", NULL };

	if (!SX_SLURM_HAS_EXTRA_OPTION) {
		free(job.admin);
		free(other.admin);
		return; /* (22.05: no request in an update) */
	}
	by_guard();
	carry(d, env, "gpu=false\036", "600");
	cr_assert_eq(modify_prefer_as(d, env, OWNER, &job), SLURM_SUCCESS, "%s",
		     err);
	set_str(&d->extra, "mem>=64");
	cr_assert_eq(modify_prefer_as(d, env, OWNER, &job), SLURM_SUCCESS, "%s",
		     err);
	state_of(job.admin, &st);
	cr_assert_str_eq(st.request, "mem>=64");
	cr_assert_eq(st.n_prefer, 1);
	cr_assert_str_eq(st.prefer[0], "gpu=false");
	cr_assert_eq(st.wait, 600);
	sx_job_state_free(&st);

	/* with a super user's AdminComment, over two records */
	set_str(&d->extra, "mem>=128");
	set_str(&d->admin_comment, "reviewed " GUARD_STATE);
	cr_assert_eq(modify_prefer_as(d, env, 0, &job), SLURM_SUCCESS, "%s",
		     err);
	cr_assert_eq(modify_prefer_as(d, env, 0, &other), SLURM_SUCCESS, "%s",
		     err);
	state_of(d->admin_comment, &st);
	cr_assert_str_eq(st.admin, "reviewed");
	cr_assert_str_eq(st.request, "mem>=128");
	cr_assert_str_eq(st.exclude, "", "the second record's own: %s",
			 d->admin_comment);
	sx_job_state_free(&st);
	state_of(job.admin, &st);
	cr_assert_str_eq(st.request, "mem>=128");
	cr_assert_eq(st.n_prefer, 1, "the first record keeps its tiers");
	sx_job_state_free(&st);
	state_of(other.admin, &st);
	cr_assert_str_eq(st.request, "mem>=128");
	cr_assert_str_eq(st.admin, "theirs");
	sx_job_state_free(&st);
	set_str(&d->admin_comment, NULL);

	/* a mark that does not parse: refused, nothing written */
	free(job.admin);
	job.admin = strdup("note " SX_STATE_MARK "mangled");
	job.sets = 0;
	set_str(&d->extra, "gpu=true");
	cr_assert_eq(modify_prefer_as(d, env, OWNER, &job), SLURM_ERROR);
	slurm_xfree((void **)&err);
	cr_assert_eq(job.sets, 0);
	cr_assert_str_eq(job.admin, "note " SX_STATE_MARK "mangled");

	/* no record lent: refused */
	cr_assert_eq(modify_prefer(d, env, OWNER), ESLURM_NOT_SUPPORTED);
	slurm_xfree((void **)&err);
	free(job.admin);
	free(other.admin);
}

/* The caps where the guard filters alone (guard_caps.h): the look's count
 * at its last whole walk (the fake record's census), and the requests
 * admitted since, until a walk begun GUARD_CENSUS_MARGIN_S after them;
 * counted by the request's text as given, with its tiers. */
static void walk_of(long long at, size_t n, const char *const *texts,
		    const uint32_t *uids, const bool *prefers)
{
	for (size_t i = 0; i < n; i++)
		fake_jobs[i] = (struct sx_guard_census_job){
			.uid = uids[i],
			.hash = prefer_census_hash(texts[i], NULL),
			.prefers = prefers && prefers[i],
		};
	fake_njobs = n;
	fake_walked_at = at;
	fake_walk++;
}

Test(plugin, by_the_guard_the_caps_count_the_looks_walk)
{
	const char *texts[] = { "gpu=true", "mem>=64" };
	const uint32_t uids[] = { OWNER, OWNER };
	time_t now = time(NULL);

	by_guard();
	entry_cfg.max_user_requests = 2;
	/* no walk yet: nothing refused */
	cr_assert_eq(guard_admit(&fake_api, OWNER, "a=1", NULL, false, &err),
		     SLURM_SUCCESS);
	walk_of(now - 100, 2, texts, uids, NULL);
	cr_assert_eq(guard_admit(&fake_api, OWNER, "a=2", NULL, false, &err),
		     ESLURM_ACCOUNTING_POLICY);
	cr_assert(err && strstr(err, "MaxPendingRequestsPerUser=2"), "%s", err);
	slurm_xfree((void **)&err);
	cr_assert_eq(
		guard_admit(&fake_api, OWNER, "gpu=true", NULL, false, &err),
		SLURM_SUCCESS, "a request the owner has pending");
	cr_assert_eq(guard_admit(&fake_api, OTHER, "a=2", NULL, false, &err),
		     SLURM_SUCCESS, "another user's");

	/* admitted since the walk: counted until a walk holds it */
	entry_cfg.max_user_requests = 3;
	walk_of(now - 100, 2, texts, uids, NULL);
	cr_assert_eq(guard_admit(&fake_api, OWNER, "c=1", NULL, false, &err),
		     SLURM_SUCCESS, "%s", err);
	cr_assert_eq(guard_admit(&fake_api, OWNER, "d=1", NULL, false, &err),
		     ESLURM_ACCOUNTING_POLICY);
	slurm_xfree((void **)&err);
	/* a walk begun within the margin after it: still counted */
	walk_of(now + GUARD_CENSUS_MARGIN_S - 1, 2, texts, uids, NULL);
	cr_assert_eq(guard_admit(&fake_api, OWNER, "d=1", NULL, false, &err),
		     ESLURM_ACCOUNTING_POLICY);
	slurm_xfree((void **)&err);
	/* one begun past it, without the job (gone, or refused by Slurm):
	 * forgotten */
	walk_of(now + GUARD_CENSUS_MARGIN_S + 2, 2, texts, uids, NULL);
	cr_assert_eq(guard_admit(&fake_api, OWNER, "d=1", NULL, false, &err),
		     SLURM_SUCCESS, "%s", err);
}

Test(plugin, by_the_guard_the_cap_on_jobs_with_preferences)
{
	const char *texts[] = { "gpu=true" };
	const uint32_t uids[] = { OWNER };
	const bool prefers[] = { true };
	char *tiers[] = { "fast=1" };
	struct sx_job_state with = { .prefer = tiers, .n_prefer = 1 };

	by_guard();
	entry_cfg.max_prefer_jobs = 1;
	walk_of(time(NULL) - 100, 1, texts, uids, prefers);
	cr_assert_eq(
		guard_admit(&fake_api, OWNER, "gpu=true", &with, true, &err),
		ESLURM_ACCOUNTING_POLICY);
	cr_assert(err && strstr(err, "MaxPreferringJobsPerUser=1"), "%s", err);
	slurm_xfree((void **)&err);
	cr_assert_eq(
		guard_admit(&fake_api, OTHER, "gpu=true", &with, true, &err),
		SLURM_SUCCESS);
	cr_assert_eq(
		guard_admit(&fake_api, OWNER, "gpu=true", NULL, false, &err),
		SLURM_SUCCESS, "no preferences: not that cap");
}

/* An update's new request counts as a submission's (23.02+), and a
 * change giving a job preferences counts against its owner's cap. */
Test(plugin, by_the_guard_updates_count_against_the_caps)
{
	const char *texts[] = { "gpu=true" };
	const uint32_t uids[] = { OWNER };
	job_desc_msg_t *d = update(&desc, "7");
	char *env[2] = { NULL, NULL };
	struct fake_record job = { strdup(GUARD_STATE), OWNER, 0, NULL, NULL };

	by_guard();
	entry_cfg.max_user_requests = 1;
	entry_cfg.max_prefer_jobs = 1;
	walk_of(time(NULL) - 100, 1, texts, uids, NULL);
	if (SX_SLURM_HAS_EXTRA_OPTION) {
		set_str(&d->extra, "mem>=64");
		cr_assert_eq(modify_prefer_as(d, env, OWNER, &job),
			     ESLURM_ACCOUNTING_POLICY);
		slurm_xfree((void **)&err);
		cr_assert_eq(job.sets, 0, "nothing written");
		set_str(&d->extra, NULL);
	}
	/* preferences for the job: its (request, tiers) a new request past
	 * the owner's one */
	carry(d, env, "gpu=false\036", "600");
	cr_assert_eq(modify_prefer_as(d, env, OWNER, &job),
		     ESLURM_ACCOUNTING_POLICY);
	cr_assert(err && strstr(err, "MaxPendingRequestsPerUser=1"), "%s", err);
	slurm_xfree((void **)&err);
	cr_assert_eq(job.sets, 0);
	entry_cfg.max_user_requests = 0;
	carry(d, env, "gpu=false\036", "600");
	cr_assert_eq(modify_prefer_as(d, env, OWNER, &job), SLURM_SUCCESS, "%s",
		     err);
	cr_assert_eq(job.sets, 1);
	free(job.admin);
}

/* A job with preferences whose request an update emptied is no job of
 * the look's census: a request given back counts it as a preferring job
 * again (MaxPreferringJobsPerUser), as a submission would (23.02+: 22.05
 * ignores `extra` in an update). */
Test(plugin, by_the_guard_a_request_given_back_counts_its_preferences)
{
	const uint32_t uids[] = { OWNER };
	job_desc_msg_t *d = update(&desc, "7");
	char *env[2] = { NULL, NULL };
	struct fake_record job = { strdup(GUARD_STATE), OWNER, 0, NULL, NULL };

	if (!SX_SLURM_HAS_EXTRA_OPTION)
		cr_skip_test("Slurm 22.05 ignores extra in an update");
	by_guard();
	entry_cfg.max_prefer_jobs = 1;
	walk_of(time(NULL) - 100, 0, NULL, uids, NULL);
	carry(d, env, "gpu=false\036", "600");
	cr_assert_eq(modify_prefer_as(d, env, OWNER, &job), SLURM_SUCCESS, "%s",
		     err);
	set_str(&d->extra, "");
	cr_assert_eq(modify_prefer_as(d, env, OWNER, &job), SLURM_SUCCESS, "%s",
		     err);
	cr_assert_eq(job.sets, 2);
	set_str(&d->extra, REQUEST);
	cr_assert_eq(modify_prefer_as(d, env, OWNER, &job),
		     ESLURM_ACCOUNTING_POLICY);
	cr_assert(err && strstr(err, "MaxPreferringJobsPerUser=1"), "%s", err);
	cr_assert_eq(job.sets, 2, "nothing written");
	free(job.admin);
}

/* ------------------------------------ Carrier=guard where Slurm filters */

/* Where Slurm filters by `extra` itself (23.11+ with extra_constraints:
 * extra_constraints_enabled(), played here), burst_buffer/extra keeps the
 * preferences alone (doc/preferences.md "Preferences"): a submission
 * with preferences gets the guard's state and keeps its own Extra; one
 * without gets nothing; the owner may give preferences to a
 * job that has no state (its Extra is its request); a new request of a
 * job without preferences is Slurm's alone. */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
static bool fake_slurm_filters;
bool extra_constraints_enabled(void)
{
	return fake_slurm_filters;
}

/* by_guard(), where Slurm filters. */
static void by_guard_slurm_filters(void)
{
	by_guard();
	fake_slurm_filters = true;
	cr_assert_eq(entry_filter(&entry_cfg), FILTER_SLURM,
		     "Slurm filters, the guard does not");
	cr_assert(guard_keeps());
}
#define SLURM_FILTERS_OR_SKIP() by_guard_slurm_filters()
#else
#define SLURM_FILTERS_OR_SKIP()                                                \
	cr_skip_test("Slurm %d.%02d has no filter of its own (23.11+)",        \
		     SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),                \
		     SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER))
#endif

Test(plugin, where_slurm_filters_the_guard_records_the_preferences)
{
	job_desc_msg_t *d = submission(&desc, REQUEST);
	char *env[2] = { NULL, NULL };
	int rc;

	SLURM_FILTERS_OR_SKIP();
	carry(d, env, "gpu=false\036", "60");
	rc = job_submit(d, OWNER, &err);
	carried_free(d, env);
	cr_assert_eq(rc, SLURM_SUCCESS, "%s", err);
	cr_assert_str_eq(d->extra, REQUEST,
			 "its Extra its request, narrowed by none");
	state_of(d->admin_comment, &st);
	cr_assert_str_eq(st.status, SX_GUARD_STATUS);
	cr_assert_str_eq(st.request, REQUEST);
	cr_assert_eq(st.n_prefer, 1);
	cr_assert_str_eq(st.prefer[0], "gpu=false");
	cr_assert_eq(st.wait, 60);
	sx_job_state_free(&st);
	desc_free(d);

	/* no preferences: Slurm's alone, no state */
	d = submission(&desc, REQUEST);
	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_SUCCESS, "%s", err);
	cr_assert_str_eq(d->extra, REQUEST);
	cr_assert_null(d->admin_comment);
}

Test(plugin, where_slurm_filters_the_owner_gives_a_job_preferences)
{
	job_desc_msg_t *d = update(&desc, "7");
	char *env[2] = { NULL, NULL };
	struct fake_record job = { strdup("site note"), OWNER, 0, "n1", NULL };

	SLURM_FILTERS_OR_SKIP();
	job.extra = REQUEST;
	carry(d, env, "gpu=false\036", "600");
	cr_assert_eq(modify_prefer_as(d, env, OWNER, &job), SLURM_SUCCESS, "%s",
		     err);
	cr_assert_eq(job.sets, 1);
	cr_assert(!strncmp(job.admin, "site note", 9), "%s", job.admin);
	state_of(job.admin, &st);
	cr_assert_str_eq(st.status, SX_GUARD_STATUS);
	cr_assert_str_eq(st.request, REQUEST);
	cr_assert_str_eq(st.exclude, "n1");
	cr_assert_eq(st.n_prefer, 1);
	cr_assert_eq(st.wait, 600);
	/* another user: refused, nothing written */
	carry(d, env, "cache=ds1\036", NULL);
	cr_assert_neq(modify_prefer_as(d, env, OTHER, &job), SLURM_SUCCESS);
	slurm_xfree((void **)&err);
	cr_assert_eq(job.sets, 1);
	free(job.admin);

	/* a wait alone gives none: nothing written, nothing counted */
	job = (struct fake_record){ NULL, OWNER, 0, NULL, NULL };
	job.extra = REQUEST;
	carry(d, env, NULL, "60");
	cr_assert_eq(modify_prefer_as(d, env, OWNER, &job), SLURM_SUCCESS, "%s",
		     err);
	cr_assert_eq(job.sets, 0);
	cr_assert_null(job.admin);

	/* a job with no Extra has no request to prefer within */
	job.extra = NULL;
	carry(d, env, "gpu=false\036", "600");
	cr_assert_eq(modify_prefer_as(d, env, OWNER, &job),
		     ESLURM_INVALID_FEATURE);
	cr_assert_eq(job.sets, 0);
}

Test(plugin, where_slurm_filters_a_new_request_is_slurms_unless_preferred)
{
	job_desc_msg_t *d = update(&desc, "7");
	char *env[2] = { NULL, NULL };
	struct fake_record job = { NULL, OWNER, 0, NULL, NULL };

	SLURM_FILTERS_OR_SKIP();
	job.extra = REQUEST;
	set_str(&d->extra, "mem>=64");
	cr_assert_eq(modify_prefer_as(d, env, OWNER, &job), SLURM_SUCCESS, "%s",
		     err);
	cr_assert_eq(job.sets, 0, "no state made: Slurm filters by it");
	cr_assert_null(job.admin);
	/* a job with preferences (the owner's, above): its state follows */
	set_str(&d->extra, NULL);
	carry(d, env, "gpu=false\036", "60");
	cr_assert_eq(modify_prefer_as(d, env, OWNER, &job), SLURM_SUCCESS, "%s",
		     err);
	cr_assert_eq(job.sets, 1);
	set_str(&d->extra, "mem>=64");
	cr_assert_eq(modify_prefer_as(d, env, OWNER, &job), SLURM_SUCCESS, "%s",
		     err);
	cr_assert_eq(job.sets, 2);
	state_of(job.admin, &st);
	cr_assert_str_eq(st.request, "mem>=64");
	cr_assert_eq(st.n_prefer, 1);
	free(job.admin);
}

/* Where Slurm filters without burst_buffer/extra nothing would keep the
 * preferences: a submission
 * with them is refused, and so is the owner's change of them (entry.h
 * PREFER_NEEDS_GUARD); a request alone, and an update of it, are Slurm's
 * (doc/preferences.md "Preferences"). */
Test(plugin, where_slurm_filters_without_the_guard_preferences_are_refused)
{
	job_desc_msg_t *d = submission(&desc, REQUEST);
	char *env[2] = { NULL, NULL };

	SLURM_FILTERS_OR_SKIP();
	entry_cfg.carrier_guard = false;
	cr_assert_not(guard_keeps());
	carry(d, env, "gpu=false\036", "60");
	cr_assert_eq(job_submit(d, OWNER, &err), ESLURM_NOT_SUPPORTED);
	carried_free(d, env);
	cr_assert_str_eq(err, PREFER_NEEDS_GUARD);
	slurm_xfree((void **)&err);
	desc_free(d);

	d = submission(&desc, REQUEST);
	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_SUCCESS, "%s", err);
	cr_assert_str_eq(d->extra, REQUEST);
	cr_assert_null(d->admin_comment, "no state: Slurm's alone");
	desc_free(d);

	/* updates: no record is read there (guard_api(): NULL) */
	d = update(&desc, "7");
	carry(d, env, "gpu=false\036", "600");
	cr_assert_eq(modify_prefer(d, env, OWNER), ESLURM_NOT_SUPPORTED);
	cr_assert_str_eq(err, PREFER_NEEDS_GUARD);
	slurm_xfree((void **)&err);
	carry(d, env, NULL, "60"); /* a wait alone, by root */
	cr_assert_eq(modify_prefer(d, env, 0), ESLURM_NOT_SUPPORTED);
	slurm_xfree((void **)&err);
	set_str(&d->extra, "mem>=64");
	carry(d, env, "gpu=false\036", NULL); /* with a new request: whole */
	cr_assert_eq(modify_prefer(d, env, OWNER), ESLURM_NOT_SUPPORTED);
	slurm_xfree((void **)&err);
	cr_assert_str_eq(d->extra, "mem>=64", "the update's own, untouched");
	cr_assert_null(d->admin_comment, "nothing set into it");
	cr_assert_eq(modify_prefer(d, env, OWNER), SLURM_SUCCESS, "%s", err);
	set_str(&d->extra, "mem>=64)");
	cr_assert_eq(modify_prefer(d, env, OWNER), ESLURM_INVALID_FEATURE,
		     "an invalid one is still refused");
	cr_assert_null(d->admin_comment);
}
