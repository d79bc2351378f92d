/*
 * node_table.h - job_submit/extra's node table (thread_private.h: r->table),
 * which its thread keeps current from slurm_load_node(); job_submit() and
 * job_modify() evaluate requests over it under r->lock.
 */
#ifndef SLURM_EXTRA_NODE_TABLE_H
#define SLURM_EXTRA_NODE_TABLE_H

#include <stdbool.h>

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
 * doc/design.md "Hidden nodes") join it without Extra.  Failures are
 * logged; the table is then left as it was.
 */
bool node_table_load(struct thread *r);

#endif
