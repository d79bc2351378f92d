/*
 * plugin_config.h - the plugins' optional configuration file.
 *
 * `extra.conf` beside slurm.conf (or the file named by $SLURM_EXTRA_CONF):
 * one `Key=Value` a line, keys in any case, '#' starts a comment.
 *
 *   RefreshInterval=1       seconds between re-filtering rounds (0.1-60)
 *   MaxRequestLength=1024   longest --extra request, bytes (as Slurm)
 *   MaxDepth=1024           deepest parentheses (1 to 1024: the stack bound)
 *   MaxExtraLength=65536    longest node Extra read, bytes; longer: skipped
 *   Carrier=guard           how the allowed nodes reach the jobs:
 *                           guard, features or exclusions (doc/thread.md
 *                           "Carriers"; doc/guard.md "The guard alone");
 *                           by default
 *                           guard where BurstBufferType names
 *                           burst_buffer/extra, else features
 *                           (plugin_config_carrier())
 *   UpdateBudget=1000       ms of job updates the thread may send a second
 *                           (1-1000; doc/thread.md "The update budget")
 *   MaxPendingRequests=10000        distinct requests of pending jobs
 *   MaxPendingRequestsPerUser=1000  the same per user (0: no cap;
 *                           doc/design.md "Caps")
 *   MaxPreferringJobsPerUser=1000  pending jobs with preferences of one
 *                           user (0: no cap; doc/design.md "Caps")
 *   MallocMmapThreshold=32768  glibc's mmap threshold in slurmctld, set in
 *                           filter mode (0-33554432 bytes, 0: left as it
 *                           is; doc/thread.md "Memory")
 *   MallocTrimInterval=10  at most this often (s), after a round that
 *                           loaded the jobs and found slurmctld grown,
 *                           glibc's free memory is given back with
 *                           malloc_trim() (0-3600, 0: never; filter mode;
 *                           doc/thread.md "Memory")
 * Node Extra is read to json-c's depth 32, as Slurm reads it: no setting.
 */
#ifndef SLURM_EXTRA_PLUGIN_CONFIG_H
#define SLURM_EXTRA_PLUGIN_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#define UPDATE_BUDGET_DEFAULT 1000 /* ms a second: no pacing */
#define UPDATE_BUDGET_MAX 1000
#define MAX_REQUESTS_DEFAULT 10000
#define MAX_USER_REQUESTS_DEFAULT 1000
#define MAX_REQUESTS_MAX 1000000
#define MAX_PREFER_JOBS_DEFAULT 1000
#define MMAP_THRESHOLD_DEFAULT 32768
#define MMAP_THRESHOLD_MAX 33554432 /* glibc's largest (64-bit) */
#define TRIM_INTERVAL_DEFAULT 10
#define TRIM_INTERVAL_MAX 3600

#include "xc.h"

struct plugin_config {
	double refresh_interval;  /* seconds */
	size_t update_budget;	  /* ms of update RPCs in any second */
	size_t max_requests;	  /* distinct pending requests (0: no cap) */
	size_t max_user_requests; /* the same per user (0: no cap) */
	size_t max_prefer_jobs;	  /* pending jobs with preferences of one
				     user (0: no cap) */
	size_t mmap_threshold;	  /* bytes (0: glibc's left alone) */
	size_t trim_interval;	  /* s between malloc_trim()s (0: none) */
	bool carrier_set;      /* Carrier= was read (plugin_config_carrier()) */
	bool carrier_features; /* Carrier=features (the default without
				     burst_buffer/extra): the
				     nodes a request allows reach its jobs as
				     a node feature (doc/thread.md
				     "Carriers"); else Carrier=exclusions,
				     each job's ExcNodeList, or: */
	bool carrier_guard;    /* Carrier=guard: burst_buffer/extra alone
				     keeps jobs off, inside slurmctld (its
				     guard at placement and its look at the
				     plans); job_submit/extra only checks and
				     records requests, and runs no thread
				     (doc/guard.md "The guard alone") */
	xc_limits_t limits;
	char path[4096]; /* the file read (or looked for) */
	bool found;	 /* the file existed */
};

/* The carrier where extra.conf names none (cfg->carrier_set false): guard
 * where BurstBufferType names burst_buffer/extra (`guard_loaded`: what
 * job_submit/extra reads in slurmctld's configuration,
 * sx_guard_configured(); burst_buffer/extra itself, loaded; `slurm-extra
 * doctor`, slurmctld's answer), else features, the default of
 * plugin_config_defaults() (doc/guard.md "The guard alone"). */
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
