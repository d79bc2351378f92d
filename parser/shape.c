/*
 * shape.c - RFC 46 resource shapes (doc/flux.md "Shapes"): a shape to
 * the RFC 14 resources list it stands for, a resources list back to its
 * shortest shape, and RFC 25's test for jobspec V1.
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
 * builds the values (and reads quoted strings and numbers), as Flux does.
 */
#include <stdarg.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "xc_private.h"

/* The bytes that end a word (an unquoted string): RFC 46's punctuation. */
static bool is_special(unsigned char c)
{
	return c && strchr("[]{};/,:=\"", c) != NULL;
}

/* A byte of a word: anything printable that is not punctuation (bytes of
 * UTF-8 included; blanks and control bytes are not). */
static bool is_word(unsigned char c)
{
	return c > 0x20 && c != 0x7f && !is_special(c);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Whether `s` (`n` bytes) is a JSON number: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)? */
static bool is_json_number(const char *s, size_t n)
{
	size_t i = 0, d;

	if (i < n && s[i] == '-')
		i++;
	if (i < n && s[i] == '0')
		i++;
	else if (i < n && is_digit(s[i]) && s[i] != '0')
		while (i < n && is_digit(s[i]))
			i++;
	else
		return false;
	if (i < n && s[i] == '.') {
		for (d = ++i; i < n && is_digit(s[i]); i++)
			;
		if (i == d)
			return false;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		for (d = i; i < n && is_digit(s[i]); i++)
			;
		if (i == d)
			return false;
	}
	return i == n;
}

/* Whether a word `s` (`n` bytes) would read as something other than a
 * string: a JSON literal or number. */
static bool word_is_other(const char *s, size_t n)
{
	return (n == 4 && memcmp(s, "true", 4) == 0) ||
	       (n == 5 && memcmp(s, "false", 5) == 0) ||
	       (n == 4 && memcmp(s, "null", 4) == 0) || is_json_number(s, n);
}

/* ------------------------------------------------------------ counts */

/* One RFC 22/45 number at s[*i]: decimal digits, no leading zero, at
 * least 1, at most LLONG_MAX.  Returns 0 with *out, or -1 with
 * *why. */
static int count_number(const char *s, size_t n, size_t *i, json_int_t *out,
			const char **why)
{
	json_int_t v = 0;
	size_t start = *i;

	if (*i >= n || !is_digit(s[*i])) {
		*why = "a number expected";
		return -1;
	}
	if (s[*i] == '0') {
		*why = "counts start at 1 and have no leading zero";
		return -1;
	}
	for (; *i < n && is_digit(s[*i]); (*i)++) {
		if (v > (LLONG_MAX - (s[*i] - '0')) / 10) {
			*why = "a number too large";
			*i = start;
			return -1;
		}
		v = v * 10 + (s[*i] - '0');
	}
	*out = v;
	return 0;
}

/* A count's text (`n` bytes, no brackets) as its RFC 14 value: an
 * integer, an RFC 22 idset (a string), an RFC 45 range (RFC 14's
 * dictionary, or the string when the dictionary cannot hold it).
 * Returns a new reference, or NULL with *why set (and *at, the byte at
 * fault) or, *why NULL, when out of memory. */
static json_t *count_value(const char *s, size_t n, size_t *at,
			   const char **why)
{
	size_t i = 0;
	json_int_t a, b = 0, operand = 1;
	char op = '+';
	bool has_max = false, has_tail = false; /* tail: ":operand..." */

	*why = NULL;
	if (n == 0) {
		*at = 0;
		*why = "a count expected: N, an idset such as 4,9 or a range such as 2+ or 3-30";
		return NULL;
	}
	if (memchr(s, ',', n)) { /* RFC 22 idset */
		json_int_t last = 0;

		while (i < n) {
			*at = i;
			if (count_number(s, n, &i, &a, why) < 0)
				return NULL;
			b = a;
			if (i < n && s[i] == '-') {
				i++;
				*at = i;
				if (count_number(s, n, &i, &b, why) < 0)
					return NULL;
				if (b <= a) {
					*why = "an idset range goes up (RFC 22)";
					return NULL;
				}
			}
			if (a <= last) {
				*why = "an idset's ids go up, each once (RFC 22)";
				return NULL;
			}
			last = b;
			if (i < n && s[i] != ',') {
				*at = i;
				*why = "',' or the end of the idset expected";
				return NULL;
			}
			if (i < n && ++i == n) {
				*at = i - 1;
				*why = "an id expected after ','";
				return NULL;
			}
		}
		return json_stringn(s, n);
	}
	*at = 0;
	if (count_number(s, n, &i, &a, why) < 0)
		return NULL;
	if (i == n)
		return json_integer(a);
	*at = i;
	if (s[i] == '+') {
		i++;
	} else if (s[i] == '-') {
		i++;
		*at = i;
		if (count_number(s, n, &i, &b, why) < 0)
			return NULL;
		if (b < a) {
			*why = "a range's maximum is below its minimum";
			return NULL;
		}
		has_max = true;
	} else {
		*why = "'+' or '-MAX' expected after a range's minimum (RFC 45)";
		return NULL;
	}
	if (i < n && s[i] == ':') {
		i++;
		*at = i;
		if (count_number(s, n, &i, &operand, why) < 0)
			return NULL;
		has_tail = true;
		if (i < n && s[i] == ':') {
			*at = ++i;
			if (i == n || !strchr("+*^", s[i])) {
				*why = "an operator expected: +, * or ^ (RFC 45)";
				return NULL;
			}
			op = s[i++];
		}
	}
	if (i < n) {
		*at = i;
		*why = "the end of the count expected";
		return NULL;
	}
	if (has_max)
		return json_pack("{s:I,s:I,s:s#,s:I}", "min", a, "max", b,
				 "operator", &op, (int)1, "operand", operand);
	if (!has_tail || (operand == 1 && op == '+'))
		return json_pack("{s:I}", "min", a);
	return json_stringn(s, n);
}

/* ----------------------------------------------------------- reading */

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
	if (is_word((unsigned char)r->s[r->pos]))
		while (r->pos + n < r->len &&
		       is_word((unsigned char)r->s[r->pos + n]))
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
		while (r->pos < r->len && is_word((unsigned char)r->s[r->pos]))
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
	while (r->pos < r->len && is_word((unsigned char)r->s[r->pos]))
		r->pos++;
	if (r->pos == start) {
		expected(r, "a value");
		return NULL;
	}
	if (!word_is_other(r->s + start, r->pos - start))
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
	j = count_value(r->s + start, r->pos - start, &at, &why);
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

		while (at + n < r->len && is_word((unsigned char)r->s[at + n]))
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

/* ----------------------------------------------------------- writing */

typedef struct writer {
	FILE *out;
	unsigned max_depth;
	xc_error_t *err;
	size_t slots; /* slot vertices in the whole list */
	char path[200];
} writer_t;

/* An error at the current path. */
static int wfail(writer_t *w, xc_errcode_t code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int wfail(writer_t *w, xc_errcode_t code, const char *fmt, ...)
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
		if (!is_word((unsigned char)s[i]))
			return false;
	if (key && (s[0] == '+' || s[0] == '-'))
		return false;
	return !value || !word_is_other(s, n);
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
 * vertex). */
static int put_item(writer_t *w, const char *key, const json_t *v, bool vertex,
		    unsigned depth)
{
	bool exclusive = vertex && strcmp(key, "exclusive") == 0;

	if (json_is_boolean(v)) {
		if (json_is_false(v))
			fputc('-', w->out);
		if (exclusive)
			return fputc('x', w->out) == EOF ? -1 : 0;
		return put_string(w, key, false, true);
	}
	if (vertex && strcmp(key, "x") == 0)
		fputs("\"x\"", w->out);
	else if (put_string(w, key, false, true) < 0)
		return -1;
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

/* RFC 14's range dictionary `c`: {"min"[, "max", "operator",
 * "operand"]}, integers of at least 1 (max not below min), the operator
 * one of + * ^, no other key.  Read by hand: json_unpack() allocates,
 * and its failure could not be told from a wrong dictionary. */
static bool range_dict(const json_t *c, json_int_t *min, json_int_t *max,
		       const char **op, json_int_t *operand)
{
	const json_t *v;
	const char *key;
	json_t *item;

	if (!json_is_object(c))
		return false;
	json_object_foreach ((json_t *)c, key, item)
		if (strcmp(key, "min") && strcmp(key, "max") &&
		    strcmp(key, "operator") && strcmp(key, "operand"))
			return false;
	if (!json_is_integer(v = json_object_get(c, "min")) ||
	    (*min = json_integer_value(v)) < 1)
		return false;
	if ((v = json_object_get(c, "max")) &&
	    (!json_is_integer(v) || (*max = json_integer_value(v)) < *min))
		return false;
	if ((v = json_object_get(c, "operand")) &&
	    (!json_is_integer(v) || (*operand = json_integer_value(v)) < 1))
		return false;
	if ((v = json_object_get(c, "operator")) &&
	    (!json_is_string(v) || json_string_length(v) != 1 ||
	     !strchr("+*^", *(*op = json_string_value(v)))))
		return false;
	return true;
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
			return wfail(w, XC_E_SHAPE_RESOURCES,
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
		if (!(j = count_value(s, n, &at, &why)))
			return why ? wfail(w, XC_E_SHAPE_RESOURCES,
					   "count \"%s\": %s",
					   json_string_value(c), why)
				   : -1;
		json_decref(j);
		fprintf(w->out, "=%.*s", (int)n, s);
		return 0;
	}
	if (!range_dict(c, &min, &max, &op, &operand))
		return wfail(
			w, XC_E_SHAPE_RESOURCES,
			"a count is an integer, an idset, a range string or {min[,max,operator,operand]} (RFC 14)");
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
		return wfail(w, XC_E_SHAPE_RESOURCES,
			     "a resource is an object (RFC 14)");
	if (!json_is_string(type) || !json_string_length(type))
		return wfail(
			w, XC_E_SHAPE_RESOURCES,
			"a resource has a type, a non-empty string (RFC 14)");
	if (!count)
		return wfail(w, XC_E_SHAPE_RESOURCES,
			     "a resource has a count (RFC 14)");
	slot = strcmp(json_string_value(type), "slot") == 0;
	if (slot && !json_is_string(label))
		return wfail(w, XC_E_SHAPE_RESOURCES,
			     "a slot has a label, a string (RFC 14)");
	if (slot && !with)
		return wfail(w, XC_E_SHAPE_RESOURCES,
			     "a slot holds resources: it has a with (RFC 14)");
	if (json_object_get(v, "exclusive") &&
	    !json_is_boolean(json_object_get(v, "exclusive")))
		return wfail(w, XC_E_SHAPE_RESOURCES,
			     "exclusive is true or false (RFC 14)");
	if (label && !json_is_string(label))
		return wfail(w, XC_E_SHAPE_RESOURCES,
			     "a label is a string (RFC 14)");
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
			w, XC_E_SHAPE_RESOURCES,
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

char *xc_shape_format(const json_t *resources, const xc_limits_t *limits,
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
	rc = put_list(&w, resources, 1);
	s = xc_text_close(&t);
	if (rc < 0 || !s) {
		if (!err || err->code == XC_OK)
			xc_error_set(err, XC_E_NOMEM, 0, 0, "out of memory");
		free(s);
		return NULL;
	}
	return s;
}

/* ------------------------------------------------------ jobspec V1 */

/* Whether vertex `v` has a key outside `allowed` (NULL-terminated). */
static const char *stray_key(const json_t *v, const char *const *allowed)
{
	const char *key;
	json_t *item;

	json_object_foreach ((json_t *)v, key, item) {
		size_t i = 0;

		while (allowed[i] && strcmp(allowed[i], key) != 0)
			i++;
		if (!allowed[i])
			return key;
	}
	return NULL;
}

/* One V1 vertex of type `want` (or either of two), `count` an integer. */
static int v1_vertex(const json_t *v, const char *path, const char *want,
		     xc_error_t *err)
{
	static const char *const keys[] = { "type",  "count", "with",
					    "label", "unit",  NULL };
	static const char *const node_keys[] = { "type",  "count", "with",
						 "label", "unit",  "exclusive",
						 NULL };
	const char *type = json_string_value(json_object_get(v, "type"));
	const char *stray;

	if (!json_is_object(v) || !type)
		return xc_error_set(err, XC_E_NOT_V1, 0, 0,
				    "%s: a resource is an object with a type",
				    path);
	{
		char list[32], shown[40] = "";
		bool ok = false;
		char *tok, *save;

		snprintf(list, sizeof(list), "%s", want);
		for (const char *c = want; *c; c++)
			if (*c == '|')
				strcat(shown, " or ");
			else
				strncat(shown, c, 1);
		for (tok = strtok_r(list, "|", &save); tok && !ok;
		     tok = strtok_r(NULL, "|", &save))
			ok = strcmp(tok, type) == 0;
		if (!ok)
			return xc_error_set(
				err, XC_E_NOT_V1, 0, 0,
				"%s: '%s' where jobspec V1 has %s (RFC 25: node>slot>core[,gpu] or slot>core[,gpu])",
				path, type, shown);
	}
	if (!json_is_integer(json_object_get(v, "count")) ||
	    json_integer_value(json_object_get(v, "count")) < 1)
		return xc_error_set(
			err, XC_E_NOT_V1, 0, 0,
			"%s: jobspec V1 counts are integers of at least 1 (RFC 25), not ranges or idsets",
			path);
	stray = stray_key(v, strcmp(type, "node") == 0 ? node_keys : keys);
	if (stray)
		return xc_error_set(
			err, XC_E_NOT_V1, 0, 0,
			"%s: jobspec V1 has no '%s' on a %s (RFC 25)", path,
			stray, type);
	return 0;
}

int xc_shape_check_v1(const json_t *resources, xc_error_t *err)
{
	const json_t *top, *slot, *with, *v;
	char path[64];
	bool core = false, gpu = false;
	size_t i;

	xc_error_clear(err);
	if (!json_is_array(resources) || json_array_size(resources) != 1)
		return xc_error_set(
			err, XC_E_NOT_V1, 0, 0,
			"$: jobspec V1 has exactly one resource at the top, node or slot (RFC 25)");
	top = json_array_get(resources, 0);
	if (v1_vertex(top, "$[0]", "node|slot", err) < 0)
		return -1;
	slot = top;
	snprintf(path, sizeof(path), "$[0]");
	if (strcmp(json_string_value(json_object_get(top, "type")), "node") ==
	    0) {
		with = json_object_get(top, "with");
		if (json_array_size(with) != 1)
			return xc_error_set(
				err, XC_E_NOT_V1, 0, 0,
				"$[0]: a node holds exactly one slot in jobspec V1 (RFC 25)");
		slot = json_array_get(with, 0);
		snprintf(path, sizeof(path), "$[0].with[0]");
		if (v1_vertex(slot, path, "slot", err) < 0)
			return -1;
	}
	with = json_object_get(slot, "with");
	if (!json_is_array(with) || json_array_size(with) < 1 ||
	    json_array_size(with) > 2)
		return xc_error_set(
			err, XC_E_NOT_V1, 0, 0,
			"%s: a slot holds a core, and may hold a gpu beside it, in jobspec V1 (RFC 25)",
			path);
	json_array_foreach (with, i, v) {
		char at[96];
		const char *type;

		snprintf(at, sizeof(at), "%s.with[%zu]", path, i);
		if (v1_vertex(v, at, "core|gpu", err) < 0)
			return -1;
		type = json_string_value(json_object_get(v, "type"));
		if (json_object_get(v, "with"))
			return xc_error_set(
				err, XC_E_NOT_V1, 0, 0,
				"%s: a %s holds nothing in jobspec V1 (RFC 25)",
				at, type);
		if ((strcmp(type, "core") == 0 && core) ||
		    (strcmp(type, "gpu") == 0 && gpu))
			return xc_error_set(
				err, XC_E_NOT_V1, 0, 0,
				"%s: a second %s in the slot (RFC 25)", at,
				type);
		core = core || strcmp(type, "core") == 0;
		gpu = gpu || strcmp(type, "gpu") == 0;
	}
	if (!core)
		return xc_error_set(
			err, XC_E_NOT_V1, 0, 0,
			"%s: the slot holds no core; jobspec V1 needs one (RFC 25)",
			path);
	return 0;
}
