/*
 * elapsed.h - time taken, for job_submit/extra's log lines
 * (CLOCK_MONOTONIC: a change of the date does not count).
 */
#ifndef SLURM_EXTRA_ELAPSED_H
#define SLURM_EXTRA_ELAPSED_H

#include <stdbool.h>
#include <time.h>

/* Whether `t` holds a time (a zero one stands for none). */
static inline bool time_set(const struct timespec *t)
{
	return t->tv_sec || t->tv_nsec;
}

/* Milliseconds since `t0`, which clock_gettime(CLOCK_MONOTONIC) gave. */
static inline double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 +
	       (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

#endif
