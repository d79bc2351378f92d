/*
 * node_table.h - job_submit/extra's node table (thread_private.h: r->table),
 * which its thread keeps current from slurm_load_node(); job_submit() and
 * job_modify() evaluate requests over it under r->lock.
 */
#ifndef SLURM_EXTRA_NODE_TABLE_H
#define SLURM_EXTRA_NODE_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "thread_private.h"

/*
 * Loads the node data when they changed since r->table_time; true when
 * some node's Extra changed.  Only the thread writes the table, so it
 * reads it without the lock.  When the nodes are the same, in the same
 * order, the nodes whose Extra changed are updated in place, under the
 * lock (job_submit() evaluates under it): work for those nodes only.
 * Otherwise (first load, nodes added or removed, an update
 * that ran out of memory) a table is built anew outside the lock and
 * swapped in.  The nodes Slurm hides (powered-down CLOUD nodes on 22.05:
 * doc/thread.md "Hidden nodes") join it without Extra.  Failures are
 * logged; the table is then left as it was.
 */
bool node_table_load(struct thread *r);

/* Every node of the partitions `parts` that `msg` does not name, each
 * once, in the order the partitions list them (the nodes Slurm hid:
 * doc/thread.md "Hidden nodes"): a malloc'd array of malloc'd names, the
 * caller's to free with node_table_free_names(), count in *n; NULL with
 * *n 0 when there is none or memory ran out (out of memory while a list
 * is walked: the names gathered so far).  A partition without nodes,
 * or whose list Slurm cannot read, adds none.  The lists are walked with
 * Slurm's iterator (sx_hostlist_walk): linear in their names.  Reads
 * `msg` and `parts` only, which stay the caller's. */
char **node_table_hidden_names(const node_info_msg_t *msg,
			       const partition_info_msg_t *parts, size_t *n);

/* Loads the partitions when they changed since r->parts.time, or anew
 * for a table of another node count (parts.h), and swaps their maps in
 * under r->lock.  Failures leave the maps as they were.  The thread calls
 * it while some job has preferences (and once to start). */
void node_table_parts(struct thread *r);

/* Frees `n` names and their array, as node_table_hidden_names() returns
 * them (NULL with 0: nothing). */
void node_table_free_names(char **names, size_t n);

#endif
