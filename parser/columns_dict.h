/*
 * columns_dict.h - one column of a compiled node table (columns.h) and
 * its ordered dictionaries: the codes, their regions, the small
 * comparisons on values and the dictionary's functions (columns_dict.c).
 * It needs nothing of the other columns' files, which include it.
 *
 * A column gives each node one 32-bit code for its value of the key:
 *   0                       no value that compares: the key is missing, or
 *                           its value is null, an object or an array;
 *   [NUM_LO, NUM_HI)        a number;
 *   [STR_LO, STR_HI)        a string;
 *   BOOL_LO, BOOL_LO + 1    false, true.
 * Within the number and string regions codes follow the values' order
 * (numbers increasing, NaN last; strings in strcmp order), with gaps
 * between them: each region has a dictionary of the distinct values its
 * nodes hold, sorted, each with its code and how many nodes hold it
 * (columns_dict.c).
 */
#ifndef XC_COLUMNS_DICT_H
#define XC_COLUMNS_DICT_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "xc_private.h"

/* The code regions (see the top of the file). */
#define NUM_LO 1u
#define NUM_HI 0x40000000u
#define STR_LO NUM_HI
#define STR_HI 0x80000000u
#define BOOL_LO STR_HI

/* The distinct values of one class (numbers or strings) in a column. */
struct dict {
	bool strings;	/* values in str (owned), else in num */
	double *num;	/* increasing, NaN last */
	char **str;	/* strcmp order */
	uint32_t *code; /* increasing, in [lo, hi) */
	uint32_t *refs; /* nodes holding the value (> 0) */
	size_t n, cap;
	uint32_t lo, hi;
};

struct column {
	char *key;
	uint32_t *code; /* per node (padded to a whole block) */
	struct dict nums, strs;
	size_t falses, trues; /* nodes holding false, true */
};

/* ----------------------------------------------------------- the values */

/* Increasing, NaN last (all NaN alike). */
static inline int cmp_double(double x, double y)
{
	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return (x > y) - (x < y);
}

/* A value of one class: a number or a string. */
struct val {
	double num;
	const char *str;
};

/* Entry k of `d` against `v`: <0, 0 or >0, in the dictionary's order. */
static inline int dict_cmp(const struct dict *d, size_t k, const struct val *v)
{
	return d->strings ? strcmp(d->str[k], v->str)
			  : cmp_double(d->num[k], v->num);
}

/* The code of entry k, or the region's end past the last. */
static inline uint32_t code_at(const struct dict *d, size_t k)
{
	return k < d->n ? d->code[k] : d->hi;
}

/* ------------------------------------------ dictionaries (columns_dict.c) */

/* The first entry of `d` not less than `v` (d->n if none): a binary
 * search, O(log n). */
size_t xc_dict_place(const struct dict *d, const struct val *v);

/* The code entry k of m gets when the region of `d` is spaced out: evenly
 * over its middle half, so that values beyond either end (a key whose
 * values only grow, say) find a quarter of the region free. */
uint32_t xc_dict_spaced(const struct dict *d, size_t k, size_t m);

/* Frees the arrays of `d` and its strings (not `d` itself). */
void xc_dict_free(struct dict *d);

/* Room in `d` for `extra` more entries (its parallel arrays grow together
 * by xc_grow_parallel).  Returns 0, or -1 when out of memory: `d` then
 * holds what it held (some of its arrays may be larger). */
int xc_dict_reserve(struct dict *d, size_t extra);

/* Inserts value `v` at place p of `d`, a dictionary of column `c` (the
 * value is not there; room is reserved; a string is `owned`, taken over)
 * and returns its code.  With no gap between its neighbours, the region is
 * spaced out again and every code of `c` in it rewritten (the `npad` node
 * codes included).  Needs no memory: cannot fail. */
uint32_t xc_dict_insert(struct column *c, struct dict *d, size_t p,
			const struct val *v, char *owned, size_t npad);

/* One node fewer holds the value of `code` in `d`; the entry goes with the
 * last (its string freed). */
void xc_dict_release(struct dict *d, uint32_t code);

#endif /* XC_COLUMNS_DICT_H */
