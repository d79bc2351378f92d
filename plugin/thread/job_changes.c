/*
 * job_changes.c - what others changed in a pending job the thread
 * filters (job_changes.h).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "job_changes.h"
#include "job_filter.h"
#include "slurm_hostlist.h"

/* Whether hint `h` changes the preferences of `job`: trusted, from the
 * owner, root or SlurmUser (hint_from_owner). */
static bool takes_prefer(const struct job_hint *h, const slurm_job_info_t *job)
{
	return h->prefer_set && h->trusted && hint_from_owner(h, job);
}

int job_changes_take(const slurm_job_info_t *job, const struct known_job *k,
		     struct sx_job_state *st, uint64_t exc_text,
		     const struct hints *hints, uint64_t upto, bool *pending)
{
	/* Someone else's list: neither the text the plugin wrote, kept as
	 * it is by slurmctld (its hash alone, no reading of it), nor the same
	 * nodes written another way. */
	bool changed = st->wrote && exc_text != st->wrote &&
		       hostlist_hash(job->exc_nodes) != st->wrote,
	     hashed = false, set;
	const char *user = NULL;
	uint64_t have = 0;

	*pending = false;
	if (k && k->prefer_pending && !sx_job_state_same_prefer(st, &k->st)) {
		if (sx_job_state_copy_prefer(&k->st, st) < 0)
			return -1;
		*pending = true;
	}
	for (size_t i = 0; hints && i < hints->n && hints->v[i].seq <= upto;
	     i++) {
		const struct job_hint *h = &hints->v[i];

		/* nobody's but the owner's, root's or SlurmUser's: an
		 * operator's list is taken whole as the user's (`changed`) */
		if (!hint_names(h, job) || !hint_from_owner(h, job))
			continue;
		if (takes_prefer(h, job)) {
			if (prefer_change_apply(&h->prefer, st) < 0)
				return -1;
			*pending = true;
		}
		if (h->hold && h->trusted && job->priority == 0)
			st->held = false;
		if (!h->exc || !(changed || h->trusted))
			continue;
		if (h->exc_text) { /* a list set as it was, unread */
			set = exc_text == h->exc_text;
		} else {
			if (!hashed) {
				have = hostlist_hash(job->exc_nodes);
				hashed = true;
			}
			set = have == h->exc_hash;
		}
		if (set) /* this update set the list */
			user = h->user_exc ? h->user_exc : job->exc_nodes;
	}
	if (changed && !user)
		user = job->exc_nodes;
	if (user) {
		char *normal = sx_hostlist_normal(user);

		if (!normal)
			return -1;
		free(st->exclude);
		st->exclude = normal;
	}
	return 0;
}

/* A name of job_changes_adopted()'s list: kept (pushed on `out`) unless the
 * table has it and it does not match; -1 when out of memory. */
struct keep {
	const xc_nodes_t *table;
	const bool *matched;
	sx_hostlist_t out;
};

static int keep_name(const char *host, void *arg)
{
	const struct keep *k = arg;
	long i = xc_nodes_find(k->table, host);

	if ((i < 0 || k->matched[i]) && !slurm_hostlist_push_host(k->out, host))
		return -1;
	return 0;
}

int job_changes_adopted(const xc_nodes_t *table, const bool *matched,
			char **exclude)
{
	sx_hostlist_t in = slurm_hostlist_create(*exclude);
	struct keep k = { table, matched, slurm_hostlist_create("") };
	char *s = NULL;
	int rc = -1;

	if (!in || !k.out || sx_hostlist_walk(in, keep_name, &k) < 0)
		goto done;
	slurm_hostlist_uniq(k.out);
	if (!(s = slurm_hostlist_count(k.out) ? sx_hostlist_string(k.out)
					      : strdup("")))
		goto done;
	free(*exclude);
	*exclude = s;
	rc = 0;
done:
	if (in)
		slurm_hostlist_destroy(in);
	if (k.out)
		slurm_hostlist_destroy(k.out);
	return rc;
}

/* Reads the state of a pending job that has a request into `st`: its
 * AdminComment state; the state the previous round knew (`prev`) when an
 * admin's AdminComment replaced it (their text is kept); or (23.02+) a new
 * one for a job whose `extra` was set by an update.  The request is the
 * job's `extra` where it has one.  false when the job has no request (or
 * out of memory: the next round tries again). */
bool job_changes_read(const slurm_job_info_t *job,
		      const struct known_jobs *prev, struct sx_job_state *st,
		      bool *adopted)
{
	const char *extra = SX_JOB_EXTRA(job);
	const struct known_job *k;

	if ((job->job_state & JOB_STATE_BASE) != JOB_PENDING)
		return false;
	if (!sx_job_state_parse(job->admin_comment, st)) {
		if ((k = known_job_find(prev, job->job_id))) {
			if (sx_job_state_copy(&k->st, job->admin_comment, st) <
			    0)
				return false;
		} else if (!extra || !*extra) {
			return false;
		} else {
			/* A request set by an update (or a state an admin's
			 * AdminComment replaced before the thread saw the job):
			 * its nodes that satisfy the request are the user's
			 * (adopted: the plan drops the others, which may be the
			 * plugin's from submission). */
			*adopted = true;
			st->exclude = sx_hostlist_normal(job->exc_nodes);
			if (!st->exclude)
				st->exclude = strdup(
					job->exc_nodes ? job->exc_nodes : "");
			if (job->admin_comment && *job->admin_comment)
				st->admin = strdup(job->admin_comment);
			if (!st->exclude ||
			    (job->admin_comment && *job->admin_comment &&
			     !st->admin)) {
				sx_job_state_free(st);
				return false;
			}
		}
	}
	if (extra && *extra &&
	    strcmp(extra, st->request ? st->request : "") != 0) {
		char *r = strdup(extra);

		if (!r) {
			sx_job_state_free(st);
			return false;
		}
		free(st->request);
		st->request = r;
	}
	return true;
}
