/*
 * test_convert.c - request value text to number (doc/language.md §3.1), to boolean
 * (doc/language.md §3.3), and the fuzzy comparison (doc/language.md §3.2): one row per rule case.
 */
#include <criterion/criterion.h>
#include "table.h"
#include <math.h>

#include "xc_private.h"
#include "glibc_scanf.h"
#include "leakcheck.h"

LEAK_CHECKED(convert);

struct number_row {
	const char *text;
	bool is_number;
	double value; /* checked when is_number and not NaN */
	bool is_nan;
	/* ON_STRICT_GLIBC(is_number) for a dangling exponent (glibc_scanf.h) */
	bool dangling, strict_is_number;
};

static const struct number_row number_rows[] = {
	{ "5", true, 5, false },
	{ "-5", true, -5, false },
	{ "+5", true, 5, false },
	{ "5.", true, 5, false },
	{ "5e0", true, 5, false },
	{ "1.23", true, 1.23, false },
	{ "1e308", true, 1e308, false },
	{ "1e400", true, INFINITY, false },
	{ "1e-400", true, 0, false },
	{ "0x10", true, 16, false },
	{ "0x1.8p1", true, 3, false },
	{ "0.00000001", true, 0.00000001, false },
	{ "inf", true, INFINITY, false },
	{ "INFINITY", true, INFINITY, false },
	{ "-Inf", true, -INFINITY, false },
	{ "+infinity", true, INFINITY, false },
	{ "nan", true, 0, true },
	{ "-NaN", true, 0, true },
	{ ".5", false, 0, false },
	{ ".5e1", false, 0, false },
	{ " 5", false, 0, false },
	{ "5 ", false, 0, false },
	/* glibc 2.41's scanf takes a dangling exponent or point, 2.43's does
	 * not (doc/language.md §3.1, glibc_scanf.h) */
	{ "1e", true, 1, false, ON_STRICT_GLIBC(false) },
	{ "1E", true, 1, false, ON_STRICT_GLIBC(false) },
	{ "1e+", true, 1, false, ON_STRICT_GLIBC(false) },
	{ "1e-", true, 1, false, ON_STRICT_GLIBC(false) },
	{ "1.5e", true, 1.5, false, ON_STRICT_GLIBC(false) },
	{ "1.e", true, 1, false, ON_STRICT_GLIBC(false) },
	{ "0x1p", true, 1, false, ON_STRICT_GLIBC(false) },
	{ "0x1p+", true, 1, false, ON_STRICT_GLIBC(false) },
	{ "1ee", false, 0, false },
	{ "1.5ex", false, 0, false },
	{ "0x.p1", false, 0, false },
	{ "--3", false, 0, false },
	{ "+-5", false, 0, false },
	{ "abc", false, 0, false },
	{ "0x", false, 0, false },
	{ "", false, 0, false },
	{ "infin", false, 0, false },
	{ "nan(1)", false, 0, false },
	{ "5kb", false, 0, false },
	{ "23.0a", false, 0, false },
	{ "true", false, 0, false },
};

ROW_TEST(convert, number, struct number_row, number_rows)
{
	double d = -12345;
	bool ok = xc_text_to_number(row->text, &d);

	cr_assert_eq(ok,
		     on_this_glibc(row->is_number, row->dangling,
				   row->strict_is_number),
		     "'%s'", row->text);
	if (ok && row->is_nan)
		cr_assert(isnan(d), "'%s' should be NaN", row->text);
	else if (ok)
		cr_assert_eq(d, row->value, "'%s': %g", row->text, d);
}

struct bool_row {
	const char *text;
	bool value;
	/* ON_STRICT_GLIBC(value) for a dangling exponent: then not a number
	 * but a word, true by 6 (glibc_scanf.h) */
	bool dangling, strict_value;
};

static const struct bool_row bool_rows[] = {
	/* 1. empty, '~', null */
	{ "", false },
	{ "~", false },
	{ "~yes", false },
	{ "null", false },
	{ "NuLL", false },
	/* 2. digits, 0x */
	{ "0", false },
	{ "000", false },
	{ "1", true },
	{ "200", true },
	{ "99999999999999999999999999", true },
	{ "0x", false },
	{ "0x0", false },
	{ "0X00", false },
	{ "0x10", true },
	{ "0xfF", true },
	/* 3. numbers by 3.1 */
	{ "-0", false },
	{ "0.0", false },
	{ "1e-400", false },
	{ "nan", true },
	{ "0.5", true },
	{ "-1", true },
	{ "+0", false },
	{ "inf", true },
	{ "0e", false, ON_STRICT_GLIBC(true) },
	{ "1e", true, ON_STRICT_GLIBC(true) },
	{ "0.e-", false, ON_STRICT_GLIBC(true) },
	{ "2.5E+", true, ON_STRICT_GLIBC(true) },
	/* 4. sscanf %SCNd64 */
	{ " 0", false },
	{ " 5", true },
	{ "\t-3", true },
	{ " +0", false },
	/* 5. words */
	{ "y", true },
	{ "YES", true },
	{ "t", true },
	{ "True", true },
	{ "on", true },
	{ "n", false },
	{ "No", false },
	{ "f", false },
	{ "FALSE", false },
	{ "off", false },
	/* 6. anything else */
	{ "anything", true },
	{ "falsey", true },
	{ "0.0.0", true },
	{ "5 ", true },
	{ "nope", true },
};

ROW_TEST(convert, boolean, struct bool_row, bool_rows)
{
	cr_assert_eq(
		xc_text_to_bool(row->text),
		on_this_glibc(row->value, row->dangling, row->strict_value),
		"'%s'", row->text);
}

Test(convert, fuzzy_compare)
{
	/* doc/language.md §3.2: strict epsilon 1e-5 */
	cr_assert_eq(xc_fuzzy_compare(0, 0.00001), -1);
	cr_assert_eq(xc_fuzzy_compare(0, 0.0000099999), 0);
	cr_assert_eq(xc_fuzzy_compare(0, 0.00000001), 0);
	cr_assert_eq(xc_fuzzy_compare(5, 5.00001), 0);
	cr_assert_eq(xc_fuzzy_compare(1.23, 1.24), -1);
	cr_assert_eq(xc_fuzzy_compare(1.25, 1.23), 1);
	cr_assert_eq(xc_fuzzy_compare(3, NAN), 1);
	cr_assert_eq(xc_fuzzy_compare(3, INFINITY), -1);
	cr_assert_eq(xc_fuzzy_compare(3, -INFINITY), 1);
}
