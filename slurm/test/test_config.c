/*
 * test_config.c - the plugins' extra.conf reader: defaults, every setting,
 * bad lines reported and ignored, and where the file is looked for.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin_config.h"
#include "leakcheck.h"

LEAK_CHECKED(config);

static char path[] = "/tmp/xc-config-XXXXXX";
static int complaints;
static char last[1200];

static void complain(const char *message)
{
	complaints++;
	snprintf(last, sizeof(last), "%s", message);
}

static void write_file(const char *text)
{
	int fd;

	strcpy(path, "/tmp/xc-config-XXXXXX");
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* There but unreadable is not "missing": it is said (as slurmctld's log
 * line), and the defaults hold. */
Test(config, an_unreadable_file_is_said)
{
	struct plugin_config cfg;

	complaints = 0;
	cr_assert_eq(plugin_config_read(&cfg, "/", complain), 1);
	cr_assert_eq(complaints, 1);
	cr_assert(strstr(last, "cannot read / ("), "%s", last);
	cr_assert(cfg.found, "there, though not read");
	cr_assert_float_eq(cfg.refresh_interval, 1.0, 1e-9);
}

Test(config, missing_file_gives_defaults)
{
	struct plugin_config cfg;

	cr_assert_eq(
		plugin_config_read(&cfg, "/nonexistent/extra.conf", complain),
		0);
	cr_assert_not(cfg.found);
	cr_assert_float_eq(cfg.refresh_interval, 1.0, 1e-9);
	cr_assert_eq(cfg.limits.max_request_length, 1024);
	cr_assert_eq(cfg.limits.max_depth, 1024);
	cr_assert_eq(cfg.limits.max_extra_length, 65536);
	cr_assert_eq(cfg.limits.max_extra_depth, 0,
		     "json-c's depth, as Slurm's: not a setting");
}

Test(config, every_setting)
{
	struct plugin_config cfg;

	write_file("# comment\n\n  refreshinterval = 0.5  # half a second\n"
		   "MaxRequestLength=2048\nMAXDEPTH=10\nMaxExtraLength=100\n");
	cr_assert_eq(plugin_config_read(&cfg, path, complain), 0);
	cr_assert(cfg.found);
	cr_assert_float_eq(cfg.refresh_interval, 0.5, 1e-9);
	cr_assert_eq(cfg.limits.max_request_length, 2048);
	cr_assert_eq(cfg.limits.max_depth, 10);
	cr_assert_eq(cfg.limits.max_extra_length, 100);
	unlink(path);
}

Test(config, bad_lines_are_reported_and_ignored)
{
	struct plugin_config cfg;

	complaints = 0;
	write_file(
		"RefreshInterval=0\nMaxRequestLength=abc\nMaxDepth=-1\n"
		"Colour=blue\njust words\nMaxExtraLength=1e9\nRefreshInterval=2\n");
	cr_assert_eq(plugin_config_read(&cfg, path, complain), 6);
	cr_assert_eq(complaints, 6);
	cr_assert(strstr(last, ":6: ignored"), "%s", last);
	cr_assert_float_eq(cfg.refresh_interval, 2.0, 1e-9);
	cr_assert_eq(cfg.limits.max_request_length, 1024);
	cr_assert_eq(cfg.limits.max_depth, 1024);
	unlink(path);
}

/* The largest accepted values, and one past them: MaxDepth is bounded by
 * the stack a level of nesting takes (xc.h, parser/test/test_depth.c). */
Test(config, limits_at_and_past_their_bounds)
{
	struct plugin_config cfg;

	write_file("MaxDepth=1024\nMaxRequestLength=16777216\n");
	cr_assert_eq(plugin_config_read(&cfg, path, complain), 0);
	cr_assert_eq(cfg.limits.max_depth, XC_MAX_DEPTH_LIMIT);
	cr_assert_eq(cfg.limits.max_request_length,
		     XC_MAX_REQUEST_LENGTH_LIMIT);
	unlink(path);
	complaints = 0;
	write_file(
		"MaxDepth=1025\nMaxRequestLength=16777217\nMaxExtraDepth=64\n");
	cr_assert_eq(plugin_config_read(&cfg, path, complain), 3);
	cr_assert_eq(complaints, 3);
	cr_assert(strstr(last,
			 ":3: ignored: unknown setting or value out of range"),
		  "%s", last);
	cr_assert_eq(cfg.limits.max_depth, XC_DEFAULT_MAX_DEPTH);
	cr_assert_eq(cfg.limits.max_request_length,
		     XC_DEFAULT_MAX_REQUEST_LENGTH);
	unlink(path);
}

/* extra.conf and the command take one range per limit, the library's
 * (xc_limit_range): the smallest value is accepted, one below refused. */
Test(config, the_smallest_values_are_the_commands_too)
{
	struct plugin_config cfg;
	size_t min, max;

	write_file("MaxRequestLength=1\nMaxDepth=1\nMaxExtraLength=2\n");
	cr_assert_eq(plugin_config_read(&cfg, path, complain), 0);
	xc_limit_range(XC_LIMIT_REQUEST_LENGTH, &min, &max);
	cr_assert_eq(cfg.limits.max_request_length, min);
	xc_limit_range(XC_LIMIT_DEPTH, &min, &max);
	cr_assert_eq(cfg.limits.max_depth, min);
	xc_limit_range(XC_LIMIT_EXTRA_LENGTH, &min, &max);
	cr_assert_eq(cfg.limits.max_extra_length, min);
	unlink(path);
	write_file("MaxRequestLength=0\nMaxDepth=0\nMaxExtraLength=1\n"
		   "MaxDepth=+5\nMaxDepth= 5x\n");
	cr_assert_eq(plugin_config_read(&cfg, path, complain), 5);
	cr_assert_eq(cfg.limits.max_request_length,
		     XC_DEFAULT_MAX_REQUEST_LENGTH);
	cr_assert_eq(cfg.limits.max_depth, XC_DEFAULT_MAX_DEPTH);
	cr_assert_eq(cfg.limits.max_extra_length, XC_DEFAULT_MAX_EXTRA_LENGTH);
	unlink(path);
}

/* The thread's settings: UpdateBudget 1-1000 ms a second, the caps on
 * distinct pending requests 0 (none) to 1000000 (doc/extra.conf.5). */
Test(config, budget_and_caps)
{
	struct plugin_config cfg;

	write_file("UpdateBudget=250\nMaxPendingRequests=0\n"
		   "MaxPendingRequestsPerUser=5\nMaxPreferringJobsPerUser=7\n");
	cr_assert_eq(plugin_config_read(&cfg, path, complain), 0);
	cr_assert_eq(cfg.update_budget, 250);
	cr_assert_eq(cfg.max_requests, 0);
	cr_assert_eq(cfg.max_user_requests, 5);
	cr_assert_eq(cfg.max_prefer_jobs, 7);
	unlink(path);
	write_file("UpdateBudget=0\nUpdateBudget=1001\n"
		   "MaxPendingRequests=1000001\nMaxPendingRequestsPerUser=-1\n"
		   "MaxPreferringJobsPerUser=x\n");
	cr_assert_eq(plugin_config_read(&cfg, path, complain), 5);
	cr_assert_eq(cfg.update_budget, UPDATE_BUDGET_DEFAULT);
	cr_assert_eq(cfg.max_requests, MAX_REQUESTS_DEFAULT);
	cr_assert_eq(cfg.max_user_requests, MAX_USER_REQUESTS_DEFAULT);
	cr_assert_eq(cfg.max_prefer_jobs, MAX_PREFER_JOBS_DEFAULT);
	unlink(path);
}

/* The carrier: features by default, features or exclusions in any case,
 * anything else ignored with a complaint (doc/extra.conf.5). */
Test(config, carrier)
{
	struct plugin_config cfg;

	plugin_config_defaults(&cfg);
	cr_assert(cfg.carrier_features);
	write_file("Carrier=Exclusions\n");
	cr_assert_eq(plugin_config_read(&cfg, path, complain), 0);
	cr_assert_not(cfg.carrier_features);
	unlink(path);
	write_file("carrier = features\nCarrier=exclusions\n");
	cr_assert_eq(plugin_config_read(&cfg, path, complain), 0);
	cr_assert_not(cfg.carrier_features, "the last line wins");
	unlink(path);
	write_file("Carrier=features\nCarrier=feature\nCarrier=\n");
	cr_assert_eq(plugin_config_read(&cfg, path, complain), 2);
	cr_assert(cfg.carrier_features, "a bad value leaves the one before");
	unlink(path);
}

/* A size setting from 0 to `max`, `def` by default, read in any case; a
 * value past `max`, negative or with a unit is refused and leaves the
 * default.  `field` is its place in the configuration. */
static void check_size_setting(const char *key, size_t def, size_t max,
			       size_t (*field)(const struct plugin_config *))
{
	struct plugin_config cfg;
	char text[256];

	plugin_config_defaults(&cfg);
	cr_assert_eq(field(&cfg), def, "%s's default", key);
	snprintf(text, sizeof(text), "%s=0\n", key);
	write_file(text);
	cr_assert_eq(plugin_config_read(&cfg, path, complain), 0);
	cr_assert_eq(field(&cfg), 0, "%s=0", key);
	unlink(path);
	snprintf(text, sizeof(text), "%s=%zu\n", key, max);
	for (char *c = text; *c != '='; c++) /* keys in any case */
		*c = (char)tolower((unsigned char)*c);
	write_file(text);
	cr_assert_eq(plugin_config_read(&cfg, path, complain), 0);
	cr_assert_eq(field(&cfg), max, "%s=%zu", key, max);
	unlink(path);
	snprintf(text, sizeof(text), "%s=%zu\n%s=-1\n%s=64k\n", key, max + 1,
		 key, key);
	write_file(text);
	cr_assert_eq(plugin_config_read(&cfg, path, complain), 3);
	cr_assert_eq(field(&cfg), def, "%s after bad values", key);
	unlink(path);
}

static size_t mmap_threshold(const struct plugin_config *c)
{
	return c->mmap_threshold;
}

static size_t trim_interval(const struct plugin_config *c)
{
	return c->trim_interval;
}

/* glibc's mmap threshold in filter mode: 0 (left alone) to 32 MiB, 32768
 * by default (doc/extra.conf.5, doc/thread.md "Memory"). */
Test(config, malloc_mmap_threshold)
{
	check_size_setting("MallocMmapThreshold", MMAP_THRESHOLD_DEFAULT,
			   MMAP_THRESHOLD_MAX, mmap_threshold);
	cr_assert_eq(MMAP_THRESHOLD_DEFAULT, 32768);
}

/* The least time between malloc_trim()s in filter mode: 0 (never) to an
 * hour, 10 s by default (doc/extra.conf.5, doc/thread.md "Memory"). */
Test(config, malloc_trim_interval)
{
	check_size_setting("MallocTrimInterval", TRIM_INTERVAL_DEFAULT,
			   TRIM_INTERVAL_MAX, trim_interval);
	cr_assert_eq(TRIM_INTERVAL_DEFAULT, 10);
	cr_assert_eq(TRIM_INTERVAL_MAX, 3600);
}

Test(config, path_beside_slurm_conf)
{
	char buf[256];

	unsetenv("SLURM_EXTRA_CONF");
	setenv("SLURM_CONF", "/opt/slurm/etc/slurm.conf", 1);
	plugin_config_path(buf, sizeof(buf));
	cr_assert_str_eq(buf, "/opt/slurm/etc/extra.conf");
	unsetenv("SLURM_CONF");
	plugin_config_path(buf, sizeof(buf));
	cr_assert_str_eq(buf, "/etc/slurm/extra.conf");
	setenv("SLURM_EXTRA_CONF", "/x/y.conf", 1);
	plugin_config_path(buf, sizeof(buf));
	cr_assert_str_eq(buf, "/x/y.conf");
}

/* Carrier=guard: burst_buffer/extra alone (doc/guard.md "The guard
 * alone"); the last line wins either way. */
Test(config, carrier_guard)
{
	struct plugin_config cfg;

	plugin_config_defaults(&cfg);
	cr_assert_not(cfg.carrier_guard);
	write_file("Carrier=Guard\n");
	cr_assert_eq(plugin_config_read(&cfg, path, complain), 0);
	cr_assert(cfg.carrier_guard);
	cr_assert_not(cfg.carrier_features);
	unlink(path);
	write_file("Carrier=guard\nCarrier=features\n");
	cr_assert_eq(plugin_config_read(&cfg, path, complain), 0);
	cr_assert_not(cfg.carrier_guard);
	cr_assert(cfg.carrier_features);
	unlink(path);
}

/* No Carrier line: guard where BurstBufferType names burst_buffer/extra,
 * features where it does not; a Carrier line is kept either way. */
Test(config, carrier_by_default)
{
	struct plugin_config cfg;

	write_file("MaxDepth=64\n");
	cr_assert_eq(plugin_config_read(&cfg, path, complain), 0);
	cr_assert_not(cfg.carrier_set);
	plugin_config_carrier(&cfg, false);
	cr_assert(cfg.carrier_features && !cfg.carrier_guard);
	plugin_config_carrier(&cfg, true);
	cr_assert(cfg.carrier_guard && !cfg.carrier_features);
	unlink(path);
	for (int i = 0; i < 2; i++) {
		write_file(i ? "Carrier=exclusions\n" : "Carrier=features\n");
		cr_assert_eq(plugin_config_read(&cfg, path, complain), 0);
		cr_assert(cfg.carrier_set);
		plugin_config_carrier(&cfg, true);
		cr_assert_not(cfg.carrier_guard, "the file's, with the guard");
		cr_assert_eq(cfg.carrier_features, !i);
		unlink(path);
	}
	plugin_config_defaults(&cfg);
	plugin_config_carrier(&cfg, true);
	cr_assert(cfg.carrier_guard, "no file at all");
	/* a bad value is no carrier named: the default */
	write_file("Carrier=bogus\n");
	cr_assert_eq(plugin_config_read(&cfg, path, complain), 1);
	cr_assert_not(cfg.carrier_set);
	plugin_config_carrier(&cfg, true);
	cr_assert(cfg.carrier_guard);
	unlink(path);
	/* Carrier=guard named without the guard stays named: job_submit/
	 * extra's init() says so and falls back (job_submit_extra.c) */
	write_file("Carrier=guard\n");
	cr_assert_eq(plugin_config_read(&cfg, path, complain), 0);
	plugin_config_carrier(&cfg, false);
	cr_assert(cfg.carrier_guard && !cfg.carrier_features);
	unlink(path);
}
