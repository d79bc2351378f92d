/*
 * plan_carrier.h - what a round's plan (refilter.c) makes of the feature
 * carrier (carry.h; doc/thread.md "Carriers"): how each pending job with a
 * request goes, by its request's node feature or by its ExcNodeList.
 */
#ifndef SLURM_EXTRA_PLAN_CARRIER_H
#define SLURM_EXTRA_PLAN_CARRIER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carry.h"
#include "known_jobs.h"
#include "memo.h"

/* How one job goes (plan_carrier). */
struct plan_carried {
	bool by_feature; /* the job goes by its request's feature */
	bool wants;	 /* its request wants the feature this round */
	size_t count;	 /* the nodes that carry it for sure */
	char *features;	 /* the constraint to set (malloc'd), or NULL: the
			    job's own stands */
	char *prefer;	 /* the same for its --prefer */
};

/* Frees what *cd holds and zeroes it. */
void plan_carrier_free(struct plan_carried *cd);

/*
 * The carrier of pending `job`, whose request is `req` (NULL: invalid),
 * into *cd (zeroed first; plan_carrier_free() after), with carrier `c`
 * (NULL: none) in plan round `round`; `prev` the jobs the round before
 * knew.  By its request's feature when the carrier is on, its name free
 * or its request's, the job requires no node, and its constraint and
 * --prefer can carry the feature (sx_constraint_with, slurm/carrier.h);
 * then its request wants the feature this round (req->carry_round set,
 * cd->wants), and the job goes by it once slurmctld knows the name, or
 * while it has it already.  Otherwise by its ExcNodeList, the feature
 * taken out of its constraint and --prefer if they have it (also under a
 * NodeFeatures plugin, which sets no feature of the plugin's).  The
 * feature of the request the job had at its last plan is taken out too,
 * and `stale` (NULL or "" for none): the feature at the end of its
 * constraint of another request it may have gone by (refilter.c
 * stale_feature(): the one job_submit() gave it for another of its
 * tiers, before any plan).  0, or -1 when out of memory (*cd empty).
 */
int plan_carrier(const struct carry *c, const struct known_jobs *prev,
		 uint64_t round, const slurm_job_info_t *job,
		 struct memo_request *req, const char *stale,
		 struct plan_carried *cd);

/*
 * Whether `job`, carried by its feature (cd, plan_carrier's), which Slurm
 * set aside while the feature was on too few nodes (BadConstraints,
 * priority 0: 22.05 takes such a job up again only at an update,
 * job_time_limit() at a reconfigure), is to be touched: its feature is on
 * enough nodes now and its request's count rose since the job was last
 * planned (`prev`; once a rise: a job set aside for another reason is not
 * touched again and again), or the round plans every job (`all`: every
 * FULL_ROUND_S, and after refused updates: a refused touch, or a rise not
 * seen, is made good then).
 */
bool plan_needs_touch(const struct known_jobs *prev, bool all,
		      const slurm_job_info_t *job,
		      const struct memo_request *req,
		      const struct plan_carried *cd);

/*
 * What the plan leaves each request of `memo` for carry_covers(): its
 * jobs (`known`, the round's) all carried by its feature with no
 * exclusions of their own, the most nodes one asks for, the nodes it
 * matches now.  Linear in the requests and the jobs.
 */
void plan_summarize(struct refilter_memo *memo, const struct known_jobs *known);

#endif
