/*
 * refilter_private.h - what the two files of a round's plan share
 * (refilter.c, the plan; refilter_read.c, the reading of each job):
 * private to them.
 */
#ifndef SLURM_EXTRA_REFILTER_PRIVATE_H
#define SLURM_EXTRA_REFILTER_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slurm_compat.h"
#include "job_state.h"
#include "known_jobs.h"
#include "memo.h"
#include "plan_prefer.h"
#include "refilter.h"

/* One pending job with a request, while planning. */
struct item {
	const slurm_job_info_t *job;
	struct sx_job_state st;
	struct memo_request *req; /* its request (memo.h), or NULL if invalid */
	uint64_t print;		  /* memo_job_print() */
	uint64_t exc_text;	  /* xc_text_hash() of its ExcNodeList */
	bool dropped; /* its request was emptied: no longer filtered */
	bool adopted; /* a request without a state of the plugin's */
	bool planned; /* its plan ran (not left for lack of memory or
				  for an unreadable hostlist) */
	char *features, *prefer; /* the constraint and --prefer its update
				    sets (malloc'd), NULL: the job's stand */
	bool wants;   /* it may go by its request's feature (plan_carrier) */
	bool carried; /* it goes by it (plan_carrier's by_feature) */
	char *note;   /* its preference's words before its status (malloc'd),
			 NULL when it has none (plan_prefer) */
	bool prefer_live;    /* its preferences' wait lasts (prefer_waiting) */
	bool prefer_pending; /* known_job.prefer_pending */
	struct memo_request *base; /* with preferences: its request's own
				      (R, for the caps), or NULL */
};

/* A round's plan while refilter_plan() makes it. */
struct planning {
	const struct refilter_in *in;
	struct refilter_memo *m;  /* in->memo, or the round's own: */
	struct refilter_memo own; /*   every job planned, nothing kept */
	uint64_t round;		  /* memo_round() */
	bool all;		  /* every job planned this round */
	size_t count;		  /* nodes of in->table */
	uint32_t *ids;		  /* hints_ids() of the hints taken */
	size_t nids;
	struct item *items; /* the jobs to plan (then sorted: by_request) */
	size_t nitems;
	struct known_jobs kept; /* the jobs unchanged, from in->prev */
	size_t kcap, nkept;	/* kept.jobs' room; how many were kept */
	struct job_update *ups; /* the updates planned */
	size_t nup;
	const struct item *run; /* the first item of the request's run: */
	bool run_failed;	/*   not evaluated, its jobs left */
	bool *matched;		/*   the nodes it matches (count) */
	struct job_filter base; /*   shared_filter() of it, and */
	uint64_t base_text, base_hosts; /* the hashes of its list */
	bool *usable;			/* scratch for plan_prefer (count) */
	struct plan_prefer_in pin;	/* the preferences' round
					   (plan_prefer.h) */
	bool *every;			/* every node (count), and the */
	uint64_t open_text, open_hosts; /* hashes of an empty list: a job
					   carried by its feature with no
					   exclusions of its own */
};

/* Reads pending `job` into the round: kept as it is when unchanged since
 * its plan (its request, and for a job with preferences what its pick
 * reads: plan_prefer.h), else an item (p->items) when it has a request,
 * with what others changed in it taken (job_changes.h) and the request it
 * goes by this round parsed (its effective request when it has
 * preferences, counted in out->stats).  0, or -1 when out of memory. */
int refilter_read_job(struct planning *p, const slurm_job_info_t *job,
		      const struct refilter_out *out);

#endif
