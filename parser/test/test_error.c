/*
 * test_error.c - the rendered error (doc/language.md §6) and escaping for logs: golden
 * texts, byte for byte.
 */
#include <criterion/criterion.h>
#include "table.h"
#include <stdlib.h>
#include <string.h>

#include "xc.h"
#include "xc_util.h"
#include "leakcheck.h"

LEAK_CHECKED(error);

struct render_row {
	const char *request;
	const char *prefix;
	const char *text;
};

static const struct render_row render_rows[] = {
	{ "a=5&b=5|c=5", NULL,
	  "error: cannot mix '&' and '|' in one group; add parentheses (column 8)\n"
	  "  a=5&b=5|c=5\n"
	  "         ^" },
	{ "gpu=true&mem>=512|x=1", "sbatch: error: --extra: ",
	  "sbatch: error: --extra: cannot mix '&' and '|' in one group; add parentheses (column 18)\n"
	  "  gpu=true&mem>=512|x=1\n"
	  "                   ^" },
	{ "i=5&", NULL,
	  "error: leaf or '(' expected after '&', found the end of the request (column 5)\n"
	  "  i=5&\n"
	  "      ^" },
	{ "a\t=1(", NULL,
	  "error: '&', ',' or '|' expected before '(' (column 5)\n"
	  "  a\\t=1(\n"
	  "       ^" },
	{ "k\x01=1|x", NULL,
	  "error: comparison operator expected after key 'x' (column 7)\n"
	  "  k\\x01=1|x\n"
	  "           ^" },
	{ "", NULL, "error: empty request (column 1)\n  \n  ^" },
};

ROW_TEST(error, render, struct render_row, render_rows)
{
	xc_error_t err;
	char *text;

	cr_assert_null(xc_parse(row->request, NULL, &err));
	text = xc_error_render(row->request, &err, row->prefix);
	cr_assert_str_eq(text, row->text);
	free(text);
}

Test(error, long_request_is_cut_around_the_error)
{
	char req[400];
	xc_error_t err;
	char *text, *line2, *line3;

	memset(req, 'v', sizeof(req));
	memcpy(req, "k=", 2);
	req[300] = '=';
	req[399] = '\0';
	cr_assert_null(xc_parse(req, NULL, &err));
	cr_assert_eq(err.code, XC_E_VALUE_CMPOP);
	cr_assert_eq(err.offset, 300);
	text = xc_error_render(req, &err, NULL);
	line2 = strchr(text, '\n') + 1;
	line3 = strchr(line2, '\n') + 1;
	cr_assert_eq(strncmp(line2, "  ...", 5), 0, "%s", text);
	cr_assert_eq(line3[strlen(line3) - 1], '^');
	/* the caret stands under the '=' */
	cr_assert_eq(line2[strlen(line3) - 1], '=', "%s", text);
	cr_assert_leq(strlen(line2) - strlen(line3), 2 + 3 + 72 + 3 + 1);
	free(text);
}

Test(error, escape_for_logs)
{
	char out[64];

	cr_assert_str_eq(xc_escape("%s%n", out, sizeof(out)), "\\x25s\\x25n");
	cr_assert_str_eq(xc_escape("a\nb\\c\x7f\xff", out, sizeof(out)),
			 "a\\nb\\\\c\\x7f\\xff");
	cr_assert_str_eq(xc_escape("$(rm -rf /);`x`", out, sizeof(out)),
			 "$(rm -rf /);`x`");
	/* never a cut escape */
	cr_assert_str_eq(xc_escape("ab\x01", out, 6), "ab");
	cr_assert_str_eq(xc_escape(NULL, out, sizeof(out)), "");
	cr_assert_null(xc_error_render("a", NULL, NULL));
}

/* xc_escape_to(), the display form (the command's reports): terminal
 * controls (ESC, BEL, CR, DEL, a C1 control in UTF-8), invalid UTF-8 and
 * a NUL all printable ASCII, the backslash doubled, and the count of
 * columns written is the caret's column. */
Test(error, escape_for_display)
{
	const char text[] = "a\x1b[2J\a\r\x7f\xc2\x9b\xff\\%b\0c";
	char *s = NULL;
	size_t size = 0, cols;
	FILE *out = open_memstream(&s, &size);

	cr_assert_not_null(out);
	cols = xc_escape_to(out, text, sizeof(text) - 1, false);
	cr_assert_eq(fclose(out), 0);
	cr_assert_str_eq(s,
			 "a\\x1b[2J\\x07\\r\\x7f\\xc2\\x9b\\xff\\\\%b\\x00c");
	cr_assert_eq(cols, strlen(s));
	free(s);
	cr_assert_eq(xc_escape_to(stdout, NULL, 0, false), 0);
}
