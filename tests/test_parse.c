/*
 * test_parse.c - the grammar of sem 1: every example of the Slurm document
 * (seeds/002) and of semantics.md is a row: valid requests with their
 * canonical text, invalid ones with their error code and byte offset.
 */
#include <criterion/criterion.h>
#include "table.h"
#include <stdlib.h>
#include <string.h>

#include "xc_private.h"

struct valid_row {
	const char *request;
	const char *canonical;
};

static const struct valid_row valid_rows[] = {
	/* seeds/002, "examples of valid requests" */
	{ "a=1.23", "a=1.23" },
	{ "a=   b", "a=   b" },
	{ "a!=1.24", "a!=1.24" },
	{ "a!=1.23|foo!=blah", "a!=1.23|foo!=blah" },
	{ "b=200", "b=200" },
	{ "b=true", "b=true" },
	{ "foo<baz", "foo<baz" },
	{ "(c<=0.0001&a=1.25)|zed=23.0", "(c<=0.0001&a=1.25)|zed=23.0" },
	{ "((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00000001)",
	  "((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00000001)" },
	{ "((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=true|c>=0.1)",
	  "((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=true|c>=0.1)" },
	{ "((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00001)",
	  "((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00001)" },
	{ "a!=1.23", "a!=1.23" },
	{ "b=0", "b=0" },
	{ "b=false", "b=false" },
	{ "foo>baz", "foo>baz" },
	{ "(a=1&b=2)|c=foobar", "(a=1&b=2)|c=foobar" },
	{ "( a=b)", " a=b" },
	{ "c>=0.0001", "c>=0.0001" },
	{ "c=0.00001", "c=0.00001" },
	/* semantics.md 1.1 to 1.4 */
	{ "s=Hello ", "s=Hello " },
	{ "s=\"Hello\"", "s=\"Hello\"" },
	{ "i=5&s=Hello,f>2", "i=5&s=Hello&f>2" },
	{ "((((i=5))))", "i=5" },
	{ "o/x=1", "o/x=1" },
	{ "o.x=1", "o.x=1" },
	{ "k{:~}=v.~{}:", "k{:~}=v.~{}:" },
	{ "gr\xc3\xb6\xc3\x9f" "e=\xe2\x82\xac", "gr\xc3\xb6\xc3\x9f" "e=\xe2\x82\xac" },
	{ "a<1", "a<1" },
	{ "a<=1", "a<=1" },
	{ "a>1", "a>1" },
	{ "a>=1", "a>=1" },
	{ "gpu=true&mem>=512", "gpu=true&mem>=512" },
	{ "(gpu=true&mem>=512)|x=1", "(gpu=true&mem>=512)|x=1" },
	{ "a=1,b=2,c=3", "a=1&b=2&c=3" },
	{ "(a=1|b=2)&((c=3))", "(a=1|b=2)&c=3" },
	{ "((a=1&b=2))", "a=1&b=2" },
	{ "(a=1&b=2)&c=3", "(a=1&b=2)&c=3" },
	{ "a= ", "a= " },
	{ " a =\t1", " a =\t1" },
};

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

struct error_row {
	const char *request;
	xc_errcode_t code;
	size_t offset;
	const char *message;  /* NULL: not checked here */
};

static const struct error_row error_rows[] = {
	/* seeds/002, "examples of invalid requests" */
	{ "a,<=6", XC_E_NO_CMPOP, 1,
	  "comparison operator expected after key 'a'" },
	{ "a<=6<=", XC_E_VALUE_CMPOP, 4,
	  "unexpected '<=' in the value of key 'a' (one comparison per leaf)" },
	{ "a=5&&&b=5", XC_E_ITEM_EXPECTED, 4,
	  "leaf or '(' expected after '&', found '&'" },
	{ "a=5|||b=5", XC_E_ITEM_EXPECTED, 4,
	  "leaf or '(' expected after '|', found '|'" },
	{ "a====5", XC_E_BAD_CMPOP, 1,
	  "invalid comparison operator '====' (use =, !=, >, >=, <, <=)" },
	{ "b<=<=5", XC_E_BAD_CMPOP, 1, NULL },
	{ "a=5&()", XC_E_ITEM_EXPECTED, 4, "empty parentheses" },
	{ "a=5&b=5|c=5", XC_E_MIXED_BOOLOPS, 7,
	  "cannot mix '&' and '|' in one group; add parentheses" },
	{ "(a=1)&(b=2)|(c=3)", XC_E_MIXED_BOOLOPS, 11, NULL },
	{ "a=1(b=2)", XC_E_BOOLOP_EXPECTED, 3,
	  "'&', ',' or '|' expected before '('" },
	{ "(a=1)(b=2)", XC_E_BOOLOP_EXPECTED, 5, NULL },
	{ "(((a=1)b=2))", XC_E_BOOLOP_EXPECTED, 7,
	  "'&', ',' or '|' expected before 'b=2'" },
	{ " (a=b)", XC_E_NO_CMPOP, 1,
	  "comparison operator expected after key ' '" },
	{ "((c=0.00001)", XC_E_UNCLOSED_PAREN, 12,
	  "')' expected (to close '(' at column 1) before the end of the request" },
	/* semantics.md 1.1 */
	{ "i==5", XC_E_BAD_CMPOP, 1, NULL },
	{ "i=!5", XC_E_BAD_CMPOP, 1, NULL },
	{ "i=>5", XC_E_BAD_CMPOP, 1, NULL },
	{ "i<>5", XC_E_BAD_CMPOP, 1, NULL },
	{ "i!5", XC_E_BAD_CMPOP, 1, NULL },
	{ "=5", XC_E_EMPTY_KEY, 0, "key expected before '='" },
	{ "i=", XC_E_EMPTY_VALUE, 2, "value expected after 'i='" },
	{ "e=", XC_E_EMPTY_VALUE, 2, NULL },
	{ "a=b=c", XC_E_VALUE_CMPOP, 3, NULL },
	{ "a=b!", XC_E_VALUE_CMPOP, 3, NULL },
	{ "x=1>2", XC_E_VALUE_CMPOP, 3, NULL },
	{ "x>=1<", XC_E_VALUE_CMPOP, 4, NULL },
	{ "a!b=1", XC_E_BAD_CMPOP, 1, NULL },
	/* 1.2 */
	{ "a=5&&b=5", XC_E_ITEM_EXPECTED, 4, NULL },
	{ "a=5,&b=5", XC_E_ITEM_EXPECTED, 4,
	  "leaf or '(' expected after ',', found '&'" },
	/* 1.3 */
	{ "a=1,b=2|c=3", XC_E_MIXED_BOOLOPS, 7,
	  "cannot mix ',' and '|' in one group; add parentheses" },
	{ "a=1|b=2,c=3", XC_E_MIXED_BOOLOPS, 7, NULL },
	{ "(a=1|b=2&c=3)", XC_E_MIXED_BOOLOPS, 8, NULL },
	/* 1.4 */
	{ "&i=5", XC_E_ITEM_EXPECTED, 0, "leaf or '(' expected, found '&'" },
	{ "i=5&", XC_E_ITEM_EXPECTED, 4,
	  "leaf or '(' expected after '&', found the end of the request" },
	{ "i=5|", XC_E_ITEM_EXPECTED, 4, NULL },
	{ "(i=5&)", XC_E_ITEM_EXPECTED, 5,
	  "leaf or '(' expected after '&', found ')'" },
	{ "()", XC_E_ITEM_EXPECTED, 0, "empty parentheses" },
	{ "i=5)", XC_E_UNMATCHED_PAREN, 3, "unmatched ')'" },
	{ "(i=5))", XC_E_UNMATCHED_PAREN, 5, NULL },
	{ "", XC_E_EMPTY, 0, "empty request" },
	{ "(", XC_E_ITEM_EXPECTED, 1, NULL },
	{ ")", XC_E_ITEM_EXPECTED, 0, NULL },
	{ "(a=1", XC_E_UNCLOSED_PAREN, 4, NULL },
	{ "a", XC_E_NO_CMPOP, 1, NULL },
	{ "a=1&b", XC_E_NO_CMPOP, 5, NULL },
	{ "gpu=true&mem>=512|x=1", XC_E_MIXED_BOOLOPS, 17, NULL },
	{ "a=1&|b=2", XC_E_ITEM_EXPECTED, 4, NULL },
	{ "(a=1)b", XC_E_BOOLOP_EXPECTED, 5, NULL },
};

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
	cr_assert_leq(err.offset, strlen(row->request));
	cr_assert_leq(err.end, strlen(row->request));
	cr_assert_leq(err.offset, err.end);
	if (row->message)
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
	cr_assert_str_eq(err.message,
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
