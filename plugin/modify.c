/*
 * modify.c - job_modify() of JobSubmitPlugins=extra: an update of a job
 * by anyone but the plugin's thread, by the rules of doc/design.md
 * "Updates" (modify() below).  Runs with slurmctld's locks held: reads
 * and writes the thread's state only through thread.h, under its lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "carried.h"
#include "entry.h"
#include "job_filter.h"
#include "job_state.h"

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

/* xc_text_hash() of the change of preferences in `d`'s SPANK environment
 * (its entries of prefer.h), whole: linear in what the caller sent, read
 * once more after its parse. */
static uint64_t env_hash(const job_desc_msg_t *d)
{
	uint64_t h = 0;

	for (uint32_t i = 0; d->spank_job_env && i < d->spank_job_env_size; i++)
		if (d->spank_job_env[i] &&
		    strncmp(d->spank_job_env[i], PREFER_ENV,
			    strlen(PREFER_ENV)) == 0)
			h = h * 31 + xc_text_hash(d->spank_job_env[i]);
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

/* Whether update `d` sets a field the thread's plan reads besides a
 * change of preferences (a new request too, from 23.02). */
static bool sets_plan_fields(const job_desc_msg_t *d)
{
	return d->exc_nodes || d->req_nodes || d->features || d->prefer ||
	       d->admin_comment || d->priority != NO_VAL ||
	       (SX_SLURM_HAS_EXTRA_OPTION && d->extra);
}

/*
 * With the thread's lock held: an owner's change of the preferences of the
 * job update `d` names (`slurm-extra prefer`; prefer.h, struct
 * prefer_change; doc/design.md "Preferences", "Changing them"), read from
 * its SPANK environment (`got`: prefer_change_from_env()'s answer, `why`
 * its reason when 2), into hint `h` (its tiers moved out of `c`), which
 * the thread takes as it is at its next round.
 *   - Of a caller Slurm may still refuse (h->trusted false: 22.05, not the
 *     owner, root or SlurmUser of a job the thread knows) nothing is read:
 *     Slurm answers them as without the plugin.  Of a job the thread does
 *     not know yet (`k` NULL) on 22.05, a caller but root and SlurmUser is
 *     not trusted (the update's user_id is the caller's to send): the
 *     change is kept for the thread to take if the caller owns the job
 *     (prefer_verify), and refused by nobody: an invalid one is dropped,
 *     so that another user still gets Slurm's own refusal.
 *   - Otherwise it must come alone (Slurm may refuse the rest of the
 *     update after job_modify(), and the change would still be taken),
 *     each tier is checked as a request, and the wait.
 * SLURM_SUCCESS or the refusal.
 */
static int take_prefer(const job_desc_msg_t *d, struct prefer_change *c,
		       int got, const char *why, const struct known_job *k,
		       uint32_t submit_uid, struct job_hint *h, char **err_msg)
{
	/* 22.05, a job the thread does not know: h->trusted rests on the
	 * update's user_id, which the caller sends (Slurm sets it only when
	 * NO_VAL), so for a change nobody but root and SlurmUser is
	 * trusted: the thread checks that the caller owns the job */
	bool verify = !k && !SX_OWNER_CHECKED_FIRST && submit_uid != 0 &&
		      submit_uid != (uint32_t)thread_slurm_user(entry_thread);
	struct sx_job_state st = { 0 };
	int rc;

	if (!got || (!h->trusted && !verify))
		return SLURM_SUCCESS;
	if (verify) /* nothing but the owner check trusts it */
		h->trusted = false;
	/* a caller Slurm let update the job (23.02+: an operator, a
	 * coordinator) who is not its owner, root or SlurmUser: the
	 * preferences are the plugin's field, its owner's to change */
	if (k && !h->privileged && submit_uid != k->user_id)
		return refuse(
			err_msg, ESLURM_ACCESS_DENIED,
			"--extra-prefer: only the job's owner, root or SlurmUser changes its preferences");
	if (got == 2 || sets_plan_fields(d))
		return verify ? SLURM_SUCCESS
		       : got == 2
			       ? refuse(err_msg, ESLURM_INVALID_FEATURE, why)
			       : refuse(err_msg, ESLURM_INVALID_FEATURE,
					"--extra-prefer: change the preferences in an update of their own (slurm-extra prefer --job ID)");
	if (prefer_change_apply(c, &st) < 0)
		return refuse(err_msg, SLURM_ERROR, "--extra: out of memory");
	rc = check_tiers(&st, submit_uid, verify ? NULL : err_msg);
	sx_job_state_free(&st);
	if (rc != SLURM_SUCCESS)
		return verify ? SLURM_SUCCESS : rc;
	h->prefer_set = true;
	h->prefer_verify = verify;
	h->prefer = *c;
	c->tiers = NULL;
	return SLURM_SUCCESS;
}

/* Who hint `h` comes from: `submit_uid`, privileged when root or
 * SlurmUser; `trusted` when Slurm checked the caller before job_modify()
 * (23.02+) or will accept them (22.05: the owner, root, SlurmUser).  A
 * trusted hint counts among the hints of the owner of the job `k` it
 * names, any other among the caller's own (hints.h `owner`), so that
 * another user's updates never spend an owner's bounds. */
static void hint_caller(struct job_hint *h, const struct known_job *k,
			uint32_t submit_uid, bool trusted)
{
	h->caller = submit_uid;
	h->privileged = submit_uid == 0 ||
			submit_uid == (uint32_t)thread_slurm_user(entry_thread);
	h->trusted = trusted;
	h->owner = k && trusted ? k->user_id : submit_uid;
}

/*
 * Where Slurm filters by `extra` itself (23.11+ extra_constraints): a new
 * request was only checked, the rest is Slurm's.  A change of the
 * preferences (take_prefer(); Slurm checked the caller before
 * job_modify()) and a new request leave a hint: the thread takes the
 * first as it is and writes the job's `extra` and state from it
 * (thread_prefer.c), and the second makes its update of that job planned
 * before it stale (hints_newer()), so that an owner's new `extra` is not
 * overwritten.  SLURM_SUCCESS or the refusal.
 */
static int modify_own_filter(job_desc_msg_t *job_desc, uint32_t submit_uid,
			     struct prefer_change *c, int got, const char *why,
			     char **err_msg)
{
	struct job_hint h = { 0 };
	bool het_all;
	size_t pending;
	const struct known_job *k;
	int rc;

	if (!got && !(SX_SLURM_HAS_EXTRA_OPTION && job_desc->extra))
		return SLURM_SUCCESS;
	thread_lock(entry_thread);
	k = thread_known_target(entry_thread, job_desc, &h.id, &h.task,
				&h.offset, &het_all);
	hint_caller(&h, k, submit_uid, SX_OWNER_CHECKED_FIRST);
	rc = take_prefer(job_desc, c, got, why, k, submit_uid, &h, err_msg);
	if (rc == SLURM_SUCCESS) {
		bool change = h.prefer_set;

		if (change && thread_urgent_allowed(entry_thread, h.owner))
			thread_ask_urgent(entry_thread);
		if (!thread_hint(entry_thread, &h, &pending))
			slurm_verbose(
				"%s: more updates than the thread can follow (%zu pending); its next updates are planned anew",
				plugin_type, pending);
		if (change)
			read_change(job_desc, submit_uid);
	}
	prefer_change_free(&h.prefer);
	thread_unlock(entry_thread);
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
 * own extra_constraints on, a new request is only checked, and it and a
 * change of preferences hinted (modify_own_filter()).
 */
int modify(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	const struct known_job *k;
	struct job_hint h = { 0 };
	struct sx_job_state st = { 0 };
	struct prefer_change pc = { .wait = -1 };
	xc_expr_t *expr = NULL, *kept = NULL;
	bool het_all, stale, new_request, plan_field, hinted, required_out;
	bool carried = false, leave = false, change;
	char cname[SX_FEATURE_LEN + 1] = "";
	char *comment = NULL, why[256] = "";
	uint32_t id, task, offset;
	uint64_t request_hash = 0; /* of `expr` (admit()) */
	size_t pending;
	int rc = SLURM_SUCCESS, got;

	if (!job_desc || !entry_thread)
		return SLURM_SUCCESS;
	thread_lock(entry_thread);
	if (thread_own_update(entry_thread, job_desc, submit_uid, &stale)) {
		thread_unlock(entry_thread);
		return stale ? refuse(err_msg, SLURM_ERROR,
				      "--extra: the job changed since this update was planned")
			     : SLURM_SUCCESS;
	}
	/* the same change of preferences for the next record of a whole
	 * array or het job: read and hinted at the first */
	if (job_desc->spank_job_env && repeat_change(job_desc, submit_uid)) {
		thread_unlock(entry_thread);
		return SLURM_SUCCESS;
	}
	thread_unlock(entry_thread);
	/* 22.05 ignores `extra` in an update: so does the plugin. */
	if (SX_SLURM_HAS_EXTRA_OPTION && job_desc->extra && *job_desc->extra &&
	    !(expr = parse_or_refuse(job_desc->extra, submit_uid, err_msg,
				     &rc)))
		return rc;
	/* a change of the preferences (slurm-extra prefer) */
	if ((got = prefer_change_from_env(job_desc->spank_job_env,
					  job_desc->spank_job_env_size, &pc,
					  why, sizeof(why))) < 0) {
		xc_expr_destroy(expr);
		return refuse(err_msg, SLURM_ERROR, "--extra: out of memory");
	}
	if (sx_slurm_filters_extra()) { /* checked: the rest is Slurm's */
		rc = modify_own_filter(job_desc, submit_uid, &pc, got, why,
				       err_msg);
		prefer_change_free(&pc);
		xc_expr_destroy(expr);
		return rc;
	}
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
		xc_expr_destroy(expr);
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
		xc_expr_destroy(expr);
		return rc;
	}
	h.id = id;
	h.task = task;
	h.offset = offset;
	/* On 22.05 Slurm has not checked the caller yet: only the owner's,
	 * root's and SlurmUser's hints are taken (anyone else's update is
	 * refused, or theirs is an operator's: the job's data then show it,
	 * and the thread keeps what they set as the user's). */
	hint_caller(&h, k, submit_uid,
		    SX_OWNER_CHECKED_FIRST || submit_uid == 0 ||
			    submit_uid ==
				    (uint32_t)thread_slurm_user(entry_thread) ||
			    submit_uid == (k ? k->user_id : job_desc->user_id));
	h.hold = job_desc->priority == 0;
	new_request = SX_SLURM_HAS_EXTRA_OPTION && job_desc->extra != NULL;
	if ((rc = take_prefer(job_desc, &pc, got, why, k, submit_uid, &h,
			      err_msg)) == SLURM_SUCCESS &&
	    h.prefer_set && k && k->st.request) {
		/* the new tiers count against the caps as a submission's
		 * (alone in the update: no new request with them) */
		struct sx_job_state tiers = { 0 };
		xc_expr_t *req =
			xc_parse(k->st.request,
				 &thread_config(entry_thread)->limits, NULL);

		if (sx_job_state_copy_prefer(&k->st, &tiers) < 0 ||
		    prefer_change_apply(&h.prefer, &tiers) < 0)
			rc = refuse(err_msg, SLURM_ERROR,
				    "--extra: out of memory");
		else if (req)
			rc = admit(req, &tiers, k->user_id, NULL, err_msg);
		sx_job_state_free(&tiers);
		xc_expr_destroy(req);
	}
	if (rc != SLURM_SUCCESS) {
		thread_unlock(entry_thread);
		prefer_change_free(&h.prefer);
		prefer_change_free(&pc);
		xc_expr_destroy(expr);
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
	hinted = plan_field && (h.trusted || !k);
	/* A job carried by its request's feature keeps it in what the
	 * caller sets, or leaves the carrier for its ExcNodeList. */
	carried = k && !het_all && carried_now(k, cname);
	if (carried && carried_modify(job_desc, k, expr, cname, &leave) < 0)
		rc = refuse(err_msg, SLURM_ERROR, "--extra: out of memory");
	if (k && !het_all &&
	    (job_desc->exc_nodes || job_desc->req_nodes || leave)) {
		/* A request of its own, else the one the job has. */
		if (!expr && !new_request)
			kept = xc_parse(k->st.request,
					&thread_config(entry_thread)->limits,
					NULL);
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
		    (submit_uid == 0 ||
		     submit_uid == (uint32_t)thread_slurm_user(entry_thread)) &&
		    sx_job_state_parse(mark, &given) &&
		    sx_status_note_len(given.status))
			note = sx_status_keep_note(given.status, k->st.status);
		sx_job_state_free(&given);
		if (mark) {
			while (mark > job_desc->admin_comment &&
			       mark[-1] == ' ')
				mark--;
			*mark = '\0';
		}
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
		    (!(comment = sx_job_state_format(&st)) ||
		     set_desc_string(&job_desc->admin_comment, comment) < 0))
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
	prefer_change_free(&pc);
	free(comment);
	sx_job_state_free(&st);
	xc_expr_destroy(kept);
	xc_expr_destroy(expr);
	return rc;
}

/* An update of a job (slurmctld's job_submit_g_modify(), its locks held):
 * modify(), by the rules of doc/design.md "Updates".  Slurm 22.05 calls
 * it with three arguments (src/slurmctld/job_submit.c: no err_msg), 23.02
 * and later with four; job_ptr (slurmctld's job record) is not read.
 * errno is left as Slurm had it: _update_job() (src/slurmctld/job_mgr.c,
 * 22.05-26.05) answers a change of partition or account with errno when
 * _retrieve_new_assoc() finds no association (a cluster without
 * accounting), so an errno set here would be another answer. */
#if SX_MODIFY_HAS_ERR_MSG
int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid,
	       char **err_msg)
{
	int saved = errno, rc;

	(void)job_ptr;
	rc = modify(job_desc, submit_uid, err_msg);
	errno = saved;
	return rc;
}
#else
int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid)
{
	int saved = errno, rc;

	(void)job_ptr;
	rc = modify(job_desc, submit_uid, NULL);
	errno = saved;
	return rc;
}
#endif
