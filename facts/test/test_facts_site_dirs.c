/*
 * test_facts_site_dirs.c - the directories a site entry of slurm-extra
 * facts is reached through (facts/; doc/facts.md §4): the site
 * directory's, those above it, and those its links lead through.  An
 * entry another user could replace is refused, the same way whatever
 * that user has put there, and never run; one in directories of root's
 * keeps working.  Part of the test program test_facts.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "facts.h"
#include "facts_json.h"
#include "facts_fixture.h"

/* The refusals' ends (facts_path.c) */
#define HOLDS_MUST                                                             \
	"it must be this user's or root's and writable by no one else, as "    \
	"the site directory must be"
#define ABOVE_MUST                                                             \
	"it must be this user's or root's and writable by no one else (or "    \
	"sticky, as /tmp), as each directory above it must be"

/* `text` with $S (the site directory) and $B (a scratch directory beside
 * it) replaced, into `out` (`size` bytes). */
static void expand(const char *text, const char *site, const char *base,
		   char *out, size_t size)
{
	size_t n = 0;

	for (const char *p = text; *p && n + 1 < size; p++) {
		const char *with = NULL;

		if (p[0] == '$' && p[1] == 'S')
			with = site;
		else if (p[0] == '$' && p[1] == 'B')
			with = base;
		if (!with) {
			out[n++] = *p;
			continue;
		}
		n += (size_t)snprintf(out + n, size - n, "%s", with);
		if (n >= size)
			n = size - 1;
		p++;
	}
	out[n] = '\0';
}

/* Runs shell text `setup` with $S and $B set, and $H a hook to copy. */
static void set_out(const char *setup, const char *site, const char *base)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd),
		 "set -e; S='%s'; B='%s'; H='%s/hook.src'; umask 022; %s", site,
		 base, base, setup);
	cr_assert_eq(system(cmd), 0, "%s", setup);
}

/* A site directory $S (0700 under /tmp) and a directory $B of root's
 * beside it, holding the hook $B/hook.src, which leaves the mark $B/ran
 * when it runs. */
static void two_dirs(char *site, char *base)
{
	char hook[256];

	make_dir(site);
	make_dir(base);
	snprintf(hook, sizeof(hook),
		 "#!/bin/sh\ntouch %s/ran\necho '{\"ran\": true}'\n", base);
	write_in(base, "hook.src", hook, 0755);
}

static bool ran(const char *base)
{
	char mark[128];

	snprintf(mark, sizeof(mark), "%s/ran", base);
	return access(mark, F_OK) == 0;
}

/* Each row: a site entry reached through something another user could
 * change.  The whole directory is refused, naming the entry (or the
 * directory) and what is wrong, and nothing runs. */
Test(facts, an_entry_others_could_replace_is_refused, .init = set_up,
     .fini = tear_down)
{
	static const struct {
		const char *desc;
		bool chown; /* needs root */
		const char *setup;
		const char *says;
	} rows[] = {
		{ "a link to a hook in a directory others may write", false,
		  "mkdir -m 0777 $B/d; cp -p $H $B/d/hook; "
		  "ln -s $B/d/hook $S/10-hook",
		  "site entry $S/10-hook: $B/d, which holds its target: owned "
		  "by uid 0 with mode 0777: " HOLDS_MUST },
		{ "the same, the hook gone for a moment", false,
		  "mkdir -m 0777 $B/d; ln -s $B/d/hook $S/10-hook",
		  "site entry $S/10-hook: $B/d, which holds its target: owned "
		  "by uid 0 with mode 0777: " HOLDS_MUST },
		{ "the same, a directory in the hook's place", false,
		  "mkdir -m 0777 $B/d; mkdir $B/d/hook; "
		  "ln -s $B/d/hook $S/10-hook",
		  "site entry $S/10-hook: $B/d, which holds its target: owned "
		  "by uid 0 with mode 0777: " HOLDS_MUST },
		{ "a link to a hook in a sticky directory", false,
		  "mkdir -m 1777 $B/d; cp -p $H $B/d/hook; "
		  "ln -s $B/d/hook $S/10-hook",
		  "site entry $S/10-hook: $B/d, which holds its target: owned "
		  "by uid 0 with mode 1777: " HOLDS_MUST },
		{ "a link to a hook in a directory of root's, under one others "
		  "may write",
		  false,
		  "mkdir -m 0777 $B/d; mkdir -m 0755 $B/d/e; cp -p $H $B/d/e/hook; "
		  "ln -s $B/d/e/hook $S/10-hook",
		  "site entry $S/10-hook: $B/d, above its target: owned by uid "
		  "0 with mode 0777: " ABOVE_MUST },
		{ "a relative link, the same", false,
		  "mkdir -m 0777 $B/d; mkdir -m 0755 $B/d/e; cp -p $H $B/d/e/hook; "
		  "ln -s ../$(basename $B)/d/e/hook $S/10-hook",
		  "site entry $S/10-hook: $B/d, above its target: owned by uid "
		  "0 with mode 0777: " ABOVE_MUST },
		{ "a link to a hook in a directory of another user's", true,
		  "mkdir -m 0755 $B/d; chown 1:1 $B/d; cp -p $H $B/d/hook; "
		  "ln -s $B/d/hook $S/10-hook",
		  "site entry $S/10-hook: $B/d, which holds its target: owned "
		  "by uid 1 with mode 0755: " HOLDS_MUST },
		{ "a link on the way of another user's, in a sticky directory",
		  true,
		  "mkdir -m 1777 $B/t; mkdir -m 0755 $B/d; cp -p $H $B/d/hook; "
		  "ln -s $B/d $B/t/l; chown -h 1:1 $B/t/l; "
		  "ln -s $B/t/l/hook $S/10-hook",
		  "site entry $S/10-hook: $B/t/l, a link on the way to its "
		  "target: owned by uid 1 with mode 0777: it must be a link of "
		  "this user's or root's" },
		{ "a site file linked into a directory others may write", false,
		  "mkdir -m 0777 $B/d; echo '{\"ran\": true}' >$B/d/f.json; "
		  "ln -s $B/d/f.json $S/10.json",
		  "site entry $S/10.json: $B/d, which holds its target: owned "
		  "by uid 0 with mode 0777: " HOLDS_MUST },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		char site[64], base[64], says[FACTS_ERR_SIZE * 2];
		char err[FACTS_ERR_SIZE] = "";

		if (rows[i].chown && geteuid() != 0)
			continue;
		two_dirs(site, base);
		set_out(rows[i].setup, site, base);
		expand(rows[i].says, site, base, says, sizeof(says));
		cr_expect_eq(facts_site_dir(&set, site, true, 5, err), -1,
			     "%s: accepted", rows[i].desc);
		cr_expect_str_eq(err, says, "%s", rows[i].desc);
		cr_expect(!ran(base), "%s: the hook ran", rows[i].desc);
		remove_dir(site);
		remove_dir(base);
	}
}

/* The site directory itself: in a directory others may write, or owned
 * by another user, it is refused as a whole, hooks and all. */
Test(facts, a_site_directory_others_could_replace_is_refused, .init = set_up,
     .fini = tear_down)
{
	char site[64], base[64], dir[128], says[FACTS_ERR_SIZE * 2];
	char err[FACTS_ERR_SIZE] = "";

	two_dirs(site, base);
	set_out("mkdir -m 0777 $B/d; mkdir -m 0755 $B/d/site; "
		"cp -p $H $B/d/site/10-hook",
		site, base);
	snprintf(dir, sizeof(dir), "%s/d/site", base);
	cr_assert_eq(facts_site_dir(&set, dir, true, 5, err), -1);
	expand("site directory $B/d/site: $B/d, above the site directory: "
	       "owned by uid 0 with mode 0777: " ABOVE_MUST,
	       site, base, says, sizeof(says));
	cr_assert_str_eq(err, says);
	cr_assert(!ran(base));
	if (geteuid() == 0) {
		set_out("chmod 0755 $B/d; chown 1:1 $B/d", site, base);
		cr_assert_eq(facts_site_dir(&set, dir, true, 5, err), -1);
		cr_assert_not_null(strstr(err, "owned by uid 1 with mode 0755"),
				   "%s", err);
		cr_assert(!ran(base));
	}
	remove_dir(site);
	remove_dir(base);
}

/* What a local user can do in a directory others may write, in a loop
 * while facts run (rename the hook away and back, put a directory or a
 * file of their own in its place), gives the same refusal every time:
 * never a run of the hook, never an error that depends on the moment. */
Test(facts, the_refusal_does_not_depend_on_the_moment, .init = set_up,
     .fini = tear_down)
{
	char site[64], base[64], says[FACTS_ERR_SIZE * 2], d[128];
	pid_t pid;

	two_dirs(site, base);
	set_out("mkdir -m 0777 $B/d; cp -p $H $B/d/hook; "
		"ln -s $B/d/hook $S/10-hook",
		site, base);
	expand("site entry $S/10-hook: $B/d, which holds its target: owned "
	       "by uid 0 with mode 0777: " HOLDS_MUST,
	       site, base, says, sizeof(says));
	snprintf(d, sizeof(d), "%s/d", base);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		if (chdir(d) != 0)
			_exit(1);
		for (;;) {
			rename("hook", "away");
			mkdir("hook", 0755);
			rmdir("hook");
			rename("away", "hook");
		}
	}
	for (int i = 0; i < 50; i++) {
		char err[FACTS_ERR_SIZE] = "";

		cr_expect_eq(facts_site_dir(&set, site, true, 5, err), -1,
			     "run %d accepted", i);
		cr_expect_str_eq(err, says, "run %d", i);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	cr_expect(!ran(base), "the hook ran");
	remove_dir(site);
	remove_dir(base);
}

/* Links that only root (or this user) can change keep working: to a hook
 * in a directory of root's (under sticky /tmp), relative, through a
 * second link, and a site directory that is itself a link. */
Test(facts, an_entry_in_directories_of_roots_still_runs, .init = set_up,
     .fini = tear_down)
{
	static const struct {
		const char *desc;
		const char *setup;
	} rows[] = {
		{ "a link to a hook in a directory of root's",
		  "mkdir -m 0755 $B/d; cp -p $H $B/d/hook; "
		  "ln -s $B/d/hook $S/10-hook" },
		{ "a relative link",
		  "mkdir -m 0755 $B/d; cp -p $H $B/d/hook; "
		  "ln -s ../$(basename $B)/d/hook $S/10-hook" },
		{ "a link to a link of root's",
		  "mkdir -m 0755 $B/d $B/e; cp -p $H $B/d/hook; "
		  "ln -s $B/d/hook $B/e/l; ln -s $B/e/l $S/10-hook" },
		{ "a link through a sticky directory, the link root's",
		  "mkdir -m 1777 $B/t; mkdir -m 0755 $B/d; cp -p $H $B/d/hook; "
		  "ln -s $B/d $B/t/l; ln -s $B/t/l/hook $S/10-hook" },
		{ "a site file linked into a directory of root's",
		  "mkdir -m 0755 $B/d; echo '{\"ran\": true}' >$B/d/f.json; "
		  "ln -s $B/d/f.json $S/10.json" },
		{ "a hook in the site directory", "cp -p $H $S/10-hook" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		char site[64], base[64], err[FACTS_ERR_SIZE] = "";

		two_dirs(site, base);
		set_out(rows[i].setup, site, base);
		cr_expect_eq(facts_site_dir(&set, site, true, 5, err), 0,
			     "%s: %s", rows[i].desc, err);
		cr_expect_str_eq(fact(&set, "ran"), "true", "%s", rows[i].desc);
		remove_dir(site);
		remove_dir(base);
	}
	/* the site directory reached through a link of root's */
	{
		char site[64], base[64], link[128], err[FACTS_ERR_SIZE] = "";

		two_dirs(site, base);
		set_out("cp -p $H $S/10-hook; ln -s $S $B/site", site, base);
		snprintf(link, sizeof(link), "%s/site", base);
		cr_expect_eq(facts_site_dir(&set, link, true, 5, err), 0, "%s",
			     err);
		cr_expect_str_eq(fact(&set, "ran"), "true");
		remove_dir(site);
		remove_dir(base);
	}
}
