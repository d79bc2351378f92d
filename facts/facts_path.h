/*
 * facts_path.h - the owner and mode checks of what the facts command
 * reads, runs or writes through a path (facts_path.c), shared by the
 * state of --publish (facts_publish.c) and the site directory
 * (facts_site.c).  The rule is OpenSSH's StrictModes (safe_path() in its
 * misc.c): what the command trusts, and each directory it is reached
 * through, must be root's or this user's and writable by no one else, so
 * that no other local user can put a file of theirs in its place.
 * Private to facts/; no function here prints or exits, an error is a
 * message in the caller's buffer (FACTS_ERR_SIZE bytes).
 */
#ifndef SLURM_EXTRA_FACTS_PATH_H
#define SLURM_EXTRA_FACTS_PATH_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "facts.h"

/* fstat()s `fd`, which `label` names in messages, and checks that it is
 * this user's or root's, of the type `type` (S_IFDIR, S_IFREG, S_IFLNK),
 * with none of the mode bits `forbidden` set unless `sticky_ok` and it
 * has the sticky bit (a directory such as /tmp, where no one may rename
 * or remove what another owns); `must` says what it must be.  The rule is
 * StrictModes' (above), which cron also asks of its tables.  Returns 0,
 * or -1 with `err`: "LABEL: owned by uid U with mode M: it must be MUST"
 * (or "LABEL: " and fstat()'s error); `fd` stays open (the caller's). */
int facts_check_owned(int fd, const char *label, mode_t type, mode_t forbidden,
		      bool sticky_ok, const char *must, char *err);

/* A walk of a path (facts_walk()): what the caller asks, and what it
 * finds. */
struct facts_walk {
	/* the caller's */
	const char *subject; /* heads every message ("state directory DIR"),
				or NULL */
	const char *what;    /* the path in messages about the directories on
				its way ("DIR, above the state directory") */
	bool follow_last;    /* a link as the last name is followed too */
	bool strict;	     /* the directory that holds the last name (and
				each one holding a link in its place) may not
				be writable by others, even if sticky: the
				rule of a site entry's directory ("..., as the
				site directory must be") */
	/* facts_walk()'s */
	int dirfd;		 /* that directory (O_PATH), the caller's */
	char dir[PATH_MAX];	 /* its path, from "/", without links */
	char leaf[NAME_MAX + 1]; /* the last name: never "." or "..", and
				    not a link when follow_last, but maybe
				    missing */
};

/* Walks `path` from "/" (from `start`, a directory whose path is
 * `start_dir`, when `path` is relative; AT_FDCWD: the current directory)
 * one name at a time, as OpenSSH's StrictModes checks the directories
 * above a user's files (safe_path(), misc.c), except that a sticky one
 * (/tmp) may be writable by others: each directory is checked
 * (facts_check_owned(): this user's or root's, writable by no one else
 * unless sticky; "DIR, above WHAT") before any name is looked up in it,
 * and the one that holds the last name before that name is, strictly
 * when w->strict ("DIR, which holds WHAT").  A link met on the way must
 * be this user's or root's ("NAME, a link on the way to WHAT"); the walk
 * follows it itself (at most 40), from the checked directory that holds
 * it, so that no other user can change where it leads between the checks
 * and the caller's use of w->dirfd and w->leaf.  A path ending at a
 * directory ("." or "..") is that directory's name in the one above it.
 * Returns 0 with w->dirfd, w->dir and w->leaf, or -1 with `err`
 * (FACTS_ERR_SIZE bytes, headed by w->subject): a directory refused, a
 * name on the way missing or not a directory, a link refused, unread or
 * one too many, a path too long, a path that names no directory's
 * entry ("/", ""). */
int facts_walk(int start, const char *start_dir, const char *path,
	       struct facts_walk *w, char *err);

#endif
