/*
 * cli_fixture.h - what the command's test files (test_cli.c,
 * test_cli_jobspec.c, test_cli_prefer.c, test_cli_completion.c,
 * test_cli_escape.c: one test program) share: running `slurm-extra ARGS`
 * (CLI_PATH) through the shell and reading what it printed, a row of
 * expected results, and the usage text (cli_fixture.c).
 */
#ifndef TESTS_CLI_FIXTURE_H
#define TESTS_CLI_FIXTURE_H

#include <stdbool.h>

struct run {
	int status;	/* exit status, -1 when it did not exit */
	char out[8192]; /* what it printed */
};

/* Runs `slurm-extra ARGS` through the shell with stdin from `input` (may
 * be NULL), stdout and stderr together in r->out. */
void run(struct run *r, const char *input, const char *args);

/* run(), with `before` (a shell command prefix such as "cd / && env -i")
 * before the command. */
void run_as(struct run *r, const char *input, const char *before,
	    const char *args);

/* Runs `slurm-extra ARGS` as run() does, stdout only (`err` false) or
 * stderr only (`err` true) in r->out. */
void run_stream(struct run *r, const char *args, bool err);

/* A row of a table of runs: `slurm-extra ARGS` with stdin `input` (NULL:
 * /dev/null) exits with `status` and prints `out` (stdout and stderr
 * together). */
struct cli_row {
	const char *args;
	const char *input;
	int status;
	const char *out;
};

/* Runs the row's `slurm-extra ARGS` after `before` (as run_as(); "" for
 * none) and asserts its exit status and output. */
void check_row(const struct cli_row *row, const char *before);

/* What --help prints, and what follows a usage error. */
#define USAGE                                                                                                                               \
	"Usage: slurm-extra check REQUEST [--extra-prefer REQUEST ...] [--extra-prefer-wait DURATION]\n"                                    \
	"       slurm-extra eval REQUEST (--node-extra JSON | --nodes FILE | --slurm) [--within HOSTLIST]\n"                                \
	"       slurm-extra eval --batch  < lines.jsonl\n"                                                                                  \
	"       slurm-extra explain REQUEST --node-extra JSON\n"                                                                            \
	"       slurm-extra to-flux REQUEST [--resolve (--nodes FILE | --slurm) [--within HOSTLIST]] [--jobspec [FILE]]\n"                  \
	"       slurm-extra jobspec --shape SHAPE [--extra REQUEST [--resolve ...]] [-t TIME] [--any-shape] -- COMMAND [ARGS...]\n"         \
	"       slurm-extra jobspec [-N N] [-n N] [-c N] [--gpus-per-task N] [--exclusive] [--extra REQUEST ...] [-t TIME] -- COMMAND...\n" \
	"       slurm-extra from-flux (JSON | -)\n"                                                                                         \
	"       slurm-extra why REQUEST (--nodes FILE | --slurm) [--within HOSTLIST] [--extra-prefer REQUEST ...]\n"                        \
	"       slurm-extra why --job ID\n"                                                                                                 \
	"       slurm-extra prefer --job ID [--extra-prefer REQUEST ...] [--extra-prefer-wait DURATION] | --none\n"                         \
	"       slurm-extra facts [--publish [--node NAME] [--state DIR]] [--dir DIR] [--timeout S] [--scratch DIR] [-v]\n"                 \
	"       slurm-extra doctor             (what a live cluster runs, the settings to check, which filter to run)\n"                    \
	"       slurm-extra prolog-slurmctld   (an earlier release's PrologSlurmctld: checks nothing, exits 0)\n"                           \
	"Options:\n"                                                                                                                        \
	"  --extra REQUEST     a request, as sbatch's (jobspec; eval, explain: in REQUEST's place)\n"                                       \
	"  --node-extra JSON   eval, explain: one node's Extra (a JSON object)\n"                                                           \
	"  --nodes FILE        JSON object: node name -> Extra ('-': stdin)\n"                                                              \
	"  --slurm             the nodes of the running Slurm cluster\n"                                                                    \
	"  --batch             JSON Lines {\"extra\":..,\"expr\":..} on stdin\n"                                                            \
	"  --within HOSTLIST   only these of the nodes count ('-': stdin)\n"                                                                \
	"  --resolve           to-flux: the matching nodes as an RFC 29 hostlist\n"                                                         \
	"  --jobspec [FILE]    to-flux: as a jobspec, or added to jobspec FILE ('-': stdin)\n"                                              \
	"  --job ID            why: the request of job ID, on the nodes it may use;\n"                                                      \
	"                      prefer: the job whose preferences change\n"                                                                  \
	"  --json              check, eval, explain, why: print JSON\n"                                                                     \
	"  --publish           facts: write them into this node's Extra when changed\n"                                                     \
	"  --node NAME         facts: the node's name (default $SLURMD_NODENAME, host name)\n"                                              \
	"  --dir DIR           facts: the site's facts (default /etc/slurm/extra.d)\n"                                                      \
	"  --timeout S         facts: seconds the site hooks may run in all (default 10)\n"                                                 \
	"  --scratch DIR       facts: the scratch directory measured (default /tmp)\n"                                                      \
	"  --state DIR         facts: where --publish keeps its state (default /var/lib/slurm-extra)\n"                                     \
	"  --shape SHAPE       jobspec: the resources, an RFC 46 shape (slot=4/core=2)\n"                                                   \
	"  -N, --node-count N  jobspec: Slurm's -N (nodes)\n"                                                                               \
	"  -n, --ntasks N      jobspec: Slurm's -n (tasks)\n"                                                                               \
	"  -c, --cpus-per-task N  jobspec: Slurm's -c (cores per task)\n"                                                                   \
	"  --gpus-per-task N   jobspec: Slurm's --gpus-per-task\n"                                                                          \
	"  --exclusive         jobspec: the nodes whole (with -N)\n"                                                                        \
	"  -t, --time-limit T  jobspec: minutes, FSD (30s, 2h) or Slurm's [D-]HH:MM[:SS]\n"                                                 \
	"  --any-shape         jobspec: write resources jobspec V1 does not take\n"                                                         \
	"  --env-remove PATTERN  jobspec: leave out the environment variables PATTERN\n"                                                    \
	"                      names (a glob, or /regex/; repeated: each)\n"                                                                \
	"  --extra-prefer REQUEST  check, why, prefer: a preference, as sbatch's\n"                                                         \
	"                      (repeated: tiers, strongest first); to-flux, jobspec:\n"                                                     \
	"                      checked, then dropped (Flux has no preferences)\n"                                                           \
	"  --extra-prefer-wait DURATION  check, why, prefer: how long a preferred node is\n"                                                \
	"                      waited for (Slurm's time formats)\n"                                                                         \
	"  --none              prefer: drop the job's preferences and their wait\n"                                                         \
	"  --max-length N      longest request accepted (default 1024, at most 16777216)\n"                                                 \
	"  --max-depth N       deepest parentheses accepted (default and at most 1024)\n"                                                   \
	"  -v, --verbose       say how many nodes were checked; facts: each one's source\n"                                                 \
	"  -h, --help          this text\n"                                                                                                 \
	"  -V, --version       the version, and the Slurm it was built for\n"                                                               \
	"Exit status: 0 valid or match, 1 no match, 2 invalid\n"                                                                            \
	"(facts: 0 done, 1 Slurm could not be read or refused, 2 invalid;\n"                                                                \
	"doctor: 0 printed, 1 Slurm could not be read, 2 invalid).\n"

#endif
