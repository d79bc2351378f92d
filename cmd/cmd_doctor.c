/*
 * cmd_doctor.c - the command doctor (slurm-extra(1), "doctor";
 * doc/benchmarks.md, "Slurm's own filter or filter mode"): what a live
 * cluster runs (slurmctld's version, who filters by --extra, its nodes and
 * pending jobs with a request, how far behind the plugin's thread fell),
 * the settings this project recommends for it, and which filter to run.
 *
 * Read only, with the caller's rights: slurm_load_ctl_conf(),
 * slurm_load_node() and slurm_load_jobs(), as `scontrol show config`,
 * `scontrol show node` and `squeue` read them (with PrivateData a user
 * sees what Slurm shows them), and the tail of SlurmctldLogFile when the
 * caller can read it.  Exit status: 0 printed; 1 slurmctld could not be
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

/* What the log's tail may hold of the thread's rounds: its last MiB. */
#define LOG_TAIL (1L << 20)

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

/* PrologSlurmctld: 1 it runs slurm-extra-prolog-slurmctld, 0 none is
 * set, -1 another program (a site's own may call this one from it). */
static int prolog_state(const slurm_conf_t *conf, const char **other)
{
	*other = NULL;
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 5, 0)
	for (uint32_t i = 0; i < conf->prolog_slurmctld_cnt; i++) {
		if (conf->prolog_slurmctld[i] &&
		    strstr(conf->prolog_slurmctld[i], PROLOG_NAME))
			return 1;
		if (conf->prolog_slurmctld[i] && !*other)
			*other = conf->prolog_slurmctld[i];
	}
#else
	if (conf->prolog_slurmctld &&
	    strstr(conf->prolog_slurmctld, PROLOG_NAME))
		return 1;
	*other = conf->prolog_slurmctld;
#endif
	return *other ? -1 : 0;
}

/* The thread's rounds in the tail of slurmctld's log `path`: its last
 * "re-filtered" line and the most it fell behind.  false when the log
 * cannot be read here. */
static bool log_rounds(const char *path, char *last, size_t size,
		       double *behind)
{
	FILE *f = path ? fopen(path, "r") : NULL;
	char line[4096];

	*last = '\0';
	*behind = 0;
	if (!f)
		return false;
	if (fseek(f, -LOG_TAIL, SEEK_END) != 0)
		rewind(f);
	while (fgets(line, sizeof(line), f)) {
		const char *p;
		double s;

		/* "[time] job_submit/extra: re-filtered ...": with its time */
		if ((p = strstr(line, "job_submit/extra: re-filtered ")))
			snprintf(last, size, "%.*s%.*s",
				 line[0] == '[' ? (int)strcspn(line, "]") + 2
						: 0,
				 line, (int)strcspn(p + 18, "\n"), p + 18);
		if ((p = strstr(line, "job_submit/extra: the thread is ")) &&
		    sscanf(p + 32, "%lf", &s) == 1 && s > *behind)
			*behind = s;
	}
	fclose(f);
	return true;
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
				"the guard at placement keeps a job off a node whose Extra stopped satisfying it before the thread's next round (no window, no check at start needed)",
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
		   : "the guard at placement is not installed here (built with configure --with-slurm-source, doc/install.md); it makes a job's placement exact when a node's Extra changes between the thread's rounds");
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

/* The check at start as slurmctld runs it: this program as PROLOG_NAME,
 * with only slurmctld's variables (no SLURM_CONF: job_common_env_vars(),
 * src/slurmctld/job_mgr.c) and SLURM_EXTRA_PROLOG_PROBE, which makes it
 * say what it reads (cmd_prolog.c, probe()).  Says on stdout whether it
 * reaches slurmctld's cluster and reads the extra.conf beside its
 * slurm.conf (the one job_submit/extra reads) or one with the same
 * limits.  Only on slurmctld's host, where slurmctld runs it; it runs
 * as the caller, not as SlurmUser. */
static void probe_check(const slurm_conf_t *conf)
{
	char *const envp[] = { "SLURM_SCRIPT_CONTEXT=prolog_slurmctld",
			       "SLURM_EXTRA_PROLOG_PROBE=1",
			       "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };
	char out[8192], want_path[4096], last[256] = "", *line, *save;
	char cluster[256] = "", ctl_conf[4096] = "", extra[4096] = "";
	struct plugin_config want;
	size_t n = 0, lim[4] = { 0 };
	int pfd[2], status = 0;
	struct pollfd pf;
	pid_t pid;

	char host[256] = "";
	bool here = false;

	/* slurmctld runs the check on its own host: what it reads there
	 * (its slurm.conf, its extra.conf) is what counts */
	gethostname(host, sizeof(host) - 1);
	for (uint32_t i = 0; i < conf->control_cnt; i++) {
		const char *m = conf->control_machine[i];
		size_t h = strcspn(host, ".");

		here |= m && (!strcmp(m, host) || !strcmp(m, "localhost") ||
			      (strlen(m) == h && !strncmp(m, host, h)));
	}
	if (!here) {
		printf("  check the check at start reads slurmctld's configuration: run slurm-extra doctor on slurmctld's host to see\n");
		return;
	}
	if (pipe2(pfd, O_CLOEXEC) != 0)
		goto cannot;
	if ((pid = fork()) < 0) {
		close(pfd[0]);
		close(pfd[1]);
		goto cannot;
	}
	if (pid == 0) {
		dup2(pfd[1], STDOUT_FILENO);
		dup2(pfd[1], STDERR_FILENO);
		execve("/proc/self/exe", (char *const[]){ PROLOG_NAME, NULL },
		       envp);
		_exit(127);
	}
	close(pfd[1]);
	pf = (struct pollfd){ .fd = pfd[0], .events = POLLIN };
	/* bounded: the check's own MAX_SECONDS and some */
	while (n + 1 < sizeof(out) && poll(&pf, 1, 30000) > 0) {
		ssize_t r = read(pfd[0], out + n, sizeof(out) - 1 - n);

		if (r <= 0)
			break;
		n += (size_t)r;
	}
	out[n] = '\0';
	close(pfd[0]);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "cluster %255s", cluster) == 1 ||
		    sscanf(line, "slurm.conf %4095s", ctl_conf) == 1 ||
		    sscanf(line, "extra.conf %4095s", extra) == 1 ||
		    sscanf(line, "limits %zu %zu %zu %zu", &lim[0], &lim[1],
			   &lim[2], &lim[3]) == 4)
			continue;
		snprintf(last, sizeof(last), "%s", line);
	}
	if (!*cluster) {
		printf("  set   the check at start reads slurmctld's configuration: run as slurmctld runs it (without SLURM_CONF) it reads none (%s); it then lets every job start unchecked: run it from a wrapper that sets SLURM_CONF (and SLURM_EXTRA_CONF), as PrologSlurmctld\n",
		       *last ? last : "no answer within 30 s");
		return;
	}
	if (strcmp(cluster, conf->cluster_name ? conf->cluster_name : "")) {
		printf("  set   the check at start reads slurmctld's configuration: run as slurmctld runs it, it reaches cluster %s, not %s: run it from a wrapper that sets SLURM_CONF\n",
		       cluster, conf->cluster_name ? conf->cluster_name : "");
		return;
	}
	ctld_extra_conf(conf, &want, want_path, sizeof(want_path));
	if (strcmp(extra, want_path) != 0 &&
	    (lim[0] != want.limits.max_request_length ||
	     lim[1] != want.limits.max_depth ||
	     lim[2] != want.limits.max_extra_length ||
	     lim[3] != want.limits.max_extra_depth)) {
		printf("  set   the check at start reads the extra.conf of slurmctld's plugin: it reads %s, with other limits than %s: set SLURM_EXTRA_CONF in its wrapper\n",
		       extra, want_path);
		return;
	}
	printf("  ok    the check at start reads slurmctld's configuration (%s) and extra.conf limits\n",
	       ctl_conf);
	return;
cannot:
	printf("  check the check at start: cannot run it here: %s\n",
	       strerror(errno));
}

int cmd_doctor(const struct opts *o)
{
	slurm_conf_t *conf = NULL;
	node_info_msg_t *nodes = NULL;
	job_info_msg_t *jobs = NULL;
	uint32_t with_extra = 0, pending = 0, requests = 0, planned = 0;
	uint32_t narrowed = 0, narrowed_id = 0;
	bool plugin, own, can_own, by_guard;
	int guard_loads = 0;
	const char *prolog_other;
	struct plugin_config settings;
	char check[1024], settings_path[4096];
	char buf[64], last[512];
	const char *delay;
	double behind, est_s;
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
		if (state)
			sx_job_state_free(&st);
		requests += state || (extra && *extra);
		planned += state;
	}
	plugin = sx_list_has_word(conf->job_submit_plugins, "extra");
	/* Slurm's own filter: 23.11 and later (before, the word is ignored
	 * and the plugin filters) */
	can_own = strverscmp(conf->version ? conf->version : "0", "23.11") >= 0;
	own = can_own &&
	      sx_list_has_word(conf->sched_params, "extra_constraints");
	delay = param_value(conf->sched_params, "batch_sched_delay", buf,
			    sizeof(buf));
	ctld_extra_conf(conf, &settings, settings_path, sizeof(settings_path));
	/* Carrier=guard without the guard: job_submit/extra filters with
	 * Carrier=features (its init()) */
	by_guard = plugin && !own && settings.carrier_guard &&
		   sx_list_has_word(conf->bb_type, "extra");

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
		       ? "the plugin's (filter mode: job_submit/extra gives each job an ExcNodeList)"
		       : "none: --extra is stored, and nothing filters by it");
	printf("nodes: %u, %u with an Extra\n", nodes->record_count,
	       with_extra);
	printf("pending jobs: %u, %u with a request (%u filtered by the plugin)%s\n",
	       pending, requests, planned,
	       (conf->private_data & PRIVATE_DATA_JOBS) && getuid() != 0 &&
			       getuid() != conf->slurm_user_id
		       ? "; PrivateData=jobs: only the jobs Slurm shows you"
		       : "");
	if (plugin && own) { /* who keeps the preferences there */
		printf("preferences: %s",
		       settings.carrier_guard &&
				       sx_list_has_word(conf->bb_type, "extra")
			       ? "kept by burst_buffer/extra at each placement"
			       : "refused: where Slurm filters, --extra-prefer needs BurstBufferType=burst_buffer/extra with Carrier=guard");
		if (!settings.found)
			printf(" (by the defaults: no %s read here)",
			       settings_path);
		putchar('\n');
	}
	if (narrowed) /* (what the caller may see: the line above) */
		printf("leftover: %u pending job%s (the first: job %u) keep%s the Extra an earlier release's thread narrowed to a preference: burst_buffer/extra alone (Carrier=guard) gives it back at its look's next walk, else scontrol update job=ID extra=<the request= of its AdminComment>\n",
		       narrowed, narrowed == 1 ? "" : "s", narrowed_id,
		       narrowed == 1 ? "s" : "");
	if (!plugin || own) {
		/* no thread filters */
	} else if (by_guard) {
		printf("the plugin's thread: none (Carrier=guard)\n");
	} else if (log_rounds(conf->slurmctld_logfile, last, sizeof(last),
			      &behind)) {
		fputs("the plugin's thread: ", stdout);
		if (*last) /* a line of the log, which quotes users' text */
			put_text(stdout, last);
		else
			fputs("no round in the log's last MiB (a round is logged when it sends updates, at SlurmctldDebug=verbose)",
			      stdout);
		putchar('\n');
		if (behind > 0)
			printf("the plugin's thread fell %.1f s behind the node data at most (the log's last MiB)\n",
			       behind);
	} else if (!conf->slurmctld_logfile) {
		printf("the plugin's thread: slurmctld logs to syslog (no SlurmctldLogFile): see its job_submit/extra lines there\n");
	} else {
		printf("the plugin's thread: slurmctld's log is not readable here\n");
	}

	printf("settings:\n");
	setting(plugin, "JobSubmitPlugins=extra",
		"every request is checked at submission, with errors that point at the mistake (and slurmctld 23.11.0-23.11.6 dies on a request with an unbalanced ')')",
		NULL);
	/* where the plugin filters, and wherever BurstBufferType names the
	 * guard (a file for another Slurm stops slurmctld in every mode) */
	if ((plugin && !own) || sx_list_has_word(conf->bb_type, "extra"))
		guard_loads = guard_setting(conf);
	if (plugin && !own && settings.carrier_guard && !by_guard)
		printf("  set   Carrier=guard (%s) needs BurstBufferType=burst_buffer/extra: without it job_submit/extra filters with Carrier=features\n",
		       settings_path);
	if (plugin && !own && guard_loads < 0) {
		printf("  check PrologSlurmctld: keep the check at start until the guard at placement loads, then remove it (run slurm-extra doctor on slurmctld's host, as root or SlurmUser, to tell)\n");
	} else if (plugin && !own && guard_loads > 0) {
		/* beside the guard at placement, the check at start keeps off
		 * only a job the guard could not decide for (its log says
		 * so), and stops a job whose node's Extra changed after its
		 * placement, which Slurm's own filter lets run: it kills an
		 * interactive one (tests/cluster/e2e-churn.sh, doc/guard.md
		 * "The guard at placement") */
		int state = prolog_state(conf, &prolog_other);

		if (state > 0) {
			printf("  check PrologSlurmctld=%s: not needed beside the guard at placement, and it kills an srun job (requeues a batch job) whose node's Extra changed after its placement, which Slurm's own filter lets run: remove it\n",
			       PROLOG_NAME);
			/* kept anyway, what it reads */
			probe_check(conf);
		} else if (state < 0)
			printf("  check PrologSlurmctld is %s: beside the guard at placement it need not run %s (which kills an srun job whose node's Extra changed after its placement)\n",
			       prolog_other ? prolog_other : "", PROLOG_NAME);
		else
			printf("  ok    PrologSlurmctld: no check at start, none needed beside the guard at placement\n");
	} else if (plugin && !own) {
		int state = prolog_state(conf, &prolog_other);

		snprintf(
			check, sizeof(check),
			"PrologSlurmctld is %s: it should run %s (doc/install.md)",
			prolog_other ? prolog_other : "", PROLOG_NAME);
		setting(state, "PrologSlurmctld=" PROLOG_NAME,
			"the check at start keeps a job off a node whose Extra stopped satisfying it between the thread's rounds",
			check);
		if (state > 0)
			probe_check(conf);
	}
	if (plugin && !own) {
		setting(delay && strtol(delay, NULL, 10) == 0,
			"SchedulerParameters=batch_sched_delay=0",
			"waiting jobs start within about a second of a node coming to match",
			NULL);
	}

	/* Which filter (doc/benchmarks.md): Slurm's own evaluates every
	 * pending request on every node in each scheduling pass. */
	est_s = (double)requests * nodes->record_count * OWN_US_PER_JOB_NODE /
		1e6;
	printf("recommended: ");
	if (!can_own)
		printf("filter mode: Slurm %s has no filter of its own (23.11 and later have)\n",
		       conf->version ? conf->version : "");
	else if (est_s >= 0.5)
		printf("filter mode: Slurm's own filter would spend about %.1f s of each scheduling pass on %u requests over %u nodes (0.6 us each), and its scheduler stops at max_sched_time; filter mode does that work once per change of the node data\n",
		       est_s, requests, nodes->record_count);
	else
		printf("Slurm's own filter (extra_constraints, with JobSubmitPlugins=extra checking requests): about %.2f s of each scheduling pass for %u requests over %u nodes, it sees a change of Extra at once, and it needs no thread nor ExcNodeLists; filter mode pays off from about 0.5 s\n",
		       est_s, requests, nodes->record_count);
	rc = 0;
out:
	sx_free_job_info_msg(jobs);
	sx_free_node_info_msg(nodes);
	sx_free_ctl_conf(conf);
	return rc;
}
