/*
 * facts_fixture.c - what the test files of facts/ share (facts_fixture.h).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "facts_fixture.h"
#include "facts_json.h"

struct facts set;

void set_up(void)
{
	cr_assert_eq(facts_init(&set), 0);
}

void tear_down(void)
{
	facts_fini(&set);
}

/* The text of fact `key` of `f` (compact JSON), or "(none)". */
const char *fact(const struct facts *f, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(f->values, key, &v))
		return "(none)";
	return json_object_to_json_string_ext(
		v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

const char *source(const struct facts *f, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(f->sources, key, &v))
		return "(none)";
	return json_object_get_string(v);
}

/* A fresh directory under /tmp. */
void make_dir(char *dir)
{
	strcpy(dir, "/tmp/xc-facts-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

void write_in(const char *dir, const char *name, const char *text, mode_t mode)
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

void remove_dir(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}
