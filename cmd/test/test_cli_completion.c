/*
 * test_cli_completion.c - the bash completion (contrib/slurm-extra.bash)
 * completes the command's subcommands and each one's options, the
 * preferences' among them.  Part of the test program test_cli.
 */
#include <criterion/criterion.h>
#include <stdio.h>

/* The bash completion completes subcommands and each one's options. */
Test(cli, bash_completion)
{
	static const struct {
		const char *words;
		int cword;
		const char *want;
	} cases[] = {
		{ "slurm-extra w", 1, "why\n" },
		{ "slurm-extra d", 1, "doctor\n" },
		{ "slurm-extra ", 1,
		  "check eval explain to-flux jobspec from-flux why prefer facts doctor --help --version\n" },
		{ "slurm-extra p", 1, "prefer\n" },
		{ "slurm-extra prefer --", 2,
		  "--job --extra-prefer --extra-prefer-wait --none --max-length --max-depth\n" },
		{ "slurm-extra prefer --job 5 --extra-prefer ", 5, "\n" },
		{ "slurm-extra why a=1 --extra-prefer-", 3,
		  "--extra-prefer-wait\n" },
		{ "slurm-extra jobspec --s", 2, "--shape --slurm\n" },
		{ "slurm-extra facts --p", 2, "--publish\n" },
		{ "slurm-extra why --j", 2, "--job --json\n" },
		{ "slurm-extra eval a=1 --w", 3, "--within\n" },
		{ "slurm-extra eval a=1 --no", 3, "--node-extra --nodes\n" },
		{ "slurm-extra explain a=1 --", 3,
		  "--node-extra --extra --json --max-length --max-depth\n" },
		{ "slurm-extra check --", 2,
		  "--extra-prefer --extra-prefer-wait --json --max-length --max-depth\n" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char cmd[1024], out[512];
		size_t n;
		FILE *p;

		snprintf(
			cmd, sizeof(cmd),
			"bash -c 'source %s/../slurm-extra.bash; "
			"COMP_WORDS=(%s); [ \"${COMP_WORDS[%d]+x}\" ] || COMP_WORDS+=(\"\"); "
			"COMP_CWORD=%d; _slurm_extra; echo \"${COMPREPLY[*]}\"'",
			EXAMPLES_DIR, cases[i].words, cases[i].cword,
			cases[i].cword);
		p = popen(cmd, "r");
		cr_assert_not_null(p);
		n = fread(out, 1, sizeof(out) - 1, p);
		out[n] = '\0';
		cr_assert_eq(pclose(p), 0, "%s", cmd);
		cr_assert_str_eq(out, cases[i].want, "%s", cases[i].words);
	}
}
