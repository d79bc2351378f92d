/*
 * columns_dict.c - the ordered dictionaries of a column (columns_dict.h): the
 * distinct numbers or strings its nodes hold, sorted, each with its code
 * and how many nodes hold it.
 *
 * A new value takes a code between its neighbours' (past the last or the
 * first, a small step: keys whose values only grow are common); only when
 * they leave no gap is the region's dictionary spaced out again (and its
 * nodes' codes rewritten), which at 2^30 codes a region comes seldom:
 * values that only grow respace after about 12,000 new ones.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "columns_dict.h"

size_t xc_dict_place(const struct dict *d, const struct val *v)
{
	size_t lo = 0, hi = d->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (dict_cmp(d, mid, v) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The entry whose code is `code` (it is there). */
static size_t dict_of_code(const struct dict *d, uint32_t code)
{
	size_t lo = 0, hi = d->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->code[mid] < code)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint32_t xc_dict_spaced(const struct dict *d, size_t k, size_t m)
{
	uint64_t width = ((uint64_t)d->hi - d->lo) / 2;

	return (uint32_t)(d->lo + width / 2 + (k + 1) * (width / (m + 1)));
}

void xc_dict_free(struct dict *d)
{
	for (size_t k = 0; d->strings && k < d->n; k++)
		free(d->str[k]);
	free(d->num);
	free(d->str);
	free(d->code);
	free(d->refs);
}

int xc_dict_reserve(struct dict *d, size_t extra)
{
	void **const arrays[] = { d->strings ? (void **)&d->str
					     : (void **)&d->num,
				  (void **)&d->code, (void **)&d->refs };
	const size_t sizes[] = { d->strings ? sizeof(*d->str) : sizeof(*d->num),
				 sizeof(*d->code), sizeof(*d->refs) };

	return xc_grow_parallel(arrays, sizes, 3, &d->cap, d->n + extra);
}

/*
 * Inserts value `v` at place p (it is not there; room reserved; a string
 * is `owned`, taken over) into the dictionary of column `c` and returns
 * its code.  With no gap between its neighbours, the region is spaced out
 * again and every node code of `c` in it rewritten (no memory needed: a
 * node's new code follows from the place of its old one).
 */
uint32_t xc_dict_insert(struct column *c, struct dict *d, size_t p,
			const struct val *v, char *owned, size_t npad)
{
	uint32_t left = p > 0 ? d->code[p - 1] : d->lo - 1;
	uint32_t right = code_at(d, p), code;

	if (right - left >= 2) {
		uint32_t span = right - left;

		/* Past either end, a small step, which leaves room for the
		 * next value there; between two values, the middle. */
		if (p == d->n && span >= 2048)
			code = left + span / 1024;
		else if (p == 0 && span >= 2048)
			code = right - span / 1024;
		else
			code = left + span / 2;
	} else {
		for (size_t i = 0; i < npad; i++) {
			uint32_t x = c->code[i];
			size_t k;

			if (x < d->lo || x >= d->hi)
				continue;
			k = dict_of_code(d, x);
			c->code[i] = xc_dict_spaced(d, k + (k >= p), d->n + 1);
		}
		for (size_t k = 0; k < d->n; k++)
			d->code[k] = xc_dict_spaced(d, k + (k >= p), d->n + 1);
		code = xc_dict_spaced(d, p, d->n + 1);
	}
	memmove(&d->code[p + 1], &d->code[p], (d->n - p) * sizeof(*d->code));
	memmove(&d->refs[p + 1], &d->refs[p], (d->n - p) * sizeof(*d->refs));
	if (d->strings) {
		memmove(&d->str[p + 1], &d->str[p],
			(d->n - p) * sizeof(*d->str));
		d->str[p] = owned;
	} else {
		memmove(&d->num[p + 1], &d->num[p],
			(d->n - p) * sizeof(*d->num));
		d->num[p] = v->num;
	}
	d->code[p] = code;
	d->refs[p] = 0;
	d->n++;
	return code;
}

void xc_dict_release(struct dict *d, uint32_t code)
{
	size_t k = dict_of_code(d, code);

	if (k >= d->n || d->code[k] != code || --d->refs[k] > 0)
		return;
	if (d->strings) {
		free(d->str[k]);
		memmove(&d->str[k], &d->str[k + 1],
			(d->n - k - 1) * sizeof(*d->str));
	} else {
		memmove(&d->num[k], &d->num[k + 1],
			(d->n - k - 1) * sizeof(*d->num));
	}
	memmove(&d->code[k], &d->code[k + 1],
		(d->n - k - 1) * sizeof(*d->code));
	memmove(&d->refs[k], &d->refs[k + 1],
		(d->n - k - 1) * sizeof(*d->refs));
	d->n--;
}
