/*
 * modify.c - job_modify() of JobSubmitPlugins=extra: an update of a job,
 * by the rules of doc/guard.md "Updates" (modify() below).  Runs with
 * slurmctld's locks held; reads and writes the job record only through
 * burst_buffer/extra (guard_api.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctld.h"
#include "entry.h"
#include "job_state.h"
#include "modify.h"

/* Cuts `text` at `mark` (NULL: nothing), the start of a state of ours
 * in it, and the spaces before it: the caller's own words alone. */
static void cut_state(char *text, char *mark)
{
	if (!mark)
		return;
	while (mark > text && mark[-1] == ' ')
		mark--;
	*mark = '\0';
}

/*
 * An update of a job.  Slurm alone decides whether it is allowed and what
 * it does; the plugin adds nothing the caller could not set, and never
 * writes its state on a caller's behalf: AdminComment only where the
 * caller sets it (Slurm checked them as a super user before
 * job_modify()), so a user's update is never refused for a field the
 * plugin added.  By who filters (entry_filter()):
 *   - burst_buffer/extra: a new request (`extra`, 23.02+) is checked as at
 *     submission and written into the job's state, a change of the
 *     preferences (`slurm-extra prefer`, in the update's SPANK
 *     environment) checked and written (guard_change_request(),
 *     guard_change_prefer()), and a super user's new AdminComment keeps
 *     the state after it (guard_keep_state());
 *   - Slurm itself (23.11+ extra_constraints): a new request is only
 *     checked, and a change of preferences refused unless
 *     burst_buffer/extra keeps them (PREFER_NEEDS_GUARD);
 *   - nobody: a new request or preferences are refused (NO_FILTER_HERE).
 */
int modify(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	return modify_as(job_desc, NULL, NULL, submit_uid, err_msg);
}

/*
 * Carrier=guard: a new AdminComment (Slurm lets only a super user set it,
 * checked before job_modify() in 22.05.8 and 24.11.5) of job record
 * `job_ptr` whose AdminComment holds the plugin's state (read through
 * `api`) keeps that state after the caller's text, so that
 * burst_buffer/extra still reads the job's request: one state, always
 * the plugin's.  Any state of ours in the caller's text goes first,
 * whatever the record holds: Slurm hands the same job_desc to every record of an
 * update (the components of a heterogeneous job, the tasks of an array:
 * update_job_str(), src/slurmctld/job_mgr.c), so the last record's state
 * is there for the next (and a text copied from `scontrol show job` holds
 * one).  Without `api` (burst_buffer/extra of another build) the update
 * is refused, said once in the log: the AdminComment would replace the
 * job's request.  SLURM_SUCCESS or the refusal.
 */
static int guard_keep_state(job_desc_msg_t *job_desc,
			    const struct sx_guard_api *api, void *job_ptr,
			    char **err_msg)
{
	static bool said;
	struct sx_job_state now = { 0 }, st = { 0 };
	int rc = SLURM_SUCCESS;

	if (!job_desc->admin_comment)
		return SLURM_SUCCESS;
	if (!api || !job_ptr) {
		if (!said)
			slurm_error(
				"%s: Carrier=guard: burst_buffer/extra lends no job record (not loaded, or of another build than this plugin): AdminComment updates are refused, their text would replace the jobs' requests (said once)",
				plugin_type);
		said = true;
		return refuse(
			err_msg, ESLURM_NOT_SUPPORTED,
			"--extra: burst_buffer/extra does not answer for the job record: an AdminComment would replace the job's request");
	}
	cut_state(job_desc->admin_comment,
		  strstr(job_desc->admin_comment, SX_STATE_MARK));
	if (!sx_job_state_parse(api->admin_comment(job_ptr), &now))
		return SLURM_SUCCESS;
	if (sx_job_state_copy(&now, job_desc->admin_comment, &st) < 0 ||
	    set_desc_state(&job_desc->admin_comment, &st) < 0)
		rc = refuse(err_msg, SLURM_ERROR, "--extra: out of memory");
	sx_job_state_free(&st);
	sx_job_state_free(&now);
	return rc;
}

int modify_as(job_desc_msg_t *job_desc, const struct sx_guard_api *api,
	      void *job_ptr, uint32_t submit_uid, char **err_msg)
{
	struct prefer_change pc = { .wait = -1 };
	xc_expr_t *expr = NULL;
	char why[256] = "";
	int rc = SLURM_SUCCESS, got;

	if (!job_desc || !entry_on)
		return SLURM_SUCCESS;
	/* 22.05 ignores `extra` in an update: so does the plugin. */
	if (SX_SLURM_HAS_EXTRA_OPTION && job_desc->extra && *job_desc->extra &&
	    !(expr = parse_or_refuse(job_desc->extra, submit_uid, err_msg,
				     &rc)))
		return rc;
	/* a change of the preferences (slurm-extra prefer), its copy
	 * bounded (PREFER_TIERS_MAX) and freed here whatever the answer */
	got = prefer_change_from_env(job_desc->spank_job_env,
				     job_desc->spank_job_env_size,
				     request_limit(), &pc, why, sizeof(why));
	if (got < 0)
		rc = refuse(err_msg, SLURM_ERROR, "--extra: out of memory");
	else if (guard_keeps() && got)
		/* burst_buffer/extra reads the job's own data: Slurm's, but
		 * the state and a change of the preferences or the request
		 * in it (the state first, then an admin's text before it) */
		rc = guard_change_prefer(job_desc, api, job_ptr, submit_uid,
					 &pc, got, why, err_msg);
	else if (guard_keeps()) {
		rc = guard_change_request(job_desc, api, job_ptr, submit_uid,
					  err_msg);
		if (rc == SLURM_SUCCESS)
			rc = guard_keep_state(job_desc, api, job_ptr, err_msg);
	} else if (!sx_slurm_filters_extra()) {
		/* nothing would keep the job off by them */
		if (got || expr)
			rc = refuse(err_msg, ESLURM_NOT_SUPPORTED,
				    NO_FILTER_HERE);
	} else if (got) {
		/* Slurm filters by `extra` itself: a new request checked is
		 * Slurm's; preferences only burst_buffer/extra keeps */
		rc = refuse(err_msg, ESLURM_NOT_SUPPORTED, PREFER_NEEDS_GUARD);
	}
	prefer_change_free(&pc);
	xc_expr_destroy(expr);
	return rc;
}

/* burst_buffer/extra's view of the job records where Carrier=guard
 * reads them, else NULL (not read). */
static const struct sx_guard_api *guard_api(void)
{
	return guard_keeps() ? sx_guard_api() : NULL;
}

/* The job told to burst_buffer/extra's look wherever it runs beside,
 * which visits it once the update has applied and keeps its excluded
 * nodes in step (guard_api.h `job_changed`; doc/guard.md "The look"). */
static void tell_look(void *job_ptr)
{
	const struct sx_guard_api *api = sx_guard_api();

	if (api && job_ptr)
		api->job_changed(job_ptr);
}

/* An update of a job (slurmctld's job_submit_g_modify(), its locks held):
 * modify(), by the rules of doc/guard.md "Updates".  Slurm 22.05 calls
 * it with three arguments (src/slurmctld/job_submit.c: no err_msg), 23.02
 * and later with four; job_ptr (slurmctld's job record) is read and
 * written only through burst_buffer/extra (Carrier=guard: its
 * AdminComment, its owner).
 * errno is left as Slurm had it: _update_job() (src/slurmctld/job_mgr.c,
 * 22.05-26.05) answers a change of partition or account with errno when
 * _retrieve_new_assoc() finds no association (a cluster without
 * accounting), so an errno set here would be another answer. */
#if SX_MODIFY_HAS_ERR_MSG
int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid,
	       char **err_msg)
{
	int saved = errno, rc;

	tell_look(job_ptr);
	rc = modify_as(job_desc, guard_api(), job_ptr, submit_uid, err_msg);
	errno = saved;
	return rc;
}
#else
int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid)
{
	int saved = errno, rc;

	tell_look(job_ptr);
	rc = modify_as(job_desc, guard_api(), job_ptr, submit_uid, NULL);
	errno = saved;
	return rc;
}
#endif
