/*
 * facts_cpu.c - the texts discovery reads by hand (facts_json.h):
 * /proc/cpuinfo's flags line, with the x86-64 level it makes, and
 * os-release.  Neither has a library on a Debian or RHEL node that reads
 * it (hwloc does not report flags; systemd's sd-bus has no os-release
 * reader), and each is one line of text: a general-purpose parser would be
 * larger than the reading.
 */
#define _GNU_SOURCE /* strcasestr */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facts_json.h"

/* ------------------------------------------------------- CPU flags */

/* The flags people select nodes on, as the kernel names them in
 * /proc/cpuinfo (arch/x86/include/asm/cpufeatures.h, and the "Features"
 * of arch/arm64/kernel/cpuinfo.c).  Each is published true or false. */
static const char *const X86_FLAGS[] = {
	"sse4_2",      "avx",	       "avx2",	      "fma",
	"f16c",	       "bmi2",	       "aes",	      "vaes",
	"sha_ni",      "avx_vnni",     "avx512f",     "avx512cd",
	"avx512bw",    "avx512dq",     "avx512vl",    "avx512ifma",
	"avx512vbmi",  "avx512_vbmi2", "avx512_vnni", "avx512_bf16",
	"avx512_fp16", "amx_tile",     "amx_bf16",    "amx_int8",
	NULL
};
static const char *const ARM_FLAGS[] = { "asimd",   "sve",  "sve2", "sme",
					 "i8mm",    "bf16", "aes",  "sha3",
					 "atomics", NULL };

/* The x86-64 psABI's microarchitecture levels, as kernel flag names:
 * each level needs its flags and the levels below it. */
static const char *const X86_V2[] = { "cx16",	"lahf_lm", "popcnt", "sse4_1",
				      "sse4_2", "ssse3",   NULL };
static const char *const X86_V3[] = { "avx", "avx2", "bmi1",  "bmi2",  "f16c",
				      "fma", "abm",  "movbe", "xsave", NULL };
static const char *const X86_V4[] = { "avx512f",  "avx512bw", "avx512cd",
				      "avx512dq", "avx512vl", NULL };

bool facts_flag_key(const char *key)
{
	for (const char *const *l = X86_FLAGS; *l; l++)
		if (!strcmp(*l, key))
			return true;
	for (const char *const *l = ARM_FLAGS; *l; l++)
		if (!strcmp(*l, key))
			return true;
	return false;
}

/* Whether the blank-separated word list `list` holds `word`. */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ' || p[-1] == '\t') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '\t' ||
		     p[n] == '\n'))
			return true;
	return false;
}

static bool has_all(const char *list, const char *const *words)
{
	for (; *words; words++)
		if (!has_word(list, *words))
			return false;
	return true;
}

/* The value of the first line of `text` whose name is `name` ("flags\t\t:
 * fpu vme ..."): a malloc'd copy up to the newline, or NULL (none, or out
 * of memory: *nomem says which). */
static char *cpuinfo_line(const char *text, const char *name, bool *nomem)
{
	size_t n = strlen(name);

	*nomem = false;
	for (const char *p = text; p && *p;
	     p = strchr(p, '\n'), p = p ? p + 1 : p) {
		const char *q = p + n;

		if (strncmp(p, name, n) != 0)
			continue;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q != ':')
			continue;
		q++;
		char *line = strndup(q, strcspn(q, "\n"));
		*nomem = !line;
		return line;
	}
	return NULL;
}

int facts_cpu_flags(struct facts *f, const char *cpuinfo, const char *arch)
{
	const char *const *list = NULL;
	const char *name = NULL;
	char *line;
	bool nomem;
	int rc = 0;

	if (strcmp(arch, "x86_64") == 0 || strcmp(arch, "i686") == 0) {
		list = X86_FLAGS;
		name = "flags";
	} else if (strcmp(arch, "aarch64") == 0) {
		list = ARM_FLAGS;
		name = "Features";
	}
	if (!list)
		return 0;
	if (!(line = cpuinfo_line(cpuinfo, name, &nomem)))
		return nomem ? -1 : 0;
	for (; *list && rc == 0; list++)
		rc = facts_put_bool(f, *list, has_word(line, *list),
				    "/proc/cpuinfo");
	if (rc == 0 && strcmp(arch, "x86_64") == 0) {
		int level = 1;

		if (has_all(line, X86_V2)) {
			level = 2;
			if (has_all(line, X86_V3)) {
				level = 3;
				if (has_all(line, X86_V4))
					level = 4;
			}
		}
		rc = facts_put_int(f, "x86_64_level", level,
				   "/proc/cpuinfo (x86-64 psABI levels)");
	}
	free(line);
	return rc;
}

/* ------------------------------------------------------- os-release */

/* The value of `name` in os-release text (NAME=value, NAME="value" or
 * NAME='value'; a backslash escapes the next byte inside quotes): a
 * malloc'd copy, or NULL (absent, or out of memory: *nomem). */
static char *os_value(const char *text, const char *name, bool *nomem)
{
	size_t n = strlen(name);

	*nomem = false;
	for (const char *p = text; p && *p;
	     p = strchr(p, '\n'), p = p ? p + 1 : p) {
		const char *q;
		char *out, *o, quote = 0;

		if (strncmp(p, name, n) != 0 || p[n] != '=')
			continue;
		q = p + n + 1;
		if (*q == '"' || *q == '\'')
			quote = *q++;
		if (!(out = o = malloc(strcspn(q, "\n") + 1))) {
			*nomem = true;
			return NULL;
		}
		for (; *q && *q != '\n' && *q != quote; q++) {
			if (quote && *q == '\\' && q[1] && q[1] != '\n')
				q++;
			*o++ = *q;
		}
		*o = '\0';
		return out;
	}
	return NULL;
}

int facts_os_release(struct facts *f, const char *text, const char *source)
{
	bool nomem;
	char *id = os_value(text, "ID", &nomem), *ver;
	int rc = 0;

	if (nomem)
		return -1;
	if (id)
		rc = facts_put_text(f, "os_id", id, source);
	free(id);
	if (rc != 0)
		return rc;
	ver = os_value(text, "VERSION_ID", &nomem);
	if (nomem)
		return -1;
	if (ver)
		rc = facts_put_text(f, "os_version", ver, source);
	/* the numbers as integers: 8.10 read as one number is 8.1 */
	if (rc == 0 && ver && isdigit((unsigned char)*ver)) {
		char *end;
		long long major_v = strtoll(ver, &end, 10);

		rc = facts_put_int(f, "os_version_major", major_v, source);
		if (rc == 0 && *end == '.' && isdigit((unsigned char)end[1]))
			rc = facts_put_int(f, "os_version_minor",
					   strtoll(end + 1, NULL, 10), source);
	}
	free(ver);
	return rc;
}
