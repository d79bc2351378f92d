/*
 * thread.h - the front door of job_submit/extra's re-filtering thread: the
 * header of plugin/thread/ that the entry points (the .c files of plugin/)
 * include; hints.h and known_jobs.h come with it for the two structs the
 * entry points fill and read (struct job_hint, struct known_job).
 *
 * The thread keeps a node table current from slurm_load_node() and
 * re-filters every pending job with a request whenever the node data or
 * the jobs change, one round every RefreshInterval (doc/thread.md "Work
 * follows change").  job_submit() and job_modify() run with slurmctld's
 * locks held and must not call the Slurm API themselves: between
 * thread_lock() and thread_unlock() they read what the thread keeps (the
 * table, the jobs it knows) and write what the thread reads (submissions
 * counted against the caps, hints of updates, asks for a load of the
 * jobs).  Everything else is private to plugin/thread/ (thread_private.h).
 */
#ifndef SLURM_EXTRA_THREAD_H
#define SLURM_EXTRA_THREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "slurm_compat.h"
#include "plugin_config.h"
#include "carrier.h"
#include "guard_api.h"
#include "hints.h"
#include "known_jobs.h"
#include "xc.h"

/* The thread's name among slurmctld's tasks (pthread_setname_np(): at
 * most 15 bytes). */
#define THREAD_NAME "extra_thread"

/* The thread and all it keeps; opaque outside plugin/thread/. */
struct thread;

/* "job_submit/extra", the prefix of every log line (job_submit_extra.c). */
extern const char plugin_type[];

/* ---------------------------------------------------- init() and fini() */

/* glibc's mmap threshold in slurmctld where the plugin filters
 * (MallocMmapThreshold, plugin_config.h; doc/thread.md "Memory"; defined
 * in memory.c with the rest of the thread's memory code): set with
 * mallopt() the first time the plugin finds itself filtering (init(), or
 * the thread's round after a reconfigure turned extra_constraints off),
 * unless slurmctld's environment sets it (MALLOC_MMAP_THRESHOLD_,
 * GLIBC_TUNABLES), it is 0 or the thread keeps nothing (Carrier=guard);
 * logged.  Process-wide, and kept until
 * slurmctld restarts. */
void thread_tune_malloc(const struct plugin_config *cfg, bool slurm_filters);

/* Starts a thread with the settings `cfg` (copied), slurmctld's uid `self`
 * (SlurmUser) and whether Slurm filters by `extra` itself
 * (sx_slurm_filters_extra()).  The plugin and the thread each hold a
 * reference; the plugin's code stays mapped for the thread (RTLD_NODELETE).
 * Returns the thread, or NULL when it cannot start (logged). */
struct thread *thread_start(const struct plugin_config *cfg, uid_t self,
			    bool slurm_filters);

/* Stops the thread for fini(): asks it to, waits at most 0.9 s (so that
 * fini returns within 1 s), else leaves it to finish its Slurm call on its
 * own (detached: it frees itself then: slurmctld may be unable to answer
 * it until fini returns, e.g. during a reconfigure that holds its locks);
 * logged either way.  Drops the plugin's reference: `t` is not to be used
 * again. */
void thread_stop(struct thread *t);

/* What the plugin does when Slurm filters by `extra` itself, when
 * burst_buffer/extra does (Carrier=guard, `guard`), or else, for the
 * log. */
const char *thread_mode_text(bool slurm_filters, bool guard);

/* --------------------------------------- the entry points, under the lock */

/* The lock that guards everything below: the entry points take it around
 * their reads and writes, the thread around its changes. */
void thread_lock(struct thread *t);
/* Releases the lock thread_lock() took: what was borrowed under it is
 * not to be used after. */
void thread_unlock(struct thread *t);

/* The node table, NULL until the thread's first load (right after
 * slurmctld starts).  Borrowed: valid until thread_unlock(). */
const xc_nodes_t *thread_table(const struct thread *t);

/* The free nodes (prefer.h), one bool a node of thread_table(), or NULL
 * when not known (no load yet, out of memory, or a table of another
 * length).  Borrowed: valid until thread_unlock(). */
const bool *thread_free(const struct thread *t);

/* A job job_submit() narrowed by a preference until `until` (prefer.h),
 * with no wait (`no_wait`: a change of the free nodes may widen it): the
 * thread plans at that time at the latest, and at the next change of the
 * free nodes, though it has not loaded the job yet (its loads of the jobs
 * follow users' asks at a pace).  With the lock held. */
void thread_prefer_deadline(struct thread *t, time_t until, bool no_wait);

/* Marks usable[k] false for each node of thread_table() (count of them)
 * in none of the partitions `list` names (a job's comma-separated list;
 * NULL or "": the default one), as the thread last loaded them
 * (parts.h); every node when they are not known.  With the lock held. */
void thread_parts_usable(const struct thread *t, const char *list, size_t count,
			 bool *usable);

/* The feature carrier's answer for the request whose canonical text is
 * `canonical` (carry_lookup(), carry.h): its name into `name`, and -1
 * when its jobs go by their ExcNodeList (the carrier off, slurm.conf read
 * again since the thread's last look, the name unknown to slurmctld yet or
 * another request's), else the nodes that carry it for sure (0: none
 * now). */
long thread_carry_lookup(const struct thread *t, const char *canonical,
			 char name[SX_FEATURE_LEN + 1]);

/* The status a job carried by feature `name` shows (malloc'd; NULL when
 * out of memory): by what the request's nodes mean for a job of
 * `min_nodes`, `allowed` of `total` nodes satisfying it: none, fewer than
 * it needs, or enough; no count, so that the status changes only when
 * the job's chance does, not at every node the request gains or loses. */
char *carry_status(const char *name, size_t allowed, size_t total,
		   uint32_t min_nodes);

/* The same for a job that has feature `name` already (carry_lookup_name,
 * carry.h): -1 when it cannot go on naming it (the carrier off, slurm.conf
 * read again since the thread's last look, slurmctld not knowing the name
 * now), else the nodes that carry it for sure. */
long thread_carry_lookup_name(const struct thread *t, const char *name);

/* The pending job with a request that the update `job_desc` names (a job,
 * an array task "123_4", a het component "123+1"), as the thread last
 * loaded it, or NULL when it knows none (known_target(): *het_all true for
 * an update of a whole heterogeneous job).  *id, *task and *offset are the
 * target it names (update_target()).  Borrowed: valid until
 * thread_unlock(). */
const struct known_job *thread_known_target(const struct thread *t,
					    const job_desc_msg_t *job_desc,
					    uint32_t *id, uint32_t *task,
					    uint32_t *offset, bool *het_all);

/* The largest job id of the thread's last load of the jobs (0: none yet):
 * a job above it is one the thread has not seen. */
uint32_t thread_max_job_id(const struct thread *t);

/* A job with a request admitted against the caps (caps.h), where the
 * thread runs: an ask for a load of the jobs at the pace of submissions.
 * With t's lock held. */
void thread_submitted(struct thread *t);

/* Asks for a load of the jobs at the thread's next round, not at the pace
 * of the other asks: a job job_submit() held (the thread releases it), an
 * update job_modify() could not settle alone. */
void thread_ask_urgent(struct thread *t);

/* Whether an urgent ask for `owner`'s jobs is allowed now: one in
 * HINTS_URGENT_S per owner (hints_urgent()), which records it: a true
 * answer uses the owner's turn, and their further asks wait for the pace
 * of the others.  False out of memory too. */
bool thread_urgent_allowed(struct thread *t, uint32_t owner);

/* Leaves hint `h` for the thread (hints_add(), hints.h: its user_exc
 * and prefer.tiers taken, NULL after).  False when it was dropped: past HINTS_PER_OWNER
 * hints of its owner's jobs (the thread's updates of that owner's jobs
 * planned before it are then refused), past HINTS_MAX or HINTS_BYTES in
 * all (every planned update is then refused), or out of memory.
 * *pending is always set: the hints held now. */
bool thread_hint(struct thread *t, struct job_hint *h, size_t *pending);

/* An update of a job the plugin cannot tell (hints_lose()): the thread
 * plans every job at its next load of every job, which this asks for at
 * the pace of users' asks. */
void thread_hint_lost(struct thread *t);

/* The seq of the newest hint the thread has not taken yet (0: none): a
 * repeat call of job_modify() for the records of one update finds its own
 * hint there, and a later update does not once the thread took it. */
uint64_t thread_newest_hint(const struct thread *t);

/* Whether `job_desc`, an update from `submit_uid`, is the thread's own
 * update in flight (sent by slurmctld's uid, naming the job it sends); if
 * so, *stale tells that someone else updated that job after the thread
 * planned it (hints_newer()): job_modify() refuses it then. */
bool thread_own_update(const struct thread *t, const job_desc_msg_t *job_desc,
		       uint32_t submit_uid, bool *stale);

#endif
