/*
 * eval.c - evaluating a request against a node's Extra (sem 2 to 4), and
 * explaining that evaluation.
 */
#include <stdlib.h>
#include <string.h>

#include "xc_private.h"

/* The comparison of a leaf with a node value: -1, 0, 1, or 2 when the leaf
 * is false for every operator (sem 3). */
#define NO_COMPARISON 2

static int compare(const struct xc_leaf *leaf, const json_t *v)
{
	int c;

	switch (json_typeof(v)) {
	case JSON_STRING:
		c = strcmp(json_string_value(v), leaf->value);
		return (c > 0) - (c < 0);
	case JSON_INTEGER:
		if (!leaf->num_ok)
			return NO_COMPARISON;
		return xc_fuzzy_compare((double)json_integer_value(v),
					leaf->num);
	case JSON_REAL:
		if (!leaf->num_ok)
			return NO_COMPARISON;
		return xc_fuzzy_compare(json_real_value(v), leaf->num);
	case JSON_TRUE:
		return leaf->boolean ? 0 : 1;
	case JSON_FALSE:
		return leaf->boolean ? -1 : 0;
	default: /* null, object, array */
		return NO_COMPARISON;
	}
}

static bool holds(xc_cmpop_t op, int c)
{
	switch (op) {
	case XC_EQ: return c == 0;
	case XC_NE: return c != 0;
	case XC_GT: return c > 0;
	case XC_GE: return c >= 0;
	case XC_LT: return c < 0;
	case XC_LE: return c <= 0;
	}
	return false;
}

static bool leaf_match(const struct xc_leaf *leaf, const json_t *extra)
{
	const json_t *v = json_object_get(extra, leaf->key);
	int c;

	if (!v)
		return false; /* missing key: false even for != */
	c = compare(leaf, v);
	return c != NO_COMPARISON && holds(leaf->op, c);
}

static bool match(const struct xc_expr *e, const json_t *extra)
{
	switch (e->kind) {
	case XC_LEAF:
		return leaf_match(&e->u.leaf, extra);
	case XC_AND:
		for (size_t i = 0; i < e->u.group.count; i++)
			if (!match(e->u.group.items[i], extra))
				return false;
		return true;
	case XC_OR:
		for (size_t i = 0; i < e->u.group.count; i++)
			if (match(e->u.group.items[i], extra))
				return true;
		return false;
	}
	return false;
}

bool xc_match(const xc_expr_t *expr, const json_t *extra)
{
	if (!expr || !json_is_object(extra))
		return false;
	return match(expr, extra);
}

/* Whether the brackets of JSON `text` nest deeper than `max` (strings
 * skipped).  Only a bound on work: jansson still validates the text. */
static bool nests_deeper(const char *text, size_t len, unsigned max)
{
	unsigned depth = 0;
	bool in_string = false;

	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = false;
		} else if (c == '"') {
			in_string = true;
		} else if (c == '{' || c == '[') {
			if (++depth > max)
				return true;
		} else if ((c == '}' || c == ']') && depth > 0) {
			depth--;
		}
	}
	return false;
}

json_t *xc_extra_load(const char *text, size_t len,
		      const xc_limits_t *limits, xc_extra_state_t *state)
{
	size_t max = XC_DEFAULT_MAX_EXTRA_LENGTH;
	unsigned max_depth = XC_DEFAULT_MAX_EXTRA_DEPTH;
	xc_extra_state_t dummy;
	json_error_t jerr;
	json_t *v;

	if (!state)
		state = &dummy;
	if (limits && limits->max_extra_length)
		max = limits->max_extra_length;
	if (limits && limits->max_extra_depth)
		max_depth = limits->max_extra_depth;
	if (!text || len == 0) {
		*state = XC_EXTRA_UNSET;
		return NULL;
	}
	if (len > max) {
		*state = XC_EXTRA_TOO_LONG;
		return NULL;
	}
	if (nests_deeper(text, len, max_depth)) {
		*state = XC_EXTRA_TOO_DEEP;
		return NULL;
	}
	/* JSON_DECODE_ANY so that `5` or `"x"` is read, then refused as not
	 * an object. */
	v = json_loadb(text, len, JSON_DECODE_ANY, &jerr);
	if (!v) {
		*state = XC_EXTRA_INVALID;
		return NULL;
	}
	if (!json_is_object(v)) {
		json_decref(v);
		*state = XC_EXTRA_NOT_OBJECT;
		return NULL;
	}
	*state = XC_EXTRA_OBJECT;
	return v;
}

const char *xc_extra_state_text(xc_extra_state_t state)
{
	switch (state) {
	case XC_EXTRA_OBJECT: return "a JSON object";
	case XC_EXTRA_UNSET: return "unset";
	case XC_EXTRA_TOO_LONG: return "longer than the limit";
	case XC_EXTRA_INVALID: return "not valid JSON";
	case XC_EXTRA_NOT_OBJECT: return "JSON but not an object";
	case XC_EXTRA_TOO_DEEP: return "nested deeper than the limit";
	}
	return "unknown";
}

const char *xc_extra_state_explain(xc_extra_state_t state,
				   const xc_limits_t *limits, char *buf,
				   size_t size)
{
	if (state == XC_EXTRA_TOO_LONG)
		snprintf(buf, size, "longer than the limit of %zu bytes",
			 limits && limits->max_extra_length
				 ? limits->max_extra_length
				 : (size_t)XC_DEFAULT_MAX_EXTRA_LENGTH);
	else if (state == XC_EXTRA_TOO_DEEP)
		snprintf(buf, size, "nested deeper than the limit of %u",
			 limits && limits->max_extra_depth
				 ? limits->max_extra_depth
				 : XC_DEFAULT_MAX_EXTRA_DEPTH);
	else
		snprintf(buf, size, "%s", xc_extra_state_text(state));
	return buf;
}

/* ------------------------------------------------------------- explain */

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER:
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	case JSON_NULL: return "null";
	}
	return "unknown";
}

static void print_value(FILE *out, const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_STRING:
		fputc('"', out);
		xc_escape_to(out, json_string_value(v),
			     json_string_length(v), false);
		fputc('"', out);
		break;
	case JSON_INTEGER:
		fprintf(out, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		break;
	case JSON_REAL:
		fprintf(out, "%.15g", json_real_value(v));
		break;
	case JSON_TRUE:
		fputs("true", out);
		break;
	case JSON_FALSE:
		fputs("false", out);
		break;
	case JSON_NULL:
		fputs("null", out);
		break;
	case JSON_ARRAY:
		fputs("[...]", out);
		break;
	default:
		fputs("{...}", out);
		break;
	}
}

static void print_relation(FILE *out, int c)
{
	fputs(c < 0 ? " < " : c > 0 ? " > " : " = ", out);
}

static void explain_leaf(FILE *out, const struct xc_leaf *leaf,
			 const json_t *extra)
{
	const json_t *v = json_object_get(extra, leaf->key);
	size_t vlen = strlen(leaf->value);
	int c;

	if (!v) {
		fputs("no key '", out);
		xc_escape_to(out, leaf->key, strlen(leaf->key), false);
		fputs("' in the node's Extra", out);
		return;
	}
	c = compare(leaf, v);
	fputs("node value ", out);
	print_value(out, v);
	fprintf(out, " is %s", type_name(v));
	if (json_is_number(v) && !leaf->num_ok) {
		fputs("; request value '", out);
		xc_escape_to(out, leaf->value, vlen, false);
		fputs("' is not a number", out);
		return;
	}
	if (c == NO_COMPARISON) {
		fputs("; only strings, numbers and booleans compare", out);
		return;
	}
	fputs("; ", out);
	if (json_is_boolean(v)) {
		fputs("request value '", out);
		xc_escape_to(out, leaf->value, vlen, false);
		fprintf(out, "' reads as %s; ", leaf->boolean ? "true" : "false");
		print_value(out, v);
		print_relation(out, c);
		fputs(leaf->boolean ? "true" : "false", out);
		return;
	}
	print_value(out, v);
	print_relation(out, c);
	if (json_is_number(v)) {
		xc_escape_to(out, leaf->value, vlen, false);
		if (c == 0)
			fputs(" (within 0.00001)", out);
	} else {
		fputc('"', out);
		xc_escape_to(out, leaf->value, vlen, false);
		fputs("\" (byte order)", out);
	}
}

static bool explain(FILE *out, const struct xc_expr *e, const json_t *extra,
		    int indent)
{
	bool ok = match(e, extra);

	fprintf(out, "%*s", indent * 2, "");
	if (e->kind == XC_LEAF) {
		xc_format_to(out, e, true);
		fprintf(out, ": %s (", ok ? "match" : "no match");
		explain_leaf(out, &e->u.leaf, extra);
		fputs(")\n", out);
		return ok;
	}
	fprintf(out, "%s: %s\n", e->kind == XC_AND ? "AND" : "OR",
		ok ? "match" : "no match");
	for (size_t i = 0; i < e->u.group.count; i++)
		explain(out, e->u.group.items[i], extra, indent + 1);
	return ok;
}

char *xc_explain(const xc_expr_t *expr, const json_t *extra)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	if (!expr)
		return NULL;
	out = open_memstream(&text, &len);
	if (!out)
		return NULL;
	if (!json_is_object(extra)) {
		fputs("node Extra is not a JSON object: no request matches it\n",
		      out);
		fputs("result: no match\n", out);
	} else {
		bool ok = explain(out, expr, extra, 0);
		fprintf(out, "result: %s\n", ok ? "match" : "no match");
	}
	if (fclose(out) != 0) {
		free(text);
		return NULL;
	}
	return text;
}
