/*
 * look_slurm.h - the look's thread in slurmctld (look_slurm.c;
 * doc/design.md "The look"), for the burst_buffer plugin's init() and
 * fini() (burst_buffer_extra.c).
 */
#ifndef SLURM_EXTRA_LOOK_SLURM_H
#define SLURM_EXTRA_LOOK_SLURM_H

#include <stdint.h>

/* Starts the thread once the guard is loaded (none while it stands
 * aside).  SLURM_SUCCESS, also when the thread cannot start (said in
 * the log: jobs are then kept off at their placement only). */
int look_slurm_start(void);

/* Stops the thread (waits for its round to end) and frees what it
 * keeps; accepts a look never started.  Called with no slurmctld lock
 * held (bb_g_fini() at shutdown, src/slurmctld/controller.c). */
void look_slurm_stop(void);

struct job_record; /* Slurm's job_record_t */

/* At a placement (the job write lock held; not in backfill's thread,
 * whose copy of the set holds its reservations too): `job_ptr`'s own
 * excluded nodes (words, good until the look's next call) when its set
 * holds what the look set, else NULL: the guard judges the placement by
 * them, as before the look (look_job_base()). */
const uint64_t *look_slurm_base(struct job_record *job_ptr);

#endif
