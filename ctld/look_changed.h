/*
 * look_changed.h - what the look's walk of what changed visits, between
 * its walks of every job (doc/guard.md "The look"), in this order: the
 * jobs queued as made or changed (look_queue.h), taken a piece at a
 * time; then, after a change of the nodes' Extra, the jobs it carries
 * (look_jobs_carried()), listed again only once the last list is done,
 * so that changes faster than a list (an update of Extra every 100 ms)
 * never leave the jobs at its end unvisited: each job visited takes its
 * request's answers as they are then, and a change during a list is met
 * by the rest of it and, for the jobs before, by the next list.
 *
 * Bounded: a piece of the queue is LOOK_CHANGED_PIECE ids; a list of
 * carried jobs at most the look's jobs.  Not thread-safe: the look's
 * thread, under slurmctld's job write lock.
 */
#ifndef SLURM_EXTRA_LOOK_CHANGED_H
#define SLURM_EXTRA_LOOK_CHANGED_H

#include <stdbool.h>
#include <stdint.h>

#define LOOK_CHANGED_PIECE 4096

struct look;

/* The queue's next piece, once the last one is visited (nothing
 * otherwise).  True when the queue said it overflowed (ids dropped: a
 * walk of every job is wanted). */
bool look_changed_take(void);

/* Whether a list of carried jobs is under way: a change of Extra meanwhile
 * waits for its end. */
bool look_changed_carrying(void);

/* Whether the jobs carried are to be listed now: the count of changes of
 * Extra found (guard_changes()) moved since the last list (`seen`) and
 * no list is under way (its end first: a list restarted at each change
 * would never reach its last jobs). */
bool look_changed_list_due(uint64_t changes, uint64_t seen);

/* Lists the jobs `lk` carries now (after a change of Extra; the caller
 * asks only while look_changed_carrying() is false): 0, or -1 out of
 * memory (nothing listed). */
int look_changed_carry(const struct look *lk);

/* The next job to visit, queued ones first; 0 when none is left. */
uint32_t look_changed_next(void);

/* The job look_changed_next() gave was visited (or is gone): the next
 * call gives the one after it.  Not called, the same job again (its
 * visit cut short by the hold's budget). */
void look_changed_visited(void);

/* Everything listed and taken forgotten (a walk of every job meets them
 * all). */
void look_changed_clear(void);

/* The list's memory freed (and everything forgotten). */
void look_changed_free(void);

#endif
