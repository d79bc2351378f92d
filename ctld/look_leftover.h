/*
 * look_leftover.h - the waiting jobs that keep what job_submit/extra's
 * thread set on them before the guard filtered alone (its feature, its
 * ExcNodeList nodes, its hold, a preference's tier in Extra), as the look
 * finds them at each walk (look_slurm.c), named in slurmctld's log with
 * what to do (doc/design.md "The guard alone").  The job write lock held
 * by the caller.
 */
#ifndef SLURM_EXTRA_LOOK_LEFTOVER_H
#define SLURM_EXTRA_LOOK_LEFTOVER_H

#include <time.h>

#include "job_state.h"

struct job_record;

/* A walk begins: none counted yet. */
void look_leftover_begin(void);

/* Waiting job `job_ptr` of the walk, its state `st` as
 * records_request_of() read it: counted (the first few named) when the
 * guard filters alone and the job keeps what the thread set. */
void look_leftover_add(struct job_record *job_ptr,
		       const struct sx_job_state *st);

/* The last whole walk's count said, at `now`: at a change of it, at most
 * once a minute but when none is left; never when there were and are
 * none, nor while the thread runs beside the guard. */
void look_leftover_say(time_t now);

#endif
