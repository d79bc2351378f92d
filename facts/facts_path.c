/*
 * facts_path.c - the owner and mode checks of what the facts command
 * reads, runs or writes through a path (facts_path.h): the state of
 * --publish and the directories above it (doc/facts.md "Publishing"),
 * the site directory, the directories above it, and those its entries'
 * links lead through (doc/facts.md "Site facts").
 */
#define _GNU_SOURCE /* O_PATH */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "facts_path.h"

/* The most links one walk follows: the kernel's MAXSYMLINKS. */
#define MAX_LINKS 40

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

/* Writes "SUBJECT: " (when the walk has a subject) and then `fmt` into
 * `err`; returns -1. */
static int walk_fail(const struct facts_walk *w, char *err, const char *fmt,
		     ...)
{
	int n = 0;
	va_list ap;

	if (w->subject)
		n = snprintf(err, FACTS_ERR_SIZE, "%.300s: ", w->subject);
	va_start(ap, fmt);
	vsnprintf(err + n, FACTS_ERR_SIZE - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Checks directory `fd` (w->dir) before a name is looked up in it:
 * facts_check_owned(), sticky ones allowed unless it holds the last name
 * of a strict walk.  0, or -1 with `err`. */
static int check_dir(const struct facts_walk *w, int fd, bool holds_last,
		     char *err)
{
	char label[FACTS_ERR_SIZE];
	bool strict = holds_last && w->strict;
	int n = 0;

	if (w->subject)
		n = snprintf(label, sizeof(label), "%.300s: ", w->subject);
	snprintf(label + n, sizeof(label) - (size_t)n, "%.300s, %s %.100s",
		 w->dir, strict ? "which holds" : "above", w->what);
	return facts_check_owned(
		fd, label, S_IFDIR, S_IWGRP | S_IWOTH, !strict,
		strict ? "this user's or root's and writable by no one else, as the site directory must be"
		       : "this user's or root's and writable by no one else (or sticky, as /tmp), as each directory above it must be",
		err);
}

/* Makes `fd` (w->dir) the walk's place "/", which it checks first: 0, or
 * -1 with `err`. */
static int to_root(struct facts_walk *w, int *fd, char *err)
{
	if (*fd >= 0)
		close(*fd);
	strcpy(w->dir, "/");
	if ((*fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return walk_fail(w, err, "/: %s", strerror(errno));
	return 0;
}

/* Appends name `c` to w->dir (or takes its last name off, for ".."). */
static void dir_step(struct facts_walk *w, const char *c)
{
	size_t n = strlen(w->dir);

	if (strcmp(c, "..") == 0) {
		char *slash = strrchr(w->dir, '/');

		*(slash == w->dir ? slash + 1 : slash) = '\0';
	} else {
		snprintf(w->dir + n, PATH_MAX - n, "%s%s", n > 1 ? "/" : "", c);
	}
}

/* The path of name `c` of w->dir, for messages, into `buf` (PATH_MAX). */
static const char *named(const struct facts_walk *w, const char *c, char *buf)
{
	snprintf(buf, PATH_MAX, "%.3000s%s%s", w->dir,
		 strlen(w->dir) > 1 ? "/" : "", c);
	return buf;
}

/* Follows the link `link` (name `c` of w->dir, a descriptor O_PATH of the
 * link itself, closed here): it must be this user's or root's, and its
 * text takes its name's place at the head of what is left to walk (`rest`,
 * in `todo`, PATH_MAX bytes); a text from "/" takes the walk back to "/"
 * (*fd).  0, or -1 with `err`. */
static int follow(struct facts_walk *w, int link, const char *c,
		  const char *rest, char *todo, int *fd, char *err)
{
	char label[FACTS_ERR_SIZE], name[PATH_MAX], text[PATH_MAX];
	char next[PATH_MAX];
	int n = w->subject
			? snprintf(label, sizeof(label), "%.300s: ", w->subject)
			: 0;
	ssize_t len;

	/* a link in a sticky directory is replaced by its owner alone */
	snprintf(label + n, sizeof(label) - (size_t)n,
		 "%.300s, a link on the way to %.100s", named(w, c, name),
		 w->what);
	if (facts_check_owned(link, label, S_IFLNK, 0, false,
			      "a link of this user's or root's", err) != 0) {
		close(link);
		return -1;
	}
	len = readlinkat(link, "", text, sizeof(text));
	close(link);
	if (len <= 0 || len >= (ssize_t)sizeof(text))
		return walk_fail(w, err, "%.300s: %s", name,
				 len < 0 ? strerror(errno) : "a link too long");
	text[len] = '\0';
	if (snprintf(next, sizeof(next), "%s/%s", text, rest) >=
	    (int)sizeof(next))
		return walk_fail(w, err, "%.300s: a path too long", name);
	strcpy(todo, next);
	return *todo == '/' ? to_root(w, fd, err) : 0;
}

int facts_walk(int start, const char *start_dir, const char *path,
	       struct facts_walk *w, char *err)
{
	char todo[PATH_MAX], cwd[PATH_MAX], name[PATH_MAX], c[NAME_MAX + 1];
	const char *p;
	int fd = -1, links = 0, rc = -1;

	w->dirfd = -1;
	w->leaf[0] = '\0';
	if (!*path)
		return walk_fail(w, err, "not a directory's name");
	if (*path != '/' && start == AT_FDCWD) {
		/* from the current directory's path, which has no link */
		if (!getcwd(cwd, sizeof(cwd)))
			return walk_fail(w, err, "%s", strerror(errno));
		if (snprintf(todo, sizeof(todo), "%s/%s", cwd, path) >=
		    (int)sizeof(todo))
			return walk_fail(w, err, "a path too long");
	} else if (snprintf(todo, sizeof(todo), "%s", path) >=
		   (int)sizeof(todo)) {
		return walk_fail(w, err, "a path too long");
	}
	if (*todo == '/') {
		if (to_root(w, &fd, err) != 0)
			return -1;
	} else if ((fd = fcntl(start, F_DUPFD_CLOEXEC, 0)) < 0) {
		return walk_fail(w, err, "%s", strerror(errno));
	} else {
		snprintf(w->dir, sizeof(w->dir), "%s", start_dir);
	}
	for (p = todo;;) {
		struct stat st;
		size_t n;
		bool last, up;
		int sub;

		p += strspn(p, "/");
		if (!*p)
			break;
		if ((n = strcspn(p, "/")) > NAME_MAX) {
			walk_fail(w, err, "%.300s: a name too long", w->dir);
			goto out;
		}
		memcpy(c, p, n);
		c[n] = '\0';
		p += n;
		last = p[strspn(p, "/")] == '\0';
		up = strcmp(c, "..") == 0;
		if (strcmp(c, ".") == 0)
			continue;
		/* nothing is looked up in a directory before it is checked,
		 * so that what is found there is what stays there */
		if (check_dir(w, fd, last && !up, err) != 0)
			goto out;
		if (last && !up && !w->follow_last) {
			snprintf(w->leaf, sizeof(w->leaf), "%s", c);
			break;
		}
		sub = openat(fd, c, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0 && last && errno == ENOENT) {
			/* the caller's to make, or to find missing */
			snprintf(w->leaf, sizeof(w->leaf), "%s", c);
			break;
		}
		if (sub < 0 || fstat(sub, &st) != 0) {
			walk_fail(w, err, "%.300s: %s", named(w, c, name),
				  strerror(errno));
			if (sub >= 0)
				close(sub);
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			if (++links > MAX_LINKS) {
				close(sub);
				walk_fail(
					w, err,
					"more than %d links on the way to %.100s",
					MAX_LINKS, w->what);
				goto out;
			}
			if (follow(w, sub, c, p, todo, &fd, err) != 0)
				goto out;
			p = todo;
			continue;
		}
		if (last && !up) {
			close(sub);
			snprintf(w->leaf, sizeof(w->leaf), "%s", c);
			break;
		}
		if (!S_ISDIR(st.st_mode)) {
			close(sub);
			walk_fail(w, err, "%.300s: %s", named(w, c, name),
				  strerror(ENOTDIR));
			goto out;
		}
		close(fd);
		fd = sub;
		dir_step(w, c);
	}
	if (!*w->leaf) {
		/* the path ends at a directory ("/a/b/.", "..", "/"): its
		 * name in the directory above it */
		int above;

		if (strcmp(w->dir, "/") == 0) {
			walk_fail(w, err, "not a directory's name");
			goto out;
		}
		snprintf(w->leaf, sizeof(w->leaf), "%s",
			 strrchr(w->dir, '/') + 1);
		dir_step(w, "..");
		above = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		fd = above;
		if (fd < 0) {
			walk_fail(w, err, "%.300s: %s", w->dir,
				  strerror(errno));
			goto out;
		}
		if (check_dir(w, fd, true, err) != 0)
			goto out;
	}
	w->dirfd = fd;
	fd = -1;
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	return rc;
}
