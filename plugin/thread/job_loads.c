/*
 * job_loads.c - which jobs a round of the thread loads (job_loads.h,
 * thread_private.h): every job, or those the hints name one by one, and
 * the jobs whose refused updates are planned again after a delay.
 */
#include <stdlib.h>
#include <string.h>

#include "elapsed.h"
#include "job_loads.h"
#include "hints.h"
#include "kept_jobs.h"
#include "thread_private.h"
#include "xc_util.h"

int thread_load_hinted(struct thread *r, const uint32_t *ids, size_t n)
{
	job_info_msg_t *fresh[HINTED_LOAD_MAX] = { 0 };
	uint32_t max_id = 0;
	int rc = -1;

	if (n > HINTED_LOAD_MAX || !r->jobs)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (sx_load_job(&fresh[i], ids[i], SHOW_ALL) == SLURM_SUCCESS) {
			for (uint32_t j = 0; j < fresh[i]->record_count; j++)
				if (fresh[i]->job_array[j].job_id > max_id)
					max_id = fresh[i]->job_array[j].job_id;
			continue;
		}
		fresh[i] = NULL;
		/* gone (purged): its records go; anything else: load all */
		if (sx_slurm_errno() != ESLURM_INVALID_JOB_ID)
			goto out;
	}
	switch (kept_jobs_splice(r->jobs, fresh, n, ids, n, &r->known)) {
	case 0:
		break;
	case 1: /* enough spliced: every job loaded afresh, not "since" */
		r->jobs_time = 0;
		goto out;
	default:
		slurm_error("%s: out of memory keeping the jobs", plugin_type);
		goto out;
	}
	pthread_mutex_lock(&r->lock);
	if (max_id > r->max_job_id)
		r->max_job_id = max_id;
	pthread_mutex_unlock(&r->lock);
	rc = 0;
out:
	for (size_t i = 0; i < n; i++)
		if (fresh[i])
			sx_free_job_info_msg(fresh[i]);
	return rc;
}

/* The retry of job `id` in `t` (sorted), or where it goes (*at). */
static struct job_retry *find_retry(struct job_retries *t, uint32_t id,
				    size_t *at)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].job_id == id)
			return &t->v[mid];
		if (t->v[mid].job_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return NULL;
}

static struct timespec after(const struct timespec *now, unsigned s)
{
	struct timespec t = *now;

	t.tv_sec += s;
	return t;
}

static bool reached(const struct timespec *now, const struct timespec *t)
{
	return now->tv_sec > t->tv_sec ||
	       (now->tv_sec == t->tv_sec && now->tv_nsec >= t->tv_nsec);
}

bool job_retry_refused(struct job_retries *t, const struct job_update *ups,
		       size_t n, const struct timespec *now)
{
	bool kept = true;

	for (size_t i = 0; i < n; i++) {
		const struct job_update *u = &ups[i];
		size_t at = 0;
		struct job_retry *e = find_retry(t, u->job_id, &at);

		if (!u->refused) {
			if (e) { /* taken: forgotten */
				at = (size_t)(e - t->v);
				memmove(e, e + 1, (t->n - at - 1) * sizeof(*e));
				t->n--;
			}
			continue;
		}
		if (!e) {
			if (t->n >= HINTS_MAX ||
			    xc_grow((void **)&t->v, &t->cap, t->n + 1,
				    sizeof(*t->v)) < 0) {
				kept = false;
				continue;
			}
			memmove(&t->v[at + 1], &t->v[at],
				(t->n - at) * sizeof(*t->v));
			t->n++;
			e = &t->v[at];
			*e = (struct job_retry){ .job_id = u->job_id };
		}
		e->user_id = u->user_id;
		e->delay_s = !e->delay_s		     ? 1
			     : e->delay_s >= JOB_RETRY_MAX_S ? JOB_RETRY_MAX_S
							     : e->delay_s * 2;
		e->next = after(now, e->delay_s);
		e->retried = false;
	}
	return kept;
}

size_t job_retry_due(struct job_retries *t, const struct timespec *now,
		     uint32_t *ids, uint32_t *owners, size_t max)
{
	size_t got = 0, k = 0;

	for (size_t i = 0; i < t->n; i++) {
		struct job_retry *e = &t->v[i];

		if (e->retried && reached(now, &e->next))
			continue; /* forgotten */
		if (!e->retried && got < max && reached(now, &e->next)) {
			ids[got] = e->job_id;
			owners[got++] = e->user_id;
			e->retried = true;
			e->next = after(now, JOB_RETRY_KEEP_S);
		}
		t->v[k++] = *e;
	}
	t->n = k;
	return got;
}

void job_retries_free(struct job_retries *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

int thread_load_jobs(struct thread *r)
{
	job_info_msg_t *msg = NULL, *kept;
	uint32_t max_id = 0;

	if (slurm_load_jobs(r->jobs_time, &msg, SHOW_ALL) != SLURM_SUCCESS)
		return sx_slurm_errno() == SLURM_NO_CHANGE_IN_DATA ? 0 : -1;
	/* Only what a round reads is kept, and Slurm's answer freed now
	 * (kept_jobs_keep: 40 KB a job at 10,000 nodes). */
	kept = kept_jobs_keep(msg, &r->known);
	for (uint32_t i = 0; i < msg->record_count; i++)
		if (msg->job_array[i].job_id > max_id)
			max_id = msg->job_array[i].job_id;
	sx_free_job_info_msg(msg);
	if (!kept) {
		slurm_error("%s: out of memory keeping the jobs", plugin_type);
		return -1;
	}
	kept_jobs_free(r->jobs);
	r->jobs = kept;
	r->jobs_time = kept->last_update;
	pthread_mutex_lock(&r->lock);
	r->max_job_id = max_id;
	pthread_mutex_unlock(&r->lock);
	return 1;
}

bool thread_jobs_wanted(const struct thread *r, bool nodes, uint64_t urgent,
			uint64_t asked)
{
	bool quiet = asked == r->asked_round;

	return nodes || urgent != r->urgent_seen ||
	       (asked != r->asked_seen &&
		(quiet ||
		 ms_since(&r->unloaded_since) >= JOBS_PACED_S * 1000.0)) ||
	       r->jobs_due || r->replan || r->carry_due || r->memo.plan_all ||
	       !r->jobs || ms_since(&r->jobs_asked) >= JOBS_BACKSTOP_S * 1000.0;
}

void thread_users_asks(const struct thread *r, uint64_t *asked,
		       uint64_t *urgent)
{
	*asked = r->submitted + r->hints.losses;
	*urgent = r->urgent + r->hints.crowded;
}

void thread_retries_due(struct thread *r, const struct timespec *now)
{
	uint32_t ids[HINTED_LOAD_MAX], owners[HINTED_LOAD_MAX];
	size_t n =
		job_retry_due(&r->retries, now, ids, owners, HINTED_LOAD_MAX);

	pthread_mutex_lock(&r->lock);
	for (size_t i = 0; i < n; i++) {
		struct job_hint h = { .id = ids[i],
				      .task = NO_VAL,
				      .offset = NO_VAL,
				      .owner = owners[i] };

		(void)hints_add(&r->hints, &h); /* lost: every job planned */
	}
	pthread_mutex_unlock(&r->lock);
}

int thread_hinted_ids(struct thread *r, uint64_t upto, uint32_t *out,
		      size_t *count)
{
	uint32_t *ids;
	size_t n, k = 0;
	int rc;

	pthread_mutex_lock(&r->lock);
	rc = hints_ids(&r->hints, upto, &ids, &n); /* sorted */
	pthread_mutex_unlock(&r->lock);
	if (rc < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (k && ids[i] == out[k - 1])
			continue; /* a repeat */
		if (k == HINTED_LOAD_MAX) {
			k++; /* past the bound */
			break;
		}
		out[k++] = ids[i];
	}
	free(ids);
	*count = k;
	return k <= HINTED_LOAD_MAX;
}
