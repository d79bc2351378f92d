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
	size_t leaves;
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
	size_t told, untold;   /* in this look: named, and past the cap */
	uint64_t serial;       /* this guard's, among the process's */
	xc_nodes_t *cols;      /* the columns (guard_cols.c), or NULL ... */
	uint64_t cols_changes; /* ... holding the nodes as at this change */
	bool *matched;	       /* nnodes: the columns' last answers */
	size_t cols_evaluated; /* requests answered by the columns */
};

/* Frees what job slot `r` holds, leaving it as it is in the table
 * (guard_jobs.c). */
void guard_job_clear(struct guard *g, struct job_rec *r);

/* The columns dropped (another node count, too far behind, out of
 * memory): built again by the look's thread (guard_cols_copy()). */
void guard_cols_drop(struct guard *g);

/* Whether the columns are there and hold every node's Extra as last
 * read, the changes since they were last current replayed in place
 * (each some 50 us); false when there are none, or they were dropped
 * (more than GUARD_COLS_REPLAY changes behind, another node count, out
 * of memory). */
bool guard_cols_current(struct guard *g);

/* What answering `r` on every node by the columns costs, in the units
 * of a budget (an answer's cost: r->cost): a pass over an array a leaf,
 * and every node's answer stored (tests/bench/bench_look). */
size_t guard_cols_cost(const struct guard *g, const struct guard_req *r);

/* `r` answered on every node read by the columns, when they are current
 * and *budget holds guard_cols_cost() (then taken from it): true; false
 * (nothing done) else. */
bool guard_cols_answer(struct guard *g, struct guard_req *r, size_t *budget);

#endif
