/*
 * test_format.c - the canonical formatter: its text parses back to an
 * equal tree, formatting is idempotent, and equal trees are recognised.
 */
#include <criterion/criterion.h>
#include "table.h"
#include <stdlib.h>

#include "xc.h"
#include "leakcheck.h"

LEAK_CHECKED(format);

static const char *const requests[] = {
	"a=1.23",
	"a=   b",
	"a!=1.23|foo!=blah",
	"( a=b)",
	"((((i=5))))",
	"(c<=0.0001&a=1.25)|zed=23.0",
	"((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00000001)",
	"i=5&s=Hello,f>2",
	"(a=1&b=2)&c=3",
	"((a=1&(b=2|(c=3&(d=4)))))",
	"x=\"q\"&y= ",
	"k\t=\tv",
	"(a=1|(b=2|(c=3)))",
};

ROW_TEST(format, round_trip, char *const, requests)
{
	xc_expr_t *a = xc_parse(*row, NULL, NULL), *b;
	char *t1, *t2;

	cr_assert_not_null(a, "'%s'", *row);
	t1 = xc_format(a);
	b = xc_parse(t1, NULL, NULL);
	cr_assert_not_null(b, "canonical '%s' must parse", t1);
	cr_assert(xc_expr_equal(a, b), "'%s' -> '%s'", *row, t1);
	t2 = xc_format(b);
	cr_assert_str_eq(t1, t2, "formatting is idempotent");
	free(t1);
	free(t2);
	xc_expr_destroy(a);
	xc_expr_destroy(b);
}

Test(format, equality)
{
	xc_expr_t *a = xc_parse("a=1&b=2", NULL, NULL);
	xc_expr_t *b = xc_parse("(a=1,b=2)", NULL, NULL);
	xc_expr_t *c = xc_parse("a=1|b=2", NULL, NULL);
	xc_expr_t *d = xc_parse("a=1&b=3", NULL, NULL);
	xc_expr_t *e = xc_parse("a=1&b!=2", NULL, NULL);
	xc_expr_t *f = xc_parse("a=1&b=2&c=3", NULL, NULL);

	cr_assert(xc_expr_equal(a, b));
	cr_assert_not(xc_expr_equal(a, c));
	cr_assert_not(xc_expr_equal(a, d));
	cr_assert_not(xc_expr_equal(a, e));
	cr_assert_not(xc_expr_equal(a, f));
	cr_assert_not(xc_expr_equal(a, NULL));
	cr_assert_null(xc_format(NULL));
	xc_expr_destroy(a);
	xc_expr_destroy(b);
	xc_expr_destroy(c);
	xc_expr_destroy(d);
	xc_expr_destroy(e);
	xc_expr_destroy(f);
}
