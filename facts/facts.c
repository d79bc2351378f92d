/*
 * facts.c - the set of a node's facts (facts.h, facts_json.h): keys in
 * the order they were put, each with its source; values as a request can
 * name them (doc/facts.md "The shape"), and GPU model names.  What the
 * other files of facts/ build on: discovery (facts_discover.c,
 * facts_cpu.c, facts_gpu.c), the site's facts (facts_site.c), ownership
 * (facts_owner.c) and publishing (facts_publish.c).
 */
#define _GNU_SOURCE /* strcasestr */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "facts_json.h"

/* ------------------------------------------------------------ the set */

int facts_init(struct facts *f)
{
	f->site_keys = NULL;
	f->values = json_object_new_object();
	f->sources = json_object_new_object();
	if (!f->values || !f->sources) {
		facts_fini(f);
		return -1;
	}
	return 0;
}

void facts_fini(struct facts *f)
{
	json_object_put(f->values);
	json_object_put(f->sources);
	json_object_put(f->site_keys);
	f->values = f->sources = f->site_keys = NULL;
}

int facts_put(struct facts *f, const char *key, json_object *v,
	      const char *source)
{
	json_object *s;

	if (!v)
		return -1;
	if (json_object_object_add(f->values, key, v) != 0) {
		json_object_put(v);
		return -1;
	}
	if (!(s = json_object_new_string(source)) ||
	    json_object_object_add(f->sources, key, s) != 0) {
		json_object_put(s);
		return -1;
	}
	return 0;
}

long long facts_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

json_object *facts_copy(json_object *v)
{
	json_object *c = NULL;

	return json_object_deep_copy(v, &c, NULL) == 0 ? c : NULL;
}

json_object *facts_real(double d, const char *text)
{
	return json_object_new_double_s(d, text);
}

/* facts_put() of a string value, taken through facts_value_text(); an
 * empty result sets nothing. */
int facts_put_text(struct facts *f, const char *key, const char *raw,
		   const char *source)
{
	char *t = facts_value_text(raw);
	int rc = 0;

	if (!t)
		return -1;
	if (*t)
		rc = facts_put(f, key, json_object_new_string(t), source);
	free(t);
	return rc;
}

int facts_put_int(struct facts *f, const char *key, int64_t n,
		  const char *source)
{
	return facts_put(f, key, json_object_new_int64(n), source);
}

int facts_put_bool(struct facts *f, const char *key, bool b, const char *source)
{
	return facts_put(f, key, json_object_new_boolean(b), source);
}

/* ----------------------------------------------------- value texts */

/* The bytes a request cannot hold in a key or a value (doc/language.md
 * §1.1). */
bool facts_operator_byte(unsigned char c)
{
	return strchr("<>=!,&|()", c) != NULL && c != '\0';
}

char *facts_value_text(const char *raw)
{
	static const char *const marks[] = { "(R)", "(r)", "(TM)", "(tm)" };
	size_t n = strlen(raw);
	char *out = malloc(n + 1), *o = out;
	const char *end = strchr(raw, '@');
	bool blank = false;

	if (!out)
		return NULL;
	if (!end)
		end = raw + n;
	for (const char *p = raw; p < end;) {
		size_t k, m = sizeof(marks) / sizeof(*marks);

		for (k = 0; k < m; k++)
			if (strncmp(p, marks[k], strlen(marks[k])) == 0)
				break;
		if (k < m) {
			p += strlen(marks[k]);
			continue;
		}
		if (isspace((unsigned char)*p) || *p == '_') {
			blank = o > out;
		} else if (!facts_operator_byte((unsigned char)*p) &&
			   !iscntrl((unsigned char)*p)) {
			if (blank)
				*o++ = '_';
			blank = false;
			*o++ = *p;
		}
		p++;
	}
	*o = '\0';
	return out;
}

char *facts_gpu_model(const char *name)
{
	static const char *const brands[] = { "NVIDIA", "Tesla",    "GeForce",
					      "Quadro", "AMD",	    "ATI",
					      "Radeon", "Instinct", "Intel",
					      "Data",	"Center",   "GPU" };
	char *t = facts_value_text(name), *out, *o;
	char *save = NULL, *w;
	bool lead = true;

	if (!t)
		return NULL;
	if (!(out = o = calloc(1, strlen(t) + 1))) {
		free(t);
		return NULL;
	}
	for (w = strtok_r(t, "_", &save); w; w = strtok_r(NULL, "_", &save)) {
		bool brand = false, digit = strpbrk(w, "0123456789") != NULL;
		size_t len;

		for (size_t k = 0; lead && k < sizeof(brands) / sizeof(*brands);
		     k++)
			brand |= strcasecmp(w, brands[k]) == 0;
		if (brand)
			continue;
		lead = false;
		len = strcspn(w, "-");
		if (o > out)
			*o++ = '_';
		memcpy(o, w, len);
		o += len;
		*o = '\0';
		if (digit)
			break;
	}
	free(t);
	if (!*out) { /* nothing but brand words: the name itself */
		free(out);
		return facts_value_text(name);
	}
	return out;
}
