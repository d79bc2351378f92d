/*
 * cli_fixture.c - running the slurm-extra command as a user would, for
 * its tests (cli_fixture.h).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_fixture.h"

/* Runs `slurm-extra ARGS` through the shell with stdin from `input` (may
 * be NULL), stdout and stderr together in r->out. */
void run(struct run *r, const char *input, const char *args)
{
	run_as(r, input, "", args);
}

/* run(), with `before` (a shell command prefix such as "cd / && env -i")
 * before the command. */
void run_as(struct run *r, const char *input, const char *before,
	    const char *args)
{
	char cmd[4096], in[] = "/tmp/xc-cli-in-XXXXXX";
	size_t n;
	FILE *p;
	int fd, st;

	if (input) {
		fd = mkstemp(in);
		cr_assert_geq(fd, 0);
		cr_assert_eq(write(fd, input, strlen(input)),
			     (ssize_t)strlen(input));
		close(fd);
	}
	snprintf(cmd, sizeof(cmd), "{ %s %s %s; } 2>&1 <%s", before, CLI_PATH,
		 args, input ? in : "/dev/null");
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	n = fread(r->out, 1, sizeof(r->out) - 1, p);
	r->out[n] = '\0';
	st = pclose(p);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (input)
		unlink(in);
}

/* Runs `slurm-extra ARGS` as run() does, stdout only (`err` false) or
 * stderr only (`err` true) in r->out. */
void run_stream(struct run *r, const char *args, bool err)
{
	char redirected[1024];

	snprintf(redirected, sizeof(redirected), "%s %s", args,
		 err ? "2>&1 >/dev/null" : "2>/dev/null");
	run(r, NULL, redirected);
}

void check_row(const struct cli_row *row, const char *before)
{
	struct run r;

	run_as(&r, row->input, before, row->args);
	cr_assert_eq(r.status, row->status,
		     "slurm-extra %s: exit %d, expected %d\n%s", row->args,
		     r.status, row->status, r.out);
	cr_assert_str_eq(r.out, row->out, "slurm-extra %s", row->args);
}
