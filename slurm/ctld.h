/*
 * ctld.h - what the plugins ask of the slurmctld they run in: for the
 * feature carrier (an earlier release's; doc/guard.md "The guard alone"), when
 * it last read
 * slurm.conf, whether a NodeFeatures plugin owns the nodes' features, and
 * a node update of features; for Carrier=guard ("The guard alone"),
 * whether BurstBufferType names burst_buffer/extra and the job records
 * that plugin lends.
 */
#ifndef SLURM_EXTRA_CTLD_H
#define SLURM_EXTRA_CTLD_H

#include <stdbool.h>
#include <time.h>

#include "guard_api.h"
#include "slurm_compat.h"

/* slurm_conf.last_update of this process: the time slurm.conf was last
 * read (init_slurm_conf(), src/common/read_config.c, at slurmctld's start
 * and at every `scontrol reconfigure`, 22.05-26.05; slurm.h's
 * slurm_conf_t has it first in every version).  libslurm exports
 * `slurm_conf` but no public header declares it: looked up once
 * (RTLD_DEFAULT: slurmctld's own copy), read atomically.  0 when there is
 * none.  Safe in any thread; under slurmctld's config lock (job_submit())
 * it cannot change meanwhile. */
time_t sx_conf_time(void);

/* Whether the comma-separated plugin list `list` (NULL: none) names
 * `word`, alone or after a '/' ("burst_buffer/extra" names "extra"), in
 * any case, as slurm.conf's lists are read. */
bool sx_list_has_word(const char *list, const char *word);

/* Inside slurmctld: whether its BurstBufferType names burst_buffer/extra
 * (slurm_conf.bb_type, read as sx_conf_time() reads slurm_conf: slurm.h's
 * slurm_conf_t is the record libslurm exports).  slurmctld stops at start
 * when a plugin BurstBufferType names cannot load (bb_g_init(), fatal()),
 * so where it runs and this says so, the guard runs.  Read it where
 * slurmctld holds its configuration still (a plugin's init()).  false in
 * a process without slurm_conf. */
bool sx_guard_configured(void);

/* Inside slurmctld, with burst_buffer/extra loaded: the fields of a job
 * record it lends job_submit/extra (guard_api.h), looked up once with
 * dlopen(RTLD_NOLOAD) (a plugin's symbols are its own); NULL when it is
 * not loaded or is of another build. */
const struct sx_guard_api *sx_guard_api(void);

/* The same, looked up at each call, for job_submit/extra's init(): at
 * slurmctld's start burst_buffer/extra loads after it (22.05.8
 * src/slurmctld/controller.c: job_submit_g_init() before bb_g_init()), so
 * NULL then; at a reload in place (22.05's reconfigure that changes
 * JobSubmitPlugins), the one loaded. */
const struct sx_guard_api *sx_guard_api_now(void);

/* Whether slurmctld runs a NodeFeatures plugin (NodeFeaturesPlugins in
 * its configuration, slurm_load_ctl_conf()): such a plugin owns the
 * nodes' features and the carrier must leave them alone.  0 with
 * *plugins set, -1 when the configuration cannot be read (the Slurm API:
 * never under slurmctld's locks). */
int sx_node_features_plugins(bool *plugins);

/* Loads node `name` alone (slurm_load_node_single(), SHOW_ALL) into *msg
 * (the caller frees it: sx_free_node_info_msg()): slurmctld packs that
 * one node under its locks (pack_one_node(), src/slurmctld/node_mgr.c,
 * which looks the name up with find_node_record(): one name, never a
 * hostlist; 22.05.8 to 26.05.3), and answers no record for a node it
 * does not know.  SLURM_SUCCESS, or Slurm's error.  The Slurm API: never
 * under slurmctld's locks. */
int sx_load_node_one(const char *name, node_info_msg_t **msg);

/* Loads every node (slurm_load_node(), SHOW_ALL) into *msg (the caller
 * frees it: sx_free_node_info_msg()) unless no node changed since
 * `since` (a load's last_update; 0: load them all): then
 * SLURM_NO_CHANGE_IN_DATA and *msg NULL, which slurmctld answers without
 * packing a node (_slurm_rpc_dump_nodes(), src/slurmctld/proc_req.c,
 * 22.05.8 and 24.11.7: when since - 1 >= last_node_update, the time of
 * the last change of any node record, which update_node() sets as job
 * allocations, completions and node state changes do).  SLURM_SUCCESS,
 * SLURM_NO_CHANGE_IN_DATA, or Slurm's error.  The Slurm API: never under
 * slurmctld's locks. */
int sx_load_nodes_since(time_t since, node_info_msg_t **msg);

/* Sets the available features of the nodes `names` (a hostlist) to
 * `avail` and their active ones to `act` (each comma-separated; "" for
 * none) in one update (slurm_update_node(); update_node() in
 * src/slurmctld/node_mgr.c, 22.05.8 to 26.05.3, gives every node named
 * the same two lists, checks each node's new active list against its new
 * available one first and refuses the update, ESLURM_ACTIVE_FEATURE_NOT_SUBSET,
 * when an active feature is not available (_valid_features_act()), then
 * sets the available list and the active one).  SLURM_SUCCESS, or Slurm's
 * error (slurm_get_errno()).  The Slurm API: never under slurmctld's
 * locks. */
int sx_update_node_features(const char *names, const char *avail,
			    const char *act);

#endif
