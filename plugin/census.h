/*
 * census.h - the distinct requests of the pending jobs, in all and per
 * user, for the caps on them (MaxPendingRequests,
 * MaxPendingRequestsPerUser in extra.conf; doc/design.md "Caps").  Each
 * distinct request costs burst_buffer/extra's look an evaluation of the
 * nodes that change, and a set of allowed nodes kept, so their number
 * bounds its work, as Slurm's MaxSubmitJobs bounds jobs.
 *
 * And the pending jobs with preferences of each user, for the cap on them
 * (MaxPreferringJobsPerUser): each costs the guard its tiers' look-ups
 * at each placement attempt.
 *
 * A census is counted from the pending jobs (census_count_jobs(): the
 * look's walk, guard_caps.h) and taken
 * (census_take()); job_submit() and job_modify() count against it, and
 * record the requests they admit since, which the next census holds once
 * the jobs counted after them do (by sequence number).  The plugin's one
 * census, and its lock, are caps.h's.
 */
#ifndef SLURM_EXTRA_CENSUS_H
#define SLURM_EXTRA_CENSUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct census_entry {
	uint32_t uid;
	uint64_t hash; /* of the request's canonical text (xc_text_hash) */
	uint64_t seq;  /* admitted entries: their submission's number */
};

/* A user's pending jobs with preferences. */
struct census_user {
	uint32_t uid;
	size_t preferring;
};

/* One pending job as a census counts it (census_count_jobs). */
struct census_job {
	uint32_t uid;  /* its owner */
	uint64_t hash; /* prefer_census_hash() of its request and tiers */
	bool prefers;  /* it has preferences */
};

struct census {
	struct census_entry *pairs; /* distinct (uid, hash), sorted */
	size_t npairs;
	uint64_t *all; /* distinct hashes, sorted */
	size_t nall;
	struct census_entry *recent; /* admitted since: distinct, not in
					pairs */
	size_t nrecent, cap;
	size_t recent_new;	   /* distinct hashes in recent, not in all */
	struct census_user *users; /* with preferring jobs, sorted by uid */
	size_t nusers;
	struct census_entry *recent_prefer; /* jobs with preferences admitted
					       since (uid, seq; hash 0):
					       one each, not distinct */
	size_t nrecent_prefer, cap_prefer;
	uint64_t seq; /* the last admitted entry's number (both
			      kinds) */
	bool valid;   /* counted from loaded jobs: the caps apply */
};

/* Counts the census of `jobs` (n of them: every job the caps count,
 * each once) into *fresh, valid.  -1 when out of memory (*fresh then
 * empty).  n log n. */
int census_count_jobs(const struct census_job *jobs, size_t n,
		      struct census *fresh);

/* Makes *fresh (census_count_jobs(); emptied) the census of `c`, and forgets the
 * entries admitted up to `upto` (read before the jobs were loaded: the
 * jobs hold them, or Slurm refused them).  Under the lock; the entries
 * admitted since are those of the submissions since the walk began (at
 * most GUARD_CENSUS_MARGIN_S seconds before it, guard_caps.h), and no more
 * than the caps allow (sorted: k log k).  Out of memory, `c` is left without
 * caps until the next count. */
void census_take(struct census *c, struct census *fresh, uint64_t upto);

/* Forgets the census (its count failed): until the next one nothing is
 * refused (census_admit). */
void census_invalidate(struct census *c);

/* Whether user `uid` may have one more pending job with the request whose
 * canonical text hashes to `hash`: always when the user has such a job
 * already, else when neither cap is reached (`max_total` distinct
 * requests in all, `max_user` for the user; 0: no cap), and always while
 * there is no valid census.  0 when admitted
 * (recorded, if new), 1 when a cap is reached (`why` says which, with its
 * setting), -1 when out of memory. */
int census_admit(struct census *c, uint32_t uid, uint64_t hash,
		 size_t max_total, size_t max_user, char *why, size_t size);

/* Whether user `uid` may have one more pending job with preferences (a
 * submission with some, or a change giving a job some): when the user
 * has fewer than `max_user` such jobs pending (0: no cap), counted from
 * the census and those admitted since; always while there is no valid
 * census.  0 when admitted (recorded), 1 when the cap is reached (`why`
 * says so, with its setting, MaxPreferringJobsPerUser), -1 when out of
 * memory.  Linear in the entries admitted since the census (at most the
 * cap for each user). */
int census_admit_prefer(struct census *c, uint32_t uid, size_t max_user,
			char *why, size_t size);

/* Frees the census and empties it. */
void census_free(struct census *c);

#endif
