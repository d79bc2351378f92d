/*
 * look_census.h - the pending jobs with a request as the look counts them
 * at each walk (look_slurm.c), for the caps on distinct pending requests
 * (doc/guard.md "The guard alone"; doc/design.md "Caps").
 * job_submit/extra reads the last whole walk's through guard_api.h
 * (`census`) and counts
 * it into the plugin's census (plugin/caps.h, plugin/census.h).  No Slurm
 * in here: the caller holds the job write lock while it adds (the look)
 * and at least the read lock while it reads (job_submit()).
 */
#ifndef SLURM_EXTRA_LOOK_CENSUS_H
#define SLURM_EXTRA_LOOK_CENSUS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "guard_api.h"
#include "job_state.h"

/* A walk that begins at `at`: its count starts empty. */
void look_census_begin(time_t at);

/* One pending job of the walk, once: owner `uid`, request `text` as the
 * guard reads it (records_request_of()), its tiers in `st` (may have
 * none).  Out of memory, the walk's count is dropped (the last stays). */
void look_census_add(uint32_t uid, const char *text,
		     const struct sx_job_state *st);

/* The walk under way could not list its jobs (out of memory): its count
 * is not published. */
void look_census_fail(void);

/* The walk's end: its count becomes the last (walk number raised). */
void look_census_end(void);

/* Nothing changed since the last walk began (no job, no node: the look
 * does not walk): its count still holds at `now`, and is published again
 * as of then, so that requests admitted whose jobs never came (refused
 * by Slurm after job_submit(), --test-only) are forgotten on a quiet
 * cluster too.  Not after a walk whose count failed. */
void look_census_still(time_t now);

/* guard_api.h's `census`: the last whole walk's count. */
int look_census_get(const struct sx_guard_census_job **jobs, size_t *n,
		    long long *walked_at, uint64_t *walk);

/* Frees both counts (the tests': the plugin keeps them to the end, a
 * job_submit() may read them while slurmctld stops). */
void look_census_free(void);

#endif
