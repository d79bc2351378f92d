/*
 * ctld.h - what the plugins ask of the slurmctld they run in: whether
 * BurstBufferType names burst_buffer/extra and the job records that
 * plugin lends (doc/guard.md "The guard alone").  (Whether Slurm filters
 * by `extra` itself is slurm_compat.h's sx_slurm_filters_extra().)
 */
#ifndef SLURM_EXTRA_CTLD_H
#define SLURM_EXTRA_CTLD_H

#include <stdbool.h>

#include "guard_api.h"
#include "slurm_compat.h"

/* Whether the comma-separated plugin list `list` (NULL: none) names
 * `word`, alone or after a '/' ("burst_buffer/extra" names "extra"), in
 * any case, as slurm.conf's lists are read. */
bool sx_list_has_word(const char *list, const char *word);

/* Inside slurmctld: whether its BurstBufferType names burst_buffer/extra
 * (slurm_conf.bb_type, looked up in this process: slurm.h's slurm_conf_t
 * is the record libslurm exports, no public header declares it).  slurmctld stops at start
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

#endif
