/*
 * test_plugin_fixture.h - the context job_submit() and job_modify() are
 * tested in (test_plugin*.c), linked with the plugin's sources; the
 * thread's state is reached through thread_private.h, and entry_thread
 * (entry.h) set to it: init() is never called (its thread talks to
 * slurmctld), and each test starts from a context built by hand, as the
 * thread would leave it: a node table of four nodes, n1 and n2 with
 * {"gpu":true}, n3 and n4 with {"gpu":false}, and the pending jobs it
 * knows, all of user 1001 asking gpu=true (doc/thread.md "Updates"):
 *   - job 7, no exclusions of its own;
 *   - job 8, excluding n2 itself;
 *   - jobs 200 and 201, a heterogeneous job (200+0 and 200+1).
 * The helpers are static inline: each test file uses some of them.
 */
#ifndef TESTS_TEST_PLUGIN_FIXTURE_H
#define TESTS_TEST_PLUGIN_FIXTURE_H

#include <criterion/criterion.h>

#include "leakcheck.h"
#include "caps.h"
#include "entry.h"
#include "loaded_jobs.h"
#include "thread_private.h"

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
 * carrier_guard, doc/guard.md "The guard alone"). */
static struct thread *fixture_thread; /* setup()'s, for teardown() */

/* Carrier=guard: burst_buffer/extra keeps the jobs off (plugin_config.h
 * carrier_guard, doc/guard.md "The guard alone"), and no thread runs
 * (entry_wants_thread()). */
static inline void by_guard(void)
{
	entry_cfg.carrier_guard = true;
	entry_cfg.carrier_features = false;
	entry_thread = NULL;
	cr_assert_not(entry_wants_thread(&entry_cfg));
	cr_assert(guard_filters(),
		  "job_submit() and job_modify() take the guard's paths");
}

/* The context init() and the thread's first round would leave. */
static inline void setup(void)
{
	struct thread *r = calloc(1, sizeof(*r));
	slurm_job_info_t jobs[4] = { { 0 } };
	job_info_msg_t msg = { .record_count = 4, .job_array = jobs };
	struct refilter_stats stats = { 0 };
	struct job_update *ups = NULL;
	size_t n = 0;

	cr_assert_not_null(r);
	thread_init_sync(r);
	plugin_config_defaults(&r->cfg);
	r->self = getuid();
	r->table = xc_nodes_create(&r->cfg.limits);
	cr_assert_not_null(r->table);
	cr_assert_eq(xc_nodes_add(r->table, "n1", "{\"gpu\":true}", NULL, NULL),
		     0);
	cr_assert_eq(xc_nodes_add(r->table, "n2", "{\"gpu\":true}", NULL, NULL),
		     0);
	cr_assert_eq(
		xc_nodes_add(r->table, "n3", "{\"gpu\":false}", NULL, NULL), 0);
	cr_assert_eq(
		xc_nodes_add(r->table, "n4", "{\"gpu\":false}", NULL, NULL), 0);
	cr_assert_eq(xc_nodes_compile(r->table, NULL), 0);
	/* one partition, the default, of the four nodes (parts.h) */
	r->parts.maps = calloc(1, sizeof(*r->parts.maps));
	cr_assert_not_null(r->parts.maps);
	r->parts.maps[0].name = strdup("debug");
	r->parts.maps[0].nodes = calloc(4, sizeof(bool));
	cr_assert(r->parts.maps[0].name && r->parts.maps[0].nodes);
	for (size_t k = 0; k < 4; k++)
		r->parts.maps[0].nodes[k] = true;
	r->parts.maps[0].is_default = true;
	r->parts.n = 1;
	r->parts.count = 4;

	for (size_t i = 0; i < 4; i++)
		job_pending(&jobs[i], OWNER);
	job_set(&jobs[0], 7, "n[3-4]", TWO_OF_FOUR, false, "");
	job_set(&jobs[1], 8, "n[2-4]", ONE_OF_FOUR, false, "n2");
	job_set(&jobs[2], 200, "n[3-4]", TWO_OF_FOUR, false, "");
	job_het(&jobs[2], 200, 0);
	job_set(&jobs[3], 201, "n[3-4]", TWO_OF_FOUR, false, "");
	job_het(&jobs[3], 200, 1);
	cr_assert_eq(
		refilter_plan(&(struct refilter_in){ .table = r->table,
						     .jobs = &msg,
						     .limits = &r->cfg.limits },
			      &(struct refilter_out){ .updates = &ups,
						      .n = &n,
						      .known = &r->known,
						      .stats = &stats }),
		0);
	job_updates_free(ups, n);
	for (size_t i = 0; i < 4; i++)
		job_free(&jobs[i]);
	cr_assert_eq(n, 0, "the jobs are as the thread wants them");
	cr_assert_eq(r->known.count, 4);
	entry_thread = fixture_thread = r;
	entry_cfg = r->cfg;
	entry_self = r->self;
	entry_on = true;
	modify_forget(); /* as init() does */
}

static inline void teardown(void)
{
	struct thread *r = fixture_thread;

	entry_on = false;
	fixture_thread = NULL;
	desc_free(&desc);
	desc_free(&desc2);
	slurm_xfree((void **)&err);
	sx_job_state_free(&st);
	entry_thread = NULL;
	if (r) {
		carry_free(&r->carry);
		xc_nodes_destroy(r->table);
		free(r->free);
		parts_free(&r->parts);
		known_jobs_free(&r->known);
		hints_free(&r->hints);
		pthread_mutex_destroy(&r->lock);
		pthread_cond_destroy(&r->wake);
		free(r);
	}
	caps_free();
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

/* The only hint job_modify() recorded. */
static inline const struct job_hint *only_hint(void)
{
	cr_assert_eq(entry_thread->hints.n, 1, "%zu hints",
		     entry_thread->hints.n);
	return &entry_thread->hints.v[0];
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

#endif
