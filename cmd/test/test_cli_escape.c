/*
 * test_cli_escape.c - text the command did not write reaches the terminal
 * escaped (cli.h, "printers"): why's report of nodes whose names and
 * Extra hold terminal controls, JSON, the messages that quote a
 * command line.  (why --job on another user's
 * job: test_why.c.)  Part of the test program test_cli.
 */
#include <criterion/criterion.h>

#include "table.h"
#include "cli_fixture.h"

static const struct cli_row escape_rows[] = {
	/* ESC [ 2 J in the request, a node's value (ESC, DEL and CSI, a C1
	 * control, as JSON escapes) and a node's name */
	{ "why \"$(printf 'a=\\033[2J')\" --nodes -",
	  "{\"n1\":{\"a\":\"\\u001b[2J\\u007f\\u009b\"},\"n\\u001b2\":{\"a\":1}}",
	  1,
	  "request: a=\\x1b[2J\n"
	  "0 of 2 nodes satisfy it.\n"
	  "  a=\\x1b[2J                      0 of 2 nodes   (n1: \"\\u001B[2J\\u007F\\u009B\"; '\\x1b[2J' is not a number: n\\x1b2)\n" },
	/* JSON: every control and non-ASCII character as \uXXXX, DEL too */
	{ "check --json \"$(printf 'a=\\033[2J\\007\\r\\177\\302\\233')\"",
	  NULL, 0,
	  "{\"valid\":true,\"request\":\"a=\\u001B[2J\\u0007\\r\\u007F\\u009B\"}\n" },
	/* a message quoting the command line: escaped, invalid UTF-8 too;
	 * a backslash is left as it is (the library's messages come
	 * escaped) */
	{ "why --job \"$(printf 'x\\033[2J\\007\\r\\177\\302\\233\\377')\"",
	  NULL, 2,
	  "slurm-extra: --job: a job id expected, not 'x\\x1b[2J\\x07\\r\\x7f\\xc2\\x9b\\xff'\n" },
	{ "why --job 'x\\y'", NULL, 2,
	  "slurm-extra: --job: a job id expected, not 'x\\y'\n" },
};

ROW_TEST(cli, escape, struct cli_row, escape_rows)
{
	check_row(row, "");
}
