/*
 * pace.c - job_submit/extra's thread sends a round's updates (pace.h):
 * one at a time, marked in flight for job_modify(), within the update
 * budget; and the thread's waits on CLOCK_MONOTONIC.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "elapsed.h"
#include "ctld.h"
#include "pace.h"
#include "xc_util.h"

struct pace_ctld pace_ctld = { .load = sx_load_node_one,
			       .load_since = sx_load_nodes_since,
			       .free_msg = sx_free_node_info_msg,
			       .update = sx_update_node_features };

struct timespec pace_deadline(double seconds)
{
	struct timespec until;
	double whole, frac = modf(seconds, &whole);

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += (time_t)whole;
	until.tv_nsec += (long)(frac * 1e9);
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	return until;
}

bool pace_wait_until(struct thread *r, const struct timespec *until)
{
	while (!r->stopping &&
	       pthread_cond_timedwait(&r->wake, &r->lock, until) == 0)
		;
	return !r->stopping;
}

void pace_owe(struct thread *r, struct pace *p, double rpc_ms)
{
	double b = (double)r->cfg.update_budget;

	p->owed_ms += rpc_ms * (1000.0 - b) / b;
}

bool pace_wait(struct thread *r, struct pace *p, struct refilter_stats *stats)
{
	struct timespec until;
	bool go;

	if (p->owed_ms < PACE_STEP_MS)
		return true;
	until = pace_deadline(p->owed_ms / 1e3);
	p->owed_ms = 0;
	stats->paced++;
	pthread_mutex_lock(&r->lock);
	go = pace_wait_until(r, &until);
	pthread_mutex_unlock(&r->lock);
	return go;
}

/* Sends one update, marked in flight for job_modify(), which refuses it
 * when someone else updated its job after the round's hints (`since`):
 * the next round plans it again from the new data.  Its time in ms. */
static double send_one(struct thread *r, struct job_update *u, uint64_t since,
		       struct refilter_stats *stats)
{
	struct timespec t0;
	bool ok;

	/* its ExcNodeList built now, and freed once sent: one at a time */
	if (job_update_build(r->table, &r->cfg.limits, u) < 0) {
		stats->failed++; /* planned again (job_loads.h) */
		u->refused = true;
		return 0.0;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_mutex_lock(&r->lock);
	r->inflight = u;
	r->inflight_since = since;
	pthread_mutex_unlock(&r->lock);
	/* Not under r->lock: the update runs job_modify(). */
	ok = job_update_send(u);
	pthread_mutex_lock(&r->lock);
	r->inflight = NULL;
	pthread_mutex_unlock(&r->lock);
	free(u->exc_nodes);
	u->exc_nodes = NULL;
	stats->failed += !ok;
	u->refused = !ok;
	return ms_since(&t0);
}

void pace_send_updates(struct thread *r, struct job_update *ups, size_t n,
		       uint64_t since, struct refilter_stats *stats)
{
	struct pace p = { 0 };
	struct timespec t0;
	size_t sent = 0;
	bool told = false;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int gains = 0; gains <= 1; gains++)
		for (size_t i = 0; i < n; i++) {
			if (ups[i].gains != (bool)gains)
				continue;
			if (__atomic_load_n(&r->stopping, __ATOMIC_RELAXED) ||
			    !pace_wait(r, &p, stats))
				goto out;
			/* behind: said once a round */
			if (stats->paced && !told) {
				told = true;
				slurm_verbose(
					"%s: %zu of %zu updates sent; the rest follow within UpdateBudget=%zu ms a second",
					plugin_type, sent, n,
					r->cfg.update_budget);
			}
			pace_owe(r, &p, send_one(r, &ups[i], since, stats));
			sent++;
		}
out:
	stats->sent += sent;
	stats->send_ms += ms_since(&t0);
}

/* The round's load of every node (pace_send_nodes(), when its updates
 * name more than CARRY_FRESH_SINGLE_MAX nodes), made before its first
 * update; { 0 } before, round_load_free() after. */
struct round_load {
	bool done;		 /* asked (at the round's first update) */
	node_info_msg_t *msg;	 /* what it gave; NULL once done: no node
				    changed since the plan's load */
	const node_info_t **rec; /* per table index, its record in `msg`
				    (NULL: none of its name in its place) */
	size_t count;		 /* the table's nodes, rec's length */
};

/* Loads every node once for the round, when one changed since the load
 * the plan was made from (pace_ctld.load_since with r->table_time; "no
 * change" costs slurmctld no node packed: sx_load_nodes_since()); its
 * time owed to `p`.  The records are matched to the table's nodes as
 * carry_seen() reads them: the named ones in order, each of the same
 * name as its node (a node added or removed since leaves the nodes after
 * it unmatched: their updates wait for the next round's load).  False
 * when the load failed or out of memory: the round sends no update. */
static bool load_round(struct thread *r, struct round_load *all, struct pace *p)
{
	struct timespec t0;
	size_t j = 0;
	int rc;

	all->done = true;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = pace_ctld.load_since(r->table_time, &all->msg);
	pace_owe(r, p, ms_since(&t0));
	if (rc == SLURM_NO_CHANGE_IN_DATA) {
		pace_ctld.free_msg(all->msg);
		all->msg = NULL;
		return true;
	}
	all->count = xc_nodes_count(r->table);
	if (rc != SLURM_SUCCESS || !all->msg ||
	    !(all->rec =
		      calloc(all->count ? all->count : 1, sizeof(*all->rec)))) {
		slurm_verbose(
			"%s: feature updates of nodes not sent: the nodes could not be loaded (%s; the next round plans them again)",
			plugin_type,
			slurm_strerror(rc != SLURM_SUCCESS ? rc : ENOMEM));
		return false;
	}
	for (uint32_t i = 0; i < all->msg->record_count && j < all->count;
	     i++) {
		const node_info_t *node = &all->msg->node_array[i];

		if (!node->name)
			continue;
		if (strcmp(node->name, xc_nodes_name(r->table, j)) == 0)
			all->rec[j] = node;
		j++;
	}
	return true;
}

static void round_load_free(struct round_load *all)
{
	pace_ctld.free_msg(all->msg);
	free(all->rec);
	memset(all, 0, sizeof(*all));
}

/* Reads the site's lists of each node of `u` into `f` from the round's
 * load `all` (changed since the plan's load), or, when `all` is NULL,
 * from each node loaded alone now (pace_ctld.load), back to back, each
 * load's time owed to `p`.  False as soon as the update is not to be
 * sent: a node not loaded (an error, no record, another name), out of
 * memory, or lists that differ. */
static bool read_site(struct thread *r, const struct carry_update *u,
		      const struct round_load *all, struct carry_fresh *f,
		      struct pace *p)
{
	for (size_t i = 0; i < u->nodes; i++) {
		node_info_msg_t *msg = NULL;
		const char *name;
		struct timespec t0;
		bool read;

		if (all) {
			const node_info_t *node = u->idx[i] < all->count
							  ? all->rec[u->idx[i]]
							  : NULL;

			if (!node || carry_fresh_read(f, node) < 0 || f->differ)
				return false;
			continue;
		}
		name = xc_nodes_name(r->table, u->idx[i]);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		read = pace_ctld.load(name, &msg) == SLURM_SUCCESS && msg &&
		       msg->record_count == 1 && msg->node_array[0].name &&
		       strcmp(msg->node_array[0].name, name) == 0 &&
		       carry_fresh_read(f, &msg->node_array[0]) == 0;
		pace_owe(r, p, ms_since(&t0));
		pace_ctld.free_msg(msg);
		if (!read || f->differ)
			return false;
	}
	return true;
}

/* Sends update `u` with the site's lists of its nodes as they are now:
 * as planned when the round's load `all` found no node changed since the
 * plan's load, else as read_site() reads them (from `all`, or, NULL,
 * each node loaded alone).  True with *rc Slurm's answer (a refusal
 * logged), false when not sent (the next round's load shows the nodes as
 * they are).  Its time owed to `p`. */
static bool send_node(struct thread *r, const struct carry_update *u,
		      const struct round_load *all, struct pace *p, int *rc)
{
	struct carry_fresh f = { 0 };
	char *fresh_avail = NULL, *fresh_act = NULL;
	const char *avail = u->features, *act = u->features_act;
	char nbuf[256], fbuf[256], abuf[256];
	struct timespec t0;
	bool current = all && !all->msg, sent = false;

	if (!current && read_site(r, u, all, &f, p) &&
	    carry_fresh_lists(&f, u, &fresh_avail, &fresh_act) == 0) {
		avail = fresh_avail;
		act = fresh_act;
		current = true;
	}
	if (current) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		/* Not under r->lock: slurmctld takes its node write lock. */
		*rc = pace_ctld.update(u->names, avail, act);
		pace_owe(r, p, ms_since(&t0));
		sent = true;
		if (*rc != SLURM_SUCCESS)
			slurm_error(
				"%s: feature update of nodes %s refused: %s (available %s, active %s)",
				plugin_type,
				xc_escape(u->names, nbuf, sizeof(nbuf)),
				slurm_strerror(*rc),
				xc_escape(avail, fbuf, sizeof(fbuf)),
				xc_escape(act, abuf, sizeof(abuf)));
	} else {
		slurm_verbose(
			"%s: feature update of nodes %s not sent: a node's features changed since the load of every node, or a node could not be loaded (the next round plans it again)",
			plugin_type, xc_escape(u->names, nbuf, sizeof(nbuf)));
	}
	carry_fresh_free(&f);
	free(fresh_avail);
	free(fresh_act);
	return sent;
}

void pace_send_nodes(struct thread *r, const struct carry_update *ups, size_t n,
		     bool *ok, struct refilter_stats *stats)
{
	struct pace p = { 0 };
	struct round_load all = { 0 };
	struct timespec t0;
	size_t named = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t k = 0; k < n; k++) {
		ok[k] = false;
		named += ups[k].nodes;
	}
	for (size_t k = 0; k < n; k++) {
		int rc = SLURM_SUCCESS;

		if (__atomic_load_n(&r->stopping, __ATOMIC_RELAXED) ||
		    !pace_wait(r, &p, stats))
			break;
		/* slurm.conf read again since the load the plan comes from
		 * (a reconfigure resets the nodes' features and forgets
		 * every name): the next round loads the nodes again */
		if (sx_conf_time() != r->carry.conf_time)
			break;
		if (named > CARRY_FRESH_SINGLE_MAX && !all.done &&
		    !load_round(r, &all, &p))
			break;
		if (!send_node(r, &ups[k],
			       named > CARRY_FRESH_SINGLE_MAX ? &all : NULL, &p,
			       &rc))
			continue;
		ok[k] = rc == SLURM_SUCCESS;
		stats->node_updates++;
		stats->node_failed += !ok[k];
	}
	round_load_free(&all);
	stats->send_ms += ms_since(&t0);
}
