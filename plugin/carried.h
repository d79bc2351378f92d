/*
 * carried.h - the entry points' side of the feature carrier (carry.h,
 * doc/thread.md "Carriers"): the request's feature ANDed into the
 * constraint and --prefer of a job that goes by it, at its submission and
 * at an update of those fields, with the thread's lock held.
 */
#ifndef SLURM_EXTRA_CARRIED_H
#define SLURM_EXTRA_CARRIED_H

#include <stdbool.h>

#include "slurm_compat.h"
#include "carrier.h"
#include "known_jobs.h"
#include "xc.h"

/* The constraint `features` and --prefer `prefer` (job_desc's or a job's;
 * NULL for none) with feature `name` ANDed into each that is set
 * (sx_constraint_with() of its user's own part, sx_constraint_own()):
 * *out_f and *out_p malloc'd (*out_p NULL when `prefer` is empty).  1
 * when both can carry it, 0 when one cannot (node counts, an operator at
 * the end, past 1024 bytes: nothing set), -1 when out of memory. */
int carried_with(const char *features, const char *prefer, const char *name,
		 char **out_f, char **out_p);

/* A submission's carrier (the thread's lock held): when the job requires
 * no node and its request's feature is known to slurmctld and its own
 * (thread_carry_lookup), and its constraint and --prefer can carry it,
 * they get it in job_desc, `name` gets its name and *count the nodes
 * that carry it for sure: 1.  0: the job goes by its ExcNodeList; -1 when
 * out of memory (refused). */
int carried_submit(job_desc_msg_t *job_desc, const xc_expr_t *expr,
		   char name[SX_FEATURE_LEN + 1], long *count);

/* Whether known job `k` goes by its request's feature now: its loaded
 * constraint ends with the feature its request has (`name` gets it). */
bool carried_now(const struct known_job *k, char name[SX_FEATURE_LEN + 1]);

/* An update of known job `k`, carried by its request's feature `name`
 * (carried_now), by anyone but the thread (the thread's lock held): what
 * the caller sets of its constraint or --prefer gets the feature back
 * (their own part kept exactly); a new request `expr` (23.02+; NULL: none)
 * moves the job to that request's feature when slurmctld knows it and it
 * is the request's own.  When the job cannot stay carried (new required
 * nodes, a constraint with node counts, a new request without a known
 * feature), its constraint and --prefer lose the feature and *leave is
 * set: the caller then keeps it off the nodes its request does not allow
 * by its ExcNodeList; so too when slurmctld does not know the name now (a
 * reconfigure since: Slurm would refuse the update for it).  Every field
 * set is one the caller may set on a
 * pending job (Slurm checks it with their rights).  0, or -1 when out of
 * memory. */
int carried_modify(job_desc_msg_t *job_desc, const struct known_job *k,
		   const xc_expr_t *expr, const char *name, bool *leave);

#endif
