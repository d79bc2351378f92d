/*
 * parse.c - recursive-descent parser for the request grammar
 * (doc/language.md §1); the tree it builds is expr.c's.
 *
 *   request -> group END
 *   group   -> item { boolop item }     all boolops of a group alike
 *                                       (doc/language.md §1.3)
 *   item    -> leaf | '(' group ')'
 *
 * A group of one item is that item, so `((a=1))` is the leaf `a=1`.
 * Nesting is bounded by an explicit depth counter (doc/language.md §1.4).
 */
#include <stdlib.h>
#include <string.h>

#include "xc_private.h"

typedef struct parser {
	xc_lexer_t lx;
	unsigned depth;
	unsigned max_depth;
	xc_error_t *err;
} parser_t;

static struct xc_expr *parse_group(parser_t *p);

static void advance(parser_t *p)
{
	xc_lexer_next(&p->lx);
}

/* What the current token is, quoted for a message. */
static const char *describe(parser_t *p, char *buf, size_t size)
{
	const xc_token_t *t = &p->lx.tok;
	char q[64];

	switch (t->kind) {
	case XC_T_END:
		snprintf(buf, size, "the end of the request");
		break;
	case XC_T_LEAF:
	case XC_T_BADLEAF:
		snprintf(buf, size, "'%s'",
			 xc_quote(p->lx.src + t->offset, t->end - t->offset, q,
				  sizeof(q)));
		break;
	default:
		snprintf(buf, size, "'%c'", p->lx.src[t->offset]);
		break;
	}
	return buf;
}

/* The error reports keep their message buffers out of the recursive
 * frames below: each level of nesting then costs parse_item and
 * parse_group's small frames only (stack bytes per level: tests/bench/bench). */
static __attribute__((noinline)) void report_unclosed(parser_t *p, size_t open)
{
	const xc_token_t *t = &p->lx.tok;
	char what[96];

	xc_error_set(p->err, XC_E_UNCLOSED_PAREN, t->offset, t->end,
		     "')' expected (to close '(' at column %zu) before %s",
		     open + 1, describe(p, what, sizeof(what)));
}

/* An operator, ')' or the end where an item must be; `after` is the
 * boolean operator before it, or 0. */
static __attribute__((noinline)) void report_item_expected(parser_t *p,
							   char after)
{
	const xc_token_t *t = &p->lx.tok;
	char what[96];

	if (after)
		xc_error_set(p->err, XC_E_ITEM_EXPECTED, t->offset, t->end,
			     "leaf or '(' expected after '%c', found %s", after,
			     describe(p, what, sizeof(what)));
	else
		xc_error_set(p->err, XC_E_ITEM_EXPECTED, t->offset, t->end,
			     "leaf or '(' expected, found %s",
			     describe(p, what, sizeof(what)));
}

static __attribute__((noinline)) void report_boolop_expected(parser_t *p)
{
	const xc_token_t *t = &p->lx.tok;
	char what[96];

	xc_error_set(p->err, XC_E_BOOLOP_EXPECTED, t->offset,
		     t->kind == XC_T_LPAREN ? t->end : t->offset + 1,
		     "'&', ',' or '|' expected before %s",
		     describe(p, what, sizeof(what)));
}

/* item -> leaf | '(' group ')'; `after` is the boolean operator before
 * it, or 0 for a group's first item. */
static struct xc_expr *parse_item(parser_t *p, char after)
{
	const xc_token_t *t = &p->lx.tok;

	if (t->kind == XC_T_LEAF) {
		const char *s = p->lx.src;
		struct xc_expr *leaf = xc_leaf_create(
			s + t->offset, t->keylen, t->op, s + t->value_offset,
			t->end - t->value_offset, t->offset);

		if (!leaf) {
			xc_error_set(p->err, XC_E_NOMEM, t->offset, t->end,
				     "out of memory");
			return NULL;
		}
		advance(p);
		return leaf;
	}
	if (t->kind == XC_T_BADLEAF) {
		if (p->err && p->err->code == XC_OK)
			*p->err = p->lx.leaf_err;
		return NULL;
	}
	if (t->kind == XC_T_LPAREN) {
		size_t open = t->offset;
		struct xc_expr *group;

		if (p->depth >= p->max_depth) {
			xc_error_set(
				p->err, XC_E_TOO_DEEP, open, open + 1,
				"parentheses nested deeper than the limit of %u",
				p->max_depth);
			return NULL;
		}
		advance(p);
		if (t->kind == XC_T_RPAREN) {
			xc_error_set(p->err, XC_E_ITEM_EXPECTED, open, t->end,
				     "empty parentheses");
			return NULL;
		}
		p->depth++;
		group = parse_group(p);
		p->depth--;
		if (!group)
			return NULL;
		if (t->kind != XC_T_RPAREN) {
			report_unclosed(p, open);
			xc_expr_destroy(group);
			return NULL;
		}
		advance(p);
		return group;
	}
	/* (the empty request never gets here: xc_parse reports it) */
	report_item_expected(p, after);
	return NULL;
}

/* group -> item { boolop item } */
static struct xc_expr *parse_group(parser_t *p)
{
	const xc_token_t *t = &p->lx.tok;
	struct xc_expr *first, *group = NULL;
	xc_token_kind_t first_kind = XC_T_END;
	char first_ch = 0;

	first = parse_item(p, 0);
	if (!first)
		return NULL;
	while (t->kind == XC_T_AND || t->kind == XC_T_OR) {
		struct xc_expr *item;
		size_t op_offset = t->offset, op_end = t->end;
		char op_ch = t->ch;

		if (!group) {
			first_kind = t->kind;
			first_ch = op_ch;
			group = xc_group_create(t->kind == XC_T_AND ? XC_AND
								    : XC_OR,
						first->offset);
			if (!group || xc_group_add(group, first) < 0) {
				if (!group)
					xc_expr_destroy(first);
				xc_expr_destroy(group);
				xc_error_set(p->err, XC_E_NOMEM, op_offset,
					     op_end, "out of memory");
				return NULL;
			}
		} else if (t->kind != first_kind) {
			xc_error_set(
				p->err, XC_E_MIXED_BOOLOPS, op_offset, op_end,
				"cannot mix '%c' and '%c' in one group; add parentheses",
				first_ch, op_ch);
			xc_expr_destroy(group);
			return NULL;
		}
		advance(p);
		item = parse_item(p, op_ch);
		if (!item) {
			xc_expr_destroy(group);
			return NULL;
		}
		if (xc_group_add(group, item) < 0) {
			xc_error_set(p->err, XC_E_NOMEM, op_offset, op_end,
				     "out of memory");
			xc_expr_destroy(group);
			return NULL;
		}
	}
	if (t->kind == XC_T_LEAF || t->kind == XC_T_BADLEAF ||
	    t->kind == XC_T_LPAREN) {
		report_boolop_expected(p);
		xc_expr_destroy(group ? group : first);
		return NULL;
	}
	return group ? group : first;
}

xc_expr_t *xc_parse(const char *request, const xc_limits_t *limits,
		    xc_error_t *err)
{
	const xc_limits_t l = xc_limits_in_force(limits);
	size_t max_length = l.max_request_length;
	parser_t p = { .max_depth = l.max_depth, .err = err };
	struct xc_expr *expr;
	size_t len;

	xc_error_clear(err);
	if (!request) {
		xc_error_set(err, XC_E_INVALID_ARG, 0, 0, "no request given");
		return NULL;
	}
	len = strnlen(request, max_length + 1);
	if (len > max_length) {
		len = strlen(request);
		xc_error_set(
			err, XC_E_TOO_LONG, max_length, len,
			"request is %zu bytes, longer than the limit of %zu",
			len, max_length);
		return NULL;
	}
	xc_lexer_init(&p.lx, request, len);
	if (p.lx.tok.kind == XC_T_END) {
		xc_error_set(err, XC_E_EMPTY, 0, 0, "empty request");
		return NULL;
	}
	expr = parse_group(&p);
	if (!expr)
		return NULL;
	if (p.lx.tok.kind == XC_T_RPAREN) {
		xc_error_set(err, XC_E_UNMATCHED_PAREN, p.lx.tok.offset,
			     p.lx.tok.end, "unmatched ')'");
		xc_expr_destroy(expr);
		return NULL;
	}
	return expr;
}
