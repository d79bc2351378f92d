/*
 * thread_private.h - the re-filtering thread's own state, private to
 * plugin/thread/ and to the unit tests that build it by hand (the
 * thread's and the entry points'); the entry points see it through the
 * front door, thread.h.  The thread keeps the node table current with
 * slurm_load_node() (node_table.h) and re-filters every pending job with
 * a request whenever the node data or the jobs change (refilter.h), one
 * round every RefreshInterval.
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
#include "census.h"
#include "memo.h"
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
	struct census census;	   /* the distinct requests pending, for
				    job_submit()'s caps */
	struct refilter_memo memo; /* the thread's: what a round keeps for
				      the next (memo.h); not initialised
				      (texts NULL) until its first round */
	uint64_t lost_seen;	   /* hints.losses at the last round */
	const struct job_update *inflight; /* the thread's update being
						 sent, or NULL */
	uint64_t inflight_since;    /* the hints its plan saw: up to this seq */
	uid_t self;		    /* slurmctld's uid: SlurmUser */
	job_info_msg_t *jobs;	    /* the thread's own: the jobs last loaded,
				 as refilter_keep() keeps them */
	time_t jobs_time;	    /* their last_update */
	struct timespec jobs_asked; /* the thread's last load of the jobs
				       (CLOCK_MONOTONIC) */
	uint64_t submitted;	    /* jobs with a request job_submit() let
				    through or held, and refusals by a cap:
				    each asks for a load (jobs_wanted) */
	uint64_t urgent; /* asks that want the jobs loaded at the next round,
			    not at the pace of the others: a job
			    job_submit() held itself (the thread releases
			    it), an update job_modify() could not settle
			    alone (its filter needs the thread), hints
			    crowded (jobs_wanted) */
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
	struct timespec trimmed;	/* the last malloc_trim() (monotonic;
				       0: none yet) */
	long trimmed_kb;    /* slurmctld's resident memory after it, or the
			    least seen after a load since, if less */
	bool jobs_due;	    /* a load was wanted and failed: wanted
				    still */
	bool stopping;	    /* fini asked the thread to stop */
	bool exited;	    /* the thread has left its loop */
	bool failing;	    /* the last load failed (log once) */
	bool said_hidden;   /* hidden nodes were logged */
	bool backup;	    /* a backup slurmctld, the primary answering */
	bool replan;	    /* the last round had updates refused */
	bool slurm_filters; /* Slurm's extra_constraints was on last round */
	int refs;	    /* plugin + thread */
	pthread_t thread;
};

/* Initialises r->lock, and r->wake on CLOCK_MONOTONIC (the waits of the
 * thread: a step of the wall clock moves none); thread_start() does. */
void thread_init_sync(struct thread *r);

#endif
