/*
 * columns_build.c - the columns of a node table (columns.h) built from
 * its nodes' Extras: xc_columns_build.
 *
 * Building reads every node's Extra once, in node order, into each key's
 * list of (value, node) pairs, then turns each list into a column: its
 * distinct values sorted into the dictionaries, each node given its
 * value's code.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"

/* An open-addressing map from keys to column indices while building. */
struct strmap {
	const char **keys;
	uint32_t *vals;
	size_t cap, count; /* cap a power of two */
};

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
		for (j = xc_hash_str(m->keys[i]) & (cap - 1); keys[j];
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
	for (j = xc_hash_str(s) & (m->cap - 1); m->keys[j];
	     j = (j + 1) & (m->cap - 1))
		if (strcmp(m->keys[j], s) == 0)
			return m->vals[j];
	m->keys[j] = s;
	m->vals[j] = (uint32_t)m->count++;
	*added = true;
	return m->vals[j];
}

/* One node's value of a key, while building: copied from the node's
 * Extra in one pass in node order (reading them later, key by key, is a
 * cache miss per value). */
struct occ {
	union {
		double num;	 /* CLS_NUM */
		const char *str; /* CLS_STR */
	} u;
	uint32_t node;
	uint8_t cls;
};

enum {
	CLS_NUM,
	CLS_STR,
	CLS_FALSE,
	CLS_TRUE
};

/* The values of each key, while building. */
struct occs {
	struct occ *o;
	size_t n, cap;
};

static int cmp_num(const void *a, const void *b)
{
	return cmp_double(*(const double *)a, *(const double *)b);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Fills the number dictionary of `c` from the `n` values `o` and their
 * nodes' codes: the values sorted, then each node's found by bisection. */
static int fill_nums(struct column *c, const struct occ *o, size_t n)
{
	struct dict *d = &c->nums;
	size_t distinct = 0;
	double *v;

	if (!n)
		return 0;
	if (!(v = malloc(n * sizeof(*v))))
		return -1;
	for (size_t j = 0; j < n; j++)
		v[j] = o[j].u.num;
	qsort(v, n, sizeof(*v), cmp_num);
	for (size_t j = 0; j < n; j++)
		if (j == 0 || cmp_double(v[j], v[distinct - 1]) != 0)
			v[distinct++] = v[j];
	{
		double *fit = realloc(v, distinct * sizeof(*v));

		free(d->num);
		d->num = fit ? fit : v;
	}
	d->cap = distinct;
	if (!(d->code = malloc(distinct * sizeof(*d->code))) ||
	    !(d->refs = calloc(distinct, sizeof(*d->refs))))
		return -1;
	d->n = distinct;
	for (size_t k = 0; k < distinct; k++)
		d->code[k] = xc_dict_spaced(d, k, distinct);
	for (size_t j = 0; j < n; j++) {
		struct val x = { .num = o[j].u.num };
		size_t k = xc_dict_place(d, &x);

		d->refs[k]++;
		c->code[o[j].node] = d->code[k];
	}
	return 0;
}

/* The same for strings: distinct ones by a hash map, then sorted. */
static int fill_strs(struct column *c, const struct occ *o, size_t n)
{
	struct dict *d = &c->strs;
	struct strmap m = { 0 };
	uint32_t *id = NULL, *rank = NULL;
	const char **by_id = NULL;
	int rc = -1;
	bool added;

	if (!n)
		return 0;
	if (!(id = malloc(n * sizeof(*id))) ||
	    !(by_id = malloc(n * sizeof(*by_id))))
		goto out;
	for (size_t j = 0; j < n; j++) {
		int64_t k = strmap_put(&m, o[j].u.str, &added);

		if (k < 0)
			goto out;
		id[j] = (uint32_t)k;
		by_id[k] = o[j].u.str;
	}
	if (xc_dict_reserve(d, m.count) < 0 ||
	    !(rank = malloc(m.count * sizeof(*rank))))
		goto out;
	for (size_t k = 0; k < m.count; k++) {
		if (!(d->str[k] = strdup(by_id[k])))
			goto out;
		d->n++;
	}
	qsort(d->str, d->n, sizeof(*d->str), cmp_str);
	for (size_t k = 0; k < d->n; k++) {
		bool found;

		d->code[k] = xc_dict_spaced(d, k, d->n);
		d->refs[k] = 0;
		rank[strmap_put(&m, d->str[k], &found)] = (uint32_t)k;
	}
	for (size_t j = 0; j < n; j++) {
		size_t k = rank[id[j]];

		d->refs[k]++;
		c->code[o[j].node] = d->code[k];
	}
	rc = 0;
out:
	strmap_free(&m);
	free(id);
	free(by_id);
	free(rank);
	return rc;
}

/* Turns the values of one key into its column. */
static int finish_column(struct column *c, struct occs *oc, size_t npad)
{
	size_t nnum = 0, nstr = 0;
	struct occ *o = oc->o;

	if (!(c->code = calloc(npad ? npad : 1, sizeof(*c->code))))
		return -1;
	/* numbers first, then strings, then booleans, in place */
	for (size_t j = 0; j < oc->n; j++) {
		struct occ x = o[j];

		if (x.cls == CLS_NUM) {
			o[j] = o[nnum];
			o[nnum++] = x;
		}
	}
	for (size_t j = nnum; j < oc->n; j++) {
		struct occ x = o[j];

		if (x.cls == CLS_STR) {
			o[j] = o[nnum + nstr];
			o[nnum + nstr++] = x;
		}
	}
	for (size_t j = nnum + nstr; j < oc->n; j++) {
		bool b = o[j].cls == CLS_TRUE;

		c->code[o[j].node] = BOOL_LO + b;
		if (b)
			c->trues++;
		else
			c->falses++;
	}
	if (fill_nums(c, o, nnum) < 0 || fill_strs(c, o + nnum, nstr) < 0)
		return -1;
	return 0;
}

struct xc_columns *xc_columns_build(const xc_extra_t *const *extras, size_t n)
{
	struct xc_columns *t = calloc(1, sizeof(*t));
	struct strmap keys = { 0 };
	struct occs *occs = NULL;
	bool added;

	if (!t)
		return NULL;
	xc_live_add(1);
	if (n > UINT32_MAX - BLOCK)
		goto fail;
	t->n = n;
	t->npad = (n + BLOCK - 1) / BLOCK * BLOCK;
	/* each key's values, as (value, node) pairs */
	for (size_t i = 0; i < n; i++) {
		const xc_extra_t *x = extras[i];

		for (size_t k = 0; x && k < x->count; k++) {
			const struct xc_value *v = &x->values[k];
			int64_t ci;
			struct occs *oc;

			if (!compares(v))
				continue;
			if ((ci = strmap_put(&keys, v->key, &added)) < 0)
				goto fail;
			if (added) {
				/* a column and its values, side by side */
				void **const arrays[] = { (void **)&t->cols,
							  (void **)&occs };
				const size_t sizes[] = { sizeof(*t->cols),
							 sizeof(*occs) };

				if (xc_grow_parallel(arrays, sizes, 2,
						     &t->capcols,
						     t->ncols + 1) < 0)
					goto fail;
				xc_column_init(&t->cols[t->ncols]);
				memset(&occs[t->ncols], 0, sizeof(*occs));
				t->ncols++;
				if (!(t->cols[ci].key = strdup(v->key)))
					goto fail;
			}
			oc = &occs[ci];
			if (xc_grow((void **)&oc->o, &oc->cap, oc->n + 1,
				    sizeof(*oc->o)) < 0)
				goto fail;
			oc->o[oc->n].node = (uint32_t)i;
			switch (v->type) {
			case XC_VALUE_INT:
				oc->o[oc->n].cls = CLS_NUM;
				oc->o[oc->n].u.num = (double)v->u.i;
				break;
			case XC_VALUE_REAL:
				oc->o[oc->n].cls = CLS_NUM;
				oc->o[oc->n].u.num = v->u.d;
				break;
			case XC_VALUE_STRING:
				oc->o[oc->n].cls = CLS_STR;
				oc->o[oc->n].u.str = v->u.s;
				break;
			default: /* a boolean (compares() holds) */
				oc->o[oc->n].cls =
					v->u.b ? CLS_TRUE : CLS_FALSE;
				break;
			}
			oc->n++;
		}
	}
	for (size_t ci = 0; ci < t->ncols; ci++) {
		if (finish_column(&t->cols[ci], &occs[ci], t->npad) < 0)
			goto fail;
		free(occs[ci].o);
		occs[ci].o = NULL;
	}
	free(occs);
	occs = NULL;
	strmap_free(&keys);
	/* sorted by key, for the lookups */
	for (size_t a = 1; a < t->ncols; a++) {
		struct column c = t->cols[a];
		size_t b = a;

		for (; b > 0 && strcmp(t->cols[b - 1].key, c.key) > 0; b--)
			t->cols[b] = t->cols[b - 1];
		t->cols[b] = c;
	}
	return t;
fail:
	for (size_t ci = 0; occs && ci < t->ncols; ci++)
		free(occs[ci].o);
	free(occs);
	strmap_free(&keys);
	xc_columns_destroy(t);
	return NULL;
}
