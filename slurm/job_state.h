/*
 * job_state.h - what job_submit/extra keeps with each job that has a
 * request, in the job's AdminComment, so that it survives a slurmctld
 * restart and the re-filtering thread can read it with slurm_load_jobs().
 *
 * Why AdminComment: on Slurm 22.05 it is the only job field that slurmctld
 * stores, returns through the API and lets a job_submit plugin set (it is
 * checked against the user *before* the plugin runs, "so that the
 * job_submit plugin can make changes to the field without triggering an
 * auth issue", src/slurmctld/job_mgr.c).  job_desc->extra is not returned
 * there; system_comment is not in job_desc.  The job's excluded nodes mix
 * the user's own and the plugin's, so the user's own are kept here too.
 *
 * The text, after any AdminComment an admin gave (kept, with a space):
 *
 *   slurm-extra: <status>; held=<0|1[/runs]>; wrote=<16 hex>; exclude=<hostlist>; request=<request>
 *
 * and, for a job with preferences (`--extra-prefer`, doc/preferences.md
 * "Preferences"), before the request:
 *
 *   ...; exclude=<hostlist>; wait=<seconds>; prefer=<tier 1>; prefer=<tier 2>; request=<request>
 *
 * (each preference encoded as the request is, and ';' as %3B too).
 *
 * <status> says in words what the plugin does with the job (shown by
 * `scontrol show job`), held=1 means the plugin itself holds the job
 * (priority 0) and will release it (held=1/N: it held it after the job's
 * Nth requeue, 0 for none; a job requeued since is not held by the
 * plugin; a bare held=1, an earlier version's, holds at any count), wrote= is a hash (hostlist_hash)
 * of the ExcNodeList the plugin last set (a job whose list differs was
 * updated by someone since: doc/guard.md "Updates"), exclude= is the
 * user's own excluded
 * nodes, and the request runs to the end of the text (it may hold any
 * byte but NUL, so it comes last; its control bytes and '%' are written
 * %XX, so that no request starts a line of its own in `scontrol show
 * job`).
 *
 * Where burst_buffer/extra alone filters (Carrier=guard, doc/guard.md
 * "The guard alone"), the status is SX_GUARD_STATUS, nothing is held,
 * wrote= hashes the user's list as at submission (or as when an update
 * gave the job its first request), exclude= is that list (the job's
 * ExcNodeList is the user's own there, and is what the guard reads), and
 * from 23.02 the guard reads the request from the job's Extra, the
 * request= being its text as last set through the plugin ("" after an
 * update emptied it).
 */
#ifndef SLURM_EXTRA_JOB_STATE_H
#define SLURM_EXTRA_JOB_STATE_H

#include <stdbool.h>
#include <stddef.h>

#define SX_STATE_MARK "slurm-extra: "
/* The status of a job where burst_buffer/extra alone keeps it off
 * (Carrier=guard, doc/guard.md "The guard alone"). */
#define SX_GUARD_STATUS "burst_buffer/extra keeps the job off at placement"
/* The status an earlier release's thread gave a job with preferences
 * whose request Slurm's own filter reads (extra_constraints, 23.11 and
 * later), a preference's note before it: read as a leftover now
 * (ctld/look_leftover.c, slurm-extra doctor). */
#define SX_SLURM_STATUS "Slurm filters by the request (extra_constraints)"

struct sx_job_state {
	char *admin;  /* the admin's own AdminComment before ours, or NULL */
	char *status; /* what the plugin does, in words */
	bool held;    /* the plugin holds the job and will release it */
	unsigned held_at;	  /* 1 + the job's restart count when the plugin
			     held it (held=1/<count>): a hold after a
			     requeue (`scontrol requeuehold`) is then not
			     taken for the plugin's; 0 for a bare held=1
			     (an earlier version's: any count) */
	unsigned long long wrote; /* hash of the ExcNodeList the plugin set,
				     0 when unknown (an earlier version's) */
	char *exclude;	   /* the user's own excluded nodes ("" for none) */
	char *request;	   /* the job's --extra request */
	char **prefer;	   /* its preferences (--extra-prefer), strongest first,
			  or NULL */
	unsigned n_prefer; /* how many (at most SX_MAX_PREFER) */
	long wait;	   /* how long a preference is waited for, seconds
			  from EligibleTime (--extra-prefer-wait); 0: no
			  wait */
};

/* The most preferences (tiers) one job may have. */
#define SX_MAX_PREFER 8

/* Reads `comment` (a job's AdminComment, may be NULL).  Returns true and
 * fills `st` (strings malloc'd; sx_job_state_free) when it holds the
 * plugin's state; false when it does not (no mark, or a mangled one) or
 * when out of memory, with `st` left empty. */
bool sx_job_state_parse(const char *comment, struct sx_job_state *st);

/* The AdminComment text of `st`: "<admin> slurm-extra: ...".  malloc'd;
 * NULL when out of memory. */
char *sx_job_state_format(const struct sx_job_state *st);

/* Fills `to` with a copy of `from`, with `admin` (may be NULL or "") as
 * the admin's own AdminComment in place of from->admin.  0, or -1 when out
 * of memory (`to` left empty). */
int sx_job_state_copy(const struct sx_job_state *from, const char *admin,
		      struct sx_job_state *to);

/*
 * The note of an earlier release's check at start, which pending jobs may
 * still hold: when `slurm-extra prolog-slurmctld` found a node of a job
 * that no longer satisfied its request, it put at the start of the status
 *
 *   requeued <when>: <why>; <the status as it was>
 *
 * ("killed " for a job Slurm does not requeue: srun, salloc,
 * --no-requeue), and the thread kept that note in front of every status
 * it wrote after (sx_status_note_len), so that the waiting job still said
 * why it waited again.  <why> never holds "; ".
 */
#define SX_REQUEUE_NOTE "requeued "
#define SX_KILL_NOTE "killed "

/* The length of the note at the start of `status` (may be NULL), its
 * "; " included; 0 when it has none. */
size_t sx_status_note_len(const char *status);

/* A status with the note "<lead><when>: <why>; " in front of `status`
 * less its own note: malloc'd, NULL when out of memory.  `lead` is
 * SX_REQUEUE_NOTE or SX_KILL_NOTE; `when` and `why` must not hold "; "
 * (the note would end early); status may be NULL. */
char *sx_status_with_note(const char *lead, const char *when, const char *why,
			  const char *status);

/* `status` (may be NULL: "") less its own note, with the note of `from`
 * (may be NULL) in front: what the thread and job_modify() write, so that
 * a note outlives the status behind it.  malloc'd, NULL when out of
 * memory. */
char *sx_status_keep_note(const char *from, const char *status);

/* Replaces the preferences and wait of `to` with copies of `from`'s.  0,
 * or -1 when out of memory (then `to` holds what was copied so far, to
 * free with sx_job_state_free). */
int sx_job_state_copy_prefer(const struct sx_job_state *from,
			     struct sx_job_state *to);

/* Whether `a` and `b` have the same preferences, in the same order, and
 * the same wait (which counts only with preferences: slurm/prefer.h,
 * doc/preferences.md "Preferences").  Linear in their text. */
bool sx_job_state_same_prefer(const struct sx_job_state *a,
			      const struct sx_job_state *b);

/* Frees the strings of `st` and empties it. */
void sx_job_state_free(struct sx_job_state *st);

/* Whether state `st` is one job_submit/extra's thread wrote where it
 * filtered (its status neither SX_GUARD_STATUS nor SX_SLURM_STATUS, a
 * preference's note before either aside): what the thread set on the job
 * then (the nodes it put in its ExcNodeList, its feature in its Features,
 * its hold) stays the job's until someone takes it back, though no
 * thread follows it any more where burst_buffer/extra alone filters
 * (doc/guard.md "The guard alone").  False without a status. */
bool sx_job_state_by_thread(const struct sx_job_state *st);

/* Whether state `st` of a job whose Extra is `extra` (NULL: none) says an
 * earlier release's thread narrowed that Extra to a preference's tier
 * where Slurm filtered (status SX_SLURM_STATUS, with preferences) and
 * nobody changed it since: it is not the state's request, and its hash
 * (xc_text_hash()) is the state's wrote=.  burst_buffer/extra's look
 * gives such an Extra back (ctld/look_leftover.c), `slurm-extra doctor`
 * counts them (doc/preferences.md "Preferences"). */
bool sx_job_state_narrowed_by_thread(const struct sx_job_state *st,
				     const char *extra);

/* Whether state `st` says the plugin holds the job now, the job's record
 * at restart count `restart_cnt`: held=1, given at that count (held=1/N,
 * N = 1 + the count) or bare (an earlier version's: any count); a job
 * requeued since ran after the plugin's hold was lifted.  The caller
 * checks the record's hold itself (priority 0 with a hold's reason). */
bool sx_job_state_held_now(const struct sx_job_state *st, unsigned restart_cnt);

#endif
