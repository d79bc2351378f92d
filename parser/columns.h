/*
 * columns.h - the layout of a node table compiled into columns, private to
 * the three files that work on it: columns.c builds the columns and keeps
 * them current, columns_dict.c keeps each column's ordered dictionaries of
 * codes (columns_dict.h: a column, its codes and dictionaries),
 * columns_match.c evaluates a request over them.  The rest of the library
 * sees only the functions of xc_private.h ("columns").
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

/* ------------------------------------------------------ columns (columns.c) */

/* The column of `key` in `t` (borrowed), or NULL when no node has the key:
 * a binary search over the sorted keys. */
const struct column *xc_column_find(const struct xc_columns *t,
				    const char *key);

#endif /* XC_COLUMNS_H */
