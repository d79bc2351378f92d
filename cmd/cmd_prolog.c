/*
 * cmd_prolog.c - the command prolog-slurmctld: the check at start
 * (doc/thread.md "The check at start").  Run by slurmctld as its
 * PrologSlurmctld (under the name slurm-extra-prolog-slurmctld, since
 * slurmctld passes no arguments) when it has allocated nodes to a job and
 * before the job starts on them: when one of the job's nodes does not
 * satisfy the job's request as the node's Extra is now, it says so and
 * exits 1, and Slurm puts the job back to waiting (a batch job is
 * requeued; an interactive one, which Slurm cannot requeue, is killed:
 * prep_prolog_slurmctld_callback(), src/slurmctld/prep_slurmctld.c).
 *
 * Its messages go to stderr and to syslog (LOG_DAEMON, "slurm-extra"):
 * slurmctld keeps a PrologSlurmctld's output nowhere (slurmscriptd reads it
 * and drops it).
 *
 * What it reads: the job's id and nodes from slurmctld's environment for
 * the program (SLURM_JOB_ID, SLURM_JOB_NODELIST: job_common_env_vars(),
 * src/slurmctld/job_mgr.c, every version 22.05 to 26.05; it runs only with
 * SLURM_SCRIPT_CONTEXT=prolog_slurmctld, which slurmctld sets:
 * src/plugins/prep/script/prep_script_slurmctld.c: a guard against
 * running it by hand inside a job, not a security boundary), whether the
 * plugin filters the job (its AdminComment state: slurm_load_job()), the
 * request (on 23.02 and later the job's own, SLURM_JOB_EXTRA, which the
 * thread reads too: refilter.c; a job without it has no request and is let
 * go without an RPC; on 22.05 the state's), and each of its nodes' Extra
 * (slurm_load_node_single(), or one slurm_load_node() for a job of more
 * than MAX_SINGLE nodes, of which only the job's nodes are read).  The
 * request and the Extra are read with extra.conf's limits, as the plugin
 * reads them.
 *
 * Bounds: the whole check ends within MAX_SECONDS (then exit 0, or 1 if a
 * node was already found not to satisfy the request: a PrologSlurmctld
 * that PrologEpilogTimeout kills counts as failed, and would requeue the
 * job; that message goes to stderr only); a job Slurm has restarted
 * MAX_RESTARTS times (SLURM_JOB_RESTART_COUNT) is let go with a warning,
 * so that a check that disagrees with the thread for good cannot requeue
 * a job forever.
 *
 * Exit status: 1 only when it has read the job and a node and seen that
 * the node does not satisfy the request.  Anything that keeps it from
 * telling (no slurm.conf where libslurm looks, slurmctld not answering, a
 * job it cannot read, a request or a node name it cannot read, a node's
 * Extra over this check's limits, libslurm's fatal(), which exits 1, or
 * a crash) is said on stderr and to syslog and exits 0: the job goes on
 * as it would without the check; a check that cannot read would
 * otherwise requeue every job of a loaded controller.  So that fatal()
 * and crashes cannot decide, the RPCs and the comparison run in a child
 * process, which tells the parent of a mismatch through a pipe.
 */
#define _GNU_SOURCE /* localtime_r */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "job_state.h"
#include "plugin_config.h"
#include "slurm_compat.h"
#include "slurm_hostlist.h"
#include "slurm_nodes.h"
#include "xc_util.h"

/* A job on more nodes than this reads all nodes in one RPC, rather than
 * one RPC a node. */
#define MAX_SINGLE 32

/* Exit statuses of the program slurmctld runs. */
#define PROLOG_GO 0
#define PROLOG_REQUEUE 1

/* The bounds (above). */
#define MAX_SECONDS 20
#define MAX_RESTARTS 10

/* What the check ends with when MAX_SECONDS pass: PROLOG_GO, or
 * PROLOG_REQUEUE once a node was found not to satisfy the request (the
 * note being written then); and what it says then (with the job's id),
 * made before the alarm: the handler only write()s and _exit()s. */
static volatile sig_atomic_t verdict = PROLOG_GO;
static char late[160];
/* The process that checks (check_isolated()), killed with the check when
 * MAX_SECONDS pass; 0 when none. */
static volatile pid_t child;

/* Says "slurm-extra: prolog-slurmctld: ..." on stderr and to syslog at
 * `priority`, escaped as every message (put_message). */
__attribute__((format(printf, 2, 3))) static void tell(int priority,
						       const char *fmt, ...)
{
	char line[1024], *shown = NULL;
	struct xc_text t;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (xc_text_open(&t)) {
		put_message(t.out, line);
		shown = xc_text_close(&t);
	}
	fprintf(stderr, "%s: prolog-slurmctld: %s\n", prog,
		shown ? shown : "out of memory");
	syslog(priority, "prolog-slurmctld: %s",
	       shown ? shown : "out of memory");
	free(shown);
}

/* extra.conf's bad lines (plugin_config_read). */
static void complain(const char *message)
{
	tell(LOG_WARNING, "extra.conf: %s", message);
}

/* MAX_SECONDS passed: the job goes on unchecked (exit 0), before
 * PrologEpilogTimeout can count the check as failed, unless a node was
 * already found not to satisfy the request.  Only write() and _exit()
 * here (async-signal-safe), so the message goes to stderr alone. */
static void out_of_time(int sig)
{
	(void)sig;
	if (child > 0)
		kill(child, SIGKILL);
	(void)!write(STDERR_FILENO, late, strlen(late));
	_exit(verdict);
}

/* Arms the MAX_SECONDS alarm for job `jid`.  SIGALRM is unblocked first:
 * slurmctld 22.05 to 24.05 block it before forking the process that runs
 * PrologSlurmctld (controller.c), and the mask is inherited through
 * exec. */
static void arm_alarm(unsigned long jid)
{
	struct sigaction sa;
	sigset_t set;

	snprintf(
		late, sizeof(late),
		"%s: prolog-slurmctld: job %lu: no answer within %d s: not checked\n",
		prog, jid, MAX_SECONDS);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = out_of_time;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	alarm(MAX_SECONDS);
}

/* sx_hostlist_walk()'s step: adds node `name` (its own RPC) to the table
 * `arg`.  0, or -1 after saying why. */
static int add_one(const char *name, void *arg)
{
	xc_nodes_t *t = arg;
	node_info_msg_t *msg = NULL;
	xc_error_t err;
	int rc = 0;

	if (slurm_load_node_single(&msg, (char *)name, SHOW_ALL) !=
		    SLURM_SUCCESS ||
	    !msg) {
		tell(LOG_WARNING, "cannot read node %s: %s", name,
		     slurm_strerror(sx_slurm_errno()));
		return -1;
	}
	if (sx_nodes_add_msg(t, msg, &err) < 0) {
		tell(LOG_WARNING, "node %s: %s", name, err.message);
		rc = -1;
	}
	sx_free_node_info_msg(msg);
	return rc;
}

/* Adds to `t` the nodes of `msg` (every node of the cluster) that `hl`
 * names, with their Extra; the others are not read.  0, or -1 after saying
 * why (a node of the list not in the cluster, out of memory). */
static int add_listed(xc_nodes_t *t, const node_info_msg_t *msg,
		      sx_hostlist_t hl, int count)
{
	xc_error_t err;
	int found = 0;

	for (uint32_t i = 0; i < msg->record_count; i++) {
		const node_info_t *n = &msg->node_array[i];

		if (!n->name || slurm_hostlist_find(hl, n->name) < 0)
			continue;
		if (xc_nodes_add(t, n->name, n->extra, NULL, &err) < 0) {
			tell(LOG_WARNING, "node %s: %s", n->name, err.message);
			return -1;
		}
		found++;
	}
	if (found < count) {
		tell(LOG_WARNING,
		     "%d of the job's %d nodes are not in the cluster",
		     count - found, count);
		return -1;
	}
	return 0;
}

/* Reads the Extra of the nodes of `hostlist` (SLURM_JOB_NODELIST) into
 * `t`, those nodes alone: one RPC a node, or (more than MAX_SINGLE, or
 * than $SLURM_EXTRA_PROLOG_SINGLE_MAX: for the tests, whose cluster is
 * small) one for all.  0, or -1 after saying why. */
static int load_nodes(const char *hostlist, xc_nodes_t *t)
{
	sx_hostlist_t hl = slurm_hostlist_create(hostlist);
	const char *max_env = getenv("SLURM_EXTRA_PROLOG_SINGLE_MAX");
	long max = max_env ? strtol(max_env, NULL, 10) : MAX_SINGLE;
	node_info_msg_t *msg = NULL;
	int count, rc = -1;

	if (!hl) {
		tell(LOG_WARNING, "'%s' is not a hostlist", hostlist);
		return -1;
	}
	slurm_hostlist_uniq(hl);
	count = slurm_hostlist_count(hl);
	if (count <= max) {
		rc = sx_hostlist_walk(hl, add_one, t) == 0 ? 0 : -1;
	} else if (slurm_load_node((time_t)0, &msg, SHOW_ALL) !=
		   SLURM_SUCCESS) {
		tell(LOG_WARNING, "cannot read the cluster's nodes: %s",
		     slurm_strerror(sx_slurm_errno()));
	} else {
		rc = add_listed(t, msg, hl, count);
	}
	if (msg)
		sx_free_node_info_msg(msg);
	slurm_hostlist_destroy(hl);
	return rc;
}

/* Puts the note (`lead`: SX_REQUEUE_NOTE, or SX_KILL_NOTE for a job
 * Slurm does not requeue) in front of the job's status (job_state.h), so
 * that the job says why it waits again, or why it ended.  A failure is
 * only said: Slurm requeues or kills the job all the same. */
static void note_requeue(uint32_t jid, const char *comment, const char *node,
			 const char *lead)
{
	struct sx_job_state st = { 0 };
	job_desc_msg_t desc;
	char when[32], why[512], *status = NULL, *text = NULL;
	time_t now = time(NULL);
	struct tm tm;

	if (!sx_job_state_parse(comment, &st))
		return;
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S",
		 localtime_r(&now, &tm));
	snprintf(
		why, sizeof(why),
		"%s no longer satisfied the request when the job was to start (slurm-extra why --job %u)",
		node, jid);
	if ((status = sx_status_with_note(lead, when, why, st.status))) {
		free(st.status);
		st.status = status;
		text = sx_job_state_format(&st);
	}
	if (!text) {
		tell(LOG_WARNING, "job %u: out of memory", jid);
	} else {
		slurm_init_job_desc_msg(&desc);
		SX_DESC_JOB_ID(&desc) = jid;
		desc.admin_comment = text;
		if (slurm_update_job(&desc) != SLURM_SUCCESS)
			tell(LOG_WARNING,
			     "job %u: cannot note why it is stopped: %s", jid,
			     slurm_strerror(sx_slurm_errno()));
	}
	free(text);
	sx_job_state_free(&st);
}

/* Reads job `jid`, its request (`request`, or the one in its state) and
 * the Extra of `nodes`, and compares them: PROLOG_REQUEUE when a node does
 * not satisfy the request (after writing one byte to `verdict_fd`, before
 * the note, so that the verdict stands whatever happens after), else
 * PROLOG_GO after saying why it could not tell, if it could not.  Run in
 * a child process (check_isolated()): libslurm's fatal() exits, and a
 * crash of its kills only the child. */
static int check(unsigned long jid, const char *nodes, const char *request,
		 int verdict_fd)
{
	struct plugin_config cfg;
	struct sx_job_state st = { 0 };
	job_info_msg_t *jobs = NULL;
	xc_nodes_t *t = NULL;
	xc_expr_t *e = NULL;
	xc_error_t err;
	char path[4096];
	int rc = PROLOG_GO;

	slurm_init(NULL);
	if (sx_load_job(&jobs, (uint32_t)jid, SHOW_ALL) != SLURM_SUCCESS ||
	    !jobs || !jobs->record_count) {
		tell(LOG_WARNING, "cannot read job %lu, not checked: %s", jid,
		     slurm_strerror(sx_slurm_errno()));
		goto out;
	}
	/* a request the plugin filters (with Slurm's own filter, none) */
	if (!sx_job_state_parse(jobs->job_array[0].admin_comment, &st) ||
	    !st.request)
		goto out;
	if (!request)
		request = st.request;
	plugin_config_path(path, sizeof(path));
	plugin_config_read(&cfg, path, complain);
	if (!(e = xc_parse(request, &cfg.limits, &err))) {
		tell(LOG_WARNING,
		     "job %lu: its request cannot be read, not checked: %s",
		     jid, err.message);
		goto out;
	}
	if (!(t = xc_nodes_create(&cfg.limits))) {
		tell(LOG_WARNING, "job %lu: out of memory, not checked", jid);
		goto out;
	}
	if (load_nodes(nodes, t) < 0) {
		tell(LOG_WARNING, "job %lu not checked", jid);
		goto out;
	}
	for (size_t i = 0; i < xc_nodes_count(t); i++) {
		const slurm_job_info_t *job = &jobs->job_array[0];
		/* Slurm requeues only a batch job that may be requeued
		 * (_job_requeue_op(), src/slurmctld/job_mgr.c) */
		bool requeued = job->batch_flag && job->requeue;
		xc_extra_state_t why = xc_nodes_state(t, i);

		if (xc_match(e, xc_nodes_extra(t, i)))
			continue;
		/* Over this check's limits: slurmctld may read the node with
		 * other ones (another extra.conf), so nothing is known of
		 * it; the job's other nodes are still checked */
		if (why == XC_EXTRA_TOO_LONG || why == XC_EXTRA_TOO_DEEP) {
			tell(LOG_WARNING,
			     "job %lu: node %s's Extra is %s (extra.conf: %s): not checked (slurm-extra doctor tells whether this check reads the extra.conf slurmctld reads)",
			     jid, xc_nodes_name(t, i), xc_extra_state_text(why),
			     path);
			continue;
		}
		rc = PROLOG_REQUEUE;
		(void)!write(verdict_fd, "R", 1);
		tell(LOG_NOTICE,
		     "job %lu: node %s does not satisfy its request; %s", jid,
		     xc_nodes_name(t, i),
		     requeued
			     ? "the job waits again"
			     : "Slurm kills the job (it requeues only batch jobs)");
		note_requeue((uint32_t)jid, job->admin_comment,
			     xc_nodes_name(t, i),
			     requeued ? SX_REQUEUE_NOTE : SX_KILL_NOTE);
		break;
	}
out:
	xc_nodes_destroy(t);
	xc_expr_destroy(e);
	sx_job_state_free(&st);
	if (jobs)
		sx_free_job_info_msg(jobs);
	return rc;
}

/* Keeps in `last` (`size` bytes) the last non-empty line of a text
 * read in pieces: `p`, `n` bytes, is the next piece; `*len` is how much
 * of the line being read `last` holds (0 between lines). */
static void keep_last_line(char *last, size_t size, size_t *len, const char *p,
			   size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '\n') {
			*len = 0; /* the line stays until another begins */
			continue;
		}
		if (*len == 0)
			last[0] = '\0';
		if (*len + 1 < size) {
			last[(*len)++] = p[i];
			last[*len] = '\0';
		}
	}
}

/* check() in a child process, whose messages (libslurm's included) are
 * passed on to stderr.  PROLOG_REQUEUE only when the child said a node
 * does not satisfy the request; any other end of the child (no
 * configuration, libslurm's fatal(), a crash) is PROLOG_GO, said on stderr
 * and to syslog with the child's last words. */
static int check_isolated(unsigned long jid, const char *nodes,
			  const char *request)
{
	int vp[2], ep[2], status = 0;
	char buf[512], last[256] = "";
	size_t len = 0;
	struct pollfd fds[2];
	struct sigaction dfl;
	sigset_t alrm;
	pid_t pid, reaped;

	if (pipe2(vp, O_CLOEXEC) != 0) {
		tell(LOG_WARNING, "job %lu: cannot make a pipe, not checked",
		     jid);
		return PROLOG_GO;
	}
	if (pipe2(ep, O_CLOEXEC) != 0) {
		close(vp[0]);
		close(vp[1]);
		tell(LOG_WARNING, "job %lu: cannot make a pipe, not checked",
		     jid);
		return PROLOG_GO;
	}
	/* an inherited SIGCHLD ignored would reap the child itself, and
	 * its end would be lost */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGCHLD, &dfl, NULL);
	/* the alarm's handler kills `child`: never a pid not (or no longer)
	 * ours */
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	sigprocmask(SIG_BLOCK, &alrm, NULL);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		sigprocmask(SIG_UNBLOCK, &alrm, NULL);
		close(vp[0]);
		close(vp[1]);
		close(ep[0]);
		close(ep[1]);
		tell(LOG_WARNING, "job %lu: cannot fork, not checked", jid);
		return PROLOG_GO;
	}
	if (pid == 0) {
		sigprocmask(SIG_UNBLOCK, &alrm, NULL);
		close(vp[0]);
		close(ep[0]);
		dup2(ep[1], STDERR_FILENO);
		check(jid, nodes, request, vp[1]);
		fflush(NULL);
		_exit(0);
	}
	child = pid;
	sigprocmask(SIG_UNBLOCK, &alrm, NULL);
	close(vp[1]);
	close(ep[1]);
	fds[0] = (struct pollfd){ .fd = vp[0], .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = ep[0], .events = POLLIN };
	while (fds[0].fd >= 0 || fds[1].fd >= 0) {
		if (poll(fds, 2, -1) < 0)
			continue; /* EINTR: the alarm's handler exits */
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (fds[i].fd < 0 || !fds[i].revents)
				continue;
			n = read(fds[i].fd, buf, sizeof(buf));
			if (n <= 0) {
				close(fds[i].fd);
				fds[i].fd = -1;
			} else if (i == 0) {
				if (memchr(buf, 'R', (size_t)n))
					verdict = PROLOG_REQUEUE;
			} else {
				(void)!write(STDERR_FILENO, buf, (size_t)n);
				keep_last_line(last, sizeof(last), &len, buf,
					       (size_t)n);
			}
		}
	}
	sigprocmask(SIG_BLOCK, &alrm, NULL);
	while ((reaped = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	child = 0;
	sigprocmask(SIG_UNBLOCK, &alrm, NULL);
	if (verdict == PROLOG_REQUEUE)
		return PROLOG_REQUEUE;
	if (reaped != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char how[64];

		if (reaped != pid)
			snprintf(how, sizeof(how), "its end unknown: %s",
				 strerror(errno));
		else if (WIFSIGNALED(status))
			snprintf(how, sizeof(how), "killed by signal %d",
				 WTERMSIG(status));
		else
			snprintf(how, sizeof(how), "exit status %d",
				 WEXITSTATUS(status));
		tell(LOG_WARNING,
		     "job %lu: the check could not tell (%s%s%s), the job goes on unchecked%s",
		     jid, how, *last ? ": " : "", last,
		     getenv("SLURM_CONF")
			     ? ""
			     : "; slurmctld gives its PrologSlurmctld no SLURM_CONF: where slurm.conf is not at libslurm's default path, run the check from a wrapper that sets SLURM_CONF (slurm-extra doctor tells)");
	}
	return PROLOG_GO;
}

/* With SLURM_EXTRA_PROLOG_PROBE set (slurm-extra doctor runs the check so,
 * in the environment slurmctld gives it): what the check would read,
 * "cluster NAME", "slurm.conf PATH" (slurmctld's, as it answers),
 * "extra.conf PATH", "limits REQUEST DEPTH EXTRA EXTRA_DEPTH", a line
 * each on stdout; exit 0.  libslurm's fatal() exits 1 when it finds no
 * configuration. */
static int probe(void)
{
	slurm_conf_t *conf = NULL;
	struct plugin_config cfg;
	char path[4096];

	slurm_init(NULL);
	if (slurm_load_ctl_conf((time_t)0, &conf) != SLURM_SUCCESS) {
		fprintf(stderr,
			"%s: prolog-slurmctld: cannot reach slurmctld: %s\n",
			prog, slurm_strerror(sx_slurm_errno()));
		return 1;
	}
	plugin_config_path(path, sizeof(path));
	plugin_config_read(&cfg, path, NULL);
	printf("cluster %s\nslurm.conf %s\nextra.conf %s\nlimits %zu %u %zu %u\n",
	       conf->cluster_name ? conf->cluster_name : "",
	       conf->slurm_conf ? conf->slurm_conf : "", path,
	       cfg.limits.max_request_length, cfg.limits.max_depth,
	       cfg.limits.max_extra_length, cfg.limits.max_extra_depth);
	sx_free_ctl_conf(conf);
	return 0;
}

int cmd_prolog(const struct opts *o)
{
	const char *id = getenv("SLURM_JOB_ID");
	const char *nodes = getenv("SLURM_JOB_NODELIST");
	const char *context = getenv("SLURM_SCRIPT_CONTEXT");
	const char *restarts = getenv("SLURM_JOB_RESTART_COUNT");
	const char *request = NULL;
	char *end;
	unsigned long jid;
	int rc = PROLOG_GO;

	(void)o;
	/* slurmctld's own variables (prep_script_slurmctld.c), not those of
	 * a job this is run by hand inside */
	if (!context || strcmp(context, "prolog_slurmctld") != 0) {
		say("prolog-slurmctld: run by slurmctld as PrologSlurmctld (SLURM_SCRIPT_CONTEXT is not prolog_slurmctld)");
		return PROLOG_GO;
	}
	if (getenv("SLURM_EXTRA_PROLOG_PROBE"))
		return probe();
	openlog("slurm-extra", LOG_PID, LOG_DAEMON);
	jid = id ? strtoul(id, &end, 10) : 0;
	if (!id || !*id || *end || jid == 0 || jid > UINT32_MAX || !nodes ||
	    !*nodes) {
		tell(LOG_WARNING,
		     "SLURM_JOB_ID or SLURM_JOB_NODELIST unset: nothing checked");
		closelog();
		return PROLOG_GO;
	}
#if SX_SLURM_HAS_EXTRA_OPTION
	request = getenv("SLURM_JOB_EXTRA");
	if (!request || !*request) { /* no request: nothing to check */
		closelog();
		return PROLOG_GO;
	}
#endif
	arm_alarm(jid);
	if (restarts && strtol(restarts, NULL, 10) >= MAX_RESTARTS)
		tell(LOG_WARNING,
		     "job %lu restarted %s times: let go without the check",
		     jid, restarts);
	else
		rc = check_isolated(jid, nodes, request);
	alarm(0);
	closelog();
	return rc;
}
