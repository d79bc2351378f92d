/*
 * plugin_config.c - reading extra.conf (see plugin_config.h).  No Slurm
 * dependency, so it is tested on its own.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "plugin_config.h"

void plugin_config_defaults(struct plugin_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->max_requests = MAX_REQUESTS_DEFAULT;
	cfg->max_user_requests = MAX_USER_REQUESTS_DEFAULT;
	cfg->max_prefer_jobs = MAX_PREFER_JOBS_DEFAULT;
	cfg->limits.max_request_length = XC_DEFAULT_MAX_REQUEST_LENGTH;
	cfg->limits.max_depth = XC_DEFAULT_MAX_DEPTH;
	cfg->limits.max_extra_length = XC_DEFAULT_MAX_EXTRA_LENGTH;
}

void plugin_config_carrier(struct plugin_config *cfg, bool guard_loaded)
{
	cfg->carrier_guard = guard_loaded;
}

void plugin_config_path(char *buf, size_t size)
{
	const char *env = getenv("SLURM_EXTRA_CONF");
	const char *conf = getenv("SLURM_CONF");
	const char *slash;

	if (env && *env) {
		snprintf(buf, size, "%s", env);
		return;
	}
	if (!conf || !*conf)
		conf = "/etc/slurm/slurm.conf";
	slash = strrchr(conf, '/');
	if (!slash)
		snprintf(buf, size, "extra.conf");
	else
		snprintf(buf, size, "%.*s/extra.conf", (int)(slash - conf),
			 conf);
}

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* Whether `key`=`value` is a setting of the filtering thread an earlier
 * release ran (plugin_config.h): its name then, said and ignored. */
static bool removed_setting(const char *key, const char *value)
{
	static const char *const keys[] = { "RefreshInterval", "UpdateBudget",
					    "MallocMmapThreshold",
					    "MallocTrimInterval" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcasecmp(key, keys[i]) == 0)
			return true;
	return strcasecmp(key, "Carrier") == 0 &&
	       (strcasecmp(value, "features") == 0 ||
		strcasecmp(value, "exclusions") == 0);
}

int plugin_config_read(struct plugin_config *cfg, const char *path,
		       void (*complain)(const char *message))
{
	char line[1024], msg[1200];
	int lineno = 0, bad = 0;
	FILE *f;

	plugin_config_defaults(cfg);
	snprintf(cfg->path, sizeof(cfg->path), "%s", path);
	if (!(f = fopen(path, "r"))) {
		/* Missing: the defaults.  There but unreadable: said, with
		 * the defaults too (slurmctld must not fail for it). */
		if (errno != ENOENT) {
			cfg->found = true; /* there, not read: not "no" */
			snprintf(msg, sizeof(msg),
				 "cannot read %s (%s): using the defaults",
				 path, strerror(errno));
			if (complain)
				complain(msg);
			return 1;
		}
		return 0;
	}
	cfg->found = true;
	while (fgets(line, sizeof(line), f)) {
		char *key, *value, *eq, *hash;
		const char *removed = NULL;
		bool ok = true;

		lineno++;
		if ((hash = strchr(line, '#')))
			*hash = '\0';
		key = trim(line);
		if (!*key)
			continue;
		if (!(eq = strchr(key, '='))) {
			ok = false;
		} else {
			*eq = '\0';
			key = trim(key);
			value = trim(eq + 1);
			if (removed_setting(key, value)) {
				removed = key;
			} else if (strcasecmp(key, "Carrier") == 0) {
				ok = strcasecmp(value, "guard") == 0;
			} else if (strcasecmp(key, "MaxPendingRequests") == 0) {
				ok = !xc_read_count(value, 0, MAX_REQUESTS_MAX,
						    &cfg->max_requests);
			} else if (strcasecmp(key,
					      "MaxPendingRequestsPerUser") ==
				   0) {
				ok = !xc_read_count(value, 0, MAX_REQUESTS_MAX,
						    &cfg->max_user_requests);
			} else if (strcasecmp(key,
					      "MaxPreferringJobsPerUser") ==
				   0) {
				ok = !xc_read_count(value, 0, MAX_REQUESTS_MAX,
						    &cfg->max_prefer_jobs);
			} else if (strcasecmp(key, "MaxRequestLength") == 0) {
				ok = !xc_limits_set(&cfg->limits,
						    XC_LIMIT_REQUEST_LENGTH,
						    value);
			} else if (strcasecmp(key, "MaxDepth") == 0) {
				ok = !xc_limits_set(&cfg->limits,
						    XC_LIMIT_DEPTH, value);
			} else if (strcasecmp(key, "MaxExtraLength") == 0) {
				ok = !xc_limits_set(&cfg->limits,
						    XC_LIMIT_EXTRA_LENGTH,
						    value);
			} else {
				ok = false;
			}
		}
		if (removed) {
			bad++;
			snprintf(
				msg, sizeof(msg),
				"%s:%d: ignored: %s= was the setting of an earlier release's filtering thread, which is gone (burst_buffer/extra filters at placement): remove the line",
				path, lineno, removed);
			if (complain)
				complain(msg);
		} else if (!ok) {
			bad++;
			if (complain) {
				snprintf(
					msg, sizeof(msg),
					"%s:%d: ignored: unknown setting or value out of range",
					path, lineno);
				complain(msg);
			}
		}
	}
	if (ferror(f)) { /* e.g. a directory: fopen() takes it */
		snprintf(
			msg, sizeof(msg),
			"cannot read %s (%s): the settings before it are used, the rest are the defaults",
			path, strerror(errno));
		if (complain)
			complain(msg);
		bad++;
	}
	fclose(f);
	return bad;
}
