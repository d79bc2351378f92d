/*
 * look_slurm.h - the look in slurmctld (its thread look_thread.c, its
 * holds look_slurm.c;
 * doc/guard.md "The look"), for the burst_buffer plugin's init() and
 * fini() (burst_buffer_extra.c).
 */
#ifndef SLURM_EXTRA_LOOK_SLURM_H
#define SLURM_EXTRA_LOOK_SLURM_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* Starts the look's thread once the guard is loaded.  SLURM_SUCCESS, also when the thread cannot start (said in
 * the log: jobs are then kept off at their placement only). */
int look_slurm_start(void);

/* Stops the thread (waits for its hold of the locks to end) and frees
 * what it keeps; accepts a look never started.  bb_g_fini() calls it
 * (through fini()) holding the burst buffer interface's own lock, which
 * a thread holding slurmctld's may be waiting for while the look waits
 * for slurmctld's: after 10 s it is left to stop by itself once it has
 * them, touching nothing (the plugin is never unloaded), and what it
 * keeps, the guard's too, is left to it.  False then: the caller must
 * not free the guard. */
bool look_slurm_stop(void);

struct job_record; /* Slurm's job_record_t */

/* One hold of the look's (look_thread.c), begun at ns_now() `t0`, at
 * `now`, the job write, node read and partition read locks held: true
 * when work is left (a walk cut short, or one to do again). */
bool look_slurm_hold(time_t now, uint64_t t0);

/* A hold of `ns` done (wall time, `cpu_ns` of it on the thread's CPU:
 * the rest it waited, preempted or for memory), at `now`: counted, the
 * figures logged each minute (verbose). */
void look_slurm_held(uint64_t ns, uint64_t cpu_ns, time_t now);

/* Before a thread starts: the walk a thread that did not stop left
 * forgotten, not freed (its list may be gone). */
void look_slurm_begin(void);

/* What the look kept, freed (its thread stopped). */
void look_slurm_release(void);

/* At a placement (the job write lock held; not in backfill's thread,
 * whose copy of the set holds its reservations too): `job_ptr`'s own
 * excluded nodes (words, good until the look's next call) when its set
 * holds what the look set, else NULL: the guard judges the placement by
 * them, as before the look (look_job_base()).  `text_hash`: the job's
 * records_rebuilt_from(), which the guard has already read. */
const uint64_t *look_slurm_base(struct job_record *job_ptr,
				unsigned long long text_hash);

#endif
