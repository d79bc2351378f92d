/*
 * shape_value.c - what stands inside the braces of an RFC 46 shape
 * (doc/flux.md "Shapes"): items, and their values, JSON or words.
 *
 *   items   item (',' item)* '}'
 *   item    key ':' value | ('+' | '-')? key        ('x': exclusive)
 *   value   '"' JSON string '"' | "'" raw string "'" | '{' items | '{' '}'
 *         | '[' values ']' | word (a JSON literal or number, else a string)
 *
 * The grammar of the shape (shape_read.c) calls in here for a vertex's
 * braces, its type and a slot's label, and for the next token and the
 * reader's errors (shape_reader.h); the values never call back.  A
 * vertex's items follow RFC 14's rules for its keys (exclusive, label);
 * a value's own items are any JSON.  jansson builds the values and
 * decodes quoted strings and numbers, as Flux does.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "shape_reader.h"
#include "shape_words.h"
#include "xc_util.h"

static bool is_blank(char c)
{
	return c && memchr(" \t\n\r", c, 4);
}

/* Skips JSON's blanks (RFC 8259: space, tab, line feed, carriage
 * return), which may stand between two tokens of a shape, as flux-core's
 * own shape parser (flux.shape.parser) ignores them; but see
 * word_end(). */
static void skip_blanks(reader_t *r)
{
	while (r->pos < r->len && is_blank(r->s[r->pos]))
		r->pos++;
}

/* The next token's first byte (blanks skipped), or '\0' at the end. */
char shape_peek(reader_t *r)
{
	skip_blanks(r);
	return r->pos < r->len ? r->s[r->pos] : '\0';
}

/* XC_E_NOMEM at r->pos. */
int shape_nomem(reader_t *r)
{
	return xc_error_set(r->err, XC_E_NOMEM, r->pos, r->pos,
			    "out of memory");
}

/* The error reports keep their message buffers out of the recursive
 * frames below (noinline): each level of nesting costs only the grammar
 * functions' small frames (flux/test/test_shape.c runs the deepest shape in
 * a 1 MiB stack). */

/* A syntax error at r->pos: "<wanted> expected, not <what is there>",
 * and, when `open` is not SIZE_MAX, the bracket at that offset it would
 * close. */
__attribute__((noinline)) int shape_expected_at(reader_t *r, const char *wanted,
						size_t open)
{
	char what[64], q[48], closing[48] = "";
	size_t n = 1;

	if (r->pos >= r->len) {
		snprintf(what, sizeof(what), "the end");
	} else {
		if (shape_is_word((unsigned char)r->s[r->pos]))
			while (r->pos + n < r->len &&
			       shape_is_word((unsigned char)r->s[r->pos + n]))
				n++;
		snprintf(what, sizeof(what), "'%s'",
			 xc_quote(r->s + r->pos, n, q, sizeof(q)));
	}
	if (open != SIZE_MAX)
		snprintf(closing, sizeof(closing),
			 " (to close '%c' at column %zu)", r->s[open],
			 open + 1);
	return xc_error_set(r->err, SHAPE_E_SYNTAX, r->pos, here_end(r),
			    "%s expected%s, not %s", wanted, closing, what);
}

/* shape_expected_at(), naming the innermost open bracket when the shape
 * ends here. */
int shape_expected(reader_t *r, const char *wanted)
{
	return shape_expected_at(r, wanted,
				 r->pos >= r->len ? r->open : SIZE_MAX);
}

/* An unquoted word ends at r->pos.  Inside braces a blank may not follow
 * it: flux-core's shape parser keeps such a blank in the word ("a " for
 * node{a }), where this one would drop it, and the same shape would
 * mean two things.  Returns 0, or -1 with the error set. */
static int word_end(reader_t *r, size_t start)
{
	char q[48];

	if (!r->braces || r->pos >= r->len || !is_blank(r->s[r->pos]))
		return 0;
	return xc_error_set(
		r->err, SHAPE_E_SYNTAX, r->pos, r->pos + 1,
		"a blank after '%s' inside braces: quote the word or drop the blank (flux-core's shape parser keeps it in the word)",
		xc_quote(r->s + start, r->pos - start, q, sizeof(q)));
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
		shape_nomem(r);
	return j;
}

/* Whether the 4 bytes at s are hex digits; their value in *v. */
static bool hex4(const char *s, long *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		char c = s[i];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			*v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			*v |= c - 'A' + 10;
		else
			return false;
	}
	return true;
}

/* The JSON string s[start, end), its quotes included (RFC 8259 section
 * 7; UTF-8 already checked).  Its escapes are checked here, for the
 * bytes and message of a wrong one; jansson then decodes it.  jansson
 * reports a failed allocation as a syntax error, so a failure after a
 * clean check is want of memory.  NULL with the error set. */
static __attribute__((noinline)) json_t *
json_string_at(reader_t *r, size_t start, size_t end)
{
	json_error_t jerr;
	json_t *j;

	for (size_t i = start + 1; i + 1 < end; i++) {
		unsigned char c = (unsigned char)r->s[i];
		long cp, lo;

		if (c < 0x20)
			return xc_error_set(
				       r->err, SHAPE_E_VALUE, i, i + 1,
				       "a control byte in a JSON string: write it as \\u%04x",
				       c),
			       NULL;
		if (c != '\\')
			continue;
		if (r->s[++i] && memchr("\"\\/bfnrt", r->s[i], 8))
			continue;
		if (r->s[i] != 'u' || end - 1 - i < 5 ||
		    !hex4(r->s + i + 1, &cp))
			return xc_error_set(
				       r->err, SHAPE_E_VALUE, i - 1, i + 1,
				       "not a JSON escape: \\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\uXXXX expected"),
			       NULL;
		i += 4;
		if (cp >= 0xd800 && cp <= 0xdbff && end - 1 - i >= 7 &&
		    r->s[i + 1] == '\\' && r->s[i + 2] == 'u' &&
		    hex4(r->s + i + 3, &lo) && lo >= 0xdc00 && lo <= 0xdfff)
			i += 6;
		else if (cp >= 0xd800 && cp <= 0xdfff)
			return xc_error_set(r->err, SHAPE_E_VALUE, i - 5, i + 1,
					    "a lone UTF-16 surrogate"),
			       NULL;
		else if (cp == 0)
			return xc_error_set(
				       r->err, SHAPE_E_VALUE, i - 5, i + 1,
				       "\\u0000: a string here cannot hold a NUL"),
			       NULL;
	}
	if (!(j = json_loadb(r->s + start, end - start, JSON_DECODE_ANY,
			     &jerr)))
		shape_nomem(r);
	return j;
}

/* Moves r->pos past the quote that closes the string opened by the
 * quote at `start` (its own kind; `escapes`: a backslash takes the next
 * byte in, as JSON's).  False, with the error set, when none does. */
static bool close_quote(reader_t *r, size_t start, bool escapes)
{
	char quote = r->s[start];

	for (r->pos = start + 1; r->pos < r->len && r->s[r->pos] != quote;
	     r->pos++)
		if (escapes && r->s[r->pos] == '\\' && r->pos + 1 < r->len)
			r->pos++;
	if (r->pos >= r->len) {
		xc_error_set(r->err, SHAPE_E_VALUE, start, r->len,
			     quote == '"' ? "a string with no closing '\"'"
					  : "a string with no closing \"'\"");
		return false;
	}
	r->pos++;
	return true;
}

/* A string in single quotes at r->pos: every byte up to the next one,
 * no escapes, as flux-core's shape parser reads them (it must be UTF-8).
 * NULL with the error set. */
static json_t *read_raw_string(reader_t *r)
{
	size_t start = r->pos;

	if (!close_quote(r, start, false))
		return NULL;
	if (memchr(r->s + start, '\0', r->pos - start)) {
		xc_error_set(
			r->err, SHAPE_E_VALUE, start, r->pos,
			"a NUL byte in a string: a string here cannot hold one");
		return NULL;
	}
	return string_at(r, start + 1, r->pos - 1);
}

/* string -> word | '"' JSON string '"' | "'" raw string "'".  `what`
 * names it for the error when there is neither; *quoted (may be NULL)
 * tells which it was. */
json_t *shape_read_string(reader_t *r, const char *what, bool *quoted)
{
	char c = shape_peek(r);
	size_t start = r->pos;

	if (quoted)
		*quoted = c == '"' || c == '\'';
	if (c == '\'')
		return read_raw_string(r);
	if (c != '"') {
		while (r->pos < r->len &&
		       shape_is_word((unsigned char)r->s[r->pos]))
			r->pos++;
		if (r->pos == start) {
			shape_expected(r, what);
			return NULL;
		}
		if (word_end(r, start) < 0)
			return NULL;
		return string_at(r, start, r->pos);
	}
	if (!close_quote(r, start, true))
		return NULL;
	if (!xc_valid_utf8((const unsigned char *)r->s + start,
			   r->pos - start)) {
		xc_error_set(r->err, XC_E_NOT_UTF8, start, r->pos,
			     "not UTF-8: a JSON string cannot hold it");
		return NULL;
	}
	return json_string_at(r, start, r->pos);
}

/* A word that is a JSON number (shape_word_is_other() said so):
 * jansson reads it, and fails only when it overflows, or for want of
 * memory. */
static __attribute__((noinline)) json_t *read_number(reader_t *r, size_t start)
{
	json_error_t jerr;
	json_t *j = json_loadb(r->s + start, r->pos - start, JSON_DECODE_ANY,
			       &jerr);

	if (!j && json_error_code(&jerr) == json_error_numeric_overflow)
		xc_error_set(r->err, SHAPE_E_VALUE, start, r->pos,
			     "not a JSON value: %s", jerr.text);
	else if (!j)
		shape_nomem(r);
	return j;
}

/* Refuses a key the braces of a vertex cannot hold (`slot`: a slot's):
 * those the shape writes elsewhere, and a slot's label after the first
 * entry.  Returns 0, or -1 with the error set for s[at, r->pos). */
static int vertex_key(reader_t *r, const char *key, bool slot, size_t at)
{
	static const char *const elsewhere[][2] = {
		{ "type", "the type comes first" },
		{ "count", "the count is written after '='" },
		{ "with", "what a resource holds is written after '/'" },
	};

	for (size_t i = 0; i < 3; i++)
		if (strcmp(key, elsewhere[i][0]) == 0)
			return xc_error_set(r->err, SHAPE_E_KEY, at, r->pos,
					    "'%s' cannot be a key here: %s",
					    key, elsewhere[i][1]);
	if (slot && strcmp(key, "label") == 0)
		return xc_error_set(
			r->err, SHAPE_E_KEY, at, r->pos,
			"a slot's label is the first entry in its braces: slot{LABEL,...}");
	return 0;
}

/* Records label `label`, refusing one used before (RFC 14: labels are
 * unique); the error names s[at, r->pos). */
int shape_add_label(reader_t *r, const char *label, size_t at)
{
	if (json_object_get(r->labels, label))
		return xc_error_set(
			r->err, SHAPE_E_LABEL, at, r->pos,
			"label '%s' is used twice (RFC 14: labels are unique)",
			label);
	if (json_object_set(r->labels, label, json_true()) < 0)
		return shape_nomem(r);
	return 0;
}

/* Checks the value `v` of `key` at a vertex: exclusive a boolean, a
 * label a string, not used before.  Returns 0, or -1 with the error
 * set for s[at, r->pos). */
static int vertex_value(reader_t *r, const char *key, const json_t *v,
			size_t at)
{
	if (strcmp(key, "exclusive") == 0 && !json_is_boolean(v))
		return xc_error_set(r->err, SHAPE_E_VALUE, at, r->pos,
				    "exclusive is true or false (RFC 14)");
	if (strcmp(key, "label") != 0)
		return 0;
	if (!json_is_string(v))
		return xc_error_set(r->err, SHAPE_E_VALUE, at, r->pos,
				    "a label is a string (RFC 14)");
	return shape_add_label(r, json_string_value(v), at);
}

static json_t *read_value(reader_t *r, unsigned depth);

/* items -> item (',' item)* '}'
 * item  -> key ':' value | ('+' | '-')? key
 * Into `obj`, r->pos past the '{' at `open` or the ',' before the first
 * item, at `depth` levels.  At a vertex (`vertex`; `slot`: a slot's),
 * `x` is "exclusive" and the keys the shape writes elsewhere are
 * refused; in a value's own braces JSON's blanks may stand between the
 * tokens. */
static int read_items_in(reader_t *r, json_t *obj, size_t open, bool vertex,
			 bool slot, unsigned depth)
{
	for (;;) {
		size_t at;
		char sign;
		bool quoted;
		const char *key;
		json_t *k, *v = NULL;

		sign = shape_peek(r);
		at = r->pos;
		if (sign == '+' || sign == '-')
			r->pos++;
		if (!(k = shape_read_string(r, "a key", &quoted)))
			return -1;
		key = json_string_value(k);
		if (vertex && !quoted && strcmp(key, "x") == 0)
			key = "exclusive";
		if (vertex && vertex_key(r, key, slot, at) < 0)
			goto fail;
		if (json_object_get(obj, key)) {
			xc_error_set(r->err, SHAPE_E_KEY, at, r->pos,
				     "'%s' is given twice", key);
			goto fail;
		}
		if (sign == '+' || sign == '-' || shape_peek(r) != ':') {
			v = json_boolean(sign != '-');
		} else {
			r->pos++;
			if (!(v = read_value(r, depth + 1)))
				goto fail;
		}
		if (vertex && vertex_value(r, key, v, at) < 0)
			goto fail;
		if (json_object_set_new(obj, key, v) < 0) {
			v = NULL; /* taken, even on failure */
			shape_nomem(r);
			goto fail;
		}
		json_decref(k);
		if (shape_peek(r) == '}') {
			r->pos++;
			return 0;
		}
		if (shape_peek(r) != ',')
			return shape_expected_at(r, "',' or '}'", open);
		r->pos++;
		continue;
	fail:
		json_decref(v);
		json_decref(k);
		return -1;
	}
}

/* read_items_in() with the braces at `open` counted open. */
static int read_items(reader_t *r, json_t *obj, size_t open, bool vertex,
		      bool slot, unsigned depth)
{
	size_t outer;
	int rc;

	nest(r, open, &outer);
	r->braces++;
	rc = read_items_in(r, obj, open, vertex, slot, depth);
	r->braces--;
	r->open = outer;
	return rc;
}

/* read_items() for the grammar (shape_read.c); read_value() calls the
 * static one, which the compiler inlines there, so that a level of
 * nested values costs no frame more (doc/benchmarks.md). */
int shape_read_items(reader_t *r, json_t *obj, size_t open, bool vertex,
		     bool slot, unsigned depth)
{
	return read_items(r, obj, open, vertex, slot, depth);
}

/* The values of an array, r->pos past the '[' at `open`: value
 * (',' value)* ']', or ']' alone; blanks between the tokens. */
static json_t *read_array(reader_t *r, size_t open, unsigned depth)
{
	json_t *j = json_array(), *v;
	size_t outer;

	if (!j) {
		shape_nomem(r);
		return NULL;
	}
	nest(r, open, &outer);
	while (shape_peek(r) != ']') {
		if (!(v = read_value(r, depth + 1)))
			goto fail;
		if (json_array_append_new(j, v) < 0) {
			shape_nomem(r);
			goto fail;
		}
		if (shape_peek(r) == ']')
			break;
		if (shape_peek(r) != ',') {
			shape_expected_at(r, "',' or ']'", open);
			goto fail;
		}
		r->pos++;
	}
	r->pos++;
	r->open = outer;
	return j;
fail:
	r->open = outer;
	json_decref(j);
	return NULL;
}

/* value -> '"' JSON string '"' | '{' items | '{' '}' | '[' values ']'
 *        | word (a JSON literal or number, else a string)
 * `depth` levels of values are open, counting this one. */
static json_t *read_value(reader_t *r, unsigned depth)
{
	char c = shape_peek(r);
	size_t start = r->pos;
	json_t *j;

	if (depth > r->max_depth) {
		xc_error_set(r->err, XC_E_TOO_DEEP, r->pos, here_end(r),
			     "nested deeper than %u levels", r->max_depth);
		return NULL;
	}
	switch (c) {
	case '"':
	case '\'':
		return shape_read_string(r, "a value", NULL);
	case '[':
		r->pos++;
		return read_array(r, start, depth);
	case '{':
		r->pos++;
		if (!(j = json_object())) {
			shape_nomem(r);
			return NULL;
		}
		if (shape_peek(r) == '}')
			r->pos++;
		else if (read_items(r, j, start, false, false, depth) < 0)
			json_decref(j), j = NULL;
		return j;
	default:
		break;
	}
	while (r->pos < r->len && shape_is_word((unsigned char)r->s[r->pos]))
		r->pos++;
	if (r->pos == start) {
		shape_expected(r, "a value");
		return NULL;
	}
	if (word_end(r, start) < 0)
		return NULL;
	if (!shape_word_is_other(r->s + start, r->pos - start))
		return string_at(r, start, r->pos);
	return read_number(r, start);
}
