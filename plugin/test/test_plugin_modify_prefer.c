/*
 * test_plugin_modify_prefer.c - job_modify() for an owner's change of a
 * pending job's preferences (`slurm-extra prefer`: the new tiers and wait
 * in the update's SPANK environment, prefer.h struct prefer_change;
 * doc/design.md "Preferences", "Changing them"), in the context of
 * test_plugin_fixture.h: each tier checked as a request, a hint for the
 * thread that carries the change, nothing written into the job_desc, and
 * on 22.05 nothing read of a caller Slurm then refuses.
 */
#define _GNU_SOURCE /* asprintf */

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "entry.h"
#include "guard_caps.h"
#include "job_state.h"
#include "prefer.h"

#include <criterion/criterion.h>

#include "test_plugin_fixture.h"

/* Update `d` carries the change `tiers` (NULL: none) and `wait` (NULL:
 * none) in its SPANK environment (`env`, the caller's, two entries). */
static void carry(job_desc_msg_t *d, char *env[2], const char *tiers,
		  const char *wait)
{
	unsigned n = 0;

	if (tiers && asprintf(&env[n++], "%s%s", PREFER_VAR, tiers) < 0)
		cr_assert_fail("out of memory");
	if (wait && asprintf(&env[n++], "%s%s", PREFER_WAIT_VAR, wait) < 0)
		cr_assert_fail("out of memory");
	d->spank_job_env = env;
	d->spank_job_env_size = n;
}

/* job_modify() of `d` from `uid` through burst_buffer/extra's view of
 * record `job` (Carrier=guard; NULL: none), its SPANK environment freed
 * after. */
static int modify_prefer_as(job_desc_msg_t *d, char *env[2], uint32_t uid,
			    struct fake_record *job)
{
	int rc = modify_as(d, job ? &fake_api : NULL, job, uid, &err);

	free(env[0]);
	free(env[1]);
	env[0] = env[1] = NULL;
	d->spank_job_env = NULL;
	d->spank_job_env_size = 0;
	return rc;
}

/* The same with no record: modify(). */
static int modify_prefer(job_desc_msg_t *d, char *env[2], uint32_t uid)
{
	return modify_prefer_as(d, env, uid, NULL);
}

/* The owner's change: a trusted hint carrying it, an urgent ask, and
 * nothing set in the update (Slurm reads no SPANK environment in one). */
Test(plugin, the_owners_change_of_preferences_is_hinted)
{
	job_desc_msg_t *d = update(&desc, "7");
	char *env[2] = { NULL, NULL };
	uint64_t urgent = entry_thread->urgent;
	const struct job_hint *h;

	carry(d, env, "gpu=false\036cache=ds1\036", "600");
	cr_assert_eq(modify_prefer(d, env, OWNER), SLURM_SUCCESS, "%s", err);
	h = only_hint();
	cr_assert(h->trusted && h->prefer_set);
	cr_assert_str_eq(h->prefer.tiers, "gpu=false\036cache=ds1\036");
	cr_assert_eq(h->prefer.wait, 600);
	cr_assert_eq(h->id, 7);
	cr_assert_null(d->admin_comment);
	cr_assert_null(d->exc_nodes);
	cr_assert_gt(entry_thread->urgent, urgent, "the next round takes it");
}

/* The job an update names is the one Slurm reads: job_id_str
 * "4294967303" is job 7 (2^32 + 7, strtol() cast to uint32_t) and
 * "4294967396" job 100, whatever the update's job_id says (Slurm reads
 * it only without job_id_str).  Another user naming job 100 (theirs to
 * Slurm, which checks them against it) with job_id 7 leaves a hint of job
 * 100, counted as theirs, never one of job 7. */
Test(plugin, an_update_names_the_job_slurm_reads)
{
	job_desc_msg_t *d = update(&desc, "4294967396");
	char *env[2] = { NULL, NULL };
	const struct job_hint *h;

	SX_DESC_JOB_ID(d) = 7;
	d->user_id = OTHER; /* job 100's owner, as _update_job() sets it */
	carry(d, env, "gpu=false\036", "31536000");
	cr_assert_eq(modify_prefer(d, env, OTHER), SLURM_SUCCESS, "%s", err);
	h = only_hint();
	cr_assert_eq(h->id, 100, "hint of job %u", h->id);
	cr_assert_eq(h->owner, OTHER);
	cr_assert_eq(h->caller, OTHER);
	cr_assert_not(h->privileged);
	desc_free(d);
	d = update(&desc, "4294967303");
	carry(d, env, NULL, "60");
	cr_assert_eq(modify_prefer(d, env, OWNER), SLURM_SUCCESS, "%s", err);
	cr_assert_eq(entry_thread->hints.v[1].id, 7);
	cr_assert_eq(entry_thread->hints.v[1].owner, OWNER);
}

/* From 23.02 Slurm lets an operator or a coordinator update another
 * user's job before job_modify(): the preferences are the plugin's
 * field, the owner's (root's, SlurmUser's) to change, and such a change
 * is refused with a message; on 22.05 nothing is read of them (Slurm then
 * answers for the job). */
Test(plugin, an_operators_change_of_preferences_is_refused)
{
	job_desc_msg_t *d = update(&desc, "7");
	char *env[2] = { NULL, NULL };
	int rc;

	carry(d, env, "gpu=false\036", NULL);
	rc = modify_prefer(d, env, OTHER);
	if (!SX_OWNER_CHECKED_FIRST) {
		cr_assert_eq(rc, SLURM_SUCCESS);
		cr_assert_eq(entry_thread->hints.n, 0);
		return;
	}
	cr_assert_eq(rc, ESLURM_ACCESS_DENIED);
	cr_assert_not_null(err);
	cr_assert_not_null(strstr(err, "only the job's owner"), "%s", err);
	cr_assert_eq(entry_thread->hints.n, 0);
}

/* A wait alone keeps the tiers (NULL), and none ("") drops them. */
Test(plugin, a_wait_alone_and_none)
{
	job_desc_msg_t *d = update(&desc, "7");
	char *env[2] = { NULL, NULL };

	carry(d, env, NULL, "5");
	cr_assert_eq(modify_prefer(d, env, OWNER), SLURM_SUCCESS);
	cr_assert_null(only_hint()->prefer.tiers);
	cr_assert_eq(only_hint()->prefer.wait, 5);
	desc_free(d);
	d = update(&desc, "8");
	carry(d, env, "", "0");
	cr_assert_eq(modify_prefer(d, env, OWNER), SLURM_SUCCESS);
	cr_assert_eq(entry_thread->hints.n, 2);
	cr_assert_str_eq(entry_thread->hints.v[1].prefer.tiers, "");
}

/* Each tier is checked as a request, with the place of the error; a
 * mangled list, too many tiers or a bad wait are refused; nothing is
 * hinted. */
Test(plugin, a_bad_change_is_refused)
{
	static const struct {
		const char *tiers, *wait, *err;
	} rows[] = {
		{ "gpu=true\036cache=\036", NULL,
		  "--extra-prefer (preference 2): --extra: value expected after 'cache='" },
		{ "gpu=true", NULL, "--extra-prefer: mangled by the client" },
		{ "a=1\036a=2\036a=3\036a=4\036a=5\036a=6\036a=7\036a=8\036a=9\036",
		  NULL,
		  "--extra-prefer: 9 preferences, at most 8 are allowed" },
		{ NULL, "soon",
		  "--extra-prefer-wait: not a number of seconds" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		job_desc_msg_t *d = update(&desc, "7");
		char *env[2] = { NULL, NULL };

		carry(d, env, rows[i].tiers, rows[i].wait);
		cr_assert_eq(modify_prefer(d, env, OWNER),
			     ESLURM_INVALID_FEATURE, "row %zu", i);
		cr_assert_not_null(err);
		cr_assert_eq(strncmp(err, rows[i].err, strlen(rows[i].err)), 0,
			     "row %zu: '%s'", i, err);
		cr_assert_eq(entry_thread->hints.n, 0);
		slurm_xfree((void **)&err);
		desc_free(d);
	}
}

/* On 22.05 Slurm checks the caller after job_modify(): another user's
 * change, even an invalid one, is not read (Slurm refuses the update as
 * without the plugin), and leaves no hint. */
Test(plugin, another_users_change_is_not_read_on_22_05)
{
	job_desc_msg_t *d = update(&desc, "7");
	char *env[2] = { NULL, NULL };

	if (SX_OWNER_CHECKED_FIRST)
		cr_skip_test(
			"from 23.02 Slurm refuses another user before job_modify()");
	carry(d, env, "cache=\036", "5");
	cr_assert_eq(modify_prefer(d, env, OTHER), SLURM_SUCCESS);
	cr_assert_null(err);
	cr_assert_eq(entry_thread->hints.n, 0);
}

/* Slurm calls job_modify() once per record of a whole array with the same
 * update: one hint. */
Test(plugin, one_change_of_a_whole_array_leaves_one_hint)
{
	job_desc_msg_t *d = update(&desc, "7");
	char *env[2] = { NULL, NULL };

	carry(d, env, "gpu=false\036", NULL);
	for (int i = 0; i < 100; i++)
		cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_eq(modify_prefer(d, env, OWNER), SLURM_SUCCESS);
	cr_assert_str_eq(only_hint()->prefer.tiers, "gpu=false\036");
	cr_assert_eq(entry_thread->hints.seq, 1,
		     "read once (a hint merged into the last moves its seq)");
}

/* A change comes alone: with another field the plan reads (Slurm may
 * refuse that after job_modify(), and the change would still be taken),
 * the update is refused. */
Test(plugin, a_change_with_other_fields_is_refused)
{
	job_desc_msg_t *d = update(&desc, "7");
	char *env[2] = { NULL, NULL };

	carry(d, env, "gpu=false\036", NULL);
	set_str(&d->exc_nodes, "n1");
	cr_assert_eq(modify_prefer(d, env, OWNER), ESLURM_INVALID_FEATURE);
	cr_assert_str_eq(
		err,
		"--extra-prefer: change the preferences in an update of their own (slurm-extra prefer --job ID)");
}

/* 22.05, a job the thread has not seen yet: _update_job() set the
 * update's user_id to the job's owner before job_modify() (a caller but a
 * super user cannot send one), so the owner's change is trusted and
 * checked as any (an invalid one refused, MaxPreferringJobsPerUser
 * counted), and another user's is not read: Slurm refuses them. */
Test(plugin, a_change_of_a_job_not_seen_yet_is_its_owners)
{
	job_desc_msg_t *d = update(&desc, "999");
	char *env[2] = { NULL, NULL };
	const struct job_hint *h;

	if (SX_OWNER_CHECKED_FIRST)
		cr_skip_test("from 23.02 every caller job_modify() sees may");
	d->user_id = OWNER; /* as _update_job() sets it */
	carry(d, env, "gpu=false\036", "60");
	cr_assert_eq(modify_prefer(d, env, OWNER), SLURM_SUCCESS, "%s", err);
	h = only_hint();
	cr_assert(h->trusted && h->prefer_set);
	cr_assert_str_eq(h->prefer.tiers, "gpu=false\036");
	desc_free(d);
	d = update(&desc, "998");
	d->user_id = OWNER;
	carry(d, env, "gpu=\036", NULL);
	cr_assert_eq(modify_prefer(d, env, OWNER), ESLURM_INVALID_FEATURE);
	cr_assert_not_null(strstr(err, "preference 1"), "%s", err);
	slurm_xfree((void **)&err);
	desc_free(d);
	d = update(&desc, "997");
	d->user_id = OWNER;
	carry(d, env, "gpu=false\036", NULL);
	cr_assert_eq(modify_prefer(d, env, OTHER), SLURM_SUCCESS);
	cr_assert_null(err);
	cr_assert_eq(entry_thread->hints.n, 1, "another user's: no change");
}

/* 22.05: past MaxPreferringJobsPerUser, the owner's change giving
 * preferences to a job the thread has not seen yet is refused as a
 * submission's is. */
Test(plugin, a_change_of_a_job_not_seen_yet_counts_against_the_cap)
{
	job_desc_msg_t *d;
	char *env[2] = { NULL, NULL };
	struct census fresh;

	if (SX_OWNER_CHECKED_FIRST)
		cr_skip_test("22.05: a job not seen yet is told by user_id");
	cr_assert_eq(census_count(NULL, &fresh), 0); /* a census, empty */
	census_take(&entry_thread->census, &fresh, 0);
	entry_thread->cfg.max_prefer_jobs = 1;
	for (int i = 0; i < 2; i++) {
		char id[16];

		snprintf(id, sizeof(id), "%d", 990 + i);
		d = update(&desc, id);
		d->user_id = OWNER;
		carry(d, env, "gpu=false\036", NULL);
		cr_assert_eq(modify_prefer(d, env, OWNER),
			     i ? ESLURM_ACCOUNTING_POLICY : SLURM_SUCCESS,
			     "change %d: %s", i, err ? err : "");
		slurm_xfree((void **)&err);
		desc_free(d);
	}
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
	cr_assert_eq(rc, SLURM_SUCCESS);
	cr_assert_eq(only_hint()->prefer.wait, 600);
	modify_prefer(d, env, OWNER); /* frees the environment */
}

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
	struct census fresh;
	size_t before = 0;

	cr_assert_eq(census_count(NULL, &fresh), 0);
	census_take(&entry_thread->census, &fresh, 0);
	entry_thread->cfg.max_user_requests = 1;
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
			modify_prefer(d, env, caller);
			slurm_xfree((void **)&err);
		}
		desc_free(d);
	}
	cr_assert_lt(mallinfo2().uordblks, before + 65536,
		     "%zu bytes more after 1,000 updates",
		     mallinfo2().uordblks - before);
	free(tiers);
}

/* Known job `id` of the thread's, to change in place. */
static struct known_job *known(uint32_t id)
{
	for (size_t i = 0; i < entry_thread->known.count; i++)
		if (entry_thread->known.jobs[i].job_id == id)
			return &entry_thread->known.jobs[i];
	cr_assert_fail("job %u not known", id);
	return NULL;
}

/* MaxPreferringJobsPerUser: a change giving a job preferences it had none
 * of counts as one more such job of its owner's, refused past the cap as
 * Slurm refuses past MaxSubmitJobs (the message naming the setting); a
 * change of a job that has some is not counted again (doc/design.md
 * "Caps"). */
Test(plugin, preferences_given_past_the_users_cap_are_refused)
{
	job_desc_msg_t *d = update(&desc, "7");
	char *env[2] = { NULL, NULL };
	struct known_job *k;
	struct census fresh;

	cr_assert_eq(census_count(&entry_thread->known, &fresh), 0);
	census_take(&entry_thread->census, &fresh, 0);
	entry_thread->cfg.max_prefer_jobs = 1;
	carry(d, env, "gpu=false\036", "60");
	cr_assert_eq(modify_prefer(d, env, OWNER), SLURM_SUCCESS, "%s", err);
	desc_free(d);
	d = update(&desc, "8");
	carry(d, env, "gpu=false\036", "60");
	cr_assert_eq(modify_prefer(d, env, OWNER), ESLURM_ACCOUNTING_POLICY);
	cr_assert(err && strstr(err, "MaxPreferringJobsPerUser=1"), "%s", err);
	slurm_xfree((void **)&err);
	desc_free(d);
	/* the census shows job 7 with its preferences: its own change is
	 * no new job with some */
	k = known(7);
	k->st.prefer = calloc(1, sizeof(char *));
	k->st.prefer[0] = strdup("gpu=false");
	k->st.n_prefer = 1;
	cr_assert_eq(census_count(&entry_thread->known, &fresh), 0);
	census_take(&entry_thread->census, &fresh, entry_thread->census.seq);
	d = update(&desc, "7");
	carry(d, env, "gpu=true\036", NULL);
	cr_assert_eq(modify_prefer(d, env, OWNER), SLURM_SUCCESS, "%s", err);
}

/* Dropping the preferences (slurm-extra prefer --none) adds no distinct
 * request: it is never refused by the caps, even at
 * MaxPendingRequestsPerUser, the very action their message asks for. */
Test(plugin, dropping_preferences_is_never_refused_by_the_caps)
{
	job_desc_msg_t *d = update(&desc, "7");
	char *env[2] = { NULL, NULL };
	struct known_job *k =
		(struct known_job *)known_job_find(&entry_thread->known, 7);
	struct census fresh;
	char why[256];

	cr_assert_not_null(k);
	cr_assert_not_null(k->st.prefer = calloc(1, sizeof(char *)));
	cr_assert_not_null(k->st.prefer[0] = strdup("b=1"));
	k->st.n_prefer = 1;
	cr_assert_eq(census_count(NULL, &fresh), 0);
	census_take(&entry_thread->census, &fresh, 0);
	entry_thread->cfg.max_user_requests = 1;
	cr_assert_eq(census_admit(&entry_thread->census, OWNER,
				  xc_text_hash("gpu=false"), 0, 1, why,
				  sizeof(why)),
		     0, "the user at the cap");
	carry(d, env, "", NULL);
	cr_assert_eq(modify_prefer(d, env, OWNER), SLURM_SUCCESS, "%s",
		     err ? err : "");
	cr_assert(only_hint()->prefer_set);
	cr_assert_str_eq(only_hint()->prefer.tiers, "");
}

/* A change naming no job by its number (26.05's SLUID "s...", or what
 * Slurm refuses) is refused: it would name none.  On 26.05 an update of
 * the fields the plan reads by a SLUID is a hint lost: every job is
 * planned at the thread's next load of every job. */
Test(plugin, a_job_named_by_no_number)
{
	job_desc_msg_t *d = update(&desc, "s2AB3CD4EF");
	char *env[2] = { NULL, NULL };
	uint64_t losses = entry_thread->hints.losses;

	d->user_id = OWNER; /* as _update_job() sets it */
	carry(d, env, "gpu=false\036", NULL);
	cr_assert_eq(modify_prefer(d, env, OWNER), ESLURM_INVALID_JOB_ID);
	cr_assert_not_null(strstr(err, "by its number"), "%s", err);
	slurm_xfree((void **)&err);
	desc_free(d);
	d = update(&desc, "s2AB3CD4EF");
	d->user_id = OWNER;
	set_str(&d->exc_nodes, "n1");
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_eq(entry_thread->hints.n, 0, "no hint naming no job");
	cr_assert_eq(entry_thread->hints.losses,
		     losses + (SX_JOB_ID_IS_SLUID("s") ? 1 : 0),
		     "26.05: a hint lost, every job planned next");
}

/* With Carrier=guard the thread stands idle: the owner's change of
 * preferences goes into the job's state at once, through burst_buffer/
 * extra's view of the record (modify_as()'s `api`), checked as at
 * submission; another user's (22.05 checks the caller after job_modify())
 * and a bad one are refused and change nothing; no hint; an update of the
 * job's excluded nodes is Slurm's alone. */
#define GUARD_STATE                                                            \
	SX_STATE_MARK "burst_buffer/extra keeps the job off at placement; "    \
		      "held=0; exclude=; request=" REQUEST

Test(plugin, by_the_guard_the_owners_change_of_preferences_is_written)
{
	job_desc_msg_t *d = update(&desc, "7");
	char *env[2] = { NULL, NULL };
	struct fake_record job = { strdup(GUARD_STATE), OWNER, 0 };
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
	cr_assert_eq(entry_thread->hints.n, 0);
	free(job.admin);
}

Test(plugin, by_the_guard_another_users_or_a_bad_change_is_refused)
{
	job_desc_msg_t *d = update(&desc, "7");
	char *env[2] = { NULL, NULL };
	struct fake_record job = { strdup(GUARD_STATE), OWNER, 0 };

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
	cr_assert_eq(entry_thread->hints.n, 0);
	slurm_xfree((void **)&err);
	desc_free(&desc2);

	d = update(&desc2, "7");
	set_str(&d->exc_nodes, "n1");
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->exc_nodes, "n1");
	cr_assert_null(d->admin_comment);
	cr_assert_eq(entry_thread->hints.n, 0);
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
	struct fake_record job = { strdup("site note"), OWNER, 0, "n[1-2]" };

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
	cr_assert_eq(entry_thread->hints.n, 0);
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
	struct fake_record job = { strdup(GUARD_STATE), OWNER, 0, NULL },
			   other = { strdup("theirs " GUARD_STATE), OWNER, 0,
				     "n4" };

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
	entry_thread->cfg.max_user_requests = 2;
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
	entry_thread->cfg.max_user_requests = 3;
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
	entry_thread->cfg.max_prefer_jobs = 1;
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
	struct fake_record job = { strdup(GUARD_STATE), OWNER, 0, NULL };

	by_guard();
	entry_thread->cfg.max_user_requests = 1;
	entry_thread->cfg.max_prefer_jobs = 1;
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
	entry_thread->cfg.max_user_requests = 0;
	carry(d, env, "gpu=false\036", "600");
	cr_assert_eq(modify_prefer_as(d, env, OWNER, &job), SLURM_SUCCESS, "%s",
		     err);
	cr_assert_eq(job.sets, 1);
	free(job.admin);
}
