/*
 * xc_private.h - declarations shared by the library's files; not installed.
 */
#ifndef XC_PRIVATE_H
#define XC_PRIVATE_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "xc.h"
#include "xc_util.h"

/* A leaf: key, comparison operator, value, and the value converted once at
 * parse time for each node value type (doc/language.md §3). */
struct xc_leaf {
	char *key;   /* NUL-terminated, points into the same allocation */
	char *value; /* NUL-terminated, likewise */
	xc_cmpop_t op;
	bool num_ok;  /* value is a number by doc/language.md §3.1 */
	double num;   /* that number, when num_ok */
	bool boolean; /* value read as a boolean by doc/language.md §3.3 */
};

struct xc_expr {
	xc_kind_t kind;
	size_t offset; /* byte offset of the item in the request */
	union {
		struct xc_leaf leaf;
		struct {
			struct xc_expr **items;
			size_t count, cap; /* items held, room for */
		} group;
	} u;
};

/* One top-level key of a node's Extra and its value, as Slurm's data_t
 * holds it (doc/language.md §2, §3): strings and keys are C strings. */
struct xc_value {
	const char *key;
	xc_value_type_t type;
	union {
		bool b;
		int64_t i;
		double d;
		const char *s;
	} u;
};

/* A node's Extra: `count` values sorted by key (unique), one allocation
 * with their strings after them; shared by reference count. */
struct xc_extra {
	unsigned refs;
	size_t count;
	struct xc_value *values;
};

/* The value of `key` in `extra` (may be NULL), or NULL when missing. */
const struct xc_value *xc_extra_get(const xc_extra_t *extra, const char *key);

/* Takes one more reference to `extra` (may be NULL); returns it. */
xc_extra_t *xc_extra_ref(xc_extra_t *extra);

/* The count of live library objects (xc_live_objects): +1 for each
 * expression node, node table and node Extra made, -1 when freed. */
extern long xc_live;
static inline void xc_live_add(long n)
{
	__atomic_add_fetch(&xc_live, n, __ATOMIC_RELAXED);
}

/* FNV-1a, 64 bits: of `n` bytes of `p`, continuing from `h` (start with
 * XC_FNV_START).  The library's one hash: node names, column keys, the
 * node table's digest and each node's Extra text. */
#define XC_FNV_START 0xcbf29ce484222325ULL
static inline uint64_t xc_hash(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* The same of a C string. */
static inline uint64_t xc_hash_str(const char *s)
{
	return xc_hash(XC_FNV_START, s, strlen(s));
}

/* ---- arrays (grow.c) ---- */

/* xc_grow for `count` parallel arrays that share one capacity *cap:
 * *arrays[k] (elements of sizes[k] bytes) each grow from *cap to the same
 * new capacity, so that they hold `need` elements; nothing is done when
 * *cap holds them already.  Returns 0 with *cap updated, or -1 when memory
 * ran out or the bytes overflow size_t: *cap is then unchanged, and every
 * array, perhaps larger, still the caller's. */
int xc_grow_parallel(void **const arrays[], const size_t sizes[], size_t count,
		     size_t *cap, size_t need);

/* ---- lexer (lexer.c): one token of lookahead over the request ---- */

typedef enum xc_token_kind {
	XC_T_END,     /* end of the request */
	XC_T_LEAF,    /* key cmpop value */
	XC_T_BADLEAF, /* a leaf that breaks doc/language.md §1.1:
			 lx->leaf_err says how */
	XC_T_AND,     /* '&' or ',' */
	XC_T_OR,      /* '|' */
	XC_T_LPAREN,  /* '(' */
	XC_T_RPAREN   /* ')' */
} xc_token_kind_t;

typedef struct xc_token {
	xc_token_kind_t kind;
	size_t offset, end;  /* the token's bytes: [offset, end) */
	char ch;	     /* the operator character of AND/OR */
	size_t keylen;	     /* leaf: key is [offset, offset+keylen) */
	xc_cmpop_t op;	     /* leaf: its comparison operator */
	size_t value_offset; /* leaf: value is [value_offset, end) */
} xc_token_t;

typedef struct xc_lexer {
	const char *src;
	size_t len;
	size_t pos;	     /* next byte to scan */
	xc_token_t tok;	     /* the current token (the lookahead) */
	xc_error_t leaf_err; /* why tok is XC_T_BADLEAF */
} xc_lexer_t;

/* Starts `lx` on `src` (`len` bytes) and scans the first token. */
void xc_lexer_init(xc_lexer_t *lx, const char *src, size_t len);

/* Scans the next token into lx->tok.  A leaf that breaks doc/language.md
 * §1.1 is the token XC_T_BADLEAF with its error in lx->leaf_err: the parser
 * reports it only where it reads it as an item, so errors come in input
 * order. */
void xc_lexer_next(xc_lexer_t *lx);

/* ---- request values (convert.c) ---- */

/* doc/language.md §3.1: true and *out set when `text` is a number. */
bool xc_text_to_number(const char *text, double *out);

/* doc/language.md §3.3: `text` read as a boolean. */
bool xc_text_to_bool(const char *text);

/* doc/language.md §3.2: two numbers closer than this are equal
 * (strictly). */
#define XC_EPSILON 0.00001

/* doc/language.md §3.2: -1, 0 or 1 for node LT, EQ, GT value (NaN
 * compares GT). */
int xc_fuzzy_compare(double node, double value);

/* ---- the tree (expr.c) ---- */

/* Builds a leaf from its parts: `keylen` bytes of `key` and `valuelen` of
 * `value` (copied, NUL-terminated, into the leaf's one allocation),
 * starting at byte `offset` of the request.  Converts the value once by
 * doc/language.md §3.1 and §3.3.  Returns a leaf the caller owns
 * (xc_expr_destroy), or NULL when out of memory. */
struct xc_expr *xc_leaf_create(const char *key, size_t keylen, xc_cmpop_t op,
			       const char *value, size_t valuelen,
			       size_t offset);

/* Builds an empty group of `kind` (XC_AND or XC_OR) starting at byte
 * `offset`.  Returns it (the caller's), or NULL when out of memory. */
struct xc_expr *xc_group_create(xc_kind_t kind, size_t offset);

/* Appends `item` (ownership passes) to `group`, whose items grow by
 * xc_grow.  Returns 0; on failure (out of memory) `item` is destroyed and
 * -1 returned, `group` as it was. */
int xc_group_add(struct xc_expr *group, struct xc_expr *item);

/* ---- format (format.c) ---- */

/* Writes the canonical text of `expr` to `out` (xc_format's rules; `top`:
 * no parentheses around `expr` itself). */
void xc_format_to(FILE *out, const struct xc_expr *expr, bool top);

/* ---- columns: a node table compiled per key (columns.h: built by
 * columns_build.c, kept by columns.c, evaluated by columns_match.c) ---- */

struct xc_columns;

/* Compiles the Extras of `n` nodes (each may be NULL: no keys) into
 * columns, which keep copies of what they need (not the Extras).  NULL
 * when out of memory. */
struct xc_columns *xc_columns_build(const xc_extra_t *const *extras, size_t n);

/* Frees `cols` (may be NULL). */
void xc_columns_destroy(struct xc_columns *cols);

/* Node `i` (< the n built with) holds the values of `extra` (NULL: none)
 * from now on, in every column; work in proportion to the node's keys and
 * the table's columns, not to the nodes (but for a rare respacing of one
 * column's codes).  Returns 0, or -1 when out of memory or `i` is out of
 * range: the columns are then unchanged. */
int xc_columns_set(struct xc_columns *cols, size_t i, const xc_extra_t *extra);

/* Evaluates `expr` for every node: out[i] (n bytes) is 1 when node i satisfies
 * it, else 0, exactly as xc_match would say (doc/language.md §3, §4), at any
 * depth of nesting (deep requests are evaluated a slice of nodes at a time).
 * Returns 0, or -1 when out of memory (`out` is then undefined). */
int xc_columns_match(const struct xc_columns *cols, const struct xc_expr *expr,
		     uint8_t *out);

#endif /* XC_PRIVATE_H */
