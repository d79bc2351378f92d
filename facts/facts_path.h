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

#include <stdbool.h>
#include <sys/types.h>

#include "facts.h"

/* fstat()s `fd`, which `label` names in messages, and checks that it is
 * this user's or root's, of the type `type` (S_IFDIR, S_IFREG, S_IFLNK),
 * with none of the mode bits `forbidden` set unless `sticky_ok` and it
 * has the sticky bit (a directory such as /tmp, where no one may rename
 * or remove what another owns); `must` says what it must be.  Returns 0,
 * or -1 with `err`: "LABEL: owned by uid U with mode M: it must be MUST";
 * `fd` stays open (the caller's). */
int facts_check_owned(int fd, const char *label, mode_t type, mode_t forbidden,
		      bool sticky_ok, const char *must, char *err);

/* The directory that holds the last name of `path`, its path resolved
 * (realpath(3)) and walked again from "/" one directory at a time, none
 * of them a link and each checked (facts_check_owned(): this user's or
 * root's, writable by no one else unless sticky), as StrictModes checks
 * the directories above a user's files (but for sticky ones, which it
 * refuses).  `subject` names `path` in messages about it ("state
 * directory DIR: not a directory's name"), `what` after the directories
 * above it ("DIR, above the state directory: ...").  Sets *base to the last name
 * of `path` (in `buf`, PATH_MAX bytes; "." and ".." are taken as the
 * name of the directory they resolve to).  Returns a descriptor of the
 * directory (O_PATH, the caller's), or -1 with `err`. */
int facts_open_above(const char *path, const char *subject, const char *what,
		     char *buf, const char **base, char *err);

#endif
