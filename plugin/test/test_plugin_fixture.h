/*
 * test_plugin_fixture.h - the context job_submit() and job_modify() are
 * tested in (test_plugin*.c), linked with the plugin's sources: init() is
 * never called (it reads slurmctld's configuration); each test starts as
 * init() leaves a plugin whose burst_buffer/extra filters (Carrier=guard,
 * extra.conf's defaults), by_nobody() turning that off.  The job records
 * of updates are played by fake_record through fake_api, as
 * burst_buffer/extra lends them (slurm/guard_api.h).  The helpers are
 * static inline: each test file uses some of them.
 */
#ifndef TESTS_TEST_PLUGIN_FIXTURE_H
#define TESTS_TEST_PLUGIN_FIXTURE_H

#include <criterion/criterion.h>

#include <unistd.h>

#include "leakcheck.h"
#include "caps.h"
#include "entry.h"
#include "guard_caps.h"
#include "plugin_config.h"

#define REQUEST "gpu=true"
#define OWNER 1001
#define OTHER 1002
#define MARK " " SX_STATE_MARK

/* The job descriptors and error message of a test: Slurm's allocator, as
 * slurmctld's are, freed in the teardown whatever the test did. */
static job_desc_msg_t desc, desc2;
static char *err;
/* The state the test parsed (state_of), freed in the teardown too. */
static struct sx_job_state st;

/* job_desc strings Slurm owns: from its allocator, NULL for none. */
static inline void set_str(char **field, const char *text)
{
	slurm_xfree((void **)field);
	*field = text ? slurm_xstrdup(text) : NULL;
}

static inline void desc_free(job_desc_msg_t *d)
{
	slurm_xfree((void **)&d->exc_nodes);
	slurm_xfree((void **)&d->admin_comment);
	slurm_xfree((void **)&d->extra);
	slurm_xfree((void **)&d->req_nodes);
	slurm_xfree((void **)&d->job_id_str);
	slurm_xfree((void **)&d->features);
	slurm_xfree((void **)&d->prefer);
}

/* A submission with request `extra` (NULL: none). */
static inline job_desc_msg_t *submission(job_desc_msg_t *d, const char *extra)
{
	slurm_init_job_desc_msg(d);
	set_str(&d->extra, extra);
	return d;
}

/* An update of the job named `name` ("7", "200+1"). */
static inline job_desc_msg_t *update(job_desc_msg_t *d, const char *name)
{
	slurm_init_job_desc_msg(d);
	set_str(&d->job_id_str, name);
	return d;
}

/* A job record as burst_buffer/extra lends its fields to Carrier=guard
 * (slurm/guard_api.h), played here: its AdminComment (malloc'd) and its
 * owner; guard_api over it. */
struct fake_record {
	char *admin;
	uint32_t user_id;
	unsigned sets;	   /* set_admin_comment() calls */
	const char *exc;   /* its ExcNodeList (NULL: none) */
	const char *extra; /* its own Extra (NULL: none) */
};

static inline const char *fake_admin_comment(const void *job_ptr)
{
	return ((const struct fake_record *)job_ptr)->admin;
}

static inline int fake_set_admin_comment(void *job_ptr, const char *text)
{
	struct fake_record *r = job_ptr;

	free(r->admin);
	r->admin = text ? strdup(text) : NULL; /* as xstrdup() */
	r->sets++;
	return !text || r->admin ? 0 : -1;
}

static inline uint32_t fake_user_id(const void *job_ptr)
{
	return ((const struct fake_record *)job_ptr)->user_id;
}

static inline const char *fake_exc_nodes(const void *job_ptr)
{
	return ((const struct fake_record *)job_ptr)->exc;
}

static inline const char *fake_extra(const void *job_ptr)
{
	return ((const struct fake_record *)job_ptr)->extra;
}

/* The look's count as fake_census() lends it (fake_walk 0: no walk). */
static struct sx_guard_census_job fake_jobs[8] __attribute__((unused));
static size_t fake_njobs __attribute__((unused));
static long long fake_walked_at __attribute__((unused));
static uint64_t fake_walk __attribute__((unused));

static inline int fake_census(const struct sx_guard_census_job **jobs,
			      size_t *n, long long *walked_at, uint64_t *walk)
{
	if (!fake_walk)
		return -1;
	*jobs = fake_jobs;
	*n = fake_njobs;
	*walked_at = fake_walked_at;
	*walk = fake_walk;
	return 0;
}

static const struct sx_guard_api fake_api
	__attribute__((unused)) = { .version = SX_GUARD_API_VERSION,
				    .admin_comment = fake_admin_comment,
				    .set_admin_comment = fake_set_admin_comment,
				    .user_id = fake_user_id,
				    .exc_nodes = fake_exc_nodes,
				    .extra = fake_extra,
				    .census = fake_census };

/* Carrier=guard: burst_buffer/extra keeps the jobs off (plugin_config.h
 * carrier_guard, doc/guard.md "The guard alone"), as setup() leaves it. */
static inline void by_guard(void)
{
	entry_cfg.carrier_guard = true;
	cr_assert(guard_keeps());
	cr_assert_eq(entry_filter(&entry_cfg), FILTER_GUARD,
		     "job_submit() and job_modify() take the guard's paths");
}

/* Neither burst_buffer/extra nor Slurm's own filter: nothing keeps a job
 * off by its request (entry_filter() FILTER_NONE). */
static inline void by_nobody(void)
{
	entry_cfg.carrier_guard = false;
	cr_assert_eq(entry_filter(&entry_cfg), FILTER_NONE);
	cr_assert_not(guard_keeps());
}

/* The context init() would leave, burst_buffer/extra loaded. */
static inline void setup(void)
{
	plugin_config_defaults(&entry_cfg);
	plugin_config_carrier(&entry_cfg, true);
	entry_self = getuid();
	entry_on = true;
}

static inline void teardown(void)
{
	entry_on = false;
	desc_free(&desc);
	desc_free(&desc2);
	slurm_xfree((void **)&err);
	sx_job_state_free(&st);
	caps_free();
	guard_caps_forget();
	/* Criterion reports a failed assertion here but passes the test:
	 * a leak aborts it, as xc_leak_check() does. */
	if (xc_live_objects() != 0) {
		fprintf(stderr, "LEAK: %ld library objects left\n",
			xc_live_objects());
		abort();
	}
	xc_leak_check();
}

TestSuite(plugin, .init = setup, .fini = teardown);

/* The state in `comment`, parsed into *out (st: the teardown frees it). */
static inline void state_of(const char *comment, struct sx_job_state *out)
{
	cr_assert_not_null(comment);
	cr_assert(sx_job_state_parse(comment, out), "'%s'", comment);
}

/* The plugin gave the caller an error message of its own. */
static inline void assert_plugins_error(void)
{
	cr_assert_not_null(err);
	cr_assert_eq(strncmp(err, "--extra: ", 9), 0, "'%s'", err);
}

static inline void assert_refused_request(int rc)
{
	cr_assert_eq(rc, ESLURM_INVALID_FEATURE, "rc %d", rc);
	assert_plugins_error();
}

/* The refusal where nothing filters (entry.h NO_FILTER_HERE). */
static inline void assert_no_filter_here(int rc)
{
	cr_assert_eq(rc, ESLURM_NOT_SUPPORTED, "rc %d", rc);
	cr_assert_not_null(err);
	cr_assert_str_eq(err, NO_FILTER_HERE);
}

#endif
