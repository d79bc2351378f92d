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
 * Hand-written like the request parser (parser/parse.c) for its errors: each
 * names the bytes at fault and what the grammar wanted there, and an
 * unclosed bracket the column of its opening one.  There is no separate
 * lexer: what a byte means depends on where it stands (2+ is a count
 * after '=' and a word in braces), and the grammar functions read
 * through peek() and the word and count readers only.  jansson builds
 * the values and decodes quoted strings and numbers, as Flux does.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "shape.h"
#include "shape_words.h"
#include "xc_util.h"

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
	size_t open;	 /* the innermost open bracket, or SIZE_MAX */
	unsigned braces; /* braces open around r->pos */
} reader_t;

static int nomem(reader_t *r)
{
	return xc_error_set(r->err, XC_E_NOMEM, r->pos, r->pos,
			    "out of memory");
}

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

/* The end of an error's bytes at r->pos: the byte there, or nothing at
 * the end of the shape. */
static size_t here_end(const reader_t *r)
{
	return r->pos < r->len ? r->pos + 1 : r->pos;
}

/* The next token's first byte (blanks skipped), or '\0' at the end. */
static char peek(reader_t *r)
{
	skip_blanks(r);
	return r->pos < r->len ? r->s[r->pos] : '\0';
}

/* The error reports keep their message buffers out of the recursive
 * frames below (noinline): each level of nesting costs only the grammar
 * functions' small frames (tests/test_shape.c runs the deepest shape in
 * a 1 MiB stack). */

/* A syntax error at r->pos: "<wanted> expected, not <what is there>",
 * and, when `open` is not SIZE_MAX, the bracket at that offset it would
 * close. */
static __attribute__((noinline)) int
expected_at(reader_t *r, const char *wanted, size_t open)
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

/* expected_at(), naming the innermost open bracket when the shape ends
 * here. */
static int expected(reader_t *r, const char *wanted)
{
	return expected_at(r, wanted, r->pos >= r->len ? r->open : SIZE_MAX);
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

static void nest(reader_t *r, size_t open, size_t *outer)
{
	*outer = r->open;
	r->open = open;
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
		nomem(r);
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

/* string -> word | '"' JSON string '"' | "'" raw string "'".  `what` names it for the error
 * when there is neither; *quoted (may be NULL) tells which it was. */
static json_t *read_string(reader_t *r, const char *what, bool *quoted)
{
	char c = peek(r);
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
			expected(r, what);
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
		nomem(r);
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
static int add_label(reader_t *r, const char *label, size_t at)
{
	if (json_object_get(r->labels, label))
		return xc_error_set(
			r->err, SHAPE_E_LABEL, at, r->pos,
			"label '%s' is used twice (RFC 14: labels are unique)",
			label);
	if (json_object_set(r->labels, label, json_true()) < 0)
		return nomem(r);
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
	return add_label(r, json_string_value(v), at);
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

		sign = peek(r);
		at = r->pos;
		if (sign == '+' || sign == '-')
			r->pos++;
		if (!(k = read_string(r, "a key", &quoted)))
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
		if (sign == '+' || sign == '-' || peek(r) != ':') {
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
			nomem(r);
			goto fail;
		}
		json_decref(k);
		if (peek(r) == '}') {
			r->pos++;
			return 0;
		}
		if (peek(r) != ',')
			return expected_at(r, "',' or '}'", open);
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

/* The values of an array, r->pos past the '[' at `open`: value
 * (',' value)* ']', or ']' alone; blanks between the tokens. */
static json_t *read_array(reader_t *r, size_t open, unsigned depth)
{
	json_t *j = json_array(), *v;
	size_t outer;

	if (!j) {
		nomem(r);
		return NULL;
	}
	nest(r, open, &outer);
	while (peek(r) != ']') {
		if (!(v = read_value(r, depth + 1)))
			goto fail;
		if (json_array_append_new(j, v) < 0) {
			nomem(r);
			goto fail;
		}
		if (peek(r) == ']')
			break;
		if (peek(r) != ',') {
			expected_at(r, "',' or ']'", open);
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
	char c = peek(r);
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
		return read_string(r, "a value", NULL);
	case '[':
		r->pos++;
		return read_array(r, start, depth);
	case '{':
		r->pos++;
		if (!(j = json_object())) {
			nomem(r);
			return NULL;
		}
		if (peek(r) == '}')
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
		expected(r, "a value");
		return NULL;
	}
	if (word_end(r, start) < 0)
		return NULL;
	if (!shape_word_is_other(r->s + start, r->pos - start))
		return string_at(r, start, r->pos);
	return read_number(r, start);
}

/* Whether byte `c` may stand in a count: digits and RFC 22's and
 * RFC 45's punctuation. */
static bool is_count_byte(char c)
{
	return c && memchr("0123456789,-+:*^", c, 16);
}

/* count -> '[' count-value ']' | count-value, r->pos past the '='. */
static json_t *read_count(reader_t *r)
{
	bool bracket = peek(r) == '[';
	size_t open = r->pos, outer = r->open, start, at;
	const char *why;
	json_t *j;

	if (bracket) {
		r->pos++;
		r->open = open;
	}
	peek(r);
	start = r->pos;
	while (r->pos < r->len && is_count_byte(r->s[r->pos]))
		r->pos++;
	j = shape_count(r->s + start, r->pos - start, &at, &why);
	if (!j) {
		if (!why)
			nomem(r);
		else if (r->pos == start)
			expected(
				r,
				"a count (N, an idset such as 4,9 or a range such as 2+ or 3-30)");
		else
			xc_error_set(r->err, SHAPE_E_COUNT, start + at,
				     r->pos > start + at ? r->pos
				     : r->pos < r->len	 ? r->pos + 1
							 : r->pos,
				     "%s", why);
	} else if (bracket && peek(r) != ']') {
		json_decref(j);
		j = NULL;
		expected_at(r, "']' after the count", open);
	} else if (bracket) {
		r->pos++;
	}
	r->open = outer;
	return j;
}

/* label -> string, the first entry of a slot's braces (r->pos past the
 * '{'), alone: no ':' after it. */
static json_t *read_label(reader_t *r)
{
	char c = peek(r);
	size_t at = r->pos;
	json_t *l;

	if (c == '+' || c == '-') {
		size_t n = 1;
		char q[48];

		while (at + n < r->len &&
		       shape_is_word((unsigned char)r->s[at + n]))
			n++;
		xc_error_set(
			r->err, SHAPE_E_LABEL, at, at + n,
			"a slot's braces start with its label: slot{LABEL,%s}",
			xc_quote(r->s + at, n, q, sizeof(q)));
		return NULL;
	}
	if (!(l = read_string(r, "the slot's label", NULL)))
		return NULL;
	if (peek(r) == ':') {
		xc_error_set(
			r->err, SHAPE_E_LABEL, at, r->pos + 1,
			"a slot's braces start with its label alone: slot{LABEL,key:value}");
		json_decref(l);
		return NULL;
	}
	if (add_label(r, json_string_value(l), at) < 0) {
		json_decref(l);
		return NULL;
	}
	return l;
}

/* A slot's braces and label (r->pos at what follows its count, which
 * ends at `bare_end`; the slot starts at `at`):
 * ('{' label (',' items | '}') | '{' '}')?  The label is "default" when
 * there is none (allowed for the shape's one slot: shape_parse);
 * the slot's other items go into `v`.  Returns 0, or -1 with the error
 * set. */
static int read_slot_braces(reader_t *r, json_t *v, size_t at, size_t bare_end,
			    unsigned depth)
{
	size_t open, outer = r->open;
	bool braces = peek(r) == '{';
	json_t *label = NULL;
	bool items = false;
	int rc = 0;

	open = r->pos;
	r->slots++;
	if (braces) {
		r->pos++;
		nest(r, open, &outer);
		r->braces++;
		if (peek(r) == '}') {
			bare_end = ++r->pos;
		} else if (r->pos >= r->len) {
			rc = expected_at(r, "the slot's label or '}'", open);
		} else if (!(label = read_label(r))) {
			rc = -1;
		} else if (peek(r) == ',') {
			r->pos++;
			items = true;
		} else if (peek(r) == '}') {
			r->pos++;
		} else {
			rc = expected_at(r, "',' or '}' after the label", open);
		}
		r->braces--;
		r->open = outer;
	}
	if (rc < 0) {
		json_decref(label);
		return rc;
	}
	if (!label && r->unlabelled++ == 0) {
		r->first_bare = at;
		r->first_bare_end = bare_end;
	}
	if (json_object_set_new(v, "label",
				label ? label : json_string("default")) < 0)
		return nomem(r);
	return items ? read_items(r, v, open, true, true, depth) : 0;
}

static json_t *read_list(reader_t *r, unsigned depth);

/* vertex -> 'slot' ('=' count)? ('{' label (',' item)* '}')? '/' list
 *         | type ('=' count)? ('{' (item (',' item)*)? '}')? ('/' list)?
 * at `depth` levels of lists. */
static json_t *read_vertex(reader_t *r, unsigned depth)
{
	size_t at, end;
	json_t *v, *type, *count, *with;
	bool slot;

	peek(r);
	at = r->pos;
	if (!(type = read_string(r, "a resource type", NULL)))
		return NULL;
	if (json_string_length(type) == 0) {
		json_decref(type);
		xc_error_set(r->err, SHAPE_E_VALUE, at, r->pos,
			     "a resource type is a non-empty string (RFC 14)");
		return NULL;
	}
	slot = strcmp(json_string_value(type), "slot") == 0;
	if (!(v = json_object())) {
		json_decref(type);
		nomem(r);
		return NULL;
	}
	if (json_object_set_new(v, "type", type) < 0)
		goto nomem;
	end = r->pos;
	if (peek(r) == '=') {
		r->pos++;
		if (!(count = read_count(r)))
			goto fail;
		end = r->pos;
	} else {
		count = json_integer(1);
	}
	if (json_object_set_new(v, "count", count) < 0)
		goto nomem;
	if (slot) {
		if (read_slot_braces(r, v, at, end, depth) < 0)
			goto fail;
	} else if (peek(r) == '{') {
		size_t open = r->pos++;

		if (peek(r) == '}')
			r->pos++;
		else if (read_items(r, v, open, true, false, depth) < 0)
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

/* list -> '[' vertex (';' vertex)* ']' | vertex, at `depth` levels. */
static json_t *read_list(reader_t *r, unsigned depth)
{
	bool bracket = peek(r) == '[';
	size_t open = r->pos, outer = r->open;
	json_t *list, *v;

	if (depth > r->max_depth) {
		xc_error_set(r->err, XC_E_TOO_DEEP, r->pos, here_end(r),
			     "nested deeper than %u levels", r->max_depth);
		return NULL;
	}
	if (!(list = json_array())) {
		nomem(r);
		return NULL;
	}
	if (bracket) {
		r->pos++;
		nest(r, open, &outer);
	}
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
			r->open = outer;
			return list;
		}
		if (peek(r) != ';') {
			expected_at(r, "';' or ']'", open);
			goto fail;
		}
		r->pos++;
	}
fail:
	r->open = outer;
	json_decref(list);
	return NULL;
}

json_t *shape_parse(const char *shape, size_t len, const xc_limits_t *limits,
		    xc_error_t *err)
{
	xc_limits_t l = xc_limits_in_force(limits);
	reader_t r = { .s = shape, .len = len, .err = err, .open = SIZE_MAX };
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
	if (peek(&r) || r.pos < len) {
		expected(&r,
			 peek(&r) == ';'
				 ? "the end ('[a;b]' holds several resources)"
				 : "the end");
		goto fail;
	}
	if (r.unlabelled && r.slots > 1) {
		xc_error_set(
			err, SHAPE_E_LABEL, r.first_bare, r.first_bare_end,
			"a slot without a label: with %zu slots, each has one (slot{LABEL})",
			r.slots);
		goto fail;
	}
	if (r.unlabelled && json_object_get(r.labels, "default")) {
		xc_error_set(
			err, SHAPE_E_LABEL, r.first_bare, r.first_bare_end,
			"the slot without a label is 'default', a label used elsewhere (RFC 14: labels are unique)");
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
