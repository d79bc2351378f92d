/*
 * pace.c - job_submit/extra's thread sends a round's updates (pace.h):
 * one at a time, marked in flight for job_modify(), within the update
 * budget; and the thread's waits on CLOCK_MONOTONIC.
 */
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

/* Reads the site's lists of each node of `u` into `f`, each loaded alone
 * now (pace_ctld.load), back to back; each load's time owed to `p`.
 * False as soon as one is not to be sent: a node not loaded (an error, no
 * record, another name), out of memory, or lists that differ. */
static bool load_site(struct thread *r, const struct carry_update *u,
		      struct carry_fresh *f, struct pace *p)
{
	for (size_t i = 0; i < u->nodes; i++) {
		const char *name = xc_nodes_name(r->table, u->idx[i]);
		node_info_msg_t *msg = NULL;
		struct timespec t0;
		bool read;

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

/* Sends update `u` with the site's lists of its nodes as they are now
 * (load_site()): true with *rc Slurm's answer (a refusal logged), false
 * when not sent (the next round's load shows the nodes as they are).
 * Its time owed to `p`. */
static bool send_node(struct thread *r, const struct carry_update *u,
		      struct pace *p, int *rc)
{
	struct carry_fresh f = { 0 };
	char *avail = NULL, *act = NULL, nbuf[256], fbuf[256], abuf[256];
	struct timespec t0;
	bool sent = false;

	if (load_site(r, u, &f, p) &&
	    carry_fresh_lists(&f, u, &avail, &act) == 0) {
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
			"%s: feature update of nodes %s not sent: a node's features changed since the load of every node, or a node could not be loaded alone (the next round plans it again)",
			plugin_type, xc_escape(u->names, nbuf, sizeof(nbuf)));
	}
	carry_fresh_free(&f);
	free(avail);
	free(act);
	return sent;
}

void pace_send_nodes(struct thread *r, const struct carry_update *ups, size_t n,
		     bool *ok, struct refilter_stats *stats)
{
	struct pace p = { 0 };
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t k = 0; k < n; k++)
		ok[k] = false;
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
		if (!send_node(r, &ups[k], &p, &rc))
			continue;
		ok[k] = rc == SLURM_SUCCESS;
		stats->node_updates++;
		stats->node_failed += !ok[k];
	}
	stats->send_ms += ms_since(&t0);
}
