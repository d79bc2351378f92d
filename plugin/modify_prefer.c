/*
 * modify_prefer.c - job_modify()'s side of burst_buffer/extra's jobs
 * (modify.h): an owner's change of a pending job's preferences
 * (`slurm-extra prefer`) or of its request, written into the job's
 * state.  With slurmctld's locks held, as modify.c.
 */
#include <stdlib.h>
#include <string.h>

#include "entry.h"
#include "job_state.h"
#include "guard_caps.h"
#include "modify.h"
#include "xc.h"

/* Whether update `d` sets another field that bears on where the job may
 * run besides a change of preferences (a new request too, from 23.02):
 * the change must come alone (guard_change_prefer()). */
static bool sets_placement_fields(const job_desc_msg_t *d)
{
	return d->exc_nodes || d->req_nodes || d->features || d->prefer ||
	       d->admin_comment || d->priority != NO_VAL ||
	       (SX_SLURM_HAS_EXTRA_OPTION && d->extra);
}

/* A state made for job record `job_ptr` that has none, as at submission
 * (guard_record(), job_submit_extra.c): the admin's text first, status
 * SX_GUARD_STATUS, the user's own list with its hash; its request the
 * caller's.  0, or -1 when out of memory. */
static int state_made(const struct sx_guard_api *api, void *job_ptr,
		      struct sx_job_state *st)
{
	const char *now = api->admin_comment(job_ptr);
	const char *exc = api->exc_nodes(job_ptr);

	st->wrote = xc_text_hash(exc);
	if ((now && *now && !(st->admin = strdup(now))) ||
	    !(st->status = strdup(SX_GUARD_STATUS)) ||
	    !(st->exclude = strdup(exc ? exc : "")))
		return -1;
	return 0;
}

int guard_change_prefer(job_desc_msg_t *job_desc,
			const struct sx_guard_api *api, void *job_ptr,
			uint32_t submit_uid, struct prefer_change *c, int got,
			const char *why, char **err_msg)
{
	struct sx_job_state st = { 0 };
	char *comment = NULL;
	const char *extra;
	uint32_t owner;
	bool had, made = false;
	int rc;

	if (!api || !job_ptr)
		return refuse(
			err_msg, ESLURM_NOT_SUPPORTED,
			"--extra-prefer: burst_buffer/extra does not answer for the job: its preferences stay");
	owner = api->user_id(job_ptr);
	/* 22.05 checks the caller after job_modify(), and refuses anyone but
	 * the owner and an operator with ESLURM_USER_ID_MISSING ("Invalid
	 * user id", _update_job(), src/slurmctld/job_mgr.c 22.05.8): so
	 * here; from 23.02 a caller past Slurm's check is an operator or a
	 * coordinator) */
	if (submit_uid != owner && submit_uid != 0 &&
	    submit_uid != (uint32_t)entry_self)
		return refuse(
			err_msg,
			SX_OWNER_CHECKED_FIRST ? ESLURM_ACCESS_DENIED
					       : ESLURM_USER_ID_MISSING,
			"--extra-prefer: only the job's owner, root or SlurmUser changes its preferences");
	if (got == 2)
		return refuse(err_msg, ESLURM_INVALID_FEATURE, why);
	/* (another field Slurm refuses after job_modify() leaves the change
	 * written, on the owner's own job; a job_desc unpacked from the wire
	 * is not one slurm_init_job_desc_msg() fills, so no whole comparison
	 * tells) */
	if (sets_placement_fields(job_desc))
		return refuse(
			err_msg, ESLURM_INVALID_FEATURE,
			"--extra-prefer: change the preferences in an update of their own (slurm-extra prefer --job ID)");
	extra = api->extra(job_ptr);
	if (!sx_job_state_parse(api->admin_comment(job_ptr), &st)) {
		/* where Slurm filters by `extra` itself, a job submitted
		 * without preferences has no state: its Extra is its
		 * request, and the state is made now */
		if (!sx_slurm_filters_extra() || !extra || !*extra)
			return refuse(
				err_msg, ESLURM_INVALID_FEATURE,
				"--extra-prefer: it needs a request (--extra) that every node the job may run on satisfies");
		memset(&st, 0, sizeof(st));
		made = true;
		if (state_made(api, job_ptr, &st) < 0 ||
		    !(st.request = strdup(extra))) {
			sx_job_state_free(&st);
			return refuse(err_msg, SLURM_ERROR,
				      "--extra: out of memory");
		}
	}
	had = st.n_prefer > 0;
	if (prefer_change_apply(c, &st) < 0)
		rc = refuse(err_msg, SLURM_ERROR, "--extra: out of memory");
	else if ((rc = check_tiers(&st, submit_uid, err_msg)) != SLURM_SUCCESS)
		;
	/* a state made now that would hold no tiers (a wait alone, none):
	 * the job stays Slurm's alone, uncounted as before */
	else if (made && !st.n_prefer)
		;
	/* the new tiers count against the caps as a submission's, and a job
	 * given preferences it had none of against its owner's; dropping
	 * them, never refused (as take_prefer()) */
	else if (st.n_prefer &&
		 (rc = guard_admit(api, owner, st.request, &st, !had,
				   err_msg)) != SLURM_SUCCESS)
		;
	else if (!(comment = sx_job_state_format(&st)) ||
		 api->set_admin_comment(job_ptr, comment) < 0)
		rc = refuse(err_msg, SLURM_ERROR, "--extra: out of memory");
	else /* as Slurm logs its own update of a job's AdminComment */
		slurm_info(
			"%s: uid %u: preferences of job %s (owner %u) set: %u tiers, a wait of %ld s",
			plugin_type, submit_uid,
			job_desc->job_id_str ? job_desc->job_id_str : "?",
			owner, st.n_prefer, (long)st.wait);
	free(comment);
	sx_job_state_free(&st);
	return rc;
}

int guard_change_request(job_desc_msg_t *job_desc,
			 const struct sx_guard_api *api, void *job_ptr,
			 uint32_t submit_uid, char **err_msg)
{
	struct sx_job_state st = { 0 };
	const char *extra = SX_SLURM_HAS_EXTRA_OPTION ? job_desc->extra : NULL;
	const char *now;
	char *comment = NULL;
	bool had_request;
	int rc = SLURM_SUCCESS;

	if (!extra)
		return SLURM_SUCCESS;
	if (!api || !job_ptr)
		return refuse(
			err_msg, ESLURM_NOT_SUPPORTED,
			"--extra: burst_buffer/extra does not answer for the job: its request stays");
	now = api->admin_comment(job_ptr);
	if (now && strstr(now, SX_STATE_MARK)) {
		/* (a mark that does not parse, or no memory: nothing is
		 * written over what cannot be read) */
		if (!sx_job_state_parse(now, &st))
			return refuse(
				err_msg, SLURM_ERROR,
				"--extra: the job's state in its AdminComment cannot be read: its request stays");
	} else if (!*extra || sx_slurm_filters_extra()) {
		/* no request, and none to take away; or Slurm filters by the
		 * new one itself, and the job has no preference to keep */
		return SLURM_SUCCESS;
	} else if (state_made(api, job_ptr, &st) < 0) {
		rc = refuse(err_msg, SLURM_ERROR, "--extra: out of memory");
	}
	/* the new request, "" for none: the mark stays, so that the guard
	 * follows the Extra Slurm applies (records_request_of(), ctld/
	 * records.h) even when Slurm refuses the update after this */
	had_request = st.request && *st.request;
	free(st.request);
	st.request = NULL;
	if (rc == SLURM_SUCCESS && !(st.request = strdup(extra)))
		rc = refuse(err_msg, SLURM_ERROR, "--extra: out of memory");
	/* a new request counts against the caps as a submission's, and a job
	 * with preferences that had none (the census did not count it)
	 * against its owner's preferring jobs too */
	if (rc == SLURM_SUCCESS && *extra)
		rc = guard_admit(api, api->user_id(job_ptr), extra, &st,
				 st.n_prefer && !had_request, err_msg);
	if (rc == SLURM_SUCCESS &&
	    (!(comment = sx_job_state_format(&st)) ||
	     api->set_admin_comment(job_ptr, comment) < 0))
		rc = refuse(err_msg, SLURM_ERROR, "--extra: out of memory");
	if (rc == SLURM_SUCCESS)
		slurm_info("%s: uid %u: request of job %s (owner %u) set%s",
			   plugin_type, submit_uid,
			   job_desc->job_id_str ? job_desc->job_id_str : "?",
			   api->user_id(job_ptr), *extra ? "" : " to none");
	free(comment);
	sx_job_state_free(&st);
	return rc;
}
