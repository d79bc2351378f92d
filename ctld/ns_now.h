/*
 * ns_now.h - the ctld wing's clocks for its figures of the minute
 * (guard_slurm.c, look_slurm.c, look_thread.c): CLOCK_MONOTONIC, so that
 * a change of the date does not skew them, and a thread's CPU time.
 */
#ifndef SLURM_EXTRA_NS_NOW_H
#define SLURM_EXTRA_NS_NOW_H

#include <stdint.h>
#include <time.h>

/* Nanoseconds on clock `clock` (CLOCK_THREAD_CPUTIME_ID: the calling
 * thread's CPU time). */
static inline uint64_t ns_of(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

/* Nanoseconds on the monotonic clock. */
static inline uint64_t ns_now(void)
{
	return ns_of(CLOCK_MONOTONIC);
}

#endif
