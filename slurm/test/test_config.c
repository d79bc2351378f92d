/*
 * test_config.c - the plugins' extra.conf reader: defaults, every setting,
 * bad lines reported and ignored, and where the file is looked for.
 */
#include <criterion/criterion.h>
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
	cr_assert_eq(cfg.max_requests, MAX_REQUESTS_DEFAULT);
}

Test(config, missing_file_gives_defaults)
{
	struct plugin_config cfg;

	cr_assert_eq(
		plugin_config_read(&cfg, "/nonexistent/extra.conf", complain),
		0);
	cr_assert_not(cfg.found);
	cr_assert_eq(cfg.max_requests, MAX_REQUESTS_DEFAULT);
	cr_assert_eq(cfg.limits.max_request_length, 1024);
	cr_assert_eq(cfg.limits.max_depth, 1024);
	cr_assert_eq(cfg.limits.max_extra_length, 65536);
	cr_assert_eq(cfg.limits.max_extra_depth, 0,
		     "json-c's depth, as Slurm's: not a setting");
}

Test(config, every_setting)
{
	struct plugin_config cfg;

	write_file("# comment\n\n  maxpendingrequests = 5  # five\n"
		   "MaxRequestLength=2048\nMAXDEPTH=10\nMaxExtraLength=100\n"
		   "Carrier=Guard\n");
	cr_assert_eq(plugin_config_read(&cfg, path, complain), 0);
	cr_assert(cfg.found);
	cr_assert_eq(cfg.max_requests, 5);
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
		"MaxPendingRequests=x\nMaxRequestLength=abc\nMaxDepth=-1\n"
		"Colour=blue\njust words\nMaxExtraLength=1e9\nMaxPendingRequests=2\n");
	cr_assert_eq(plugin_config_read(&cfg, path, complain), 6);
	cr_assert_eq(complaints, 6);
	cr_assert(strstr(last, ":6: ignored"), "%s", last);
	cr_assert_eq(cfg.max_requests, 2);
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

/* The caps on distinct pending requests and on jobs with preferences: 0
 * (none) to 1000000 (doc/extra.conf.5). */
Test(config, caps)
{
	struct plugin_config cfg;

	write_file("MaxPendingRequests=0\n"
		   "MaxPendingRequestsPerUser=5\nMaxPreferringJobsPerUser=7\n");
	cr_assert_eq(plugin_config_read(&cfg, path, complain), 0);
	cr_assert_eq(cfg.max_requests, 0);
	cr_assert_eq(cfg.max_user_requests, 5);
	cr_assert_eq(cfg.max_prefer_jobs, 7);
	unlink(path);
	write_file("MaxPendingRequests=1000001\nMaxPendingRequestsPerUser=-1\n"
		   "MaxPreferringJobsPerUser=x\n");
	cr_assert_eq(plugin_config_read(&cfg, path, complain), 3);
	cr_assert_eq(cfg.max_requests, MAX_REQUESTS_DEFAULT);
	cr_assert_eq(cfg.max_user_requests, MAX_USER_REQUESTS_DEFAULT);
	cr_assert_eq(cfg.max_prefer_jobs, MAX_PREFER_JOBS_DEFAULT);
	unlink(path);
}

/* The settings of an earlier release's filtering thread, in any case and
 * with any value: each a bad line that says so and names itself, and the
 * file's other settings read (doc/extra.conf.5 "Removed settings"). */
Test(config, the_threads_settings_are_said_and_ignored)
{
	static const char *const lines[] = {
		"RefreshInterval=2",	 "updatebudget=250",
		"MallocMmapThreshold=0", "MallocTrimInterval=bogus",
		"Carrier=features",	 "carrier = Exclusions"
	};
	struct plugin_config cfg;
	char text[256];

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		char key[64];

		snprintf(text, sizeof(text),
			 "MaxDepth=7\n%s\nMaxPendingRequests=3\n", lines[i]);
		snprintf(key, sizeof(key),
			 "%.*s=", (int)strcspn(lines[i], " ="), lines[i]);
		write_file(text);
		complaints = 0;
		cr_assert_eq(plugin_config_read(&cfg, path, complain), 1, "%s",
			     lines[i]);
		cr_assert_eq(complaints, 1);
		cr_assert(strstr(last, ":2: ignored: ") && strstr(last, key) &&
				  strstr(last,
					 "earlier release's filtering thread"),
			  "%s", last);
		cr_assert_eq(cfg.limits.max_depth, 7);
		cr_assert_eq(cfg.max_requests, 3);
		unlink(path);
	}
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

/* The carrier: the guard where BurstBufferType names burst_buffer/extra,
 * none where it does not, whatever the file says; Carrier=guard is
 * taken in any case, another value is a bad line (doc/guard.md "The
 * guard alone"). */
Test(config, carrier)
{
	struct plugin_config cfg;

	plugin_config_defaults(&cfg);
	cr_assert_not(cfg.carrier_guard);
	plugin_config_carrier(&cfg, true);
	cr_assert(cfg.carrier_guard, "no file at all");
	write_file("Carrier=Guard\n");
	cr_assert_eq(plugin_config_read(&cfg, path, complain), 0);
	plugin_config_carrier(&cfg, true);
	cr_assert(cfg.carrier_guard);
	plugin_config_carrier(&cfg, false);
	cr_assert_not(cfg.carrier_guard, "named, without the guard");
	unlink(path);
	complaints = 0;
	write_file("Carrier=bogus\nCarrier=\n");
	cr_assert_eq(plugin_config_read(&cfg, path, complain), 2);
	cr_assert(strstr(last, "unknown setting or value out of range"), "%s",
		  last);
	plugin_config_carrier(&cfg, true);
	cr_assert(cfg.carrier_guard);
	unlink(path);
}
