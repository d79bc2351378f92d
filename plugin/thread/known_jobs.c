/*
 * known_jobs.c - the jobs the thread last saw, and the job an update
 * names among them (known_jobs.h).
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
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
		free(known->jobs[i].features);
		free(known->jobs[i].prefer);
	}
	if (known) {
		free(known->jobs);
		free(known->by_array);
		free(known->by_het);
		memset(known, 0, sizeof(*known));
	}
}

int known_job_copy(const struct known_job *from, struct known_job *to)
{
	*to = *from;
	memset(&to->st, 0, sizeof(to->st));
	to->req_nodes = to->features = to->prefer = NULL;
	if (sx_job_state_copy(&from->st, from->st.admin, &to->st) < 0)
		return -1;
	if ((from->req_nodes && !(to->req_nodes = strdup(from->req_nodes))) ||
	    (from->features && !(to->features = strdup(from->features))) ||
	    (from->prefer && !(to->prefer = strdup(from->prefer)))) {
		sx_job_state_free(&to->st);
		free(to->req_nodes);
		free(to->features);
		to->req_nodes = to->features = NULL;
		return -1;
	}
	return 0;
}

static int cmp_pair(uint32_t a1, uint32_t a2, uint32_t b1, uint32_t b2)
{
	if (a1 != b1)
		return (a1 > b1) - (a1 < b1);
	return (a2 > b2) - (a2 < b2);
}

/* A job's pair of an index, with its position, sorted by value (no state
 * shared with qsort(): a new plugin's thread may sort while an old one
 * still does). */
struct keyed {
	uint32_t first, second, at;
};

static int by_key(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	int c = cmp_pair(x->first, x->second, y->first, y->second);

	/* ties in job id order (the jobs are sorted): what a scan finds
	 * first */
	return c ? c : cmp_pair(x->at, 0, y->at, 0);
}

/* The uint32_t at offset `field` of `job`. */
static uint32_t field_of(const struct known_job *job, size_t field)
{
	uint32_t v;

	memcpy(&v, (const char *)job + field, sizeof(v));
	return v;
}

/* The offsets in struct known_job of the pair an index sorts by: (het
 * job id, offset) for `het`, else (array job id, task id). */
static void pair_offsets(bool het, size_t *first, size_t *second)
{
	*first = het ? offsetof(struct known_job, het_job_id)
		     : offsetof(struct known_job, array_job_id);
	*second = het ? offsetof(struct known_job, het_job_offset)
		      : offsetof(struct known_job, array_task_id);
}

/* An index of the jobs of `known` whose first field of the pair
 * (pair_offsets) is not 0, sorted by the pair: *out and *n (NULL when
 * none).  -1 when out of memory. */
static int index_by(struct known_jobs *known, bool het, uint32_t **out,
		    size_t *n)
{
	struct keyed *keys;
	uint32_t *v;
	size_t k = 0, first, second;

	pair_offsets(het, &first, &second);
	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < known->count; i++)
		k += field_of(&known->jobs[i], first) != 0;
	if (!k)
		return 0;
	if (known->count > UINT32_MAX || !(keys = malloc(k * sizeof(*keys))))
		return -1;
	if (!(v = malloc(k * sizeof(*v)))) {
		free(keys);
		return -1;
	}
	k = 0;
	for (size_t i = 0; i < known->count; i++)
		if (field_of(&known->jobs[i], first))
			keys[k++] = (struct keyed){
				field_of(&known->jobs[i], first),
				field_of(&known->jobs[i], second), (uint32_t)i
			};
	qsort(keys, k, sizeof(*keys), by_key);
	for (size_t i = 0; i < k; i++)
		v[i] = keys[i].at;
	free(keys);
	*out = v;
	*n = k;
	return 0;
}

void known_jobs_sort(struct known_jobs *known)
{
	free(known->by_array);
	free(known->by_het);
	known->by_array = known->by_het = NULL;
	known->n_array = known->n_het = 0;
	if (known->count > 1) /* qsort() wants an array, even of none */
		qsort(known->jobs, known->count, sizeof(*known->jobs),
		      by_job_id);
	known->indexed =
		index_by(known, false, &known->by_array, &known->n_array) ==
			0 &&
		index_by(known, true, &known->by_het, &known->n_het) == 0;
}

/* The first position in index `v` (n entries into `jobs`) whose pair
 * (by `first`, `second`: offsets into struct known_job) is not below
 * (a, b): a binary search. */
static size_t lower_bound(const struct known_job *jobs, const uint32_t *v,
			  size_t n, size_t first, size_t second, uint32_t a,
			  uint32_t b)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct known_job *j = &jobs[v[mid]];

		if (cmp_pair(field_of(j, first), field_of(j, second), a, b) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
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

/* The job of `known` that is task or record `b` of array `a` (`het`
 * false) or component `b` of het job `a` (`het`), through its index, or,
 * without the indices, by a scan; NULL when none. */
static const struct known_job *find_pair(const struct known_jobs *known,
					 bool het, uint32_t a, uint32_t b)
{
	size_t first, second;

	pair_offsets(het, &first, &second);
	if (!known || !known->count)
		return NULL;
	if (known->indexed) {
		const uint32_t *v = het ? known->by_het : known->by_array;
		size_t n = het ? known->n_het : known->n_array;
		size_t i = lower_bound(known->jobs, v, n, first, second, a, b);

		if (i == n || field_of(&known->jobs[v[i]], first) != a ||
		    field_of(&known->jobs[v[i]], second) != b)
			return NULL;
		return &known->jobs[v[i]];
	}
	for (size_t i = 0; i < known->count; i++)
		if (field_of(&known->jobs[i], first) == a &&
		    field_of(&known->jobs[i], second) == b)
			return &known->jobs[i];
	return NULL;
}

const struct known_job *known_target(const struct known_jobs *known,
				     uint32_t id, uint32_t task,
				     uint32_t offset, bool *het_all)
{
	const struct known_job *k;

	*het_all = false;
	if (!id)
		return NULL;
	if (offset != NO_VAL)
		return find_pair(known, true, id, offset);
	if (task != NO_VAL)
		/* the task's own record, else the pending array record
		 * (array_task_id NO_VAL) that still holds it */
		return (k = find_pair(known, false, id, task))
			       ? k
			       : find_pair(known, false, id, NO_VAL);
	k = known_job_find(known, id);
	if (k && k->het_job_id == id)
		*het_all = true;
	return k;
}

/* strtol() of `s` as Slurm reads a job id's parts (update_job_str(),
 * _parse_array_tok(), src/slurmctld/job_mgr.c, 22.05-26.05): leading
 * blanks and a sign taken, errno left as it was. */
static long slurm_strtol(const char *s, char **end)
{
	int saved = errno;
	long v = strtol(s, end, 10);

	errno = saved;
	return v;
}

void update_target(const job_desc_msg_t *job_desc, uint32_t *id, uint32_t *task,
		   uint32_t *offset)
{
	const char *s = job_desc->job_id_str;
	char *end, *tail;
	long v;

	*id = 0;
	*task = *offset = NO_VAL;
	if (!s) { /* update_job(): the record with that id */
		if (SX_DESC_JOB_ID(job_desc) != NO_VAL)
			*id = SX_DESC_JOB_ID(job_desc);
		return;
	}
	/* update_job_str(): the string alone, job_id unread; a long cast
	 * to uint32_t ("4294967396" is job 100), 0 when Slurm refuses it */
	v = slurm_strtol(s, &end);
	if (v <= 0 || v == LONG_MAX || (*end && *end != '_' && *end != '+'))
		return;
	*id = (uint32_t)v;
	if (*end == '+') { /* a het component, its offset cast likewise */
		v = slurm_strtol(end + 1, &tail);
		if (v >= 0 && v != LONG_MAX && !*tail)
			*offset = (uint32_t)v;
		return;
	}
	if (*end != '_')
		return;
	/* one task, "123_4", "123_[4]" or "123_4%2"; a list or a range is
	 * the array as a whole (NO_VAL) */
	s = end + 1;
	if (*s == '[')
		s++;
	v = slurm_strtol(s, &tail);
	if (tail == s || v < 0 || v >= NO_VAL)
		return;
	if (*tail == ']')
		tail++;
	if (!*tail || *tail == '%')
		*task = (uint32_t)v;
}

int census_count(const struct known_jobs *known, struct census *fresh)
{
	size_t n = known ? known->count : 0;
	struct census_job *v = malloc((n ? n : 1) * sizeof(*v));
	int rc;

	if (!v) {
		memset(fresh, 0, sizeof(*fresh));
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = (struct census_job){
			.uid = known->jobs[i].user_id,
			.hash = known->jobs[i].request_hash,
			.prefers = known->jobs[i].st.n_prefer > 0,
		};
	rc = census_count_jobs(v, n, fresh);
	free(v);
	return rc;
}
