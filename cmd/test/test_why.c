/*
 * test_why.c - `slurm-extra why --job` without a cluster: why_job() (cli.h)
 * on job records built here as Slurm returns them (slurm_job_info_t, the
 * AdminComment written by sx_job_state_format()), over a node table built
 * through the library, with what it prints on stdout and stderr read
 * back.  Linked with the command's sources.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "cli.h"
#include "job_state.h"
#include "leakcheck.h"

LEAK_CHECKED(why);

/* A job record: its request, user's excluded nodes, preferences and
 * status in the AdminComment, as job_submit/extra writes them. */
struct job {
	const char *request, *exclude, *status, *partition;
	const char *prefer[2];
	long wait;
};

/* Nodes n1-n4 (n3 excluded by the jobs below), each Extra a JSON text;
 * n4's values hold what a terminal acts on, as JSON escapes: ESC [ 2 J,
 * DEL and the C1 control CSI (U+009B). */
static const char *const nodes[][2] = {
	{ "n1", "{\"a\":1,\"b\":\"x\"}" },
	{ "n2", "{\"a\":2,\"b\":\"y\"}" },
	{ "n3", "{\"a\":1,\"b\":\"x\"}" },
	{ "n4", "{\"a\":3,\"b\":\"\\u001b[2J\\u007f\\u009b\"}" },
};

/* What a user may put in a request to act on the terminal of whoever
 * reads it: ESC [ 2 J (clear the screen), BEL, CR, DEL, CSI as a C1
 * control in UTF-8 (0xc2 0x9b), and a byte that is not UTF-8. */
#define HOSTILE "\x1b[2J\a\r\x7f\xc2\x9b\xff"
/* The same, as the command shows it. */
#define SHOWN "\\x1b[2J\\x07\\r\\x7f\\xc2\\x9b\\xff"

/* Runs why_job() on `job` (with --json when `json`): what it printed,
 * stdout and stderr as they came, in `out` (`size` bytes, NUL-terminated),
 * and its exit status in *rc. */
static void run_job(const struct job *job, bool json, char *out, size_t size,
		    int *rc)
{
	struct sx_job_state st = {
		.status = (char *)job->status,
		.exclude = (char *)(job->exclude ? job->exclude : ""),
		.request = (char *)job->request,
		.prefer = (char **)job->prefer,
		.n_prefer = (unsigned)!!job->prefer[0] + !!job->prefer[1],
		.wait = job->wait,
	};
	slurm_job_info_t rec = { 0 };
	struct opts o = { .json = json };
	xc_nodes_t *t = xc_nodes_create(NULL);
	FILE *tmp = tmpfile();
	int saved_out = dup(STDOUT_FILENO), saved_err = dup(STDERR_FILENO);
	size_t n;

	cr_assert(t && tmp && saved_out >= 0 && saved_err >= 0);
	for (size_t i = 0; i < sizeof(nodes) / sizeof(*nodes); i++) {
		int added =
			xc_nodes_add(t, nodes[i][0], nodes[i][1], NULL, NULL);

		cr_assert_eq(added, 0);
	}
	rec.job_id = 7;
	rec.job_state = JOB_PENDING;
	rec.partition = (char *)(job->partition ? job->partition : "batch");
	cr_assert_not_null(rec.admin_comment = sx_job_state_format(&st));

	fflush(stdout);
	fflush(stderr);
	dup2(fileno(tmp), STDOUT_FILENO);
	dup2(fileno(tmp), STDERR_FILENO);
	*rc = why_job(&o, &rec, NULL, t);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, STDOUT_FILENO);
	dup2(saved_err, STDERR_FILENO);
	close(saved_out);
	close(saved_err);

	rewind(tmp);
	n = fread(out, 1, size - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
	free(rec.admin_comment);
	xc_nodes_destroy(t);
}

/* The report of a job's request on the nodes it may use (its excluded n3
 * left out), its description first, then its preferences and status. */
Test(why, a_job_record)
{
	const struct job job = { .request = "a=1&b=x",
				 .exclude = "n3",
				 .status = "prefers b=x until 12:00",
				 .prefer = { "b=x" },
				 .wait = 60 };
	char out[4096];
	int rc;

	run_job(&job, false, out, sizeof(out), &rc);
	cr_assert_eq(rc, EXIT_MATCH, "%s", out);
	cr_assert_str_eq(
		out,
		"job 7 (pending, partition batch)\n"
		"request: a=1&b=x\n"
		"1 of 3 nodes satisfy it: n1\n"
		"  a=1                            1 of 3 nodes   (n2: 2, n4: 3)\n"
		"  b=x                            1 of 3 nodes   (n2: \"y\", n4: \"\\u001B[2J\\u007F\\u009B\")\n"
		"closest: n[2,4] (a=1 and b=x fail)\n"
		"preferences, waited for 60 s from EligibleTime:\n"
		"  1. b=x: 1 of 3 nodes satisfy the request and it\n"
		"status: prefers b=x until 12:00\n");
}

/* Whether `out` holds a byte a terminal acts on: a control byte but the
 * newline, DEL, or any byte above 0x7e (a C1 control in UTF-8 starts with
 * 0xc2; invalid UTF-8 is such a byte too).  Says which and where. */
static bool acts_on_terminal(const char *out)
{
	for (const unsigned char *p = (const unsigned char *)out; *p; p++)
		if ((*p < 0x20 && *p != '\n') || *p >= 0x7f) {
			cr_log_error("byte 0x%02x at %zu of:\n%s", *p,
				     (size_t)(p - (const unsigned char *)out),
				     out);
			return true;
		}
	return false;
}

/* Another user's job whose request, preferences and status (and
 * partition) hold terminal controls: each is shown escaped,
 * the report's columns aligned on the escaped text, and nothing of what
 * was written reaches the terminal raw. */
Test(why, a_job_record_with_terminal_controls)
{
	const struct job job = { .request = "a=1&b=" HOSTILE "&k" HOSTILE
					    "=1&a>" HOSTILE,
				 /* (a list holding them is a hostlist to
				  * Slurm 22.05, none to 24.11: its names
				  * are the hostlist rows' of test_cli) */
				 .exclude = "n3",
				 .status = "prefers " HOSTILE " until 12:00",
				 .partition = "batch" HOSTILE,
				 .prefer = { "b=x" HOSTILE, "c=1|" HOSTILE } };
	char out[8192];
	int rc;

	run_job(&job, false, out, sizeof(out), &rc);
	cr_assert_eq(rc, EXIT_NOMATCH, "%s", out);
	cr_assert_not(acts_on_terminal(out));
	cr_assert_str_eq(
		out,
		"job 7 (pending, partition batch" SHOWN ")\n"
		"request: a=1&b=" SHOWN "&k" SHOWN "=1&a>" SHOWN "\n"
		"0 of 3 nodes satisfy it.\n"
		/* the column as wide as the widest part shown, k...=1 */
		"  a=1                              1 of 3 nodes   (n2: 2, n4: 3)\n"
		"  b=" SHOWN
		"  0 of 3 nodes   (n1: \"x\", n2: \"y\", n4: \"\\u001B[2J\\u007F\\u009B\")\n"
		"  k" SHOWN "=1 0 of 3 nodes   (no key 'k" SHOWN
		"': n[1-2,4])\n"
		"  a>" SHOWN "  0 of 3 nodes   ('" SHOWN
		"' is not a number: n[1-2,4])\n"
		"closest: n1 (b=" SHOWN ", k" SHOWN "=1 and a>" SHOWN " fail)\n"
		"preferences, no wait: a free node only, for 30 s from EligibleTime at most:\n"
		"  1. b=x" SHOWN ": 0 of 3 nodes satisfy the request and it\n"
		"  2. c=1|" SHOWN
		": with the request, not a valid request: it narrows nothing\n"
		"status: prefers " SHOWN " until 12:00\n");
}

/* The same job with --json: its text in JSON strings, every control and
 * non-ASCII character (the C1 control too) as \uXXXX, DEL as well, which
 * jansson writes raw.  (JSON holds no byte that is not UTF-8: here the
 * job's text is UTF-8.) */
Test(why, a_job_record_with_terminal_controls_in_json)
{
	const struct job job = { .request = "b=\x1b[2J\a\r\x7f\xc2\x9b",
				 .exclude = "n3",
				 .status = "\x1b[2J\a\r\x7f\xc2\x9b",
				 .prefer = { "a=\x1b[2J\a\r\x7f\xc2\x9b" } };
	char out[8192];
	int rc;

	run_job(&job, true, out, sizeof(out), &rc);
	cr_assert_eq(rc, EXIT_NOMATCH, "%s", out);
	cr_assert_not(acts_on_terminal(out));
	cr_assert_str_eq(
		out,
		"{\"request\":\"b=\\u001B[2J\\u0007\\r\\u007F\\u009B\",\"nodes\":3,"
		"\"satisfy\":0,\"satisfying\":\"\",\"items\":[{\"item\":"
		"\"b=\\u001B[2J\\u0007\\r\\u007F\\u009B\",\"satisfy\":0,"
		"\"ruled_out\":[{\"why\":\"false\",\"count\":3,\"nodes\":\"n[1-2,4]\","
		"\"values\":{\"n1\":\"x\",\"n2\":\"y\",\"n4\":\"\\u001B[2J\\u007F\\u009B\"}}]}],"
		"\"closest\":{\"fail\":1,\"sets\":[{\"nodes\":\"n[1-2,4]\",\"count\":3,"
		"\"failing\":[\"b=\\u001B[2J\\u0007\\r\\u007F\\u009B\"]}],\"more\":false},"
		"\"prefer\":[{\"tier\":\"a=\\u001B[2J\\u0007\\r\\u007F\\u009B\",\"nodes\":0}],"
		"\"wait\":0,\"status\":\"\\u001B[2J\\u0007\\r\\u007F\\u009B\"}\n");
}

/* A job whose request cannot be read: the error with the request escaped
 * above it and the caret under the byte at fault (the end, after '|'),
 * counted in the escaped columns. */
Test(why, a_job_record_whose_request_is_invalid)
{
	const struct job job = { .request = "a=" HOSTILE "|" };
	char out[4096];
	int rc;

	run_job(&job, false, out, sizeof(out), &rc);
	cr_assert_eq(rc, EXIT_INVALID, "%s", out);
	cr_assert_not(acts_on_terminal(out));
	cr_assert_str_eq(
		out,
		"slurm-extra: error: leaf or '(' expected after '|', found the end of the request (column 14)\n"
		"  a=" SHOWN "|\n"
		"                                  ^\n");
}
