/*
 * memo.c - what a round of the re-filtering thread keeps for the next
 * (memo.h).  The texts and requests are json-c's hash tables (linkhash.h),
 * json-c being the library the plugin reads node Extra with.
 */
#include <json-c/linkhash.h>
#include <stdlib.h>
#include <string.h>

#include "memo.h"

#define WORD_BITS 64

static size_t words(size_t nodes)
{
	return (nodes + WORD_BITS - 1) / WORD_BITS;
}

static void request_free(struct memo_request *req)
{
	if (!req)
		return;
	free(req->canonical);
	xc_expr_destroy(req->expr);
	free(req->bits);
	free(req);
}

static void text_free(struct memo_text *t)
{
	if (!t)
		return;
	free(t->text);
	free(t);
}

int memo_init(struct refilter_memo *memo, unsigned full_round)
{
	memset(memo, 0, sizeof(*memo));
	memo->texts = lh_kchar_table_new(1024, NULL);
	memo->requests = lh_kchar_table_new(1024, NULL);
	if (!memo->texts || !memo->requests) {
		memo_free(memo);
		return -1;
	}
	memo->plan_all = true;
	memo->full_round = full_round;
	memo->normal = -1;
	return 0;
}

/* Drops request `r`'s evaluation (its bits and shared filter; counted
 * out of memo->bytes): evaluated again when a job needs it. */
static void forget(struct refilter_memo *memo, struct memo_request *r)
{
	if (r->bits)
		memo->bytes -= words(r->nodes) * 8;
	free(r->bits);
	r->bits = NULL;
	r->nodes = 0;
	r->base_ok = false;
	r->moves = ++memo->moves;
}

/* Table `*t` anew with its entries: json-c's linkhash leaves a deleted
 * entry's slot marked, and a lookup of a key not there walks past the
 * marks, so after as many deletions as live entries the table is copied.
 * Out of memory, the old one is kept. */
static void rehash(struct lh_table **t)
{
	int live = lh_table_length(*t);
	struct lh_table *fresh =
		lh_kchar_table_new(live > 512 ? 2 * live : 1024, NULL);
	struct lh_entry *e;

	if (!fresh)
		return;
	lh_foreach(*t, e)
	{
		if (lh_table_insert(fresh, lh_entry_k(e), lh_entry_v(e)) < 0) {
			lh_table_free(fresh);
			return;
		}
	}
	lh_table_free(*t);
	*t = fresh;
}

/* Frees the texts and requests no job had in the round just planned (all
 * of them when `all`): the tables hold no free function, the entries are
 * the memo's. */
static void sweep(struct refilter_memo *memo, bool all)
{
	struct lh_entry *e, *next;

	if (memo->texts)
		lh_foreach_safe(memo->texts, e, next)
		{
			struct memo_text *t = (struct memo_text *)lh_entry_v(e);

			if (all || t->used != memo->round) {
				lh_table_delete_entry(memo->texts, e);
				text_free(t);
				memo->deleted++;
			}
		}
	if (memo->requests)
		lh_foreach_safe(memo->requests, e, next)
		{
			struct memo_request *r =
				(struct memo_request *)lh_entry_v(e);

			if (all || r->used != memo->round) {
				memo->deleted++;
				lh_table_delete_entry(memo->requests, e);
				forget(memo, r);
				request_free(r);
			}
		}
}

void memo_free(struct refilter_memo *memo)
{
	if (!memo)
		return;
	sweep(memo, true);
	if (memo->texts)
		lh_table_free(memo->texts);
	if (memo->requests)
		lh_table_free(memo->requests);
	memset(memo, 0, sizeof(*memo));
}

/* Drops every request's evaluation, each marked changed from the next
 * round. */
static void drop_bits(struct refilter_memo *memo)
{
	struct lh_entry *e;

	lh_foreach(memo->requests, e)
	{
		struct memo_request *r = (struct memo_request *)lh_entry_v(e);

		forget(memo, r);
		r->changed = memo->round + 1;
	}
	memo->nodes = 0;
	memo->normal = -1;
}

void memo_nodes_changed(struct refilter_memo *memo, const xc_nodes_t *table,
			const size_t *nodes, const xc_extra_t *const *extras,
			size_t n)
{
	struct lh_entry *e;

	if (!memo->requests)
		return;
	if (xc_nodes_count(table) != memo->nodes) {
		memo_nodes_anew(memo);
		return;
	}
	lh_foreach(memo->requests, e)
	{
		struct memo_request *r = (struct memo_request *)lh_entry_v(e);
		bool moved = false;

		if (!r->bits)
			continue;
		if (r->nodes != memo->nodes) { /* not of this table: again */
			forget(memo, r);
			r->changed = memo->round + 1;
			continue;
		}
		for (size_t k = 0; k < n; k++) {
			size_t i = nodes[k];
			uint64_t bit = 1ULL << (i % WORD_BITS);
			bool was = r->bits[i / WORD_BITS] & bit,
			     now = xc_match(r->expr, extras[k]);

			if (was == now)
				continue;
			r->bits[i / WORD_BITS] ^= bit;
			moved = true;
		}
		if (moved) {
			r->base_ok = false;
			r->changed = memo->round + 1;
			r->moves = ++memo->moves;
		}
	}
}

void memo_nodes_anew(struct refilter_memo *memo)
{
	if (!memo->requests)
		return;
	drop_bits(memo);
	memo->plan_all = true;
}

void memo_plan_all(struct refilter_memo *memo)
{
	memo->plan_all = true;
}

uint64_t memo_round(struct refilter_memo *memo, bool *all)
{
	struct timespec now;
	bool due;

	clock_gettime(CLOCK_MONOTONIC, &now);
	due = memo->full_round == 0 ||
	      now.tv_sec - memo->last_all.tv_sec >= (time_t)memo->full_round;
	/* the backstop: every request evaluated again too, so that nothing
	 * the memo missed outlives it */
	if (due && memo->requests)
		drop_bits(memo);
	*all = memo->plan_all || due;
	if (*all)
		memo->last_all = now;
	memo->plan_all = false;
	return ++memo->round;
}

int memo_request_of(struct refilter_memo *memo, const char *text,
		    const xc_limits_t *limits, struct memo_request **request)
{
	struct memo_text *t = NULL;
	struct memo_request *r = NULL;
	xc_expr_t *expr = NULL;
	char *canonical = NULL;

	*request = NULL;
	if (lh_table_lookup_ex(memo->texts, text, (void **)&t)) {
		t->used = memo->round;
		if ((*request = t->request))
			t->request->used = memo->round;
		return 0;
	}
	if (!(t = calloc(1, sizeof(*t))) || !(t->text = strdup(text)))
		goto fail;
	/* Invalid (an admin edited it, or the limits shrank since): no
	 * request, which excludes nothing more. */
	if ((expr = xc_parse(text, limits, NULL))) {
		if (!(canonical = xc_format(expr)))
			goto fail;
		if (lh_table_lookup_ex(memo->requests, canonical,
				       (void **)&r)) {
			xc_expr_destroy(expr);
			free(canonical);
		} else {
			if (!(r = calloc(1, sizeof(*r))))
				goto fail;
			r->canonical = canonical;
			r->expr = expr;
			r->changed = memo->round;
			sx_feature_name(xc_text_hash(r->canonical), r->feature);
			canonical = NULL;
			expr = NULL;
			if (lh_table_insert(memo->requests, r->canonical, r) <
			    0) {
				request_free(r);
				goto fail_t;
			}
		}
		r->used = memo->round;
		t->request = r;
	}
	t->used = memo->round;
	if (lh_table_insert(memo->texts, t->text, t) < 0)
		goto fail_t;
	*request = t->request;
	return 0;
fail:
	xc_expr_destroy(expr);
	free(canonical);
fail_t:
	text_free(t);
	return -1;
}

int memo_matched(struct refilter_memo *memo, struct memo_request *req,
		 const xc_nodes_t *table, bool *matched, bool *evaluated)
{
	size_t count = xc_nodes_count(table), nw = words(count);

	*evaluated = false;
	if (memo->nodes != count) {
		/* the first evaluation since the memo began or the table was
		 * built anew; else a table of another size without
		 * memo_nodes_anew(): every request's bits are of the old one */
		if (memo->bytes)
			memo_nodes_anew(memo);
		memo->nodes = count;
	}
	if (req->bits && req->nodes != count) /* of another table */
		forget(memo, req);
	if (!req->bits) {
		uint64_t *bits = calloc(nw ? nw : 1, sizeof(*bits));

		if (!bits)
			return -1;
		if (xc_nodes_match(table, req->expr, matched) < 0) {
			free(bits);
			return -1;
		}
		for (size_t i = 0; i < count; i++)
			if (matched[i])
				bits[i / WORD_BITS] |= 1ULL << (i % WORD_BITS);
		req->bits = bits;
		req->nodes = count;
		req->moves = ++memo->moves;
		memo->bytes += nw * 8;
		*evaluated = true;
		return 0;
	}
	for (size_t i = 0; i < count; i++)
		matched[i] = (req->bits[i / WORD_BITS] >> (i % WORD_BITS)) & 1;
	return 0;
}

size_t memo_request_count(const struct memo_request *req)
{
	size_t n = 0;

	for (size_t w = 0;
	     req->bits && w < (req->nodes + WORD_BITS - 1) / WORD_BITS; w++)
		n += (size_t)__builtin_popcountll(req->bits[w]);
	return n;
}

void memo_round_end(struct refilter_memo *memo)
{
	sweep(memo, false);
	if (memo->deleted > 4096 &&
	    memo->deleted > (size_t)lh_table_length(memo->texts) +
				    (size_t)lh_table_length(memo->requests)) {
		rehash(&memo->texts);
		rehash(&memo->requests);
		memo->deleted = 0;
	}
}

uint64_t memo_mix_word(uint64_t h, uint64_t w)
{
	h ^= w;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

uint64_t memo_mix_text(uint64_t h, const char *s)
{
	size_t len = s ? strlen(s) : 0, k = 0;
	uint64_t w;

	for (; k + 8 <= len; k += 8) {
		memcpy(&w, s + k, 8);
		h = memo_mix_word(h, w);
	}
	w = 0;
	memcpy(&w, s ? s + k : "", len - k);
	h = memo_mix_word(h, w);
	return memo_mix_word(h, s ? len : ~(uint64_t)0);
}

static uint64_t mix_u32(uint64_t h, uint32_t v)
{
	return memo_mix_word(h, v);
}

uint64_t memo_job_print(const slurm_job_info_t *job)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	bool held = job->priority == 0;

	h = memo_mix_text(h, job->admin_comment);
	h = memo_mix_text(h, SX_JOB_EXTRA(job));
	h = memo_mix_text(h, job->req_nodes);
	h = memo_mix_text(h, job->features);
	h = memo_mix_text(h, job->prefer);
	h = mix_u32(h, job->num_nodes);
	h = mix_u32(h, job->job_state & JOB_STATE_BASE);
	h = mix_u32(h, held);
	/* the reason matters to a held job alone (plugin_hold_on): a pending
	 * job's reason and priority change with every scheduling pass */
	h = mix_u32(h, held ? job->state_reason : 0);
	h = mix_u32(h, job->array_job_id);
	h = mix_u32(h, job->array_task_id);
	h = mix_u32(h, job->het_job_id);
	h = mix_u32(h, job->het_job_offset);
	h = mix_u32(h, job->user_id);
	return h;
}
