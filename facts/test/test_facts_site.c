/*
 * test_facts_site.c - the site directory of slurm-extra facts (facts/;
 * doc/facts.md §4): its files and hooks, their failures and
 * their bounds.  Part of the test program test_facts.
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

/* The race a hook reached through a link into another directory opens:
 * someone who may write that directory (root or this user: a directory
 * others may write is refused, test_facts_site_dirs.c) renames another
 * file over the hook between its check and its run (forced here by
 * facts_site_checked, at that very moment).  What runs is the file that
 * was checked. */
static char swap_dir[64];

static void swap_hook(const char *path)
{
	char from[128], to[128];

	(void)path;
	snprintf(from, sizeof(from), "%s/other", swap_dir);
	snprintf(to, sizeof(to), "%s/hook", swap_dir);
	cr_assert_eq(rename(from, to), 0);
}

Test(facts, a_hook_runs_as_it_was_checked, .init = set_up, .fini = tear_down)
{
	char dir[64], target[128], link[128], err[FACTS_ERR_SIZE] = "";

	make_dir(dir);
	make_dir(swap_dir);
	write_in(swap_dir, "hook", "#!/bin/sh\necho '{\"who\": \"checked\"}'\n",
		 0755);
	write_in(swap_dir, "other",
		 "#!/bin/sh\necho '{\"who\": \"swapped\"}'\n", 0755);
	snprintf(target, sizeof(target), "%s/hook", swap_dir);
	snprintf(link, sizeof(link), "%s/10-hook", dir);
	cr_assert_eq(symlink(target, link), 0);
	facts_site_checked = swap_hook;
	cr_assert_eq(facts_site_dir(&set, dir, true, 10, err), 0, "%s", err);
	facts_site_checked = NULL;
	cr_assert_str_eq(fact(&set, "who"), "\"checked\"");
	remove_dir(dir);
	remove_dir(swap_dir);
}

Test(facts, site_files_and_hooks_merge_in_name_order, .init = set_up,
     .fini = tear_down)
{
	char dir[64], err[FACTS_ERR_SIZE] = "";

	make_dir(dir);
	cr_assert_eq(facts_put(&set, "cpu_arch",
			       json_object_new_string("x86_64"), "uname(2)"),
		     0);
	write_in(dir, "10-rack.json", "{\"rack\": \"r1\", \"row\": 3}", 0644);
	write_in(dir, "20-hook",
		 "#!/bin/sh\necho '{\"rack\": \"r2\", \"app\": true}'\n", 0755);
	write_in(dir, "30-arch.json", "{\"cpu_arch\": \"site-said\"}", 0644);
	write_in(dir, "README", "not a fact", 0644);
	write_in(dir, "40-off", "#!/bin/sh\nexit 1\n",
		 0644); /* not executable */
	write_in(dir, "50.json~", "garbage", 0644);
	write_in(dir, ".hidden.json", "garbage", 0644);
	write_in(dir, "60.json.dpkg-old", "garbage", 0644);
	cr_assert_eq(facts_site_dir(&set, dir, true, 10, err), 0, "%s", err);
	cr_assert_str_eq(fact(&set, "rack"), "\"r2\"");
	cr_assert_str_eq(fact(&set, "row"), "3");
	cr_assert_str_eq(fact(&set, "app"), "true");
	cr_assert_str_eq(fact(&set, "cpu_arch"), "\"site-said\"");
	cr_assert_not_null(strstr(source(&set, "rack"), "site hook"));
	cr_assert_not_null(strstr(source(&set, "cpu_arch"), "site file"));
	cr_assert_str_eq(json_object_to_json_string_ext(set.site_keys,
							JSON_C_TO_STRING_PLAIN),
			 "[\"rack\",\"row\",\"app\",\"cpu_arch\"]");
	remove_dir(dir);
	/* a missing directory: nothing, unless it must exist */
	cr_assert_eq(facts_site_dir(&set, "/nonexistent/xc", false, 10, err),
		     0);
	cr_assert_eq(json_object_array_length(set.site_keys), 0);
	cr_assert_eq(facts_site_dir(&set, "/nonexistent/xc", true, 10, err),
		     -1);
	cr_assert_str_eq(
		err,
		"site directory /nonexistent/xc: No such file or directory");
}

/* Each wrong entry fails the whole directory, naming the entry. */
Test(facts, wrong_site_entries_are_named, .init = set_up, .fini = tear_down)
{
	static const struct {
		const char *name;
		const char *text;
		mode_t mode;
		const char *says;
	} rows[] = {
		{ "a.json", "[1, 2]", 0644,
		  "/a.json: not a JSON object (a array)" },
		{ "a.json", "{\"a\": 1", 0644,
		  "/a.json: not JSON (it ends too early" },
		{ "a.json", "{\"a\": 1} {\"b\": 2}", 0644,
		  "more than one JSON object" },
		{ "a.json", "{\"k\": {\"x\": 1}}", 0644,
		  "the value of 'k' is an object" },
		{ "hook", "#!/bin/sh\necho garbage\n", 0755,
		  "site hook /tmp/xc-facts-" },
		{ "hook", "#!/bin/sh\necho garbage\n", 0755,
		  "/hook: not JSON" },
		{ "hook", "#!/bin/sh\necho '{}'\nexit 3\n", 0755,
		  "/hook: exited with status 3" },
		{ "hook", "#!/bin/sh\nkill -9 $$\n", 0755,
		  "/hook: was killed by signal 9" },
		{ "hook", "#!/nonexistent/interpreter\n", 0755,
		  "/hook: cannot be run: No such file or directory" },
		/* a command of the hook's not found is the hook's failure */
		{ "hook", "#!/bin/sh\n/nonexistent/cmd\n", 0755,
		  "/hook: exited with status 127" },
		{ "hook", "#!/bin/sh\nexit 0\n", 0755,
		  "/hook: printed nothing" },
		{ "hook", "#!/bin/sh\nprintf '{}\\000x'\n", 0755,
		  "/hook: printed a NUL byte" },
		{ "a.json", "{}", 0666,
		  "/a.json: writable by others (mode 0666)" },
		{ "hook", "#!/bin/sh\necho '{}'\n", 0757,
		  "/hook: writable by others (mode 0757)" },
		{ "hook", "#!/bin/sh\nhead -c 70000 /dev/zero | tr '\\0' ' '\n",
		  0755, "/hook: printed more than 65536 bytes (killed)" },
		{ "hook", "#!/bin/sh\nexec sleep 30\n", 0755,
		  "/hook: did not finish within 1 s" },
		/* a child keeping the output open is killed with the group */
		{ "hook", "#!/bin/sh\nsleep 30 &\necho '{}'\n", 0755,
		  "/hook: did not finish within 1 s" },
		/* it closes its output but does not exit */
		{ "hook", "#!/bin/sh\necho '{}'\nexec >&-\nsleep 30\n", 0755,
		  "/hook: did not finish within 1 s (killed)" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		char dir[64], err[FACTS_ERR_SIZE] = "";

		make_dir(dir);
		write_in(dir, rows[i].name, rows[i].text, rows[i].mode);
		cr_assert_eq(facts_site_dir(&set, dir, true, 1, err), -1,
			     "row %zu accepted", i);
		cr_assert_not_null(strstr(err, rows[i].says), "row %zu: %s", i,
				   err);
		remove_dir(dir);
	}
}

/* Whether process `pid` is gone (or a zombie, which runs no more). */
static bool gone(pid_t pid)
{
	char path[64], buf[256];
	FILE *fp;
	bool z = false;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(fp = fopen(path, "r")))
		return true;
	if (fgets(buf, sizeof(buf), fp)) {
		const char *p = strrchr(buf, ')');

		z = p && (p[2] == 'Z' || p[2] == 'X');
	}
	fclose(fp);
	return z;
}

/* Waits up to 5 s for `pid` to be gone. */
static bool gone_within(pid_t pid)
{
	for (int i = 0; i < 500; i++) {
		if (gone(pid))
			return true;
		usleep(10000);
	}
	return false;
}

static pid_t pid_in(const char *dir)
{
	char path[128];
	FILE *fp;
	int pid = 0;

	snprintf(path, sizeof(path), "%s/pid", dir);
	fp = fopen(path, "r");
	cr_assert_not_null(fp, "%s", path);
	cr_assert_eq(fscanf(fp, "%d", &pid), 1);
	fclose(fp);
	return (pid_t)pid;
}

/* What a hook leaves in its process group is killed: after it succeeded,
 * and with it when it holds the output open past the deadline. */
Test(facts, a_hooks_leftovers_are_killed, .init = set_up, .fini = tear_down)
{
	char dir[64], hook[512], err[FACTS_ERR_SIZE] = "";

	make_dir(dir);
	snprintf(
		hook, sizeof(hook),
		"#!/bin/sh\nsleep 30 >/dev/null 2>&1 &\necho $! >%s/pid\necho '{\"a\": 1}'\n",
		dir);
	write_in(dir, "hook", hook, 0755);
	cr_assert_eq(facts_site_dir(&set, dir, true, 5, err), 0, "%s", err);
	cr_assert(gone_within(pid_in(dir)), "the hook's sleep still runs");
	snprintf(hook, sizeof(hook),
		 "#!/bin/sh\nsleep 30 &\necho $! >%s/pid\necho '{}'\n", dir);
	write_in(dir, "hook", hook, 0755);
	cr_assert_eq(facts_site_dir(&set, dir, true, 1, err), -1);
	cr_assert_not_null(
		strstr(err, "left a process holding its output open"), "%s",
		err);
	cr_assert(gone_within(pid_in(dir)), "the hook's sleep still runs");
	remove_dir(dir);
}

/* --timeout bounds every hook together, not each one. */
Test(facts, the_timeout_is_the_directorys, .init = set_up, .fini = tear_down)
{
	char dir[64], err[FACTS_ERR_SIZE] = "";

	make_dir(dir);
	write_in(dir, "1-hook", "#!/bin/sh\nsleep 0.7\necho '{\"a\": 1}'\n",
		 0755);
	write_in(dir, "2-hook", "#!/bin/sh\nsleep 0.7\necho '{\"b\": 1}'\n",
		 0755);
	cr_assert_eq(facts_site_dir(&set, dir, true, 1, err), -1);
	cr_assert_not_null(strstr(err, "/2-hook: did not finish within 1 s"),
			   "%s", err);
	cr_assert_eq(facts_site_dir(&set, dir, true, 5, err), 0, "%s", err);
	remove_dir(dir);
}

/* A caller that ignores SIGCHLD (its children reaped for it) still gets
 * its hooks' exit statuses; the hook itself starts with default signals
 * (SIGPIPE too: systemd starts services with it ignored). */
Test(facts, hooks_run_with_default_signals, .init = set_up, .fini = tear_down)
{
	char dir[64], err[FACTS_ERR_SIZE] = "";
	struct sigaction ign, old_chld, old_pipe;

	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGCHLD, &ign, &old_chld);
	sigaction(SIGPIPE, &ign, &old_pipe);
	make_dir(dir);
	write_in(dir, "hook",
		 "#!/bin/sh\ns=$(grep SigIgn /proc/self/status | tr -d '\\t')\n"
		 "echo \"{\\\"ign\\\": \\\"$s\\\"}\"\n",
		 0755);
	cr_assert_eq(facts_site_dir(&set, dir, true, 5, err), 0, "%s", err);
	sigaction(SIGCHLD, &old_chld, NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
	{
		/* signals 1 to 31; glibc keeps 32 and 33 for itself */
		const char *t = json_object_get_string(
			json_object_object_get(set.values, "ign"));
		unsigned long long mask;

		cr_assert_not_null(t);
		cr_assert_eq(sscanf(t, "SigIgn:%llx", &mask), 1, "%s", t);
		cr_assert_eq(mask & 0x7fffffffull, 0, "%s", t);
	}
	remove_dir(dir);
}

Test(facts, too_many_site_entries, .init = set_up, .fini = tear_down)
{
	char dir[64], err[FACTS_ERR_SIZE] = "";

	make_dir(dir);
	for (int i = 0; i <= FACTS_SITE_MAX_ENTRIES; i++) {
		char name[32];

		snprintf(name, sizeof(name), "f%03d.json", i);
		write_in(dir, name, "{}", 0644);
	}
	cr_assert_eq(facts_site_dir(&set, dir, true, 1, err), -1);
	cr_assert_not_null(strstr(err, "more than 256 entries"), "%s", err);
	remove_dir(dir);
}
