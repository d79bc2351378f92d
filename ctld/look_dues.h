/*
 * look_dues.h - when the waits of the pending jobs with preferences end,
 * as the look finds them at each walk (look_slurm.c), so that Slurm's
 * scheduler tries each such job again when its wait ends.
 *
 * The guard picks a job's tier at its placement from its EligibleTime
 * and the time (guard_tiers.h, doc/guard.md "Preferences there"): when
 * the wait ends, the job goes by its request alone, and may run on nodes
 * it could not take a second before.  Nothing in slurmctld changes then:
 * no job update, no node update, so no scheduling pass is queued, and
 * the job would wait for the main scheduler's periodic pass
 * (sched_interval, 60 s by default) or backfill's.  So the look queues
 * one at each wait's end (queue_job_scheduler(), src/slurmctld/controller.c: a
 * counter that slurmctld's background loop reads each second, within
 * batch_sched_delay of the last pass).  That pass is not a full one
 * (schedule(false): at most default_queue_depth jobs, 100 by default,
 * src/slurmctld/job_scheduler.c): a job further down the queue waits
 * for backfill or the periodic full pass, as after any job update.
 *
 * No Slurm in here: the caller holds the job write lock (the look's
 * thread) and tells a job's EligibleTime through a callback.
 */
#ifndef SLURM_EXTRA_LOOK_DUES_H
#define SLURM_EXTRA_LOOK_DUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* A job's EligibleTime now (details->begin_time; 0: not eligible yet),
 * or -1 when it no longer waits (gone, not pending). */
typedef time_t (*look_due_eligible_fn)(uint32_t job_id, void *arg);

/* A walk begins: its list starts empty. */
void look_dues_begin(void);

/* The jobs not eligible yet read at most per call. */
#define LOOK_DUES_READS 1024

/* One pending job of the walk with preferences: its id, its wait
 * (sx_job_state.wait, s; 0: none, PREFER_NOW_S then), its EligibleTime
 * (0: not eligible yet), and when Slurm's scheduler last tried it
 * (job_ptr->last_sched_eval): a wait that ended before then is not
 * listed, one that ended since is, and is due at once (a walk may begin long
 * after a submission, behind backfill).  Out of memory, the walk's list
 * is dropped (the last stays). */
void look_dues_add(uint32_t job_id, long wait, time_t eligible, time_t since);

/* The walk under way could not list its jobs (out of memory): its list
 * is not published. */
void look_dues_fail(void);

/* The walk's end: its list replaces the last. */
void look_dues_end(void);

/* At `now`: whether the wait of a listed job has ended since the last
 * call (such ends leave the list; the scan only when the earliest has
 * come).  The jobs not eligible when listed have their EligibleTime read
 * again through `eligible_of`, each in turn, at most LOOK_DUES_READS and
 * *budget of them (each one unit of it); one no longer waiting leaves
 * the list. */
bool look_dues_due(time_t now, look_due_eligible_fn eligible_of, void *arg,
		   size_t *budget);

/* The jobs listed (the tests', and the look's log). */
size_t look_dues_count(void);

/* Frees both lists. */
void look_dues_free(void);

#endif
