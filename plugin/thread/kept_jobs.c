/*
 * kept_jobs.c - the thread's own copy of the jobs it loaded, one block a
 * load (kept_jobs.h).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "kept_jobs.h"

/* Strings of records spliced in since the load (kept_jobs_splice), a
 * block a splice, KEPT_MORE_MAX bytes of them at most, or the load's own
 * when more. */
#define KEPT_MORE_MAX (1u << 20)
struct more {
	struct more *next;
	char text[];
};

/* The kept jobs: their records (msg.job_array, room for `cap`, malloc'd)
 * and the strings of the load in one block, those spliced in since in
 * `more`. */
struct kept {
	job_info_msg_t msg;
	size_t cap;
	size_t bytes;	   /* of the load's strings */
	size_t more_bytes; /* of those spliced in since (KEPT_MORE_MAX) */
	struct more *more;
	char strings[];
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

/* Copies record `j` into `to` (zeroed), its strings into *at (moved on
 * past them), its array's task bitmap copied.  -1 when out of memory. */
static int copy_record(const slurm_job_info_t *j, slurm_job_info_t *to,
		       char **at)
{
	char **f[7], **t[7]; /* kept_strings() */
	size_t nf;

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
	nf = kept_strings((slurm_job_info_t *)j, f);
	(void)kept_strings(to, t);
	for (size_t s = 0; s < nf; s++) {
		size_t len;

		if (!*f[s])
			continue;
		len = strlen(*f[s]) + 1;
		memcpy(*at, *f[s], len);
		*t[s] = *at;
		*at += len;
	}
	/* a pending array record's tasks (hint_names) */
	if (j->array_bitmap &&
	    !(to->array_bitmap = slurm_bit_copy(j->array_bitmap)))
		return -1;
	return 0;
}

/* The records of `msg` worth keeping: how many (*n), and their strings'
 * bytes (*bytes). */
static void measure(const job_info_msg_t *msg, const struct known_jobs *known,
		    size_t *n, size_t *bytes)
{
	char **f[7];

	for (uint32_t i = 0; msg && i < msg->record_count; i++) {
		slurm_job_info_t *j = &msg->job_array[i];
		size_t nf;

		if (!worth_keeping(j, known))
			continue;
		(*n)++;
		nf = kept_strings(j, f);
		for (size_t s = 0; s < nf; s++)
			*bytes += *f[s] ? strlen(*f[s]) + 1 : 0;
	}
}

job_info_msg_t *kept_jobs_keep(const job_info_msg_t *msg,
			       const struct known_jobs *known)
{
	size_t n = 0, bytes = 0, k = 0;
	struct kept *out;
	char *at;

	measure(msg, known, &n, &bytes);
	/* Bounded by Slurm's own answer, which held all of it. */
	if (!(out = calloc(1, sizeof(*out) + bytes)))
		return NULL;
	if (!(out->msg.job_array =
		      calloc(n ? n : 1, sizeof(slurm_job_info_t)))) {
		free(out);
		return NULL;
	}
	out->cap = n;
	out->bytes = bytes;
	out->msg.last_update = msg ? msg->last_update : 0;
	at = out->strings;
	for (uint32_t i = 0; msg && i < msg->record_count; i++) {
		slurm_job_info_t *j = &msg->job_array[i];

		if (!worth_keeping(j, known))
			continue;
		out->msg.record_count = (uint32_t)++k;
		if (copy_record(j, &out->msg.job_array[k - 1], &at) < 0) {
			kept_jobs_free(&out->msg);
			return NULL;
		}
	}
	return &out->msg;
}

static int by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Whether record `j` is one of the jobs `ids` (sorted, n) names. */
static bool named(const slurm_job_info_t *j, const uint32_t *ids, size_t n)
{
	const uint32_t mine[3] = { j->job_id, j->array_job_id, j->het_job_id };

	for (int k = 0; k < 3; k++)
		if (mine[k] && bsearch(&mine[k], ids, n, sizeof(*ids), by_u32))
			return true;
	return false;
}

int kept_jobs_splice(job_info_msg_t *kept_msg, job_info_msg_t *const *fresh,
		     size_t nfresh, const uint32_t *ids, size_t n,
		     const struct known_jobs *known)
{
	struct kept *kept = (struct kept *)kept_msg; /* its first member */
	size_t add = 0, bytes = 0, base = kept_msg->record_count, k = 0;
	uint32_t *sorted = NULL;
	struct more *more = NULL;
	slurm_job_info_t *grown;
	char *at;

	for (size_t f = 0; f < nfresh; f++)
		measure(fresh[f], known, &add, &bytes);
	if (kept->more_bytes + bytes >
	    (kept->bytes > KEPT_MORE_MAX ? kept->bytes : KEPT_MORE_MAX))
		return 1; /* a load of every job starts afresh */
	/* everything allocated first: out of memory, nothing changed */
	if ((n && !(sorted = malloc(n * sizeof(*sorted)))) ||
	    !(more = malloc(sizeof(*more) + bytes)))
		goto nomem;
	if (base + add > kept->cap) {
		size_t cap = (base + add) * 2;

		if (!(grown = realloc(kept_msg->job_array,
				      cap * sizeof(*grown))))
			goto nomem;
		kept_msg->job_array = grown;
		kept->cap = cap;
	}
	if (n)
		memcpy(sorted, ids, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), by_u32);
	/* the records named go (their strings stay in their block until
	 * `kept` is freed: counted in more_bytes when spliced) */
	for (size_t i = 0; i < base; i++) {
		slurm_job_info_t *j = &kept_msg->job_array[i];

		if (!named(j, sorted, n)) {
			kept_msg->job_array[k++] = *j;
			continue;
		}
		if (j->array_bitmap)
			slurm_bit_free((bitstr_t **)&j->array_bitmap);
	}
	kept_msg->record_count = (uint32_t)k;
	more->next = kept->more;
	kept->more = more;
	kept->more_bytes += bytes;
	at = more->text;
	for (size_t f = 0; f < nfresh; f++)
		for (uint32_t i = 0; fresh[f] && i < fresh[f]->record_count;
		     i++) {
			slurm_job_info_t
				*j = &fresh[f]->job_array[i],
				*to = &kept_msg->job_array
					       [kept_msg->record_count];

			if (!worth_keeping(j, known))
				continue;
			memset(to, 0, sizeof(*to));
			kept_msg->record_count++;
			if (copy_record(j, to, &at) < 0) /* its bitmap */
				to->job_state = JOB_COMPLETE;
		}
	free(sorted);
	return 0;
nomem:
	free(sorted);
	free(more);
	return -1;
}

void kept_jobs_free(job_info_msg_t *kept)
{
	struct kept *k = (struct kept *)kept;

	if (!kept)
		return;
	for (uint32_t i = 0; i < kept->record_count; i++)
		if (kept->job_array[i].array_bitmap)
			slurm_bit_free(
				(bitstr_t **)&kept->job_array[i].array_bitmap);
	while (k->more) {
		struct more *next = k->more->next;

		free(k->more);
		k->more = next;
	}
	free(kept->job_array);
	free(k);
}
