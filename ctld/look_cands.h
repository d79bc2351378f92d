/*
 * look_cands.h - the jobs of a walk of the look (look_slurm.c) that would
 * take a set of the look's or hold one, for the walk's end, where the
 * LOOK_SETS of the highest priority get one (doc/guard.md "The look").
 * No Slurm in here: the caller holds the job write lock.
 */
#ifndef SLURM_EXTRA_LOOK_CANDS_H
#define SLURM_EXTRA_LOOK_CANDS_H

#include <stddef.h>
#include <stdint.h>

struct look_cand {
	uint32_t job_id, priority;
};

/* One job of the walk (out of memory: left out, no set this walk). */
void look_cands_add(uint32_t job_id, uint32_t priority);

/* The walk's jobs, the `first` of the highest priority first (sorted by
 * priority when there are more; else as added); *n their count. */
const struct look_cand *look_cands_sorted(size_t first, size_t *n);

/* Empties the list (a walk that begins, or ends). */
void look_cands_clear(void);

/* Frees it. */
void look_cands_free(void);

#endif
