/*
 * thread_private.h - the re-filtering thread's own state, private to
 * plugin/thread/ and to the unit tests that build it by hand (the
 * thread's and the entry points'); the entry points see it through the
 * front door, thread.h.  The thread keeps the node table current with
 * slurm_load_node() (node_table.h) and re-filters every pending job with
 * a request whenever the node data or the jobs change (refilter.h), one
 * round every RefreshInterval (thread.c); it sends the updates within the
 * update budget (pace.h), keeps the feature carrier's node features
 * (thread_carry.c) and gives glibc's free memory back after loads of the
 * jobs (memory.h).
 */
#ifndef SLURM_EXTRA_THREAD_PRIVATE_H
#define SLURM_EXTRA_THREAD_PRIVATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "thread.h"
#include "slurm_compat.h"
#include "plugin_config.h"
#include "carry.h"
#include "caps.h"
#include "job_loads.h"
#include "kept_jobs.h"
#include "memo.h"
#include "parts.h"
#include "refilter.h"
#include "xc.h"

/*
 * The node table and the thread that refreshes it.  Each init() makes a new
 * context; the plugin and its thread each hold a reference.  fini() waits
 * at most 0.9 s for the thread: a thread still inside slurm_load_node() then
 * (slurmctld may be unable to answer it until fini returns, e.g. during a
 * reconfigure that holds its locks) is detached, and frees the context
 * itself when the call returns.  The plugin's code stays mapped for it:
 * thread_start() marks the plugin RTLD_NODELETE.
 */
struct thread {
	pthread_mutex_t lock; /* guards table, known and the flags */
	pthread_cond_t wake;  /* fini -> thread: stop; thread -> fini: done */
	struct plugin_config cfg;
	xc_nodes_t *table;	   /* NULL until the first load */
	time_t table_time;	   /* last_update of the loaded node data */
	struct known_jobs known;   /* pending jobs with a request, by id */
	struct hints hints;	   /* job_modify()'s, for the thread */
	struct refilter_memo memo; /* the thread's: what a round keeps for
				      the next (memo.h); not initialised
				      (texts NULL) until its first round */
	struct carry carry;	   /* the feature carrier (carry.h): its
				      names the entry points read under the
				      lock, the rest the thread's */
	uint64_t lost_seen;	   /* hints.losses at the last round */
	const struct job_update *inflight; /* the thread's update being
						 sent, or NULL */
	uint64_t inflight_since;    /* the hints its plan saw: up to this seq */
	uid_t self;		    /* slurmctld's uid: SlurmUser */
	job_info_msg_t *jobs;	    /* the thread's own: the jobs last loaded,
				 as kept_jobs_keep() keeps them */
	time_t jobs_time;	    /* their last_update */
	struct timespec jobs_asked; /* the thread's last load of the jobs
				       (CLOCK_MONOTONIC) */
	uint64_t submitted;	    /* jobs with a request job_submit() let
				    through or held, and refusals by a cap:
				    each asks for a load (thread_jobs_wanted) */
	uint64_t urgent; /* asks that want the jobs loaded at the next round,
			    not at the pace of the others: a job
			    job_submit() held itself (the thread releases
			    it), an update job_modify() could not settle
			    alone (its filter needs the thread), hints
			    crowded (thread_jobs_wanted) */
	uint64_t urgent_seen; /* `urgent` (plus hints.crowded) the last load
				 covered */
	uint32_t max_job_id;  /* the largest job id of the last load of the
				 jobs (0: none yet): a job above it is one
				 the thread has not seen */
	uint64_t asked_seen;  /* the asks (submitted, hints.seq and
				       hints.losses) the last load covered */
	uint64_t asked_round; /* the asks at the round before */
	struct timespec unloaded_since; /* when a round first saw the asks
					   past `asked_seen` (0: none) */
	struct timespec started;	/* thread_start() (monotonic) */
	struct timespec trimmed;	/* the last malloc_trim() (monotonic;
				       0: none yet) */
	long trimmed_kb;  /* slurmctld's resident memory after it, or the
			    least seen after a load since, if less */
	bool jobs_due;	  /* a load was wanted and failed: wanted
				    still */
	bool stopping;	  /* fini asked the thread to stop */
	bool exited;	  /* the thread has left its loop */
	bool failing;	  /* the last load failed (log once) */
	bool said_hidden; /* hidden nodes were logged */
	bool backup;	  /* a backup slurmctld, the primary answering */
	bool replan;	  /* the last round held back moves to a feature
			       (every job planned again), or could not keep
			       a refused job's retry */
	struct job_retries retries; /* the jobs whose updates Slurm refused,
				       each planned again after its delay
				       (job_loads.h) */
	uint64_t hints_loaded;	    /* hints.seq the last load of the jobs
				       (all of them, or the hinted ones)
				       covered: their data show every update
				       hinted up to it */
	bool slurm_filters; /* Slurm's extra_constraints was on last round */
	bool carry_read;    /* the carrier read slurmctld's configuration */
	bool carry_due;	    /* the carrier marked requests whose jobs the
			       next round plans (carry_done) */
	bool planned_once;  /* a round has planned since `started`: the
			       first is logged */
	/* Preferences (prefer.h): */
	bool *free;	     /* per node of the table: free now (idle or
			      mixed, neither drained nor down), NULL until
			      known; written under the lock (job_submit()
			      reads it) */
	size_t free_count;   /* its length */
	uint64_t free_print; /* a hash of it: its change wakes the
				 preferences */
	bool free_changed;   /* it changed since the last plan */
	size_t prefer_free;  /* pending jobs with preferences and no wait in
			      their window, last plan
			      (refilter_stats.prefer_free): the free nodes'
			      change plans them */
	time_t prefer_next;  /* the earliest end of a narrowing, last plan
				 (0: none): a plan is due then */
	size_t prefer_jobs;  /* pending jobs with preferences, last plan;
				where Slurm filters, the eligible ones whose
				wait lasts */
	bool parts_changed;  /* loaded anew since the last plan */
	time_t submit_next;  /* the earliest end of a narrowing job_submit()
				set since the thread last looked (under the
				lock; thread_take_deadline) */
	bool submit_free;    /* and one of them had no wait */
	struct parts parts;  /* the partitions' nodes (parts.h): loaded
				 while some job has preferences; written
				 under the lock (job_submit() reads them) */
	int refs;	     /* plugin + thread */
	pthread_t thread;
};

/* Initialises r->lock, and r->wake on CLOCK_MONOTONIC (the waits of the
 * thread: a step of the wall clock moves none); thread_start() does. */
void thread_init_sync(struct thread *r);

/* ------------------------------------------ thread.c: the round's rules */

/* The jobs are loaded at least this often (s) while nothing the plugin
 * sees asks for it (thread_jobs_wanted). */
#define JOBS_BACKSTOP_S 30

/* What asks for a load of every job on behalf of users (a submission of a
 * job with a request, a refusal by a cap, a hint of job_modify() lost)
 * loads them once those asks pause (a round with none since the round
 * before), and while they go on at most this often (s).  A hint loads
 * only the jobs it names, one by one (job_loads.h), at the next round;
 * past HINTED_LOAD_MAX of them in a round, every job at this pace.  None of
 * these needs a load to be right: job_submit() filtered its job already,
 * by the node table the thread last loaded (a change of that table loads
 * the jobs at once, unless the feature carrier's node update answered it
 * for every job the last plan saw and no job came since: carry_covers), job_modify() set the updated job's list itself, and
 * the thread's updates of a job planned before a hint of it are refused
 * (hints_newer).  A load makes the jobs known to job_modify(), takes the
 * hints and recounts the caps.  What does need the thread is urgent and
 * loads at the next round (struct thread, `urgent`).  Loading at every
 * submission cost a load of every job a second while jobs came in (138
 * loads of 87 MB in slurmctld at 60,000 nodes and 5,000 jobs), and at
 * every hint one a second for any user updating a job in a loop. */
#define JOBS_PACED_S 10

/* Whether this round loads every job: the node data changed (`nodes`),
 * an urgent ask came (`urgent`, the count of them: struct thread), users
 * asked for one (`asked`, the sum of their asks: see JOBS_PACED_S) and
 * either paused (`asked` equals r->asked_round) or the first unloaded ask
 * (r->unloaded_since) is JOBS_PACED_S old, a load was wanted and failed
 * (jobs_due), the last round held back moves to a feature or could not
 * keep a refused job's retry (replan), the carrier marked requests whose
 * jobs move (carry_due), the memo wants every job planned, nothing is
 * loaded yet, or the last load (r->jobs_asked) is JOBS_BACKSTOP_S old.
 * A refused update plans its job again alone, after its delay, and a
 * preference's deadline or the free nodes plan the jobs as last loaded
 * (their data did not change: only the clock or the nodes did; thread.c
 * round_decide).  Otherwise nothing a plan reads can have changed
 * but what slurmctld changes on its own (a pending job's reason and
 * priority, jobs starting and ending; a requeue, which the backstop and
 * the check at start cover), and a load of every job costs slurmctld a
 * pack and the thread an unpack sized by the whole cluster
 * (kept_jobs_keep): on a busy cluster the scheduler touches some job every
 * second, so loading on Slurm's own last_update alone would load them all
 * each second (doc/thread.md "Work follows change").  Reads only what the
 * thread alone writes: no lock; changes nothing. */
bool thread_jobs_wanted(const struct thread *r, bool nodes, uint64_t urgent,
			uint64_t asked);

/* Loads the jobs when they changed since r->jobs_time (thread.c): 1 when
 * they did, 0 when nothing changed (r->jobs is current), -1 when they
 * cannot be loaded now. */
int thread_load_jobs(struct thread *r);

/* The jobs whose refused updates are due again at `now` (job_loads.h),
 * each given a hint without content, which only has its job loaded alone
 * and planned (hints_add()) and makes no update stale.  Takes r->lock. */
void thread_retries_due(struct thread *r, const struct timespec *now);

/* The distinct jobs the hints up to `upto` name, sorted, into out[] (room
 * for HINTED_LOAD_MAX), *count of them: 1; 0 when there are more than
 * HINTED_LOAD_MAX (*count then past it); -1 when out of memory.  Takes
 * r->lock. */
int thread_hinted_ids(struct thread *r, uint64_t upto, uint32_t *out,
		      size_t *count);

/* Loads the `n` jobs `ids` (distinct, at most HINTED_LOAD_MAX) one by one
 * with slurm_load_job() and puts them in place of their records in
 * r->jobs (kept_jobs_splice(); a job gone takes its records with it),
 * r->max_job_id raised to theirs (job_loads.c).  0, or -1 when one
 * cannot be loaded, out of memory, or when the strings spliced in since
 * the last load of every job reach their bound (r->jobs as it was, and
 * then r->jobs_time 0: the caller loads every job afresh). */
int thread_load_hinted(struct thread *r, const uint32_t *ids, size_t n);

/* Loads the partitions' nodes (node_table_parts) while some job has
 * preferences (r->prefer_jobs), and when none are known or they are for
 * another table. */
void thread_parts_due(struct thread *r);

/* With r->lock held: job_submit()'s deadlines (submit_next) taken into
 * r->prefer_next. */
void thread_take_deadline(struct thread *r);

/* Whether the jobs with preferences want a plan now: a narrowing's end
 * came (r->prefer_next), the free nodes changed while some job with
 * preferences and no wait is in its window (r->prefer_free), or the
 * partitions were loaded anew while some job has preferences.  Reads only
 * what the thread alone writes. */
bool thread_prefer_due(const struct thread *r, time_t now);

/* Users' asks for a load of every job so far (each count only grows):
 * *asked those at the pace of JOBS_PACED_S (submissions and refusals by a
 * cap, hints lost), *urgent those for the next round (struct thread,
 * `urgent`, plus hints.crowded).  A hint asks for its own jobs alone
 * (job_loads.h).  With r->lock held. */
void thread_users_asks(const struct thread *r, uint64_t *asked,
		       uint64_t *urgent);

/* ------------------------ thread_carry.c: the feature carrier's stages */

/* The feature carrier's stages of a round (doc/thread.md "Carriers"), in
 * the thread, outside r->lock unless said. */

/* slurm.conf read again since the carrier's last look (or never looked
 * at): whether a NodeFeatures plugin owns the nodes' features, and every
 * name forgotten (a reconfigure rebuilds Slurm's feature lists); logged.
 * Unreadable now: the next round asks again, the carrier idle. */
void thread_carry_conf(struct thread *r);

/* The carrier's node updates of the last plan's requests (carry_plan),
 * sent within the update budget (pace_send_nodes), their outcome recorded
 * (carry_done); *failed set when one was refused or not sent; nothing
 * before the first plan. */
void thread_carry_round(struct thread *r, struct refilter_stats *stats,
			bool *failed);

/* Whether a round whose node data changed (`nodes`) wants the jobs loaded
 * for it: not when the carrier's node updates (thread_carry_round, before
 * this) are all the change needs: every job of each request the change
 * touched is carried and keeps its chance (carry_covers()), and no job
 * came or changed since the last load (`asked` and `urgent`, as
 * thread_users_asks() gave them at this round's load, equal to what the
 * last load saw), which the last plan never saw (their requests' nodes
 * changed for them too).  A node update of the carrier's that was refused
 * or not sent is made good by the next round's (carry_done).  False when
 * `nodes` is. */
bool thread_nodes_want_jobs(const struct thread *r, bool nodes, uint64_t urgent,
			    uint64_t asked);

/* The updates of `ups` (n of them) that move a job to its feature, freed
 * and taken out (the others kept in order): their feature may not be on
 * its nodes after a refused node update.  The known job of each, which
 * the round published as moved, is told it is not (job_modify() then
 * keeps its exclusions).  The count left.  Takes r->lock. */
size_t thread_hold_back_moves(struct thread *r, struct job_update *ups,
			      size_t n);

/* ----------------------------------------- thread.c: who is in control */

/*
 * Whether this slurmctld is the one in control.  slurmctld initialises the
 * job_submit plugins before it knows whether it will run as a backup
 * (controller.c: job_submit_g_init() before run_backup(), 22.05-26.05), so
 * a backup's thread would load and update the primary's jobs, a second
 * writer beside the primary's own thread.  slurmctld exports
 * `slurmctld_primary` (-export-dynamic): 1/true in the primary, 0/false in
 * a backup, which keeps it false when it takes over; so a backup acts only
 * while the primary does not answer (thread_control.ping).  (An int on
 * 22.05-23.02, a bool since: its first byte, on little-endian machines,
 * tells either.)  Outside slurmctld (no such symbol) it is in control.
 * Called by the thread alone (thread_control has no lock).
 */
bool thread_in_control(void);

/* What thread_in_control() asks, in thread.c: set up for slurmctld; a
 * unit test replaces `ping` and `primary` to play either controller (and
 * puts them back), before any thread runs. */
struct thread_control {
	int (*ping)(int dest); /* slurm_ping(): SLURM_SUCCESS when controller
				  `dest` (0: the primary) answers */
	const volatile unsigned char *primary; /* slurmctld_primary's first
						  byte (not ours), NULL
						  outside slurmctld */
	bool looked; /* `primary` looked up already (dlsym, once) */
};
extern struct thread_control thread_control;

#endif
