/*
 * facts_hook.c - running one hook of the site directory (facts_hook.h;
 * doc/facts.md "Site facts"): a clean child in its own process group,
 * its output read until a deadline, the whole group killed when the
 * deadline passes, so that a hook that hangs, or leaves a child holding
 * its output open, costs at most its timeout.
 */
#define _GNU_SOURCE /* pipe2, environ */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "facts_hook.h"
#include "facts_json.h"

/* The child's side of facts_run_hook(): a clean process running the file
 * `hook` (a descriptor: the file that was checked, whatever has the path
 * `path` by now; a script's interpreter reads it as /dev/fd/N, so it is
 * left open across the exec) with stdin /dev/null, stdout `out`, stderr
 * ours, in its own process group, killed when the command dies (so a
 * hook cannot outlive a command that slurmd's HealthCheckProgram limit
 * killed).  On failure writes errno to `err` (close-on-exec: the parent
 * reads nothing when exec succeeds). */
static void hook_child(int hook, const char *path, int out, int err,
		       pid_t parent)
{
	char *argv[] = { (char *)path, NULL };
	struct sigaction dfl;
	sigset_t none;
	int fd, e;
	long max = sysconf(_SC_OPEN_MAX);

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, &dfl, NULL); /* SIGKILL, SIGSTOP: refused */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	if ((fd = open("/dev/null", O_RDONLY)) < 0 ||
	    dup2(fd, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0)
		goto fail;
	/* nothing of the command's but stdin, stdout, stderr and `err` */
	for (int i = 3; i < (max > 0 && max < 65536 ? max : 65536); i++)
		if (i != err && i != hook)
			close(i);
	if (fcntl(hook, F_SETFD, 0) != 0)
		goto fail;
	fexecve(hook, argv, environ);
fail:
	e = errno;
	if (write(err, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* Kills the process group of hook `pid` and reaps the hook. */
static void kill_hook(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

char *facts_run_hook(int hook, const char *path, long long deadline,
		     int timeout_s, size_t *len, char *why, size_t size)
{
	int fds[2] = { -1, -1 }, errp[2] = { -1, -1 }, e = 0;
	struct sigaction dfl, old;
	char *buf;
	pid_t pid;
	bool eof = false;
	siginfo_t info;

	*len = 0;
	if (!(buf = malloc(FACTS_SITE_MAX_BYTES + 2))) {
		snprintf(why, size, "out of memory");
		return NULL;
	}
	/* a caller that ignores SIGCHLD would have its children reaped */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGCHLD, &dfl, &old);
	if (pipe2(fds, O_CLOEXEC) != 0 || pipe2(errp, O_CLOEXEC) != 0 ||
	    (pid = fork()) < 0) {
		snprintf(why, size, "cannot run it: %s", strerror(errno));
		for (int i = 0; i < 2; i++) {
			if (fds[i] >= 0)
				close(fds[i]);
			if (errp[i] >= 0)
				close(errp[i]);
		}
		goto fail;
	}
	if (pid == 0) {
		free(buf);
		hook_child(hook, path, fds[1], errp[1], getppid());
	}
	setpgid(pid, pid); /* so that kill(-pid) reaches it at once */
	close(fds[1]);
	close(errp[1]);
	if (read(errp[0], &e, sizeof(e)) == (ssize_t)sizeof(e)) {
		close(errp[0]);
		close(fds[0]);
		kill_hook(pid);
		snprintf(why, size, "cannot be run: %s", strerror(e));
		goto fail;
	}
	close(errp[0]);
	while (!eof) {
		struct pollfd p = { fds[0], POLLIN, 0 };
		long long left = deadline - facts_now_ms();
		ssize_t got;

		if (left <= 0) {
			kill_hook(pid);
			close(fds[0]);
			snprintf(
				why, size,
				"did not finish within %d s, or left a process holding its output open (killed)",
				timeout_s);
			goto fail;
		}
		if (poll(&p, 1, (int)(left > 1000 ? 1000 : left)) <= 0)
			continue;
		got = read(fds[0], buf + *len, FACTS_SITE_MAX_BYTES + 1 - *len);
		if (got > 0 && (*len += (size_t)got) > FACTS_SITE_MAX_BYTES) {
			kill_hook(pid);
			close(fds[0]);
			snprintf(why, size,
				 "printed more than %d bytes (killed)",
				 FACTS_SITE_MAX_BYTES);
			goto fail;
		}
		eof = got == 0 ||
		      (got < 0 && errno != EINTR && errno != EAGAIN);
	}
	close(fds[0]);
	/* the output is closed: the hook has until the deadline to exit.
	 * WNOWAIT: it stays a zombie, so its process group cannot be reused
	 * before the group is killed below */
	for (;;) {
		memset(&info, 0, sizeof(info));
		if (waitid(P_PID, (id_t)pid, &info,
			   WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    info.si_pid == pid)
			break;
		if (facts_now_ms() >= deadline) {
			kill_hook(pid);
			snprintf(why, size,
				 "did not finish within %d s (killed)",
				 timeout_s);
			goto fail;
		}
		usleep(10000);
	}
	kill(-pid, SIGKILL); /* what it left behind in its group */
	kill_hook(pid);	     /* reaped */
	sigaction(SIGCHLD, &old, NULL);
	if (info.si_code != CLD_EXITED || info.si_status != 0) {
		if (info.si_code == CLD_EXITED)
			snprintf(why, size, "exited with status %d",
				 info.si_status);
		else
			snprintf(why, size, "was killed by signal %d",
				 info.si_status);
		free(buf);
		return NULL;
	}
	buf[*len] = '\0';
	if (*len == 0 || strlen(buf) != *len) {
		snprintf(why, size,
			 *len ? "printed a NUL byte" : "printed nothing");
		free(buf);
		return NULL;
	}
	return buf;
fail:
	sigaction(SIGCHLD, &old, NULL);
	free(buf);
	return NULL;
}
