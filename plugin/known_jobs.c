/*
 * known_jobs.c - the jobs the thread last saw, and the job an update
 * names among them (known_jobs.h).
 */
#include <stdlib.h>
#include <string.h>

#include "known_jobs.h"

static int by_job_id(const void *a, const void *b)
{
	uint32_t x = ((const struct known_job *)a)->job_id,
		 y = ((const struct known_job *)b)->job_id;

	return (x > y) - (x < y);
}

void known_jobs_free(struct known_jobs *known)
{
	for (size_t i = 0; known && i < known->count; i++) {
		sx_job_state_free(&known->jobs[i].st);
		free(known->jobs[i].req_nodes);
	}
	if (known) {
		free(known->jobs);
		known->jobs = NULL;
		known->count = 0;
	}
}

int known_job_copy(const struct known_job *from, struct known_job *to)
{
	*to = *from;
	memset(&to->st, 0, sizeof(to->st));
	to->req_nodes = NULL;
	if (sx_job_state_copy(&from->st, from->st.admin, &to->st) < 0)
		return -1;
	if (from->req_nodes && !(to->req_nodes = strdup(from->req_nodes))) {
		sx_job_state_free(&to->st);
		return -1;
	}
	return 0;
}

void known_jobs_sort(struct known_jobs *known)
{
	if (known->count > 1) /* qsort() wants an array, even of none */
		qsort(known->jobs, known->count, sizeof(*known->jobs),
		      by_job_id);
}

const struct known_job *known_job_find(const struct known_jobs *known,
				       uint32_t job_id)
{
	struct known_job probe = { .job_id = job_id };

	if (!known || !known->count || !job_id)
		return NULL;
	return bsearch(&probe, known->jobs, known->count, sizeof(probe),
		       by_job_id);
}

const struct known_job *known_target(const struct known_jobs *known,
				     uint32_t id, uint32_t task,
				     uint32_t offset, bool *het_all)
{
	const struct known_job *k = known_job_find(known, id), *meta;

	*het_all = false;
	if (offset != NO_VAL) {
		for (size_t i = 0; known && i < known->count; i++)
			if (known->jobs[i].het_job_id == id &&
			    known->jobs[i].het_job_offset == offset)
				return &known->jobs[i];
		return NULL;
	}
	if (task != NO_VAL) {
		meta = NULL;
		for (size_t i = 0; known && i < known->count; i++) {
			const struct known_job *j = &known->jobs[i];

			if (j->array_job_id != id)
				continue;
			if (j->array_task_id == task)
				return j;
			if (j->array_task_id == NO_VAL)
				meta = j;
		}
		return meta;
	}
	if (k && k->het_job_id == id)
		*het_all = true;
	return k;
}

void update_target(const job_desc_msg_t *job_desc, uint32_t *id, uint32_t *task,
		   uint32_t *offset)
{
	const char *s = job_desc->job_id_str;
	unsigned long v;
	char *end;

	*id = 0;
	*task = *offset = NO_VAL;
	if (SX_DESC_JOB_ID(job_desc) && SX_DESC_JOB_ID(job_desc) != NO_VAL)
		*id = SX_DESC_JOB_ID(job_desc);
	if (!s)
		return;
	v = strtoul(s, &end, 10);
	if (end == s || v > UINT32_MAX)
		return;
	*id = (uint32_t)v;
	s = end;
	if (*s != '_' && *s != '+')
		return;
	v = strtoul(s + 1, &end, 10);
	if (end == s + 1 || *end || v >= NO_VAL)
		return; /* "123_[1-3]": the array as a whole */
	if (*s == '_')
		*task = (uint32_t)v;
	else
		*offset = (uint32_t)v;
}
