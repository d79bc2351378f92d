/*
 * test_plugin_prefer.h - an update carrying a change of preferences, and
 * job_modify() of it, for the tests of test_plugin_modify.c and
 * test_plugin_guard.c (after test_plugin_fixture.h).
 */
#ifndef TEST_PLUGIN_PREFER_H
#define TEST_PLUGIN_PREFER_H

/* Update `d` carries the change `tiers` (NULL: none) and `wait` (NULL:
 * none) in its SPANK environment (`env`, the caller's, two entries). */
static inline void carry(job_desc_msg_t *d, char *env[2], const char *tiers,
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

/* Frees what carry() put into `d` and `env`. */
static inline void carried_free(job_desc_msg_t *d, char *env[2])
{
	free(env[0]);
	free(env[1]);
	env[0] = env[1] = NULL;
	d->spank_job_env = NULL;
	d->spank_job_env_size = 0;
}

/* job_modify() of `d` from `uid` through burst_buffer/extra's view of
 * record `job` (Carrier=guard; NULL: none), its SPANK environment freed
 * after. */
static inline int modify_prefer_as(job_desc_msg_t *d, char *env[2],
				   uint32_t uid, struct fake_record *job)
{
	int rc = modify_as(d, job ? &fake_api : NULL, job, uid, &err);

	carried_free(d, env);
	return rc;
}

/* The same with no record: modify(). */
static inline int modify_prefer(job_desc_msg_t *d, char *env[2], uint32_t uid)
{
	return modify_prefer_as(d, env, uid, NULL);
}

#endif
