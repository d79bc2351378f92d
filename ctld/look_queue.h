/*
 * look_queue.h - the jobs the look visits between its walks of every
 * job (doc/guard.md "The look"): their ids, queued by whoever sees a job
 * made or changed inside slurmctld: burst_buffer/extra's
 * bb_p_job_validate2(), which Slurm calls for every job it creates
 * (_job_create(), src/slurmctld/job_mgr.c, 22.05.8 line 7718; not for an
 * array task split off when scheduled, nor a requeue: doc/guard.md "The
 * look"), and
 * job_submit/extra's job_modify() through the guard's API (guard_api.h),
 * which Slurm calls at the start of every update of a job (_update_job(),
 * the same file).  The look takes them in its next hold, after the call
 * that queued them has let the locks go, so it sees the job as made or
 * updated.
 *
 * Bounded: at most LOOK_QUEUE_CAP ids; past them the ids are dropped and
 * the queue says it overflowed: the look's next walk of every job sees
 * them all.  Thread-safe (its own mutex): the callers hold slurmctld's
 * job write lock, but nothing here relies on it.
 */
#ifndef SLURM_EXTRA_LOOK_QUEUE_H
#define SLURM_EXTRA_LOOK_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LOOK_QUEUE_CAP 65536 /* ids: 256 KiB */

/* Queues job `job_id` (0: nothing; the id queued last: once, so that one
 * job's updates in a row, refused or not, take one place); false when
 * the queue is full (the id dropped, the overflow said by
 * look_queue_take()). */
bool look_queue_push(uint32_t job_id);

/* Takes up to `cap` ids, oldest first, into `ids`; *overflowed (may be
 * NULL) is set true when ids were dropped since the last take that
 * reported it, and the report cleared.  Returns how many were taken. */
size_t look_queue_take(uint32_t *ids, size_t cap, bool *overflowed);

/* Forgets what is queued and any overflow (a walk of every job begins:
 * it sees them all). */
void look_queue_clear(void);

/* How many ids are queued now. */
size_t look_queue_count(void);

#endif
