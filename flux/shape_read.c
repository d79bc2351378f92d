/*
 * shape_read.c - an RFC 46 shape to the RFC 14 resources list it stands
 * for (doc/flux.md "Shapes"): the shape's grammar.
 *
 *   list    '[' vertex (';' vertex)* ']' | vertex
 *   vertex  type ('=' count)? ('{' items '}')? ('/' list)?
 *   items   (a slot: its label first) item (',' item)*
 *   count   N | idset (RFC 22) | range (RFC 45), '[...]' optional
 *
 * What stands inside braces, items and their values, is read by
 * shape_value.c, into which this file calls (shape_reader.h).
 *
 * Hand-written like the request parser (parser/parse.c) for its errors:
 * each names the bytes at fault and what the grammar wanted there, and
 * an unclosed bracket the column of its opening one.  There is no
 * separate lexer: what a byte means depends on where it stands (2+ is a
 * count after '=' and a word in braces), and the grammar functions read
 * through shape_peek() and the string, item and count readers only.
 */
#include <stdint.h>
#include <string.h>

#include <jansson.h>

#include "shape_reader.h"
#include "shape_words.h"
#include "xc_util.h"

/* Whether byte `c` may stand in a count: digits and RFC 22's and
 * RFC 45's punctuation. */
static bool is_count_byte(char c)
{
	return c && memchr("0123456789,-+:*^", c, 16);
}

/* count -> '[' count-value ']' | count-value, r->pos past the '='. */
static json_t *read_count(reader_t *r)
{
	bool bracket = shape_peek(r) == '[';
	size_t open = r->pos, outer = r->open, start, at;
	const char *why;
	json_t *j;

	if (bracket) {
		r->pos++;
		r->open = open;
	}
	shape_peek(r);
	start = r->pos;
	while (r->pos < r->len && is_count_byte(r->s[r->pos]))
		r->pos++;
	j = shape_count(r->s + start, r->pos - start, &at, &why);
	if (!j) {
		if (!why)
			shape_nomem(r);
		else if (r->pos == start)
			shape_expected(
				r,
				"a count (N, an idset such as 4,9 or a range such as 2+ or 3-30)");
		else
			xc_error_set(r->err, SHAPE_E_COUNT, start + at,
				     r->pos > start + at ? r->pos
				     : r->pos < r->len	 ? r->pos + 1
							 : r->pos,
				     "%s", why);
	} else if (bracket && shape_peek(r) != ']') {
		json_decref(j);
		j = NULL;
		shape_expected_at(r, "']' after the count", open);
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
	char c = shape_peek(r);
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
	if (!(l = shape_read_string(r, "the slot's label", NULL)))
		return NULL;
	if (shape_peek(r) == ':') {
		xc_error_set(
			r->err, SHAPE_E_LABEL, at, r->pos + 1,
			"a slot's braces start with its label alone: slot{LABEL,key:value}");
		json_decref(l);
		return NULL;
	}
	if (shape_add_label(r, json_string_value(l), at) < 0) {
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
	bool braces = shape_peek(r) == '{';
	json_t *label = NULL;
	bool items = false;
	int rc = 0;

	open = r->pos;
	r->slots++;
	if (braces) {
		r->pos++;
		nest(r, open, &outer);
		r->braces++;
		if (shape_peek(r) == '}') {
			bare_end = ++r->pos;
		} else if (r->pos >= r->len) {
			rc = shape_expected_at(r, "the slot's label or '}'",
					       open);
		} else if (!(label = read_label(r))) {
			rc = -1;
		} else if (shape_peek(r) == ',') {
			r->pos++;
			items = true;
		} else if (shape_peek(r) == '}') {
			r->pos++;
		} else {
			rc = shape_expected_at(r, "',' or '}' after the label",
					       open);
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
		return shape_nomem(r);
	return items ? shape_read_items(r, v, open, true, true, depth) : 0;
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

	shape_peek(r);
	at = r->pos;
	if (!(type = shape_read_string(r, "a resource type", NULL)))
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
		shape_nomem(r);
		return NULL;
	}
	if (json_object_set_new(v, "type", type) < 0)
		goto nomem;
	end = r->pos;
	if (shape_peek(r) == '=') {
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
	} else if (shape_peek(r) == '{') {
		size_t open = r->pos++;

		if (shape_peek(r) == '}')
			r->pos++;
		else if (shape_read_items(r, v, open, true, false, depth) < 0)
			goto fail;
	}
	if (shape_peek(r) == '/') {
		r->pos++;
		if (!(with = read_list(r, depth + 1)))
			goto fail;
		if (json_object_set_new(v, "with", with) < 0)
			goto nomem;
	} else if (slot) {
		shape_expected(
			r,
			"'/' and what the slot holds (RFC 14: a slot holds resources)");
		goto fail;
	}
	return v;
nomem:
	shape_nomem(r);
fail:
	json_decref(v);
	return NULL;
}

/* list -> '[' vertex (';' vertex)* ']' | vertex, at `depth` levels. */
static json_t *read_list(reader_t *r, unsigned depth)
{
	bool bracket = shape_peek(r) == '[';
	size_t open = r->pos, outer = r->open;
	json_t *list, *v;

	if (depth > r->max_depth) {
		xc_error_set(r->err, XC_E_TOO_DEEP, r->pos, here_end(r),
			     "nested deeper than %u levels", r->max_depth);
		return NULL;
	}
	if (!(list = json_array())) {
		shape_nomem(r);
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
			shape_nomem(r);
			goto fail;
		}
		if (!bracket)
			return list;
		if (shape_peek(r) == ']') {
			r->pos++;
			r->open = outer;
			return list;
		}
		if (shape_peek(r) != ';') {
			shape_expected_at(r, "';' or ']'", open);
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
		shape_nomem(&r);
		return NULL;
	}
	if (!(list = read_list(&r, 1)))
		goto out;
	if (shape_peek(&r) || r.pos < len) {
		shape_expected(
			&r,
			shape_peek(&r) == ';'
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
