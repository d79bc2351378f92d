/*
 * columns.c - a node table compiled into columns, one per key, so that a
 * leaf is evaluated for every node as one tight loop over an array
 * instead of a walk of each node's Extra (issue 10).  The results are
 * those of eval.c's tree evaluator, node for node (sem 3): the two are
 * checked against each other by every evaluation row and by a fuzz target.
 *
 * A column gives each node one code for its value of the key:
 *   0                      no value that compares: the key is missing, or
 *                          its value is null, an object or an array;
 *   1 .. N                 a number: 1 + its place among the column's
 *                          distinct numbers in increasing order, NaN last;
 *   N+1 .. N+S             a string: likewise among its distinct strings
 *                          in strcmp order;
 *   N+S+1, N+S+2           false, true.
 * For a given request value, each class splits into at most three runs of
 * codes, LT, EQ and GT (sem 3):
 *   numbers, sem 3.2: d = x - v is monotonic in x, so the x with
 *     d <= -epsilon and x < v (LT) come first, then |d| < epsilon (EQ),
 *     then the rest (GT, NaN included): two binary searches over the
 *     distinct numbers, each testing the same expressions as eval.c;
 *   strings: strcmp order itself: one binary search;
 *   booleans: false < true against the value read by sem 3.3.
 * The operator keeps some of LT, EQ, GT, so a leaf keeps a few ranges of
 * codes; a node satisfies the leaf when its code is in one of them.  That
 * is one pass of integer compares over the column, which the compiler
 * vectorises; a group ANDs or ORs its children's byte arrays.
 */
/* GCC's -O2 vectorises only loops it deems very cheap, which leaves out
 * the code compares below (uint32 codes to byte results): this file asks
 * for its usual cost model.  (clang vectorises them at -O2.) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xc_private.h"

/* Nodes are processed in blocks of this many (the arrays are padded with
 * code 0), so that every inner loop has a fixed trip count. */
#define BLOCK 64

/* The deepest request evaluated by columns (see xc_columns_match). */
#define MAX_LEVELS 32

struct column {
	char *key;
	uint32_t *code; /* per node (padded to a whole block) */
	double *nums;	/* distinct numbers, increasing, NaN last */
	size_t nnums;
	const char **strs; /* distinct strings, strcmp order (borrowed) */
	size_t nstrs;
	bool bools; /* some node has a boolean */
};

struct xc_columns {
	size_t n, npad; /* nodes; rounded up to a whole block */
	size_t ncols;	/* columns, sorted by key */
	struct column *cols;
	const xc_extra_t **extras; /* references held: strs point into them */
};

/* ------------------------------------------------------------ building */

/* An open-addressing map from strings to indices (keys to columns, a
 * column's strings to their ids). */
struct strmap {
	const char **keys;
	uint32_t *vals;
	size_t cap, count; /* cap a power of two */
};

static uint64_t hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static void strmap_free(struct strmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

static int strmap_grow(struct strmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	const char **keys = calloc(cap, sizeof(*keys));
	uint32_t *vals = malloc(cap * sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->keys[i])
			continue;
		for (j = hash(m->keys[i]) & (cap - 1); keys[j];
		     j = (j + 1) & (cap - 1))
			;
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

/* The index of `s` in `m`, adding it with index m->count when new (*added
 * set); -1 when out of memory. */
static int64_t strmap_put(struct strmap *m, const char *s, bool *added)
{
	size_t j;

	*added = false;
	if ((m->count + 1) * 2 > m->cap && strmap_grow(m) < 0)
		return -1;
	for (j = hash(s) & (m->cap - 1); m->keys[j]; j = (j + 1) & (m->cap - 1))
		if (strcmp(m->keys[j], s) == 0)
			return m->vals[j];
	m->keys[j] = s;
	m->vals[j] = (uint32_t)m->count++;
	*added = true;
	return m->vals[j];
}

/* What a column holds while it is built: per node its value's class and
 * value; the distinct strings by id. */
enum {
	CLS_NONE,
	CLS_NUM,
	CLS_STR,
	CLS_FALSE,
	CLS_TRUE
};

struct draft {
	uint8_t *cls;
	double *num;
	uint32_t *sid;
	struct strmap strings;
	const char **strs; /* by id */
	size_t nstrs, capstrs;
};

/* Frees a draft's arrays and clears it (so freeing it again is safe). */
static void draft_free(struct draft *d)
{
	free(d->cls);
	free(d->num);
	free(d->sid);
	free(d->strs);
	strmap_free(&d->strings);
	memset(d, 0, sizeof(*d));
}

static void column_free(struct column *c)
{
	free(c->key);
	free(c->code);
	free(c->nums);
	free(c->strs);
}

void xc_columns_destroy(struct xc_columns *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->ncols; i++)
		column_free(&t->cols[i]);
	free(t->cols);
	for (size_t i = 0; t->extras && i < t->n; i++)
		xc_extra_destroy((xc_extra_t *)t->extras[i]);
	free(t->extras);
	free(t);
	xc_live_add(-1);
}

/* Increasing, NaN last (all NaN alike). */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return (x > y) - (x < y);
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_col(const void *a, const void *b)
{
	return strcmp(((const struct column *)a)->key,
		      ((const struct column *)b)->key);
}

/* The place of `x` among the distinct sorted `nums` (it is there). */
static size_t number_place(const double *nums, size_t n, double x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_double(&nums[mid], &x) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Turns a draft into the column's codes. */
static int finish_column(struct column *c, struct draft *d, size_t n,
			 size_t npad)
{
	uint32_t *id_to_rank = NULL;
	size_t nnum = 0;

	if (!(c->code = calloc(npad, sizeof(*c->code))))
		return -1;
	/* distinct numbers, sorted */
	for (size_t i = 0; i < n; i++)
		nnum += d->cls[i] == CLS_NUM;
	if (nnum) {
		size_t k = 0;

		if (!(c->nums = malloc(nnum * sizeof(*c->nums))))
			return -1;
		for (size_t i = 0; i < n; i++)
			if (d->cls[i] == CLS_NUM)
				c->nums[k++] = d->num[i];
		qsort(c->nums, nnum, sizeof(*c->nums), cmp_double);
		k = 1;
		for (size_t i = 1; i < nnum; i++)
			if (cmp_double(&c->nums[i], &c->nums[k - 1]) != 0)
				c->nums[k++] = c->nums[i];
		c->nnums = k;
	}
	/* distinct strings, sorted; ids to ranks */
	if (d->nstrs) {
		struct strmap m = { 0 };
		bool added;

		if (!(c->strs = malloc(d->nstrs * sizeof(*c->strs))) ||
		    !(id_to_rank = malloc(d->nstrs * sizeof(*id_to_rank))))
			goto fail;
		memcpy(c->strs, d->strs, d->nstrs * sizeof(*c->strs));
		qsort(c->strs, d->nstrs, sizeof(*c->strs), cmp_strp);
		c->nstrs = d->nstrs;
		for (size_t r = 0; r < c->nstrs; r++)
			if (strmap_put(&m, c->strs[r], &added) < 0) {
				strmap_free(&m);
				goto fail;
			}
		for (size_t id = 0; id < d->nstrs; id++)
			id_to_rank[id] =
				(uint32_t)strmap_put(&m, d->strs[id], &added);
		strmap_free(&m);
	}
	for (size_t i = 0; i < n; i++) {
		switch (d->cls[i]) {
		case CLS_NUM:
			c->code[i] =
				(uint32_t)(1 + number_place(c->nums, c->nnums,
							    d->num[i]));
			break;
		case CLS_STR:
			c->code[i] = (uint32_t)(1 + c->nnums +
						id_to_rank[d->sid[i]]);
			break;
		case CLS_FALSE:
		case CLS_TRUE:
			c->bools = true;
			c->code[i] = (uint32_t)(1 + c->nnums + c->nstrs +
						(d->cls[i] == CLS_TRUE));
			break;
		}
	}
	free(id_to_rank);
	return 0;
fail:
	free(id_to_rank);
	return -1;
}

/* Adds the value `v` of node `i` to its column's draft. */
static int draft_add(struct draft *d, size_t i, const struct xc_value *v)
{
	bool added;
	int64_t id;

	switch (v->type) {
	case XC_VALUE_INT:
		d->cls[i] = CLS_NUM;
		d->num[i] = (double)v->u.i;
		break;
	case XC_VALUE_REAL:
		d->cls[i] = CLS_NUM;
		d->num[i] = v->u.d;
		break;
	case XC_VALUE_BOOL:
		d->cls[i] = v->u.b ? CLS_TRUE : CLS_FALSE;
		break;
	case XC_VALUE_STRING:
		if ((id = strmap_put(&d->strings, v->u.s, &added)) < 0)
			return -1;
		if (added) {
			if (d->nstrs == d->capstrs) {
				size_t cap = d->capstrs ? 2 * d->capstrs : 8;
				const char **s =
					realloc(d->strs, cap * sizeof(*s));

				if (!s)
					return -1;
				d->strs = s;
				d->capstrs = cap;
			}
			d->strs[d->nstrs++] = v->u.s;
		}
		d->cls[i] = CLS_STR;
		d->sid[i] = (uint32_t)id;
		break;
	default: /* null, object, array: no comparison (code 0) */
		break;
	}
	return 0;
}

struct xc_columns *xc_columns_build(const xc_extra_t *const *extras, size_t n)
{
	struct xc_columns *t = calloc(1, sizeof(*t));
	struct strmap keys = { 0 };
	struct draft *drafts = NULL;
	size_t cap = 0;
	bool added;

	if (!t)
		return NULL;
	xc_live_add(1);
	t->n = n;
	t->npad = (n + BLOCK - 1) / BLOCK * BLOCK;
	if (!(t->extras = calloc(n ? n : 1, sizeof(*t->extras))))
		goto fail;
	for (size_t i = 0; i < n; i++) {
		const xc_extra_t *x = extras[i];

		t->extras[i] = xc_extra_ref((xc_extra_t *)x);
		for (size_t k = 0; x && k < x->count; k++) {
			const struct xc_value *v = &x->values[k];
			int64_t ci = strmap_put(&keys, v->key, &added);

			if (ci < 0)
				goto fail;
			if (added) {
				struct draft *d;

				if (t->ncols == cap) {
					size_t c2 = cap ? 2 * cap : 8;
					struct column *cols = realloc(
						t->cols, c2 * sizeof(*cols));
					struct draft *ds;

					if (!cols)
						goto fail;
					t->cols = cols;
					if (!(ds = realloc(drafts,
							   c2 * sizeof(*ds))))
						goto fail;
					drafts = ds;
					cap = c2;
				}
				memset(&t->cols[t->ncols], 0, sizeof(*t->cols));
				d = &drafts[t->ncols];
				memset(d, 0, sizeof(*d));
				t->ncols++;
				if (!(t->cols[ci].key = strdup(v->key)) ||
				    !(d->cls = calloc(n, 1)) ||
				    !(d->num = malloc(n * sizeof(*d->num))) ||
				    !(d->sid = malloc(n * sizeof(*d->sid))))
					goto fail;
			}
			if (draft_add(&drafts[ci], i, v) < 0)
				goto fail;
		}
	}
	for (size_t ci = 0; ci < t->ncols; ci++) {
		if (finish_column(&t->cols[ci], &drafts[ci], n, t->npad) < 0)
			goto fail;
		draft_free(&drafts[ci]);
	}
	free(drafts);
	drafts = NULL;
	if (t->ncols)
		qsort(t->cols, t->ncols, sizeof(*t->cols), cmp_col);
	strmap_free(&keys);
	return t;
fail:
	for (size_t ci = 0; drafts && ci < t->ncols; ci++)
		draft_free(&drafts[ci]);
	free(drafts);
	strmap_free(&keys);
	xc_columns_destroy(t);
	return NULL;
}

/* ---------------------------------------------------------- evaluating */

static const struct column *find_column(const struct xc_columns *t,
					const char *key)
{
	size_t lo = 0, hi = t->ncols;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(t->cols[mid].key, key);

		if (c == 0)
			return &t->cols[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Which of LT, EQ, GT the operator keeps (sem 3). */
struct keep {
	bool lt, eq, gt;
};

static struct keep keep_of(xc_cmpop_t op)
{
	switch (op) {
	case XC_EQ:
		return (struct keep){ false, true, false };
	case XC_NE:
		return (struct keep){ true, false, true };
	case XC_GT:
		return (struct keep){ false, false, true };
	case XC_GE:
		return (struct keep){ false, true, true };
	case XC_LT:
		return (struct keep){ true, false, false };
	case XC_LE:
		return (struct keep){ true, true, false };
	}
	return (struct keep){ false, false, false };
}

/* The codes a leaf keeps: at most 7 ranges [lo, hi), merged when they
 * touch. */
struct ranges {
	uint32_t lo[8], hi[8];
	int n;
};

static void add_range(struct ranges *r, size_t lo, size_t hi)
{
	if (lo >= hi)
		return;
	if (r->n && r->hi[r->n - 1] == lo) {
		r->hi[r->n - 1] = (uint32_t)hi;
		return;
	}
	r->lo[r->n] = (uint32_t)lo;
	r->hi[r->n] = (uint32_t)hi;
	r->n++;
}

/* The runs LT [base, base+a), EQ [base+a, base+b), GT [base+b, base+n). */
static void add_runs(struct ranges *r, struct keep k, size_t base, size_t a,
		     size_t b, size_t n)
{
	if (k.lt)
		add_range(r, base, base + a);
	if (k.eq)
		add_range(r, base + a, base + b);
	if (k.gt)
		add_range(r, base + b, base + n);
}

/* Sem 3.2 with node value x and request value v, as eval.c computes it. */
static bool num_lt(double x, double v)
{
	double d = x - v;

	return !(d > -XC_EPSILON && d < XC_EPSILON) && x < v;
}

static bool num_gt(double x, double v)
{
	double d = x - v;

	return !(d > -XC_EPSILON && d < XC_EPSILON) && !(x < v);
}

/* The first of `n` sorted numbers for which `pred` holds (it holds for a
 * suffix), or n. */
static size_t first_where(const double *nums, size_t n, double v,
			  bool (*pred)(double, double))
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pred(nums[mid], v))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static bool not_lt(double x, double v)
{
	return !num_lt(x, v);
}

static void leaf_ranges(const struct column *c, const struct xc_leaf *leaf,
			struct ranges *r)
{
	struct keep k = keep_of(leaf->op);
	size_t base = 1;

	r->n = 0;
	if (c->nnums && leaf->num_ok) {
		size_t a = first_where(c->nums, c->nnums, leaf->num, not_lt);
		size_t b = first_where(c->nums, c->nnums, leaf->num, num_gt);

		add_runs(r, k, base, a, b < a ? a : b, c->nnums);
	}
	base += c->nnums;
	if (c->nstrs) {
		size_t lo = 0, hi = c->nstrs;
		bool eq;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (strcmp(c->strs[mid], leaf->value) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		eq = lo < c->nstrs && strcmp(c->strs[lo], leaf->value) == 0;
		add_runs(r, k, base, lo, lo + eq, c->nstrs);
	}
	base += c->nstrs;
	if (c->bools) {
		/* false < true; the request value read by sem 3.3 */
		if (leaf->boolean)
			add_runs(r, k, base, 1, 2, 2);
		else
			add_runs(r, k, base, 0, 1, 2);
	}
}

/* out[i] = code[i] in one of the ranges, for whole blocks. */
static void keep_codes(const uint32_t *restrict code, size_t npad,
		       const struct ranges *r, uint8_t *restrict out)
{
	if (r->n == 0) {
		memset(out, 0, npad);
		return;
	}
	{
		uint32_t lo = r->lo[0], len = r->hi[0] - r->lo[0];

		for (size_t b = 0; b < npad; b += BLOCK)
			for (size_t i = b; i < b + BLOCK; i++)
				out[i] = (uint32_t)(code[i] - lo) < len;
	}
	for (int k = 1; k < r->n; k++) {
		uint32_t lo = r->lo[k], len = r->hi[k] - r->lo[k];

		for (size_t b = 0; b < npad; b += BLOCK)
			for (size_t i = b; i < b + BLOCK; i++)
				out[i] |= (uint32_t)(code[i] - lo) < len;
	}
}

static void eval_leaf(const struct xc_columns *t, const struct xc_leaf *leaf,
		      uint8_t *out)
{
	const struct column *c = find_column(t, leaf->key);
	struct ranges r;

	if (!c) { /* no node has the key: false even for != */
		memset(out, 0, t->npad);
		return;
	}
	leaf_ranges(c, leaf, &r);
	keep_codes(c->code, t->npad, &r, out);
}

/* Evaluates `e` into out[npad]; `scratch` has room for one more array per
 * level of nesting below `e`. */
static void eval(const struct xc_columns *t, const struct xc_expr *e,
		 uint8_t *restrict out, uint8_t *scratch)
{
	uint8_t *restrict tmp = scratch;

	if (e->kind == XC_LEAF) {
		eval_leaf(t, &e->u.leaf, out);
		return;
	}
	if (e->u.group.count == 0) {
		memset(out, e->kind == XC_AND, t->npad);
		return;
	}
	eval(t, e->u.group.items[0], out, scratch);
	for (size_t j = 1; j < e->u.group.count; j++) {
		eval(t, e->u.group.items[j], tmp, scratch + t->npad);
		if (e->kind == XC_AND)
			for (size_t b = 0; b < t->npad; b += BLOCK)
				for (size_t i = b; i < b + BLOCK; i++)
					out[i] &= tmp[i];
		else
			for (size_t b = 0; b < t->npad; b += BLOCK)
				for (size_t i = b; i < b + BLOCK; i++)
					out[i] |= tmp[i];
	}
}

static size_t depth_of(const struct xc_expr *e)
{
	size_t d = 0;

	if (e->kind == XC_LEAF)
		return 0;
	for (size_t j = 0; j < e->u.group.count; j++) {
		size_t c = depth_of(e->u.group.items[j]);

		if (c > d)
			d = c;
	}
	return d + 1;
}

int xc_columns_match(const struct xc_columns *t, const struct xc_expr *expr,
		     uint8_t *out)
{
	uint8_t *buf;
	size_t depth;

	if (!t || !expr || !out)
		return -1;
	if (t->n == 0)
		return 0;
	/* The result, then one array per level of groups: a request nested
	 * deeper than MAX_LEVELS is left to the tree evaluator, so that this
	 * takes at most MAX_LEVELS + 1 bytes per node. */
	depth = depth_of(expr);
	if (depth > MAX_LEVELS)
		return 1;
	if (!(buf = malloc((depth + 1) * t->npad)))
		return -1;
	eval(t, expr, buf, buf + t->npad);
	memcpy(out, buf, t->n);
	free(buf);
	return 0;
}
