/*
 * test_refilter_known.c - the job an update names (plugin/thread/known_jobs.h):
 * update_target() reads the name, known_target() finds the job among
 * those the thread planned (test_refilter_fixture.h).
 */
#include <stdbool.h>
#include <stdint.h>

#include <criterion/criterion.h>
#include <slurm/slurm.h>

#include "table.h"
#include "test_refilter_fixture.h"

TestSuite(refilter, .init = round_setup, .fini = round_teardown);

/* ----------------------------------------------------- update_target */

/* job_id_str as slurmctld reads it (update_job_str()): a long cast to
 * uint32_t, job_id never read beside it (each row sets job_id 7) */
struct target_row {
	const char *job_id_str;
	uint32_t id, task, offset;
};

static const struct target_row target_rows[] = {
	{ "123", 123, NO_VAL, NO_VAL },
	{ "123_4", 123, 4, NO_VAL },
	{ "123_[4]", 123, 4, NO_VAL },
	{ "123_4%2", 123, 4, NO_VAL },
	{ "123_[1-3]", 123, NO_VAL, NO_VAL },
	{ "123_1,3", 123, NO_VAL, NO_VAL },
	{ "200+1", 200, NO_VAL, 1 },
	{ "200+", 200, NO_VAL, 0 },
	{ "200+x", 200, NO_VAL, NO_VAL },
	/* 2^32 + 100: job 100 to Slurm, never job_id's 7 */
	{ "4294967396", 100, NO_VAL, NO_VAL },
	{ "4294967396_2", 100, 2, NO_VAL },
	{ "200+4294967297", 200, NO_VAL, 1 },
	{ " 100", 100, NO_VAL, NO_VAL },
	{ "+100", 100, NO_VAL, NO_VAL },
	/* refused by Slurm: no job, not job_id's */
	{ "abc", 0, NO_VAL, NO_VAL },
	{ "", 0, NO_VAL, NO_VAL },
	{ "0", 0, NO_VAL, NO_VAL },
	{ "-5", 0, NO_VAL, NO_VAL },
	{ "100x", 0, NO_VAL, NO_VAL },
	{ "99999999999999999999", 0, NO_VAL, NO_VAL },
	{ "9223372036854775807", 0, NO_VAL, NO_VAL },
};

ROW_TEST(refilter, update_target_rows, struct target_row, target_rows)
{
	job_desc_msg_t desc;
	uint32_t id = 1, task = 1, offset = 1;

	slurm_init_job_desc_msg(&desc);
	SX_DESC_JOB_ID(&desc) = 7;
	desc.job_id_str = (char *)row->job_id_str;
	update_target(&desc, &id, &task, &offset);
	cr_assert_eq(id, row->id, "'%s': id %u", row->job_id_str, id);
	cr_assert_eq(task, row->task, "'%s': task %u", row->job_id_str, task);
	cr_assert_eq(offset, row->offset, "'%s': offset %u", row->job_id_str,
		     offset);
}

Test(refilter, update_target_by_job_id)
{
	job_desc_msg_t desc;
	uint32_t id, task, offset;

	slurm_init_job_desc_msg(&desc);
	SX_DESC_JOB_ID(&desc) = 55;
	update_target(&desc, &id, &task, &offset);
	cr_assert_eq(id, 55);
	cr_assert_eq(task, NO_VAL);
	cr_assert_eq(offset, NO_VAL);
}

/* ------------------------------------------------------ known_target */

Test(refilter, known_target_finds_the_job_an_update_applies_to)
{
	slurm_job_info_t *j;
	const struct known_job *k;
	bool het_all;

	jobs = jobs_new(4);
	j = jobs->job_array;
	/* out of job id order: the known jobs come sorted */
	job_set(&j[0], 201, "n[3-4]", TWO_OF_FOUR, false, "");
	job_het(&j[0], 200, 1);
	job_set(&j[1], 130, "n[3-4]", TWO_OF_FOUR, false, "");
	job_array_task(&j[1], 123, 4);
	job_set(&j[2], 200, "n[3-4]", TWO_OF_FOUR, false, "");
	job_het(&j[2], 200, 0);
	job_set(&j[3], 123, "n[3-4]", TWO_OF_FOUR, false, "");
	j[3].array_job_id = 123;

	plan(t, jobs, NULL, 0, NULL, &p);
	cr_assert_eq(p.n, 0);
	cr_assert_eq(p.known.count, 4);
	for (size_t i = 1; i < p.known.count; i++)
		cr_assert_lt(p.known.jobs[i - 1].job_id,
			     p.known.jobs[i].job_id);
	cr_assert_eq(known_job_find(&p.known, 130)->array_task_id, 4);
	cr_assert_null(known_job_find(&p.known, 131));

	k = known_target(&p.known, 200, NO_VAL, NO_VAL, &het_all);
	cr_assert_not_null(k);
	cr_assert_eq(k->job_id, 200);
	cr_assert(het_all, "the leader alone names every component");

	k = known_target(&p.known, 200, NO_VAL, 1, &het_all);
	cr_assert_not_null(k);
	cr_assert_eq(k->job_id, 201);
	cr_assert_not(het_all);

	k = known_target(&p.known, 123, 4, NO_VAL, &het_all);
	cr_assert_not_null(k);
	cr_assert_eq(k->job_id, 130);
	cr_assert_not(het_all);

	/* a task not split out: in the pending array record */
	k = known_target(&p.known, 123, 9, NO_VAL, &het_all);
	cr_assert_not_null(k);
	cr_assert_eq(k->job_id, 123);

	k = known_target(&p.known, 123, NO_VAL, NO_VAL, &het_all);
	cr_assert_not_null(k);
	cr_assert_eq(k->job_id, 123);
	cr_assert_not(het_all);

	cr_assert_null(known_target(&p.known, 200, NO_VAL, 5, &het_all));
	cr_assert_null(known_target(&p.known, 999, NO_VAL, NO_VAL, &het_all));
}

/* -------------------------------------------- the indices against a scan */

/* A set of known jobs, built directly: 3,000 of them, a third plain, a
 * third tasks of 30 arrays (each with its pending record holding the
 * tasks not split out), a third components of 300 het jobs. */
static void many_known(struct known_jobs *known)
{
	size_t n = 3000;

	known->jobs = calloc(n, sizeof(*known->jobs));
	cr_assert_not_null(known->jobs);
	for (size_t i = 0; i < n; i++) {
		struct known_job *k = &known->jobs[known->count++];

		/* ids given out of order: known_jobs_sort() sorts them */
		k->job_id = (uint32_t)(1 + (i * 7919) % n);
		k->array_task_id = NO_VAL;
		if (k->job_id % 3 == 1) {
			k->array_job_id = 5000 + k->job_id % 30;
			k->array_task_id =
				k->job_id % 97 == 0 ? NO_VAL : k->job_id;
		} else if (k->job_id % 3 == 2) {
			k->het_job_id = 9000 + k->job_id % 300;
			k->het_job_offset = k->job_id / 300;
		}
	}
	known_jobs_sort(known);
	cr_assert(known->indexed);
}

/* known_target() with the indices answers exactly as the
 * scan without them, for every name an update may give. */
Test(refilter, the_indices_answer_as_a_scan)
{
	struct known_jobs known = { 0 };
	size_t checked = 0, found = 0;

	many_known(&known);
	for (uint32_t id = 0; id < 9400; id += id < 3100 ? 1 : 7) {
		const uint32_t tasks[] = { NO_VAL, id % 101, id / 30, 3 };
		const uint32_t offsets[] = { NO_VAL, 0, 1, 9 };

		for (size_t a = 0; a < 4; a++)
			for (size_t b = 0; b < 4; b++) {
				uint32_t task = tasks[a], offset = offsets[b];
				const struct known_job *fast, *slow;
				bool het_fast, het_slow;

				if (task != NO_VAL && offset != NO_VAL)
					continue; /* not a name */
				known.indexed = true;
				fast = known_target(&known, id, task, offset,
						    &het_fast);
				known.indexed = false;
				slow = known_target(&known, id, task, offset,
						    &het_slow);
				cr_assert_eq(fast, slow,
					     "id %u task %u offset %u", id,
					     task, offset);
				cr_assert_eq(het_fast, het_slow);
				checked++;
				found += fast != NULL;
			}
	}
	cr_assert_gt(found, 1000, "%zu of %zu names found", found, checked);
	known.indexed = true;
	known_jobs_free(&known);
}
