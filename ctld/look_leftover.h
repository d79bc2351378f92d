/*
 * look_leftover.h - the waiting jobs that keep what an earlier release's
 * job_submit/extra thread set on them before the guard filtered alone
 * (an upgrade: doc/install.md "Upgrading"; its feature, its
 * ExcNodeList nodes, its hold, a preference's tier in Extra), as the look
 * finds them at each walk (look_slurm.c), given back (doc/guard.md "The
 * guard alone").  The job write lock held by the caller.
 */
#ifndef SLURM_EXTRA_LOOK_LEFTOVER_H
#define SLURM_EXTRA_LOOK_LEFTOVER_H

#include <stdbool.h>

#include "job_state.h"

struct job_record;

/* A walk begins: none counted yet. */
void look_leftover_begin(void);

/* Waiting job `job_ptr` of the walk, its state `st` as
 * records_request_of() read it: counted (the first few kept to give
 * back) when the guard filters alone and the job keeps what the thread
 * set. */
void look_leftover_add(struct job_record *job_ptr,
		       const struct sx_job_state *st);

/* The walk's end: the first 16 jobs counted given back what the thread
 * set (its feature out of their Features and --prefer, the user's own
 * ExcNodeList, its hold released, their request as their Extra), in
 * slurmctld's records as _update_job() sets them, their state then the
 * guard's; what Slurm refuses stays, said in the log.  The job write,
 * node read and partition read locks held.  True when a job was given
 * something back (the caller then has the schedulers look again). */
bool look_leftover_give(void);

/* Whether a job was given back since the last call (the caller then
 * asks for the job state to be saved, schedule_job_save(), with no lock
 * held). */
bool look_leftover_saved(void);

#endif
