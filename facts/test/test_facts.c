/*
 * test_facts.c - slurm-extra facts (facts/; doc/facts.md): the
 * value texts, the CPU flags and levels, os-release, the checks a fact
 * must pass, who owns a key in a publication, the GPU facts through a
 * stand-in NVML (facts/test/fake_nvml.c), and this machine's own facts read
 * back as Slurm reads Extra and matched by requests built from them.  The
 * site directory is test_facts_site.c's, the directories and links its
 * entries are reached through test_facts_site_dirs.c's, the state of
 * --publish test_facts_state.c's: one test program.
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
#include "leakcheck.h"

LEAK_CHECKED(facts);

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
