/*
 * refresher.h - job_submit/extra's thread and what it shares with the
 * entry points: the node table, which the thread keeps current with
 * slurm_load_node() (node_table.h), and the re-filtering of every pending
 * job with a request whenever the node data or the jobs change
 * (refilter.h), one round every RefreshInterval.  job_submit() and
 * job_modify() run with slurmctld's locks held and must not call the
 * Slurm API themselves: they read the table and the jobs the thread knew,
 * under the lock, and leave it hints (doc/design.md "Updates").
 */
#ifndef SLURM_EXTRA_REFRESHER_H
#define SLURM_EXTRA_REFRESHER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "slurm_compat.h"
#include "plugin_config.h"
#include "census.h"
#include "memo.h"
#include "refilter.h"
#include "xc.h"

/* "job_submit/extra", the prefix of every log line (job_submit_extra.c). */
extern const char plugin_type[];

/*
 * The node table and the thread that refreshes it.  Each init() makes a new
 * context; the plugin and its thread each hold a reference.  fini() waits
 * at most 0.9 s for the thread: a thread still inside slurm_load_node() then
 * (slurmctld may be unable to answer it until fini returns, e.g. during a
 * reconfigure that holds its locks) is detached, and frees the context
 * itself when the call returns.  The plugin's code stays mapped for it:
 * refresher_start() marks the plugin RTLD_NODELETE.
 */
struct refresher {
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
	uint64_t inflight_since; /* the hints its plan saw: up to this seq */
	const job_desc_msg_t *last_desc; /* job_modify()'s last job_desc, */
	const char *last_exc;		 /* the ExcNodeList it set there */
	const char *last_admin;		 /* the AdminComment it set there */
	uint64_t last_id_hash;		 /* xc_text_hash() of its job_id_str, */
	uint64_t last_exc_hash;		 /* of the ExcNodeList it set, */
	uint64_t last_admin_hash;	 /* of the AdminComment it set */
	uid_t self;			 /* slurmctld's uid: SlurmUser */
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

/* glibc's mmap threshold in slurmctld where the plugin filters
 * (MallocMmapThreshold, plugin_config.h; doc/design.md "Memory"): set with
 * mallopt() the first time the plugin finds itself filtering (init(), or
 * the thread's round after a reconfigure turned extra_constraints off),
 * unless slurmctld's environment sets it (MALLOC_MMAP_THRESHOLD_,
 * GLIBC_TUNABLES) or it is 0; logged.  Process-wide, and kept until
 * slurmctld restarts. */
void refresher_tune_malloc(const struct plugin_config *cfg, bool slurm_filters);

/* Initialises r->lock, and r->wake on CLOCK_MONOTONIC (the waits of the
 * thread: a step of the wall clock moves none); refresher_start() does. */
void refresher_init_sync(struct refresher *r);

/* Starts the thread on `r` (calloc'd; its cfg, self and slurm_filters
 * set), which then holds a reference to it as init() does, and keeps the
 * plugin's code mapped for it.  Returns 0, or -1 when the thread cannot
 * start: logged, and `r` freed. */
int refresher_start(struct refresher *r);

/* Stops the thread of `r` for fini(): asks it to, waits at most 0.9 s (so
 * that fini returns within 1 s), else leaves it to finish its Slurm call
 * on its own (detached: it frees `r` then); logged either way.  Drops
 * init()'s reference. */
void refresher_stop(struct refresher *r);

/* What the plugin does when Slurm filters by `extra` itself
 * (sx_slurm_filters_extra()) or not, for the log. */
const char *refresher_mode_text(bool slurm_filters);

#endif
