/*
 * slurm_nodes.h - the node table (xc_nodes_t) from Slurm's node data, and
 * a hostlist's nodes in it: shared by job_submit/extra and the command.
 *
 * Names are read with Slurm's own hostlist functions, so that a list means
 * what it means to Slurm (slurm_hostlist.h).
 */
#ifndef SLURM_EXTRA_SLURM_NODES_H
#define SLURM_EXTRA_SLURM_NODES_H

#include <stdbool.h>
#include <stddef.h>

#include "slurm_compat.h"
#include "xc.h"

/* Adds to `t` every node of `msg` (slurm_load_node()'s answer) that has a
 * name, in Slurm's order, with its Extra (NULL when unset).  Returns 0, or -1
 * with `err` set (out of memory, a limit of the table: xc_nodes_add()). */
int sx_nodes_add_msg(xc_nodes_t *t, const node_info_msg_t *msg,
		     xc_error_t *err);

/*
 * Sets set[i] = `value` for each node of `t` that `hostlist` names (set
 * has xc_nodes_count(t) entries).  With the table's index (a compiled
 * table: xc_nodes_compile) the hostlist's names are walked, each found by
 * hash, which is linear in the list whatever its ranges (a user's list
 * of 100,000 single-node ranges); without it the table is walked, each
 * name looked up in the hostlist's ranges.
 * *unknown (may be NULL) gets how many distinct names of the list the
 * table does not hold.
 * Returns 0 when every name is in the table, 1 when some name is not, -1
 * when `hostlist` is not a hostlist to Slurm or memory ran out.
 */
int sx_nodes_mark(const xc_nodes_t *t, const char *hostlist, bool *set,
		  bool value, size_t *unknown);

/* Whether `t` holds its nodes in the order Slurm sorts a hostlist (by
 * prefix, then number), so that every list xc_nodes_hostlist() writes
 * from it is already what sx_hostlist_normal() would make of it
 * (xc.h): its text hash is its hostlist_hash(), with no reading by Slurm
 * (about 5 ms for a fragmented list of 100,000 nodes).  Tells from the
 * list of all its nodes, written and normalised once.  A table with a run
 * of more than 65,536 names (which xc_nodes_hostlist() splits and Slurm
 * does not) answers 0.  1 or 0; -1 when out of memory. */
int sx_nodes_in_slurm_order(const xc_nodes_t *t);

#endif
