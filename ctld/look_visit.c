/*
 * look_visit.c - what the look does to one job in slurmctld's records
 * (look_visit.h; doc/guard.md "The look"): its excluded nodes
 * set to what Slurm made of them | the nodes that fail its request, a
 * set given or taken back, what it counts for the census, the
 * preferences' ends and what a switch of filter left; and the sets
 * shared at a walk of every job's end.
 */
#include "config.h" /* Slurm's, from the configured tree */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "src/common/bitstring.h"
#include "src/common/log.h"
#include "src/slurmctld/slurmctld.h"

#include "guard.h"
#include "guard_slurm.h"
#include "guard_tiers.h"
#include "look.h"
#include "look_cands.h"
#include "look_census.h"
#include "look_dues.h"
#include "look_leftover.h"
#include "look_visit.h"
#include "ns_now.h"
#include "records.h"

extern const char plugin_type[]; /* burst_buffer_extra.c's */

struct look *look_lk;
bool look_want_whole, look_again, look_touched, look_slurm_filters;
time_t look_hold_now;
uint64_t look_hold_t0;
struct look_tally look_tally;
static bool said[5];

void look_say_once(int which, const char *what)
{
	if (said[which])
		return;
	said[which] = true;
	error("%s: the look: %s (said once)", plugin_type, what);
}

/* A set the look gave `job_ptr` taken back (freed: the job has none
 * again), when Slurm's own is empty; true when it was. */
static bool set_take_back(job_record_t *job_ptr)
{
	__typeof__(job_ptr->details) details = job_ptr->details;

	if (!details || !look_job_given(look_lk, job_ptr->job_id))
		return false;
	if (records_own_empty(details->exc_nodes, details->req_nodes,
			      details->req_node_bitmap))
		FREE_NULL_BITMAP(details->exc_node_bitmap);
	look_job_set_given(look_lk, job_ptr->job_id, false);
	look_tally.freed++;
	return true;
}

/* A job the look no longer carries (no request, an invalid one, no room
 * for it): what it set taken back, the job forgotten. */
static void job_drop(job_record_t *job_ptr)
{
	__typeof__(job_ptr->details) details = job_ptr->details;
	uint64_t *bits;

	if (!look_job_kept(look_lk, job_ptr->job_id))
		return; /* (most jobs: none with a request) */
	if (details->exc_node_bitmap &&
	    (bits = records_words(details->exc_node_bitmap,
				  node_record_count)) &&
	    look_job_restore(look_lk, job_ptr->job_id, bits,
			     records_rebuilt_from(details->exc_nodes,
						  details->req_nodes,
						  details->min_nodes)))
		look_touched = true; /* nodes given back: as a job update */
	look_touched |= set_take_back(job_ptr);
	look_job_forget(look_lk, job_ptr->job_id);
}

/* What one job's texts cost to read, in budget units. */
static size_t texts_cost(const job_record_t *job_ptr)
{
	__typeof__(job_ptr->details) details = job_ptr->details;
	size_t n = 0;

	if (details->exc_nodes)
		n += strlen(details->exc_nodes);
	if (details->req_nodes)
		n += strlen(details->req_nodes);
	if (job_ptr->admin_comment)
		n += strlen(job_ptr->admin_comment);
	return 1 + n / 64;
}

/* Where Slurm filters by the request itself: the nodes the guard kept
 * waiting job `job_ptr` off for a preference's tier (its state `st`; NULL:
 * no request) go back once, at this hold's clock, it picks none (the
 * wait over, the tiers or the request dropped): backfill plans by the
 * job's own set and places with a copy, so its placements never take
 * them back (guard.h).  A job whose wait ends later is listed among the
 * walk's dues, whose end queues a pass of the main scheduler, whose
 * placement takes them back. */
static void tier_bits_back(job_record_t *job_ptr, const struct sx_job_state *st)
{
	__typeof__(job_ptr->details) details = job_ptr->details;

	if (!details->exc_node_bitmap ||
	    (st &&
	     guard_tiers_apply(st, details->begin_time, look_hold_now, true)))
		return;
	if (guard_slurm_hand_over(job_ptr,
				  records_rebuilt_from(details->exc_nodes,
						       details->req_nodes,
						       details->min_nodes)))
		look_touched = true;
}

bool look_visit(struct guard *g, job_record_t *job_ptr, size_t nnodes,
		size_t *budget, enum look_visit_as how)
{
	bool give = how == LOOK_VISIT_SHARE, whole = how == LOOK_VISIT_WHOLE;
	__typeof__(job_ptr->details) details = job_ptr->details;
	struct sx_job_state st = { 0 };
	const char *text = NULL;
	struct guard_req *req;
	unsigned long long hash;
	enum look_did did;
	uint64_t *bits = NULL;
	bool fresh, own_empty, ok = true;
	size_t cost;
	int i;

	if (!details)
		goto out;
	if (!IS_JOB_PENDING(job_ptr)) {
		/* a set it gave a job that no longer waits: slurmctld
		 * packs none for it, but it is memory */
		if (look_job_kept(look_lk, job_ptr->job_id) &&
		    set_take_back(job_ptr))
			look_job_forget(look_lk, job_ptr->job_id);
		else /* (kept for a requeue; no change of Extra visits it) */
			look_job_park(look_lk, job_ptr->job_id);
		goto out;
	}
	cost = texts_cost(job_ptr);
	*budget -= cost < *budget ? cost : *budget;
	if (!(text = records_request_of(job_ptr, &st))) {
		if (look_slurm_filters)
			tier_bits_back(job_ptr, NULL);
		job_drop(job_ptr);
		goto out;
	}
	if (look_slurm_filters) { /* Slurm's to apply */
		tier_bits_back(job_ptr, &st);
		goto out;
	}
	if ((i = look_req_seen(look_lk, text, &fresh)) < 0) {
		look_say_once(
			0,
			"more distinct requests waiting than it carries: the others' jobs are kept off at their placement only");
		job_drop(job_ptr);
		goto out;
	}
	/* an invalid request (the limits shrank since) keeps nothing off;
	 * nor is a node the job requires (--nodelist) ever kept off: Slurm
	 * would take the job for never runnable (priority 0: schedule(),
	 * src/slurmctld/job_scheduler.c, 22.05.8 line 1930), where its own
	 * filter lets it wait; the guard keeps it waiting at its placement
	 * while a required node does not satisfy it */
	if (!(req = guard_request(g, text)) || details->req_node_bitmap) {
		job_drop(job_ptr);
		goto out;
	}
	if (look_req_changes(look_lk, i) != guard_changes(g) &&
	    (!*budget || !look_req_answer(look_lk, i, g, req, budget))) {
		/* its answers not given within this hold's budget: the
		 * next hold goes on from this job (the answers evaluated
		 * are kept) */
		ok = false;
		goto out;
	}
	if (details->exc_node_bitmap &&
	    !(bits = records_words(details->exc_node_bitmap, (int64_t)nnodes)))
		goto out; /* the node table being rebuilt */
	hash = records_rebuilt_from(details->exc_nodes, details->req_nodes,
				    details->min_nodes);
	own_empty = records_own_empty(details->exc_nodes, details->req_nodes,
				      details->req_node_bitmap);
	/* a set Slurm made its own, or freed, since the look gave it one
	 * (24.11 rebuilds the set at every job update) */
	if ((!own_empty || !bits) && look_job_given(look_lk, job_ptr->job_id))
		look_job_set_given(look_lk, job_ptr->job_id, false);
	guard_slurm_hand_over(job_ptr, hash);
	did = look_job_apply(look_lk, job_ptr->job_id, job_ptr->array_job_id, i,
			     bits, hash, own_empty);
	if (did == LOOK_NEED_SET) {
		if (!give) { /* given one at a whole walk's end */
			if (whole)
				look_cands_add(job_ptr->job_id,
					       job_ptr->priority);
			else
				look_want_whole = true;
			goto out;
		}
		details->exc_node_bitmap = bit_alloc(nnodes);
		bits = records_words(details->exc_node_bitmap, (int64_t)nnodes);
		look_job_set_given(look_lk, job_ptr->job_id, true);
		look_tally.set++;
		did = bits ? look_job_apply(look_lk, job_ptr->job_id,
					    job_ptr->array_job_id, i, bits,
					    hash, own_empty)
			   : LOOK_LEFT;
	} else if (whole && look_job_given(look_lk, job_ptr->job_id)) {
		/* holds one: kept if still among them */
		look_cands_add(job_ptr->job_id, job_ptr->priority);
	}
	cost = look_work(look_lk) / 64;
	*budget -= cost < *budget ? cost : *budget;
	look_touched |= did == LOOK_WRITTEN || did == LOOK_PATCHED;
	look_tally.written += did == LOOK_WRITTEN;
	look_tally.patched += did == LOOK_PATCHED;
	look_tally.left += did == LOOK_LEFT;
	if (did == LOOK_LEFT)
		look_say_once(
			1,
			"a job's excluded nodes too scattered to keep their base: it is kept off at its placement only");
out:
	/* counted once a walk, for the caps (look_census.h: where Slurm
	 * filters, the jobs with preferences alone, which the guard keeps),
	 * and the end of its preferences' wait followed (look_dues.h) */
	if (text && ok && whole) {
		look_leftover_add(job_ptr, &st);
		if (!look_slurm_filters || st.n_prefer)
			look_census_add(job_ptr->user_id, text, &st);
		if (st.n_prefer)
			look_dues_add(job_ptr->job_id, st.wait,
				      details->begin_time,
				      job_ptr->last_sched_eval);
	}
	sx_job_state_free(&st);
	return ok;
}

void look_sets_share(struct guard *g, size_t nnodes, size_t *budget)
{
	size_t ncands;
	const struct look_cand *cands = look_cands_sorted(LOOK_SETS, &ncands);

	for (size_t k = 0; k < ncands; k++) {
		job_record_t *job_ptr = find_job_record(cands[k].job_id);

		if (!job_ptr || !IS_JOB_PENDING(job_ptr))
			continue;
		if (k >= LOOK_SETS) {
			if (set_take_back(job_ptr))
				look_touched = true;
			continue;
		}
		/* (past the hold's budget or time: the next walk, soon) */
		if (!look_job_given(look_lk, job_ptr->job_id) &&
		    (!*budget ||
		     ns_now() - look_hold_t0 > LOOK_SHARE_UNTIL_NS ||
		     !look_visit(g, job_ptr, nnodes, budget, LOOK_VISIT_SHARE)))
			look_again = true;
	}
	if (ncands > LOOK_SETS)
		look_say_once(
			4,
			"more waiting jobs with a request and no excluded nodes than it gives sets to: those of the lowest priority are kept off at their placement only");
	look_cands_clear();
}
