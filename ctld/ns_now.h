/*
 * ns_now.h - the ctld wing's clock for its figures of the minute
 * (guard_slurm.c, look_slurm.c): CLOCK_MONOTONIC, so that a change of
 * the date does not skew them.
 */
#ifndef SLURM_EXTRA_NS_NOW_H
#define SLURM_EXTRA_NS_NOW_H

#include <stdint.h>
#include <time.h>

/* Nanoseconds on the monotonic clock. */
static inline uint64_t ns_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

#endif
