/*
 * shape_read.c - an RFC 46 shape to the RFC 14 resources list it stands
 * for (doc/flux.md "Shapes").
 *
 *   list    '[' vertex (';' vertex)* ']' | vertex
 *   vertex  type ('=' count)? ('{' items '}')? ('/' list)?
 *   items   (a slot: its label first) item (',' item)*
 *   item    key ':' value | ('+' | '-')? key        ('x': exclusive)
 *   count   N | idset (RFC 22) | range (RFC 45), '[...]' optional
 *   value   JSON, or a word: an unquoted string, or a {..} / [..] of them
 *
 * Hand-written like the request parser (parse.c) for its errors: each
 * names the bytes at fault and what the grammar wanted there.  jansson
 * builds the values (and reads numbers), as Flux does.
 */
#include <stdarg.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "xc_private.h"

typedef struct reader {
	const char *s;
	size_t len, pos;
	unsigned max_depth;
	xc_error_t *err;
	json_t *labels;	   /* label -> true: RFC 14 labels are unique */
	size_t slots;	   /* slot vertices read */
	size_t unlabelled; /* of them without a label */
	size_t first_bare; /* where the first of those starts */
	size_t first_bare_end;
} reader_t;

static int nomem(reader_t *r)
{
	return xc_error_set(r->err, XC_E_NOMEM, r->pos, r->pos,
			    "out of memory");
}

static char peek(const reader_t *r)
{
	return r->pos < r->len ? r->s[r->pos] : '\0';
}

/* What stands at r->pos, quoted for a message ("the end" past it). */
static const char *here(const reader_t *r, char *buf, size_t size)
{
	char q[48];
	size_t n = 1;

	if (r->pos >= r->len)
		return "the end";
	if (xc_shape_is_word((unsigned char)r->s[r->pos]))
		while (r->pos + n < r->len &&
		       xc_shape_is_word((unsigned char)r->s[r->pos + n]))
			n++;
	snprintf(buf, size, "'%s'", xc_quote(r->s + r->pos, n, q, sizeof(q)));
	return buf;
}

/* A syntax error at r->pos: "<wanted>, not <what is there>". */
static int expected(reader_t *r, const char *wanted)
{
	char buf[64];
	size_t end = r->pos < r->len ? r->pos + 1 : r->pos;

	return xc_error_set(r->err, XC_E_SHAPE_SYNTAX, r->pos, end,
			    "%s expected, not %s", wanted,
			    here(r, buf, sizeof(buf)));
}

/* A JSON string of s[start, end), or NULL with the error set. */
static json_t *string_at(reader_t *r, size_t start, size_t end)
{
	json_t *j;

	if (!xc_valid_utf8((const unsigned char *)r->s + start, end - start)) {
		xc_error_set(r->err, XC_E_NOT_UTF8, start, end,
			     "not UTF-8: a JSON string cannot hold it");
		return NULL;
	}
	if (!(j = json_stringn(r->s + start, end - start)))
		nomem(r);
	return j;
}

/* The 4 hex digits at s (a \\u escape's), or -1. */
static long hex4(const char *s)
{
	long v = 0;

	for (int i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

/* The JSON string whose text (its escapes, RFC 8259 section 7; UTF-8
 * already checked) is s[start, end), the quotes left out.  Decoded here,
 * not by json_loadb(), which reports a failed allocation as "invalid
 * token": an error in the text and want of memory must stay apart.
 * NULL with the error set. */
static json_t *json_string_at(reader_t *r, size_t start, size_t end)
{
	char *buf = malloc(end - start + 1), *o = buf;
	json_t *j;

	if (!buf) {
		nomem(r);
		return NULL;
	}
	for (size_t i = start; i < end; i++) {
		unsigned char c = (unsigned char)r->s[i];
		const char *esc;
		long cp, lo;

		if (c < 0x20) {
			xc_error_set(
				r->err, XC_E_SHAPE_VALUE, i, i + 1,
				"a control byte in a JSON string: write it as \\u%04x",
				c);
			goto fail;
		}
		if (c != '\\') {
			*o++ = (char)c;
			continue;
		}
		esc = strchr("\"\\/bfnrt", r->s[++i]);
		if (esc && r->s[i]) {
			*o++ = "\"\\/\b\f\n\r\t"[esc - "\"\\/bfnrt"];
			continue;
		}
		if (r->s[i] != 'u' || end - i < 5 ||
		    (cp = hex4(r->s + i + 1)) < 0) {
			xc_error_set(
				r->err, XC_E_SHAPE_VALUE, i - 1,
				i + 1 < end ? i + 1 : end,
				"not a JSON escape: \\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\uXXXX expected");
			goto fail;
		}
		i += 4;
		if (cp >= 0xd800 && cp <= 0xdbff && end - i >= 7 &&
		    r->s[i + 1] == '\\' && r->s[i + 2] == 'u' &&
		    (lo = hex4(r->s + i + 3)) >= 0xdc00 && lo <= 0xdfff) {
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			i += 6;
		} else if (cp >= 0xd800 && cp <= 0xdfff) {
			xc_error_set(r->err, XC_E_SHAPE_VALUE, i - 5, i + 1,
				     "a lone UTF-16 surrogate");
			goto fail;
		}
		if (cp == 0) {
			xc_error_set(
				r->err, XC_E_SHAPE_VALUE, i - 5, i + 1,
				"\\u0000: a string here cannot hold a NUL");
			goto fail;
		}
		if (cp < 0x80) {
			*o++ = (char)cp;
		} else if (cp < 0x800) {
			*o++ = (char)(0xc0 | (cp >> 6));
			*o++ = (char)(0x80 | (cp & 0x3f));
		} else if (cp < 0x10000) {
			*o++ = (char)(0xe0 | (cp >> 12));
			*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
			*o++ = (char)(0x80 | (cp & 0x3f));
		} else {
			*o++ = (char)(0xf0 | (cp >> 18));
			*o++ = (char)(0x80 | ((cp >> 12) & 0x3f));
			*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
			*o++ = (char)(0x80 | (cp & 0x3f));
		}
	}
	if (!(j = json_stringn(buf, (size_t)(o - buf))))
		nomem(r);
	free(buf);
	return j;
fail:
	free(buf);
	return NULL;
}

/* A string at r->pos: a word, or a JSON string in double quotes.  `what`
 * names it for the error when there is neither.  *quoted (may be NULL)
 * tells which it was. */
static json_t *read_string(reader_t *r, const char *what, bool *quoted)
{
	size_t start = r->pos;

	if (quoted)
		*quoted = peek(r) == '"';
	if (peek(r) != '"') {
		while (r->pos < r->len &&
		       xc_shape_is_word((unsigned char)r->s[r->pos]))
			r->pos++;
		if (r->pos == start) {
			expected(r, what);
			return NULL;
		}
		return string_at(r, start, r->pos);
	}
	for (r->pos++; r->pos < r->len && r->s[r->pos] != '"'; r->pos++)
		if (r->s[r->pos] == '\\' && r->pos + 1 < r->len)
			r->pos++;
	if (r->pos >= r->len) {
		xc_error_set(r->err, XC_E_SHAPE_VALUE, start, r->len,
			     "a string with no closing '\"'");
		return NULL;
	}
	r->pos++;
	if (!xc_valid_utf8((const unsigned char *)r->s + start,
			   r->pos - start)) {
		xc_error_set(r->err, XC_E_NOT_UTF8, start, r->pos,
			     "not UTF-8: a JSON string cannot hold it");
		return NULL;
	}
	return json_string_at(r, start + 1, r->pos - 1);
}

static json_t *read_value(reader_t *r, unsigned depth);

/* One or more items up to and with the closing '}' into `obj` (r->pos
 * past the '{' or the ',' before the first), at `depth` levels.  At a
 * vertex (`vertex`), `x` is "exclusive" and the keys the shape writes
 * elsewhere are refused. */
static int read_items(reader_t *r, json_t *obj, bool vertex, bool slot,
		      unsigned depth)
{
	static const char *const elsewhere[][2] = {
		{ "type", "the type comes first" },
		{ "count", "the count is written after '='" },
		{ "with", "what a resource holds is written after '/'" },
	};

	for (;;) {
		size_t at = r->pos;
		char sign = peek(r);
		bool quoted;
		const char *key;
		json_t *k, *v;

		if (sign == '+' || sign == '-')
			r->pos++;
		if (!(k = read_string(r, "a key", &quoted)))
			return -1;
		key = json_string_value(k);
		if (vertex && !quoted && strcmp(key, "x") == 0)
			key = "exclusive";
		for (size_t i = 0; vertex && i < 3; i++)
			if (strcmp(key, elsewhere[i][0]) == 0) {
				xc_error_set(r->err, XC_E_SHAPE_KEY, at, r->pos,
					     "'%s' cannot be a key here: %s",
					     key, elsewhere[i][1]);
				goto fail;
			}
		if (slot && strcmp(key, "label") == 0) {
			xc_error_set(
				r->err, XC_E_SHAPE_KEY, at, r->pos,
				"a slot's label is the first entry in its braces: slot{LABEL,...}");
			goto fail;
		}
		if (json_object_get(obj, key)) {
			xc_error_set(r->err, XC_E_SHAPE_KEY, at, r->pos,
				     "'%s' is given twice", key);
			goto fail;
		}
		if (sign == '+' || sign == '-' || peek(r) != ':') {
			v = json_boolean(sign != '-');
		} else {
			r->pos++;
			if (!(v = read_value(r, depth + 1)))
				goto fail;
		}
		if (vertex && strcmp(key, "exclusive") == 0 &&
		    !json_is_boolean(v)) {
			xc_error_set(r->err, XC_E_SHAPE_VALUE, at, r->pos,
				     "exclusive is true or false (RFC 14)");
			json_decref(v);
			goto fail;
		}
		if (vertex && strcmp(key, "label") == 0) {
			if (!json_is_string(v)) {
				xc_error_set(r->err, XC_E_SHAPE_VALUE, at,
					     r->pos,
					     "a label is a string (RFC 14)");
				json_decref(v);
				goto fail;
			}
			if (json_object_get(r->labels, json_string_value(v))) {
				xc_error_set(
					r->err, XC_E_SHAPE_LABEL, at, r->pos,
					"label '%s' is used twice (RFC 14: labels are unique)",
					json_string_value(v));
				json_decref(v);
				goto fail;
			}
			if (json_object_set(r->labels, json_string_value(v),
					    json_true()) < 0) {
				json_decref(v);
				nomem(r);
				goto fail;
			}
		}
		if (json_object_set_new(obj, key, v) < 0) {
			nomem(r);
			goto fail;
		}
		json_decref(k);
		if (peek(r) == '}') {
			r->pos++;
			return 0;
		}
		if (peek(r) != ',')
			return expected(r, "',' or '}'");
		r->pos++;
		continue;
	fail:
		json_decref(k);
		return -1;
	}
}

/* A value at r->pos: a JSON string, a {..} of items, a [..] of values,
 * or a word (a JSON literal or number, else a string).  `depth` levels
 * of values are open, counting this one. */
static json_t *read_value(reader_t *r, unsigned depth)
{
	size_t start = r->pos;
	json_error_t jerr;
	json_t *j;

	if (depth > r->max_depth) {
		xc_error_set(r->err, XC_E_TOO_DEEP, r->pos, r->pos + 1,
			     "nested deeper than %u levels", r->max_depth);
		return NULL;
	}
	switch (peek(r)) {
	case '"':
		return read_string(r, "a value", NULL);
	case '{':
		r->pos++;
		if (!(j = json_object())) {
			nomem(r);
			return NULL;
		}
		if (peek(r) == '}') {
			r->pos++;
			return j;
		}
		if (read_items(r, j, false, false, depth) < 0) {
			json_decref(j);
			return NULL;
		}
		return j;
	case '[':
		r->pos++;
		if (!(j = json_array())) {
			nomem(r);
			return NULL;
		}
		if (peek(r) == ']') {
			r->pos++;
			return j;
		}
		for (;;) {
			json_t *v = read_value(r, depth + 1);

			if (!v || json_array_append_new(j, v) < 0) {
				if (v)
					nomem(r);
				json_decref(j);
				return NULL;
			}
			if (peek(r) == ']') {
				r->pos++;
				return j;
			}
			if (peek(r) != ',') {
				expected(r, "',' or ']'");
				json_decref(j);
				return NULL;
			}
			r->pos++;
		}
	default:
		break;
	}
	while (r->pos < r->len && xc_shape_is_word((unsigned char)r->s[r->pos]))
		r->pos++;
	if (r->pos == start) {
		expected(r, "a value");
		return NULL;
	}
	if (!xc_shape_word_is_other(r->s + start, r->pos - start))
		return string_at(r, start, r->pos);
	/* a JSON number (word_is_other checked it): jansson fails on one
	 * only when it overflows, or for want of memory */
	j = json_loadb(r->s + start, r->pos - start, JSON_DECODE_ANY, &jerr);
	if (!j && json_error_code(&jerr) == json_error_numeric_overflow)
		xc_error_set(r->err, XC_E_SHAPE_VALUE, start, r->pos,
			     "not a JSON value: %s", jerr.text);
	else if (!j)
		nomem(r);
	return j;
}

/* The count after '=' (r->pos past it), with or without brackets. */
static json_t *read_count(reader_t *r)
{
	bool bracket = peek(r) == '[';
	size_t start, at;
	const char *why;
	json_t *j;

	if (bracket)
		r->pos++;
	start = r->pos;
	while (r->pos < r->len && strchr("0123456789,-+:*^", r->s[r->pos]))
		r->pos++;
	j = xc_shape_count(r->s + start, r->pos - start, &at, &why);
	if (!j) {
		if (!why)
			nomem(r);
		else if (r->pos == start)
			expected(
				r,
				"a count (N, an idset such as 4,9 or a range such as 2+ or 3-30)");
		else
			xc_error_set(r->err, XC_E_SHAPE_COUNT, start + at,
				     r->pos > start + at ? r->pos
				     : r->pos < r->len	 ? r->pos + 1
							 : r->pos,
				     "%s", why);
		return NULL;
	}
	if (bracket && peek(r) != ']') {
		json_decref(j);
		expected(r, "']' after the count");
		return NULL;
	}
	if (bracket)
		r->pos++;
	return j;
}

/* A slot's label: the first entry in its braces (r->pos past the '{'). */
static json_t *read_label(reader_t *r)
{
	size_t at = r->pos;
	bool quoted;
	json_t *l;

	if (peek(r) == '+' || peek(r) == '-') {
		size_t n = 1;
		char q[48];

		while (at + n < r->len &&
		       xc_shape_is_word((unsigned char)r->s[at + n]))
			n++;
		xc_error_set(
			r->err, XC_E_SHAPE_LABEL, at, at + n,
			"a slot's braces start with its label: slot{LABEL,%s}",
			xc_quote(r->s + at, n, q, sizeof(q)));
		return NULL;
	}
	if (!(l = read_string(r, "the slot's label", &quoted)))
		return NULL;
	if (peek(r) == ':') {
		xc_error_set(
			r->err, XC_E_SHAPE_LABEL, at, r->pos + 1,
			"a slot's braces start with its label alone: slot{LABEL,key:value}");
		json_decref(l);
		return NULL;
	}
	if (json_object_get(r->labels, json_string_value(l))) {
		xc_error_set(
			r->err, XC_E_SHAPE_LABEL, at, r->pos,
			"label '%s' is used twice (RFC 14: labels are unique)",
			json_string_value(l));
		json_decref(l);
		return NULL;
	}
	if (json_object_set(r->labels, json_string_value(l), json_true()) < 0) {
		json_decref(l);
		nomem(r);
		return NULL;
	}
	return l;
}

static json_t *read_list(reader_t *r, unsigned depth);

/* One vertex: type, count, braces, children. */
static json_t *read_vertex(reader_t *r, unsigned depth)
{
	size_t at = r->pos;
	json_t *v, *type, *count, *with;
	bool slot;

	if (!(type = read_string(r, "a resource type", NULL)))
		return NULL;
	slot = strcmp(json_string_value(type), "slot") == 0;
	if (!(v = json_object())) {
		json_decref(type);
		nomem(r);
		return NULL;
	}
	if (json_object_set_new(v, "type", type) < 0) {
		json_decref(v);
		nomem(r);
		return NULL;
	}
	if (peek(r) == '=') {
		r->pos++;
		if (!(count = read_count(r)))
			goto fail;
	} else {
		count = json_integer(1);
	}
	if (json_object_set_new(v, "count", count) < 0)
		goto nomem;
	if (slot) {
		json_t *label = NULL;
		bool items = false;

		r->slots++;
		if (peek(r) == '{' && r->pos + 1 < r->len &&
		    r->s[r->pos + 1] != '}') {
			r->pos++;
			if (!(label = read_label(r)))
				goto fail;
			if (peek(r) == ',') {
				r->pos++;
				items = true;
			} else if (peek(r) == '}') {
				r->pos++;
			} else {
				json_decref(label);
				expected(r, "',' or '}' after the label");
				goto fail;
			}
		} else {
			if (peek(r) == '{') /* "{}" */
				r->pos += 2;
			if (r->unlabelled++ == 0) {
				r->first_bare = at;
				r->first_bare_end = r->pos;
			}
		}
		if (json_object_set_new(v, "label",
					label ? label
					      : json_string("default")) < 0)
			goto nomem;
		if (items && read_items(r, v, true, true, depth) < 0)
			goto fail;
	} else if (peek(r) == '{') {
		r->pos++;
		if (peek(r) == '}')
			r->pos++;
		else if (read_items(r, v, true, false, depth) < 0)
			goto fail;
	}
	if (peek(r) == '/') {
		r->pos++;
		if (!(with = read_list(r, depth + 1)))
			goto fail;
		if (json_object_set_new(v, "with", with) < 0)
			goto nomem;
	} else if (slot) {
		expected(
			r,
			"'/' and what the slot holds (RFC 14: a slot holds resources)");
		goto fail;
	}
	return v;
nomem:
	nomem(r);
fail:
	json_decref(v);
	return NULL;
}

/* A list: '[' vertex (';' vertex)* ']', or one vertex. */
static json_t *read_list(reader_t *r, unsigned depth)
{
	bool bracket = peek(r) == '[';
	json_t *list, *v;

	if (depth > r->max_depth) {
		xc_error_set(r->err, XC_E_TOO_DEEP, r->pos, r->pos + 1,
			     "nested deeper than %u levels", r->max_depth);
		return NULL;
	}
	if (!(list = json_array())) {
		nomem(r);
		return NULL;
	}
	if (bracket)
		r->pos++;
	for (;;) {
		if (!(v = read_vertex(r, depth)))
			goto fail;
		if (json_array_append_new(list, v) < 0) {
			nomem(r);
			goto fail;
		}
		if (!bracket)
			return list;
		if (peek(r) == ']') {
			r->pos++;
			return list;
		}
		if (peek(r) != ';') {
			expected(r, "';' or ']'");
			goto fail;
		}
		r->pos++;
	}
fail:
	json_decref(list);
	return NULL;
}

json_t *xc_shape_parse(const char *shape, size_t len, const xc_limits_t *limits,
		       xc_error_t *err)
{
	xc_limits_t l = xc_limits_in_force(limits);
	reader_t r = { .s = shape, .len = len, .err = err };
	json_t *list = NULL;

	xc_error_clear(err);
	r.max_depth = l.max_depth;
	if (!shape) {
		xc_error_set(err, XC_E_INVALID_ARG, 0, 0, "no shape");
		return NULL;
	}
	if (len == 0) {
		xc_error_set(err, XC_E_EMPTY, 0, 0, "the shape is empty");
		return NULL;
	}
	if (len > l.max_request_length) {
		xc_error_set(err, XC_E_TOO_LONG, l.max_request_length, len,
			     "the shape is longer than %zu bytes",
			     l.max_request_length);
		return NULL;
	}
	if (!(r.labels = json_object())) {
		nomem(&r);
		return NULL;
	}
	if (!(list = read_list(&r, 1)))
		goto out;
	if (r.pos < len) {
		expected(&r,
			 peek(&r) == ';'
				 ? "the end ('[a;b]' holds several resources)"
				 : "the end");
		goto fail;
	}
	if (r.unlabelled && r.slots > 1) {
		xc_error_set(
			err, XC_E_SHAPE_LABEL, r.first_bare, r.first_bare_end,
			"a slot without a label: with %zu slots, each has one (slot{LABEL})",
			r.slots);
		goto fail;
	}
	goto out;
fail:
	json_decref(list);
	list = NULL;
out:
	json_decref(r.labels);
	return list;
}
