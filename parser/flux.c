/*
 * flux.c - a request to and from its symbolic RFC 31 form
 * (doc/flux.md, "Symbolic").
 *
 *   leaf        {"extra": ["<key><op><value>"]}
 *   AND / OR    {"and": [...]} / {"or": [...]}
 *
 * Reading back accepts only and, or and extra; the other RFC 31 operators
 * (not, properties, hostlist, ranks) and the "always match" shapes ({} and
 * an empty and/or) have no --extra equivalent and are errors naming the
 * operator and the JSON path where it stands.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>

#include <jansson.h>

#include "xc_private.h"

/* ---------------------------------------------------------------- to */

static json_t *leaf_to_flux(const struct xc_expr *e, xc_error_t *err)
{
	const struct xc_leaf *l = &e->u.leaf;
	size_t klen = strlen(l->key), vlen = strlen(l->value);
	const char *op = xc_cmpop_text(l->op);
	size_t olen = strlen(op);
	char *text = malloc(klen + olen + vlen + 1);
	json_t *s, *obj;

	if (!text) {
		xc_error_set(err, XC_E_NOMEM, e->offset, e->offset,
			     "out of memory");
		return NULL;
	}
	memcpy(text, l->key, klen);
	memcpy(text + klen, op, olen);
	memcpy(text + klen + olen, l->value, vlen + 1);
	if (!xc_valid_utf8((const unsigned char *)text, klen + olen + vlen)) {
		free(text);
		xc_error_set(
			err, XC_E_NOT_UTF8, e->offset,
			e->offset + klen + olen + vlen,
			"the leaf is not valid UTF-8, which JSON cannot carry");
		return NULL;
	}
	s = json_stringn_nocheck(text, klen + olen + vlen);
	free(text);
	if (!s) {
		xc_error_set(err, XC_E_NOMEM, e->offset, e->offset,
			     "out of memory");
		return NULL;
	}
	obj = json_pack("{s:[o]}", "extra", s);
	if (!obj)
		xc_error_set(err, XC_E_NOMEM, e->offset, e->offset,
			     "out of memory");
	return obj;
}

static json_t *to_flux(const struct xc_expr *e, xc_error_t *err)
{
	json_t *items, *obj;

	if (e->kind == XC_LEAF)
		return leaf_to_flux(e, err);
	if (!(items = json_array()))
		goto nomem;
	for (size_t i = 0; i < e->u.group.count; i++) {
		json_t *item = to_flux(e->u.group.items[i], err);

		if (!item || json_array_append_new(items, item) < 0) {
			json_decref(items);
			if (item)
				goto nomem;
			return NULL;
		}
	}
	obj = json_pack("{s:o}", e->kind == XC_AND ? "and" : "or", items);
	if (obj)
		return obj;
nomem:
	xc_error_set(err, XC_E_NOMEM, e->offset, e->offset, "out of memory");
	return NULL;
}

json_t *xc_to_flux(const xc_expr_t *expr, xc_error_t *err)
{
	xc_error_clear(err);
	if (!expr) {
		xc_error_set(err, XC_E_INVALID_ARG, 0, 0, "no request given");
		return NULL;
	}
	return to_flux(expr, err);
}

/* -------------------------------------------------------------- from */

/* One step of the JSON path, on the stack: `$.or[1].extra[0]`. */
struct step {
	const struct step *up;
	const char *op; /* NULL for the root */
	size_t index;
};

/* Writes the path of `at` into buf: "$", or "$.or[1].and[0]"; a path
 * too long for the buffer keeps its end: "$...and[0].extra[2]". */
static const char *path_text(const struct step *at, char *buf, size_t size)
{
	const struct step *list[32];
	size_t n = 0, len = 4; /* "$..." */
	bool cut = false;
	char piece[48];

	for (const struct step *s = at; s && s->op; s = s->up) {
		size_t plen = (size_t)snprintf(piece, sizeof(piece), ".%s[%zu]",
					       s->op, s->index);

		if (n == sizeof(list) / sizeof(list[0]) || len + plen >= size) {
			cut = true;
			break;
		}
		list[n++] = s;
		len += plen;
	}
	len = (size_t)snprintf(buf, size, "%s", cut ? "$..." : "$");
	while (n-- > 0)
		len += (size_t)snprintf(buf + len, size - len, "%s%s[%zu]",
					cut && len == 4 ? "" : ".", list[n]->op,
					list[n]->index);
	return buf;
}

typedef struct reader {
	unsigned max_depth;
	xc_error_t *err;
} reader_t;

static struct xc_expr *from_flux(reader_t *r, const json_t *v,
				 const struct step *at, unsigned depth);

/* A leaf string: exactly one doc/language.md §1.1 leaf. */
static struct xc_expr *leaf_from_flux(reader_t *r, const json_t *v,
				      const struct step *at)
{
	char where[120];
	const char *s;
	size_t len;
	xc_lexer_t lx;
	xc_token_t t;

	if (!json_is_string(v)) {
		xc_error_set(r->err, XC_E_FLUX_SHAPE, 0, 0,
			     "%s: a leaf must be a string like \"gpu=true\"",
			     path_text(at, where, sizeof(where)));
		return NULL;
	}
	s = json_string_value(v);
	len = json_string_length(v);
	if (strlen(s) != len) {
		xc_error_set(r->err, XC_E_FLUX_SHAPE, strlen(s), len,
			     "%s: a leaf may not contain a NUL byte",
			     path_text(at, where, sizeof(where)));
		return NULL;
	}
	xc_lexer_init(&lx, s, len);
	t = lx.tok;
	if (t.kind == XC_T_BADLEAF) {
		xc_error_set(r->err, lx.leaf_err.code, lx.leaf_err.offset,
			     lx.leaf_err.end, "%s: %s",
			     path_text(at, where, sizeof(where)),
			     lx.leaf_err.message);
		return NULL;
	}
	if (t.kind == XC_T_END) {
		xc_error_set(r->err, XC_E_EMPTY, 0, 0, "%s: empty leaf",
			     path_text(at, where, sizeof(where)));
		return NULL;
	}
	/* One leaf and nothing else: an operator or parenthesis before or
	 * after it cannot be in a leaf. */
	if (t.kind == XC_T_LEAF)
		xc_lexer_next(&lx);
	if (t.kind != XC_T_LEAF || lx.tok.kind != XC_T_END) {
		const xc_token_t *bad = t.kind != XC_T_LEAF ? &t : &lx.tok;

		xc_error_set(r->err, XC_E_FLUX_SHAPE, bad->offset, bad->end,
			     "%s: '%c' cannot appear in a leaf (column %zu)",
			     path_text(at, where, sizeof(where)),
			     s[bad->offset], bad->offset + 1);
		return NULL;
	}
	{
		struct xc_expr *e =
			xc_leaf_create(s, t.keylen, t.op, s + t.value_offset,
				       t.end - t.value_offset, 0);
		if (!e)
			xc_error_set(r->err, XC_E_NOMEM, 0, 0, "out of memory");
		return e;
	}
}

/* The items of the array of `op` as a group of `kind` (one item: the
 * item itself); the items are leaf strings when `leaves`, else
 * constraints. */
static struct xc_expr *group_from_flux(reader_t *r, const char *op,
				       xc_kind_t kind, bool leaves,
				       const json_t *arr, const struct step *at,
				       unsigned depth)
{
	size_t n = json_array_size(arr);
	struct xc_expr *group = NULL, *item;

	for (size_t i = 0; i < n; i++) {
		struct step next = { at, op, i };
		const json_t *v = json_array_get(arr, i);

		item = leaves ? leaf_from_flux(r, v, &next)
			      : from_flux(r, v, &next, depth + 1);
		if (!item) {
			xc_expr_destroy(group);
			return NULL;
		}
		if (n == 1)
			return item;
		if (!group && !(group = xc_group_create(kind, 0))) {
			xc_expr_destroy(item);
			xc_error_set(r->err, XC_E_NOMEM, 0, 0, "out of memory");
			return NULL;
		}
		if (xc_group_add(group, item) < 0) {
			xc_expr_destroy(group);
			xc_error_set(r->err, XC_E_NOMEM, 0, 0, "out of memory");
			return NULL;
		}
	}
	return group;
}

static struct xc_expr *from_flux(reader_t *r, const json_t *v,
				 const struct step *at, unsigned depth)
{
	static const char *const no_equivalent[] = { "not", "properties",
						     "hostlist", "ranks" };
	char where[120];
	const char *op;
	json_t *arr;
	void *iter;

	if (depth > r->max_depth) {
		xc_error_set(
			r->err, XC_E_TOO_DEEP, 0, 0,
			"%s: constraints nested deeper than the limit of %u",
			path_text(at, where, sizeof(where)), r->max_depth);
		return NULL;
	}
	if (!json_is_object(v)) {
		xc_error_set(
			r->err, XC_E_FLUX_SHAPE, 0, 0,
			"%s: a constraint must be a JSON object like {\"extra\": [\"gpu=true\"]}",
			path_text(at, where, sizeof(where)));
		return NULL;
	}
	if (json_object_size(v) == 0) {
		xc_error_set(r->err, XC_E_FLUX_NO_EQUIVALENT, 0, 0,
			     "%s: {} (always match) has no --extra equivalent",
			     path_text(at, where, sizeof(where)));
		return NULL;
	}
	if (json_object_size(v) > 1) {
		xc_error_set(
			r->err, XC_E_FLUX_SHAPE, 0, 0,
			"%s: a constraint has exactly one operator, found %zu",
			path_text(at, where, sizeof(where)),
			json_object_size(v));
		return NULL;
	}
	iter = json_object_iter((json_t *)v);
	op = json_object_iter_key(iter);
	arr = json_object_iter_value(iter);
	for (size_t i = 0; i < sizeof(no_equivalent) / sizeof(*no_equivalent);
	     i++) {
		if (strcmp(op, no_equivalent[i]) == 0) {
			xc_error_set(r->err, XC_E_FLUX_NO_EQUIVALENT, 0, 0,
				     "%s: '%s' has no --extra equivalent",
				     path_text(at, where, sizeof(where)), op);
			return NULL;
		}
	}
	if (strcmp(op, "and") != 0 && strcmp(op, "or") != 0 &&
	    strcmp(op, "extra") != 0) {
		char q[64];

		xc_error_set(
			r->err, XC_E_FLUX_OPERATOR, 0, 0,
			"%s: unknown operator '%s' (expected and, or, extra)",
			path_text(at, where, sizeof(where)),
			xc_quote(op, strlen(op), q, sizeof(q)));
		return NULL;
	}
	if (!json_is_array(arr)) {
		xc_error_set(r->err, XC_E_FLUX_SHAPE, 0, 0,
			     "%s: the value of '%s' must be an array",
			     path_text(at, where, sizeof(where)), op);
		return NULL;
	}
	if (json_array_size(arr) == 0) {
		if (strcmp(op, "extra") == 0)
			xc_error_set(r->err, XC_E_FLUX_SHAPE, 0, 0,
				     "%s: 'extra' needs at least one leaf",
				     path_text(at, where, sizeof(where)));
		else
			xc_error_set(
				r->err, XC_E_FLUX_NO_EQUIVALENT, 0, 0,
				"%s: an empty '%s' (always match) has no --extra equivalent",
				path_text(at, where, sizeof(where)), op);
		return NULL;
	}
	if (strcmp(op, "extra") == 0)
		return group_from_flux(r, op, XC_AND, true, arr, at, depth);
	return group_from_flux(r, op, strcmp(op, "and") == 0 ? XC_AND : XC_OR,
			       false, arr, at, depth);
}

xc_expr_t *xc_from_flux(const json_t *constraint, const xc_limits_t *limits,
			xc_error_t *err)
{
	const xc_limits_t l = xc_limits_in_force(limits);
	reader_t r = { .max_depth = l.max_depth, .err = err };
	struct step root = { NULL, NULL, 0 };
	size_t max_length = l.max_request_length;
	struct xc_expr *e;
	char *text;

	xc_error_clear(err);
	if (!constraint) {
		xc_error_set(err, XC_E_INVALID_ARG, 0, 0,
			     "no constraint given");
		return NULL;
	}
	if (!(e = from_flux(&r, constraint, &root, 0)))
		return NULL;
	/* The request must also be one that Slurm would accept. */
	text = xc_format(e);
	if (!text) {
		xc_error_set(err, XC_E_NOMEM, 0, 0, "out of memory");
		xc_expr_destroy(e);
		return NULL;
	}
	if (strlen(text) > max_length) {
		xc_error_set(
			err, XC_E_TOO_LONG, max_length, strlen(text),
			"$: the request is %zu bytes, longer than the limit of %zu",
			strlen(text), max_length);
		xc_expr_destroy(e);
		e = NULL;
	}
	free(text);
	return e;
}

xc_expr_t *xc_from_flux_text(const char *text, size_t len,
			     const xc_limits_t *limits, xc_error_t *err)
{
	size_t max = xc_limits_in_force(limits).max_flux_length;
	json_error_t jerr;
	json_t *j;
	xc_expr_t *e;
	int saved_errno;
	bool nomem;

	xc_error_clear(err);
	if (!text) {
		xc_error_set(err, XC_E_INVALID_ARG, 0, 0,
			     "no constraint given");
		return NULL;
	}
	if (len > max) {
		xc_error_set(
			err, XC_E_TOO_LONG, max, len,
			"the constraint is %zu bytes, longer than the limit of %zu",
			len, max);
		return NULL;
	}
	/* jansson 2.14 does not always say "out of memory" when it is: a
	 * failed allocation in its lexer reads as a syntax error, or as no
	 * error at all.  Every failed malloc sets errno to ENOMEM. */
	saved_errno = errno;
	errno = 0;
	j = json_loadb(text, len, JSON_DECODE_ANY, &jerr);
	nomem = !j && (errno == ENOMEM ||
		       json_error_code(&jerr) == json_error_out_of_memory);
	errno = saved_errno;
	if (nomem) {
		xc_error_set(err, XC_E_NOMEM, 0, 0, "out of memory");
		return NULL;
	}
	if (!j) {
		size_t at = jerr.position < 0 ? 0 : (size_t)jerr.position;

		xc_error_set(err, XC_E_JSON, at > len ? len : at,
			     at > len ? len : at,
			     "not valid JSON: %s (line %d, column %d)",
			     jerr.text, jerr.line, jerr.column);
		return NULL;
	}
	e = xc_from_flux(j, limits, err);
	json_decref(j);
	return e;
}

json_t *xc_extra_value_json(const xc_extra_t *extra, const char *key)
{
	const struct xc_value *v = key ? xc_extra_get(extra, key) : NULL;

	if (!v)
		return NULL;
	switch (v->type) {
	case XC_VALUE_BOOL:
		return json_boolean(v->u.b);
	case XC_VALUE_INT:
		return json_integer((json_int_t)v->u.i);
	case XC_VALUE_REAL:
		/* JSON has no NaN or infinity: their names as strings */
		if (isnan(v->u.d))
			return json_string("NaN");
		if (isinf(v->u.d))
			return json_string(v->u.d > 0 ? "Infinity"
						      : "-Infinity");
		return json_real(v->u.d);
	case XC_VALUE_STRING:
		return json_string(v->u.s);
	case XC_VALUE_NULL:
		return json_null();
	case XC_VALUE_OBJECT:
		return json_object();
	case XC_VALUE_ARRAY:
		return json_array();
	}
	return NULL;
}
