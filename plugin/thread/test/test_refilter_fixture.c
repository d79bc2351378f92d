/*
 * test_refilter_fixture.c - the rounds the re-filtering tests build
 * (test_refilter_fixture.h).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>

#include "test_refilter_fixture.h"
#include "leakcheck.h"

xc_nodes_t *t;
job_info_msg_t *jobs;
struct hints hints;
struct plan p;
time_t plan_now;
const bool *plan_free_nodes;
const struct parts *plan_parts;

/* The table compiled as the plugin's thread compiles it. */
void round_setup(void)
{
	plan_now = 0;
	plan_free_nodes = NULL;
	plan_parts = NULL;
	t = xc_nodes_create(NULL);
	cr_assert_eq(xc_nodes_add(t, "n1", "{\"gpu\":true}", NULL, NULL), 0);
	cr_assert_eq(xc_nodes_add(t, "n2", "{\"gpu\":true}", NULL, NULL), 0);
	cr_assert_eq(xc_nodes_add(t, "n3", "{\"gpu\":false}", NULL, NULL), 0);
	cr_assert_eq(xc_nodes_add(t, "n4", "{\"gpu\":false}", NULL, NULL), 0);
	cr_assert_eq(xc_nodes_compile(t, NULL), 0);
}

void round_teardown(void)
{
	plan_free(&p);
	hints_free(&hints);
	if (jobs)
		jobs_free(jobs);
	jobs = NULL;
	xc_nodes_destroy(t);
	t = NULL;
	xc_leak_check();
}

job_info_msg_t *jobs_new(uint32_t count)
{
	job_info_msg_t *m = calloc(1, sizeof(*m));

	m->record_count = count;
	m->job_array = calloc(count, sizeof(*m->job_array));
	for (uint32_t i = 0; i < count; i++)
		job_pending(&m->job_array[i], 1000);
	return m;
}

char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

job_info_msg_t *one_job(uint32_t job_id, const char *exc, const char *status,
			bool held, const char *exclude)
{
	job_info_msg_t *m = jobs_new(1);

	job_set(&m->job_array[0], job_id, exc, status, held, exclude);
	return m;
}

/* Job `j` asks ANY (ExcNodeList none, the user's own `exclude`) with
 * preferences `tiers` (n) and `wait` s, eligible at `eligible`. */
void job_prefer_set(slurm_job_info_t *j, const char *const *tiers, unsigned n,
		    long wait, time_t eligible, const char *exclude)
{
	struct sx_job_state st;

	job_set(j, 7, NULL, "s", false, exclude);
	request_set(j, ANY);
	cr_assert(sx_job_state_parse(j->admin_comment, &st));
	st.prefer = calloc(n, sizeof(char *));
	for (unsigned i = 0; i < n; i++)
		st.prefer[st.n_prefer++] = strdup(tiers[i]);
	st.wait = wait;
	free(j->admin_comment);
	j->admin_comment = sx_job_state_format(&st);
	cr_assert_not_null(j->admin_comment);
	sx_job_state_free(&st);
	j->eligible_time = eligible;
}

void plugin_wrote(slurm_job_info_t *j, const char *exc)
{
	struct sx_job_state st;

	cr_assert(sx_job_state_parse(j->admin_comment, &st));
	st.wrote = hostlist_hash(exc);
	free(j->admin_comment);
	j->admin_comment = sx_job_state_format(&st);
	cr_assert_not_null(j->admin_comment);
	sx_job_state_free(&st);
}

void request_set(slurm_job_info_t *j, const char *request)
{
	struct sx_job_state st;

	cr_assert(sx_job_state_parse(j->admin_comment, &st));
	free(st.request);
	st.request = strdup(request);
	free(j->admin_comment);
	j->admin_comment = sx_job_state_format(&st);
	cr_assert_not_null(j->admin_comment);
	sx_job_state_free(&st);
#if SX_SLURM_HAS_EXTRA_OPTION
	free(j->extra);
	j->extra = strdup(request);
#endif
}

void jobs_free(job_info_msg_t *m)
{
	for (uint32_t i = 0; i < m->record_count; i++) {
		slurm_job_info_t *j = &m->job_array[i];

		job_free(j);
		if (j->array_bitmap)
			slurm_bit_free(&j->array_bitmap);
	}
	free(m->job_array);
	free(m);
}

void plan(const xc_nodes_t *table, const job_info_msg_t *loaded,
	  const struct hints *set, uint64_t upto, const struct known_jobs *prev,
	  struct plan *out)
{
	memset(out, 0, sizeof(*out));
	cr_assert_eq(refilter_plan(
			     &(struct refilter_in){
				     .table = table,
				     .jobs = loaded,
				     .hints = set,
				     .upto = upto,
				     .prev = prev,
				     .free = plan_free_nodes,
				     .parts = plan_parts,
				     .now = plan_now ? plan_now : time(NULL) },
			     &(struct refilter_out){ .updates = &out->u,
						     .n = &out->n,
						     .known = &out->known,
						     .stats = &out->stats }),
		     0);
	/* Each ExcNodeList as the thread builds it to send it: the same
	 * list as planned (job_update_build checks its hash), else -1. */
	for (size_t i = 0; i < out->n; i++)
		cr_assert_eq(job_update_build(table, NULL, &out->u[i]), 0,
			     "job %u: the list built differs from the plan",
			     out->u[i].job_id);
}

void plan_free(struct plan *planned)
{
	job_updates_free(planned->u, planned->n);
	known_jobs_free(&planned->known);
	memset(planned, 0, sizeof(*planned));
}

const struct job_update *update_of(const struct plan *planned, uint32_t job_id)
{
	for (size_t i = 0; i < planned->n; i++)
		if (planned->u[i].job_id == job_id)
			return &planned->u[i];
	cr_assert_fail("no update planned for job %u", job_id);
	return NULL;
}

const struct job_update *only_update(const struct plan *planned,
				     uint32_t job_id)
{
	cr_assert_eq(planned->n, 1, "%zu updates", planned->n);
	return update_of(planned, job_id);
}

void planned_state(const struct job_update *u, struct sx_job_state *st)
{
	cr_assert_not_null(u->admin_comment);
	cr_assert(sx_job_state_parse(u->admin_comment, st), "'%s'",
		  u->admin_comment);
}

struct job_hint exc_hint(uint32_t id, bool trusted, const char *set,
			 const char *user)
{
	struct job_hint h = { .id = id,
			      .task = NO_VAL,
			      .offset = NO_VAL,
			      .caller = 1000, /* the jobs' owner */
			      .trusted = trusted,
			      .exc = true,
			      .exc_hash = hostlist_hash(set),
			      .user_exc = dup_or_null(user) };

	return h;
}

void add_hint(struct hints *set, struct job_hint h)
{
	cr_assert(hints_add(set, &h));
	cr_assert_null(h.user_exc, "the set takes user_exc over");
}
