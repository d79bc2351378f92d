/*
 * test_parse.c - the grammar of doc/language.md §1: every example of the
 * Slurm page (doc/language.md, its sources) and of §1 is a row: valid
 * requests with their
 * canonical text, invalid ones with their error code, the byte range of the
 * offending token and the exact message.
 */
#include <criterion/criterion.h>
#include "cases.h"
#include "table.h"
#include <stdlib.h>
#include <string.h>

#include "xc_private.h"
#include "leakcheck.h"

LEAK_CHECKED(parse);

ROW_TEST(parse, valid, struct valid_row, valid_rows)
{
	xc_error_t err;
	xc_expr_t *e = xc_parse(row->request, NULL, &err);
	char *text;

	cr_assert_not_null(e, "'%s' should parse: %s at %zu", row->request,
			   err.message, err.offset);
	cr_assert_eq(err.code, XC_OK);
	text = xc_format(e);
	cr_assert_str_eq(text, row->canonical);
	free(text);
	xc_expr_destroy(e);
}

ROW_TEST(parse, invalid, struct error_row, error_rows)
{
	xc_error_t err;
	xc_expr_t *e = xc_parse(row->request, NULL, &err);

	cr_assert_null(e, "'%s' should not parse", row->request);
	cr_assert_eq(err.code, row->code, "'%s': code %s, expected %s",
		     row->request, xc_errcode_name(err.code),
		     xc_errcode_name(row->code));
	cr_assert_eq(err.offset, row->offset, "'%s': offset %zu, expected %zu",
		     row->request, err.offset, row->offset);
	cr_assert_eq(err.end, row->end, "'%s': end %zu, expected %zu",
		     row->request, err.end, row->end);
	cr_assert_leq(err.end, strlen(row->request));
	cr_assert_str_eq(err.message, row->message);
}

/* A nested request of `depth` parentheses around a=1. */
static char *nested(unsigned depth)
{
	char *s = malloc(2 * depth + 4);

	memset(s, '(', depth);
	memcpy(s + depth, "a=1", 3);
	memset(s + depth + 3, ')', depth);
	s[2 * depth + 3] = '\0';
	return s;
}

Test(parse, deepest_request_within_1024_bytes)
{
	/* 510 levels is the deepest that fits in Slurm's 1024 bytes. */
	char *s = nested(510);
	xc_error_t err;
	xc_expr_t *e;

	cr_assert_eq(strlen(s), 1023);
	e = xc_parse(s, NULL, &err);
	cr_assert_not_null(e, "%s", err.message);
	cr_assert_eq(xc_expr_kind(e), XC_LEAF);
	xc_expr_destroy(e);
	free(s);
}

Test(parse, depth_limit_is_an_error_not_a_crash)
{
	xc_limits_t big = { .max_request_length = 1 << 24 };
	xc_limits_t shallow = { .max_depth = 3 };
	char *at = nested(XC_DEFAULT_MAX_DEPTH);
	char *past = nested(XC_DEFAULT_MAX_DEPTH + 1);
	char *huge = nested(1000000);
	xc_error_t err;
	xc_expr_t *e;

	e = xc_parse(at, &big, &err);
	cr_assert_not_null(e, "%s", err.message);
	xc_expr_destroy(e);

	cr_assert_null(xc_parse(past, &big, &err));
	cr_assert_eq(err.code, XC_E_TOO_DEEP);
	cr_assert_eq(err.offset, XC_DEFAULT_MAX_DEPTH);
	cr_assert_str_eq(err.message,
			 "parentheses nested deeper than the limit of 1024");

	cr_assert_null(xc_parse(huge, &big, &err));
	cr_assert_eq(err.code, XC_E_TOO_DEEP);

	cr_assert_null(xc_parse("((((a=1))))", &shallow, &err));
	cr_assert_eq(err.code, XC_E_TOO_DEEP);
	cr_assert_eq(err.offset, 3);
	e = xc_parse("(((a=1)))", &shallow, &err);
	cr_assert_not_null(e);
	xc_expr_destroy(e);
	free(at);
	free(past);
	free(huge);
}

Test(parse, length_limit)
{
	char s[1030];
	xc_limits_t small = { .max_request_length = 5 };
	xc_error_t err;
	xc_expr_t *e;

	memset(s, 'v', sizeof(s));
	memcpy(s, "k=", 2);
	s[1024] = '\0';
	e = xc_parse(s, NULL, &err);
	cr_assert_not_null(e, "1024 bytes is within the default limit");
	xc_expr_destroy(e);
	s[1024] = 'v';
	s[1025] = '\0';
	cr_assert_null(xc_parse(s, NULL, &err));
	cr_assert_eq(err.code, XC_E_TOO_LONG);
	cr_assert_eq(err.offset, 1024);
	cr_assert_str_eq(
		err.message,
		"request is 1025 bytes, longer than the limit of 1024");
	cr_assert_null(xc_parse("abc=12", &small, &err));
	cr_assert_eq(err.code, XC_E_TOO_LONG);
	e = xc_parse("ab=12", &small, &err);
	cr_assert_not_null(e);
	xc_expr_destroy(e);
}

Test(parse, tree_shape_and_accessors)
{
	xc_error_t err;
	xc_expr_t *e = xc_parse("(a=1&b!=x)|c>=3.5", NULL, &err);
	const xc_expr_t *and, *leaf;

	cr_assert_not_null(e);
	cr_assert_eq(xc_expr_kind(e), XC_OR);
	cr_assert_eq(xc_expr_count(e), 2);
	and = xc_expr_child(e, 0);
	cr_assert_eq(xc_expr_kind(and), XC_AND);
	cr_assert_eq(xc_expr_offset(and), 1);
	leaf = xc_expr_child(and, 1);
	cr_assert_str_eq(xc_leaf_key(leaf), "b");
	cr_assert_eq(xc_leaf_cmpop(leaf), XC_NE);
	cr_assert_str_eq(xc_leaf_value(leaf), "x");
	cr_assert_eq(xc_expr_offset(leaf), 5);
	leaf = xc_expr_child(e, 1);
	cr_assert_str_eq(xc_leaf_key(leaf), "c");
	cr_assert_eq(xc_leaf_cmpop(leaf), XC_GE);
	cr_assert_str_eq(xc_leaf_value(leaf), "3.5");
	cr_assert_null(xc_expr_child(e, 2));
	cr_assert_null(xc_leaf_key(e));
	cr_assert_eq(xc_expr_count(leaf), 0);
	xc_expr_destroy(e);
}

Test(parse, bad_arguments)
{
	xc_error_t err;

	cr_assert_null(xc_parse(NULL, NULL, &err));
	cr_assert_eq(err.code, XC_E_INVALID_ARG);
	cr_assert_null(xc_parse("a=", NULL, NULL), "err may be NULL");
	xc_expr_destroy(NULL);
	cr_assert(xc_expr_equal(NULL, NULL));
	cr_assert_str_eq(xc_errcode_name((xc_errcode_t)999), "unknown");
	cr_assert_str_eq(xc_errcode_name(XC_E_MIXED_BOOLOPS), "mixed-boolops");
}

Test(parse, first_error_is_kept)
{
	xc_error_t err;

	xc_error_clear(&err);
	xc_error_set(&err, XC_E_EMPTY, 1, 2, "first");
	xc_error_set(&err, XC_E_NOMEM, 3, 4, "second");
	cr_assert_eq(err.code, XC_E_EMPTY);
	cr_assert_str_eq(err.message, "first");
}
