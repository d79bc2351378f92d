/*
 * shared.c - the entry points' side of the front door (thread.h): what
 * job_submit() and job_modify() read of the thread's state and write for
 * it, under its lock.
 */
#include <stdlib.h>
#include <string.h>

#include "elapsed.h"
#include "thread_private.h"

void thread_lock(struct thread *t)
{
	pthread_mutex_lock(&t->lock);
}

void thread_unlock(struct thread *t)
{
	pthread_mutex_unlock(&t->lock);
}

const xc_nodes_t *thread_table(const struct thread *t)
{
	return t->table;
}

const bool *thread_free(const struct thread *t)
{
	return t->table && t->free_count == xc_nodes_count(t->table) ? t->free
								     : NULL;
}

void thread_prefer_deadline(struct thread *t, time_t until, bool no_wait)
{
	if (until > 0 && (!t->submit_next || until < t->submit_next))
		t->submit_next = until;
	t->submit_free |= no_wait;
}

void thread_parts_usable(const struct thread *t, const char *list, size_t count,
			 bool *usable)
{
	(void)parts_usable(&t->parts, list, count, usable);
}

long thread_carry_lookup(const struct thread *t, const char *canonical,
			 char name[SX_FEATURE_LEN + 1])
{
	return t->carry.names ? carry_lookup(&t->carry, canonical, name) : -1;
}

long thread_carry_lookup_name(const struct thread *t, const char *name)
{
	return t->carry.names ? carry_lookup_name(&t->carry, name) : -1;
}

const struct known_job *thread_known_target(const struct thread *t,
					    const job_desc_msg_t *job_desc,
					    uint32_t *id, uint32_t *task,
					    uint32_t *offset, bool *het_all)
{
	update_target(job_desc, id, task, offset);
	return known_target(&t->known, *id, *task, *offset, het_all);
}

uint32_t thread_max_job_id(const struct thread *t)
{
	return t->max_job_id;
}

void thread_submitted(struct thread *t)
{
	/* an ask for a load of the jobs: a job the thread will plan, or a
	 * cap counted from loaded jobs (thread_jobs_wanted) */
	t->submitted++;
}

void thread_ask_urgent(struct thread *t)
{
	t->urgent++;
}

bool thread_urgent_allowed(struct thread *t, uint32_t owner)
{
	return hints_urgent(&t->hints, owner);
}

bool thread_hint(struct thread *t, struct job_hint *h, size_t *pending)
{
	bool kept = hints_add(&t->hints, h);

	*pending = t->hints.n;
	return kept;
}

void thread_hint_lost(struct thread *t)
{
	hints_lose(&t->hints);
}

uint64_t thread_newest_hint(const struct thread *t)
{
	return t->hints.n ? t->hints.v[t->hints.n - 1].seq : 0;
}

bool thread_own_update(const struct thread *t, const job_desc_msg_t *job_desc,
		       uint32_t submit_uid, bool *stale)
{
	const struct job_update *u = t->inflight;

	if (!u || submit_uid != (uint32_t)t->self || !job_desc->job_id_str ||
	    strcmp(job_desc->job_id_str, u->job_id_str) != 0)
		return false;
	*stale = hints_newer(&t->hints, u->ids, u->user_id, t->inflight_since);
	return true;
}
