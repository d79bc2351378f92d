/*
 * output.c - how the command prints results: text it did not write
 * escaped (a report's, a message's), a request's canonical text, JSON
 * with no byte a terminal acts on, one JSON line, a parse error as JSON,
 * the matching nodes as one hostlist, the explain tree as JSON, and Flux
 * JSON with exact reals (cli.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "shape.h"
#include "xc_util.h"

const char *const prog = "slurm-extra";

size_t put_text(FILE *out, const char *text)
{
	return text ? xc_escape_to(out, text, strlen(text), false) : 0;
}

char *shown_text(const char *text)
{
	struct xc_text t;

	if (!xc_text_open(&t))
		return NULL;
	put_text(t.out, text);
	return xc_text_close(&t);
}

void put_message(FILE *out, const char *text)
{
	for (const char *p = text ? text : ""; *p;) {
		size_t n = 0;

		while ((unsigned char)p[n] >= 0x20 &&
		       (unsigned char)p[n] <= 0x7e)
			n++;
		fwrite(p, 1, n, out);
		p += n;
		if (*p)
			xc_escape_to(out, p++, 1, false);
	}
}

static void say_args(const char *fmt, va_list ap)
{
	char line[1024], *text = line;
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	/* a longer message whole, or (out of memory) cut */
	if (n >= (int)sizeof(line) && (text = malloc((size_t)n + 1)))
		vsnprintf(text, (size_t)n + 1, fmt, again);
	va_end(again);
	fprintf(stderr, "%s: ", prog);
	put_message(stderr, text ? text : line);
	fputc('\n', stderr);
	if (text != line)
		free(text);
}

void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_args(fmt, ap);
	va_end(ap);
}

int fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_args(fmt, ap);
	va_end(ap);
	return EXIT_INVALID;
}

int print_request(xc_expr_t *e)
{
	char *text = xc_format(e);

	xc_expr_destroy(e);
	if (!text)
		return fail("out of memory");
	printf("%s\n", text);
	free(text);
	return EXIT_MATCH;
}

char *json_text(const json_t *j, size_t flags)
{
	char *s = json_dumps(j, flags | JSON_ENSURE_ASCII), *out, *o;
	size_t dels = 0;

	for (const char *p = s; p && *p; p++)
		dels += *p == 0x7f;
	if (!s || !dels)
		return s;
	/* DEL is in a string (JSON's own bytes are printable): \u007F, as
	 * jansson writes the other controls */
	if ((out = o = malloc(strlen(s) + 5 * dels + 1))) {
		for (const char *p = s; *p; p++) {
			if (*p == 0x7f) {
				memcpy(o, "\\u007F", 6);
				o += 6;
			} else {
				*o++ = *p;
			}
		}
		*o = '\0';
	}
	free(s);
	return out;
}

bool put_json(FILE *out, const json_t *j, size_t flags)
{
	char *s = json_text(j, flags);

	if (!s)
		return false;
	fputs(s, out);
	fputc('\n', out);
	free(s);
	return true;
}

bool print_json_line(json_t *j)
{
	if (!j || !put_json(stdout, j, JSON_COMPACT)) {
		json_decref(j);
		say("out of memory");
		return false;
	}
	json_decref(j);
	return true;
}

json_t *error_json(const xc_error_t *err)
{
	return json_pack("{s:b,s:{s:s,s:I,s:I,s:s}}", "valid", 0, "error",
			 "code", shape_errcode_name(err->code), "offset",
			 (json_int_t)err->offset, "end", (json_int_t)err->end,
			 "message", err->message);
}

char *matched_hostlist(const xc_nodes_t *t, const bool *matched)
{
	size_t count = xc_nodes_count(t), k = 0;
	const char **names = calloc(count ? count : 1, sizeof(*names));
	xc_error_t err;
	char *hl;

	if (!names) {
		say("out of memory");
		return NULL;
	}
	for (size_t i = 0; i < count; i++)
		if (matched[i])
			names[k++] = xc_nodes_name(t, i);
	if (!(hl = xc_hostlist_of(names, k, &err)))
		say("error: %s", err.message);
	free(names);
	return hl;
}

json_t *explain_json(const xc_expr_t *e, const xc_extra_t *extra)
{
	bool ok = xc_match(e, extra);
	json_t *j;

	if (xc_expr_kind(e) == XC_LEAF) {
		char *leaf = xc_format(e), *why = xc_explain_leaf(e, extra);

		j = leaf && why ? json_pack("{s:s,s:b,s:s,s:s}", "leaf", leaf,
					    "result", ok, "outcome",
					    xc_leaf_outcome_name(
						    xc_leaf_check(e, extra)),
					    "why", why)
				: NULL;
		free(leaf);
		free(why);
		return j;
	}
	j = json_pack("{s:s,s:b,s:[]}", "group",
		      xc_expr_kind(e) == XC_AND ? "and" : "or", "result", ok,
		      "items");
	for (size_t i = 0; j && i < xc_expr_count(e); i++) {
		json_t *c = explain_json(xc_expr_child(e, i), extra);

		if (!c ||
		    json_array_append_new(json_object_get(j, "items"), c) < 0) {
			json_decref(j);
			j = NULL;
		}
	}
	return j;
}

/* Whether every real in `j` reads back from `digits` significant
 * digits. */
static bool reals_fit(const json_t *j, int digits)
{
	const json_t *v;
	const char *key;
	size_t i;
	char buf[64];

	switch (json_typeof(j)) {
	case JSON_REAL:
		snprintf(buf, sizeof(buf), "%.*g", digits, json_real_value(j));
		return strtod(buf, NULL) == json_real_value(j);
	case JSON_OBJECT:
		json_object_foreach ((json_t *)j, key, v)
			if (!reals_fit(v, digits))
				return false;
		return true;
	case JSON_ARRAY:
		json_array_foreach (j, i, v)
			if (!reals_fit(v, digits))
				return false;
		return true;
	default:
		return true;
	}
}

void print_json_shortest(const json_t *j)
{
	int digits = 15;

	while (digits < 17 && !reals_fit(j, digits))
		digits++;
	if (!put_json(stdout, j, JSON_COMPACT | JSON_REAL_PRECISION(digits)))
		say("out of memory");
}
