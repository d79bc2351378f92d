/*
 * look_visit.h - the look's visit of one job in slurmctld's records
 * (look_visit.c), and the state of the hold under way that the hold
 * (look_slurm.c) sets and the visit reads and writes.  The look's
 * thread only, under slurmctld's job write lock (doc/guard.md "The
 * look").
 */
#ifndef SLURM_EXTRA_LOOK_VISIT_H
#define SLURM_EXTRA_LOOK_VISIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* the sets the look gives jobs that had none: 8 MiB at 65,536 nodes */
#define LOOK_SETS 1024
/* the sets given at a walk's end stop this long after the hold began
 * (the others: the next walk) */
#define LOOK_SHARE_UNTIL_NS (14 * 1000000ULL)

struct guard;
struct job_record;
struct look;

extern struct look *look_lk;  /* the look (look.h) */
extern time_t look_hold_now;  /* the clock of the hold under way */
extern uint64_t look_hold_t0; /* and when it began (ns_now()) */
/* Slurm filters by the request itself (this hold's reading) */
extern bool look_slurm_filters;
/* a job's set written or given back, not yet told (as a job update) */
extern bool look_touched;
/* a walk of what changed met a job that wants a set (given at a whole
 * walk's end), or the queue overflowed: a whole walk is wanted */
extern bool look_want_whole;
/* work left: the next walk, soon */
extern bool look_again;
/* what the visits did, for the minute's line */
struct look_tally {
	uint64_t written, patched, left, set, freed;
};
extern struct look_tally look_tally;

/* Logs `what` once (`which`: its slot, below 5). */
void look_say_once(int which, const char *what);

/* How a walk visits a job: in a walk of every job (counted, and a
 * candidate for a set); at that walk's end, among the LOOK_SETS of the
 * highest priority (it may be given a set); in a walk of what changed
 * (its set kept in step; one that wants a set wants a whole walk). */
enum look_visit_as {
	LOOK_VISIT_WHOLE,
	LOOK_VISIT_SHARE,
	LOOK_VISIT_CHANGED
};

/* One job: its excluded nodes as its base | its request's failing nodes,
 * visited as `how`.  *budget: the work left for this hold.  False when
 * its request's answers could not be given within it: the caller looks
 * at the job again in its next hold. */
bool look_visit(struct guard *g, struct job_record *job_ptr, size_t nnodes,
		size_t *budget, enum look_visit_as how);

/* A walk of every job's end: the LOOK_SETS jobs of the highest priority
 * among those that would take a set or hold one get one, within what is
 * left of the hold's budget (*budget), the others' are taken back. */
void look_sets_share(struct guard *g, size_t nnodes, size_t *budget);

#endif
