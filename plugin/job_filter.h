/*
 * job_filter.h - the filter of one job: which nodes its request leaves it,
 * against the node table (doc/language.md §7).  job_submit() and
 * job_modify() compute it for the job in hand, the thread for every
 * pending job (refilter.h).
 *
 * A job's excluded nodes are the user's own (kept in its AdminComment,
 * job_state.h) and every node whose Extra does not satisfy the request,
 * except the nodes the job requires (Slurm refuses a job whose required
 * and excluded nodes overlap).  No node left, or a required node that
 * does not satisfy the request, and the job must wait:
 *   - no node satisfies it: the exclusions cover the partition and Slurm's
 *     scheduler itself holds the job as BadConstraints; Slurm lifts that
 *     the next time the job is updated (its ExcNodeList, by this plugin,
 *     when a node comes to match);
 *   - a required node does not: nothing can be excluded, so the plugin
 *     holds the job (priority 0, held=1 in its state) and releases it when
 *     all its required nodes satisfy the request.
 * A hold by the user or an admin is never released here.
 */
#ifndef SLURM_EXTRA_JOB_FILTER_H
#define SLURM_EXTRA_JOB_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xc.h"

/* What a job's request leaves it, against a node table. */
struct job_filter {
	char *exc;	    /* excluded nodes (malloc'd ranged hostlist), or
			       NULL for none */
	size_t allowed;	    /* nodes that satisfy the request and that the
			       user did not exclude */
	size_t total;	    /* nodes in the table */
	bool req_unmatched; /* a required node does not satisfy it */
};

/* The nodes of `table` that `expr` matches (xc_nodes_match()), one bool
 * a node (xc_nodes_count() of them), calloc'd; NULL when out of memory. */
bool *filter_match(const xc_nodes_t *table, const xc_expr_t *expr);

/* Whether required nodes `req` include a node of `table` whose Extra
 * does not satisfy request `expr`, which the plugin excludes (Slurm
 * refuses required nodes that are excluded; without the plugin the update
 * is fine).  Only then does job_modify() set ExcNodeList in an update that
 * did not: a ReqNodeList alone may be a running job's shrink (`scontrol
 * update job=N NodeList=...`), which an ExcNodeList would make Slurm
 * refuse half-done (doc/thread.md "Updates").  false without a table or a
 * request, or when `req` is not a hostlist (Slurm answers for that); true
 * when memory runs out (the caller's next step says so).  Linear in the
 * nodes and the names. */
bool filter_excludes_required(const xc_nodes_t *table, const xc_expr_t *expr,
			      const char *req);

/* Computes the filter of a job from `matched` (xc_nodes_match() of its
 * request over `table`), the user's own excluded nodes `user_exc` and the
 * job's required nodes `req` (hostlists; NULL or "" for none).  On a
 * compiled table (xc_nodes_compile) the excluded nodes are written in one
 * pass in table order (xc_nodes_hostlist), and the user's and required
 * hostlists are looked up by name, in time linear in the nodes and the
 * names (a user's list decides the names: it runs under slurmctld's
 * locks); names the table does not know are kept, the list then sorted as
 * Slurm sorts it.  On a table not compiled it is
 * filter_compute_slurm().  Returns 0, or -1 when a hostlist cannot be
 * read or memory runs out. */
int filter_compute(const xc_nodes_t *table, const bool *matched,
		   const char *user_exc, const char *req, struct job_filter *f);

/* The same with Slurm's hostlist functions alone: the user's exclusions,
 * then each excluded node pushed, then sorted and ranged by Slurm.  The
 * reference the tests hold filter_compute() to. */
int filter_compute_slurm(const xc_nodes_t *table, const bool *matched,
			 const char *user_exc, const char *req,
			 struct job_filter *f);

/* What an update of a job the plugin filters sets as its ExcNodeList. */
struct update_list {
	char *exc;	   /* the list to set (malloc'd) */
	char *user;	   /* the user's own part of it (malloc'd) */
	uint64_t exc_hash; /* hostlist_hash() of exc, or 0 when: */
	uint64_t exc_text; /* xc_text_hash() of exc, for a list not read by
			      name */
};

/*
 * The ExcNodeList of an update of a job the plugin filters, from
 * `matched` (its request's nodes on `table`, xc_nodes_match()): the
 * user's list `given` (NULL: the update sets required nodes only, and the
 * user's own exclusions `own` stand) with the nodes that do not satisfy
 * the request added, less the required nodes `req` (Slurm refuses an
 * update whose required nodes are excluded); doc/thread.md "Updates".
 * A list longer than every node name of the table written one by one, or
 * naming more nodes than the table has or one it does not have, is not
 * read by name: it is kept as written with the plugin's nodes after it
 * ("x1,n[3-4]"; Slurm reads it, and refuses a node it does not have), and
 * told by the hash of that text (exc_text).  Any other list is read once
 * by Slurm's hostlist functions and looked up by name in the table's
 * index, at most the table's count of names.  So the cost is bounded by
 * the table, not the list (tests/bench/bench_modify).  0 with *l filled
 * (update_list's strings the caller's), 1 when a list is not a hostlist
 * to Slurm (Slurm answers the caller: nothing set), -1 when out of
 * memory.
 */
int filter_update_list(const xc_nodes_t *table, const bool *matched,
		       const char *given, const char *own, const char *req,
		       struct update_list *l);

/* The status words of a job's state for a filter (malloc'd), e.g.
 * "2 of 4 nodes satisfy the request"; NULL when out of memory. */
char *filter_status(const struct job_filter *f);

/* Whether the plugin must hold the job: a required node does not satisfy
 * its request. */
static inline bool filter_must_hold(const struct job_filter *f)
{
	return f->req_unmatched;
}

/* Frees f->exc and sets it NULL. */
void filter_free(struct job_filter *f);

/* A 64-bit hash of a hostlist's nodes (xc_text_hash of its
 * sx_hostlist_normal text; of "" for NULL, empty or not a hostlist), so
 * two lists of the same nodes written differently hash the same: what a
 * job's state keeps as wrote= (job_state.h, doc/guard.md "Updates").
 * Slurm reads and writes the list: about 1 ms for thousands of nodes. */
uint64_t hostlist_hash(const char *hostlist);

#endif
