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
	/* The name as a hostlist sees it: prefix, then a number of `digits`
	 * digits (0: the name does not end in a number it can range). */
	uint64_t number;
	uint32_t prefix_id; /* equal for neighbours with the same prefix */
	uint16_t prefix_len;
	uint8_t digits;
	bool padded; /* the number has a leading zero (and > 1 digit) */
};

struct xc_nodes {
	xc_limits_t limits;
	struct node *nodes;
	size_t count, cap;
	struct xc_columns *cols; /* xc_nodes_compile(); NULL: not compiled */
	uint32_t *index;	 /* xc_nodes_compile(): names hashed, slot
				    holds node + 1 (0: empty) */
	size_t index_cap;	 /* a power of two */
};

/* Splits a node name as Slurm's hostlist does: the digits it ends with
 * are a number, what comes before them the prefix.  A name that is only
 * digits, or whose number has more than 18 digits, is kept whole. */
static void split_name(struct node *n)
{
	size_t len = strlen(n->name), p = len;

	while (p > 0 && n->name[p - 1] >= '0' && n->name[p - 1] <= '9')
		p--;
	n->digits = 0;
	if (p == 0 || p == len || len - p > 18 || p > UINT16_MAX)
		return;
	n->prefix_len = (uint16_t)p;
	n->digits = (uint8_t)(len - p);
	n->padded = n->digits > 1 && n->name[p] == '0';
	n->number = 0;
	for (size_t i = p; i < len; i++)
		n->number = n->number * 10 + (uint64_t)(n->name[i] - '0');
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

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
	free(t->index);
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
	/* The table changes: its columns and name index no longer hold. */
	xc_columns_destroy(t->cols);
	t->cols = NULL;
	free(t->index);
	t->index = NULL;
	if (!(n = append(t, name, err)))
		return -1;
	if (extra && !(n->text = strdup(extra))) {
		free(n->name);
		return xc_error_set(err, XC_E_NOMEM, 0, 0, "out of memory");
	}
	split_name(n);
	/* Nodes in a row with the same prefix share its id, so that the
	 * hostlist writer compares ids, not names. */
	if (t->count > 0) {
		const struct node *p = &t->nodes[t->count - 1];

		n->prefix_id = p->prefix_id + 1;
		if (n->digits && p->digits && p->prefix_len == n->prefix_len &&
		    memcmp(p->name, n->name, n->prefix_len) == 0)
			n->prefix_id = p->prefix_id;
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
	free(t->index);
	t->index = NULL;
	/* the name index: open addressing, at most half full */
	t->index_cap = 64;
	while (t->index_cap < 2 * t->count)
		t->index_cap *= 2;
	if (!(t->index = calloc(t->index_cap, sizeof(*t->index))))
		return xc_error_set(err, XC_E_NOMEM, 0, 0, "out of memory");
	for (size_t i = 0; i < t->count; i++) {
		size_t j = name_hash(t->nodes[i].name) & (t->index_cap - 1);

		while (t->index[j])
			j = (j + 1) & (t->index_cap - 1);
		t->index[j] = (uint32_t)(i + 1);
	}
	if (!(extras = malloc((t->count ? t->count : 1) * sizeof(*extras)))) {
		free(t->index);
		t->index = NULL;
		return xc_error_set(err, XC_E_NOMEM, 0, 0, "out of memory");
	}
	for (size_t i = 0; i < t->count; i++)
		extras[i] = t->nodes[i].extra;
	t->cols = xc_columns_build(extras, t->count);
	free(extras);
	if (!t->cols) {
		free(t->index);
		t->index = NULL;
		return xc_error_set(err, XC_E_NOMEM, 0, 0, "out of memory");
	}
	return 0;
}

long xc_nodes_find(const xc_nodes_t *t, const char *name)
{
	if (!t || !name)
		return -1;
	if (t->index) {
		size_t j = name_hash(name) & (t->index_cap - 1);

		for (; t->index[j]; j = (j + 1) & (t->index_cap - 1))
			if (strcmp(t->nodes[t->index[j] - 1].name, name) == 0)
				return (long)t->index[j] - 1;
		return -1;
	}
	for (size_t i = 0; i < t->count; i++)
		if (strcmp(t->nodes[i].name, name) == 0)
			return (long)i;
	return -1;
}

/* A growing string. */
struct sbuf {
	char *s;
	size_t len, cap;
	bool failed;
};

static void sb_add(struct sbuf *b, const char *text, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *s;

		while (cap < b->len + n + 1)
			cap *= 2;
		if (!(s = realloc(b->s, cap))) {
			b->failed = true;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
	memcpy(b->s + b->len, text, n);
	b->len += n;
	b->s[b->len] = '\0';
}

/* The digits of node n's number, as its name writes them. */
static void sb_digits(struct sbuf *b, const struct node *n)
{
	sb_add(b, n->name + n->prefix_len, n->digits);
}

/* Whether node `n` may join the bracket opened by `first`: the same
 * prefix (and no node of another prefix between them in the table), and,
 * when `n` or a member (`padded`) is zero-padded, every number of the
 * same width (the members have lo..hi digits): Slurm's hostlist rule. */
static bool joins(const struct node *first, const struct node *n, bool padded,
		  uint8_t min_digits, uint8_t max_digits)
{
	if (!n->digits || n->prefix_id != first->prefix_id)
		return false;
	if (n->padded || padded)
		return min_digits == max_digits && n->digits == min_digits;
	return true;
}

/* The bracket being written by xc_nodes_hostlist(). */
struct group {
	const struct node *first; /* NULL: none open */
	const struct node *run_start, *run_end;
	size_t members;
	bool padded;
	uint8_t lo_digits, hi_digits;
};

static void flush_run(struct sbuf *b, const struct group *g)
{
	sb_digits(b, g->run_start);
	if (g->run_end != g->run_start) {
		sb_add(b, "-", 1);
		sb_digits(b, g->run_end);
	}
}

static void close_group(struct sbuf *b, struct group *g)
{
	if (!g->first)
		return;
	if (g->members == 1) {
		sb_add(b, g->first->name, strlen(g->first->name));
	} else {
		flush_run(b, g);
		sb_add(b, "]", 1);
	}
	g->first = NULL;
}

char *xc_nodes_hostlist(const xc_nodes_t *t, const bool *selected)
{
	struct sbuf b = { 0 };
	struct group g = { 0 };
	bool any = false;

	if (!t || !selected)
		return NULL;
	sb_add(&b, "", 0);
	for (size_t i = 0; i < t->count; i++) {
		const struct node *n = &t->nodes[i];

		if (!selected[i])
			continue;
		if (g.first &&
		    joins(g.first, n, g.padded, g.lo_digits, g.hi_digits)) {
			if (g.members == 1) { /* a second member: a bracket */
				sb_add(&b, g.first->name, g.first->prefix_len);
				sb_add(&b, "[", 1);
			}
			g.members++;
			g.padded |= n->padded;
			if (n->digits < g.lo_digits)
				g.lo_digits = n->digits;
			if (n->digits > g.hi_digits)
				g.hi_digits = n->digits;
			if (n->number == g.run_end->number + 1) {
				g.run_end = n;
			} else {
				flush_run(&b, &g);
				sb_add(&b, ",", 1);
				g.run_start = g.run_end = n;
			}
			continue;
		}
		close_group(&b, &g);
		if (any)
			sb_add(&b, ",", 1);
		any = true;
		if (!n->digits) { /* no number: the name alone */
			sb_add(&b, n->name, strlen(n->name));
			continue;
		}
		g.first = g.run_start = g.run_end = n;
		g.members = 1;
		g.padded = n->padded;
		g.lo_digits = g.hi_digits = n->digits;
	}
	close_group(&b, &g);
	if (b.failed) {
		free(b.s);
		return NULL;
	}
	return b.s;
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
