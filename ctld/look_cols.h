/*
 * look_cols.h - the guard's columns (guard.h "Columns") built by the
 * look's thread (look_thread.c): the nodes' texts copied a little at the
 * end of each hold, the columns built after the locks are let go,
 * installed at the start of the next hold.
 */
#ifndef SLURM_EXTRA_LOOK_COLS_H
#define SLURM_EXTRA_LOOK_COLS_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct guard_cols_copy;

/* At the end of a hold (the locks held), at `now`: when the guard has no
 * current columns, a copy of the nodes' texts begun (at most every
 * LOOK_COLS_RETRY_S, after one begun or an install refused) and
 * carried on for some LOOK_COLS_COPY_NS; the complete copy returned, for
 * the caller to build outside the locks (guard_cols_build()) and give to
 * look_cols_install().  NULL else, with *more set while a copy is under
 * way (the thread comes back soon). */
struct guard_cols_copy *look_cols_copy(time_t now, bool *more);

/* At the start of a hold (the locks held): the columns built from `c`
 * (in `built_ns` of the thread's time) installed in the guard, when still
 * the same guard and nodes (guard_cols_install()); `c` freed. */
void look_cols_install(struct guard_cols_copy *c, uint64_t built_ns,
		       time_t now);

/* How many times columns were installed. */
uint64_t look_cols_installs(void);

/* A copy under way, freed (the thread stopped). */
void look_cols_free(void);

#endif
