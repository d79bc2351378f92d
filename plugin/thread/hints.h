/*
 * hints.h - what job_modify() saw of the updates by someone else, for the
 * re-filtering thread (doc/thread.md "Updates").
 */
#ifndef SLURM_EXTRA_HINTS_H
#define SLURM_EXTRA_HINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slurm_compat.h"
#include "prefer.h"

/*
 * What an update by someone else (a user, an admin; never the thread)
 * changed, as job_modify() saw it before Slurm applied or refused it
 * (doc/thread.md "Updates").  The thread never acts on a hint alone but
 * for a change of preferences (below): it
 * takes a hint's content only when the job's data it loads afterwards show
 * the update was applied (ExcNodeList equal to what the update set), so a
 * refused update (one Slurm found invalid) changes nothing; and it takes
 * nothing from a caller Slurm may still refuse (22.05: not the owner, root
 * or SlurmUser), whose re-sent list would otherwise tell the plugin's
 * exclusions as the user's.  job_modify() leaves a hint only for an update
 * that sets a field the thread's plan reads.  Every hint also marks its
 * job as changed at `seq`: an update the thread planned from data loaded
 * before `seq` is refused by job_modify() (hints_newer), so the thread
 * never writes back stale exclusions, holds or AdminComments.  A change
 * of preferences (prefer_set) is the exception: Slurm stores none of it,
 * so the thread takes a trusted one as it is (job_modify() takes it only
 * from an update that sets nothing else the plan reads), and a lost one
 * is lost
 * (doc/preferences.md "Preferences", "Changing them").
 */
struct job_hint {
	uint64_t seq;	   /* order of the updates (1, 2, ...) */
	uint32_t id;	   /* the id the update named (job, array or het) */
	uint32_t task;	   /* the array task it named ("123_4"), or NO_VAL */
	uint32_t offset;   /* the het component it named ("123+1"), or NO_VAL */
	uint32_t owner;	   /* the owner of the job it names, as far as
			      job_modify() knows it, when the hint is
			      trusted, else the caller: whose hints it
			      counts among (HINTS_PER_OWNER) and whose urgent
			      asks it spends, and whose jobs its loss makes
			      stale (another user's refused updates spend
			      their own) */
	bool trusted;	   /* the caller may update the job (always from
			    23.02, where Slurm checks before job_modify();
			    on 22.05 its owner, root or SlurmUser); an
			    untrusted hint is kept without its content
			    (hints_add): it only has its job planned */
	bool exc;	   /* the update set ExcNodeList */
	uint64_t exc_hash; /* hostlist_hash() of the list it set (0: told by
			      exc_text instead) */
	uint64_t exc_text; /* xc_text_hash() of the very text it set, for a
			      list not read by name (filter_update_list), or 0 */
	char *user_exc;	   /* the user's own part of it (malloc'd), or NULL
			      when that is the whole list */
	bool hold;	   /* the update held the job (priority 0) */
	bool prefer_set;   /* the update changes the job's preferences
			      (`slurm-extra prefer`, prefer.h): `prefer`
			      says how; the job's data cannot show it, so
			      the thread takes a trusted one as it is */
	uint32_t caller;   /* the uid of the update's caller */
	bool privileged;   /* the caller is root or SlurmUser: the thread
			       takes a hint's content (list, hold, change of
			       preferences) only from them or from the owner
			       of the job it loads (hint_from_owner) */
	struct prefer_change prefer; /* its tiers (malloc'd) and wait */
};

/* The hints of job_modify() that the thread has not taken yet, in order of
 * `seq`, bounded:
 *   - a hint equal to the last one but for its seq (Slurm calls
 *     job_modify() once per record of a whole array with the same update)
 *     only moves the last one's seq on;
 *   - past HINTS_PER_OWNER hints of one owner's jobs, a new one of theirs
 *     is dropped, and that owner's losses record it: the thread's updates
 *     planned before it of that owner's jobs are refused (hints_newer),
 *     and nobody else's;
 *   - past HINTS_MAX hints in all, or HINTS_BYTES of user exclusions and
 *     preferences,
 *     a new hint is dropped and `lost_seq` records it: the thread's
 *     updates planned before it are all refused.
 * Each loss counts in `losses`, and the next round reads the change from
 * the jobs' data: a list that differs from the state's wrote= is taken
 * whole as the user's, so a lost hint costs only which part of it was
 * the plugin's (doc/thread.md "Updates"), or, for a change of
 * preferences, the change itself.  One user's list can be larger
 * than HINTS_BYTES (Slurm's RPCs carry up to 1 GiB): its hint is then
 * dropped, with the same effect. */
#define HINTS_MAX 65536
#define HINTS_PER_OWNER 4096
#define HINTS_BYTES (64u << 20)
struct lh_table; /* json-c's linkhash */
struct hints {
	struct job_hint *v;
	size_t n, cap, bytes;
	uint64_t seq;	   /* the last seq given */
	uint64_t lost_seq; /* the last seq of a hint dropped for all, or 0 */
	uint64_t losses;   /* hints dropped so far, for any owner */
	uint64_t crowded;  /* times the hints reached half a bound (of all,
			      or of an owner's): the thread then takes them
			      at once rather than at the pace of users'
			      asks, before any is lost (thread.c) */
	struct lh_table *owners; /* owner -> struct hints_owner: how many
				    hints each owner's jobs have, the last
				    loss of theirs (NULL until the first) */
};

/* Whether the content of hint `h` may be taken for `job` (loaded after
 * it): its caller is root, SlurmUser or the job's owner.  Whatever names
 * the job (doc/thread.md "Updates"), nobody else's update changes what the
 * plugin keeps of it. */
bool hint_from_owner(const struct job_hint *h, const slurm_job_info_t *job);

/* Adds `h` (its user_exc and prefer.tiers taken over; seq set here) to
 * `hints`; false when
 * it was dropped (bounds or memory: a loss recorded).  An untrusted hint
 * is kept without its content (no list, no hold, no change of
 * preferences):
 * its update is either refused by Slurm or an operator's, whose list the
 * job's data show; it makes nothing stale, and only has its job planned
 * (job_modify() makes none for a job the thread filters). */
bool hints_add(struct hints *hints, struct job_hint *h);

/* Records an update whose job the plugin cannot tell (26.05's SLUID) as a
 * hint lost for all: the thread's updates planned before are refused
 * (hints_newer), and its next load plans every job (doc/thread.md
 * "Updates"). */
void hints_lose(struct hints *hints);

/* An owner's urgent asks (thread_private.h, `urgent`) are taken at most once
 * in this many seconds; the others count as paced asks. */
#define HINTS_URGENT_S 10

/* Whether an urgent ask of `owner` (the job's owner, else the caller) may
 * load the jobs at the thread's next round: true at most once in
 * HINTS_URGENT_S per owner (recorded now), so that no user's loop of
 * updates has the thread load every job every round.  Out of memory:
 * false. */
bool hints_urgent(struct hints *hints, uint32_t owner);

/* Whether a trusted update by someone else of a job with `ids` (job_id,
 * array_job_id, het_job_id; 0 for none) and owner `owner` came after
 * `since` (a seq), or a hint of all or of that owner was dropped after it:
 * the thread's update planned at `since` must not be applied. */
bool hints_newer(const struct hints *hints, const uint32_t ids[3],
		 uint32_t owner, uint64_t since);

/* Moves the hints up to `upto` out of `hints` into `taken` (the thread's
 * own, to plan with outside the lock; hints_free).  Out of memory, they
 * are dropped and counted lost. */
void hints_take(struct hints *hints, uint64_t upto, struct hints *taken);

/* Frees the hints and their user lists, and empties `hints`. */
void hints_free(struct hints *hints);

/* Whether hint `h` names `job`: the het component it named, the array task
 * (or the pending array record whose array_bitmap still holds it: an
 * update of one task splits it out of that record, doc/guard.md
 * "Updates"), else the job, array or het job with its id. */
bool hint_names(const struct job_hint *h, const slurm_job_info_t *job);

/* The ids the hints of `hints` up to seq `upto` name (a job, array or het
 * job id; `hints` may be NULL), sorted (*ids malloc'd, *n of them; NULL
 * and 0 when none), for hints_may_name().  0, or -1 when out of memory.
 * A round's plan asks once, not once a job (refilter.c). */
int hints_ids(const struct hints *hints, uint64_t upto, uint32_t **ids,
	      size_t *n);

/* Whether a hint may name `job` by any of its ids, `ids` (n of them)
 * from hints_ids(): hint_names() tells exactly, this only whether to
 * look. */
bool hints_may_name(const uint32_t *ids, size_t n, const slurm_job_info_t *job);

#endif
