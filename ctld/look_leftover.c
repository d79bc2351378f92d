/*
 * look_leftover.c - the waiting jobs that keep what the thread set
 * (look_leftover.h).
 */
#include "config.h" /* Slurm's, from the configured tree */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "src/common/log.h"
#include "src/slurmctld/slurmctld.h"

#include "carrier.h"
#include "guard_slurm.h"
#include "look_leftover.h"
#include "xc.h"

extern const char plugin_type[]; /* burst_buffer_extra.c's */

/* The waiting jobs of a walk that keep what job_submit/extra's thread
 * had set on them (sx_job_state_by_thread(): a cluster switched to the
 * guard alone with such jobs waiting), counted and the first few named,
 * said when their number differs from the last walk's. */
#define LEFTOVER_NAMED 8
static struct {
	size_t n, said;
	uint32_t ids[LEFTOVER_NAMED];
} leftover;

/* The walk's jobs that keep the thread's, said at its end (at info: at a
 * change of their number, at most once a LEFTOVER_EVERY_S but when none
 * is left; never when there were and are none), at `now`. */
#define LEFTOVER_EVERY_S 60
void look_leftover_say(time_t now)
{
	static time_t said_at;
	char ids[LEFTOVER_NAMED * 12 + 8] = "";
	size_t at = 0;

	/* (with the thread beside the guard its states are no leftovers) */
	if (!guard_slurm_alone()) {
		leftover.said = 0;
		return;
	}
	if (leftover.n == leftover.said ||
	    (leftover.n && now - said_at < LEFTOVER_EVERY_S && now >= said_at))
		return;
	leftover.said = leftover.n;
	said_at = now;
	for (size_t k = 0; k < leftover.n && k < LEFTOVER_NAMED; k++)
		at += (size_t)snprintf(ids + at, sizeof(ids) - at, "%s%u",
				       k ? ", " : "", leftover.ids[k]);
	if (leftover.n > LEFTOVER_NAMED)
		snprintf(ids + at, sizeof(ids) - at, ", ...");
	if (leftover.n)
		info("%s: %zu waiting jobs keep what job_submit/extra's thread set on them before the guard filtered alone (nodes in their ExcNodeList, a feature xc_... in their Features or --prefer, a hold, an Extra narrowed to a preference), which may keep them off nodes that satisfy their request now: jobs %s; release them, and set their ExcNodeList to the user's own (exclude= in their AdminComment), their Features and --prefer without the feature, their Extra to their request (request=) (doc/design.md \"The guard alone\")",
		     plugin_type, leftover.n, ids);
	else
		info("%s: no waiting job keeps what job_submit/extra's thread set any more",
		     plugin_type);
}

/* Whether waiting job `job_ptr`, its state `st` as records_request_of()
 * read it (from 23.02 only when it holds preferences: else read here),
 * keeps what the thread set on it where it filtered
 * (sx_job_state_by_thread()): its feature last in the job's Features or
 * --prefer (sx_constraint_last_ours(): where the carrier ANDs it in), its
 * hold, or the ExcNodeList it wrote (its text's hash the state's wrote=)
 * where that is not the user's own; or, where Slurm filtered (23.02+), a
 * preference's tier it wrote into the job's Extra, which the guard would
 * take for the request.  What an admin or the user changes since is not
 * counted.  A state with the guard's status (nearly every job) is told by
 * one search of its text. */
static bool keeps_threads(const job_record_t *job_ptr,
			  const struct sx_job_state *st)
{
	__typeof__(job_ptr->details) details = job_ptr->details;
	struct sx_job_state mine = { 0 };
	char name[SX_FEATURE_LEN + 1];
	const char *exc = details->exc_nodes ? details->exc_nodes : "";
	bool keeps = false;

	if (!job_ptr->admin_comment ||
	    strstr(job_ptr->admin_comment, SX_GUARD_STATUS))
		return false;
	if (!st->status) {
		if (!sx_job_state_parse(job_ptr->admin_comment, &mine))
			return false;
		st = &mine;
	}
	if (sx_job_state_by_thread(st))
		keeps = sx_constraint_last_ours(details->features, name) ||
			sx_constraint_last_ours(details->prefer, name) ||
			(st->held && job_ptr->priority == 0) ||
			(xc_text_hash(exc) == st->wrote &&
			 strcmp(exc, st->exclude ? st->exclude : "") != 0);
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
	else if (st->status && strstr(st->status, SX_SLURM_STATUS) &&
		 st->n_prefer && st->request && job_ptr->extra)
		/* (the one it wrote: wrote= its hash, thread_prefer.c) */
		keeps = strcmp(job_ptr->extra, st->request) != 0 &&
			xc_text_hash(job_ptr->extra) == st->wrote;
#endif
	sx_job_state_free(&mine);
	return keeps;
}

void look_leftover_begin(void)
{
	leftover.n = 0;
}

void look_leftover_add(struct job_record *job_ptr,
		       const struct sx_job_state *st)
{
	if (guard_slurm_alone() && keeps_threads(job_ptr, st) &&
	    leftover.n++ < LEFTOVER_NAMED)
		leftover.ids[leftover.n - 1] = job_ptr->job_id;
}
