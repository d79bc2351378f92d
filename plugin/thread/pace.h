/*
 * pace.h - how job_submit/extra's thread sends a round's updates (pace.c):
 * one at a time, each marked in flight for job_modify(), those that may
 * take nodes from a job first, within the update budget (UpdateBudget,
 * extra.conf(5); doc/thread.md "The update budget"); and the thread's
 * waits on CLOCK_MONOTONIC, which the budget, the round's interval and
 * thread_stop() use.  Private to plugin/thread/ and its unit tests.
 */
#ifndef SLURM_EXTRA_PACE_H
#define SLURM_EXTRA_PACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "thread_private.h"

/* The update budget (doc/thread.md "The update budget"): each update's
 * RPC of d ms owes d * (1000 - budget) / budget ms of rest, so that RPCs
 * take at most `budget` ms of each second over time; the rest is taken
 * before the next update once it reaches PACE_STEP_MS (bursts stay
 * short), never after the last.  With 1000 nothing is owed. */
#define PACE_STEP_MS 100.0

/* The rest one round's updates owe so far: { 0 } at the round's start,
 * the round's own (not shared, no lock). */
struct pace {
	double owed_ms; /* rest owed and not taken yet, ms */
};

/* `seconds` (>= 0; fractions to the nanosecond) from now on
 * CLOCK_MONOTONIC, the clock of r->wake (thread_init_sync): a step of the
 * wall clock moves no wait.  For pace_wait_until(). */
struct timespec pace_deadline(double seconds);

/* Waits, with r->lock held (released while it waits, held again on
 * return), until `until` (CLOCK_MONOTONIC: pace_deadline()) or the plugin
 * stops (r->stopping, set and r->wake broadcast by thread_stop()); false
 * when it stops.  A wake-up without a stop waits on. */
bool pace_wait_until(struct thread *r, const struct timespec *until);

/* Adds to `p` the rest an update's RPC of `rpc_ms` ms owes under
 * r->cfg.update_budget (UpdateBudget, ms a second, 1 to 1000: see
 * PACE_STEP_MS); nothing at 1000.  Reads only r->cfg: no lock. */
void pace_owe(struct thread *r, struct pace *p, double rpc_ms);

/* Before an update, without r->lock held: the rest `p` owes, taken when
 * it reaches PACE_STEP_MS (then zeroed, and counted in stats->paced);
 * false when the plugin stops meanwhile (the round then sends no more). */
bool pace_wait(struct thread *r, struct pace *p, struct refilter_stats *stats);

/* Sends the round's `n` updates `ups` (refilter_plan()'s, still the
 * caller's to free: job_updates_free()), without r->lock held: first those
 * that may take nodes from a job (a node stopped matching: the job must
 * not be placed there), then those that cannot (job_update.gains), within
 * the update budget (pace_wait).  Each one's ExcNodeList is built just
 * before it is sent and freed after (job_update_build(): one at a time);
 * while it is sent it is r->inflight, with `since` (the hints the plan
 * saw, hints.h seq) as r->inflight_since, so that job_modify() refuses it
 * when someone else updated its job after the plan (thread_own_update()).
 * An update not built or refused counts in stats->failed (the next round
 * plans it again); stats->sent, ->send_ms and ->paced count the rest.
 * Stops early when the plugin unloads: the next round starts over. */
void pace_send_updates(struct thread *r, struct job_update *ups, size_t n,
		       uint64_t since, struct refilter_stats *stats);

/* What pace_send_nodes() asks of slurmctld, in pace.c: set up for
 * slurmctld (slurm/ctld.h); a unit test replaces them to play slurmctld
 * (and puts them back), before any thread runs.  Called by the thread
 * alone, without r->lock. */
struct pace_ctld {
	/* sx_load_node_one(): node `name` alone into *msg, freed with
	 * `free_msg`; SLURM_SUCCESS or Slurm's error */
	int (*load)(const char *name, node_info_msg_t **msg);
	/* sx_load_nodes_since(): every node into *msg unless none changed
	 * since `since` (SLURM_NO_CHANGE_IN_DATA, *msg NULL), freed with
	 * `free_msg`; SLURM_SUCCESS or Slurm's error */
	int (*load_since)(time_t since, node_info_msg_t **msg);
	/* sx_free_node_info_msg(): what `load` gave (NULL: nothing) */
	void (*free_msg)(node_info_msg_t *msg);
	/* sx_update_node_features(): the nodes `names` get `avail` as their
	 * available features and `act` as their active ones; SLURM_SUCCESS
	 * or Slurm's error */
	int (*update)(const char *names, const char *avail, const char *act);
};
extern struct pace_ctld pace_ctld;

/* Sends the feature carrier's `n` node updates `ups` (carry_plan()) in
 * order within the update budget, ok[k] set for each that Slurm applied
 * (false for those not sent: the plugin stopping, slurm.conf read again
 * since the thread's load, a node not loaded, or the nodes' site lists no
 * longer the same); a refusal logged.
 *
 * The site's own lists sent are the nodes' as they are when the round
 * sends, not as the thread's load of every node showed them, so that an
 * admin's update of a node's features after that load is kept; what that
 * check costs is bounded by the round's updates:
 *   - when the updates name CARRY_FRESH_SINGLE_MAX nodes or fewer in all,
 *     each node is loaded alone right before its update (pace_ctld.load,
 *     one slurm_load_node_single() a node: slurmctld looks one name up),
 *     its lists read (carry_fresh_read()) and sent with the plugin's
 *     names (carry_fresh_lists());
 *   - otherwise the round loads every node once, before its first update
 *     (pace_ctld.load_since with r->table_time, the last_update of the
 *     load the plan was made from): when no node changed since,
 *     slurmctld answers so without packing a node and every update is
 *     sent with its planned lists; when one did, each update's nodes are
 *     read from that load as above, and an update whose nodes' lists no
 *     longer agree, or one of whose nodes that load does not show in its
 *     place, is not sent.
 * An update not sent waits for the next round's load, whose plan groups
 * the nodes by their lists.  The loads' time is owed to the budget like
 * the updates'.  Slurm offers no update of a node's features on
 * condition (update_node(), src/slurmctld/node_mgr.c, 22.05.8 to 26.05.3,
 * replaces both lists of every node named), so a window remains: an
 * admin's update of a node's features that slurmctld applies after it
 * packed the load the carrier read that node from and before it applies
 * the carrier's update of it is overwritten, and read as the site's at
 * the next load of every node.  With single loads that window is one
 * load's answer and one update (for an update of several nodes, the
 * loads of the nodes after that node too); with the round's load it is
 * the time from that load to the update: the round's earlier updates and
 * the budget's rests. */
void pace_send_nodes(struct thread *r, const struct carry_update *ups, size_t n,
		     bool *ok, struct refilter_stats *stats);

#endif
