/*
 * look_walk.h - the look's walk of slurmctld's job list (look_slurm.c),
 * the job write lock held: an iterator of the list kept across holds,
 * so that no hold copies or walks the whole list.  Slurm's list moves an
 * iterator off a job it removes (_list_node_destroy(), src/common/list.c,
 * 22.05.8 and 24.11.5), and the list lives until after the plugin's
 * fini() (job_fini() after bb_g_fini(), src/slurmctld/controller.c).
 */
#ifndef SLURM_EXTRA_LOOK_WALK_H
#define SLURM_EXTRA_LOOK_WALK_H

#include <stdbool.h>
#include <stdint.h>

struct job_record;

/* The walk's next job (its iterator made at the first), NULL at its end
 * or when the list is not slurmctld's any more (look_walk_lost()). */
struct job_record *look_walk_next(void);

/* Job `job_id` given back first by the next look_walk_next() (the job
 * the hold stopped at), unless it is gone by then. */
void look_walk_again(uint32_t job_id);

/* Whether the walk ended because its list was not slurmctld's any more
 * (then it was not whole). */
bool look_walk_lost(void);

/* The walk ended: its iterator freed while its list is slurmctld's. */
void look_walk_stop(void);

/* Its iterator forgotten, not freed (its list may be gone, which frees
 * it): what a thread that did not stop left. */
void look_walk_forget(void);

#endif
