/*
 * kept_jobs.c - the thread's own copy of the jobs it loaded, one block a
 * load (kept_jobs.h).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "kept_jobs.h"

/* The kept jobs and their strings, in one block (kept_jobs_keep). */
struct kept {
	job_info_msg_t msg;
	slurm_job_info_t jobs[];
};

/* The string fields of `j` a round reads: their addresses in *f; how
 * many. */
static size_t kept_strings(slurm_job_info_t *j, char ***f)
{
	size_t n = 0;

	f[n++] = &j->admin_comment;
	f[n++] = &j->req_nodes;
	f[n++] = &j->exc_nodes;
	f[n++] = &j->features;
	f[n++] = &j->prefer;
	f[n++] = &j->partition; /* preferences: its partitions' nodes */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
	f[n++] = &j->extra;
#endif
	return n;
}

static bool worth_keeping(const slurm_job_info_t *j,
			  const struct known_jobs *known)
{
	const char *extra = SX_JOB_EXTRA(j);

	if ((j->job_state & JOB_STATE_BASE) != JOB_PENDING)
		return false;
	return (extra && *extra) || (j->admin_comment && *j->admin_comment) ||
	       known_job_find(known, j->job_id);
}

job_info_msg_t *kept_jobs_keep(const job_info_msg_t *msg,
			       const struct known_jobs *known)
{
	size_t n = 0, bytes = 0, k = 0, nf;
	struct kept *out;
	char **f[7], *at; /* kept_strings() */

	for (uint32_t i = 0; msg && i < msg->record_count; i++) {
		slurm_job_info_t *j = &msg->job_array[i];

		if (!worth_keeping(j, known))
			continue;
		n++;
		nf = kept_strings(j, f);
		for (size_t s = 0; s < nf; s++)
			bytes += *f[s] ? strlen(*f[s]) + 1 : 0;
	}
	/* Bounded by Slurm's own answer, which held all of it. */
	if (!(out = calloc(1, sizeof(*out) + n * sizeof(out->jobs[0]) + bytes)))
		return NULL;
	out->msg.last_update = msg ? msg->last_update : 0;
	out->msg.record_count = n;
	out->msg.job_array = out->jobs;
	at = (char *)&out->jobs[n];
	for (uint32_t i = 0; msg && i < msg->record_count; i++) {
		slurm_job_info_t *j = &msg->job_array[i], *to = &out->jobs[k];
		char **t[7];

		if (!worth_keeping(j, known))
			continue;
		k++;
		to->job_id = j->job_id;
		to->array_job_id = j->array_job_id;
		to->array_task_id = j->array_task_id;
		to->het_job_id = j->het_job_id;
		to->het_job_offset = j->het_job_offset;
		to->user_id = j->user_id;
		to->job_state = j->job_state;
		to->priority = j->priority;
		to->state_reason = j->state_reason;
		to->restart_cnt = j->restart_cnt;
		to->num_nodes = j->num_nodes;
		to->eligible_time = j->eligible_time; /* preferences */
		to->submit_time = j->submit_time;
		nf = kept_strings(j, f);
		(void)kept_strings(to, t);
		for (size_t s = 0; s < nf; s++) {
			size_t len;

			if (!*f[s])
				continue;
			len = strlen(*f[s]) + 1;
			memcpy(at, *f[s], len);
			*t[s] = at;
			at += len;
		}
		/* a pending array record's tasks (hint_names) */
		if (j->array_bitmap &&
		    !(to->array_bitmap = slurm_bit_copy(j->array_bitmap))) {
			out->msg.record_count = k;
			kept_jobs_free(&out->msg);
			return NULL;
		}
	}
	return &out->msg;
}

void kept_jobs_free(job_info_msg_t *kept)
{
	if (!kept)
		return;
	for (uint32_t i = 0; i < kept->record_count; i++)
		if (kept->job_array[i].array_bitmap)
			slurm_bit_free(
				(bitstr_t **)&kept->job_array[i].array_bitmap);
	free(kept);
}
