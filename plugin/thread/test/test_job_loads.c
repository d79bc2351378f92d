/*
 * test_job_loads.c - what a round loads besides every job
 * (plugin/thread/job_loads.h): the jobs a hint names put in place of
 * their records in the thread's copy of the jobs, and the jobs whose
 * updates Slurm refused, planned again after a delay that doubles.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>

#include "job_loads.h"
#include "kept_jobs.h"

TestSuite(job_loads);

/* A pending job record with a request (kept_jobs_keep() keeps it). */
static slurm_job_info_t rec(uint32_t id, uint32_t array, uint32_t het,
			    const char *extra_comment)
{
	slurm_job_info_t j = { .job_id = id,
			       .array_job_id = array,
			       .array_task_id = array ? id - array : NO_VAL,
			       .het_job_id = het,
			       .job_state = JOB_PENDING,
			       .user_id = 1000,
			       .admin_comment = (char *)extra_comment };

	return j;
}

/* The pending records of `m` with `id`: its AdminComment, NULL when
 * none (a record no longer pending is none). */
static const char *pending_of(const job_info_msg_t *m, uint32_t id)
{
	for (uint32_t i = 0; i < m->record_count; i++)
		if (m->job_array[i].job_id == id &&
		    m->job_array[i].job_state == JOB_PENDING)
			return m->job_array[i].admin_comment;
	return NULL;
}

Test(job_loads, a_hinted_job_replaces_its_records)
{
	slurm_job_info_t old[] = {
		rec(5, 0, 0, "old5"),	rec(7, 0, 0, "old7"),
		rec(10, 10, 0, "a10"),	rec(11, 10, 0, "a11"),
		rec(20, 0, 20, "h20"),	rec(21, 0, 20, "h21"),
		rec(30, 0, 0, "old30"),
	};
	job_info_msg_t in = { .last_update = 77,
			      .record_count = 7,
			      .job_array = old },
		       *kept = kept_jobs_keep(&in, NULL);
	slurm_job_info_t f7[] = { rec(7, 0, 0, "new7") },
			 f10[] = { rec(10, 10, 0, "a10'"),
				   rec(12, 10, 0, "a12") },
			 f20[] = { rec(20, 0, 20, "h20'") },
			 f40[] = { rec(40, 0, 0, "new40") };
	job_info_msg_t m7 = { .record_count = 1, .job_array = f7 },
		       m10 = { .record_count = 2, .job_array = f10 },
		       m20 = { .record_count = 1, .job_array = f20 },
		       m40 = { .record_count = 1, .job_array = f40 };
	job_info_msg_t *fresh[] = { &m7, &m10, &m20, NULL, &m40 };
	const uint32_t ids[] = { 20, 7, 10, 30, 40 };

	cr_assert_not_null(kept);
	cr_assert_eq(kept_jobs_splice(kept, fresh, 5, ids, 5, NULL), 0);
	cr_assert_eq(kept->record_count, 6, "5, 7, 10, 12, 20, 40");
	cr_assert_eq(kept->last_update, 77, "the load of every job's");
	cr_assert_str_eq(pending_of(kept, 5), "old5", "not named: kept");
	cr_assert_str_eq(pending_of(kept, 7), "new7");
	cr_assert_str_eq(pending_of(kept, 10), "a10'");
	cr_assert_null(pending_of(kept, 11), "the array's task gone");
	cr_assert_str_eq(pending_of(kept, 12), "a12");
	cr_assert_str_eq(pending_of(kept, 20), "h20'");
	cr_assert_null(pending_of(kept, 21), "the het job's component gone");
	cr_assert_null(pending_of(kept, 30), "no job now: gone");
	cr_assert_str_eq(pending_of(kept, 40), "new40", "new: in");
	/* a record no longer pending is not added; the kept one goes */
	f7[0].job_state = JOB_RUNNING;
	cr_assert_eq(kept_jobs_splice(kept, fresh, 1, ids + 1, 1, NULL), 0);
	cr_assert_null(pending_of(kept, 7));
	cr_assert_eq(kept->record_count, 5, "5, 10, 12, 20, 40");
	kept_jobs_free(kept);
}

/* The same job spliced again and again (a user's refused updates, each a
 * hint, on a cluster where no load of every job answers): its records
 * are replaced, not piled up, and the strings spliced in stop at their
 * bound (1 MiB here), where a load of every job starts afresh. */
Test(job_loads, splices_are_bounded)
{
	static char big[8192];
	slurm_job_info_t one = rec(7, 0, 0, "old7"), f[1];
	job_info_msg_t in = { .record_count = 1, .job_array = &one },
		       m = { .record_count = 1, .job_array = f },
		       *kept = kept_jobs_keep(&in, NULL);
	job_info_msg_t *fresh[] = { &m };
	const uint32_t id = 7;
	size_t k = 0;
	int rc;

	memset(big, 'x', sizeof(big) - 1);
	f[0] = rec(7, 0, 0, big);
	cr_assert_not_null(kept);
	while ((rc = kept_jobs_splice(kept, fresh, 1, &id, 1, NULL)) == 0) {
		cr_assert_eq(kept->record_count, 1, "splice %zu", k);
		cr_assert_lt(++k, 1000, "no bound");
	}
	cr_assert_eq(rc, 1);
	cr_assert_eq(k, (1u << 20) / sizeof(big), "1 MiB of 8 KB strings");
	cr_assert_str_eq(pending_of(kept, 7), big, "as it was");
	kept_jobs_free(kept);
}

/* job 1 refused, job 2 taken: as pace_send_updates() leaves them */
static void outcome(struct job_retries *t, bool refused1, bool refused2,
		    const struct timespec *now)
{
	struct job_update u[2] = {
		{ .job_id = 1, .user_id = 1000, .refused = refused1 },
		{ .job_id = 2, .user_id = 1001, .refused = refused2 }
	};

	cr_assert(job_retry_refused(t, u, 2, now));
}

static struct timespec at(long s)
{
	return (struct timespec){ .tv_sec = 1000 + s };
}

Test(job_loads, a_refused_job_is_planned_again_after_a_doubling_delay)
{
	struct job_retries t = { 0 };
	uint32_t ids[4], owners[4];
	struct timespec now;
	long s = 0;

	now = at(s);
	outcome(&t, true, false, &now);
	cr_assert_eq(t.n, 1, "the refused one alone");
	for (unsigned delay = 1; delay <= 2 * JOB_RETRY_MAX_S; delay *= 2) {
		unsigned want =
			delay > JOB_RETRY_MAX_S ? JOB_RETRY_MAX_S : delay;

		now = at(s + want - 1);
		cr_assert_eq(job_retry_due(&t, &now, ids, owners, 4), 0,
			     "%u s: not yet", want - 1);
		now = at(s + want);
		cr_assert_eq(job_retry_due(&t, &now, ids, owners, 4), 1, "%u s",
			     want);
		cr_assert(ids[0] == 1 && owners[0] == 1000);
		cr_assert_eq(job_retry_due(&t, &now, ids, owners, 4), 0,
			     "once a refusal");
		s += want;
		now = at(s);
		outcome(&t, true, false, &now); /* refused again */
	}
	outcome(&t, false, false, &now);
	cr_assert_eq(t.n, 0, "taken: forgotten");
	now = at(0);
	outcome(&t, true, false, &now);
	now = at(1);
	cr_assert_eq(job_retry_due(&t, &now, ids, owners, 4), 1);
	now = at(1 + JOB_RETRY_KEEP_S);
	cr_assert_eq(job_retry_due(&t, &now, ids, owners, 4), 0);
	cr_assert_eq(t.n, 0, "retried and not refused again: forgotten");
	job_retries_free(&t);
}

/* Many due at once: at most `max` a round, the others at the next. */
Test(job_loads, retries_due_are_bounded_a_round)
{
	struct job_retries t = { 0 };
	struct job_update u[10];
	uint32_t ids[4], owners[4];
	struct timespec now = at(0);

	for (uint32_t i = 0; i < 10; i++)
		u[i] = (struct job_update){ .job_id = 10 - i, .refused = true };
	cr_assert(job_retry_refused(&t, u, 10, &now));
	for (size_t i = 1; i < t.n; i++)
		cr_assert_lt(t.v[i - 1].job_id, t.v[i].job_id, "sorted");
	now = at(1);
	cr_assert_eq(job_retry_due(&t, &now, ids, owners, 4), 4);
	cr_assert_eq(job_retry_due(&t, &now, ids, owners, 4), 4);
	cr_assert_eq(job_retry_due(&t, &now, ids, owners, 4), 2);
	cr_assert_eq(job_retry_due(&t, &now, ids, owners, 4), 0);
	job_retries_free(&t);
}
