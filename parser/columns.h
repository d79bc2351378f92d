/*
 * columns.h - the layout of a node table compiled into columns, private to
 * the files that work on it: columns_build.c builds the columns, columns.c
 * keeps them current, columns_dict.c keeps each column's ordered
 * dictionaries of codes (columns_dict.h: a column, its codes and
 * dictionaries), columns_match.c evaluates a request over them.  The rest
 * of the library sees only the functions of xc_private.h ("columns").
 */
#ifndef XC_COLUMNS_H
#define XC_COLUMNS_H

#include <stdint.h>

#include "columns_dict.h"
#include "xc_private.h"

/* Nodes are processed in blocks of this many (the arrays are padded with
 * code 0), so that every inner loop has a fixed trip count. */
#define BLOCK 64

struct xc_columns {
	size_t n, npad; /* nodes; rounded up to a whole block */
	size_t ncols;	/* columns, sorted by key */
	size_t capcols;
	struct column *cols;
};

/* Whether node value `x` (may be NULL) has a code other than 0 in its
 * key's column: a number, a string or a boolean. */
static inline bool compares(const struct xc_value *x)
{
	return x && (x->type == XC_VALUE_INT || x->type == XC_VALUE_REAL ||
		     x->type == XC_VALUE_STRING || x->type == XC_VALUE_BOOL);
}

/* ------------------------------------------------------ columns (columns.c) */

/* Sets `c` up as an empty column: no key, no node codes, its dictionaries
 * empty over their code regions. */
void xc_column_init(struct column *c);

/* The column of `key` in `t` (borrowed), or NULL when no node has the key:
 * a binary search over the sorted keys. */
const struct column *xc_column_find(const struct xc_columns *t,
				    const char *key);

#endif /* XC_COLUMNS_H */
