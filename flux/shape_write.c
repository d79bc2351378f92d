/*
 * shape_write.c - an RFC 14 resources list written as the shortest RFC 46
 * shape (doc/flux.md "Shapes").
 */
#include <stdarg.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "shape.h"
#include "shape_words.h"
#include "xc_util.h"

typedef struct writer {
	FILE *out;
	unsigned max_depth;
	xc_error_t *err;
	size_t slots;	/* slot vertices in the whole list */
	json_t *labels; /* label -> true: RFC 14 labels are unique */
	char path[200];
} writer_t;

/* An error at the current path. */
static int wfail(writer_t *w, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int wfail(writer_t *w, int code, const char *fmt, ...)
{
	char msg[XC_ERROR_MESSAGE_SIZE];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return xc_error_set(w->err, code, 0, 0, "%s: %s", w->path, msg);
}

/* Appends `piece` and "[index]" to the path (index SIZE_MAX: no index);
 * returns its old length, to cut back to.  A path that does not fit
 * ends in "...". */
static size_t path_push(writer_t *w, const char *piece, size_t index)
{
	size_t len = strlen(w->path), room = sizeof(w->path) - len;
	int n;

	if (len >= 3 && strcmp(w->path + len - 3, "...") == 0)
		return len;
	if (index == SIZE_MAX)
		n = snprintf(w->path + len, room, "%s", piece);
	else
		n = snprintf(w->path + len, room, "%s[%zu]", piece, index);
	if (n < 0 || (size_t)n >= room) {
		w->path[len] = '\0';
		if (room > 3)
			snprintf(w->path + len, room, "...");
	}
	return len;
}

/* Whether `s` may stand as a word (unquoted) and read back as itself:
 * `value` words must not read as a JSON literal or number; `key` words
 * must not start with '+' or '-'. */
static bool word_safe(const char *s, bool value, bool key)
{
	size_t n = strlen(s);

	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!shape_is_word((unsigned char)s[i]))
			return false;
	if (key && (s[0] == '+' || s[0] == '-'))
		return false;
	return !value || !shape_word_is_other(s, n);
}

/* Writes `s`: as a word where safe, else as a JSON string. */
static int put_string(writer_t *w, const char *s, bool value, bool key)
{
	json_t *j;
	int rc;

	if (word_safe(s, value, key))
		return fputs(s, w->out) < 0 ? -1 : 0;
	if (!(j = json_string(s)))
		return -1;
	rc = json_dumpf(j, w->out, JSON_ENCODE_ANY | JSON_COMPACT);
	json_decref(j);
	return rc;
}

static int put_value(writer_t *w, const json_t *v, unsigned depth);

/* key:value, or for a boolean key / -key (x / -x for exclusive at a
 * vertex, where a key named "x" is quoted: a bare x would read as
 * exclusive). */
static int put_item(writer_t *w, const char *key, const json_t *v, bool vertex,
		    unsigned depth)
{
	if (json_is_false(v))
		fputc('-', w->out);
	if (vertex && strcmp(key, "exclusive") == 0 && json_is_boolean(v))
		return fputc('x', w->out) == EOF ? -1 : 0;
	if (vertex && strcmp(key, "x") == 0)
		fputs("\"x\"", w->out);
	else if (put_string(w, key, false, true) < 0)
		return -1;
	if (json_is_boolean(v))
		return 0;
	fputc(':', w->out);
	return put_value(w, v, depth + 1);
}

/* A value: strings as put_string(), objects as {items}, arrays as
 * [values], the rest as JSON. */
static int put_value(writer_t *w, const json_t *v, unsigned depth)
{
	const char *key;
	json_t *item;
	size_t i;

	if (depth > w->max_depth)
		return wfail(w, XC_E_TOO_DEEP, "nested deeper than %u levels",
			     w->max_depth);
	if (json_is_string(v))
		return put_string(w, json_string_value(v), true, false);
	if (json_is_object(v)) {
		bool first = true;

		fputc('{', w->out);
		json_object_foreach ((json_t *)v, key, item) {
			if (!first)
				fputc(',', w->out);
			first = false;
			if (put_item(w, key, item, false, depth) < 0)
				return -1;
		}
		return fputc('}', w->out) == EOF ? -1 : 0;
	}
	if (json_is_array(v)) {
		fputc('[', w->out);
		json_array_foreach (v, i, item) {
			if (i)
				fputc(',', w->out);
			if (put_value(w, item, depth + 1) < 0)
				return -1;
		}
		return fputc(']', w->out) == EOF ? -1 : 0;
	}
	return json_dumpf(v, w->out, JSON_ENCODE_ANY | JSON_COMPACT);
}

/* RFC 14's range dictionary `c` (its schema's complex_range): {"min"}
 * alone or with all of "max", "operator" and "operand", integers of at
 * least 1 (max not below min), the operator one of + * ^, no other key;
 * and a range Flux takes (shape_range_check).  Read by hand:
 * json_unpack() allocates, and its failure could not be told from a
 * wrong dictionary.  Returns NULL, or why not. */
static const char *range_dict(const json_t *c, json_int_t *min, json_int_t *max,
			      const char **op, json_int_t *operand)
{
	static const char *const form =
		"a count is an integer, an idset, a range string, {min} or {min,max,operator,operand} (RFC 14)";
	const json_t *v, *o;
	const char *key;
	json_t *item;
	size_t keys = 0;

	if (!json_is_object(c))
		return form;
	json_object_foreach ((json_t *)c, key, item) {
		if (strcmp(key, "min") && strcmp(key, "max") &&
		    strcmp(key, "operator") && strcmp(key, "operand"))
			return form;
		keys++;
	}
	if (!json_is_integer(v = json_object_get(c, "min")) ||
	    (*min = json_integer_value(v)) < 1)
		return form;
	if (keys == 1)
		return NULL;
	if (keys != 4 || !json_is_integer(v = json_object_get(c, "max")) ||
	    (*max = json_integer_value(v)) < *min ||
	    !json_is_integer(v = json_object_get(c, "operand")) ||
	    (*operand = json_integer_value(v)) < 1 ||
	    !json_is_string(o = json_object_get(c, "operator")) ||
	    json_string_length(o) != 1 ||
	    !memchr("+*^", *(*op = json_string_value(o)), 3))
		return form;
	return shape_range_check(*min, **op, *operand);
}

/* The count: nothing for 1, else "=" and its shortest text. */
static int put_count(writer_t *w, const json_t *c)
{
	json_int_t min, max, operand;
	const char *op = "+", *why;
	size_t at;

	max = 0;
	operand = 1;
	if (json_is_integer(c)) {
		if (json_integer_value(c) < 1)
			return wfail(w, SHAPE_E_RESOURCES,
				     "a count is at least 1");
		if (json_integer_value(c) > 1)
			fprintf(w->out, "=%" JSON_INTEGER_FORMAT,
				json_integer_value(c));
		return 0;
	}
	if (json_is_string(c)) {
		const char *s = json_string_value(c);
		size_t n = json_string_length(c);
		json_t *j;

		if (n >= 2 && s[0] == '[' && s[n - 1] == ']')
			s++, n -= 2;
		if (!(j = shape_count(s, n, &at, &why)))
			return why ? wfail(w, SHAPE_E_RESOURCES,
					   "count \"%s\": %s",
					   json_string_value(c), why)
				   : -1;
		json_decref(j);
		fprintf(w->out, "=%.*s", (int)n, s);
		return 0;
	}
	if ((why = range_dict(c, &min, &max, &op, &operand)))
		return wfail(w, SHAPE_E_RESOURCES, "%s", why);
	if (max)
		fprintf(w->out,
			"=%" JSON_INTEGER_FORMAT "-%" JSON_INTEGER_FORMAT, min,
			max);
	else
		fprintf(w->out, "=%" JSON_INTEGER_FORMAT "+", min);
	if (operand != 1 || op[0] != '+')
		fprintf(w->out, ":%" JSON_INTEGER_FORMAT, operand);
	if (op[0] != '+')
		fprintf(w->out, ":%c", op[0]);
	return 0;
}

static int put_list(writer_t *w, const json_t *list, unsigned depth);

/* Whether `key` is one a vertex writes outside its braces. */
static bool outside_braces(const char *key, bool slot)
{
	return strcmp(key, "type") == 0 || strcmp(key, "count") == 0 ||
	       strcmp(key, "with") == 0 || (slot && strcmp(key, "label") == 0);
}

static int put_vertex(writer_t *w, const json_t *v, unsigned depth)
{
	const json_t *type = json_object_get(v, "type");
	const json_t *count = json_object_get(v, "count");
	const json_t *label = json_object_get(v, "label");
	const json_t *with = json_object_get(v, "with");
	bool slot, any = false, lead;
	const char *key;
	json_t *item;

	if (!json_is_object(v))
		return wfail(w, SHAPE_E_RESOURCES,
			     "a resource is an object (RFC 14)");
	if (!json_is_string(type) || !json_string_length(type))
		return wfail(
			w, SHAPE_E_RESOURCES,
			"a resource has a type, a non-empty string (RFC 14)");
	if (!count)
		return wfail(w, SHAPE_E_RESOURCES,
			     "a resource has a count (RFC 14)");
	slot = strcmp(json_string_value(type), "slot") == 0;
	if (slot && !json_is_string(label))
		return wfail(w, SHAPE_E_RESOURCES,
			     "a slot has a label, a string (RFC 14)");
	if (slot && !with)
		return wfail(w, SHAPE_E_RESOURCES,
			     "a slot holds resources: it has a with (RFC 14)");
	if (json_object_get(v, "exclusive") &&
	    !json_is_boolean(json_object_get(v, "exclusive")))
		return wfail(w, SHAPE_E_RESOURCES,
			     "exclusive is true or false (RFC 14)");
	if (label && !json_is_string(label))
		return wfail(w, SHAPE_E_RESOURCES,
			     "a label is a string (RFC 14)");
	if (label && json_object_get(w->labels, json_string_value(label)))
		return wfail(
			w, SHAPE_E_RESOURCES,
			"label '%s' is used twice (RFC 14: labels are unique)",
			json_string_value(label));
	if (label && json_object_set(w->labels, json_string_value(label),
				     json_true()) < 0)
		return -1;
	if (put_string(w, json_string_value(type), false, false) < 0 ||
	    put_count(w, count) < 0)
		return -1;
	json_object_foreach ((json_t *)v, key, item)
		any = any || !outside_braces(key, slot);
	lead = slot && (any || w->slots > 1 ||
			strcmp(json_string_value(label), "default") != 0);
	if (lead || any)
		fputc('{', w->out);
	if (lead) {
		const char *s = json_string_value(label);

		if (put_string(w, s, false, true) < 0)
			return -1;
	}
	json_object_foreach ((json_t *)v, key, item) {
		if (outside_braces(key, slot))
			continue;
		if (lead)
			fputc(',', w->out);
		lead = true;
		if (put_item(w, key, item, true, depth) < 0)
			return -1;
	}
	if (lead || any)
		fputc('}', w->out);
	if (with) {
		size_t back = path_push(w, ".with", SIZE_MAX);

		fputc('/', w->out);
		if (put_list(w, with, depth + 1) < 0)
			return -1;
		w->path[back] = '\0';
	}
	return 0;
}

static int put_list(writer_t *w, const json_t *list, unsigned depth)
{
	size_t n = json_array_size(list), back;
	json_t *v;
	size_t i;

	if (depth > w->max_depth)
		return wfail(w, XC_E_TOO_DEEP, "nested deeper than %u levels",
			     w->max_depth);
	if (!json_is_array(list) || n == 0)
		return wfail(
			w, SHAPE_E_RESOURCES,
			"a list of resources is a non-empty array (RFC 14)");
	if (n > 1)
		fputc('[', w->out);
	json_array_foreach (list, i, v) {
		if (i)
			fputc(';', w->out);
		back = path_push(w, "", i);
		if (put_vertex(w, v, depth) < 0)
			return -1;
		w->path[back] = '\0';
	}
	if (n > 1)
		fputc(']', w->out);
	return 0;
}

/* The slot vertices in `list`, down to `max` levels (put_list refuses
 * what lies deeper, or is not a list). */
static long count_slots(const json_t *list, unsigned depth, unsigned max)
{
	long n = 0;
	json_t *v;
	size_t i;

	if (depth > max || !json_is_array(list))
		return 0;
	json_array_foreach (list, i, v) {
		const char *t = json_string_value(json_object_get(v, "type"));

		if (t && strcmp(t, "slot") == 0)
			n++;
		n += count_slots(json_object_get(v, "with"), depth + 1, max);
	}
	return n;
}

char *shape_format(const json_t *resources, const xc_limits_t *limits,
		   xc_error_t *err)
{
	xc_limits_t l = xc_limits_in_force(limits);
	writer_t w = { .max_depth = l.max_depth, .err = err, .path = "$" };
	struct xc_text t;
	char *s;
	int rc;

	xc_error_clear(err);
	if (!resources) {
		xc_error_set(err, XC_E_INVALID_ARG, 0, 0, "no resources");
		return NULL;
	}
	if (!(w.out = xc_text_open(&t))) {
		xc_error_set(err, XC_E_NOMEM, 0, 0, "out of memory");
		return NULL;
	}
	w.slots = (size_t)count_slots(resources, 1, l.max_depth);
	rc = (w.labels = json_object()) ? put_list(&w, resources, 1) : -1;
	json_decref(w.labels);
	s = xc_text_close(&t);
	if (rc < 0 || !s) {
		if (!err || err->code == XC_OK)
			xc_error_set(err, XC_E_NOMEM, 0, 0, "out of memory");
		free(s);
		return NULL;
	}
	return s;
}
