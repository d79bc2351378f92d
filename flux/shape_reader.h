/*
 * shape_reader.h - the reader of RFC 46 shapes, shared by its two files:
 * the shape's grammar (shape_read.c: lists, vertices, counts, a slot's
 * braces and label) and what stands inside braces (shape_value.c: items,
 * JSON values and words).  The grammar calls down into the values, never
 * the other way.  Private to flux/.
 */
#ifndef SHAPE_READER_H
#define SHAPE_READER_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "shape.h"

typedef struct reader {
	const char *s;
	size_t len, pos;
	unsigned max_depth;
	xc_error_t *err;
	json_t *labels;	   /* label -> true: RFC 14 labels are unique */
	size_t slots;	   /* slot vertices read */
	size_t unlabelled; /* of them without a label */
	size_t first_bare; /* where the first of those starts */
	size_t first_bare_end;
	size_t open;	 /* the innermost open bracket, or SIZE_MAX */
	unsigned braces; /* braces open around r->pos */
} reader_t;

/* The end of an error's bytes at r->pos: the byte there, or nothing at
 * the end of the shape. */
static inline size_t here_end(const reader_t *r)
{
	return r->pos < r->len ? r->pos + 1 : r->pos;
}

/* The bracket at `open` is the innermost open one; *outer keeps the one
 * it nests in, to put back when it closes. */
static inline void nest(reader_t *r, size_t open, size_t *outer)
{
	*outer = r->open;
	r->open = open;
}

/* ---- reading and errors (shape_value.c) ---- */

/* The next token's first byte, JSON's blanks (RFC 8259: space, tab, line
 * feed, carriage return) skipped, or '\0' at the end of the shape.
 * Blanks may stand between two tokens of a shape, as flux-core's own
 * shape parser (flux.shape.parser) ignores them; but not after a word in
 * braces (shape_value.c word_end()). */
char shape_peek(reader_t *r);

/* XC_E_NOMEM at r->pos.  Returns -1. */
int shape_nomem(reader_t *r);

/* A syntax error at r->pos: "<wanted> expected, not <what is there>",
 * and, when `open` is not SIZE_MAX, the bracket at that offset it would
 * close.  Returns -1. */
int shape_expected_at(reader_t *r, const char *wanted, size_t open);

/* shape_expected_at(), naming the innermost open bracket when the shape
 * ends here. */
int shape_expected(reader_t *r, const char *wanted);

/* ---- what stands in braces (shape_value.c) ---- */

/* string -> word | '"' JSON string '"' | "'" raw string "'", at r->pos
 * (blanks skipped).  `what` names it for the error when there is none;
 * *quoted (may be NULL) tells whether it was quoted.  NULL with the
 * error set. */
json_t *shape_read_string(reader_t *r, const char *what, bool *quoted);

/* Records label `label`, refusing one used before (RFC 14: labels are
 * unique); the error names s[at, r->pos). */
int shape_add_label(reader_t *r, const char *label, size_t at);

/* items -> item (',' item)* '}'
 * item  -> key ':' value | ('+' | '-')? key
 * Into `obj`, r->pos past the '{' at `open` or the ',' before the first
 * item, at `depth` levels, the braces at `open` counted open.  At a
 * vertex (`vertex`; `slot`: a slot's), `x` is "exclusive", the keys the
 * shape writes elsewhere are refused, exclusive is a boolean and a label
 * a string, recorded.  Returns 0, or -1 with the error set. */
int shape_read_items(reader_t *r, json_t *obj, size_t open, bool vertex,
		     bool slot, unsigned depth);

#endif /* SHAPE_READER_H */
