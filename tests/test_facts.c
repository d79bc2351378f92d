/*
 * test_facts.c - slurm-extra facts (facts/; doc/facts.md): the
 * value texts, the CPU flags and levels, os-release, the checks a fact
 * must pass, the site directory (files, hooks, their failures and their
 * bounds), who owns a key in a publication, the GPU facts through a stand-in
 * NVML (tests/fake_nvml.c), and this machine's own facts read back as
 * Slurm reads Extra and matched by requests built from them.
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
#include "leakcheck.h"

LEAK_CHECKED(facts);

/* ------------------------------------------------------------- helpers */

static struct facts set;

static void set_up(void)
{
	cr_assert_eq(facts_init(&set), 0);
}

static void tear_down(void)
{
	facts_fini(&set);
}

/* The text of fact `key` of `f` (compact JSON), or "(none)". */
static const char *fact(const struct facts *f, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(f->values, key, &v))
		return "(none)";
	return json_object_to_json_string_ext(
		v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

static const char *source(const struct facts *f, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(f->sources, key, &v))
		return "(none)";
	return json_object_get_string(v);
}

/* A fresh directory under /tmp. */
static void make_dir(char *dir)
{
	strcpy(dir, "/tmp/xc-facts-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void write_in(const char *dir, const char *name, const char *text,
		     mode_t mode)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	cr_assert_not_null(fp, "%s", path);
	fputs(text, fp);
	fclose(fp);
	cr_assert_eq(chmod(path, mode), 0);
}

static void remove_dir(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

/* ---------------------------------------------------------- value texts */

Test(facts, value_texts_are_what_a_request_can_name)
{
	static const char *const rows[][2] = {
		{ "Intel(R) Xeon(R) Platinum 8480+",
		  "Intel_Xeon_Platinum_8480+" },
		{ "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz",
		  "Intel_Xeon_Gold_6248_CPU" },
		{ "AMD EPYC 7763 64-Core Processor",
		  "AMD_EPYC_7763_64-Core_Processor" },
		{ "  a   b  ", "a_b" },
		{ "x<y>=z!(w),&|v", "xyzwv" },
		{ "tab\there", "tab_here" },
		{ "Neoverse-V2", "Neoverse-V2" },
		{ "(TM)", "" },
		{ "", "" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		char *t = facts_value_text(rows[i][0]);

		cr_assert_not_null(t);
		cr_assert_str_eq(t, rows[i][1], "'%s'", rows[i][0]);
		free(t);
	}
}

Test(facts, gpu_models_are_short)
{
	static const char *const rows[][2] = {
		{ "NVIDIA H100 80GB HBM3", "H100" },
		{ "NVIDIA A100-SXM4-80GB", "A100" },
		{ "Tesla V100-SXM2-32GB", "V100" },
		{ "NVIDIA GeForce RTX 4090", "RTX_4090" },
		{ "NVIDIA L40S", "L40S" },
		{ "AMD Instinct MI250X", "MI250X" },
		{ "Intel(R) Data Center GPU Max 1550", "Max_1550" },
		{ "NVIDIA", "NVIDIA" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		char *t = facts_gpu_model(rows[i][0]);

		cr_assert_not_null(t);
		cr_assert_str_eq(t, rows[i][1], "'%s'", rows[i][0]);
		free(t);
	}
}

/* ------------------------------------------------------------ CPU flags */

#define X86_V1 "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr cmov sse sse2"
#define X86_V2 X86_V1 " cx16 lahf_lm popcnt sse4_1 sse4_2 ssse3"
#define X86_V3 X86_V2 " avx avx2 bmi1 bmi2 f16c fma abm movbe xsave"
#define X86_V4 X86_V3 " avx512f avx512bw avx512cd avx512dq avx512vl"

Test(facts, x86_flags_and_levels, .init = set_up, .fini = tear_down)
{
	static const struct {
		const char *flags;
		const char *level;
	} rows[] = {
		{ X86_V1, "1" },
		{ X86_V2, "2" },
		{ X86_V3, "3" },
		{ X86_V4, "4" },
		/* v4's flags without one of v3's is v2 */
		{ X86_V2
		  " avx avx2 bmi1 bmi2 f16c fma abm xsave avx512f avx512bw avx512cd avx512dq avx512vl",
		  "2" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		char text[1024];

		snprintf(
			text, sizeof(text),
			"processor\t: 0\nmodel name\t: X\nflags\t\t: %s\nbugs\t\t: none\n\nprocessor\t: 1\nflags\t\t: fpu\n",
			rows[i].flags);
		cr_assert_eq(facts_cpu_flags(&set, text, "x86_64"), 0);
		cr_assert_str_eq(fact(&set, "x86_64_level"), rows[i].level,
				 "row %zu", i);
	}
	cr_assert_str_eq(fact(&set, "avx512f"), "true");
	cr_assert_str_eq(fact(&set, "amx_tile"), "false");
	cr_assert_str_eq(source(&set, "avx2"), "/proc/cpuinfo");
	/* a word is a whole flag: "avx512f" does not give "avx" */
	facts_fini(&set);
	cr_assert_eq(facts_init(&set), 0);
	cr_assert_eq(
		facts_cpu_flags(&set, "flags\t: avx512f sse4_2x\n", "x86_64"),
		0);
	cr_assert_str_eq(fact(&set, "avx"), "false");
	cr_assert_str_eq(fact(&set, "sse4_2"), "false");
	cr_assert_str_eq(fact(&set, "avx512f"), "true");
}

Test(facts, arm_features_and_other_architectures, .init = set_up,
     .fini = tear_down)
{
	cr_assert_eq(
		facts_cpu_flags(
			&set,
			"processor\t: 0\nFeatures\t: fp asimd aes sve sve2 i8mm bf16\nCPU implementer\t: 0x41\n",
			"aarch64"),
		0);
	cr_assert_str_eq(fact(&set, "sve"), "true");
	cr_assert_str_eq(fact(&set, "sme"), "false");
	cr_assert_str_eq(fact(&set, "x86_64_level"), "(none)");
	/* no list for the architecture, or no flags line: nothing */
	cr_assert_eq(facts_cpu_flags(&set, "cpu\t: POWER10\n", "ppc64le"), 0);
	cr_assert_eq(facts_cpu_flags(&set, "processor\t: 0\n", "x86_64"), 0);
	cr_assert_eq(json_object_object_length(set.values), 9);
}

/* ----------------------------------------------------------- os-release */

Test(facts, os_release, .init = set_up, .fini = tear_down)
{
	static const struct {
		const char *text;
		const char *id, *version, *major, *minor;
	} rows[] = {
		{ "NAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\nID=debian\n",
		  "\"debian\"", "\"12\"", "12", "(none)" },
		{ "ID=ubuntu\nVERSION_ID=\"22.04\"\n", "\"ubuntu\"",
		  "\"22.04\"", "22", "4" },
		/* 8.10 is not 8.1 */
		{ "ID=\"rocky\"\nVERSION_ID='8.10'\n", "\"rocky\"", "\"8.10\"",
		  "8", "10" },
		{ "ID=sles\nVERSION_ID=\"15-SP5\"\n", "\"sles\"", "\"15-SP5\"",
		  "15", "(none)" },
		{ "ID=arch\n", "\"arch\"", "(none)", "(none)", "(none)" },
		{ "ID_LIKE=debian\nVERSION_ID=1.2.3\n", "(none)", "\"1.2.3\"",
		  "1", "2" },
		{ "ID=x\nVERSION_ID=rolling\n", "\"x\"", "\"rolling\"",
		  "(none)", "(none)" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		facts_fini(&set);
		cr_assert_eq(facts_init(&set), 0);
		cr_assert_eq(facts_os_release(&set, rows[i].text, "os-release"),
			     0);
		cr_assert_str_eq(fact(&set, "os_id"), rows[i].id, "row %zu", i);
		cr_assert_str_eq(fact(&set, "os_version"), rows[i].version,
				 "row %zu", i);
		cr_assert_str_eq(fact(&set, "os_version_major"), rows[i].major,
				 "row %zu", i);
		cr_assert_str_eq(fact(&set, "os_version_minor"), rows[i].minor,
				 "row %zu", i);
	}
}

/* ------------------------------------------------------------- checking */

Test(facts, what_can_stand_in_extra)
{
	static const struct {
		const char *key;
		const char *json; /* the value, as JSON */
		const char *why;  /* NULL: accepted */
	} rows[] = {
		{ "rack", "\"r1\"", NULL },
		{ "n", "5", NULL },
		{ "x", "2.5", NULL },
		{ "b", "false", NULL },
		{ "", "1", "key '' is empty" },
		{ "a=b", "1", "key 'a=b' holds an operator byte" },
		{ "a b", "1", NULL },
		{ "k", "[1]", "the value of 'k' is an array" },
		{ "k", "{\"a\":1}", "the value of 'k' is an object" },
		{ "k", "null", "the value of 'k' is null" },
		{ "k", "NaN", "the value of 'k' is not a finite number" },
		{ "k", "\"\"", "the value of 'k' is empty" },
		{ "k", "\"a|b\"", "the value of 'k' (\"a|b\") holds '|'" },
		{ "k", "\"a\\nb\"", "holds 'a control byte'" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		/* a bare NaN is not read without something after it */
		json_object *v = strcmp(rows[i].json, "NaN") == 0
					 ? json_object_new_double(NAN)
					 : json_tokener_parse(rows[i].json);
		char why[FACTS_ERR_SIZE] = "";
		bool ok;

		/* (json-c's null is NULL) */
		cr_assert(v || strcmp(rows[i].json, "null") == 0, "%s",
			  rows[i].json);
		ok = facts_check(rows[i].key, v, why);
		json_object_put(v);
		if (!rows[i].why) {
			cr_assert(ok, "%s: %s", rows[i].key, why);
			continue;
		}
		cr_assert(!ok, "row %zu accepted", i);
		cr_assert_not_null(strstr(why, rows[i].why), "row %zu: %s", i,
				   why);
	}
	{ /* 129-byte key */
		char key[130];
		json_object *v = json_object_new_int(1);
		char why[FACTS_ERR_SIZE];

		memset(key, 'k', 129);
		key[129] = '\0';
		cr_assert(!facts_check(key, v, why));
		cr_assert_not_null(strstr(why, "too long"));
		key[128] = '\0';
		cr_assert(facts_check(key, v, why));
		json_object_put(v);
	}
}

/* ------------------------------------------------------- site directory */

/* The race a hook reached through a link into another directory opens:
 * someone who may write that directory renames another file over the
 * hook between its check and its run (forced here by facts_site_checked,
 * at that very moment).  What runs is the file that was checked. */
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
 * (a sticky one, as /tmp, is not), reached through a link too; the state
 * directory itself may not be a link. */
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

/* ------------------------------------------------------------ ownership */

/* A publication: keys set by hand stay, discovery's and the site's are
 * replaced, a site key gone from the site is removed (known from the
 * state file), a hand-set key under a discovered name is replaced. */
Test(facts, who_owns_a_key, .init = set_up, .fini = tear_down)
{
	char dir[64], state[256], sdir[128], err[FACTS_ERR_SIZE] = "";
	char *next, *changes;
	struct facts *f = &set;
	int fd, lock;

	make_dir(dir);
	snprintf(sdir, sizeof(sdir), "%s/state", dir);
	snprintf(state, sizeof(state), "%s/facts-n1.keys.json", sdir);
	/* the state read by path here, as the command reads it from the
	 * directory's descriptor */
	cr_assert_eq(facts_put(f, "mem_mb", json_object_new_int(1024), "t"), 0);
	cr_assert_eq(facts_put(f, "gpu_cc", facts_real(8.6, "8.6"), "t"), 0);
	write_in(dir, "rack.json", "{\"rack\": \"r2\"}", 0644);
	cr_assert_eq(facts_site_dir(f, dir, true, 1, err), 0, "%s", err);

	/* first publication over hand-set keys */
	cr_assert_eq(
		facts_publication(
			f,
			"{\"owner\":\"chem\",\"mem_mb\":1,\"rack\":\"r1\",\"gpu_count\":4,\"none\":null}",
			AT_FDCWD, state, &next, &changes, err),
		1, "%s", err);
	cr_assert_str_eq(
		next,
		"{\"owner\":\"chem\",\"none\":null,\"mem_mb\":1024,\"gpu_cc\":8.6,\"rack\":\"r2\"}");
	cr_assert_str_eq(changes, "~mem_mb ~rack -gpu_count +gpu_cc");
	free(next);
	free(changes);
	fd = facts_open_state(sdir, 1, &lock, err);
	cr_assert_geq(fd, 0, "%s", err);
	cr_assert_eq(facts_save_state(f, fd, "facts-n1.keys.json"), 0);
	close(lock);
	close(fd);
	/* the same again, keys in another order and blanks: unchanged */
	cr_assert_eq(
		facts_publication(
			f,
			" {\"rack\":\"r2\", \"gpu_cc\":8.60, \"mem_mb\":1024,\"owner\":\"chem\",\"none\":null}",
			AT_FDCWD, state, &next, &changes, err),
		0, "%s", err);
	cr_assert_null(next);
	free(changes);
	/* the site drops rack: the state says it was the site's */
	write_in(dir, "rack.json", "{}", 0644);
	cr_assert_eq(facts_site_dir(f, dir, true, 1, err), 0, "%s", err);
	json_object_object_del(f->values, "rack");
	cr_assert_eq(
		facts_publication(
			f,
			"{\"owner\":\"chem\",\"mem_mb\":1024,\"gpu_cc\":8.6,\"rack\":\"r2\"}",
			AT_FDCWD, state, &next, &changes, err),
		1, "%s", err);
	cr_assert_str_eq(next,
			 "{\"owner\":\"chem\",\"mem_mb\":1024,\"gpu_cc\":8.6}");
	cr_assert_str_eq(changes, "-rack");
	free(next);
	free(changes);
	/* no Extra yet: every fact is new */
	cr_assert_eq(
		facts_publication(f, "", AT_FDCWD, state, &next, &changes, err),
		1);
	cr_assert_str_eq(changes, "+mem_mb +gpu_cc");
	free(next);
	free(changes);
	/* Extra that is not an object is not replaced */
	cr_assert_eq(facts_publication(f, "plain text", AT_FDCWD, state, &next,
				       &changes, err),
		     -1);
	cr_assert_not_null(strstr(err, "not a JSON object"), "%s", err);
	cr_assert_eq(facts_publication(f, "[1]", AT_FDCWD, state, &next,
				       &changes, err),
		     -1);
	remove_dir(dir);
}

Test(facts, a_publication_is_bounded, .init = set_up, .fini = tear_down)
{
	char err[FACTS_ERR_SIZE], *next, *changes, *big;

	big = malloc(1001);
	cr_assert_not_null(big);
	memset(big, 'x', 1000);
	big[1000] = '\0';
	for (int i = 0; i < 70; i++) {
		char key[16];

		snprintf(key, sizeof(key), "k%d", i);
		cr_assert_eq(
			facts_put(&set, key, json_object_new_string(big), "t"),
			0);
	}
	free(big);
	cr_assert_eq(facts_publication(&set, NULL, AT_FDCWD,
				       "/nonexistent/state", &next, &changes,
				       err),
		     -1);
	cr_assert_not_null(strstr(err, "more than 65536"), "%s", err);
}

/* ------------------------------------------------------------------ GPUs */

Test(facts, gpus_through_nvml, .init = set_up, .fini = tear_down)
{
	char warn[FACTS_ERR_SIZE] = "";

	setenv("SLURM_EXTRA_NVML", FAKE_NVML, 1);
	unsetenv("FAKE_NVML_MIXED");
	unsetenv("FAKE_NVML_FAIL");
	cr_assert_eq(facts_gpu_libs(&set, warn), 1, "%s", warn);
	cr_assert_str_eq(fact(&set, "gpu_count"), "2");
	cr_assert_str_eq(fact(&set, "gpu_vendor"), "\"nvidia\"");
	cr_assert_str_eq(fact(&set, "gpu_model"), "\"H100\"");
	cr_assert_str_eq(fact(&set, "gpu_name"), "\"NVIDIA_H100_80GB_HBM3\"");
	cr_assert_str_eq(fact(&set, "gpu_mem_mb"), "81559");
	cr_assert_str_eq(fact(&set, "gpu_driver"), "\"550.54.15\"");
	cr_assert_str_eq(fact(&set, "gpu_cc"), "9.0");
	cr_assert_str_eq(source(&set, "gpu_model"), "NVML (" FAKE_NVML ")");

	facts_fini(&set);
	cr_assert_eq(facts_init(&set), 0);
	setenv("FAKE_NVML_MIXED", "1", 1);
	cr_assert_eq(facts_gpu_libs(&set, warn), 1, "%s", warn);
	cr_assert_str_eq(fact(&set, "gpu_model"), "\"mixed\"");
	cr_assert_str_eq(fact(&set, "gpu_cc"), "(none)");
	unsetenv("FAKE_NVML_MIXED");

	/* a GPU the library lists but cannot read still counts */
	facts_fini(&set);
	cr_assert_eq(facts_init(&set), 0);
	setenv("FAKE_NVML_BROKEN", "1", 1);
	cr_assert_eq(facts_gpu_libs(&set, warn), 1, "%s", warn);
	cr_assert_str_eq(fact(&set, "gpu_count"), "2");
	cr_assert_str_eq(fact(&set, "gpu_model"), "\"H100\"");
	unsetenv("FAKE_NVML_BROKEN");

	/* in a child process: the same facts */
	facts_fini(&set);
	cr_assert_eq(facts_init(&set), 0);
	cr_assert_eq(facts_gpu_bounded(&set, 5, warn), 1, "%s", warn);
	cr_assert_str_eq(fact(&set, "gpu_model"), "\"H100\"");
	cr_assert_str_eq(fact(&set, "gpu_cc"), "9.0");
	cr_assert_str_eq(source(&set, "gpu_cc"), "NVML (" FAKE_NVML ")");
	/* a library that hangs costs the timeout, then PCI says */
	facts_fini(&set);
	cr_assert_eq(facts_init(&set), 0);
	setenv("FAKE_NVML_HANG", "1", 1);
	cr_assert_eq(facts_gpu_bounded(&set, 1, warn), 0);
	cr_assert_str_eq(
		warn,
		"the GPU libraries did not answer within 1 s (killed): GPUs counted from PCI");
	cr_assert_str_eq(fact(&set, "gpu_count"), "(none)");
	unsetenv("FAKE_NVML_HANG");

	/* a driver that does not load: the next library, then none */
	facts_fini(&set);
	cr_assert_eq(facts_init(&set), 0);
	setenv("FAKE_NVML_FAIL", "1", 1);
	setenv("SLURM_EXTRA_ROCM_SMI", "/nonexistent/librocm_smi64.so.1", 1);
	cr_assert_eq(facts_gpu_libs(&set, warn), 0);
	cr_assert_not_null(strstr(warn, "NVML: nvmlInit failed"), "%s", warn);
	cr_assert_not_null(
		strstr(warn, "ROCm SMI: /nonexistent/librocm_smi64.so.1"), "%s",
		warn);
	cr_assert_str_eq(fact(&set, "gpu_count"), "(none)");
	unsetenv("FAKE_NVML_FAIL");
	unsetenv("SLURM_EXTRA_NVML");
	unsetenv("SLURM_EXTRA_ROCM_SMI");
}

/* ------------------------------------------------------ this machine */

/* The request `key=value` for each fact (a string as it is, a number or a
 * boolean as JSON writes it). */
static void leaf_of(char *buf, size_t size, const char *key, json_object *v)
{
	snprintf(buf, size, "%s=%s", key,
		 json_object_is_type(v, json_type_string)
			 ? json_object_get_string(v)
			 : json_object_to_json_string_ext(
				   v, JSON_C_TO_STRING_PLAIN));
}

/* facts on the machine the test runs on, read back as Slurm reads Extra:
 * every fact is a key, and the request built from each one matches, as
 * does their conjunction, while a changed value does not. */
Test(facts, this_machine_round_trips)
{
	struct facts_env env = { NULL, NULL, NULL, false, 10 };
	char note[FACTS_ERR_SIZE], err[FACTS_ERR_SIZE], leaf[2048];
	char *text, *all = NULL;
	size_t all_len = 0;
	struct facts *f =
		facts_gather(&env, "/nonexistent/xc", false, 10, note, err);
	xc_extra_state_t state;
	xc_extra_t *extra;

	cr_assert_not_null(f, "%s", err);
	text = facts_text(f);
	cr_assert_not_null(text);
	extra = xc_extra_load(text, strlen(text), NULL, &state, NULL);
	cr_assert_not_null(extra, "%s", text);
	cr_assert_eq(xc_extra_count(extra),
		     (size_t)json_object_object_length(f->values));
	/* what every Linux node has */
	static const char *const always[] = { "cpu_arch", "kernel_release",
					      "mem_mb",	  "cpu_threads",
					      "os_id",	  "gpu_count" };
	for (size_t i = 0; i < sizeof(always) / sizeof(*always); i++)
		cr_assert(json_object_object_get_ex(f->values, always[i], NULL),
			  "no %s in %s", always[i], text);
	json_object_object_foreach (f->values, key, v) {
		xc_error_t e;
		xc_expr_t *x;
		char *grown;

		leaf_of(leaf, sizeof(leaf), key, v);
		x = xc_parse(leaf, NULL, &e);
		cr_assert_not_null(x, "%s: %s", leaf, e.message);
		cr_assert(xc_match(x, extra), "%s does not match %s", leaf,
			  text);
		xc_expr_destroy(x);
		/* the same key with another value does not */
		snprintf(leaf, sizeof(leaf), "%s=%s", key,
			 json_object_is_type(v, json_type_boolean)
				 ? (json_object_get_boolean(v) ? "false"
							       : "true")
				 : "xc-other");
		x = xc_parse(leaf, NULL, &e);
		cr_assert_not_null(x, "%s: %s", leaf, e.message);
		cr_assert(!xc_match(x, extra), "%s matches %s", leaf, text);
		xc_expr_destroy(x);
		leaf_of(leaf, sizeof(leaf), key, v);
		grown = realloc(all, all_len + strlen(leaf) + 2);
		cr_assert_not_null(grown);
		all = grown;
		all_len += (size_t)sprintf(all + all_len, "%s%s",
					   all_len ? "&" : "", leaf);
	}
	{
		xc_error_t e;
		xc_limits_t lim = { .max_request_length = 65536 };
		xc_expr_t *x;

		x = xc_parse(all, &lim, &e);
		cr_assert_not_null(x, "%s", e.message);
		cr_assert(xc_match(x, extra), "%s", all);
		xc_expr_destroy(x);
	}
	free(all);
	xc_extra_destroy(extra);
	free(text);
	facts_free(f);
}
