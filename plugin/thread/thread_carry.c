/*
 * thread_carry.c - the feature carrier's stages of a round
 * (thread_private.h; doc/thread.md "Carriers"): slurm.conf read again,
 * the node updates of a plan sent, whether a node change needs the jobs,
 * the moves held back after a refused node update.
 */
#include <pthread.h>
#include <stdlib.h>

#include "carrier.h"
#include "ctld.h"
#include "pace.h"
#include "thread_private.h"

void thread_carry_conf(struct thread *r)
{
	time_t t = sx_conf_time();
	bool plugins, enabled;

	if (r->carry.conf_time == t && r->carry_read)
		return;
	if (sx_node_features_plugins(&plugins) < 0)
		return;
	enabled = r->cfg.carrier_features && !plugins;
	if (!r->carry_read || enabled != r->carry.enabled)
		slurm_info(
			"%s: %s", plugin_type,
			enabled ? "Carrier=features: the nodes a request allows carry a node feature its jobs' constraints name"
			: plugins
				? "NodeFeaturesPlugins is set: node features are the plugin's, so jobs are kept off nodes by their ExcNodeList (Carrier=exclusions)"
				: "Carrier=exclusions: jobs are kept off nodes by their ExcNodeList");
	pthread_mutex_lock(&r->lock);
	carry_conf(&r->carry, t, !plugins, r->cfg.carrier_features);
	pthread_mutex_unlock(&r->lock);
	r->carry_read = true;
	r->table_time = 0; /* every node loaded: their features read */
}

/* r->lock taken and released for carry_plan(), which writes what the
 * entry points read under it. */
static void lock_thread(void *arg)
{
	pthread_mutex_lock(&((struct thread *)arg)->lock);
}

static void unlock_thread(void *arg)
{
	pthread_mutex_unlock(&((struct thread *)arg)->lock);
}

void thread_carry_round(struct thread *r, struct refilter_stats *stats,
			bool *failed)
{
	struct carry_update *ups = NULL;
	uint64_t round = r->memo.round;
	size_t n = 0;
	bool *ok;

	if (!round || !r->table)
		return;
	if (carry_plan(&r->carry, &r->memo, r->table, round, &ups, &n,
		       lock_thread, unlock_thread, r) < 0) {
		slurm_error("%s: out of memory planning node features",
			    plugin_type);
		return;
	}
	if (!(ok = calloc(n ? n : 1, sizeof(*ok)))) {
		pthread_mutex_lock(&r->lock);
		r->carry.planned = 0; /* nothing sent: nothing learnt */
		pthread_mutex_unlock(&r->lock);
		carry_updates_free(ups, n);
		return;
	}
	if (n)
		pace_send_nodes(r, ups, n, ok, stats);
	for (size_t k = 0; k < n; k++)
		*failed = *failed || !ok[k];
	pthread_mutex_lock(&r->lock);
	if (carry_done(&r->carry, &r->memo, ups, n, ok, round))
		r->carry_due = true;
	pthread_mutex_unlock(&r->lock);
	if (n)
		slurm_verbose("%s: node features: %zu updates, %zu refused",
			      plugin_type, n, stats->node_failed);
	carry_updates_free(ups, n);
	free(ok);
}

bool thread_nodes_want_jobs(const struct thread *r, bool nodes, uint64_t urgent,
			    uint64_t asked)
{
	return nodes && (asked != r->asked_seen || urgent != r->urgent_seen ||
			 !carry_covers(&r->carry, &r->memo));
}

size_t thread_hold_back_moves(struct thread *r, struct job_update *ups,
			      size_t n)
{
	size_t k = 0;

	pthread_mutex_lock(&r->lock);
	for (size_t i = 0; i < n; i++) {
		if (ups[i].to_feature) {
			struct known_job *kj =
				(struct known_job *)known_job_find(
					&r->known, ups[i].job_id);
			char *own;

			if (kj) {
				kj->carried = false;
				if (kj->features && *kj->feature &&
				    (own = sx_constraint_own(kj->features,
							     kj->feature))) {
					free(kj->features);
					kj->features = own;
				}
			}
			job_update_free(&ups[i]);
			continue;
		}
		ups[k++] = ups[i];
	}
	pthread_mutex_unlock(&r->lock);
	return k;
}
