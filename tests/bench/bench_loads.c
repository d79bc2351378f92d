/*
 * bench_loads.c - what a round that loads the jobs a hint names costs the
 * thread (plugin/thread/job_loads.h): kept_jobs_splice() of one job's
 * records into 5,000, 30,000 and 100,000 kept pending jobs, printed in
 * ms a splice (never asserted).  slurmctld's side, the load of
 * one job by id, is one job's pack; a load of every job packs them all.
 *   make tests/bench/bench_loads && tests/bench/bench_loads
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "kept_jobs.h"

static double ms_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

int main(void)
{
	const size_t sizes[] = { 5000, 30000, 100000 };

	for (size_t s = 0; s < sizeof(sizes) / sizeof(*sizes); s++) {
		size_t n = sizes[s], rounds = 20;
		slurm_job_info_t *v = calloc(n, sizeof(*v)), one;
		job_info_msg_t in = { .record_count = (uint32_t)n,
				      .job_array = v },
			       *kept,
			       fresh = { .record_count = 1, .job_array = &one };
		job_info_msg_t *fr[1] = { &fresh };
		struct timespec a, b;
		uint32_t id = 101;

		if (!v)
			return 1;
		for (size_t i = 0; i < n; i++) {
			v[i].job_id = (uint32_t)i + 1;
			v[i].job_state = JOB_PENDING;
			v[i].array_task_id = NO_VAL;
			v[i].admin_comment =
				"slurm-extra: 2 of 4 nodes satisfy the request; held=0; wrote=0123456789abcdef; exclude=; request=gpu=true&mem>=512";
			v[i].exc_nodes = "n[3-4]";
			v[i].partition = "batch";
		}
		one = v[100];
		if (!(kept = kept_jobs_keep(&in, NULL)))
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (size_t k = 0; k < rounds; k++)
			if (kept_jobs_splice(kept, fr, 1, &id, 1, NULL) < 0)
				return 1;
		clock_gettime(CLOCK_MONOTONIC, &b);
		printf("splice of one job into %zu kept jobs: %.2f ms\n", n,
		       ms_between(&a, &b) / (double)rounds);
		kept_jobs_free(kept);
		free(v);
	}
	return 0;
}
