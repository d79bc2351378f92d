/*
 * columns.c - a node table compiled into columns, one per key (columns.h),
 * so that a leaf is evaluated for every node as one tight loop over an
 * array (columns_match.c) instead of a walk of each node's Extra, and so
 * that a change of one node's Extra is a change of that node's codes
 * (xc_columns_set).  The results are those of eval.c's tree evaluator,
 * node for node (doc/language.md §3): the two are checked against each
 * other by every evaluation row, by a fuzz target and by tests that change
 * nodes one by one.
 *
 * This file keeps the columns: finding a key's column, setting a node's
 * values, freeing them; columns_build.c builds them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"

/* The class of a node value: its dictionary and value in the column, or
 * NULL for a boolean or a value that does not compare. */
static struct dict *class_of(struct column *c, const struct xc_value *x,
			     struct val *v)
{
	switch (x->type) {
	case XC_VALUE_INT:
		v->num = (double)x->u.i;
		return &c->nums;
	case XC_VALUE_REAL:
		v->num = x->u.d;
		return &c->nums;
	case XC_VALUE_STRING:
		v->str = x->u.s;
		return &c->strs;
	default:
		return NULL;
	}
}

/* ------------------------------------------------------------- columns */

void xc_column_init(struct column *c)
{
	memset(c, 0, sizeof(*c));
	c->nums.lo = NUM_LO;
	c->nums.hi = NUM_HI;
	c->strs.lo = STR_LO;
	c->strs.hi = STR_HI;
	c->strs.strings = true;
}

static void column_free(struct column *c)
{
	free(c->key);
	free(c->code);
	xc_dict_free(&c->nums);
	xc_dict_free(&c->strs);
}

void xc_columns_destroy(struct xc_columns *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->ncols; i++)
		column_free(&t->cols[i]);
	free(t->cols);
	free(t);
	xc_live_add(-1);
}

/* The column of `key`, or where it would go (*found false). */
static size_t column_place(const struct xc_columns *t, const char *key,
			   bool *found)
{
	size_t lo = 0, hi = t->ncols;

	*found = false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(t->cols[mid].key, key);

		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct column *xc_column_find(const struct xc_columns *t, const char *key)
{
	bool found;
	size_t k = column_place(t, key, &found);

	return found ? &t->cols[k] : NULL;
}

/* The column of `key`, added (no node holding a value yet) when there is
 * none; NULL when out of memory. */
static struct column *column_get(struct xc_columns *t, const char *key)
{
	bool found;
	size_t k = column_place(t, key, &found);
	struct column c;

	if (found)
		return &t->cols[k];
	if (xc_grow((void **)&t->cols, &t->capcols, t->ncols + 1,
		    sizeof(*t->cols)) < 0)
		return NULL;
	xc_column_init(&c);
	if (!(c.key = strdup(key)) ||
	    !(c.code = calloc(t->npad ? t->npad : 1, sizeof(*c.code)))) {
		free(c.key);
		return NULL;
	}
	memmove(&t->cols[k + 1], &t->cols[k],
		(t->ncols - k) * sizeof(*t->cols));
	t->cols[k] = c;
	t->ncols++;
	return &t->cols[k];
}

/* Node `i` of column `c` holds `x` (may be NULL: no value) from now on;
 * room is reserved and a new string is `owned` (taken over). */
static void column_put(struct column *c, size_t i, const struct xc_value *x,
		       char *owned, size_t npad)
{
	uint32_t old = c->code[i], code = 0;
	struct val v = { 0 };
	struct dict *d;

	if (x && x->type == XC_VALUE_BOOL) {
		code = BOOL_LO + x->u.b;
		if (x->u.b)
			c->trues++;
		else
			c->falses++;
	} else if (x && (d = class_of(c, x, &v))) {
		size_t p = xc_dict_place(d, &v);

		if (p < d->n && dict_cmp(d, p, &v) == 0) {
			free(owned);
		} else {
			xc_dict_insert(c, d, p, &v, owned, npad);
			old = c->code[i]; /* may have been respaced */
		}
		d->refs[p]++;
		code = d->code[p];
	}
	if (old >= NUM_LO && old < NUM_HI)
		xc_dict_release(&c->nums, old);
	else if (old >= STR_LO && old < STR_HI)
		xc_dict_release(&c->strs, old);
	else if (old == BOOL_LO)
		c->falses--;
	else if (old == BOOL_LO + 1)
		c->trues--;
	c->code[i] = code;
}

int xc_columns_set(struct xc_columns *t, size_t i, const xc_extra_t *x)
{
	size_t count = x ? x->count : 0;
	char **owned = NULL;
	int rc = -1;

	if (!t || i >= t->n)
		return -1;
	/* First everything that needs memory: the columns, room in each
	 * dictionary, a copy of each new string.  Then nothing can fail, so
	 * the node is never left half changed. */
	if (count && !(owned = calloc(count, sizeof(*owned))))
		return -1;
	for (size_t k = 0; k < count; k++) {
		const struct xc_value *xv = &x->values[k];
		struct column *c;
		struct dict *d;
		struct val v;

		if (!compares(xv))
			continue;
		if (!(c = column_get(t, xv->key)))
			goto out;
		if (!(d = class_of(c, xv, &v)))
			continue;
		if (xc_dict_reserve(d, 1) < 0)
			goto out;
		if (d->strings) {
			size_t p = xc_dict_place(d, &v);

			if ((p >= d->n || dict_cmp(d, p, &v) != 0) &&
			    !(owned[k] = strdup(v.str)))
				goto out;
		}
	}
	/* Every column: the node's value of its key, or none. */
	for (size_t ci = 0; ci < t->ncols; ci++) {
		struct column *c = &t->cols[ci];
		const struct xc_value *xv = xc_extra_get(x, c->key);
		char *s = NULL;

		if (xv && compares(xv)) {
			s = owned[xv - x->values];
			owned[xv - x->values] = NULL;
		} else {
			xv = NULL;
		}
		if (xv || c->code[i])
			column_put(c, i, xv, s, t->npad);
	}
	rc = 0;
out:
	for (size_t k = 0; owned && k < count; k++)
		free(owned[k]);
	free(owned);
	return rc;
}
