/*
 * facts_site.c - the site's own facts (facts.h: facts_site_dir();
 * doc/facts.md "Site facts"): the *.json files of a directory
 * (/etc/slurm/extra.d by default) and the output of its executables, the
 * "local hooks" of Kubernetes node-feature-discovery, each run by
 * facts_run_hook() (facts_hook.c) with a deadline for them all.
 */
#define _GNU_SOURCE /* O_PATH */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "facts_hook.h"
#include "facts_json.h"
#include "facts_path.h"

/* Whether entry `name` is one the directory's reader skips. */
static bool skipped(const char *name)
{
	static const char *const tails[] = { "~",	  ".dpkg-old",
					     ".dpkg-new", ".dpkg-dist",
					     ".rpmsave",  ".rpmnew",
					     NULL };
	size_t n = strlen(name);

	if (name[0] == '.')
		return true;
	for (const char *const *t = tails; *t; t++)
		if (n >= strlen(*t) && strcmp(name + n - strlen(*t), *t) == 0)
			return true;
	return false;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && strcmp(s + n - m, tail) == 0;
}

/* Reads `text` (`len` bytes) as one JSON object, with json-c as Slurm
 * reads Extra, but nothing but blanks may follow it.  The object, or NULL
 * with `why` saying what is wrong. */
static json_object *parse_object(const char *text, size_t len, char *why,
				 size_t size)
{
	json_tokener *tok = json_tokener_new();
	json_object *o;
	size_t used;

	if (!tok) {
		snprintf(why, size, "out of memory");
		return NULL;
	}
	o = json_tokener_parse_ex(tok, text, (int)len);
#if JSON_C_VERSION_NUM >= 0x000f00
	used = json_tokener_get_parse_end(tok);
#else
	used = (size_t)tok->char_offset;
#endif
	if (!o) {
		enum json_tokener_error e = json_tokener_get_error(tok);

		snprintf(why, size, "not JSON (%s, at byte %zu)",
			 e == json_tokener_continue
				 ? "it ends too early"
				 : json_tokener_error_desc(e),
			 used);
	} else if (!json_object_is_type(o, json_type_object)) {
		snprintf(why, size, "not a JSON object (a %s)",
			 json_type_to_name(json_object_get_type(o)));
		json_object_put(o);
		o = NULL;
	} else if (text[used + strspn(text + used, " \t\r\n")] != '\0') {
		snprintf(why, size, "more than one JSON object (byte %zu)",
			 used);
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	return o;
}

/* Whether the file of `st` may give facts to a command running as this
 * user: owned by root or by this user, and writable by nobody else (as
 * cron asks of its tables).  Otherwise `why` says so. */
static bool trusted(const struct stat *st, char *why, size_t size)
{
	if (st->st_uid != 0 && st->st_uid != geteuid()) {
		snprintf(why, size,
			 "owned by uid %u, neither root nor this user",
			 (unsigned)st->st_uid);
		return false;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(
			why, size,
			"writable by others (mode %04o): anyone could set the node's facts",
			(unsigned)(st->st_mode & 07777));
		return false;
	}
	return true;
}

/* Reads regular file `name` of the directory `dirfd`, at most
 * FACTS_SITE_MAX_BYTES (opened without blocking, so that a FIFO put in
 * its place cannot stall the command, and without following a link),
 * checked as opened (trusted()): malloc'd and NUL-terminated (*len its
 * length), or NULL with `why`. */
static char *read_file(int dirfd, const char *name, size_t *len, char *why,
		       size_t size)
{
	int fd = openat(dirfd, name,
			O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	char *buf;
	ssize_t got;

	*len = 0;
	if (fd < 0) {
		snprintf(why, size, "cannot read it: %s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(why, size, "not a regular file");
		return NULL;
	}
	if (!trusted(&st, why, size)) {
		close(fd);
		return NULL;
	}
	if (!(buf = malloc(FACTS_SITE_MAX_BYTES + 2))) {
		close(fd);
		snprintf(why, size, "out of memory");
		return NULL;
	}
	while ((got = read(fd, buf + *len, FACTS_SITE_MAX_BYTES + 1 - *len)) >
	       0)
		if ((*len += (size_t)got) > FACTS_SITE_MAX_BYTES)
			break;
	close(fd);
	if (got < 0 || *len > FACTS_SITE_MAX_BYTES) {
		snprintf(why, size,
			 got < 0 ? "cannot read it" : "longer than %d bytes",
			 FACTS_SITE_MAX_BYTES);
		free(buf);
		return NULL;
	}
	buf[*len] = '\0';
	return buf;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of `dir`'s entries that count, sorted: a malloc'd array of
 * *n malloc'd names, or NULL with `err` (or with *n 0 and no error for an
 * empty directory). */
static char **list_dir(int dirfd, const char *dir, size_t *n, bool *failed,
		       char *err)
{
	int fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	char **names = NULL;

	*n = 0;
	*failed = false;
	if (!d) {
		snprintf(err, FACTS_ERR_SIZE, "site directory %s: %s", dir,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		*failed = true;
		return NULL;
	}
	if (!(names = calloc(FACTS_SITE_MAX_ENTRIES, sizeof(*names))))
		goto nomem;
	while ((e = readdir(d))) {
		if (skipped(e->d_name))
			continue;
		if (*n == FACTS_SITE_MAX_ENTRIES) {
			snprintf(err, FACTS_ERR_SIZE,
				 "site directory %s: more than %d entries", dir,
				 FACTS_SITE_MAX_ENTRIES);
			goto fail;
		}
		if (!(names[*n] = strdup(e->d_name)))
			goto nomem;
		(*n)++;
	}
	closedir(d);
	qsort(names, *n, sizeof(*names), by_name);
	return names;
nomem:
	snprintf(err, FACTS_ERR_SIZE, "out of memory");
fail:
	closedir(d);
	while (names && *n > 0)
		free(names[--*n]);
	free(names);
	*failed = true;
	return NULL;
}

/* Adds the facts of object `o` (from `what`) to `f` and their keys to
 * `keys`.  Returns 0, or -1 with `err`. */
static int add_site(struct facts *f, json_object *o, const char *what,
		    json_object *keys, char *err)
{
	char why[FACTS_ERR_SIZE];

	json_object_object_foreach (o, key, v) {
		json_object *k;

		if (!facts_check(key, v, why)) {
			snprintf(err, FACTS_ERR_SIZE, "%.300s: %.200s", what,
				 why);
			return -1;
		}
		if (facts_put(f, key, facts_copy(v), what) != 0) {
			snprintf(err, FACTS_ERR_SIZE, "out of memory");
			return -1;
		}
		if (facts_array_has(keys, key))
			continue;
		if (!(k = json_object_new_string(key)) ||
		    json_object_array_add(keys, k) != 0) {
			json_object_put(k);
			snprintf(err, FACTS_ERR_SIZE, "out of memory");
			return -1;
		}
	}
	return 0;
}

/* The site directory `dir`, listed through `dirfd`, when it has
 * entries: the directories above it checked as the state directory's
 * (facts_walk(); a sticky one may be writable by others), and it the
 * directory they lead to.  Its resolved path goes to `real` (PATH_MAX
 * bytes), from which its entries' links are followed.  0, or -1 with
 * `err`. */
static int check_site_dir(int dirfd, const char *dir, char *real, char *err)
{
	char subject[320];
	struct facts_walk w = { .subject = subject,
				.what = "the site directory",
				.follow_last = true };
	struct stat a, b;
	int fd;

	snprintf(subject, sizeof(subject), "site directory %.300s", dir);
	if (facts_walk(AT_FDCWD, NULL, dir, &w, err) != 0)
		return -1;
	fd = openat(w.dirfd, w.leaf,
		    O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(w.dirfd);
	if (fd < 0 || fstat(fd, &a) != 0 || fstat(dirfd, &b) != 0 ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
		/* only root or this user could have moved it */
		snprintf(err, FACTS_ERR_SIZE, "%s: %s", subject,
			 fd < 0 ? strerror(errno)
				: "replaced while it was read");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	snprintf(real, PATH_MAX, "%.3000s%s%s", w.dir,
		 strcmp(w.dir, "/") ? "/" : "", w.leaf);
	return 0;
}

/* Entry `name` (`path` in messages) of the site directory `dirfd`, whose
 * resolved path is `real`, followed through its links (facts_walk(),
 * strict): the directory that holds what it names (or a link on the way)
 * must be this user's or root's and writable by no one else, sticky or
 * not, the directories above it as the site directory's, and each link
 * this user's or root's; so no other user can change what the entry is
 * between this check and its use, nor make it fail by chance.  Sets
 * w->dirfd (the caller's to close) and w->leaf, the file's directory and
 * name there, and *st to the file's lstat().  0, or -1 with `err` ("site
 * entry PATH: ...": also a dangling link). */
static int open_entry(int dirfd, const char *real, const char *name,
		      const char *path, struct facts_walk *w, struct stat *st,
		      char *err)
{
	char subject[320];

	snprintf(subject, sizeof(subject), "site entry %.300s", path);
	*w = (struct facts_walk){ .subject = subject,
				  .what = "its target",
				  .follow_last = true,
				  .strict = true };
	if (facts_walk(dirfd, real, name, w, err) != 0)
		return -1;
	w->subject = NULL;
	if (fstatat(w->dirfd, w->leaf, st, AT_SYMLINK_NOFOLLOW) != 0) {
		snprintf(err, FACTS_ERR_SIZE, "%s: %s", subject,
			 strerror(errno));
		close(w->dirfd);
		return -1;
	}
	return 0;
}

void (*facts_site_checked)(const char *path);

int facts_site_dir(struct facts *f, const char *dir, bool must_exist,
		   int timeout_s, char *err)
{
	/* every hook together: the whole directory within timeout_s */
	long long deadline = facts_now_ms() + (long long)timeout_s * 1000;
	size_t n = 0;
	bool failed = false;
	/* the directory read through one descriptor: its entries are those
	 * of the directory checked, whatever its path names later */
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char **names = NULL;
	int rc = 0;
	struct stat dst;
	char why[FACTS_ERR_SIZE / 2], real[PATH_MAX];

	if (dirfd < 0) {
		if (!(errno == ENOENT && !must_exist)) {
			snprintf(err, FACTS_ERR_SIZE, "site directory %s: %s",
				 dir, strerror(errno));
			rc = -1;
		}
	} else {
		names = list_dir(dirfd, dir, &n, &failed, err);
		rc = failed ? -1 : 0;
	}
	if (rc == 0 && n > 0 &&
	    (fstat(dirfd, &dst) != 0 || !trusted(&dst, why, sizeof(why)))) {
		snprintf(err, FACTS_ERR_SIZE, "site directory %.300s: %.180s",
			 dir, why);
		rc = -1;
	}
	if (rc == 0 && n > 0)
		rc = check_site_dir(dirfd, dir, real, err);
	json_object_put(f->site_keys);
	if (!(f->site_keys = json_object_new_array())) {
		snprintf(err, FACTS_ERR_SIZE, "out of memory");
		rc = -1;
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		char path[4096], what[4200];
		struct facts_walk w;
		struct stat st;
		json_object *o = NULL;
		char *text = NULL;
		size_t len;
		int hook;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		/* a link followed from checked directories only; a dangling
		 * one is said, not skipped */
		if (open_entry(dirfd, real, names[i], path, &w, &st, err) !=
		    0) {
			rc = -1;
			break;
		}
		if (!S_ISREG(st.st_mode)) {
			close(w.dirfd);
			continue;
		}
		if (ends_with(names[i], ".json")) {
			snprintf(what, sizeof(what), "site file %s", path);
			text = read_file(w.dirfd, w.leaf, &len, why,
					 sizeof(why));
		} else if (faccessat(w.dirfd, w.leaf, X_OK, 0) == 0) {
			snprintf(what, sizeof(what), "site hook %s", path);
			/* checked and run as one open file: what another
			 * user could swap in is refused above, and a file
			 * swapped in after the check is not what runs */
			hook = openat(w.dirfd, w.leaf,
				      O_PATH | O_NOFOLLOW | O_CLOEXEC);
			if (hook < 0 || fstat(hook, &st) != 0) {
				snprintf(why, sizeof(why), "cannot open it: %s",
					 strerror(errno));
			} else if (!S_ISREG(st.st_mode)) {
				snprintf(why, sizeof(why),
					 "not a regular file");
			} else if (trusted(&st, why, sizeof(why))) {
				if (facts_site_checked)
					facts_site_checked(path);
				text = facts_run_hook(hook, path, deadline,
						      timeout_s, &len, why,
						      sizeof(why));
			}
			if (hook >= 0)
				close(hook);
		} else {
			close(w.dirfd);
			continue; /* a README, a disabled hook */
		}
		close(w.dirfd);
		if (text)
			o = parse_object(text, len, why, sizeof(why));
		if (!o) {
			snprintf(err, FACTS_ERR_SIZE, "%.300s: %.200s", what,
				 why);
			rc = -1;
		} else {
			rc = add_site(f, o, what, f->site_keys, err);
		}
		json_object_put(o);
		free(text);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (dirfd >= 0)
		close(dirfd);
	return rc;
}
