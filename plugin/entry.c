/*
 * entry.c - what the entry points share (entry.h): the settings, who
 * filters, refusals, the parsing of a request and the caps.
 */
#define _GNU_SOURCE /* asprintf */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps.h"
#include "ctld.h"
#include "entry.h"
#include "prefer.h"
#include "xc_util.h"

bool entry_on;
struct plugin_config entry_cfg;
uid_t entry_self;

/* The guard does not filter (`why`, logged). */
static void no_guard(struct plugin_config *cfg, const char *why)
{
	slurm_error("%s: %s", plugin_type, why);
	cfg->carrier_guard = false;
}

void entry_carrier(struct plugin_config *cfg)
{
	const struct sx_guard_api *api;

	plugin_config_carrier(cfg, sx_guard_configured());
	/* (said at init() where nothing filters: entry_filter()) */
	if (!sx_guard_configured()) {
		cfg->carrier_guard = false;
		return;
	}
	/* burst_buffer/extra follows the carrier read now (a reload in place;
	 * at slurmctld's start it loads after this, and a guard that cannot
	 * read Slurm's records stops slurmctld then) */
	if ((api = sx_guard_api_now()) && !api->set_alone(cfg->carrier_guard))
		no_guard(
			cfg,
			"burst_buffer/extra stands aside (see its line at slurmctld's start): it keeps no job off");
}

enum entry_filter entry_filter(const struct plugin_config *cfg)
{
	if (cfg->carrier_guard && !sx_slurm_filters_extra())
		return FILTER_GUARD;
	return sx_slurm_filters_extra() ? FILTER_SLURM : FILTER_NONE;
}

const char *job_request(const job_desc_msg_t *job_desc)
{
	if (job_desc->extra && job_desc->extra[0])
		return job_desc->extra;
	for (uint32_t i = 0;
	     job_desc->spank_job_env && i < job_desc->spank_job_env_size; i++) {
		const char *v = job_desc->spank_job_env[i];

		if (v && strncmp(v, SPANK_VAR, sizeof(SPANK_VAR) - 1) == 0)
			return v + sizeof(SPANK_VAR) - 1;
	}
	return NULL;
}

/* Sets *err_msg (Slurm's allocator) and returns `rc`. */
int refuse(char **err_msg, int rc, const char *text)
{
	if (err_msg && text) {
		slurm_xfree((void **)err_msg); /* one an earlier plugin left */
		*err_msg = slurm_xstrdup(text);
	}
	return rc;
}

/* Replaces a job_desc string with a copy of `text` from Slurm's allocator
 * (Slurm frees it); -1 when out of memory. */
int set_desc_string(char **field, const char *text)
{
	char *copy = slurm_xstrdup(text);

	if (!copy)
		return -1;
	slurm_xfree((void **)field);
	*field = copy;
	return 0;
}

int set_desc_state(char **field, const struct sx_job_state *st)
{
	char *comment = sx_job_state_format(st);
	int rc = comment ? set_desc_string(field, comment) : -1;

	free(comment);
	return rc;
}

/* Parses `request`; NULL and *rc set after refusing it with the rendered
 * error. */
size_t request_limit(void)
{
	return entry_on ? entry_cfg.limits.max_request_length
			: XC_DEFAULT_MAX_REQUEST_LENGTH;
}

xc_expr_t *parse_or_refuse(const char *request, uint32_t uid, char **err_msg,
			   int *rc)
{
	xc_error_t err;
	xc_expr_t *expr = xc_parse(request, &entry_cfg.limits, &err);
	char ebuf[256], mbuf[2 * XC_ERROR_MESSAGE_SIZE];
	char *text;

	if (expr)
		return expr;
	text = xc_error_render(request, &err, "--extra: ");
	/* The message quotes the request: escaped too. */
	slurm_info("%s: uid %u: invalid request '%s': %s", plugin_type, uid,
		   xc_escape(request, ebuf, sizeof(ebuf)),
		   xc_escape(err.message, mbuf, sizeof(mbuf)));
	*rc = refuse(err_msg, ESLURM_INVALID_FEATURE,
		     text ? text : err.message);
	free(text);
	return NULL;
}

/* A cap's answer `rc` for user `uid` (0 admitted, 1 refused with `why`,
 * -1 out of memory) as the entry points give it: SLURM_SUCCESS, or the
 * refusal (ESLURM_ACCOUNTING_POLICY, as Slurm's MaxSubmitJobs), logged. */
static int cap_answer(int rc, uint32_t uid, const char *why, char **err_msg)
{
	if (rc < 0)
		return refuse(err_msg, SLURM_ERROR, "--extra: out of memory");
	if (rc > 0) {
		slurm_verbose("%s: uid %u: refused: %s", plugin_type, uid, why);
		return refuse(err_msg, ESLURM_ACCOUNTING_POLICY, why);
	}
	return SLURM_SUCCESS;
}

int admit_hash(uint64_t hash, uint32_t uid, char **err_msg)
{
	char why[512];

	return cap_answer(caps_admit(uid, hash, entry_cfg.max_requests,
				     entry_cfg.max_user_requests, why,
				     sizeof(why)),
			  uid, why, err_msg);
}

int admit_prefer(uint32_t uid, char **err_msg)
{
	char why[512];

	return cap_answer(caps_admit_prefer(uid, entry_cfg.max_prefer_jobs, why,
					    sizeof(why)),
			  uid, why, err_msg);
}

int check_tiers(const struct sx_job_state *st, uint32_t uid, char **err_msg)
{
	int rc = SLURM_SUCCESS;

	for (unsigned i = 0; i < st->n_prefer; i++) {
		xc_expr_t *e =
			parse_or_refuse(st->prefer[i], uid, err_msg, &rc);
		char *both = NULL;

		if (e) {
			xc_expr_destroy(e);
			continue;
		}
		/* the error is the tier's: say so */
		if (err_msg && *err_msg &&
		    asprintf(&both, "--extra-prefer (preference %u): %s", i + 1,
			     *err_msg) >= 0) {
			refuse(err_msg, rc, both);
			free(both);
		}
		return rc;
	}
	return SLURM_SUCCESS;
}
