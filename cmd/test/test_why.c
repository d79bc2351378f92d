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

/* Nodes n1-n3 (n3 excluded by the job below), each Extra a JSON text. */
static const char *const nodes[][2] = {
	{ "n1", "{\"a\":1,\"b\":\"x\"}" },
	{ "n2", "{\"a\":2,\"b\":\"y\"}" },
	{ "n3", "{\"a\":1,\"b\":\"x\"}" },
};

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
		"1 of 2 nodes satisfy it: n1\n"
		"  a=1                            1 of 2 nodes   (n2: 2)\n"
		"  b=x                            1 of 2 nodes   (n2: \"y\")\n"
		"closest: n2 (a=1 and b=x fail)\n"
		"preferences, waited for 60 s from EligibleTime:\n"
		"  1. b=x: 1 of 2 nodes satisfy the request and it\n"
		"status: prefers b=x until 12:00\n");
}
