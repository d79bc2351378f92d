/*
 * cmd_prefer.c - slurm-extra prefer --job ID: the owner's change of a
 * pending job's preferences and their wait (doc/preferences.md "Preferences",
 * "Changing them"), what `sbatch --extra-prefer` set, for which scontrol
 * has no field.  The change goes to slurmctld as an update of the job
 * whose SPANK environment holds the new tiers and wait (prefer.h, struct
 * prefer_change): Slurm reads no SPANK environment in an update and
 * answers it as any update of the job by that user, job_submit/extra alone
 * reads it and writes the job's state at once, through burst_buffer/extra
 * (plugin/modify_prefer.c).  The command then reads the job's
 * AdminComment until it shows the change.
 */
#define _GNU_SOURCE /* asprintf */

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <slurm/slurm.h>

#include "cli.h"
#include "prefer.h"
#include "slurm_compat.h"

/* How long the change may take to show (s): it is written with the
 * update, so this is margin for a busy slurmctld's answers to the reads
 * (doc/preferences.md "Changing them"). */
#define SHOW_WAIT_S 35

/* The exit status for anything about the job (slurm-extra(1), "prefer"):
 * not pending, no request, Slurm's refusal, the change not shown. */
#define EXIT_JOB 1

/* What the change asks, as sent. */
struct wanted {
	struct prefer_change c;
	bool tiers, wait; /* which of them it changes */
};

/* Reads the options into `w` (read_prefer(): each tier checked as a
 * request, with the caret; the wait as sbatch's).  0, or EXIT_INVALID
 * after saying why. */
static int read_change(const struct opts *o, struct wanted *w)
{
	struct sx_job_state st;
	size_t len = 0;
	char *p;

	if (o->none && (o->nextra_prefer || o->extra_prefer_wait))
		return fail(
			"prefer: --none drops the preferences: not with --extra-prefer or --extra-prefer-wait");
	if (!o->none && !o->nextra_prefer && !o->extra_prefer_wait)
		return fail(
			"prefer: say what changes: --extra-prefer REQUEST (repeated: tiers, strongest first), --extra-prefer-wait DURATION, or --none");
	if (o->request)
		return fail("prefer takes no REQUEST ('%s'): the job's stays",
			    o->request);
	if (o->extra_prefer_wait && !o->nextra_prefer) {
		/* the wait alone: read_prefer() wants a tier with it */
		char why[512];

		w->c.wait = -1;
		if (prefer_wait_read(o->extra_prefer_wait, &w->c.wait, why,
				     sizeof(why)) < 0)
			return fail("%s", why);
		w->wait = true;
		return 0;
	}
	if (read_prefer(o, &st) < 0)
		return EXIT_INVALID;
	for (unsigned i = 0; i < st.n_prefer; i++)
		len += strlen(st.prefer[i]) + 1;
	if (!(p = w->c.tiers = malloc(len + 1))) {
		sx_job_state_free(&st);
		return fail("out of memory");
	}
	for (unsigned i = 0; i < st.n_prefer; i++) {
		size_t n = strlen(st.prefer[i]);

		memcpy(p, st.prefer[i], n);
		p[n] = PREFER_SEP;
		p += n + 1;
	}
	*p = '\0';
	w->tiers = true;
	w->wait = o->none || o->extra_prefer_wait;
	w->c.wait = o->extra_prefer_wait ? st.wait : o->none ? 0 : -1;
	sx_job_state_free(&st);
	return 0;
}

/* What job `jid`'s pending records show. */
enum shows {
	SHOWS_UNREAD = -2, /* the job could not be read (said why) */
	SHOWS_NONE = -1,   /* no record pending */
	SHOWS_NOT = 0,	   /* some does not show the change (yet) */
	SHOWS_ALL = 1,	   /* every one shows it */
};

/* What the pending records of job `jid` show of `w` (its change applied
 * over what a record has gives what it has); *request (may be NULL):
 * whether some has a request; *had (may be NULL): some has preferences;
 * *first (may be NULL): the state of the first, for print_state()
 * (sx_job_state_free).  `started`: a record no longer pending counts too
 * when its state shows the change (a change that drops the preferences
 * or shortens the wait may start the job right after the update wrote
 * its state, before this command's next read); one whose state does not
 * show it had started before the change was taken, and is left out.
 * `quiet`: nothing said when it cannot be read. */
static enum shows job_shows(uint32_t jid, const struct wanted *w, bool *request,
			    bool *had, struct sx_job_state *first, bool started,
			    bool quiet)
{
	job_info_msg_t *jobs = NULL;
	enum shows rc = SHOWS_NONE;
	bool got = false;

	if (sx_load_job(&jobs, jid, SHOW_ALL) != SLURM_SUCCESS) {
		if (!quiet)
			say("cannot read job %u: %s", jid,
			    slurm_strerror(sx_slurm_errno()));
		return SHOWS_UNREAD;
	}
	for (uint32_t i = 0; i < jobs->record_count; i++) {
		const slurm_job_info_t *job = &jobs->job_array[i];
		struct sx_job_state st = { 0 }, want = { 0 };
		bool pending, parsed, same;

		pending = (job->job_state & JOB_STATE_BASE) == JOB_PENDING;
		if (!pending && !started)
			continue;
		parsed = sx_job_state_parse(job->admin_comment, &st);
		same = sx_job_state_copy_prefer(&st, &want) == 0 &&
		       prefer_change_apply(&w->c, &want) == 0 &&
		       sx_job_state_same_prefer(&st, &want);
		if (!pending && (!parsed || !same)) {
			sx_job_state_free(&want);
			sx_job_state_free(&st);
			continue;
		}
		if (request)
			*request |= (parsed && st.request && *st.request) ||
				    (SX_JOB_EXTRA(job) && *SX_JOB_EXTRA(job));
		if (had)
			*had |= st.n_prefer > 0;
		if (rc == SHOWS_NONE)
			rc = SHOWS_ALL;
		if (!same)
			rc = SHOWS_NOT;
		if (first && !got) { /* moved */
			*first = st;
			memset(&st, 0, sizeof(st));
			got = true;
		}
		sx_job_state_free(&want);
		sx_job_state_free(&st);
	}
	sx_free_job_info_msg(jobs);
	return rc;
}

/* The preferences of state `st` of job `jid`, on stdout, escaped
 * (put_text): the tiers are the job's, and root may run this for another
 * user's job. */
static void print_state(uint32_t jid, const struct sx_job_state *st)
{
	if (!st->n_prefer)
		printf("job %u: no preferences\n", jid);
	for (unsigned k = 0; k < st->n_prefer; k++) {
		printf("job %u: preference %u: ", jid, k + 1);
		put_text(stdout, st->prefer[k]);
		putchar('\n');
	}
	if (st->n_prefer && st->wait > 0)
		printf("job %u: waited for %ld s from EligibleTime\n", jid,
		       st->wait);
	else if (st->n_prefer)
		printf("job %u: no wait: a free preferred node only\n", jid);
}

/* The update: the job named by its id (a whole array or heterogeneous
 * job, as scontrol's), its SPANK environment the change.  0, or EXIT_JOB
 * after saying what Slurm answered (in scontrol's words). */
static int send_change(const char *id, const struct wanted *w)
{
	job_desc_msg_t d;
	char *env[2] = { NULL, NULL };
	unsigned n = 0;
	int rc = 0;

	slurm_init_job_desc_msg(&d);
	if ((w->tiers &&
	     asprintf(&env[n++], "%s%s", PREFER_VAR, w->c.tiers) < 0) ||
	    (w->wait &&
	     asprintf(&env[n++], "%s%ld", PREFER_WAIT_VAR, w->c.wait) < 0)) {
		env[--n] = NULL; /* asprintf's is undefined */
		free(env[0]);
		say("out of memory");
		return EXIT_JOB;
	}
	d.job_id_str = (char *)id;
	d.spank_job_env = env;
	d.spank_job_env_size = n;
	if (slurm_update_job(&d) != SLURM_SUCCESS) {
		/* src/scontrol/update_job.c */
		say("%s for job %s", slurm_strerror(sx_slurm_errno()), id);
		rc = EXIT_JOB;
	}
	free(env[0]);
	free(env[1]);
	return rc;
}

int cmd_prefer(const struct opts *o)
{
	struct wanted w = { .c = { .wait = -1 } };
	struct sx_job_state st = { 0 };
	time_t deadline;
	unsigned long jid;
	bool had = false, request = false;
	enum shows shows;
	char *end;
	int rc;

	if (!o->job)
		return fail("prefer needs --job ID");
	jid = strtoul(o->job, &end, 10);
	if (!isdigit((unsigned char)*o->job) || *end || jid == 0 ||
	    jid > UINT32_MAX)
		return fail("--job: a job id expected, not '%s'", o->job);
	if ((rc = read_change(o, &w)) != 0)
		goto out;
	/* Slurm's plugins first: without them 24.11's update of the job
	 * ends in libslurm's fatal() ("No hash plugins loaded") */
	slurm_init(NULL);
	rc = EXIT_JOB;
	shows = job_shows((uint32_t)jid, &w, &request, &had, NULL, false,
			  false);
	if (shows == SHOWS_UNREAD)
		goto out;
	if (shows == SHOWS_NONE) {
		say("job %lu is not pending: its preferences no longer matter",
		    jid);
		goto out;
	}
	if (!request) {
		say("job %lu has no request (--extra): preferences narrow one",
		    jid);
		goto out;
	}
	if (!had && !w.tiers) {
		say("job %lu has no preferences to wait for: --extra-prefer REQUEST",
		    jid);
		goto out;
	}
	/* always sent: Slurm answers whether this user may update the job */
	if ((rc = send_change(o->job, &w)) != 0)
		goto out;
	rc = EXIT_JOB; /* 0 only once the change shows */
	/* written with the update; read until it shows */
	deadline = time(NULL) + SHOW_WAIT_S;
	do {
		struct timespec q = { 0, 250000000L };

		sx_job_state_free(&st);
		shows = job_shows((uint32_t)jid, &w, NULL, NULL, &st, true,
				  true);
		if (shows == SHOWS_ALL || shows == SHOWS_NONE)
			break;
		nanosleep(&q, NULL); /* SHOWS_UNREAD too: read again */
	} while (time(NULL) < deadline);
	if (shows == SHOWS_ALL) {
		print_state((uint32_t)jid, &st);
		rc = 0;
	} else if (shows == SHOWS_NONE) { /* started before the change */
		say("job %lu is no longer pending", jid);
	} else if (shows == SHOWS_UNREAD) { /* says why */
		(void)job_shows((uint32_t)jid, &w, NULL, NULL, NULL, false,
				false);
	} else {
		say("job %lu: Slurm took the update, but the job's state does not show the change after %d s (is job_submit/extra loaded? On Slurm 22.05 only the job's owner, root and SlurmUser may change it)",
		    jid, SHOW_WAIT_S);
	}
out:
	sx_job_state_free(&st);
	prefer_change_free(&w.c);
	return rc;
}
