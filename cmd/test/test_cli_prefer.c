/*
 * test_cli_prefer.c - preferences on the command line (doc/preferences.md
 * "Preferences"): check and why read --extra-prefer and
 * --extra-prefer-wait (the tiers with their carets, the wait as sbatch
 * reads it, JSON), and the usage errors of `slurm-extra prefer`, which
 * need no cluster (tests/cluster/e2e-prefer.sh runs it on one).  Part of
 * the test program test_cli.
 */
#include <criterion/criterion.h>

#include "table.h"
#include "cli_fixture.h"

static const struct cli_row prefer_rows[] = {
	/* check and why read them too */
	{ "check a=1 --extra-prefer b=2 --extra-prefer 'c>3' --extra-prefer-wait 15",
	  NULL, 0, "a=1\npreference 1: b=2\npreference 2: c>3\nwait: 900 s\n" },
	{ "check a=1 --extra-prefer b=2 --json", NULL, 0,
	  "{\"valid\":true,\"request\":\"a=1\",\"prefer\":[\"b=2\"],\"wait\":0}\n" },
	{ "check a=1 --extra-prefer b=2 --extra-prefer 'c=' --json", NULL, 2,
	  "{\"valid\":false,\"error\":{\"code\":\"empty-value\",\"offset\":2,\"end\":2,\"message\":\"value expected after 'c='\"},\"preference\":2}\n" },
	{ "check a=1 --extra-prefer 'c='", NULL, 2,
	  "slurm-extra: error: --extra-prefer: value expected after 'c=' (column 3)\n  c=\n    ^\n" },
	{ "check a=1 --extra-prefer-wait 5", NULL, 2,
	  "slurm-extra: --extra-prefer-wait: it needs --extra-prefer\n" },
	{ "check a=1 --extra-prefer b=1 --extra-prefer-wait UNLIMITED", NULL, 2,
	  "slurm-extra: --extra-prefer-wait: UNLIMITED: a preference waited for without end is a request: --extra 'REQUEST&PREFERENCE'\n" },
	{ "check a=1 --extra-prefer b=1 --extra-prefer-wait 366-0", NULL, 2,
	  "slurm-extra: --extra-prefer-wait: '366-0' is not a duration of at most 365 days (Slurm's formats: minutes, minutes:seconds, hours:minutes:seconds, days-hours[:minutes[:seconds]])\n" },
	{ "why a=1 --nodes - --extra-prefer b=2 --extra-prefer b=3 --extra-prefer-wait 1:00",
	  "{\"n1\":{\"a\":1,\"b\":2},\"n2\":{\"a\":1}}", 0,
	  "request: a=1\n2 of 2 nodes satisfy it: n[1-2]\n"
	  "  a=1                            2 of 2 nodes\n"
	  "preferences, waited for 60 s from EligibleTime:\n"
	  "  1. b=2: 1 of 2 nodes satisfy the request and it\n"
	  "  2. b=3: 0 of 2 nodes satisfy the request and it\n" },
	{ "why a=1 --nodes - --extra-prefer b=2 --extra-prefer 'b=3|' --json",
	  "{\"n1\":{\"a\":1,\"b\":2},\"n2\":{\"a\":1}}", 2,
	  "{\"valid\":false,\"error\":{\"code\":\"item-expected\",\"offset\":4,\"end\":4,\"message\":\"leaf or '(' expected after '|', found the end of the request\"},\"preference\":2}\n" },
	{ "why a=1 --nodes - --extra-prefer b=2 --json",
	  "{\"n1\":{\"a\":1,\"b\":2},\"n2\":{\"a\":1}}", 0,
	  "{\"request\":\"a=1\",\"nodes\":2,\"satisfy\":2,\"satisfying\":\"n[1-2]\",\"items\":[{\"item\":\"a=1\",\"satisfy\":2,\"ruled_out\":[]}],\"closest\":{\"fail\":0,\"sets\":[],\"more\":false},\"prefer\":[{\"tier\":\"b=2\",\"nodes\":1}],\"wait\":0}\n" },
	/* prefer: the owner's change; its usage errors need no cluster */
	{ "prefer", NULL, 2, "slurm-extra: prefer needs --job ID\n" },
	{ "prefer --job 5", NULL, 2,
	  "slurm-extra: prefer: say what changes: --extra-prefer REQUEST (repeated: tiers, strongest first), --extra-prefer-wait DURATION, or --none\n" },
	{ "prefer --job 5 --none --extra-prefer-wait 5", NULL, 2,
	  "slurm-extra: prefer: --none drops the preferences: not with --extra-prefer or --extra-prefer-wait\n" },
	{ "prefer --job 5 --extra-prefer 'b='", NULL, 2,
	  "slurm-extra: error: --extra-prefer: value expected after 'b=' (column 3)\n  b=\n    ^\n" },
	{ "prefer --job 5 --extra-prefer b=1 --extra-prefer-wait soon", NULL, 2,
	  "slurm-extra: --extra-prefer-wait: 'soon' is not a duration of at most 365 days (Slurm's formats: minutes, minutes:seconds, hours:minutes:seconds, days-hours[:minutes[:seconds]])\n" },
	{ "prefer --job 5 a=1 --none", NULL, 2,
	  "slurm-extra: prefer takes no REQUEST ('a=1'): the job's stays\n" },
	{ "prefer --job ' 5' --none", NULL, 2,
	  "slurm-extra: --job: a job id expected, not ' 5'\n" },
	{ "prefer --job 5 --extra-prefer \"$(printf 'b=1\\036')\" --extra-prefer-wait 5",
	  NULL, 2,
	  "slurm-extra: --extra-prefer: a control byte (0x1E) in the request\n" },
	{ "check a=1 --extra-prefer b=1 --extra-prefer-wait 71582789", NULL, 2,
	  "slurm-extra: --extra-prefer-wait: '71582789' is not a duration of at most 365 days (Slurm's formats: minutes, minutes:seconds, hours:minutes:seconds, days-hours[:minutes[:seconds]])\n" },
	{ "prefer --job 5x --none", NULL, 2,
	  "slurm-extra: --job: a job id expected, not '5x'\n" },
};

ROW_TEST(cli, prefer, struct cli_row, prefer_rows)
{
	check_row(row, "");
}
