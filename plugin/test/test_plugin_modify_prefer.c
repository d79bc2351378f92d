/*
 * test_plugin_modify_prefer.c - job_modify() for an owner's change of a
 * pending job's preferences (`slurm-extra prefer`: the new tiers and wait
 * in the update's SPANK environment, prefer.h struct prefer_change;
 * doc/preferences.md "Preferences", "Changing them"), in the context of
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
#include "job_state.h"
#include "prefer.h"

#include <criterion/criterion.h>

#include "test_plugin_fixture.h"
#include "test_plugin_prefer.h"

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
	caps_take(&fresh, 0);
	entry_cfg.max_prefer_jobs = 1;
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
	caps_take(&fresh, 0);
	entry_cfg.max_prefer_jobs = 1;
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
	caps_take(&fresh, caps_seq());
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
	caps_take(&fresh, 0);
	entry_cfg.max_user_requests = 1;
	cr_assert_eq(census_admit(caps_census(), OWNER,
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
