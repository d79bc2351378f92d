/*
 * guard_api.h - what burst_buffer/extra (ctld/, the one wing that knows
 * slurmctld's records) lends job_submit/extra beside it in the same
 * slurmctld (built without Slurm's internal headers): the few fields of
 * a job record that Carrier=guard reads and writes in job_modify()
 * (doc/guard.md "The guard alone").  burst_buffer/extra exports one
 * object of this type, SX_GUARD_API; job_submit/extra finds it with
 * dlopen(RTLD_NOLOAD) and dlsym() (sx_guard_api(), ctld.h).  Each function
 * of a job record takes it as job_modify() is handed it, and runs under
 * slurmctld's job write lock, as job_modify() does; `census` runs under
 * the job read lock at least (job_submit()'s), which keeps the look,
 * which writes it under the write lock, out.
 */
#ifndef SLURM_EXTRA_GUARD_API_H
#define SLURM_EXTRA_GUARD_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* burst_buffer/extra's file, as slurmctld loads it, and the object. */
#define SX_GUARD_SONAME "burst_buffer_extra.so"
#define SX_GUARD_API "sx_guard_record_api"
/* Raised with every change of the struct: an object of another version
 * (a plugin of another build) is not used. */
#define SX_GUARD_API_VERSION 7

/* A pending job with a request as the look counted it, for the caps on
 * distinct pending requests (doc/guard.md "The guard alone";
 * doc/design.md "Caps"). */
struct sx_guard_census_job {
	uint32_t uid;  /* its owner */
	uint64_t hash; /* prefer_census_hash() of its request's text as the
			  guard reads it, with its tiers */
	bool prefers;  /* it has preferences */
};

struct sx_guard_api {
	unsigned version; /* SX_GUARD_API_VERSION */
	/* the job's AdminComment, borrowed; NULL for none */
	const char *(*admin_comment)(const void *job_ptr);
	/* sets it to a copy of `text` (Slurm's allocator; NULL: none), as
	 * an update of it would, and stamps the job table changed; 0, or
	 * -1 */
	int (*set_admin_comment)(void *job_ptr, const char *text);
	/* the job's owner */
	uint32_t (*user_id)(const void *job_ptr);
	/* the job's ExcNodeList as Slurm keeps its text, borrowed; NULL for
	 * none */
	const char *(*exc_nodes)(const void *job_ptr);
	/* the job's own Extra (its request where Slurm filters by it,
	 * 23.11+), borrowed; NULL for none, and always on 22.05 */
	const char *(*extra)(const void *job_ptr);
	/* the pending jobs with a request as the look's last whole walk
	 * found them: *jobs (borrowed until the job lock is let go), *n of
	 * them, *walked_at (when the walk began, seconds since the epoch),
	 * *walk (raised at each whole walk; a walk that ran out of memory
	 * counting leaves the one before); -1 before the first */
	int (*census)(const struct sx_guard_census_job **jobs, size_t *n,
		      long long *walked_at, uint64_t *walk);
	/* job_submit/extra's carrier, at its init(): whether the guard
	 * filters alone (Carrier=guard) from now; slurmctld's reconfigure
	 * lock held (22.05 reloads job_submit/extra in place when a
	 * reconfigure changes JobSubmitPlugins, never burst_buffer/extra,
	 * which read extra.conf at its own load).  False, nothing changed,
	 * when it cannot filter alone (it stood aside at its load) */
	bool (*set_alone)(bool alone);
	/* job_submit/extra's job_modify(), before the update applies: the
	 * job queued for the look's next walk of what changed, which sees
	 * it updated (ctld/look_queue.h) */
	void (*job_changed)(const void *job_ptr);
};

#endif
