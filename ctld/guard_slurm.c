/*
 * guard_slurm.c - the guard at placement in Slurm's own records
 * (doc/guard.md "The guard at placement"): for one job slurmctld is
 * about to place, the nodes of its partitions Slurm may give it, read as
 * words, and those whose Extra does not satisfy its request now kept off
 * in its excluded nodes (guard_slurm.h).  What the guard keeps between
 * placements is guard.c's; the plugin's entry points are
 * burst_buffer_extra.c's.  Never a lock taken here: slurmctld holds the
 * job and node write locks (select_nodes()).
 */
#include "config.h" /* Slurm's, from the configured tree */

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/slurmctld/slurmctld.h"
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
#include "src/common/node_features.h"
#endif

#include "carrier.h"
#include "guard.h"
#include "guard_tiers.h"
#include "job_state.h"
#include "plugin_config.h"
#include "prefer.h"
#include "ns_now.h"
#include "records.h"
#include "xc_util.h"

#include "guard_slurm.h"

extern const char plugin_type[]; /* burst_buffer_extra.c's */

static struct guard *guard;
/* the look's base of a job's excluded nodes (look_slurm_base(), set by
 * the look's start: guard_slurm_on_base()) */
static guard_slurm_base_fn base_of;
static bool said_nomem;
static unsigned said_undecided; /* the reasons said, a bit each */

/* What the guard's placements cost, logged once a minute at most
 * (SlurmctldDebug=verbose; doc/benchmarks.md "The guard at placement"):
 * the attempts of jobs with a request, their time, the looks. */
#define STATS_EVERY_S 60
static struct {
	uint64_t attempts, ns, ns_max, looks[4];
	uint64_t tiers_over; /* placements that picked no tier: the budget */
	time_t since;
} stats;

/* The minute's figures into the log, and afresh. */
static void stats_log(time_t now)
{
	if (!stats.since)
		stats.since = now;
	if (now - stats.since < STATS_EVERY_S)
		return;
	if (stats.attempts)
		verbose("%s: %" PRIu64
			" placement attempts of jobs with a request in %ld s: %.1f us each on average, %.1f us at most; looks at every node %" PRIu64
			", at the candidates %" PRIu64
			", at those whose own stamp moved %" PRIu64
			", none %" PRIu64
			"; preferences not picked for the second's budget %" PRIu64,
			plugin_type, stats.attempts, (long)(now - stats.since),
			(double)stats.ns / 1e3 / (double)stats.attempts,
			(double)stats.ns_max / 1e3, stats.looks[GUARD_LOOK_ALL],
			stats.looks[GUARD_LOOK_CANDIDATES],
			stats.looks[GUARD_LOOK_REGISTERED],
			stats.looks[GUARD_LOOK_NONE], stats.tiers_over);
	memset(&stats, 0, sizeof(stats));
	stats.since = now;
}

static uint32_t *scratch; /* node indices, node_record_count of them */
static uint64_t *pool, *cand, *off, *usable; /* node sets, as words */
static size_t scratch_len;

int guard_slurm_load(void)
{
	struct plugin_config cfg;

	guard_slurm_config(&cfg);
	if (!records_words_laid_out()) {
		/* nothing else would keep jobs off, nor (where Slurm filters
		 * itself) pick their preferences, while job_submit/extra
		 * takes the requests: slurmctld is not to run so (it stops:
		 * its burst buffer plugin failed) */
		error("%s: Slurm's node sets are not laid out as this build reads them: the guard cannot filter (rebuild against this Slurm's source tree)",
		      plugin_type);
		return SLURM_ERROR;
	}
	if (!(guard = guard_create(&cfg.limits)))
		return SLURM_ERROR;
	/* the guard reads the free nodes for preferences with no wait, and
	 * where Slurm filters itself picks the preferences alone */
	(void)guard_slurm_set_alone(cfg.carrier_guard);
	guard_on_unusable(guard, guard_slurm_say_unusable, NULL);
	verbose("%s: loaded; jobs with an Extra request are kept off the nodes that do not satisfy it when placed",
		plugin_type);
	return SLURM_SUCCESS;
}

void guard_slurm_unload(void)
{
	guard_destroy(guard);
	guard = NULL;
	free(scratch);
	free(pool);
	free(cand);
	free(off);
	free(usable);
	records_release();
	scratch = NULL;
	pool = cand = off = usable = NULL;
	scratch_len = 0;
}

/* A job Slurm no longer has: a requeued one keeps its bitmap (22.05
 * does not rebuild it at a requeue), so a job is forgotten only once its
 * record is gone. */
static bool job_gone(uint32_t job_id, void *arg)
{
	(void)arg;
	return !find_job_record(job_id);
}

static void *bits_copy(const void *bits)
{
	return bit_copy((bitstr_t *)bits);
}

static bool bits_equal(const void *a, const void *b)
{
	return bit_size((bitstr_t *)a) == bit_size((bitstr_t *)b) &&
	       bit_equal((bitstr_t *)a, (bitstr_t *)b);
}

static void bits_free(void *bits)
{
	bitstr_t *b = bits;

	FREE_NULL_BITMAP(b);
}

static const struct guard_bits_ops bits_ops = { bits_copy, bits_equal,
						bits_free };

static void bits_clear(void *bits, uint32_t node, void *arg)
{
	(void)arg;
	if (node < (uint32_t)bit_size((bitstr_t *)bits))
		bit_clear((bitstr_t *)bits, node);
}

/* Whether node set `f` is the feature named `key`. */
static int feature_named(void *f, void *key)
{
	return ((node_feature_t *)f)->name &&
	       !strcmp(((node_feature_t *)f)->name, key);
}

/* The nodes the job could be given, as words: into `usable` the nodes
 * of its partitions not excluded (none when it goes by a feature no node
 * has: nothing then to place it on), into `pool` those of them having its
 * feature, when it goes by one (Slurm's own feature test keeps the
 * others off), into `cand` those
 * of them Slurm may choose now (avail_node_bitmap: select_nodes() ANDs
 * it into every choice, _pick_best_nodes(), node_scheduler.c 22.05.8
 * lines 1723, 1824, 1889).  `own`: the job's own excluded nodes when
 * `exc` holds the look's too (look_slurm_base()), read in their place.
 * False when a set is not as records_words() reads it (the node table
 * being rebuilt): Slurm decides. */
static bool candidates_of(job_record_t *job_ptr, bitstr_t *exc,
			  const uint64_t *own, const char *feature,
			  size_t words)
{
	int64_t nnodes = node_record_count;
	const uint64_t *avail = records_words(avail_node_bitmap, nnodes), *w;
	const uint64_t *ex = NULL, *feat = NULL;
	part_record_t *part_ptr;

	if (!avail || (exc && !(ex = records_words(exc, nnodes))))
		return false;
	if (own)
		ex = own;
	memset(pool, 0, words * sizeof(*pool));
	if (job_ptr->part_ptr_list) {
		void *it = list_iterator_create(job_ptr->part_ptr_list);
		bool ok = true;

		while (ok && (part_ptr = list_next(it))) {
			if (!part_ptr->node_bitmap)
				continue;
			if (!(w = records_words(part_ptr->node_bitmap, nnodes)))
				ok = false;
			for (size_t k = 0; ok && k < words; k++)
				pool[k] |= w[k];
		}
		list_iterator_destroy(it);
		if (!ok)
			return false;
	} else if (job_ptr->part_ptr && job_ptr->part_ptr->node_bitmap) {
		if (!(w = records_words(job_ptr->part_ptr->node_bitmap,
					nnodes)))
			return false;
		memcpy(pool, w, words * sizeof(*pool));
	}
	if (feature) {
		node_feature_t *f =
			active_feature_list
				? list_find_first(active_feature_list,
						  feature_named,
						  (void *)feature)
				: NULL;

		/* no node has it: none can carry the job */
		if (!f || !f->node_bitmap)
			memset(pool, 0, words * sizeof(*pool));
		else if (!(feat = records_words(f->node_bitmap, nnodes)))
			return false;
	}
	for (size_t k = 0; k < words; k++) {
		if (ex)
			pool[k] &= ~ex[k];
		usable[k] = pool[k];
		if (feat)
			pool[k] &= feat[k];
		cand[k] = pool[k] & avail[k];
	}
	return true;
}

/* The scratch sets for `nnodes` nodes; false when out of memory. */
static bool scratch_for(size_t nnodes)
{
	size_t words = GUARD_WORDS(nnodes);
	uint32_t *grown;
	uint64_t *p, *c, *o, *u;

	if (scratch_len >= nnodes)
		return true;
	if (!(grown = realloc(scratch, nnodes * sizeof(*grown))))
		return false;
	scratch = grown;
	p = calloc(words, sizeof(*p));
	c = calloc(words, sizeof(*c));
	o = calloc(words, sizeof(*o));
	u = calloc(words, sizeof(*u));
	if (!p || !c || !o || !u) {
		free(p);
		free(c);
		free(o);
		free(u);
		return false;
	}
	free(pool);
	free(cand);
	free(off);
	free(usable);
	pool = p;
	cand = c;
	off = o;
	usable = u;
	scratch_len = nnodes;
	return true;
}

/* Why the guard let Slurm decide a placement (said once each). */
enum undecided {
	UNDECIDED_NOMEM = 1,
	UNDECIDED_NOMEM_LOOK = 2,
	UNDECIDED_REBUILT = 4,
	UNDECIDED_LAYOUT = 8,
};

static void undecided(enum undecided why)
{
	if (said_undecided & why)
		return;
	said_undecided |= why;
	error("%s: %s: Slurm places such jobs as if the guard were not there (said once)",
	      plugin_type,
	      why == UNDECIDED_NOMEM ? "out of memory"
	      : why == UNDECIDED_NOMEM_LOOK
		      ? "out of memory reading the nodes' Extra"
	      : why == UNDECIDED_REBUILT
		      ? "a job's excluded nodes and the node table differ in size (the table being rebuilt)"
		      : "a node set not laid out as this build reads it");
}

/* The guard for one job (doc/guard.md "The guard at placement"): takes
 * back the bits it set at the job's last placement (only from a bitmap
 * equal to the one it left: guard.h), then keeps off every node Slurm
 * may give the job now (not otherwise excluded, available, in its
 * partitions, with its feature when it goes by one) whose Extra does not
 * satisfy its request now, by setting their bits.  What it reads of the
 * nodes' Extra costs what changed (guard_look_needed()); the answers are
 * kept per request and node (guard_verdict()).  Returns false when that
 * would leave the job fewer nodes satisfying its request than it asks
 * for: then it sets none, and the caller lets the job wait this once
 * (Slurm 22.05 fails a submission whose nodes are all excluded, and
 * Slurm's own filter lets such a job wait: src/slurmctld/job_mgr.c
 * job_allocate()), until the look's next walk keeps it waiting its own
 * way.  Where Slurm filters by the request itself, only a
 * preference's narrowing is kept off so (doc/preferences.md,
 * "Preferences"). */
static bool guard_job(job_record_t *job_ptr)
{
	struct sx_job_state st = { 0 }, with;
	/* 22.05's struct job_details, 24.11's job_details_t */
	__typeof__(job_ptr->details) details = job_ptr->details;
	struct guard_taken taken = { -1 };
	unsigned long long text_hash;
	bool backfill = records_in_backfill();
	size_t need, nnodes = (size_t)node_record_count, words, n = 0, left = 0;
	size_t failing, reach;
	const uint64_t *ex, *own, *free_now = NULL;
	guard_slurm_base_fn base;
	enum guard_look look;
	struct guard_req *req;
	const char *text;
	bitstr_t *exc;
	char feature[SX_FEATURE_LEN + 1];
	bool placeable = true, picks, waits, feature_by, over, slurm_filters;
	unsigned carried = 0;
	size_t allowed = 0, budget = 0, compared = 0, for_answers = 0;
	time_t now = time(NULL);
	uint64_t t0 = 0;
	unsigned tier = 0;
	char with_tier[40] = "";

	(void)guard_jobs_sweep(guard, &bits_ops, job_gone, NULL, 4);
	if (!details || !(text = records_request_of(job_ptr, &st)))
		goto out;
	t0 = ns_now();
	words = GUARD_WORDS(nnodes);
	if (!nnodes)
		goto out; /* no node: nothing to keep off */
	if (!scratch_for(nnodes)) {
		undecided(UNDECIDED_NOMEM);
		goto out;
	}
	if ((exc = details->exc_node_bitmap) &&
	    bit_size(exc) != node_record_count) {
		undecided(UNDECIDED_REBUILT);
		goto out;
	}
	/* where Slurm filters by the request itself (alone: the stage-in
	 * test), only a preference is the guard's to apply, while its wait
	 * lasts; the bits it set while one narrowed the job are taken back */
	if ((slurm_filters = records_slurm_filters()) &&
	    !guard_tiers_apply(&st, details->begin_time, now, true)) {
		if (exc && !backfill)
			guard_slurm_hand_over(
				job_ptr,
				records_rebuilt_from(details->exc_nodes,
						     details->req_nodes,
						     details->min_nodes));
		goto out;
	}
	look = guard_look_needed(guard, nnodes, last_node_update, now,
				 records_extra_unstamped);
	stats.looks[look]++;
	if (look == GUARD_LOOK_ALL) {
		if (guard_look_stamps(guard, nnodes, NULL, records_extra_at,
				      records_stamp_of, NULL, now, false) < 0) {
			undecided(UNDECIDED_NOMEM_LOOK);
			goto out;
		}
		guard_looked_all(guard, last_node_update, now);
	}
	/* an invalid request (the limits shrank since) keeps nothing off:
	 * Slurm decides (said once); out of memory, the same this once */
	if (!(req = guard_request(guard, text)))
		goto out;
	text_hash = records_rebuilt_from(details->exc_nodes, details->req_nodes,
					 details->min_nodes);
	if (exc && !backfill)
		(void)guard_job_take_back(guard, &bits_ops, job_ptr->job_id,
					  job_ptr->array_job_id, exc, text_hash,
					  &taken, bits_clear, NULL);
	/* the feature an earlier release's thread carried it by, ANDed in
	 * last (slurm/carrier.h); else its ExcNodeList */
	feature_by = sx_constraint_last_ours(details->features, feature);
	/* judged by the job's own excluded nodes, without the look's
	 * (look_slurm.h): a job none of whose nodes satisfies its request
	 * waits, where Slurm 22.05 would hold one whose nodes are all
	 * excluded (backfill's copy holds its reservations too: as it is) */
	base = __atomic_load_n(&base_of, __ATOMIC_ACQUIRE);
	own = backfill || !base ? NULL : base(job_ptr, text_hash);
	if (!candidates_of(job_ptr, exc, own, feature_by ? feature : NULL,
			   words)) {
		/* (never once init() found the layout: the bits taken
		 * back above are then Slurm's to decide without) */
		undecided(UNDECIDED_LAYOUT);
		goto out;
	}
	with = st;
	with.request = (char *)text;
	if ((waits = guard_tiers_apply(&with, details->begin_time, now,
				       guard_slurm_alone()))) {
		carried = guard_carried_tier(&st);
		/* a user's tiers take at most its share a second */
		allowed = budget =
			guard_tiers_allowance(guard, job_ptr->user_id, now);
	}
	picks = waits;
	if (picks &&
	    (look == GUARD_LOOK_CANDIDATES || look == GUARD_LOOK_REGISTERED)) {
		/* the texts a tier counts beyond those read anyway, one each
		 * (guard_tiers_compare()): past what the user may take, no
		 * tier is picked */
		const uint64_t *read = records_extra_unstamped ? pool : cand;
		size_t more = 0;

		for (size_t k = 0; k < words; k++)
			more += (size_t)__builtin_popcountll(usable[k] &
							     ~read[k]);
		picks = guard_tiers_compare(guard, allowed, more, now, &budget,
					    &compared);
	}
	for_answers = budget;
	if (waits && !picks)
		stats.tiers_over++;
	/* out of memory there: the nodes not read are kept off.  Where a
	 * change may come unstamped, the whole pool: its nodes Slurm may not
	 * choose now count among those left; with preferences, every node
	 * a tier counts (`usable` holds `pool`) */
	if (look == GUARD_LOOK_CANDIDATES || look == GUARD_LOOK_REGISTERED)
		(void)guard_look_stamps(guard, nnodes,
					picks			  ? usable
					: records_extra_unstamped ? pool
								  : cand,
					records_extra_at, records_stamp_of,
					NULL, now,
					look == GUARD_LOOK_REGISTERED);
	/* with no wait, a tier counts while one of its nodes is free */
	if (picks && with.wait <= 0)
		free_now = records_free_nodes(nnodes, now);
	/* the request it goes by now (`req` may be gone with another node
	 * count: guard_request()) */
	req = guard_effective(guard, &with, details->begin_time, now, picks,
			      carried, !feature_by || backfill, usable,
			      free_now, off, &budget, &tier, &over);
	if (waits)
		guard_tiers_spend(guard, job_ptr->user_id, now,
				  compared + (for_answers - budget));
	stats.tiers_over += over;
	if (!req)
		goto out;
	/* (where Slurm filters, by the request alone: Slurm's to apply) */
	if (slurm_filters && !tier)
		goto kept;
	if (tier)
		snprintf(with_tier, sizeof(with_tier), " and its preference %u",
			 tier);
	n = guard_keep_off(guard, req, pool, cand, off, scratch, &left);
	failing = n;
	/* Kept off, the job must still have as many nodes as it asks for
	 * that satisfy its request (Slurm would fail or hold a job whose
	 * nodes cannot hold it: doc/guard.md "The guard at placement"), and
	 * the guard must be able to
	 * take its bits back; else it sets none and the job waits this
	 * once.  Where the look's set is in the job's (`own`), what counts
	 * is the pool less that set as it is: it may still hold a node that
	 * has just come to satisfy the request, until the look's next walk,
	 * which this placement's look started (22.05 would hold a job whose
	 * remaining nodes cannot hold it as never runnable). */
	need = details->min_nodes ? details->min_nodes : 1;
	reach = left;
	ex = exc ? records_words(exc, node_record_count) : NULL;
	if (own && ex) {
		size_t ok;

		(void)guard_verdict(guard, req, pool, usable, &ok);
		reach = 0;
		for (size_t k = 0; k < words; k++)
			reach += (size_t)__builtin_popcountll(
				pool[k] & ~usable[k] & ~ex[k]);
	}
	/* a node the job requires (--nodelist) is never kept off: Slurm
	 * would take the job for never runnable and set its priority to 0
	 * (schedule(), 22.05.8 line 1930), where its own filter lets it wait
	 * (FAIL_CONSTRAINTS, select_nodes(), 24.11.5): the job waits */
	if (records_required_off(details->req_node_bitmap, scratch, n, ex, own,
				 words)) {
		verbose("%s: %pJ: a node it requires does not satisfy its request%s, or the look keeps it off: it waits this once",
			plugin_type, job_ptr, with_tier);
		placeable = false;
		n = 0;
		goto kept;
	}
	/* the nodes the look keeps off already are not the guard's to set
	 * or take back */
	if (n && ex) {
		size_t kept = 0;

		for (size_t k = 0; k < n; k++)
			if (!((ex[scratch[k] / 64] >> (scratch[k] % 64)) & 1))
				scratch[kept++] = scratch[k];
		n = kept;
	}
	if ((failing || reach < left) &&
	    (reach < need ||
	     (!backfill && n &&
	      !guard_job_can_record(guard, job_ptr->job_id, n)))) {
		verbose("%s: %pJ: %zu node(s) no longer satisfy its request%s and %zu do: it waits this once (%zu of them not kept off by the look)",
			plugin_type, job_ptr, failing, with_tier, left, reach);
		placeable = false;
		n = 0;
	}
kept:
	if (n) {
		if (!exc)
			exc = details->exc_node_bitmap =
				bit_alloc(node_record_count);
		for (size_t k = 0; k < n; k++)
			bit_set(exc, scratch[k]);
		verbose("%s: %pJ: %zu node(s) no longer satisfy its request%s: kept off at this placement%s",
			plugin_type, job_ptr, n, with_tier,
			backfill ? " (backfill)" : "");
	}
	if (exc && !backfill &&
	    guard_job_left(guard, &bits_ops, job_ptr->job_id, &taken, exc,
			   text_hash, scratch, n) < 0 &&
	    !said_nomem) {
		said_nomem = true; /* once: the bits stay until a rebuild */
		error("%s: out of memory: %pJ keeps %zu node(s) off until Slurm rebuilds its excluded nodes",
		      plugin_type, job_ptr, n);
	}
out:
	sx_job_state_free(&st);
	if (t0) {
		uint64_t ns = ns_now() - t0;

		stats.attempts++;
		stats.ns += ns;
		stats.ns_max = ns > stats.ns_max ? ns : stats.ns_max;
	}
	stats_log(now);
	return placeable;
}

int guard_slurm_place(struct job_record *job_ptr)
{
	if (!guard)
		return 1;
	return guard_job(job_ptr) ? 1 : 0;
}

struct guard *guard_slurm_guard(void)
{
	return guard;
}

bool guard_slurm_set_alone(bool alone)
{
	if (alone && !guard)
		return false;
	guard_alone_store(alone);
	return true;
}

void guard_slurm_on_base(guard_slurm_base_fn fn)
{
	__atomic_store_n(&base_of, fn, __ATOMIC_RELEASE);
}

bool guard_slurm_hand_over(struct job_record *job_ptr,
			   unsigned long long text_hash)
{
	struct guard_taken taken = { -1 };
	bitstr_t *exc =
		job_ptr->details ? job_ptr->details->exc_node_bitmap : NULL;

	if (!guard || !exc)
		return false;
	if (!guard_job_take_back(guard, &bits_ops, job_ptr->job_id,
				 job_ptr->array_job_id, exc, text_hash, &taken,
				 bits_clear, NULL))
		return false;
	(void)guard_job_left(guard, &bits_ops, job_ptr->job_id, &taken, exc,
			     text_hash, NULL, 0);
	return true;
}
