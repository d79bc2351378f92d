/*
 * gen.h - seeded random requests and nodes for property tests: the same
 * seed gives the same cases on every machine (xorshift64*, no libc rand).
 */
#ifndef TESTS_GEN_H
#define TESTS_GEN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

typedef struct gen {
	uint64_t s;
} gen_t;

static inline uint64_t gen_next(gen_t *g)
{
	g->s ^= g->s >> 12;
	g->s ^= g->s << 25;
	g->s ^= g->s >> 27;
	return g->s * 2685821657736338717ULL;
}

static inline unsigned gen_below(gen_t *g, unsigned n)
{
	return (unsigned)(gen_next(g) % n);
}

static const char *const gen_keys[] = {
	"a",  "b",   "c",     "gpu", "mem", "arch",
	" a", "x y", "\"q\"", "k.1", "o/x", "\xc3\xa9t\xc3\xa9",
	"~t", "{",   "Key",
};
static const char *const gen_values[] = {
	"1",	 "0",	 "5.5", "-3",	  "1.23",  "0.00001", "true",
	"false", "yes",	 "no",	"abc",	  "1e3",   "0x10",    "nan",
	"inf",	 "-inf", " 5",	"Hello ", "\"x\"", "x86_64",  "~",
	"null",	 "0x",	 ".5",	"5.",	  "+7",	   "200",     "\xe2\x82\xac",
};
static const char *const gen_ops[] = { "=", "!=", ">", ">=", "<", "<=" };

#define GEN_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Appends a random request of at most `depth` levels to buf (`size`
 * bytes, always terminated; generation stops adding when full). */
static inline void gen_request(gen_t *g, char *buf, size_t size, int depth,
			       int top)
{
	size_t len = strlen(buf);

	if (depth == 0 || gen_below(g, 3) == 0) {
		if (gen_below(g, 4) == 0)
			snprintf(buf + len, size - len, "%s%s%d",
				 gen_keys[gen_below(g, GEN_COUNT(gen_keys))],
				 gen_ops[gen_below(g, 6)],
				 (int)gen_below(g, 2000) - 1000);
		else
			snprintf(buf + len, size - len, "%s%s%s",
				 gen_keys[gen_below(g, GEN_COUNT(gen_keys))],
				 gen_ops[gen_below(g, 6)],
				 gen_values[gen_below(g,
						      GEN_COUNT(gen_values))]);
		return;
	}
	{
		int n = 2 + (int)gen_below(g, 3);
		const char *op = gen_below(g, 2)   ? "|"
				 : gen_below(g, 2) ? "&"
						   : ",";

		if (!top)
			snprintf(buf + len, size - len, "(");
		for (int i = 0; i < n; i++) {
			if (i) {
				len = strlen(buf);
				/* ',' and '&' mix freely (doc/language.md §1.2) */
				snprintf(buf + len, size - len, "%s",
					 *op == '|'	   ? "|"
					 : gen_below(g, 2) ? "&"
							   : ",");
			}
			gen_request(g, buf, size, depth - 1, 0);
		}
		if (!top) {
			len = strlen(buf);
			snprintf(buf + len, size - len, ")");
		}
	}
}

/* A random node Extra as text (what `scontrol update extra=` stores): an
 * object with some of the keys, values of every JSON type; sometimes
 * unset (NULL) or not an object.  malloc'd; the caller frees it. */
static inline char *gen_node(gen_t *g)
{
	json_t *o;
	char *text;
	unsigned r = gen_below(g, 20);

	if (r == 0)
		return NULL;
	if (r == 1)
		return strdup("[1]");
	o = json_object();
	for (size_t k = 0; k < GEN_COUNT(gen_keys); k++) {
		const char *key = gen_keys[k];

		switch (gen_below(g, 9)) {
		case 0:
			json_object_set_new(
				o, key,
				json_integer((int)gen_below(g, 2000) - 1000));
			break;
		case 1:
			json_object_set_new(
				o, key,
				json_real((double)gen_below(g, 1000) / 100.0));
			break;
		case 2:
			json_object_set_new(o, key,
					    json_boolean(gen_below(g, 2)));
			break;
		case 3:
			json_object_set_new(
				o, key,
				json_string(gen_values[gen_below(
					g, GEN_COUNT(gen_values))]));
			break;
		case 4:
			json_object_set_new(o, key,
					    json_integer(gen_below(g, 3)));
			break;
		case 5:
			json_object_set_new(o, key, json_null());
			break;
		default:
			break; /* missing */
		}
	}
	text = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
	json_decref(o);
	return text;
}

/* A shape `levels` deep (malloc'd): vertices a/a/.../a, or (`value`) a
 * vertex and nested values node{a:{a:...{a:1}}}, `levels` counting the
 * vertex; for the depth tests (test_shape) and the stack figures (bench). */
static inline char *gen_deep_shape(unsigned levels, bool value)
{
	char *s = malloc(4 * (size_t)levels + 16), *p = s;

	if (!s)
		return NULL;
	if (!value) {
		for (unsigned i = 0; i < levels; i++)
			p += sprintf(p, i + 1 < levels ? "a/" : "a");
		return s;
	}
	p += sprintf(p, "node{");
	for (unsigned i = 2; i < levels; i++)
		p += sprintf(p, "a:{");
	p += sprintf(p, "a:1");
	for (unsigned i = 2; i < levels; i++)
		*p++ = '}';
	sprintf(p, "}");
	return s;
}

#endif
