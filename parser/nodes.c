/*
 * nodes.c - a table of nodes and their parsed Extra (sem 2), evaluated
 * against a request all at once.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xc_private.h"

struct node {
	char *name;
	char *text;	   /* Extra as given (NULL: unset) */
	xc_extra_t *extra; /* read from text; NULL unless an object */
	xc_extra_state_t state;
};

struct xc_nodes {
	xc_limits_t limits;
	struct node *nodes;
	size_t count, cap;
	struct xc_columns *cols; /* xc_nodes_compile(); NULL: not compiled */
};

xc_nodes_t *xc_nodes_create(const xc_limits_t *limits)
{
	xc_nodes_t *t = calloc(1, sizeof(*t));

	if (t)
		xc_live_add(1);
	if (t && limits)
		t->limits = *limits;
	return t;
}

void xc_nodes_destroy(xc_nodes_t *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->count; i++) {
		free(t->nodes[i].name);
		free(t->nodes[i].text);
		xc_extra_destroy(t->nodes[i].extra);
	}
	free(t->nodes);
	xc_columns_destroy(t->cols);
	free(t);
	xc_live_add(-1);
}

/* A new slot at the end, with its name copied; NULL when out of memory. */
static struct node *append(xc_nodes_t *t, const char *name, xc_error_t *err)
{
	struct node *n;

	if (t->count == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct node *nodes;

		if (cap > SIZE_MAX / sizeof(*nodes) ||
		    !(nodes = realloc(t->nodes, cap * sizeof(*nodes)))) {
			xc_error_set(err, XC_E_NOMEM, 0, 0, "out of memory");
			return NULL;
		}
		t->nodes = nodes;
		t->cap = cap;
	}
	n = &t->nodes[t->count];
	memset(n, 0, sizeof(*n));
	if (!(n->name = strdup(name))) {
		xc_error_set(err, XC_E_NOMEM, 0, 0, "out of memory");
		return NULL;
	}
	return n;
}

int xc_nodes_add(xc_nodes_t *t, const char *name, const char *extra,
		 const xc_nodes_t *prev, xc_error_t *err)
{
	const struct node *old = NULL;
	struct node *n;

	xc_error_clear(err);
	if (!t || !name)
		return xc_error_set(err, XC_E_INVALID_ARG, 0, 0,
				    "no node table or node name");
	if (prev && t->count < prev->count) {
		old = &prev->nodes[t->count];
		if (strcmp(old->name, name) != 0 || !old->text != !extra ||
		    (extra && strcmp(old->text, extra) != 0))
			old = NULL;
	}
	/* The table changes: its columns no longer hold. */
	xc_columns_destroy(t->cols);
	t->cols = NULL;
	if (!(n = append(t, name, err)))
		return -1;
	if (extra && !(n->text = strdup(extra))) {
		free(n->name);
		return xc_error_set(err, XC_E_NOMEM, 0, 0, "out of memory");
	}
	if (old) {
		n->extra = xc_extra_ref(old->extra);
		n->state = old->state;
	} else {
		xc_error_t lerr;

		n->extra = xc_extra_load(extra, extra ? strlen(extra) : 0,
					 &t->limits, &n->state, &lerr);
		if (lerr.code != XC_OK) {
			free(n->name);
			free(n->text);
			return xc_error_set(err, lerr.code, 0, 0, "%s",
					    lerr.message);
		}
	}
	t->count++;
	return old ? 1 : 0;
}

size_t xc_nodes_count(const xc_nodes_t *t)
{
	return t ? t->count : 0;
}

const char *xc_nodes_name(const xc_nodes_t *t, size_t i)
{
	return t && i < t->count ? t->nodes[i].name : NULL;
}

const xc_extra_t *xc_nodes_extra(const xc_nodes_t *t, size_t i)
{
	return t && i < t->count ? t->nodes[i].extra : NULL;
}

xc_extra_state_t xc_nodes_state(const xc_nodes_t *t, size_t i)
{
	return t && i < t->count ? t->nodes[i].state : XC_EXTRA_UNSET;
}

static unsigned long long fnv1a(unsigned long long h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

unsigned long long xc_nodes_digest(const xc_nodes_t *t)
{
	unsigned long long h = 0xcbf29ce484222325ULL;

	if (!t)
		return 0;
	for (size_t i = 0; i < t->count; i++) {
		const struct node *n = &t->nodes[i];

		h = fnv1a(h, n->name, strlen(n->name) + 1);
		/* unset and empty differ: "\1" marks unset */
		h = n->text ? fnv1a(h, n->text, strlen(n->text) + 1)
			    : fnv1a(h, "\1", 1);
	}
	return h;
}

int xc_nodes_compile(xc_nodes_t *t, xc_error_t *err)
{
	const xc_extra_t **extras;

	xc_error_clear(err);
	if (!t)
		return xc_error_set(err, XC_E_INVALID_ARG, 0, 0,
				    "no node table");
	xc_columns_destroy(t->cols);
	t->cols = NULL;
	if (!(extras = malloc((t->count ? t->count : 1) * sizeof(*extras))))
		return xc_error_set(err, XC_E_NOMEM, 0, 0, "out of memory");
	for (size_t i = 0; i < t->count; i++)
		extras[i] = t->nodes[i].extra;
	t->cols = xc_columns_build(extras, t->count);
	free(extras);
	if (!t->cols)
		return xc_error_set(err, XC_E_NOMEM, 0, 0, "out of memory");
	return 0;
}

bool xc_nodes_compiled(const xc_nodes_t *t)
{
	return t && t->cols;
}

size_t xc_nodes_match(const xc_nodes_t *t, const xc_expr_t *expr, bool *matched)
{
	size_t n = 0;

	if (!t || !matched)
		return 0;
	if (t->cols && expr &&
	    xc_columns_match(t->cols, expr, (uint8_t *)matched) == 0) {
		for (size_t i = 0; i < t->count; i++)
			n += matched[i];
		return n;
	}
	/* Not compiled, or out of memory: node by node. */
	for (size_t i = 0; i < t->count; i++) {
		matched[i] = xc_match(expr, t->nodes[i].extra);
		n += matched[i];
	}
	return n;
}
