/*
 * test_refilter_fixture.h - what the re-filtering tests (test_refilter*.c)
 * build their rounds from: a node table of four nodes, n1 and n2 with
 * {"gpu":true}, n3 and n4 with {"gpu":false}, and job records asking
 * gpu=true (so the plugin's own exclusions are n[3-4]), planned with
 * refilter_plan() as the plugin's thread plans them.  A failed assertion
 * fails the test that called the helper.
 */
#ifndef TESTS_TEST_REFILTER_FIXTURE_H
#define TESTS_TEST_REFILTER_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <slurm/slurm.h>

#include "job_state.h"
#include "loaded_jobs.h"
#include "refilter.h"
#include "slurm_compat.h"
#include "xc.h"

/* libslurm exports Slurm's bitstring functions; no public header declares
 * them (slurm_compat.h declares the plugin's: size, test, copy, free). */
extern bitstr_t *slurm_bit_alloc(bitoff_t nbits);
extern void slurm_bit_set(bitstr_t *b, bitoff_t bit);

#define HELD_STATUS                                                            \
	"held: a required node does not satisfy the request (2 of 4 nodes do; slurm-extra why --job ID tells why)"

/* One round of planning and what it gave. */
struct plan {
	struct job_update *u;
	size_t n;
	struct known_jobs known;
	struct refilter_stats stats;
};

/* A test's round, made before the test and freed after it whatever it
 * did (round_setup, round_teardown: the fixture of the suite `refilter`,
 * which then fails a test that leaked, as leakcheck.h does). */
extern xc_nodes_t *t;	     /* n1-n2 {"gpu":true}, n3-n4 {"gpu":false} */
extern job_info_msg_t *jobs; /* the jobs the test sets (NULL: none) */
extern struct hints hints;   /* the hints of job_modify() it adds */
extern struct plan p;	     /* the round it planned last */
extern time_t plan_now;	     /* the rounds' clock (0: time(NULL)) */
extern const bool *plan_free_nodes;    /* the free nodes (NULL: none known) */
extern const struct parts *plan_parts; /* the partitions (NULL: every node) */

void round_setup(void);
void round_teardown(void);

/* `count` pending plain jobs of user 1000, without ids or state yet
 * (job_set; jobs_free). */
job_info_msg_t *jobs_new(uint32_t count);

/* A malloc'd copy of `s`, or NULL for NULL. */
char *dup_or_null(const char *s);

/* jobs_new(1), its job set by job_set(). */
job_info_msg_t *one_job(uint32_t job_id, const char *exc, const char *status,
			bool held, const char *exclude);

/* The plugin had written `exc` as the job's ExcNodeList (wrote=): a job
 * whose list differs was updated by someone since. */
void plugin_wrote(slurm_job_info_t *j, const char *exc);

/* Job `j`'s request is `request` instead, in its state and (from 23.02)
 * in its own `extra`. */
void request_set(slurm_job_info_t *j, const char *request);

/* Any node: the request of the jobs with preferences. */
#define ANY "gpu=true|gpu=false"

/* Job `j`: id 7, asking ANY (ExcNodeList none, the user's own `exclude`)
 * with preferences `tiers` (n of them) and a wait of `wait` s, eligible
 * at `eligible` (prefer.h). */
void job_prefer_set(slurm_job_info_t *j, const char *const *tiers, unsigned n,
		    long wait, time_t eligible, const char *exclude);

/* Frees the jobs of jobs_new() and every string set in them. */
void jobs_free(job_info_msg_t *m);

/* Plans a round of `loaded` over `table` into *out (plan_free), with the
 * hints of `set` up to `upto` and the jobs of the round before, `prev`. */
void plan(const xc_nodes_t *table, const job_info_msg_t *loaded,
	  const struct hints *set, uint64_t upto, const struct known_jobs *prev,
	  struct plan *out);

/* Frees the plan and empties it: it can be planned into again. */
void plan_free(struct plan *planned);

/* The update planned for `job_id` (the test fails without one). */
const struct job_update *update_of(const struct plan *planned, uint32_t job_id);

/* The only update planned, for `job_id` (the test fails unless there is
 * one update, for that job). */
const struct job_update *only_update(const struct plan *planned,
				     uint32_t job_id);

/* The state an update writes, parsed (sx_job_state_free). */
void planned_state(const struct job_update *u, struct sx_job_state *st);

/* A hint that ExcNodeList was set to `set` on job `id`, `user` being the
 * user's own part of it (NULL: all of it). */
struct job_hint exc_hint(uint32_t id, bool trusted, const char *set,
			 const char *user);

/* Adds `h` to `set` (which takes its user_exc over). */
void add_hint(struct hints *set, struct job_hint h);

#endif
