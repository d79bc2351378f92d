/*
 * facts_path.c - the owner and mode checks of what the facts command
 * reads, runs or writes through a path (facts_path.h): the state of
 * --publish and the directories above it (doc/facts.md "Publishing").
 */
#define _GNU_SOURCE /* O_PATH */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "facts_path.h"

int facts_check_owned(int fd, const char *label, mode_t type, mode_t forbidden,
		      bool sticky_ok, const char *must, char *err)
{
	struct stat st;

	if (fstat(fd, &st) != 0) {
		snprintf(err, FACTS_ERR_SIZE, "%s: %s", label, strerror(errno));
		return -1;
	}
	if (sticky_ok && (st.st_mode & S_ISVTX))
		forbidden = 0;
	if ((st.st_mode & S_IFMT) != type ||
	    (st.st_uid != 0 && st.st_uid != geteuid()) ||
	    (st.st_mode & forbidden)) {
		snprintf(err, FACTS_ERR_SIZE,
			 "%s: owned by uid %u with mode %04o: it must be %s",
			 label, (unsigned)st.st_uid,
			 (unsigned)(st.st_mode & 07777), must);
		return -1;
	}
	return 0;
}

/* Whether directory `fd` (`path` in messages), a directory above `what`,
 * is safe to go through (facts_check_owned(): sticky ones may be
 * writable by others).  0, or -1 with `err`. */
static int check_above(int fd, const char *path, const char *what, char *err)
{
	char label[FACTS_ERR_SIZE];

	snprintf(label, sizeof(label), "%.300s, above %.100s", path, what);
	return facts_check_owned(
		fd, label, S_IFDIR, S_IWGRP | S_IWOTH, true,
		"this user's or root's and writable by no one else (or sticky, as /tmp), as each directory above it must be",
		err);
}

int facts_open_above(const char *path, const char *subject, const char *what,
		     char *buf, const char **base, char *err)
{
	char resolved[PATH_MAX], *slash, *save = NULL;
	const char *parent;
	int fd, next;

	if (strlen(path) >= PATH_MAX) {
		snprintf(err, FACTS_ERR_SIZE, "%.300s: a path too long",
			 subject);
		return -1;
	}
	strcpy(buf, path);
	for (size_t n = strlen(buf); n > 1 && buf[n - 1] == '/';)
		buf[--n] = '\0';
	slash = strrchr(buf, '/');
	*base = slash ? slash + 1 : buf;
	/* "." or "..": its name, from its resolved path */
	if ((!strcmp(*base, ".") || !strcmp(*base, "..")) &&
	    realpath(path, resolved)) {
		strcpy(buf, resolved);
		slash = strrchr(buf, '/');
	}
	parent = !slash ? "." : slash == buf ? "/" : buf;
	if (slash)
		*slash = '\0';
	*base = slash ? slash + 1 : buf;
	if (!**base || !strcmp(*base, ".") || !strcmp(*base, "..")) {
		snprintf(err, FACTS_ERR_SIZE, "%.300s: not a directory's name",
			 subject);
		return -1;
	}
	if (!realpath(parent, resolved)) {
		snprintf(err, FACTS_ERR_SIZE, "%.300s: %s", subject,
			 strerror(errno));
		return -1;
	}
	if ((fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    check_above(fd, "/", what, err) != 0)
		goto fail;
	for (char *c = strtok_r(resolved, "/", &save); c;
	     c = strtok_r(NULL, "/", &save)) {
		next = openat(fd, c,
			      O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = next;
		if (c != resolved + 1)
			c[-1] = '/'; /* the path so far, for messages */
		if (fd < 0) {
			snprintf(err, FACTS_ERR_SIZE,
				 "%.300s, above %.100s: %s", resolved, what,
				 strerror(errno));
			return -1;
		}
		if (check_above(fd, resolved, what, err) != 0)
			goto fail;
	}
	return fd;
fail:
	if (fd >= 0)
		close(fd);
	else
		snprintf(err, FACTS_ERR_SIZE, "/: %s", strerror(errno));
	return -1;
}
