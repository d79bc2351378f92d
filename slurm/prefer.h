/*
 * prefer.h - a job's preferences (`--extra-prefer`, tiers strongest first,
 * and `--extra-prefer-wait`): the request it is filtered by in a round,
 * its *effective request* (doc/preferences.md "Preferences").  job_submit()
 * picks it at submission, the thread at each round, `slurm-extra why
 * --job` shows the tiers; everything after (the filter, the carriers, the
 * check at start) works on that text as on any request.  Slurm's
 * headers for its constants; libslurm for prefer_wait_read() alone.
 *
 * The rule: a job with request R and preferences P1..Pn is filtered by
 * "(R)&(Pi)" for the strongest tier i that some node satisfies (a node
 * the user did not exclude) while its wait lasts, and by R after:
 *   - with a wait W (seconds), the wait lasts while now < EligibleTime + W
 *     (EligibleTime: when Slurm last made the job eligible, at submission
 *     or at the release of a hold; saved by slurmctld across restarts).
 *     A job not eligible yet (held, dependent, or released and not yet
 *     looked at by the scheduler: Slurm zeroes EligibleTime at a hold and
 *     at a release, and sets it at its next look) has not begun its wait:
 *     it keeps the narrowing, which reads no clock, and its wait counts
 *     whole from the EligibleTime Slurm gives it, as Slurm's own --prefer
 *     applies once the job is eligible (the caller tells eligibility:
 *     ctld/guard_tiers.h);
 *   - with no wait (W 0, the default: Slurm's --prefer meaning), a tier
 *     counts only while one of its nodes is free (idle or mixed, neither
 *     drained nor down), and the narrowing lasts PREFER_NOW_S at most
 *     from EligibleTime, so that a free node the job cannot use (a
 *     feature it lacks, too few CPUs) delays it that long at most; a job
 *     not eligible yet (held, dependent) is not narrowed.
 * The nodes a tier counts are those in the job's partitions that its
 * user did not exclude (prefer_nodes.usable).
 * A tier that is not a valid request narrows nothing and is skipped.
 */
#ifndef SLURM_EXTRA_PREFER_H
#define SLURM_EXTRA_PREFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "job_state.h"
#include "xc.h"

/* How long a preference with no wait may narrow a job (s). */
#define PREFER_NOW_S 30

/* The SPANK plugin's variables in job_desc->spank_job_env (spank_extra.c
 * sets them with spank_job_control_setenv(): the client's
 * spank_set_job_env() keeps the name as it is, src/sbatch/opt.c): the
 * tiers, each ended by PREFER_SEP, and the wait in seconds. */
#define PREFER_ENV "SLURM_EXTRA_PREFER"
#define PREFER_WAIT_ENV "SLURM_EXTRA_PREFER_WAIT"
#define PREFER_REFUSED_ENV "SLURM_EXTRA_PREFER_REFUSED"
#define PREFER_VAR PREFER_ENV "="
#define PREFER_REFUSED_VAR PREFER_REFUSED_ENV "="
#define PREFER_WAIT_VAR PREFER_WAIT_ENV "="
#define PREFER_SEP '\036' /* ASCII RS: no valid request holds it */

/* The longest wait (s): a year.  Slurm's UNLIMITED is refused: a
 * preference waited for without end is a request ("R&P"). */
#define PREFER_MAX_WAIT (365L * 86400)

/* The longest text of tiers an update or a submission may carry
 * (bytes): SX_MAX_PREFER tiers of `max_len` bytes (the request limit,
 * xc_limits.max_request_length), each with its PREFER_SEP.  Longer is
 * refused before anything is copied (Slurm unpacks strings up to 1 GiB). */
#define PREFER_TIERS_MAX(max_len) ((size_t)SX_MAX_PREFER * ((max_len) + 1))
/* The longest wait text read (bytes): a number of seconds. */
#define PREFER_WAIT_MAX_LEN 32

/* The end of time, where an EligibleTime plus a wait saturates. */
#define PREFER_TIME_MAX ((time_t)(sizeof(time_t) == 8 ? INT64_MAX : INT32_MAX))

/* What a round picked for a job with preferences. */
struct prefer_pick {
	unsigned tier; /* 1..n: the tier narrowing it; 0: the request alone */
	size_t nodes;  /* usable nodes satisfying the request and that tier,
			  free or not */
	time_t until;  /* when the narrowing ends at the latest: EligibleTime
			  plus the wait (or PREFER_NOW_S); 0 when the job is
			  not eligible yet (held) */
	bool waiting;  /* the wait (or PREFER_NOW_S) lasts, whatever the
			  tier: with no wait, the free nodes matter */
};

/* Counts tier `tier` (0-based) of a job for prefer_pick_tiers(): *nodes
 * its usable nodes satisfying "(R)&(P)", *free_nodes those of them free
 * now.  1 when counted, 0 when the tier narrows nothing (not a valid
 * request, or longer than the caller takes), -1 when out of memory. */
typedef int (*prefer_count_fn)(void *ctx, unsigned tier, size_t *nodes,
			       size_t *free_nodes);

/*
 * The rule itself (above), for a caller that counts each tier's nodes its
 * own way (the guard, over its words: ctld/guard_tiers.c):
 * *pick for a job with state `st`, eligible at `eligible` (0: not yet),
 * at `now`, tier i counted by `count` (tiers strongest first, the first
 * that counts a node picked: with a wait, any usable node; with none, a
 * free one).  0, or -1 when out of memory.  At most st->n_prefer calls.
 */
int prefer_pick_tiers(const struct sx_job_state *st, time_t eligible,
		      time_t now, prefer_count_fn count, void *ctx,
		      struct prefer_pick *pick);

/* Whether the wait of a job with state `st`, eligible at `eligible` (0:
 * not yet), lasts at `now` (prefer_pick_tiers()'s first test): with a wait,
 * while now < eligible + wait, or while not eligible; with none, for
 * PREFER_NOW_S from eligible, and never while not eligible.  Without it
 * a job goes by its request alone. */
bool prefer_waiting(const struct sx_job_state *st, time_t eligible, time_t now);

/* When the wait of a job with state `st`, eligible at `eligible`, ends:
 * eligible + its wait (PREFER_NOW_S with none), saturated at
 * PREFER_TIME_MAX; 0 when not eligible yet (`eligible` 0). */
time_t prefer_deadline(const struct sx_job_state *st, time_t eligible);

/* The hash a job counts by in the caps on distinct pending requests
 * (MaxPendingRequests, doc/design.md "Caps"): of its request's canonical
 * text `canonical`, with its tiers (st: may be NULL) folded in, so that
 * jobs with the same request and other tiers count as other requests
 * (each tier is evaluated, and kept, as a request of its own).  Without
 * tiers, xc_text_hash(canonical). */
uint64_t prefer_census_hash(const char *canonical,
			    const struct sx_job_state *st);

/* "(R)&(P)": request `request` narrowed by preference `tier`, malloc'd;
 * NULL when out of memory. */
char *prefer_compose(const char *request, const char *tier);

/* Whether node feature `name` is one that job_submit/extra's thread
 * carried a job with state `st` by (an earlier release's; doc/guard.md "The
 * guard alone"): the
 * feature of its request, or of one of its preferences' "(R)&(P)"
 * (sx_feature_name() of the hash of the canonical text, slurm/carrier.h),
 * each parsed with `limits` (NULL: the defaults).  A user's own name of
 * the plugin's shape is none of those, but by a hash's chance.  1 when it
 * is, 0 when it is not (an invalid text names none), -1 when out of
 * memory.  At most 1 + SX_MAX_PREFER parses. */
int prefer_carried_by(const struct sx_job_state *st, const xc_limits_t *limits,
		      const char *name);

/* The SPANK environment's entries read for the preferences, at most: a
 * job_desc's holds the few variables of the site's SPANK plugins, and
 * Slurm unpacks as many as an RPC holds. */
#define PREFER_ENV_MAX_ENTRIES 1024

/* The value of variable `name` ("NAME=") in the first
 * PREFER_ENV_MAX_ENTRIES entries of `env` (`n` of them), borrowed; NULL
 * when none.  What prefer_from_env() and prefer_change_from_env() read. */
const char *prefer_env_value(char **env, unsigned n, const char *name);

/* Reads the preferences from a job's SPANK environment (`env`, `n`
 * entries) into st->prefer, st->n_prefer and st->wait.  0 when there are
 * none or they were read; 1 when they are not acceptable, with the
 * reason in why[size] (tiers longer than PREFER_TIERS_MAX(max_len), more
 * than SX_MAX_PREFER of them, a bad wait, a wait alone, or the client
 * refused one: PREFER_REFUSED_VAR); -1 when out of memory.  `max_len` is
 * the request limit (bytes); the caller checks each tier as a request. */
int prefer_from_env(char **env, unsigned n, size_t max_len,
		    struct sx_job_state *st, char *why, size_t size);

/*
 * An owner's change of a pending job's preferences (`slurm-extra prefer`,
 * doc/preferences.md "Preferences", "Changing them"): an update whose SPANK
 * environment holds PREFER_VAR (the new tiers, each ended by PREFER_SEP;
 * empty: none) or PREFER_WAIT_VAR (the new wait in seconds), or both.
 * Slurm's _update_job() reads no SPANK environment (src/slurmctld/
 * job_mgr.c, 22.05-26.05), and its RPC carries the whole job_desc
 * (_pack_job_desc_msg(), src/common/slurm_protocol_pack.c), so only
 * job_modify() sees them.
 */
struct prefer_change {
	char *tiers; /* the new tiers as sent (malloc'd), "" for none; NULL:
			the job's are kept */
	long wait;   /* the new wait (s); -1: the job's is kept */
};

/* Reads a change from an update's SPANK environment (`env`, `n` entries)
 * into `c` (emptied first: tiers NULL, wait -1).  0 when the update holds
 * none; 1 when it holds one, read; 2 when it is not acceptable (tiers
 * longer than PREFER_TIERS_MAX(max_len), more than SX_MAX_PREFER of them,
 * a mangled list, a bad wait), the reason in why[size]; -1 when out of
 * memory.  What is copied is bounded by PREFER_TIERS_MAX(max_len), the
 * time by that and the count of entries.  The tiers are not parsed here:
 * the caller checks each as a request. */
int prefer_change_from_env(char **env, unsigned n, size_t max_len,
			   struct prefer_change *c, char *why, size_t size);

/* Applies change `c` to state `st` (its tiers replaced when c->tiers,
 * none for ""; its wait when c->wait >= 0; a state left without tiers has
 * no wait).  0, or -1 when out of memory (`st` then as it was). */
int prefer_change_apply(const struct prefer_change *c, struct sx_job_state *st);

/* Frees what `c` holds and empties it. */
void prefer_change_free(struct prefer_change *c);

/* Reads `text`, a duration in Slurm's time formats (slurm_time_str2secs(),
 * src/common/parse_time.c: minutes, minutes:seconds, hours:minutes:seconds,
 * days-hours[:minutes[:seconds]]), as --extra-prefer-wait: *secs its
 * seconds, at most PREFER_MAX_WAIT.  0, or -1 with the reason in
 * why[size] (UNLIMITED: a preference waited for without end is a request;
 * not a duration; too long).  Needs libslurm. */
int prefer_wait_read(const char *text, long *secs, char *why, size_t size);

#endif
