/*
 * shape_words.c - the words and counts of RFC 46 shapes (doc/flux.md
 * "Shapes"), which the reader (shape_read.c, shape_value.c) and the
 * writer (shape_write.c) share: what an unquoted string may hold, and a
 * count's text as its RFC 14 value.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "shape_words.h"

/* The bytes that end a word (an unquoted string): RFC 46's punctuation,
 * and the quotes. */
static bool is_special(unsigned char c)
{
	return c && strchr("[]{};/,:=\"'", c) != NULL;
}

/* A byte of a word: anything printable that is not punctuation (bytes of
 * UTF-8 included; blanks and control bytes are not). */
bool shape_is_word(unsigned char c)
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
bool shape_word_is_other(const char *s, size_t n)
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

const char *shape_range_check(long long min, char op, long long operand)
{
	if (op == '^' && min < 2)
		return "'^' needs a minimum of at least 2 (RFC 45)";
	if ((op == '*' || op == '^') && operand < 2)
		return "'*' and '^' need an operand of at least 2 (RFC 45)";
	return NULL;
}

/* A count's text (`n` bytes, no brackets) as its RFC 14 value: an
 * integer, an RFC 22 idset (a string), an RFC 45 range (RFC 14's
 * dictionary, or the string when the dictionary cannot hold it).
 * Returns a new reference, or NULL with *why set (and *at, the byte at
 * fault) or, *why NULL, when out of memory. */
json_t *shape_count(const char *s, size_t n, size_t *at, const char **why)
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
			if (i == n || !memchr("+*^", s[i], 3)) {
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
	*at = 0; /* the whole count */
	if ((*why = shape_range_check(a, op, operand)))
		return NULL;
	if (has_max)
		return json_pack("{s:I,s:I,s:s#,s:I}", "min", a, "max", b,
				 "operator", &op, (int)1, "operand", operand);
	if (!has_tail || (operand == 1 && op == '+'))
		return json_pack("{s:I}", "min", a);
	return json_stringn(s, n);
}
