/*
 * spank_extra.c - adds `--extra=REQUEST` to sbatch, salloc and srun on
 * Slurm clients that lack it (before 23.02), and refuses an invalid
 * request in the client, before submission, with the rendered error.
 *
 * The option's value travels to slurmctld in the job's SPANK environment
 * as _SLURM_SPANK_OPTION_extra_extra, where job_submit_extra.so reads it.
 * In sbatch and salloc (allocator context) Slurm ignores a static
 * spank_options table, so the option is registered from slurm_spank_init
 * in every context.
 *
 * It also adds `--extra-prefer=REQUEST` (repeated: tiers, strongest
 * first) and `--extra-prefer-wait=DURATION` (Slurm's time formats) on
 * every Slurm (doc/preferences.md "Preferences").  Only an option's last value
 * reaches the job's SPANK environment, so the tiers are gathered by the
 * callback and handed over whole in slurm_spank_init_post_opt, with
 * spank_job_control_setenv() (prefer.h's variables).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/spank.h>

#include "plugin_config.h"
#include "prefer.h"
#include "slurm_compat.h"
#include "xc.h"

SPANK_PLUGIN(extra, 1);

int slurm_spank_init(spank_t sp, int ac, char **av);
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av);

static xc_limits_t limits;
static bool have_limits;
static char *tiers; /* the --extra-prefer values, each ended by
			       PREFER_SEP (malloc'd), or NULL */
static unsigned n_tiers;
static long wait_secs = -1; /* --extra-prefer-wait, -1 when not given */
static bool refused;	    /* an option of theirs was refused: where
			       this plugin is `optional`, some clients
			       (24.11's sbatch) submit all the same, so the
			       job carries PREFER_REFUSED_ENV, which
			       job_submit/extra refuses */

static int check_request(int val, const char *optarg, int remote)
{
	xc_error_t err;
	xc_expr_t *e;
	char *text;

	(void)val;
	if (remote)
		return 0; /* checked by the client and by slurmctld */
	if (!optarg) {
		slurm_error(
			"--extra: a request is required (e.g. --extra 'gpu=true&mem>=512')");
		return -1;
	}
	e = xc_parse(optarg, &limits, &err);
	if (e) {
		xc_expr_destroy(e);
		return 0;
	}
	text = xc_error_render(optarg, &err, "--extra: ");
	slurm_error("%s", text ? text : err.message);
	free(text);
	return -1;
}

/* Reads extra.conf's limits once (plugin_config.h). */
static void read_limits(void)
{
	struct plugin_config cfg;
	char path[4096];

	if (have_limits)
		return;
	plugin_config_path(path, sizeof(path));
	plugin_config_read(&cfg, path, NULL);
	limits = cfg.limits;
	have_limits = true;
}

/* A refused option of this plugin's: -1, remembered (`refused`). */
static int refuse_option(void)
{
	refused = true;
	return -1;
}

/* --extra-prefer: checked as a request, gathered as a tier. */
static int gather_prefer(int val, const char *optarg, int remote)
{
	xc_error_t err;
	xc_expr_t *e;
	size_t had = tiers ? strlen(tiers) : 0, len;
	char *text, *more;

	(void)val;
	if (remote)
		return 0;
	if (!optarg || !*optarg) {
		slurm_error(
			"--extra-prefer: a request is required (e.g. --extra-prefer 'cache=ds1')");
		return refuse_option();
	}
	if (n_tiers >= SX_MAX_PREFER) {
		slurm_error("--extra-prefer: at most %d preferences",
			    SX_MAX_PREFER);
		return refuse_option();
	}
	read_limits();
	if (strchr(optarg, PREFER_SEP)) {
		slurm_error(
			"--extra-prefer: a control byte (0x1E) in the request");
		return refuse_option();
	}
	if (!(e = xc_parse(optarg, &limits, &err))) {
		text = xc_error_render(optarg, &err, "--extra-prefer: ");
		slurm_error("%s", text ? text : err.message);
		free(text);
		return refuse_option();
	}
	xc_expr_destroy(e);
	len = strlen(optarg);
	if (!(more = realloc(tiers, had + len + 2))) {
		slurm_error("--extra-prefer: out of memory");
		return refuse_option();
	}
	tiers = more;
	memcpy(tiers + had, optarg, len);
	tiers[had + len] = PREFER_SEP;
	tiers[had + len + 1] = '\0';
	n_tiers++;
	return 0;
}

/* --extra-prefer-wait: a duration in Slurm's time formats
 * (prefer_wait_read). */
static int read_wait(int val, const char *optarg, int remote)
{
	char why[512];

	(void)val;
	if (remote)
		return 0;
	if (prefer_wait_read(optarg, &wait_secs, why, sizeof(why)) < 0) {
		slurm_error("%s", why);
		return refuse_option();
	}
	return 0;
}

static struct spank_option prefer_options[] = {
	{ .name = "extra-prefer",
	  .arginfo = "REQUEST",
	  .usage = "prefer nodes whose Extra data also satisfy REQUEST; "
		   "repeated: tiers, strongest first (slurm-extra)",
	  .has_arg = 1,
	  .cb = gather_prefer },
	{ .name = "extra-prefer-wait",
	  .arginfo = "DURATION",
	  .usage = "how long to wait for a preferred node (Slurm's time "
		   "formats; default: none, only a free one) (slurm-extra)",
	  .has_arg = 1,
	  .cb = read_wait },
};

static struct spank_option extra_option = {
	.name = "extra",
	.arginfo = "REQUEST",
	.usage = "run only on nodes whose Extra data satisfy REQUEST, "
		 "e.g. 'gpu=true&mem>=512' (slurm-extra)",
	.has_arg = 1,
	.val = 0,
	.cb = check_request,
};

/* SPANK's entry point in every context: registers --extra (whose check
 * reads extra.conf's limits, plugin_config.h) where the client lacks it,
 * before Slurm 23.02.  0, or -1 when Slurm refuses the option (logged).
 * Its arguments in plugstack.conf (ac, av) are not read. */
int slurm_spank_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	for (size_t i = 0; i < sizeof(prefer_options) / sizeof(*prefer_options);
	     i++) {
		if (spank_option_register(sp, &prefer_options[i]) !=
		    ESPANK_SUCCESS) {
			slurm_error("spank_extra: cannot register --%s",
				    prefer_options[i].name);
			return -1;
		}
	}
#if SX_SLURM_HAS_EXTRA_OPTION
	/* The client has --extra of its own. */
	(void)extra_option;
	return 0;
#else
	read_limits();
	if (spank_option_register(sp, &extra_option) != ESPANK_SUCCESS) {
		slurm_error("spank_extra: cannot register --extra");
		return -1;
	}
	return 0;
#endif
}

/* After the options (sbatch, salloc, srun): the tiers gathered and the
 * wait handed to the job (prefer.h's variables), where a job is made
 * (S_CTX_LOCAL, S_CTX_ALLOCATOR).  0, or -1 when Slurm refuses the
 * variables (logged). */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	char secs[24];

	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_LOCAL &&
	    spank_context() != S_CTX_ALLOCATOR)
		return 0;
	if (refused) {
		if (spank_job_control_setenv(sp, PREFER_REFUSED_ENV, "1", 1) !=
		    ESPANK_SUCCESS) {
			slurm_error(
				"spank_extra: cannot pass --extra-prefer on");
			return -1;
		}
		return 0;
	}
	if (!tiers && wait_secs < 0)
		return 0;
	/* A wait alone is handed over too: job_submit/extra refuses it,
	 * also where this plugin is `optional` in plugstack.conf (whose
	 * failure here the client ignores). */
	snprintf(secs, sizeof(secs), "%ld", wait_secs < 0 ? 0 : wait_secs);
	if ((tiers && spank_job_control_setenv(sp, PREFER_ENV, tiers, 1) !=
			      ESPANK_SUCCESS) ||
	    spank_job_control_setenv(sp, PREFER_WAIT_ENV, secs, 1) !=
		    ESPANK_SUCCESS) {
		slurm_error("spank_extra: cannot pass --extra-prefer on");
		return -1;
	}
	return 0;
}
