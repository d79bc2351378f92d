/*
 * look_leftover.c - the waiting jobs that keep what an earlier release's
 * thread set (look_leftover.h).
 */
#include "config.h" /* Slurm's, from the configured tree */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/job_scheduler.h"
#include "src/slurmctld/slurmctld.h"
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
#include "src/common/extra_constraints.h"
#endif
/* (built against 22.05.8 and 24.11.5: the versions between are read as
 * their headers say, unchecked) */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
#include "src/interfaces/node_features.h"
#else
#include "src/common/node_features.h"
#endif
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
#define FEATURES_VALID(text, list) node_features_g_job_valid(text, list)
#else
#define FEATURES_VALID(text, list) node_features_g_job_valid(text)
#endif

#include "carrier.h"
#include "guard.h"
#include "guard_slurm.h"
#include "look_leftover.h"
#include "prefer.h"
#include "xc.h"

extern const char plugin_type[]; /* burst_buffer_extra.c's */

/* The waiting jobs of a walk that keep what job_submit/extra's thread
 * had set on them (sx_job_state_by_thread(): a cluster switched to the
 * guard alone with such jobs waiting): counted, the first LEFTOVER_GIVE
 * given back at the walk's end (look_leftover_give()), the others at the
 * next walks. */
#define LEFTOVER_GIVE 16
/* what the user's own lists given back in one walk may hold, bytes (each
 * is parsed as a hostlist, as Slurm parsed it at submission) */
#define LEFTOVER_TEXT (64 * 1024)
#define LEFTOVER_NAMED 8
static struct {
	size_t n; /* found in the walk */
	uint32_t ids[LEFTOVER_GIVE];
	bool save; /* some given back: the job state to save */
} leftover;

/* Whether an earlier release's thread's hold is on job `job_ptr` (as its
 * plugin_hold_on() read it): held=1 given at the restart count the job
 * has now, priority 0 with a hold's reason. */
static bool threads_hold(const job_record_t *job_ptr,
			 const struct sx_job_state *st)
{
	return sx_job_state_held_now(st, job_ptr->restart_cnt) &&
	       job_ptr->priority == 0 &&
	       (job_ptr->state_reason == WAIT_HELD ||
		job_ptr->state_reason == WAIT_HELD_USER);
}

/* Whether the job's ExcNodeList `exc` ("" for none) is the one the thread
 * wrote (its text's hash the state's wrote=) and not the user's own. */
static bool threads_exc(const char *exc, const struct sx_job_state *st)
{
	return xc_text_hash(exc) == st->wrote &&
	       strcmp(exc, st->exclude ? st->exclude : "") != 0;
}

/* Whether waiting job `job_ptr`, its state `st` as records_request_of()
 * read it (from 23.02 only when it holds preferences: else read here),
 * keeps what the thread set on it where it filtered
 * (sx_job_state_by_thread()): its feature last in the job's Features or
 * --prefer (sx_constraint_last_ours(): where the carrier ANDs it in), its
 * hold, or the ExcNodeList it wrote (its text's hash the state's wrote=)
 * where that is not the user's own; or, where Slurm filtered (23.02+), a
 * preference's tier it wrote into the job's Extra, which the guard would
 * take for the request.  What an admin or the user changes since is not
 * counted.  A state with the guard's status (nearly every job) is told by
 * one search of its text. */
static bool keeps_threads(const job_record_t *job_ptr,
			  const struct sx_job_state *st)
{
	__typeof__(job_ptr->details) details = job_ptr->details;
	struct sx_job_state mine = { 0 };
	char name[SX_FEATURE_LEN + 1];
	const char *exc = details->exc_nodes ? details->exc_nodes : "";
	bool keeps = false;

	if (!job_ptr->admin_comment ||
	    strstr(job_ptr->admin_comment, SX_GUARD_STATUS))
		return false;
	if (!st->status) {
		if (!sx_job_state_parse(job_ptr->admin_comment, &mine))
			return false;
		st = &mine;
	}
	if (sx_job_state_by_thread(st))
		keeps = sx_constraint_last_ours(details->features, name) ||
			sx_constraint_last_ours(details->prefer, name) ||
			threads_hold(job_ptr, st) || threads_exc(exc, st);
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
	else
		keeps = sx_job_state_narrowed_by_thread(st, job_ptr->extra);
#endif
	sx_job_state_free(&mine);
	return keeps;
}

void look_leftover_begin(void)
{
	leftover.n = 0;
}

void look_leftover_add(struct job_record *job_ptr,
		       const struct sx_job_state *st)
{
	if (guard_slurm_alone() && keeps_threads(job_ptr, st) &&
	    leftover.n++ < LEFTOVER_GIVE)
		leftover.ids[leftover.n - 1] = job_ptr->job_id;
}

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
#define FEATURE_LIST(job_ptr, prefer) build_feature_list(job_ptr, prefer, false)
#else
#define FEATURE_LIST(job_ptr, prefer) build_feature_list(job_ptr, prefer)
#endif

/* The job's Features (`prefer`: its --prefer) set to `own` ("" clears
 * them), its feature list built again and checked by the node features
 * plugin, the lists Slurm tries pointed again, as _update_job() does
 * (src/slurmctld/job_mgr.c).  False, the job's as they were, when Slurm
 * refuses them. */
static bool constraint_back(job_record_t *job_ptr, const char *own, bool prefer)
{
	__typeof__(job_ptr->details) details = job_ptr->details;
	char **text = prefer ? &details->prefer : &details->features;
	__typeof__(details->feature_list) *list =
		prefer ? &details->prefer_list : &details->feature_list;
	char *old = *text;
	__typeof__(details->feature_list) old_list = *list;

	bool ok;

	*list = NULL;
	*text = *own ? xstrdup(own) : NULL;
	ok = !*text || (!FEATURE_LIST(job_ptr, prefer) &&
			FEATURES_VALID(*text, *list) == SLURM_SUCCESS);
	if (!ok) { /* the job's as they were */
		FREE_NULL_LIST(*list);
		xfree(*text);
		*text = old;
		*list = old_list;
		old = NULL;
		old_list = NULL;
	}
	/* the lists Slurm tries pointed again before any is freed (the one
	 * it tries first, as at submission; build_feature_list() may have
	 * cleared them) */
	set_job_features_use(details);
	xfree(old);
	FREE_NULL_LIST(old_list);
	return ok;
}

/* The job's ExcNodeList set to the user's own `own` ("" for none), text
 * and bitmap, as _update_job() does; from 24.11 with the nodes outside
 * its required ones too when it requires more than it asks for (Slurm
 * then drops the required set: _update_job(), src/slurmctld/job_mgr.c
 * 24.11.5 line 13579).  False, the job's as it was, when a node of it is
 * not slurmctld's (one taken out of slurm.conf since). */
static bool excluded_back(job_record_t *job_ptr, const char *own)
{
	__typeof__(job_ptr->details) details = job_ptr->details;
	bitstr_t *bits = NULL;

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
	if (*own && node_name2bitmap((char *)own, false, &bits, NULL)) {
		FREE_NULL_BITMAP(bits);
		return false;
	}
	if (details->req_nodes && !details->req_node_bitmap) {
		bitstr_t *req = NULL;

		if (node_name2bitmap(details->req_nodes, false, &req, NULL)) {
			FREE_NULL_BITMAP(req);
			FREE_NULL_BITMAP(bits);
			return false;
		}
		if (bit_set_count(req) > (int64_t)details->min_nodes) {
			if (!bits)
				bits = bit_alloc(node_record_count);
			bit_or_not(bits, req);
		}
		FREE_NULL_BITMAP(req);
	}
#else
	if (*own && node_name2bitmap((char *)own, false, &bits)) {
		FREE_NULL_BITMAP(bits);
		return false;
	}
#endif
	xfree(details->exc_nodes);
	details->exc_nodes = *own ? xstrdup(own) : NULL;
	FREE_NULL_BITMAP(details->exc_node_bitmap);
	details->exc_node_bitmap = bits;
	return true;
}

/* The thread's hold on job `job_ptr` released, as Slurm releases a hold
 * (_release_job_rec(), src/slurmctld/job_mgr.c). */
static void hold_back(job_record_t *job_ptr)
{
	time_t now = time(NULL);

	if (job_ptr->details && job_ptr->details->begin_time < now)
		job_ptr->details->begin_time = 0;
	job_ptr->direct_set_prio = 0;
	set_job_prio(job_ptr);
	job_ptr->state_reason = WAIT_NO_REASON;
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
	job_state_unset_flag(job_ptr, JOB_SPECIAL_EXIT);
#else
	job_ptr->job_state &= ~JOB_SPECIAL_EXIT;
#endif
	xfree(job_ptr->state_desc);
	job_ptr->exit_code = 0;
}

/* What give_back() left, said in its log line. */
static void left_add(char *left, size_t size, const char *what)
{
	size_t at = strlen(left);

	snprintf(left + at, size - at, "%s%s", at ? "; " : "", what);
}

/* Gives waiting job `job_ptr` back what the thread set on it that it
 * still keeps (keeps_threads()): its feature out of its Features and
 * --prefer (when it is the feature of the job's request or of one of its
 * preferences: prefer_carried_by()), the user's own ExcNodeList, its hold
 * released, its request as its Extra (23.02+); a job Slurm marked
 * BadConstraints meanwhile given its priority back, as any update does.
 * Its state then the guard's, so that it is not taken again.  What Slurm
 * refuses (a node or feature it no longer knows), a feature of the
 * plugin's shape that is not the job's request's, and a federated job
 * (whose siblings Slurm updates only through _update_job()) stay, said in
 * the log with what to do.  *text: the bytes of hostlist parsed, added
 * to.  2 when something was given back, 1 when nothing could be (its
 * state is the guard's all the same), 0 when the job was not the
 * thread's or its state could not be written (out of memory). */
static int give_back(job_record_t *job_ptr, size_t *text)
{
	__typeof__(job_ptr->details) details = job_ptr->details;
	struct sx_job_state st = { 0 };
	char name[SX_FEATURE_LEN + 1], left[512] = "", *own, *state;
	const char *exc;
	struct guard *g = guard_slurm_guard();
	bool changed = false;
	int ours, was = 0;

	if (!details || !IS_JOB_PENDING(job_ptr) || !job_ptr->admin_comment ||
	    !sx_job_state_parse(job_ptr->admin_comment, &st) ||
	    !keeps_threads(job_ptr, &st))
		goto out;
	if (job_ptr->fed_details) {
		left_add(
			left, sizeof(left),
			"all of it (a federated job: update it with scontrol, which updates its siblings)");
		goto state;
	}
	for (int p = 0; p < 2; p++) {
		const char *c = p ? details->prefer : details->features;

		if (!sx_constraint_last_ours(c, name))
			continue;
		if ((ours = prefer_carried_by(&st, g ? guard_limits(g) : NULL,
					      name)) < 0)
			goto nomem;
		if (!ours) {
			left_add(
				left, sizeof(left),
				p ? "the feature last in its --prefer, not its request's (the user's own, or the thread's for a request the job had before)"
				  : "the feature last in its Features, not its request's (the user's own, or the thread's for a request the job had before)");
			continue;
		}
		if (!(own = sx_constraint_own(c, name)))
			goto nomem;
		if (constraint_back(job_ptr, own, p))
			changed = true;
		else
			left_add(
				left, sizeof(left),
				p ? "the thread's feature in its --prefer (Slurm refused the user's own)"
				  : "the thread's feature in its Features (Slurm refused the user's own)");
		free(own);
	}
	exc = details->exc_nodes ? details->exc_nodes : "";
	if (sx_job_state_by_thread(&st) && threads_exc(exc, &st)) {
		*text += strlen(st.exclude ? st.exclude : "");
		if (excluded_back(job_ptr, st.exclude ? st.exclude : ""))
			changed = true;
		else
			left_add(
				left, sizeof(left),
				"the thread's ExcNodeList (Slurm refused the user's own)");
	}
	if (sx_job_state_by_thread(&st) && threads_hold(job_ptr, &st)) {
		hold_back(job_ptr);
		changed = true;
	}
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
	if (sx_job_state_narrowed_by_thread(&st, job_ptr->extra)) {
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
		elem_t *head = NULL;

		if (extra_constraints_parse(st.request, &head) !=
		    SLURM_SUCCESS) {
			left_add(
				left, sizeof(left),
				"a preference's tier in its Extra (Slurm refused its request)");
		} else {
			xfree(job_ptr->extra);
			job_ptr->extra = xstrdup(st.request);
			FREE_NULL_EXTRA_CONSTRAINTS(job_ptr->extra_constraints);
			job_ptr->extra_constraints = head;
			changed = true;
		}
#else
		xfree(job_ptr->extra);
		job_ptr->extra = xstrdup(st.request);
		changed = true;
#endif
	}
#endif
	/* a job Slurm found no node for with what the thread had set gets
	 * its priority back, as at any update (_update_job()) */
	if (changed && job_ptr->state_reason == FAIL_BAD_CONSTRAINTS) {
		job_ptr->direct_set_prio = 0;
		set_job_prio(job_ptr);
		job_ptr->state_reason = WAIT_NO_REASON;
	}
state:
	/* the guard's state from now: what is left is not taken again (a
	 * note of the check at start kept in front, job_state.h) */
	if (!(state = sx_status_keep_note(st.status, SX_GUARD_STATUS)))
		goto nomem;
	free(st.status);
	st.status = state;
	st.held = false;
	st.held_at = 0;
	st.wrote = xc_text_hash(details->exc_nodes ? details->exc_nodes : "");
	if (!(state = sx_job_state_format(&st)))
		goto nomem;
	xfree(job_ptr->admin_comment);
	job_ptr->admin_comment = xstrdup(state);
	free(state);
	was = changed ? 2 : 1;
	if (*left)
		error("%s: %pJ keeps some of what job_submit/extra's thread set on it before the guard filtered alone, which may keep it off nodes that satisfy its request: %s; set it to the user's own with scontrol update (exclude= and request= in its AdminComment)",
		      plugin_type, job_ptr, left);
	goto out;
nomem:
	error("%s: out of memory giving %pJ back what job_submit/extra's thread set on it: the next walks take what is left",
	      plugin_type, job_ptr);
out:
	sx_job_state_free(&st);
	return was;
}

bool look_leftover_give(void)
{
	char ids[LEFTOVER_NAMED * 24 + 8] = "";
	size_t given = 0, taken = 0, text = 0, at = 0, k;

	if (!guard_slurm_alone() || !leftover.n)
		return false;
	for (k = 0; k < leftover.n && k < LEFTOVER_GIVE && text < LEFTOVER_TEXT;
	     k++) {
		job_record_t *job_ptr = find_job_record(leftover.ids[k]);
		int r = job_ptr ? give_back(job_ptr, &text) : 0;

		taken += r > 0;
		if (r < 2 || given++ >= LEFTOVER_NAMED)
			continue;
		/* (an array's task as squeue names it) */
		if (job_ptr->array_task_id != NO_VAL)
			at += (size_t)snprintf(ids + at, sizeof(ids) - at,
					       "%s%u_%u", given > 1 ? ", " : "",
					       job_ptr->array_job_id,
					       job_ptr->array_task_id);
		else
			at += (size_t)snprintf(ids + at, sizeof(ids) - at,
					       "%s%u", given > 1 ? ", " : "",
					       job_ptr->job_id);
	}
	if (taken)
		leftover.save = true;
	if (given)
		info("%s: gave %zu waiting jobs back what job_submit/extra's thread had set on them before the guard filtered alone (its feature in their Features or --prefer, its ExcNodeList, its hold, a preference's tier in their Extra): jobs %s%s%s",
		     plugin_type, given, ids,
		     given > LEFTOVER_NAMED ? ", ..." : "",
		     leftover.n > k ? "; the others at the next walks" : "");
	return taken > 0;
}

bool look_leftover_saved(void)
{
	bool save = leftover.save;

	leftover.save = false;
	return save;
}
