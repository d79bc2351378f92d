/*
 * facts.h - this node's facts as the command uses them (slurm-extra(1),
 * "facts"; doc/facts.md): gathered (discovered, then the site's), written
 * as the Extra text Slurm reads, and merged into a node's current Extra
 * for a publication.  No json-c type is named here (the command's other
 * files use jansson); facts_json.h is the json-c level.  The command
 * (cmd/) is its user.  No function prints on stdout, exits or calls Slurm.
 */
#ifndef SLURM_EXTRA_FACTS_H
#define SLURM_EXTRA_FACTS_H

#include <stdbool.h>
#include <stdio.h>

/* A set of facts (facts_json.h). */
struct facts;

/* Longest message a function here writes into an `err` buffer. */
#define FACTS_ERR_SIZE 512

/* The longest Extra written: the plugin's MaxExtraLength default
 * (extra.conf(5)), past which it skips a node as unreadable. */
#define FACTS_MAX_EXTRA 65536

/* What discovery reads, for tests: NULL members read this machine. */
struct facts_env {
	const char *cpuinfo;	/* the text of /proc/cpuinfo */
	const char *os_release; /* the path of os-release */
	const char *scratch;	/* the scratch directory (default /tmp) */
	bool no_gpu_libs;	/* do not load the vendors' libraries */
	int timeout_s;		/* seconds the GPU libraries may take (0: 10) */
};

/* This node's facts: discovered by `env` (facts_discover()), then the
 * site's of `dir` (facts_site_dir(); a missing `dir` is an error when
 * `must_exist`, all hooks together given `timeout_s` seconds), then every one
 * checked (facts_check()).  A new set, the caller's (facts_free), or NULL
 * with `err` (FACTS_ERR_SIZE bytes) saying what is wrong.  `note`
 * (FACTS_ERR_SIZE bytes) gets a source discovery could not read, or "". */
struct facts *facts_gather(const struct facts_env *env, const char *dir,
			   bool must_exist, int timeout_s, char *note,
			   char *err);

/* Whether `key` is one that discovery may set (doc/facts.md,
 * "Publishing"): a publication replaces or removes such a key, whatever set it. */
bool facts_discovered_key(const char *key);

/* Frees `f` (NULL too). */
void facts_free(struct facts *f);

/* The facts as Extra text: one compact JSON object, '/' unescaped, reals
 * as read or discovered.  Malloc'd, or NULL when out of memory. */
char *facts_text(const struct facts *f);

/* Prints on `out` one line per fact: its key, its value and where it came
 * from (slurm-extra(1) facts -v). */
void facts_print_sources(const struct facts *f, FILE *out);

/* A publication (doc/facts.md "Publishing"): the Extra that node
 * Extra `current` (NULL or blank: none) becomes with the facts `f`, the
 * site's keys of the last publication read from file `state_name` of the
 * state directory `state_dirfd` (facts_open_state(), or AT_FDCWD: a JSON
 * array, opened without following a link; missing, not a regular file,
 * over 1 MiB or not an array: none).  Returns 0 when it would not change,
 * 1 when it would, with *next (the new text, malloc'd, the caller's) and
 * *changes (what changed: "-gone ~changed +new" key names, malloc'd), or
 * -1 with `err`: `current` is not a JSON object (facts could not keep its
 * keys), the result is longer than FACTS_MAX_EXTRA, out of memory. */
int facts_publication(const struct facts *f, const char *current,
		      int state_dirfd, const char *state_name, char **next,
		      char **changes, char *err);

/* Opens the state directory `dir` of --publish (made 0755 when missing)
 * and takes its lock: an exclusive flock() of the file "lock" in it
 * (made 0600), so that two publications of one node (the timer's and the
 * health check's, say) run one after the other, and no one who cannot
 * open that file (every user but its owner and root) can hold them up.
 * Waits at most `wait_s` seconds for the lock.  The directory must be
 * this user's or root's and writable by no one else, and not a link, and
 * so must each directory above it, as OpenSSH's StrictModes asks, except
 * that sticky ones (/tmp) may be writable by others, each checked before
 * a name is looked up in it, and a link on the way this user's or root's;
 * the lock file this user's or root's, a regular file, not a link, and
 * readable and writable by no one else.  Where the lock file cannot be
 * made or opened for want of rights (a user other than root in root's
 * directory) or on a read-only file system, no lock is taken (*lock_fd
 * is then -1): no state can be written there either.  Returns the
 * directory's descriptor and sets *lock_fd to the lock file's (the lock
 * lasts until it is closed), or returns -1 with `err` (FACTS_ERR_SIZE
 * bytes): also when the lock was not had within `wait_s`. */
int facts_open_state(const char *dir, int wait_s, int *lock_fd, char *err);

/* Writes the site's keys of `f` (a JSON array) as file `name` of the
 * directory `dirfd` (facts_open_state): a new file of a random name,
 * created exclusively without following links, synced, and renamed over
 * the old one.  Returns 0, or -1 with errno. */
int facts_save_state(const struct facts *f, int dirfd, const char *name);

#endif
