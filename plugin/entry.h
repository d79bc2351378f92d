/*
 * entry.h - what job_submit_extra.c (init, fini, job_submit) and modify.c
 * (job_modify) share: the settings, who filters, and the refusals, the
 * parsing and the caps both apply (entry.c).
 * Private to plugin/.
 */
#ifndef SLURM_EXTRA_ENTRY_H
#define SLURM_EXTRA_ENTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "slurm_compat.h"
#include "plugin_config.h"
#include "job_state.h"
#include "guard_api.h"
#include "xc.h"

/* Whether the plugin runs (from init() to fini()), the settings init()
 * read (extra.conf, plugin_config.h; constant while it runs) and
 * slurmctld's uid (SlurmUser).  Set by init() and fini(), which slurmctld
 * serialises with job_submit() and job_modify() (its job_submit context
 * lock). */
extern bool entry_on;
extern const char plugin_type[]; /* job_submit_extra.c's, for the log */
extern struct plugin_config entry_cfg;
extern uid_t entry_self;

/* init()'s carrier in `cfg` (read from extra.conf): the guard
 * (cfg->carrier_guard) where BurstBufferType names burst_buffer/extra,
 * told to it when it is loaded already (set_alone, guard_api.h: a 22.05
 * reload in place; a guard that cannot read Slurm's records stops
 * slurmctld at its load instead, ctld/guard_slurm.c); else none, and
 * only Slurm's own filter may run (entry_filter()) (doc/guard.md "The
 * guard alone"). */
void entry_carrier(struct plugin_config *cfg);

/* Who filters the jobs with a request, for a plugin with settings `cfg`
 * (doc/guard.md "The guard alone"): burst_buffer/extra at each placement
 * (cfg->carrier_guard), else Slurm itself by `extra` (23.11+
 * SchedulerParameters=extra_constraints: sx_slurm_filters_extra(); a
 * reconfigure restarts slurmctld there), else nobody: then every
 * request is refused (NO_FILTER_HERE). */
enum entry_filter {
	FILTER_NONE,
	FILTER_GUARD,
	FILTER_SLURM
};
enum entry_filter entry_filter(const struct plugin_config *cfg);

/* The refusal of a request (ESLURM_NOT_SUPPORTED) where nothing would
 * keep its job off the nodes that do not satisfy it (entry_filter()
 * FILTER_NONE): a job that ran anywhere would be a wrong answer. */
#define NO_FILTER_HERE                                                         \
	"--extra: nothing filters by it here: this slurmctld runs neither BurstBufferType=burst_buffer/extra nor Slurm's own SchedulerParameters=extra_constraints (23.11+)"

/* Sets *err_msg (Slurm's allocator; `err_msg` may be NULL: 22.05's
 * job_modify() has none) to `text` and returns `rc`. */
int refuse(char **err_msg, int rc, const char *text);

/* Replaces a job_desc string with a copy of `text` from Slurm's allocator
 * (Slurm frees it); -1 when out of memory. */
int set_desc_string(char **field, const char *text);

/* Replaces a job_desc string with the AdminComment text of state `st`
 * (sx_job_state_format(), job_state.h), from Slurm's allocator; -1 when
 * out of memory. */
int set_desc_state(char **field, const struct sx_job_state *st);

/* Parses `request` with extra.conf's limits: the expression, which the
 * caller frees with xc_expr_destroy(); or NULL and *rc set after refusing
 * it (ESLURM_INVALID_FEATURE, the rendered error in *err_msg; logged with
 * the request escaped). */
xc_expr_t *parse_or_refuse(const char *request, uint32_t uid, char **err_msg,
			   int *rc);

/* The request limit in bytes (extra.conf's MaxRequestLength, the default
 * while the plugin is not running): what bounds the preferences read from
 * a job_desc (prefer.h PREFER_TIERS_MAX). */
size_t request_limit(void);

/* Checks each preference of `st` as a request (parse_or_refuse(), with
 * extra.conf's limits; `uid`, the caller's, goes into the log line of an
 * invalid one): SLURM_SUCCESS, or the refusal of the first that is not
 * one (ESLURM_INVALID_FEATURE), its rendered error in *err_msg (Slurm's
 * allocator, replaced; `err_msg` may be NULL) after "--extra-prefer
 * (preference N): " (doc/preferences.md "Preferences"). */
int check_tiers(const struct sx_job_state *st, uint32_t uid, char **err_msg);

/* The caps on distinct pending requests (census.h, doc/design.md
 * "Caps"): SLURM_SUCCESS when user `uid` (the job's owner) may have one
 * more job with a request hashed `hash` (prefer_census_hash() of the
 * request's text as given and its tiers, as the look counts them:
 * guard_caps.h), else the refusal (ESLURM_ACCOUNTING_POLICY, as Slurm's
 * MaxSubmitJobs; *err_msg says which cap). */
int admit_hash(uint64_t hash, uint32_t uid, char **err_msg);

/* The cap on pending jobs with preferences per user
 * (MaxPreferringJobsPerUser, census.h, doc/design.md "Caps"), in both
 * modes: SLURM_SUCCESS when user `uid` (the job's owner) may have one
 * more, else the refusal (ESLURM_ACCOUNTING_POLICY, as Slurm's
 * MaxSubmitJobs; *err_msg names the setting; `err_msg` may be NULL). */
int admit_prefer(uint32_t uid, char **err_msg);

/* The refusal of preferences (ESLURM_NOT_SUPPORTED) where Slurm filters
 * by `extra` itself and burst_buffer/extra is not loaded: nothing would
 * keep them (doc/preferences.md "Preferences"). */
#define PREFER_NEEDS_GUARD                                                     \
	"--extra-prefer: where Slurm filters by --extra itself (SchedulerParameters=extra_constraints), preferences need BurstBufferType=burst_buffer/extra, which this slurmctld does not run"

/* The SPANK option's variable: _SLURM_SPANK_OPTION_<plugin>_<option>
 * (spank_extra.c), where job_submit() finds a request from a client
 * without `--extra`. */
#define SPANK_VAR "_SLURM_SPANK_OPTION_extra_extra="

/* A submitted job's request, borrowed from job_desc: its `extra` (23.02+
 * clients' --extra), else the SPANK option's variable; NULL when it has
 * none. */
const char *job_request(const job_desc_msg_t *job_desc);

/* The entry points slurmctld calls (job_submit_extra.c). */
int init(void);
int fini(void);
int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg);

/* The entry point slurmctld calls for an update (modify.c): three
 * arguments on 22.05 (src/slurmctld/job_submit.c: no err_msg), four from
 * 23.02. */
#if SX_MODIFY_HAS_ERR_MSG
int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid,
	       char **err_msg);
#else
int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid);
#endif

/* job_modify() (modify.c), by the rules of doc/guard.md "Updates". */
/* Returns SLURM_SUCCESS, or a refusal with its text in *err_msg (Slurm's
 * allocator; `err_msg` may be NULL, as 22.05 passes none). */
int modify(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg);

/* The same, for an update of job record `job_ptr` (as job_modify() is
 * handed it) whose fields Carrier=guard reads and writes through `api`
 * (burst_buffer/extra's, sx_guard_api(), slurm/ctld.h; NULL, or job_ptr
 * NULL: none): modify() is this with neither. */
int modify_as(job_desc_msg_t *job_desc, const struct sx_guard_api *api,
	      void *job_ptr, uint32_t submit_uid, char **err_msg);

/* Whether burst_buffer/extra reads and keeps the job's state alone
 * (Carrier=guard): it filters alone (entry_filter() FILTER_GUARD), or
 * where Slurm filters by `extra` itself it picks the preferences at each
 * placement (doc/preferences.md "Preferences"). */
static inline bool guard_keeps(void)
{
	return entry_on && entry_cfg.carrier_guard;
}

#endif
