/*
 * guard_private.h - what guard.c and guard_jobs.c share of the guard
 * (guard.h): its records, for the two halves of what it keeps, the nodes
 * and requests (guard.c) and the jobs' bits (guard_jobs.c).
 */
#ifndef SLURM_EXTRA_GUARD_PRIVATE_H
#define SLURM_EXTRA_GUARD_PRIVATE_H

#include <json-c/linkhash.h>

#include "guard.h"

struct node_seen {
	char *text;	   /* the Extra last read (NULL: none) */
	xc_extra_t *extra; /* parsed, or NULL (unset, not an object ...) */
	bool read;	   /* text was read since the node count was set */
	bool stamped;	   /* stamp and read_at hold (guard_look_stamps()) */
	long long stamp;   /* the node's own stamp at that read */
	long long read_at; /* the second of that read */
};

/* A request and what it said of each node, while the node's Extra is the
 * one it was evaluated on. */
struct guard_req {
	xc_expr_t *expr; /* NULL: invalid (kept so, parsed once) */
	uint64_t *known; /* nodes whose answer is kept */
	uint64_t *fails; /* of those, the ones that do not satisfy it */
	size_t cost; /* what evaluating it on a node costs (guard_count()) */
};

/* A state the guard left a job's excluded nodes in. */
struct left {
	void *bits;		 /* a copy, NULL: none */
	unsigned long long text; /* hash of the ExcNodeList then */
	uint64_t written;	 /* when (the guard's own counter) */
	size_t n;
	uint32_t *nodes; /* what the guard had added */
};

struct job_rec {
	uint32_t id; /* 0: a free slot */
	struct left left[2];
};

struct guard {
	xc_limits_t limits;
	struct node_seen *nodes; /* nnodes of them */
	size_t nnodes;
	uint64_t *changed;	   /* a look's changed nodes, words */
	bool looked;		   /* a look at every node recorded */
	long long seen, looked_at; /* Slurm's stamp then, and when */
	size_t evaluated;	   /* answers evaluated (tests, bench) */
	struct lh_table *requests; /* text -> struct guard_req * (key owned) */
	struct lh_table *tiers;	   /* the same, for the tiers counted */
	size_t budget;		   /* the tiers' budget left ... */
	long long budget_at;	   /* ... in this second */
	bool budget_set;
	struct {
		uint32_t uid;
		size_t spent;	   /* 0: a free slot */
	} users[GUARD_TIER_USERS]; /* ... and what each user took of it */
	long long read_max;   /* the latest second a node was read stamped */
	struct job_rec *jobs; /* open addressing by id, 0 = free */
	size_t jobs_cap, jobs_n, sweep_at;
	uint64_t clock;			       /* counts the states written */
	uint64_t changes;		       /* node changes found, ever */
	uint32_t change_log[GUARD_CHANGE_LOG]; /* the last ones' nodes */
	const struct guard_bits_ops *ops;      /* what the kept copies are */
	void (*say)(size_t i, const char *why, void *arg); /* unusable */
	void *say_arg;
	size_t told, untold; /* in this look: named, and past the cap */
};

/* Frees what job slot `r` holds, leaving it as it is in the table
 * (guard_jobs.c). */
void guard_job_clear(struct guard *g, struct job_rec *r);

#endif
