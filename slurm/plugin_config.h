/*
 * plugin_config.h - the plugins' optional configuration file.
 *
 * `extra.conf` beside slurm.conf (or the file named by $SLURM_EXTRA_CONF):
 * one `Key=Value` a line, keys in any case, '#' starts a comment.
 *
 *   MaxRequestLength=1024   longest --extra request, bytes (as Slurm)
 *   MaxDepth=1024           deepest parentheses (1 to 1024: the stack bound)
 *   MaxExtraLength=65536    longest node Extra read, bytes; longer: skipped
 *   Carrier=guard           the only carrier: burst_buffer/extra keeps the
 *                           jobs off at placement (doc/guard.md "The guard
 *                           alone"); its default where BurstBufferType
 *                           names it (plugin_config_carrier())
 *   MaxPendingRequests=10000        distinct requests of pending jobs
 *   MaxPendingRequestsPerUser=1000  the same per user (0: no cap;
 *                           doc/design.md "Caps")
 *   MaxPreferringJobsPerUser=1000  pending jobs with preferences of one
 *                           user (0: no cap; doc/design.md "Caps")
 * The settings of an earlier release's filtering thread (RefreshInterval,
 * UpdateBudget, MallocMmapThreshold, MallocTrimInterval, Carrier=features
 * and Carrier=exclusions) are ignored, each said as a bad line: an
 * extra.conf of before still loads (doc/install.md "Upgrading").
 * Node Extra is read to json-c's depth 32, as Slurm reads it: no setting.
 */
#ifndef SLURM_EXTRA_PLUGIN_CONFIG_H
#define SLURM_EXTRA_PLUGIN_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#define MAX_REQUESTS_DEFAULT 10000
#define MAX_USER_REQUESTS_DEFAULT 1000
#define MAX_REQUESTS_MAX 1000000
#define MAX_PREFER_JOBS_DEFAULT 1000

#include "xc.h"

struct plugin_config {
	size_t max_requests;	  /* distinct pending requests (0: no cap) */
	size_t max_user_requests; /* the same per user (0: no cap) */
	size_t max_prefer_jobs;	  /* pending jobs with preferences of one
				     user (0: no cap) */
	bool carrier_guard;	  /* burst_buffer/extra keeps jobs off, inside
			       slurmctld (its guard at placement and its look
			       at the plans); job_submit/extra only checks
			       and records requests (doc/guard.md "The guard
			       alone"); false where it is not loaded
			       (plugin_config_carrier()) */
	xc_limits_t limits;
	char path[4096]; /* the file read (or looked for) */
	bool found;	 /* the file existed */
};

/* The carrier: the guard where BurstBufferType names burst_buffer/extra
 * (`guard_loaded`: what job_submit/extra reads in slurmctld's
 * configuration, sx_guard_configured(); burst_buffer/extra itself,
 * loaded; `slurm-extra doctor`, slurmctld's answer), else none
 * (doc/guard.md "The guard alone"). */
void plugin_config_carrier(struct plugin_config *cfg, bool guard_loaded);

/* Fills `cfg` with the defaults. */
void plugin_config_defaults(struct plugin_config *cfg);

/* The configuration file's path into `buf`: $SLURM_EXTRA_CONF, else
 * extra.conf in the directory of $SLURM_CONF, else
 * /etc/slurm/extra.conf. */
void plugin_config_path(char *buf, size_t size);

/* Reads the file at `path` into `cfg` (defaults first).  A missing file
 * leaves the defaults.  Each bad line is reported by calling `complain`
 * (may be NULL) with a one-line message, and leaves that setting at its
 * default; a file that is there but cannot be read (no permission, a
 * directory) is reported the same way, as one bad line.  Returns the
 * number of bad lines. */
int plugin_config_read(struct plugin_config *cfg, const char *path,
		       void (*complain)(const char *message));

#endif
