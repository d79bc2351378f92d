/*
 * cmd_doctor.c - the command doctor (slurm-extra(1), "doctor";
 * doc/benchmarks.md, "Slurm's own filter or filter mode"): what a live
 * cluster runs (slurmctld's version, who filters by --extra, its nodes and
 * pending jobs with a request), the settings this project recommends for
 * it, and which filter to run.
 *
 * Read only, with the caller's rights: slurm_load_ctl_conf(),
 * slurm_load_node() and slurm_load_jobs(), as `scontrol show config`,
 * `scontrol show node` and `squeue` read them (with PrivateData a user
 * sees what Slurm shows them), and the plugin files in PluginDir.  Exit
 * status: 0 printed; 1 slurmctld could not be
 * read; 2 a usage error.
 */
#define _GNU_SOURCE /* strverscmp, strcasestr */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "cli.h"
#include "ctld.h"
#include "job_state.h"
#include "plugin_config.h"
#include "slurm_compat.h"

#define EXIT_SLURM 1

/* What Slurm's scheduler spends on each node for each pending job with a
 * request under its own filter, node selection included, where every job
 * is tried: 0.56 us at 10,000 nodes and 0.60 at 30,000 (main cycle mean
 * over jobs reached and nodes, tests/cluster/scale-compare.sh, idle cluster, Slurm
 * 24.11.7; doc/benchmarks.md, "Slurm's own filter or filter mode").  Its
 * main scheduler stops at max_sched_time (2 s there). */
#define OWN_US_PER_JOB_NODE 0.6

/* The value of `key=` in SchedulerParameters, or NULL. */
static const char *param_value(const char *params, const char *key, char *buf,
			       size_t size)
{
	size_t n = strlen(key);

	for (const char *p = params; p && (p = strcasestr(p, key)); p += n)
		if ((p == params || p[-1] == ',') && p[n] == '=') {
			size_t len = strcspn(p + n + 1, ",");

			snprintf(buf, size, "%.*s", (int)len, p + n + 1);
			return buf;
		}
	return NULL;
}

/* Whether PrologSlurmctld runs slurm-extra-prolog-slurmctld, an earlier
 * release's check at start (a site's own program that calls it is not
 * seen). */
static bool prolog_state(const slurm_conf_t *conf)
{
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 5, 0)
	for (uint32_t i = 0; i < conf->prolog_slurmctld_cnt; i++)
		if (conf->prolog_slurmctld[i] &&
		    strstr(conf->prolog_slurmctld[i], PROLOG_NAME))
			return 1;
	return 0;
#else
	return conf->prolog_slurmctld &&
	       strstr(conf->prolog_slurmctld, PROLOG_NAME);
#endif
}

/* One recommended setting: "ok" when set, "set" with why when not,
 * "check" with `check` when it cannot tell. */
static void setting(int state, const char *what, const char *why,
		    const char *check)
{
	printf("  %-5s %s%s%s\n",
	       state > 0    ? "ok"
	       : state == 0 ? "set"
			    : "check",
	       what, state > 0 ? "" : ": ",
	       state > 0    ? ""
	       : state == 0 ? why
			    : check);
}

/* What burst_buffer_extra.so says it was built against
 * (ctld/burst_buffer_extra.c, built_against[]). */
#define GUARD_MARK "slurm-extra guard: Slurm "
#define GUARD_FILE "burst_buffer_extra.so"
/* The plugin file read for it, at most (it is about 350 KiB). */
#define GUARD_FILE_MAX (64L << 20)

/* What the guard's file `path` was built against, into `built` ("X.Y.Z;
 * tree DIR"), read as slurmctld finds it (plugin_load_and_link(),
 * src/common/plugin.c: a path that is not a regular file is not there):
 * 1 read, 0 no such regular file, -1 one this caller cannot read, -2 one
 * without the mark (or larger than a plugin: GUARD_FILE_MAX). */
static int guard_mark(const char *path, char *built, size_t bsize)
{
	struct stat st;
	char *buf;
	const char *m;
	ssize_t n;
	size_t got = 0;
	int fd;

	*built = '\0';
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	if (st.st_size > GUARD_FILE_MAX)
		return -2;
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > GUARD_FILE_MAX ||
	    !(buf = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return -1;
	}
	while (got < (size_t)st.st_size &&
	       (n = read(fd, buf + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	close(fd);
	buf[got] = '\0';
	if ((m = memmem(buf, got, GUARD_MARK, strlen(GUARD_MARK))))
		snprintf(built, bsize, "%.*s",
			 (int)strnlen(m + strlen(GUARD_MARK),
				      got - (size_t)(m - buf) -
					      strlen(GUARD_MARK)),
			 m + strlen(GUARD_MARK));
	free(buf);
	return m ? 1 : -2;
}

/* Whether version text `a` ("X.Y.Z...") is the same major.minor.micro as
 * `b`: what slurmctld compares (SLURM_VERSION_NUMBER, src/common/
 * plugin.c), whatever follows (a release: "24.11.0-0rc1"). */
static bool same_version(const char *a, const char *b)
{
	int x[3], y[3];

	return sscanf(a, "%d.%d.%d", &x[0], &x[1], &x[2]) == 3 &&
	       sscanf(b, "%d.%d.%d", &y[0], &y[1], &y[2]) == 3 &&
	       x[0] == y[0] && x[1] == y[1] && x[2] == y[2];
}

/* The guard at placement (doc/guard.md "The guard at placement"):
 * whether BurstBufferType names it, and what slurmctld would load for it
 * from PluginDir on this host: it tries the directories in turn, passes
 * over a file built for another version and loads the first built for
 * its own (plugin_load_and_link(), src/common/plugin.c); none, and a
 * BurstBufferType naming it stops slurmctld at start ("failed to
 * initialize burst buffer plugin", src/slurmctld/controller.c).  Says
 * what it finds: 1 when slurmctld would load a guard built for the
 * version it runs, 0 when it would not, -1 when this host cannot tell
 * (a file it cannot read, or none here: not slurmctld's host). */
static int guard_setting(const slurm_conf_t *conf)
{
	char path[4096], first[4096] = "", built[512], other[512] = "";
	const char *running = conf->version ? conf->version : "";
	bool on = sx_list_has_word(conf->bb_type, "extra");
	const char *dir = conf->plugindir;

	while (dir && *dir) {
		size_t len = strcspn(dir, ":");
		int r;

		snprintf(path, sizeof(path), "%.*s/%s", (int)len, dir,
			 GUARD_FILE);
		dir += len + (dir[len] == ':');
		if (!(r = guard_mark(path, built, sizeof(built))))
			continue;
		if (r < 0) {
			/* slurmctld tries this one next: nothing to say of
			 * what it does with it */
			printf("  check %s: slurmctld tries it%s, and it %s: rebuild it, or run slurm-extra doctor as root or SlurmUser\n",
			       path,
			       *first ? " after passing over the one for another version"
				      : " first",
			       r == -1 ? "cannot be read here"
				       : "does not say which Slurm it was built against");
			return r == -1 && on ? -1 : 0;
		}
		if (same_version(built, running)) {
			fputs("the guard at placement: ", stdout);
			put_text(stdout, path);
			fputs(" on this host, built against Slurm ", stdout);
			put_text(stdout, built);
			printf(" (slurmctld runs %s%s", running,
			       *first ? "; it passes over " : "");
			put_text(stdout, first);
			fputs(")\n", stdout);
			setting(on, "BurstBufferType=burst_buffer/extra",
				"the guard at placement keeps a job with a request off the nodes that do not satisfy it; without it (or Slurm's own extra_constraints, 23.11+) job_submit/extra refuses every request",
				NULL);
			return on ? 1 : 0;
		}
		if (!*first) {
			snprintf(first, sizeof(first), "%s", path);
			snprintf(other, sizeof(other), "%.*s",
				 (int)strcspn(built, ";"), built);
		}
	}
	if (*first) {
		fputs("  set   ", stdout);
		put_text(stdout, first);
		fputs(": built against Slurm ", stdout);
		put_text(stdout, other);
		printf(", slurmctld runs %s: slurmctld %s; rebuild it against this Slurm's source tree (contrib/slurm-source.sh, configure --with-slurm-source)\n",
		       running,
		       on ? "stops at its next start (it loads a plugin only into the version it was built for)"
			  : "would not load it");
		return 0;
	}
	setting(-1, "BurstBufferType=burst_buffer/extra", NULL,
		on ? "set, and no " GUARD_FILE
		     " in PluginDir here: run slurm-extra doctor on slurmctld's host"
		   : "the guard at placement is not installed here (built with configure --with-slurm-source, doc/install.md); without it (or Slurm's own extra_constraints, 23.11+) job_submit/extra refuses every request");
	return on ? -1 : 0;
}

/* The extra.conf job_submit/extra reads, beside slurmctld's slurm.conf
 * (plugin_config_path() in slurmctld, whose SLURM_CONF names it): its
 * path into path[size], its settings into *cfg (the defaults where it is
 * missing). */
static void ctld_extra_conf(const slurm_conf_t *conf, struct plugin_config *cfg,
			    char *path, size_t size)
{
	const char *slash =
		conf->slurm_conf ? strrchr(conf->slurm_conf, '/') : NULL;

	snprintf(path, size, "%.*s/extra.conf",
		 slash ? (int)(slash - conf->slurm_conf) : 1,
		 slash ? conf->slurm_conf : ".");
	plugin_config_read(cfg, path, NULL);
	plugin_config_carrier(cfg, sx_list_has_word(conf->bb_type, "extra"));
}

int cmd_doctor(const struct opts *o)
{
	slurm_conf_t *conf = NULL;
	node_info_msg_t *nodes = NULL;
	job_info_msg_t *jobs = NULL;
	uint32_t with_extra = 0, pending = 0, requests = 0;
	uint32_t narrowed = 0, narrowed_id = 0, threads = 0, threads_id = 0;
	bool plugin, own, can_own, can_guard, by_guard;
	struct plugin_config settings;
	char settings_path[4096];
	double est_s;
	int rc = EXIT_SLURM;

	if (o->request)
		return fail("doctor takes no REQUEST ('%s')", o->request);
	slurm_init(NULL);
	if (slurm_load_ctl_conf((time_t)0, &conf) != SLURM_SUCCESS) {
		fprintf(stderr,
			"%s: doctor: cannot read slurmctld's configuration: %s\n",
			prog, slurm_strerror(sx_slurm_errno()));
		return EXIT_SLURM;
	}
	if (slurm_load_node((time_t)0, &nodes, SHOW_ALL) != SLURM_SUCCESS ||
	    slurm_load_jobs((time_t)0, &jobs, SHOW_ALL) != SLURM_SUCCESS) {
		fprintf(stderr, "%s: doctor: cannot read the %s: %s\n", prog,
			nodes ? "jobs" : "nodes",
			slurm_strerror(sx_slurm_errno()));
		goto out;
	}
	for (uint32_t i = 0; i < nodes->record_count; i++)
		with_extra += nodes->node_array[i].extra &&
			      *nodes->node_array[i].extra;
	for (uint32_t i = 0; i < jobs->record_count; i++) {
		const slurm_job_info_t *j = &jobs->job_array[i];
		const char *extra = SX_JOB_EXTRA(j);
		struct sx_job_state st;
		bool state;

		if ((j->job_state & JOB_STATE_BASE) != JOB_PENDING)
			continue;
		pending++;
		state = sx_job_state_parse(j->admin_comment, &st);
		if (state && sx_job_state_narrowed_by_thread(&st, extra) &&
		    !narrowed++)
			narrowed_id = j->job_id;
		if (state && sx_job_state_by_thread(&st) && !threads++)
			threads_id = j->job_id;
		if (state)
			sx_job_state_free(&st);
		requests += state || (extra && *extra);
	}
	plugin = sx_list_has_word(conf->job_submit_plugins, "extra");
	/* Slurm's own filter: 23.11 and later (before, the word is
	 * ignored); the guard: built for 22.05 and 24.11 alone
	 * (ctld/burst_buffer_extra.c) */
	can_own = strverscmp(conf->version ? conf->version : "0", "23.11") >= 0;
	can_guard = conf->version && (!strncmp(conf->version, "22.05.", 6) ||
				      !strncmp(conf->version, "24.11.", 6));
	own = can_own &&
	      sx_list_has_word(conf->sched_params, "extra_constraints");
	ctld_extra_conf(conf, &settings, settings_path, sizeof(settings_path));
	/* (job_submit/extra's entry_filter(): without the guard, and
	 * without Slurm's own filter, every request is refused) */
	by_guard = plugin && !own && settings.carrier_guard;

	printf("slurmctld: %s (this command built for Slurm %d.%02d.%d)\n",
	       conf->version ? conf->version : "unknown",
	       SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
	       SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
	       SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER));
	printf("filter: %s\n",
	       own ? "Slurm's own (SchedulerParameters extra_constraints)"
	       : by_guard
		       ? "the plugin's (Carrier=guard: burst_buffer/extra keeps jobs off inside slurmctld)"
	       : plugin
		       ? "none: job_submit/extra refuses every request (neither BurstBufferType=burst_buffer/extra nor SchedulerParameters=extra_constraints)"
		       : "none: --extra is stored, and nothing filters by it");
	printf("nodes: %u, %u with an Extra\n", nodes->record_count,
	       with_extra);
	printf("pending jobs: %u, %u with a request (%s)%s\n", pending,
	       requests,
	       own	  ? "filtered by Slurm"
	       : by_guard ? "filtered by burst_buffer/extra"
			  : "none filtered",
	       (conf->private_data & PRIVATE_DATA_JOBS) && getuid() != 0 &&
			       getuid() != conf->slurm_user_id
		       ? "; PrivateData=jobs: only the jobs Slurm shows you"
		       : "");
	if (plugin && own) { /* who keeps the preferences there */
		printf("preferences: %s",
		       settings.carrier_guard &&
				       sx_list_has_word(conf->bb_type, "extra")
			       ? "kept by burst_buffer/extra at each placement"
			       : "refused: where Slurm filters, --extra-prefer needs BurstBufferType=burst_buffer/extra");
		if (!settings.found)
			printf(" (by the defaults: no %s read here)",
			       settings_path);
		putchar('\n');
	}
	if (narrowed) /* (what the caller may see: the line above) */
		printf("leftover: %u pending job%s (the first: job %u) keep%s the Extra an earlier release's thread narrowed to a preference: burst_buffer/extra gives it back at its look's next walk, else scontrol update job=ID extra=<the request= of its AdminComment>\n",
		       narrowed, narrowed == 1 ? "" : "s", narrowed_id,
		       narrowed == 1 ? "s" : "");
	if (threads) /* the thread's state: its list, feature or hold */
		printf("leftover: %u pending job%s (the first: job %u) hold%s the state an earlier release's thread wrote, and may keep its ExcNodeList, its feature in Features or its hold: burst_buffer/extra gives them back at its look's walks, else scontrol release and scontrol update job=ID excnodelist=<exclude= of its AdminComment> features=<the user's own>\n",
		       threads, threads == 1 ? "" : "s", threads_id,
		       threads == 1 ? "s" : "");
	printf("settings:\n");
	setting(plugin, "JobSubmitPlugins=extra",
		"every request is checked at submission, with errors that point at the mistake (and slurmctld 23.11.0-23.11.6 dies on a request with an unbalanced ')')",
		NULL);
	/* where the plugin filters, and wherever BurstBufferType names the
	 * guard (a file for another Slurm stops slurmctld in every mode) */
	if ((plugin && !own) || sx_list_has_word(conf->bb_type, "extra"))
		(void)guard_setting(conf);
	if (by_guard) {
		char buf[64];
		const char *delay =
			param_value(conf->sched_params, "batch_sched_delay",
				    buf, sizeof(buf));

		setting(delay && strtol(delay, NULL, 10) == 0,
			"SchedulerParameters=batch_sched_delay=0",
			"the scheduling pass the guard's look asks for once a node comes to match a waiting job runs at once",
			NULL);
	}
	/* an earlier release's check at start: it checks nothing now */
	if (prolog_state(conf))
		printf("  set   PrologSlurmctld=%s: the check at start is gone (burst_buffer/extra checks each placement) and exits at once: remove it\n",
		       PROLOG_NAME);

	/* Which filter (doc/benchmarks.md): Slurm's own evaluates every
	 * pending request on every node in each scheduling pass. */
	est_s = (double)requests * nodes->record_count * OWN_US_PER_JOB_NODE /
		1e6;
	printf("recommended: ");
	if (!can_own && !can_guard)
		printf("none can filter: Slurm %s has no filter of its own (23.11 and later have), and the guard at placement is built for Slurm 22.05 and 24.11 alone: job_submit/extra refuses every request\n",
		       conf->version ? conf->version : "");
	else if (!can_own)
		printf("the guard at placement (BurstBufferType=burst_buffer/extra): Slurm %s has no filter of its own (23.11 and later have)\n",
		       conf->version ? conf->version : "");
	else if (est_s >= 0.5 && can_guard)
		printf("the guard at placement (BurstBufferType=burst_buffer/extra): Slurm's own filter would spend about %.1f s of each scheduling pass on %u requests over %u nodes (0.6 us each), and its scheduler stops at max_sched_time; the guard's look evaluates a node again only when its Extra changes\n",
		       est_s, requests, nodes->record_count);
	else
		printf("Slurm's own filter (extra_constraints, with JobSubmitPlugins=extra checking requests): about %.2f s of each scheduling pass for %u requests over %u nodes%s\n",
		       est_s, requests, nodes->record_count,
		       can_guard
			       ? "; the guard at placement (burst_buffer/extra) pays off from about 0.5 s, and keeps preferences"
			       : "");
	rc = 0;
out:
	sx_free_job_info_msg(jobs);
	sx_free_node_info_msg(nodes);
	sx_free_ctl_conf(conf);
	return rc;
}
