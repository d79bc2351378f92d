/*
 * guard_slurm.h - the guard at placement in Slurm's own records
 * (guard_slurm.c; doc/guard.md "The guard at placement"), for the
 * burst_buffer plugin's entry points (burst_buffer_extra.c).  Built only
 * against the configured source tree of the exact Slurm it runs in.
 */
#ifndef SLURM_EXTRA_GUARD_SLURM_H
#define SLURM_EXTRA_GUARD_SLURM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct job_record; /* Slurm's job_record_t */

/* At the plugin's init(): the guard, with extra.conf's limits as read now
 * (kept until slurmctld restarts, as job_submit/extra keeps its own).
 * SLURM_SUCCESS, or SLURM_ERROR (slurmctld stops: job_submit/extra would
 * take the jobs' requests and nothing would filter) when Slurm's node
 * sets are not laid out as the guard reads them (said in the log), and
 * out of memory. */
int guard_slurm_load(void);

/* At the plugin's fini(): all it holds freed. */
void guard_slurm_unload(void);

/* The stage-in test of pending `job_ptr` at a placement (the job and
 * node write locks held by select_nodes()): 1, "staged in", with the
 * nodes Slurm may give it whose Extra does not satisfy its request now
 * set in its excluded nodes; 0 when that would leave it fewer nodes
 * satisfying its request than it asks for (it waits, reason
 * BurstBufferStageIn).  1 with nothing set for a job without a request,
 * or when the guard stands aside. */
int guard_slurm_place(struct job_record *job_ptr);

/* For the look (look_slurm.c), the job write and node read locks held:
 * the guard (NULL when it stands aside: no layout, not loaded). */
struct guard *guard_slurm_guard(void);

/* extra.conf as the file says now into `cfg` (as job_submit/extra reads
 * it), the carrier of burst_buffer/extra loaded (plugin_config_carrier());
 * the defaults when it cannot be read, each bad line said in the log
 * (guard_alone.c). */
struct plugin_config;
void guard_slurm_config(struct plugin_config *cfg);

/* guard_on_unusable()'s `say` (guard.h): node i's Extra is `why`, said in
 * slurmctld's log; the node read lock held (the name is the table's). */
void guard_slurm_say_unusable(size_t i, const char *why, void *arg);

/* Whether the guard filters alone (Carrier=guard, the only carrier:
 * plugin_config_carrier(), doc/guard.md "The guard alone"): true once
 * loaded; an earlier release's job_submit/extra could run its thread
 * beside it. */
bool guard_slurm_alone(void);

/* Whether it does from now: job_submit/extra's init() says so at each
 * load of its (sx_guard_api.set_alone, guard_api.h: 22.05 reloads it in
 * place when a reconfigure changes JobSubmitPlugins, burst_buffer/extra
 * never).  False, nothing changed, when `alone` and there is no guard. */
bool guard_slurm_set_alone(bool alone);

/* guard_alone.c's side of guard_slurm_set_alone(): the flag stored. */
void guard_alone_store(bool alone);

/* What the look says of a job's excluded nodes at a placement
 * (look_slurm_base(), look_slurm.h), handed to the guard by the look's
 * start (NULL at its stop: the guard then judges by the job's set as it
 * is), so that the guard below does not call up into the look. */
typedef const uint64_t *(*guard_slurm_base_fn)(struct job_record *job_ptr,
					       unsigned long long text_hash);
void guard_slurm_on_base(guard_slurm_base_fn fn);

/* Takes the bits the guard set at `job_ptr`'s last placement out of its
 * excluded nodes (only from the set exactly as it left it: guard.h) and
 * forgets them, so that what the set holds beyond Slurm's own is the
 * look's: `text_hash`, records_rebuilt_from() of the job now.  True when
 * it cleared a node. */
bool guard_slurm_hand_over(struct job_record *job_ptr,
			   unsigned long long text_hash);

#endif
