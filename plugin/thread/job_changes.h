/*
 * job_changes.h - what others changed in a pending job that the
 * re-filtering thread filters (refilter.h), since the plugin last wrote
 * it: the user's own part of its ExcNodeList, and whose hold it has, told
 * from the job's loaded data and, where those cannot tell, from the hints
 * of job_modify() (hints.h; doc/thread.md "Updates").
 */
#ifndef SLURM_EXTRA_JOB_CHANGES_H
#define SLURM_EXTRA_JOB_CHANGES_H

#include <stdbool.h>
#include <stdint.h>

#include "slurm_compat.h"
#include "hints.h"
#include "job_state.h"
#include "known_jobs.h"
#include "xc.h"

/*
 * Reads what others changed in `job` (its ExcNodeList hashing to
 * `exc_text`, xc_text_hash()) since the plugin last wrote it into
 * its state `st`, with the hints up to `upto` (in order) for what the job's
 * data cannot tell:
 *   - its ExcNodeList differs from the one the plugin wrote (st->wrote):
 *     someone Slurm let update the job set it.  The user's own part is
 *     what a hint naming the job with that very list says (the plugin
 *     added its nodes to it), else the whole list (a hint lost, a restart
 *     in between, an update the plugin did not see);
 *   - its list is the one the plugin wrote, or unknown (an earlier
 *     version's state): a trusted hint whose list the job has tells the
 *     user's part (their new list and the plugin's nodes may give the
 *     very list the job had);
 *   - a trusted hint of a hold still on: the hold is someone else's now,
 *     not the plugin's (a hold does not tell whose it is).
 * Replaces st->exclude (malloc'd) when the user's part changed.
 *
 * And the preferences as the owner last changed them (`slurm-extra
 * prefer`, doc/preferences.md "Preferences", "Changing them"): the job's data
 * cannot show such a change, so a trusted hint's is taken as it is (from
 * the owner, root or SlurmUser: hint_from_owner), each in order, over a change taken before that the job's AdminComment does not
 * show yet (`k`, the job as the round before knew it, with
 * prefer_pending: its update was refused or is stale, and would otherwise
 * lose it).  *pending: `st` holds a change its AdminComment does not show
 * (known_job.prefer_pending).
 *
 * 0, or -1 when out of memory (`st` then as it was but for st->held and
 * its preferences).
 */
int job_changes_take(const slurm_job_info_t *job, const struct known_job *k,
		     struct sx_job_state *st, uint64_t exc_text,
		     const struct hints *hints, uint64_t upto, bool *pending);

/* The user's part of the ExcNodeList of an adopted job (one whose request
 * an update set, with no state of the plugin's: its list may hold the
 * plugin's nodes from submission): *exclude (a malloc'd hostlist,
 * replaced) less the nodes of `table` that `matched` (one bool a node of
 * `table`) says do not satisfy the job's request; names the table does
 * not know are kept.  0, or -1 when out of memory (*exclude unchanged). */
int job_changes_adopted(const xc_nodes_t *table, const bool *matched,
			char **exclude);

/* Reads the state of pending `job` into `st` (emptied first): its
 * AdminComment's; the state `prev` (the round before's jobs, sorted) knew
 * when an admin's AdminComment replaced it (their text kept); or (23.02+)
 * a new one, *adopted set, for a job whose `extra` an update set.  The
 * request is the job's `extra` where it has one.  false when the job has
 * no request (or out of memory: the next round tries again). */
bool job_changes_read(const slurm_job_info_t *job,
		      const struct known_jobs *prev, struct sx_job_state *st,
		      bool *adopted);

#endif
