/*
 * plan_prefer.c - a job's effective request in a round's plan
 * (plan_prefer.h).
 */
#include <stdlib.h>
#include <string.h>

#include "plan_prefer.h"
#include "slurm_nodes.h"

/* prefer_match_fn over the memo: a text parsed and evaluated once while
 * its nodes do not change. */
static int memo_match(void *ctx, const char *text, bool *matched)
{
	const struct plan_prefer_in *in = ctx;
	struct memo_request *req;
	bool evaluated;

	if (memo_request_of(in->memo, text, in->limits, &req) < 0)
		return -1;
	if (!req)
		return 0;
	return memo_matched(in->memo, req, in->table, matched, &evaluated) < 0
		       ? -1
		       : 1;
}

/* When `job` became eligible, for its wait: its EligibleTime; before
 * Slurm sets it (24.11 and later set it when the scheduler first looks at
 * the job) the submission of a job neither held nor waiting for a
 * dependency; 0 for those. */
static time_t eligible_at(const slurm_job_info_t *job)
{
	if (job->eligible_time > 0)
		return job->eligible_time;
	if (job->priority == 0 || job->state_reason == WAIT_DEPENDENCY)
		return 0;
	return job->submit_time;
}

int plan_prefer(const struct plan_prefer_in *in, const slurm_job_info_t *job,
		const struct sx_job_state *st, char **effective, char **note,
		struct prefer_pick *pick)
{
	struct prefer_nodes nodes = { .count = xc_nodes_count(in->table),
				      .free = in->free,
				      .max_len = in->max_len,
				      .matched = in->matched };

	*effective = *note = NULL;
	if (!prefer_waiting(st, eligible_at(job), in->now)) {
		/* the request alone: nothing to evaluate */
		memset(pick, 0, sizeof(*pick));
		return (*note = strdup("")) ? 0 : -1;
	}
	/* a node outside the job's partitions, or that its user excluded, is
	 * no preferred node */
	for (size_t k = 0; k < nodes.count; k++)
		in->usable[k] = true;
	if (in->parts)
		(void)parts_usable(in->parts, job->partition, nodes.count,
				   in->usable);
	if (st->exclude && *st->exclude)
		(void)sx_nodes_mark(in->table, st->exclude, in->usable, false,
				    NULL);
	nodes.usable = in->usable;
	if (prefer_choose(st, eligible_at(job), in->now, &nodes, memo_match,
			  (void *)in, effective, pick) < 0)
		return -1;
	if (!(*note = prefer_note(st, pick))) {
		free(*effective);
		*effective = NULL;
		return -1;
	}
	return 0;
}

int plan_prefer_counted(const struct plan_prefer_in *in,
			const slurm_job_info_t *job,
			const struct sx_job_state *st, char **effective,
			char **note, bool *live, struct refilter_stats *stats)
{
	struct prefer_pick pick;

	if (plan_prefer(in, job, st, effective, note, &pick) < 0)
		return -1;
	stats->preferring++;
	stats->prefer_free += pick.waiting && st->wait <= 0;
	*live = pick.waiting;
	if (pick.tier && pick.until > in->now &&
	    (!stats->prefer_next || pick.until < stats->prefer_next))
		stats->prefer_next = pick.until;
	return 0;
}
