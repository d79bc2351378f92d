/*
 * modify.c - job_modify() of JobSubmitPlugins=extra: an update of a job
 * by anyone but the plugin's thread, by the rules of doc/guard.md
 * "Updates" (modify() below).  Runs with slurmctld's locks held: reads
 * and writes the thread's state only through thread.h, under its lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "carried.h"
#include "ctld.h"
#include "entry.h"
#include "job_filter.h"
#include "job_state.h"
#include "modify.h"

/* What job_modify() last set, to tell Slurm's repeat calls for the records
 * of one update (modify()); under the thread's lock. */
static struct {
	const job_desc_msg_t *desc; /* its last job_desc, */
	const char *exc;	    /* the ExcNodeList it set there */
	const char *admin;	    /* the AdminComment it set there */
	char **env;		    /* the SPANK environment it read a change
				       of preferences from, */
	uint32_t caller;	    /* from whom, */
	uint64_t hint_seq;	    /* the hint it left (thread_newest_hint) */
	uint64_t id_hash;	    /* text_hash() of its job_id_str, */
	uint64_t exc_hash;	    /* of the ExcNodeList it set, */
	uint64_t admin_hash;	    /* of the AdminComment it set */
	uint64_t env_hash;	    /* of that environment's change */
} last;

void modify_forget(void)
{
	memset(&last, 0, sizeof(last));
}

/* xc_text_hash() of the first 4 KB of `text` ("" for NULL): what tells a
 * repeat call of job_modify() (modify()), bounded, as it runs once per
 * record of a whole array under slurmctld's job write lock. */
static uint64_t text_hash(const char *text)
{
	char head[4096];
	size_t n = text ? strnlen(text, sizeof(head) - 1) : 0;

	if (n)
		memcpy(head, text, n);
	head[n] = '\0';
	return xc_text_hash(head);
}

/* A hash of the change of preferences in `d`'s SPANK environment: of the
 * values prefer_change_from_env() reads (prefer_env_value()), each by its
 * first 4 KB and its length up to the longest change read
 * (PREFER_TIERS_MAX), so bounded whatever the caller sent. */
static uint64_t env_hash(const job_desc_msg_t *d)
{
	size_t most = PREFER_TIERS_MAX(request_limit()) + 1;
	const char *names[] = { PREFER_VAR, PREFER_WAIT_VAR };
	uint64_t h = 0;

	for (size_t i = 0; i < 2; i++) {
		const char *v = prefer_env_value(
			d->spank_job_env, d->spank_job_env_size, names[i]);

		h = (h * 31 + text_hash(v)) * 31 + (v ? strnlen(v, most) : 0);
	}
	return h;
}

/* Whether `d` from `uid` is the update job_modify() last read a change of
 * preferences from, for the same job, in a repeat call (modify()): the
 * same job_desc with the same environment, and the hint it left still
 * the newest the thread has not taken (a later update, once the thread
 * took it, is read anew). */
static bool repeat_change(const job_desc_msg_t *d, uint32_t uid)
{
	return last.env && d == last.desc && d->spank_job_env == last.env &&
	       uid == last.caller && last.hint_seq &&
	       last.hint_seq == thread_newest_hint(entry_thread) &&
	       text_hash(d->job_id_str) == last.id_hash &&
	       env_hash(d) == last.env_hash;
}

/* Remembers that `d`'s change of preferences from `uid` was read, its
 * hint (if any) the newest. */
static void read_change(const job_desc_msg_t *d, uint32_t uid)
{
	last.desc = d;
	last.id_hash = text_hash(d->job_id_str);
	last.exc = last.admin = NULL;
	last.env = d->spank_job_env;
	last.env_hash = env_hash(d);
	last.caller = uid;
	last.hint_seq = thread_newest_hint(entry_thread);
}

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

/* Replaces a malloc'd string with a copy of `text`; -1 when out of
 * memory. */
static int replace_string(char **field, const char *text)
{
	char *copy = strdup(text);

	if (!copy)
		return -1;
	free(*field);
	*field = copy;
	return 0;
}

/*
 * With the thread's lock held: the plugin's filter kept on an update of
 * pending-only fields of known job `k` by someone else: the excluded nodes
 * it sets (or, for new required nodes, the user's own) become the user's
 * own, and the nodes whose Extra does not satisfy the request are added
 * to job_desc->exc_nodes, a field the caller is setting anyway (Slurm
 * checks it with their rights, as without the plugin), less the required
 * ones (Slurm refuses an update whose required nodes are excluded).  `h`
 * records what was set.  A list that is not a hostlist, or a request that
 * no longer parses, is left to Slurm as it is; a user's list beyond the
 * table is kept as written with the plugin's nodes after it
 * (filter_update_list(), whose cost is bounded by the table).  -1 when
 * out of memory.
 */
static int keep_filter(job_desc_msg_t *job_desc, const struct known_job *k,
		       const xc_expr_t *expr, struct job_hint *h)
{
	const xc_nodes_t *table = thread_table(entry_thread);
	struct update_list l = { 0 };
	bool *matched;
	int rc;

	if (!table || !expr)
		return 0;
	if (!(matched = filter_match(table, expr)))
		return -1;
	rc = filter_update_list(
		table, matched, job_desc->exc_nodes, k->st.exclude,
		job_desc->req_nodes ? job_desc->req_nodes : k->req_nodes, &l);
	free(matched);
	if (rc == 0 && set_desc_string(&job_desc->exc_nodes, l.exc) < 0)
		rc = -1;
	if (rc == 0) {
		last.exc = job_desc->exc_nodes;
		last.exc_hash = text_hash(job_desc->exc_nodes);
		h->exc = true;
		h->exc_hash = l.exc_hash;
		h->exc_text = l.exc_text;
		h->user_exc = l.user;
		l.user = NULL;
	}
	free(l.exc);
	free(l.user);
	return rc < 0 ? -1 : 0;
}

/* modify() where the plugin filters: the update `job_desc` by
 * `submit_uid`, its new request `expr` (NULL: none) and its change of
 * preferences `pc` (prefer_change_from_env()'s `got` and `why`; the
 * tiers moved into a hint when taken) read by modify(), which frees them
 * whatever this answers.  SLURM_SUCCESS or the refusal. */
static int modify_filtered(job_desc_msg_t *job_desc, uint32_t submit_uid,
			   const xc_expr_t *expr, struct prefer_change *pc,
			   int got, const char *why, char **err_msg)
{
	const struct known_job *k;
	struct job_hint h = { 0 };
	struct sx_job_state st = { 0 };
	xc_expr_t *kept = NULL;
	bool het_all, new_request, plan_field, hinted, required_out;
	bool carried = false, leave = false, change;
	char cname[SX_FEATURE_LEN + 1] = "";
	uint32_t id, task, offset;
	uint64_t request_hash = 0; /* of `expr` (admit()) */
	size_t pending;
	int rc = SLURM_SUCCESS;

	thread_lock(entry_thread);
	/* Slurm calls job_modify() once per record for an update of a whole
	 * array or heterogeneous job, with the same job_desc: the first
	 * call did it all (an AdminComment appended to again and again grew
	 * with every record).  The same job_desc still holding the very
	 * strings the plugin set there, with the texts it set and for the
	 * same job, is that: the addresses alone may be those of a later
	 * update's, allocated where the last one's were freed. */
	if (job_desc == last.desc &&
	    text_hash(job_desc->job_id_str) == last.id_hash &&
	    ((last.exc && job_desc->exc_nodes == last.exc &&
	      text_hash(job_desc->exc_nodes) == last.exc_hash) ||
	     (last.admin && job_desc->admin_comment == last.admin &&
	      text_hash(job_desc->admin_comment) == last.admin_hash))) {
		thread_unlock(entry_thread);
		return SLURM_SUCCESS;
	}
	last.desc = job_desc;
	last.id_hash = text_hash(job_desc->job_id_str);
	last.exc = last.admin = NULL;
	last.env = NULL;
	k = thread_known_target(entry_thread, job_desc, &id, &task, &offset,
				&het_all);
	/* A new request counts against the caps as a submission's does
	 * (else an update would pass them), for the job's owner. */
	if (expr &&
	    (rc = admit(expr, k ? &k->st : NULL, k ? k->user_id : submit_uid,
			&request_hash, err_msg)) != SLURM_SUCCESS) {
		thread_unlock(entry_thread);
		return rc;
	}
	h.id = id;
	h.task = task;
	h.offset = offset;
	/* On 22.05 Slurm has not checked the caller yet: only the owner's,
	 * root's and SlurmUser's hints are taken (anyone else's update is
	 * refused, or theirs is an operator's: the job's data then show it,
	 * and the thread keeps what they set as the user's).  The owner of a
	 * job the thread does not know is the update's user_id, which
	 * _update_job() sets to it before job_modify() (take_prefer()). */
	hint_caller(&h, k, submit_uid,
		    SX_OWNER_CHECKED_FIRST || submit_uid == 0 ||
			    submit_uid == (uint32_t)entry_self ||
			    submit_uid == (k ? k->user_id : job_desc->user_id));
	h.hold = job_desc->priority == 0;
	new_request = SX_SLURM_HAS_EXTRA_OPTION && job_desc->extra != NULL;
	rc = take_prefer(job_desc, pc, got, why, k, submit_uid, &h, err_msg);
	if (rc != SLURM_SUCCESS) {
		thread_unlock(entry_thread);
		prefer_change_free(&h.prefer);
		return rc;
	}
	/* A hint only for an update of a field the plan reads: anyone's
	 * update of anything else (a comment, a time limit) costs the thread
	 * nothing, and an untrusted one of a job the thread filters neither
	 * (Slurm refuses it, or it is an operator's, whose list the job's
	 * data show). */
	plan_field = job_desc->exc_nodes || job_desc->req_nodes ||
		     job_desc->priority != NO_VAL || job_desc->admin_comment ||
		     job_desc->features || job_desc->prefer || new_request ||
		     h.prefer_set;
	/* (an update naming no job by a number leaves none: Slurm refuses
	 * it, or on 26.05 it names one by its SLUID, which the plugin cannot
	 * tell: that change is read from the jobs' data when every job is
	 * next loaded and planned, hints_lose()) */
	hinted = plan_field && (h.trusted || !k) && id;
	if (plan_field && SX_JOB_ID_IS_SLUID(job_desc->job_id_str))
		thread_hint_lost(entry_thread);
	/* A job carried by its request's feature keeps it in what the
	 * caller sets, or leaves the carrier for its ExcNodeList. */
	carried = k && !het_all && carried_now(k, cname);
	if (carried && carried_modify(job_desc, k, expr, cname, &leave) < 0)
		rc = refuse(err_msg, SLURM_ERROR, "--extra: out of memory");
	if (k && !het_all &&
	    (job_desc->exc_nodes || job_desc->req_nodes || leave)) {
		/* A request of its own, else the one the job has. */
		if (!expr && !new_request)
			kept = xc_parse(k->st.request, &entry_cfg.limits, NULL);
	}
	required_out = k && !het_all && job_desc->req_nodes &&
		       filter_excludes_required(thread_table(entry_thread),
						expr ? expr : kept,
						job_desc->req_nodes);
	/* The plugin's exclusions: not for a job that stays carried (its
	 * list is its user's own). */
	if (rc == SLURM_SUCCESS && k && !het_all &&
	    ((!carried && (job_desc->exc_nodes || required_out)) || leave)) {
		if (keep_filter(job_desc, k, expr ? expr : kept, &h) < 0)
			rc = refuse(err_msg, SLURM_ERROR,
				    "--extra: out of memory");
	}
	if (!h.exc && job_desc->exc_nodes) {
		h.exc = true; /* as the caller set it: all the user's own */
		h.exc_hash = hostlist_hash(job_desc->exc_nodes);
	}
	if (rc == SLURM_SUCCESS && k && !het_all && job_desc->admin_comment) {
		/* A super user's AdminComment (Slurm checked before us),
		 * less any state of ours it holds (copied from `scontrol show
		 * job`): one state, always the plugin's. */
		char *mark = strstr(job_desc->admin_comment, SX_STATE_MARK);
		struct sx_job_state given = { 0 };
		char *note = NULL;

		/* The requeue note of `slurm-extra prolog-slurmctld`
		 * (SlurmUser's or root's), kept in front of the status (the
		 * thread keeps it there too); the rest of a given state is
		 * ignored.  Out of memory: the status as it was. */
		if (mark &&
		    (submit_uid == 0 || submit_uid == (uint32_t)entry_self) &&
		    sx_job_state_parse(mark, &given) &&
		    sx_status_note_len(given.status))
			note = sx_status_keep_note(given.status, k->st.status);
		sx_job_state_free(&given);
		cut_state(job_desc->admin_comment, mark);
		if (sx_job_state_copy(&k->st, job_desc->admin_comment, &st) <
			    0 ||
		    (h.user_exc && replace_string(&st.exclude, h.user_exc) < 0))
			rc = refuse(err_msg, SLURM_ERROR,
				    "--extra: out of memory");
		if (note && rc == SLURM_SUCCESS) {
			free(st.status);
			st.status = note;
			note = NULL;
		}
		free(note);
		st.held = st.held && !h.hold;
		if (h.exc) /* what this update sets */
			st.wrote = h.exc_hash;
		if (rc == SLURM_SUCCESS &&
		    set_desc_state(&job_desc->admin_comment, &st) < 0)
			rc = refuse(err_msg, SLURM_ERROR,
				    "--extra: out of memory");
		else {
			last.admin = job_desc->admin_comment;
			last.admin_hash = text_hash(job_desc->admin_comment);
		}
	}
	/* What the update changed of the job's filter and this call did not
	 * set: the thread at its next round, not at the pace of users'
	 * asks (JOBS_PACED_S, thread_private.h), at most once in
	 * HINTS_URGENT_S per owner (hints_urgent).  Of a job the thread has
	 * not seen (an id above its last load's: a job below it that it does
	 * not know has no request, or is not pending), its list, required
	 * nodes, constraint, --prefer (they may drop its feature, which
	 * job_modify() cannot tell without the thread) or request;
	 * of a job it knows, from a caller who may update it: a whole
	 * heterogeneous job's list, required nodes, constraint or --prefer,
	 * another request, a move off its feature, required nodes the
	 * request excludes (the job then held), a release of the plugin's
	 * hold, a change of its preferences. */
	if (rc == SLURM_SUCCESS && hinted &&
	    (!k ? id > thread_max_job_id(entry_thread) &&
			     (job_desc->exc_nodes || job_desc->req_nodes ||
			      job_desc->features || job_desc->prefer ||
			      new_request || h.prefer_set)
		: h.trusted && ((het_all &&
				 (job_desc->exc_nodes || job_desc->req_nodes ||
				  job_desc->features || job_desc->prefer)) ||
				leave ||
				(new_request &&
				 (!expr || request_hash != k->request_hash)) ||
				(required_out && !k->st.held) || h.prefer_set ||
				(k->st.held && job_desc->priority != NO_VAL &&
				 job_desc->priority != 0))) &&
	    thread_urgent_allowed(entry_thread, h.owner))
		thread_ask_urgent(entry_thread);
	change = rc == SLURM_SUCCESS && h.prefer_set;
	if (rc == SLURM_SUCCESS && hinted &&
	    !thread_hint(entry_thread, &h, &pending))
		slurm_verbose(
			"%s: more updates than the thread can follow (%zu pending); its next updates are planned anew",
			plugin_type, pending);
	if (change)
		read_change(job_desc, submit_uid);
	free(h.user_exc);
	prefer_change_free(&h.prefer);
	thread_unlock(entry_thread);
	sx_job_state_free(&st);
	xc_expr_destroy(kept);
	return rc;
}

/*
 * An update of a job by anyone but this plugin's thread.  Slurm alone
 * decides whether it is allowed and what it does; the plugin adds nothing
 * the caller could not set, and never writes its state on a caller's
 * behalf: AdminComment only where the caller sets it (Slurm checked them
 * as a super user before job_modify()), so a user's update is never
 * refused for a field the plugin added.
 *   - a new request (`extra`, 23.02+) is checked as at submission, so an
 *     invalid one never reaches Slurm's own parser;
 *   - new excluded or required nodes of a known pending job keep the
 *     plugin's exclusions (keep_filter());
 *   - a new AdminComment of a super user keeps the plugin's state after
 *     it; from root or SlurmUser, the requeue note of the check at start
 *     (`slurm-extra prolog-slurmctld`) in it is kept in front of the
 *     state's status (job_state.h);
 *   - a change of the preferences (`slurm-extra prefer`, in the update's
 *     SPANK environment) is checked and hinted (take_prefer());
 *   - everything is recorded as a hint for the thread (refilter.h), which
 *     takes it only once the job's data show Slurm applied the update
 *     (but a change of preferences, which they cannot show).
 * The thread's own update (in flight, from slurmctld's uid) passes, unless
 * someone else updated its job after the thread planned it.  With Slurm's
 * own extra_constraints on, a new request is only checked, and a change of
 * preferences refused unless burst_buffer/extra keeps them
 * (PREFER_NEEDS_GUARD).
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
 * the plugin's, as modify_filtered() keeps it for the jobs the thread
 * knows.  Any state of ours in the caller's text goes first, whatever the
 * record holds: Slurm hands the same job_desc to every record of an
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
	bool stale;
	int rc = SLURM_SUCCESS, got;

	if (!job_desc || !entry_on)
		return SLURM_SUCCESS;
	if (entry_thread && !guard_keeps()) {
		thread_lock(entry_thread);
		if (thread_own_update(entry_thread, job_desc, submit_uid,
				      &stale)) {
			thread_unlock(entry_thread);
			return stale ? refuse(err_msg, SLURM_ERROR,
					      "--extra: the job changed since this update was planned")
				     : SLURM_SUCCESS;
		}
		/* the same change of preferences for the next record of a
		 * whole array or het job: read and hinted at the first */
		if (job_desc->spank_job_env &&
		    repeat_change(job_desc, submit_uid)) {
			thread_unlock(entry_thread);
			return SLURM_SUCCESS;
		}
		thread_unlock(entry_thread);
	}
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
	} else if (!entry_thread) {
		/* Slurm filters by `extra` itself (no thread then): a new
		 * request checked is Slurm's; preferences only
		 * burst_buffer/extra keeps.  (Else the thread would follow
		 * a new request: refused without it.) */
		if (got)
			rc = refuse(err_msg, ESLURM_NOT_SUPPORTED,
				    PREFER_NEEDS_GUARD);
		else if (expr && !sx_slurm_filters_extra())
			rc = refuse(
				err_msg, SLURM_ERROR,
				"--extra: the job_submit/extra plugin's thread, which follows requests, is not running");
	} else
		rc = modify_filtered(job_desc, submit_uid, expr, &pc, got, why,
				     err_msg);
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

	rc = modify_as(job_desc, guard_api(), job_ptr, submit_uid, err_msg);
	errno = saved;
	return rc;
}
#else
int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid)
{
	int saved = errno, rc;

	rc = modify_as(job_desc, guard_api(), job_ptr, submit_uid, NULL);
	errno = saved;
	return rc;
}
#endif
