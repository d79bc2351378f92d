/*
 * main.c - the slurm-extra command line (slurm-extra(1)): the table of
 * subcommands (each with its handler, its lines of the usage text and the
 * option that may stand for its REQUEST), the table of options, read once
 * for every subcommand, and main(), which runs the subcommand argv[1]
 * names.  The subcommands are in cmd_*.c, what they read in inputs.c, what
 * they print in output.c; cli.h is what they share.
 *
 * Exit status: 0 valid or match, 1 no match, 2 invalid request or input
 * or a usage error.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "cli.h"

/* What the command line says: the options fill it, main() adds REQUEST,
 * and the subcommand reads it. */
static struct opts opts;

/* What an option does with its argument (slurm-extra(1), OPTIONS). */
enum opt_kind {
	OPT_FLAG,    /* sets *flag */
	OPT_TEXT,    /* *text = its argument */
	OPT_LIST,    /* adds its argument to list[]: at most CLI_LIST_MAX */
	OPT_LIMIT,   /* sets opts.limits' `limit` from its argument */
	OPT_JOBSPEC, /* sets *flag; *text = the next argument when it names a
		      * readable file or is '-' (stdin): --jobspec [FILE] */
	OPT_HELP,    /* prints the usage: exit 0 */
	OPT_VERSION, /* prints the version: exit 0 */
};

/* The options, in the order of the usage text, which is also the order in
 * which getopt_long() names the candidates of an ambiguous abbreviation
 * ("--j": --jobspec, --job, --json).  Every subcommand accepts every
 * option; one it does not read is ignored. */
static const struct option_row {
	const char *name; /* --name */
	int letter;	  /* -letter as well, or 0 */
	enum opt_kind kind;
	bool *flag;
	const char **text;
	xc_limit_t limit;
	const char **list; /* OPT_LIST: its arguments, *nlist of them */
	int *nlist;
} options[] = {
	{ "extra", 0, OPT_TEXT, .text = &opts.extra },
	{ "node-extra", 0, OPT_TEXT, .text = &opts.node_extra },
	{ "nodes", 0, OPT_TEXT, .text = &opts.nodes },
	{ "slurm", 0, OPT_FLAG, .flag = &opts.slurm },
	{ "batch", 0, OPT_FLAG, .flag = &opts.batch },
	{ "within", 0, OPT_TEXT, .text = &opts.within },
	{ "resolve", 0, OPT_FLAG, .flag = &opts.resolve },
	{ "jobspec", 0, OPT_JOBSPEC, .flag = &opts.jobspec,
	  .text = &opts.jobspec_file },
	{ "job", 0, OPT_TEXT, .text = &opts.job },
	{ "json", 0, OPT_FLAG, .flag = &opts.json },
	{ "publish", 0, OPT_FLAG, .flag = &opts.publish },
	{ "node", 0, OPT_TEXT, .text = &opts.node },
	{ "dir", 0, OPT_TEXT, .text = &opts.dir },
	{ "timeout", 0, OPT_TEXT, .text = &opts.timeout },
	{ "scratch", 0, OPT_TEXT, .text = &opts.scratch },
	{ "state", 0, OPT_TEXT, .text = &opts.state },
	{ "shape", 0, OPT_TEXT, .text = &opts.shape },
	{ "node-count", 'N', OPT_TEXT, .text = &opts.nnodes },
	{ "ntasks", 'n', OPT_TEXT, .text = &opts.ntasks },
	{ "cpus-per-task", 'c', OPT_TEXT, .text = &opts.cores },
	{ "gpus-per-task", 0, OPT_TEXT, .text = &opts.gpus },
	{ "exclusive", 0, OPT_FLAG, .flag = &opts.exclusive },
	{ "time-limit", 't', OPT_TEXT, .text = &opts.time_limit },
	{ "any-shape", 0, OPT_FLAG, .flag = &opts.any_shape },
	{ "env-remove", 0, OPT_LIST, .list = opts.env_remove,
	  .nlist = &opts.nenv_remove },
	{ "extra-prefer", 0, OPT_LIST, .list = opts.extra_prefer,
	  .nlist = &opts.nextra_prefer },
	{ "extra-prefer-wait", 0, OPT_TEXT, .text = &opts.extra_prefer_wait },
	{ "none", 0, OPT_FLAG, .flag = &opts.none },
	{ "max-length", 0, OPT_LIMIT, .limit = XC_LIMIT_REQUEST_LENGTH },
	{ "max-depth", 0, OPT_LIMIT, .limit = XC_LIMIT_DEPTH },
	{ "verbose", 'v', OPT_FLAG, .flag = &opts.verbose },
	{ "help", 'h', OPT_HELP, .flag = NULL },
	{ "version", 'V', OPT_VERSION, .flag = NULL },
};
#define NOPTIONS (sizeof(options) / sizeof(*options))

/* The subcommands (slurm-extra(1), COMMANDS), in the order of the usage
 * text. */
static const struct command {
	const char *name;
	int (*run)(const struct opts *o);
	const char *usage[2]; /* its lines of the usage text */
	const char *needs;   /* what it says it needs when REQUEST is missing */
	const char *instead; /* an option that does without REQUEST, or NULL */
} commands[] = {
	{ "check",
	  cmd_check,
	  { "check REQUEST [--extra-prefer REQUEST ...] [--extra-prefer-wait DURATION]" },
	  "a REQUEST",
	  NULL },
	{ "eval",
	  cmd_eval,
	  { "eval REQUEST (--node-extra JSON | --nodes FILE | --slurm) [--within HOSTLIST]",
	    "eval --batch  < lines.jsonl" },
	  "a REQUEST",
	  "batch" },
	{ "explain",
	  cmd_explain,
	  { "explain REQUEST --node-extra JSON" },
	  "a REQUEST",
	  NULL },
	{ "to-flux",
	  cmd_to_flux,
	  { "to-flux REQUEST [--resolve (--nodes FILE | --slurm) [--within HOSTLIST]] [--jobspec [FILE]]" },
	  "a REQUEST",
	  NULL },
	{ "jobspec",
	  cmd_jobspec,
	  { "jobspec --shape SHAPE [--extra REQUEST [--resolve ...]] [-t TIME] [--any-shape] -- COMMAND [ARGS...]",
	    "jobspec [-N N] [-n N] [-c N] [--gpus-per-task N] [--exclusive] [--extra REQUEST ...] [-t TIME] -- COMMAND..." },
	  NULL,
	  NULL },
	{ "from-flux",
	  cmd_from_flux,
	  { "from-flux (JSON | -)" },
	  "a JSON constraint (or '-')",
	  NULL },
	{ "why",
	  cmd_why,
	  { "why REQUEST (--nodes FILE | --slurm) [--within HOSTLIST] [--extra-prefer REQUEST ...]",
	    "why --job ID" },
	  "a REQUEST",
	  "job" },
	{ "prefer",
	  cmd_prefer,
	  { "prefer --job ID [--extra-prefer REQUEST ...] [--extra-prefer-wait DURATION] | --none" },
	  NULL,
	  NULL },
	{ "facts",
	  cmd_facts,
	  { "facts [--publish [--node NAME] [--state DIR]] [--dir DIR] [--timeout S] [--scratch DIR] [-v]" },
	  NULL,
	  NULL },
	{ "doctor",
	  cmd_doctor,
	  { "doctor             (what a live cluster runs, the settings to check, which filter to run)" },
	  NULL,
	  NULL },
	{ "prolog-slurmctld",
	  cmd_prolog,
	  { "prolog-slurmctld   (an earlier release's PrologSlurmctld: checks nothing, exits 0)" },
	  NULL,
	  NULL },
};
#define NCOMMANDS (sizeof(commands) / sizeof(*commands))

static void usage(FILE *out)
{
	const char *lead = "Usage:";

	for (size_t c = 0; c < NCOMMANDS; c++)
		for (size_t k = 0; k < 2 && commands[c].usage[k]; k++) {
			fprintf(out, "%-6s %s %s\n", lead, prog,
				commands[c].usage[k]);
			lead = "";
		}
	fprintf(out,
		"Options:\n"
		"  --extra REQUEST     a request, as sbatch's (jobspec; eval, explain: in REQUEST's place)\n"
		"  --node-extra JSON   eval, explain: one node's Extra (a JSON object)\n"
		"  --nodes FILE        JSON object: node name -> Extra ('-': stdin)\n"
		"  --slurm             the nodes of the running Slurm cluster\n"
		"  --batch             JSON Lines {\"extra\":..,\"expr\":..} on stdin\n"
		"  --within HOSTLIST   only these of the nodes count ('-': stdin)\n"
		"  --resolve           to-flux: the matching nodes as an RFC 29 hostlist\n"
		"  --jobspec [FILE]    to-flux: as a jobspec, or added to jobspec FILE ('-': stdin)\n"
		"  --job ID            why: the request of job ID, on the nodes it may use;\n"
		"                      prefer: the job whose preferences change\n"
		"  --json              check, eval, explain, why: print JSON\n"
		"  --publish           facts: write them into this node's Extra when changed\n"
		"  --node NAME         facts: the node's name (default $SLURMD_NODENAME, host name)\n"
		"  --dir DIR           facts: the site's facts (default /etc/slurm/extra.d)\n"
		"  --timeout S         facts: seconds the site hooks may run in all (default 10)\n"
		"  --scratch DIR       facts: the scratch directory measured (default /tmp)\n"
		"  --state DIR         facts: where --publish keeps its state (default /var/lib/slurm-extra)\n"
		"  --shape SHAPE       jobspec: the resources, an RFC 46 shape (slot=4/core=2)\n"
		"  -N, --node-count N  jobspec: Slurm's -N (nodes)\n"
		"  -n, --ntasks N      jobspec: Slurm's -n (tasks)\n"
		"  -c, --cpus-per-task N  jobspec: Slurm's -c (cores per task)\n"
		"  --gpus-per-task N   jobspec: Slurm's --gpus-per-task\n"
		"  --exclusive         jobspec: the nodes whole (with -N)\n"
		"  -t, --time-limit T  jobspec: minutes, FSD (30s, 2h) or Slurm's [D-]HH:MM[:SS]\n"
		"  --any-shape         jobspec: write resources jobspec V1 does not take\n"
		"  --env-remove PATTERN  jobspec: leave out the environment variables PATTERN\n"
		"                      names (a glob, or /regex/; repeated: each)\n"
		"  --extra-prefer REQUEST  check, why, prefer: a preference, as sbatch's\n"
		"                      (repeated: tiers, strongest first); to-flux, jobspec:\n"
		"                      checked, then dropped (Flux has no preferences)\n"
		"  --extra-prefer-wait DURATION  check, why, prefer: how long a preferred node is\n"
		"                      waited for (Slurm's time formats)\n"
		"  --none              prefer: drop the job's preferences and their wait\n"
		"  --max-length N      longest request accepted (default %d, at most %u)\n"
		"  --max-depth N       deepest parentheses accepted (default and at most %d)\n"
		"  -v, --verbose       say how many nodes were checked; facts: each one's source\n"
		"  -h, --help          this text\n"
		"  -V, --version       the version, and the Slurm it was built for\n"
		"Exit status: 0 valid or match, 1 no match, 2 invalid\n"
		"(facts: 0 done, 1 Slurm could not be read or refused, 2 invalid;\n"
		"doctor: 0 printed, 1 Slurm could not be read, 2 invalid).\n",
		XC_DEFAULT_MAX_REQUEST_LENGTH, XC_MAX_REQUEST_LENGTH_LIMIT,
		XC_MAX_DEPTH_LIMIT);
}

/* --version: this command's, and the Slurm it was built for. */
static void print_version(void)
{
	printf("slurm-extra %s (built for Slurm %d.%02d.%d)\n", PACKAGE_VERSION,
	       SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
	       SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
	       SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER));
}

/* What getopt_long() returns for option i: its letter, or a value past
 * every letter. */
static int option_value(size_t i)
{
	return options[i].letter ? options[i].letter : 256 + (int)i;
}

/* Whether option --name is on the command line. */
static bool option_given(const char *name)
{
	for (size_t i = 0; i < NOPTIONS; i++)
		if (strcmp(options[i].name, name) == 0)
			return (options[i].flag && *options[i].flag) ||
			       (options[i].text && *options[i].text) ||
			       (options[i].nlist && *options[i].nlist);
	return false;
}

/* Does what option `row` says, with getopt_long()'s optarg; --jobspec
 * may take argv[optind] as well.  Returns -1 to go on, or the exit status
 * to end with: 0 after --help or --version, EXIT_INVALID after saying why
 * a limit is out of its range (xc_limit_range: the one extra.conf takes). */
static int do_option(const struct option_row *row, int argc, char **argv)
{
	size_t min, max;

	switch (row->kind) {
	case OPT_FLAG:
		*row->flag = true;
		break;
	case OPT_TEXT:
		*row->text = optarg;
		break;
	case OPT_LIST:
		if (*row->nlist == CLI_LIST_MAX)
			return fail("--%s: at most %d times", row->name,
				    CLI_LIST_MAX);
		row->list[(*row->nlist)++] = optarg;
		break;
	case OPT_JOBSPEC:
		*row->flag = true;
		if (optind < argc && (strcmp(argv[optind], "-") == 0 ||
				      access(argv[optind], R_OK) == 0))
			*row->text = argv[optind++];
		break;
	case OPT_LIMIT:
		if (xc_limits_set(&opts.limits, row->limit, optarg) == 0)
			break;
		xc_limit_range(row->limit, &min, &max);
		return fail("--%s: a number from %zu to %zu expected",
			    row->name, min, max);
	case OPT_HELP:
		usage(stdout);
		return 0;
	case OPT_VERSION:
		print_version();
		return 0;
	}
	return -1;
}

/* Reads the options after the subcommand (argv[2] on) into `opts`, by the
 * table options[].  Returns -1 with optind at the first argument that is
 * not an option, or the exit status to end with (do_option(); a usage
 * error: EXIT_INVALID after getopt_long() and the usage said why). */
static int read_options(int argc, char **argv)
{
	struct option longopts[NOPTIONS + 1] = { { 0 } };
	char letters[2 * NOPTIONS + 1] = "", *l = letters;
	int c, rc;

	for (size_t i = 0; i < NOPTIONS; i++) {
		bool arg = options[i].kind == OPT_TEXT ||
			   options[i].kind == OPT_LIST ||
			   options[i].kind == OPT_LIMIT;

		longopts[i] =
			(struct option){ options[i].name,
					 arg ? required_argument : no_argument,
					 NULL, option_value(i) };
		if (options[i].letter) {
			*l++ = (char)options[i].letter;
			if (arg)
				*l++ = ':';
		}
	}
	optind = 2;
	while ((c = getopt_long(argc, argv, letters, longopts, NULL)) != -1) {
		size_t i = 0;

		while (i < NOPTIONS && option_value(i) != c)
			i++;
		if (i == NOPTIONS) { /* '?': getopt_long() said why */
			usage(stderr);
			return EXIT_INVALID;
		}
		if ((rc = do_option(&options[i], argc, argv)) >= 0)
			return rc;
	}
	return -1;
}

/* For the commands that read --node-extra, eval and explain, --extra is a
 * request as well: without a REQUEST argument it is the REQUEST.  After
 * one, and without --node-extra, it is the node's Extra as it was spelled
 * before --node-extra: it still stands for --node-extra, after a note
 * (slurm-extra(1), --extra).  Returns -1 to go on, or EXIT_INVALID after
 * saying why not: REQUEST, --extra and --node-extra all given. */
static int read_extra(const struct command *cmd)
{
	if ((cmd->run != cmd_eval && cmd->run != cmd_explain) || !opts.extra)
		return -1;
	if (!opts.request) {
		opts.request = opts.extra;
		return -1;
	}
	if (opts.node_extra)
		return fail(
			"%s takes one request: REQUEST '%s' or --extra '%s', not both (the node's Extra goes with --node-extra)",
			cmd->name, opts.request, opts.extra);
	say("note: %s REQUEST --extra JSON is now %s REQUEST --node-extra JSON (--extra is a request, as sbatch's)",
	    cmd->name, cmd->name);
	opts.node_extra = opts.extra;
	opts.extra = NULL;
	return -1;
}

/* Whether `arg` (may be NULL) is '-', standard input. */
static bool is_stdin(const char *arg)
{
	return arg && strcmp(arg, "-") == 0;
}

/* stdin, stdout and stderr open, on /dev/null where they were not, so
 * that no file, lock or pipe a command opens takes their numbers (a timer,
 * a health check or slurmctld may start it with them closed: a hook's
 * pipe or the state's lock would then be written as stdout).  false when
 * /dev/null cannot be opened. */
static bool std_fds_open(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 &&
		    open("/dev/null", fd ? O_WRONLY : O_RDONLY) != fd)
			return false;
	return true;
}

int main(int argc, char **argv)
{
	const struct command *cmd = NULL;
	const char *base = argc >= 1 ? strrchr(argv[0], '/') : NULL;
	int rc;

	base = base ? base + 1 : argc >= 1 ? argv[0] : "";
	/* PrologSlurmctld runs a program without arguments: this one under
	 * its second name (a link) is an earlier release's check at start,
	 * which lets every job start (cmd_prolog.c). */
	if (!std_fds_open())
		return strcmp(base, PROLOG_NAME) == 0 ? 0 : EXIT_INVALID;
	if (strcmp(base, PROLOG_NAME) == 0)
		return cmd_prolog(&opts);
	if (argc < 2) {
		usage(stderr);
		return EXIT_INVALID;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
		print_version();
		return 0;
	}
	for (size_t c = 0; c < NCOMMANDS && !cmd; c++)
		if (strcmp(argv[1], commands[c].name) == 0)
			cmd = &commands[c];
	if (!cmd) { /* before "needs a REQUEST" */
		say("unknown command '%s'", argv[1]);
		usage(stderr);
		return EXIT_INVALID;
	}
	if (cmd->run == cmd_jobspec) { /* jobspec ... -- COMMAND [ARGS...] */
		for (int k = 2; k < argc; k++)
			if (strcmp(argv[k], "--") == 0) {
				opts.command = argv + k + 1;
				opts.ncommand = argc - k - 1;
				argc = k;
				break;
			}
	}
	if ((rc = read_options(argc, argv)) >= 0)
		return rc;
	if (optind < argc)
		opts.request = argv[optind++];
	if (optind < argc)
		return fail("unexpected argument '%s' (quote the request)",
			    argv[optind]);
	if ((rc = read_extra(cmd)) >= 0)
		return rc;
	if (!opts.request && cmd->needs &&
	    !(cmd->instead && option_given(cmd->instead))) {
		say("%s needs %s", cmd->name, cmd->needs);
		usage(stderr);
		return EXIT_INVALID;
	}
	if (is_stdin(opts.within) &&
	    (is_stdin(opts.nodes) || is_stdin(opts.jobspec_file)))
		return fail(
			"--within - and %s - cannot both read standard input",
			is_stdin(opts.nodes) ? "--nodes" : "--jobspec");
	return cmd->run(&opts);
}
