/*
 * facts_publish.c - the facts as the command uses them (facts.h): gathered
 * and checked, written as Extra text, and merged into a node's current
 * Extra for a publication, with the state that remembers the site's keys
 * (doc/facts.md "Publishing").
 */
#define _GNU_SOURCE /* O_PATH */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "facts_json.h"
#include "facts_path.h"

struct facts *facts_gather(const struct facts_env *env, const char *dir,
			   bool must_exist, int timeout_s, char *note,
			   char *err)
{
	struct facts *f = calloc(1, sizeof(*f));

	*note = '\0';
	if (!f || facts_init(f) != 0 || facts_discover(f, env, note) != 0) {
		snprintf(err, FACTS_ERR_SIZE, "out of memory");
		goto fail;
	}
	if (facts_site_dir(f, dir, must_exist, timeout_s, err) != 0)
		goto fail;
	json_object_object_foreach (f->values, key, v) {
		if (!facts_check(key, v, err))
			goto fail;
	}
	return f;
fail:
	facts_free(f);
	return NULL;
}

void facts_free(struct facts *f)
{
	if (!f)
		return;
	if (f->values)
		facts_fini(f);
	free(f);
}

/* The text of `o` as Slurm is given it: compact, '/' not escaped (owned
 * by `o`). */
static const char *json_text(json_object *o)
{
	return json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

char *facts_text(const struct facts *f)
{
	const char *t = json_text(f->values);

	return t ? strdup(t) : NULL;
}

void facts_print_sources(const struct facts *f, FILE *out)
{
	json_object_object_foreach (f->values, key, v) {
		json_object *s = NULL;

		json_object_object_get_ex(f->sources, key, &s);
		fprintf(out, "%-16s %-28s %s\n", key, json_text(v),
			s ? json_object_get_string(s) : "?");
	}
}

/* The keys whose values differ from `a` (may be NULL) to `b`: "-gone
 * ~changed +new", malloc'd, or NULL when out of memory. */
static char *changes_text(json_object *a, json_object *b)
{
	size_t cap = 1, len = 0;
	char *out, *o;

	if (a) {
		json_object_object_foreach (a, key, v) {
			(void)v;
			cap += strlen(key) + 2;
		}
	}
	{
		json_object_object_foreach (b, key, v) {
			(void)v;
			cap += strlen(key) + 2;
		}
	}
	if (!(out = o = malloc(cap)))
		return NULL;
	*o = '\0';
	if (a) {
		json_object_object_foreach (a, key, v) {
			json_object *w;
			char mark = 0;

			if (!json_object_object_get_ex(b, key, &w))
				mark = '-';
			else if (!json_object_equal(v, w))
				mark = '~';
			if (mark)
				len += (size_t)sprintf(out + len, "%s%c%s",
						       len ? " " : "", mark,
						       key);
		}
	}
	{
		json_object_object_foreach (b, key, v) {
			(void)v;
			if (!a || !json_object_object_get_ex(a, key, NULL))
				len += (size_t)sprintf(out + len, "%s+%s",
						       len ? " " : "", key);
		}
	}
	return out;
}

/* The state file of the last publication: the site's keys (a JSON array,
 * at most STATE_MAX bytes) of file `name` in directory `dirfd` (a
 * directory facts_open_state() checked), opened without following a link;
 * NULL when missing, not a regular file, too large, or not an array. */
#define STATE_MAX (1 << 20)
static json_object *read_state(int dirfd, const char *name)
{
	json_object *old = NULL;
	struct stat st;
	int fd = openat(dirfd, name,
			O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size <= STATE_MAX)
		old = json_object_from_fd(fd);
	close(fd);
	if (old && !json_object_is_type(old, json_type_array)) {
		json_object_put(old);
		old = NULL;
	}
	return old;
}

int facts_publication(const struct facts *f, const char *current,
		      int state_dirfd, const char *state_name, char **next,
		      char **changes, char *err)
{
	json_object *cur = NULL, *old = NULL, *merged = NULL;
	const char *text;
	int rc = -1;

	*next = *changes = NULL;
	if (current && current[strspn(current, " \t\r\n")]) {
		/* read as Slurm reads Extra (doc/language.md §2) */
		json_tokener *tok = json_tokener_new();

		if (!tok)
			goto nomem;
		cur = json_tokener_parse_ex(tok, current, (int)strlen(current));
		json_tokener_free(tok);
		if (!cur || !json_object_is_type(cur, json_type_object)) {
			snprintf(
				err, FACTS_ERR_SIZE,
				"its Extra is not a JSON object, whose keys set by hand could be kept");
			goto out;
		}
	}
	old = read_state(state_dirfd, state_name);
	if (!(merged = facts_merge(cur, f, f->site_keys, old)))
		goto nomem;
	if (cur && json_object_equal(cur, merged)) {
		rc = 0;
		goto out;
	}
	if (!(text = json_text(merged)))
		goto nomem;
	if (strlen(text) > FACTS_MAX_EXTRA) {
		snprintf(err, FACTS_ERR_SIZE,
			 "the Extra would be %zu bytes, more than %d",
			 strlen(text), FACTS_MAX_EXTRA);
		goto out;
	}
	if (!(*next = strdup(text)) ||
	    !(*changes = changes_text(cur, merged))) {
		free(*next);
		*next = NULL;
		goto nomem;
	}
	rc = 1;
	goto out;
nomem:
	snprintf(err, FACTS_ERR_SIZE, "out of memory");
out:
	json_object_put(cur);
	json_object_put(old);
	json_object_put(merged);
	return rc;
}

/* The lock file of the state directory `dirfd` (`dir` for messages),
 * opened (read-only: flock() needs no more, and an existing file opens so
 * on a read-only file system) and checked (facts_open_state()); -2 when it
 * cannot be made or opened for want of rights or a writable file system
 * (no lock, then: no state can be written either), -1 with `err`. */
static int open_lock(int dirfd, const char *dir, char *err)
{
	char label[320];
	int fd = openat(
		dirfd, "lock",
		O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);

	snprintf(label, sizeof(label), "lock file %.300s/lock", dir);
	if (fd < 0 && (errno == EACCES || errno == EROFS))
		return -2;
	if (fd < 0) {
		snprintf(err, FACTS_ERR_SIZE, "%s: %s", label, strerror(errno));
		return -1;
	}
	if (facts_check_owned(
		    fd, label, S_IFREG, S_IRWXG | S_IRWXO, false,
		    "a file of this user's or root's that no one else may open",
		    err) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int facts_open_state(const char *dir, int wait_s, int *lock_fd, char *err)
{
	long long deadline = facts_now_ms() + (long long)wait_s * 1000;
	char label[320];
	struct facts_walk w = { .subject = label,
				.what = "the state directory" };
	int fd, lfd;

	snprintf(label, sizeof(label), "state directory %.300s", dir);
	/* the directories above it: checked, and none of them can be put
	 * in another's place while the state is opened */
	if (facts_walk(AT_FDCWD, NULL, dir, &w, err) != 0)
		return -1;
	if (mkdirat(w.dirfd, w.leaf, 0755) != 0 && errno != EEXIST) {
		snprintf(err, FACTS_ERR_SIZE, "%s: %s", label, strerror(errno));
		close(w.dirfd);
		return -1;
	}
	fd = openat(w.dirfd, w.leaf,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(w.dirfd);
	if (fd < 0) {
		snprintf(err, FACTS_ERR_SIZE, "%s: %s", label, strerror(errno));
		return -1;
	}
	if (facts_check_owned(
		    fd, label, S_IFDIR, S_IWGRP | S_IWOTH, false,
		    "this user's or root's and writable by no one else",
		    err) != 0) {
		close(fd);
		return -1;
	}
	/* a user who may not make or open the lock file (root's), or a
	 * read-only file system: no lock, and no state written either;
	 * slurmctld decides whether they may publish */
	if ((lfd = open_lock(fd, dir, err)) == -2) {
		*lock_fd = -1;
		return fd;
	}
	if (lfd < 0) {
		close(fd);
		return -1;
	}
	/* not a blocking flock(): its wait would have no end */
	for (;;) {
		if (flock(lfd, LOCK_EX | LOCK_NB) == 0) {
			*lock_fd = lfd;
			return fd;
		}
		if (errno != EWOULDBLOCK && errno != EINTR) {
			snprintf(err, FACTS_ERR_SIZE,
				 "lock file %.300s/lock: %s", dir,
				 strerror(errno));
			break;
		}
		if (facts_now_ms() >= deadline) {
			snprintf(
				err, FACTS_ERR_SIZE,
				"%s: another publication held its lock for %d s",
				label, wait_s);
			break;
		}
		usleep(20000);
	}
	close(lfd);
	close(fd);
	return -1;
}

int facts_save_state(const struct facts *f, int dirfd, const char *name)
{
	char tmp[] = ".facts-XXXXXX";
	const char *text;
	json_object *none = NULL, *keys = f->site_keys;
	int fd = -1, rc = -1, e;
	size_t len;

	if (!keys && !(keys = none = json_object_new_array()))
		return -1;
	text = json_object_to_json_string_ext(keys, JSON_C_TO_STRING_PLAIN);
	len = text ? strlen(text) : 0;
	/* a new file of a name no one could have planted, renamed over the
	 * old one: never follows a link, never leaves half a file */
	for (int tries = 0; tries < 100 && fd < 0; tries++) {
		for (char *x = tmp + sizeof(tmp) - 7; *x; x++)
			*x = "abcdefghijklmnopqrstuvwxyz0123456789"[random() %
								    36];
		fd = openat(dirfd, tmp,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				    O_CLOEXEC,
			    0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0 || !text)
		goto out;
	if (write(fd, text, len) != (ssize_t)len || fsync(fd) != 0 ||
	    renameat(dirfd, tmp, dirfd, name) != 0) {
		e = errno;
		unlinkat(dirfd, tmp, 0);
		errno = e;
		goto out;
	}
	rc = 0;
out:
	e = errno;
	if (fd >= 0)
		close(fd);
	json_object_put(none);
	errno = e;
	return rc;
}
