/*
 * test_cli_jobspec.c - `slurm-extra jobspec`: the jobspec written for a
 * shape or Slurm's options, the environment it carries and leaves out,
 * its working directory and time limits, run as a user would.  Part of
 * the test program test_cli.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "table.h"
#include "cli_fixture.h"

/* jobspec, run in / with an environment of one variable: the whole
 * jobspec is known. */
static const struct cli_row jobspec_rows[] = {
	{ "jobspec --shape 'slot=4/core=2' -- app a", NULL, 0,
	  "{\"resources\":[{\"type\":\"slot\",\"count\":4,\"label\":\"default\",\"with\":[{\"type\":\"core\",\"count\":2}]}],"
	  "\"tasks\":[{\"command\":[\"app\",\"a\"],\"slot\":\"default\",\"count\":{\"per_slot\":1}}],"
	  "\"attributes\":{\"system\":{\"duration\":0,\"cwd\":\"/\",\"environment\":{\"XC\":\"1\"}}},\"version\":1}\n" },
	/* Slurm's options, as flux run reads its own -N, -n, -c, -g */
	{ "jobspec -N2 -n4 -c2 --gpus-per-task 1 -t 1:00:00 -- app", NULL, 0,
	  "{\"resources\":[{\"type\":\"node\",\"count\":2,\"with\":[{\"type\":\"slot\",\"count\":2,\"label\":\"task\",\"with\":[{\"type\":\"core\",\"count\":2},{\"type\":\"gpu\",\"count\":1}]}]}],"
	  "\"tasks\":[{\"command\":[\"app\"],\"slot\":\"task\",\"count\":{\"per_slot\":1}}],"
	  "\"attributes\":{\"system\":{\"duration\":3600.0,\"cwd\":\"/\",\"environment\":{\"XC\":\"1\"}}},\"version\":1}\n" },
	{ "jobspec -N2 -n3 -- app", NULL, 0,
	  "{\"resources\":[{\"type\":\"node\",\"count\":2,\"with\":[{\"type\":\"slot\",\"count\":2,\"label\":\"task\",\"with\":[{\"type\":\"core\",\"count\":1}]}]}],"
	  "\"tasks\":[{\"command\":[\"app\"],\"slot\":\"task\",\"count\":{\"total\":3}}],"
	  "\"attributes\":{\"system\":{\"duration\":0,\"cwd\":\"/\",\"environment\":{\"XC\":\"1\"}}},\"version\":1}\n" },
	{ "jobspec -N2 --exclusive -t 90s -- app", NULL, 0,
	  "{\"resources\":[{\"type\":\"node\",\"count\":2,\"exclusive\":true,\"with\":[{\"type\":\"slot\",\"count\":1,\"label\":\"task\",\"with\":[{\"type\":\"core\",\"count\":1}]}]}],"
	  "\"tasks\":[{\"command\":[\"app\"],\"slot\":\"task\",\"count\":{\"per_slot\":1}}],"
	  "\"attributes\":{\"system\":{\"duration\":90.0,\"cwd\":\"/\",\"environment\":{\"XC\":\"1\"}}},\"version\":1}\n" },
	{ "jobspec -n1 --env-remove 'X*' -- app", NULL, 0,
	  "{\"resources\":[{\"type\":\"slot\",\"count\":1,\"label\":\"task\",\"with\":[{\"type\":\"core\",\"count\":1}]}],"
	  "\"tasks\":[{\"command\":[\"app\"],\"slot\":\"task\",\"count\":{\"per_slot\":1}}],"
	  "\"attributes\":{\"system\":{\"duration\":0,\"cwd\":\"/\",\"environment\":{}}},\"version\":1}\n" },
	{ "jobspec -n3 -- app", NULL, 0,
	  "{\"resources\":[{\"type\":\"slot\",\"count\":3,\"label\":\"task\",\"with\":[{\"type\":\"core\",\"count\":1}]}],"
	  "\"tasks\":[{\"command\":[\"app\"],\"slot\":\"task\",\"count\":{\"per_slot\":1}}],"
	  "\"attributes\":{\"system\":{\"duration\":0,\"cwd\":\"/\",\"environment\":{\"XC\":\"1\"}}},\"version\":1}\n" },
	/* the constraint: resolved, or symbolic */
	{ "jobspec --shape node=2/slot/core --extra 'gpu=true&mem>=512' --resolve --nodes " EXAMPLES_DIR
	  "/nodes.json -- app",
	  NULL, 0,
	  "{\"resources\":[{\"type\":\"node\",\"count\":2,\"with\":[{\"type\":\"slot\",\"count\":1,\"label\":\"default\",\"with\":[{\"type\":\"core\",\"count\":1}]}]}],"
	  "\"tasks\":[{\"command\":[\"app\"],\"slot\":\"default\",\"count\":{\"per_slot\":1}}],"
	  "\"attributes\":{\"system\":{\"duration\":0,\"cwd\":\"/\",\"environment\":{\"XC\":\"1\"},\"constraints\":{\"hostlist\":[\"n[1,4]\"]}}},\"version\":1}\n" },
	{ "jobspec --shape slot/core --extra 'gpu=true' -- app", NULL, 0,
	  "{\"resources\":[{\"type\":\"slot\",\"count\":1,\"label\":\"default\",\"with\":[{\"type\":\"core\",\"count\":1}]}],"
	  "\"tasks\":[{\"command\":[\"app\"],\"slot\":\"default\",\"count\":{\"per_slot\":1}}],"
	  "\"attributes\":{\"system\":{\"duration\":0,\"cwd\":\"/\",\"environment\":{\"XC\":\"1\"},\"constraints\":{\"extra\":[\"gpu=true\"]}}},\"version\":1}\n" },
	{ "jobspec --shape slot/core --extra 'gpu=true&mem>4096' --resolve --nodes " EXAMPLES_DIR
	  "/nodes.json -- app",
	  NULL, 1, "slurm-extra: no node satisfies the request (4 checked)\n" },
	/* not V1: refused, or written with --any-shape, one task a slot */
	{ "jobspec --shape slot=4/node -- app", NULL, 2,
	  "slurm-extra: --shape: not jobspec V1 (RFC 25): "
	  "$[0].with[0]: 'node' where jobspec V1 has core or gpu (RFC 25: node>slot>core[,gpu] or slot>core[,gpu]) "
	  "(--any-shape writes it all the same)\n" },
	{ "jobspec --shape '[slot{a}/core;slot{b}/core]' --any-shape -- app",
	  NULL, 0,
	  "{\"resources\":[{\"type\":\"slot\",\"count\":1,\"label\":\"a\",\"with\":[{\"type\":\"core\",\"count\":1}]},{\"type\":\"slot\",\"count\":1,\"label\":\"b\",\"with\":[{\"type\":\"core\",\"count\":1}]}],"
	  "\"tasks\":[{\"command\":[\"app\"],\"slot\":\"a\",\"count\":{\"per_slot\":1}},{\"command\":[\"app\"],\"slot\":\"b\",\"count\":{\"per_slot\":1}}],"
	  "\"attributes\":{\"system\":{\"duration\":0,\"cwd\":\"/\",\"environment\":{\"XC\":\"1\"}}},\"version\":1}\n" },
	/* errors */
	{ "jobspec --shape 'slot=x/core' -- app", NULL, 2,
	  "slurm-extra: error: --shape: a count (N, an idset such as 4,9 or a range such as 2+ or 3-30) expected, not 'x' (column 6)\n"
	  "  slot=x/core\n"
	  "       ^\n" },
	{ "jobspec --shape slot/core", NULL, 2,
	  "slurm-extra: jobspec needs a command after '--': jobspec --shape SHAPE -- COMMAND [ARGS...]\n" },
	{ "jobspec -- app", NULL, 2,
	  "slurm-extra: jobspec needs --shape SHAPE, or Slurm's -N, -n, -c, --gpus-per-task\n" },
	{ "jobspec --shape slot/core -N2 -- app", NULL, 2,
	  "slurm-extra: --shape, or Slurm's -N, -n, -c, --gpus-per-task and --exclusive: not both\n" },
	{ "jobspec -N2 -n1 -- app", NULL, 2,
	  "slurm-extra: -n 1 asks for fewer tasks than -N 2 nodes\n" },
	{ "jobspec -c 0 -- app", NULL, 2,
	  "slurm-extra: -c: a whole number from 1 to 2147483647 expected, not '0'\n" },
	{ "jobspec --shape slot/core app", NULL, 2,
	  "slurm-extra: unexpected argument 'app': the command goes after '--'\n" },
	{ "jobspec --shape slot/core --resolve -- app", NULL, 2,
	  "slurm-extra: --resolve, --nodes, --slurm and --within go with --extra\n" },
	{ "jobspec --shape slot/core -t 5q -- app", NULL, 2,
	  "slurm-extra: -t: '5q' is not a time limit: minutes, a number with ms, s, m, h or d, or Slurm's [D-]HH:MM[:SS]\n" },
	/* a number as flux run reads it: decimal only */
	{ "jobspec --shape slot/core -t 0x10 -- app", NULL, 2,
	  "slurm-extra: -t: '0x10' is not a time limit: minutes, a number with ms, s, m, h or d, or Slurm's [D-]HH:MM[:SS]\n" },
	{ "jobspec --shape slot/core -t -1 -- app", NULL, 2,
	  "slurm-extra: -t: '-1' is not a time limit: minutes, a number with ms, s, m, h or d, or Slurm's [D-]HH:MM[:SS]\n" },
	{ "jobspec --shape slot/core -t inf -- app", NULL, 2,
	  "slurm-extra: -t: 'inf' is not a time limit: minutes, a number with ms, s, m, h or d, or Slurm's [D-]HH:MM[:SS]\n" },
	/* --exclusive is whole nodes: with -N only, as flux run's */
	{ "jobspec -n4 --exclusive -- app", NULL, 2,
	  "slurm-extra: --exclusive asks for whole nodes: it goes with -N\n" },
	/* no slot, no task: refused even with --any-shape */
	{ "jobspec --shape node/core --any-shape -- app", NULL, 2,
	  "slurm-extra: --shape: no slot: a jobspec's tasks run in slots (RFC 14), and this shape has none\n" },
	{ "jobspec -n1 --env-remove '/(' -- app", NULL, 2,
	  "slurm-extra: --env-remove '/(': Unmatched ( or \\(\n" },
	{ "jobspec -n1 -- app \"$(printf '\\377')\"", NULL, 2,
	  "slurm-extra: the command's words must be UTF-8 (JSON strings): word 2 is not\n" },
	{ "jobspec --shape slot/core --extra 'a=1|' -- app", NULL, 2,
	  "slurm-extra: error: leaf or '(' expected after '|', found the end of the request (column 5)\n"
	  "  a=1|\n"
	  "      ^\n" },
};

ROW_TEST(cli, jobspec, struct cli_row, jobspec_rows)
{
	check_row(row, "cd / && env -i XC=1");
}

/* --env-remove, each time given: a glob on the whole name, a /regex/
 * from the name's start (flux run's re.match); what no pattern names
 * stays. */
Test(cli, jobspec_env_remove)
{
	struct run r;

	run_as(&r, NULL,
	       "cd / && env -i XC=1 YZ=2 ZY=3 AB=4 BA=5 X=6 QQ=7 QQR=8 QR=9",
	       "jobspec -n1 --env-remove 'X?' --env-remove '/Y' --env-remove '/B.*A/' --env-remove '/(Q)\\1//' -- a");
	cr_assert_eq(r.status, 0, "%s", r.out);
	cr_assert_not_null(
		strstr(r.out,
		       "\"environment\":{\"ZY\":\"3\",\"AB\":\"4\",\"X\":\"6\",\"QR\":\"9\"}"),
		"%s", r.out);
}

/* A current directory whose name is not UTF-8 cannot be a jobspec's
 * cwd: said as such, not as want of memory. */
Test(cli, jobspec_cwd_not_utf8)
{
	char dir[] = "/tmp/xc-cwd-XXXXXX", bad[64], before[128];
	struct run r;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(bad, sizeof(bad), "%s/\xff", dir);
	cr_assert_eq(mkdir(bad, 0700), 0);
	snprintf(before, sizeof(before), "cd '%s' && env -i", bad);
	run_as(&r, NULL, before, "jobspec -n1 -- a");
	rmdir(bad);
	rmdir(dir);
	cr_assert_eq(r.status, 2, "%s", r.out);
	cr_assert_str_eq(
		r.out,
		"slurm-extra: the current directory's name is not UTF-8: a jobspec's cwd (a JSON string) cannot hold it\n");
}

/* -t: each form of a time limit, in seconds. */
Test(cli, jobspec_time_limits)
{
	static const struct {
		const char *t;
		const char *duration;
	} cases[] = {
		{ "90", "5400.0" },	    { "1:30", "90.0" },
		{ "1:00:00", "3600.0" },    { "2-0", "172800.0" },
		{ "1-2:03:04", "93784.0" }, { "UNLIMITED", "0.0" },
		{ "30s", "30.0" },	    { "1.5h", "5400.0" },
		{ "2d", "172800.0" },	    { "5m", "300.0" },
		{ "0.5", "30.0" },	    { "0.25s", "0.25" },
		{ "5e-1", "30.0" },	    { "250ms", "0.25" },
		{ "1e1s", "10.0" },	    { "0", "0.0" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char args[128], want[64];
		struct run r;

		snprintf(args, sizeof(args),
			 "jobspec --shape slot/core -t %s -- a", cases[i].t);
		run_as(&r, NULL, "cd / && env -i", args);
		cr_assert_eq(r.status, 0, "-t %s: %s", cases[i].t, r.out);
		snprintf(want, sizeof(want), "\"duration\":%s,",
			 cases[i].duration);
		cr_assert_not_null(strstr(r.out, want), "-t %s: %s", cases[i].t,
				   r.out);
	}
}

/* Preferences (doc/flux.md "Preferences"): checked, then dropped with a
 * word, since Flux has no place for them; the constraint is the
 * request's alone. */
Test(cli, flux_drops_preferences)
{
	struct run r;

	run_as(&r, NULL, "cd / && env -i",
	       "to-flux gpu=true --extra-prefer cache=ds1 --extra-prefer-wait 15 2>&1");
	cr_assert_eq(r.status, 0, "%s", r.out);
	cr_assert_str_eq(
		r.out,
		"slurm-extra: --extra-prefer: dropped: Flux has no preferences (RFC 31 constraints are requirements)\n"
		"{\"extra\":[\"gpu=true\"]}\n");
	run_as(&r, NULL, "cd / && env -i",
	       "jobspec -n1 --extra gpu=true --extra-prefer cache=ds1 -- a 2>&1");
	cr_assert_eq(r.status, 0, "%s", r.out);
	cr_assert(strstr(r.out, "dropped: Flux has no preferences"), "%s",
		  r.out);
	run_as(&r, NULL, "cd / && env -i",
	       "to-flux gpu=true --extra-prefer 'cache=' 2>&1");
	cr_assert_eq(r.status, 2, "%s", r.out);
	cr_assert(
		strstr(r.out, "--extra-prefer: value expected after 'cache='"),
		"%s", r.out);
}
