/*
 * test_facts_state.c - the state of `slurm-extra facts --publish` (facts/;
 * doc/facts.md §5): its directory, the directories above it,
 * its file and its lock.  Part of the test program test_facts.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "facts.h"
#include "facts_json.h"
#include "xc.h"
#include "facts_fixture.h"

/* The state of --publish: a directory of this user's, locked; its file
 * written anew, never through a link planted under its name. */
Test(facts, the_state_is_written_safely, .init = set_up, .fini = tear_down)
{
	char dir[64], sub[128], err[FACTS_ERR_SIZE] = "", path[256], buf[256];
	int fd, lock;
	FILE *fp;

	make_dir(dir);
	snprintf(sub, sizeof(sub), "%s/state", dir);
	write_in(dir, "k.json", "{\"rack\": \"r1\"}", 0644);
	cr_assert_eq(facts_site_dir(&set, dir, true, 1, err), 0, "%s", err);
	fd = facts_open_state(sub, 1, &lock, err);
	cr_assert_geq(fd, 0, "%s", err);
	write_in(dir, "victim", "untouched", 0644);
	snprintf(path, sizeof(path), "%s/facts-n1.keys.json", sub);
	snprintf(buf, sizeof(buf), "%s/victim", dir);
	cr_assert_eq(symlink(buf, path), 0);
	cr_assert_eq(facts_save_state(&set, fd, "facts-n1.keys.json"), 0);
	close(lock);
	close(fd);
	fp = fopen(buf, "r");
	cr_assert_not_null(fp);
	cr_assert_not_null(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	cr_assert_str_eq(buf, "untouched");
	fp = fopen(path, "r");
	cr_assert_not_null(fp);
	cr_assert_not_null(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	cr_assert_str_eq(buf, "[\"rack\"]");
	/* a directory others may write is refused */
	cr_assert_eq(chmod(sub, 0777), 0);
	cr_assert_eq(facts_open_state(sub, 1, &lock, err), -1);
	cr_assert_not_null(strstr(err, "mode 0777"), "%s", err);
	remove_dir(dir);
}

/* The directories above the state's are checked as OpenSSH's StrictModes
 * checks them, once the path is resolved: one others may write is refused
 * (a sticky one, as /tmp, is not), reached through a link too, which must
 * be this user's or root's; the state directory itself may not be a
 * link. */
Test(facts, the_directories_above_the_state_are_checked, .init = set_up,
     .fini = tear_down)
{
	char dir[64], a[128], state[160], link[128], via[160],
		err[FACTS_ERR_SIZE];
	int fd, lock;

	make_dir(dir);
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(state, sizeof(state), "%s/state", a);
	snprintf(link, sizeof(link), "%s-link", dir);
	snprintf(via, sizeof(via), "%s/state", link);
	cr_assert_eq(mkdir(a, 0755), 0);
	cr_assert_eq(symlink(a, link), 0);
	fd = facts_open_state(state, 1, &lock, err);
	cr_assert_geq(fd, 0, "%s", err);
	close(lock);
	close(fd);
	fd = facts_open_state(via, 1, &lock, err);
	cr_assert_geq(fd, 0, "through a link to a safe directory: %s", err);
	close(lock);
	close(fd);
	cr_assert_eq(chmod(a, 0777), 0);
	cr_assert_eq(facts_open_state(state, 1, &lock, err), -1);
	cr_assert_not_null(strstr(err, "above the state directory"), "%s", err);
	cr_assert_not_null(strstr(err, "mode 0777"), "%s", err);
	cr_assert_eq(facts_open_state(via, 1, &lock, err), -1);
	cr_assert_not_null(strstr(err, a), "the resolved path named: %s", err);
	cr_assert_eq(chmod(a, 01777), 0);
	fd = facts_open_state(state, 1, &lock, err);
	cr_assert_geq(fd, 0, "sticky: %s", err);
	close(lock);
	close(fd);
	cr_assert_eq(chmod(a, 0755), 0);
	/* a link on the way that another user could replace (theirs, in
	 * sticky /tmp) is refused, wherever it leads */
	if (geteuid() == 0) {
		cr_assert_eq(lchown(link, 1, 1), 0);
		cr_assert_eq(facts_open_state(via, 1, &lock, err), -1);
		cr_assert_not_null(strstr(err, "a link on the way"), "%s", err);
		cr_assert_not_null(strstr(err, "owned by uid 1 "), "%s", err);
		cr_assert_eq(lchown(link, 0, 0), 0);
	}
	snprintf(via, sizeof(via), "%s/linked", a);
	cr_assert_eq(symlink(state, via), 0);
	cr_assert_eq(facts_open_state(via, 1, &lock, err), -1,
		     "the state directory a link");
	/* "." names the directory it resolves to */
	cr_assert_eq(chdir(state), 0);
	fd = facts_open_state(".", 1, &lock, err);
	cr_assert_geq(fd, 0, "'.': %s", err);
	close(lock);
	close(fd);
	cr_assert_eq(chdir("/"), 0);
	unlink(link);
	remove_dir(dir);
}

/* The state file is read from its directory without following a link:
 * a link in its place counts as no state, where the same file would
 * have a site key it lists removed. */
Test(facts, a_link_in_place_of_the_state_is_no_state, .init = set_up,
     .fini = tear_down)
{
	char dir[64], err[FACTS_ERR_SIZE] = "", *next = NULL, *changes = NULL;
	int dfd;

	make_dir(dir);
	write_in(dir, "keys", "[\"rack\"]", 0644);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(dfd, 0);
	cr_assert_eq(facts_publication(&set, "{\"rack\":\"r2\"}", dfd, "keys",
				       &next, &changes, err),
		     1, "%s", err);
	cr_assert_str_eq(changes, "-rack");
	free(next);
	free(changes);
	cr_assert_eq(symlinkat("keys", dfd, "linked"), 0);
	cr_assert_eq(facts_publication(&set, "{\"rack\":\"r2\"}", dfd, "linked",
				       &next, &changes, err),
		     0, "%s", err);
	close(dfd);
	remove_dir(dir);
}

/* The state's lock is a file no one else may open: a lock of the
 * directory itself (which anyone may open and flock) holds nothing up; a
 * publication that holds the lock file keeps another waiting at most its
 * timeout, which then says why; a lock file others may open is refused.
 * (.timeout: a wait with no end fails the test rather than hangs it.) */
Test(facts, the_state_lock_is_bounded_and_private, .init = set_up,
     .fini = tear_down, .timeout = 20)
{
	char dir[64], sub[128], lockpath[160], err[FACTS_ERR_SIZE] = "";
	long long t0, waited;
	struct stat st;
	int dfd, fd, lock, other;

	make_dir(dir);
	snprintf(sub, sizeof(sub), "%s/state", dir);
	snprintf(lockpath, sizeof(lockpath), "%s/lock", sub);
	cr_assert_eq(mkdir(sub, 0755), 0);
	/* anyone may open the directory and lock it: no matter */
	dfd = open(sub, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(dfd, 0);
	cr_assert_eq(flock(dfd, LOCK_EX), 0);
	fd = facts_open_state(sub, 1, &lock, err);
	cr_assert_geq(fd, 0, "%s", err);
	cr_assert_eq(stat(lockpath, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0600);
	/* another publication holds the lock file: a bounded wait */
	t0 = facts_now_ms();
	cr_assert_eq(facts_open_state(sub, 1, &other, err), -1);
	waited = facts_now_ms() - t0;
	cr_assert_geq(waited, 1000);
	cr_assert_not_null(
		strstr(err, "another publication held its lock for 1 s"), "%s",
		err);
	close(lock);
	close(fd);
	close(dfd);
	/* a lock file others may open is refused */
	cr_assert_eq(chmod(lockpath, 0644), 0);
	cr_assert_eq(facts_open_state(sub, 1, &lock, err), -1);
	cr_assert_not_null(strstr(err, "mode 0644"), "%s", err);
	remove_dir(dir);
}
