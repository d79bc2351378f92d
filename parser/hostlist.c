/*
 * hostlist.c - node names written as one hostlist expression in Slurm's
 * syntax (n[1-3,7],login,x[01-02]): of a node table's selected nodes, in
 * table order (xc_nodes_hostlist), and of any names, sorted
 * (xc_hostlist_of).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nodes.h"

void xc_node_split_name(struct node *n)
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

void xc_node_prefix_id(struct node *n, const struct node *prev)
{
	n->prefix_id = prev ? prev->prefix_id + 1 : 0;
	if (prev && n->digits && prev->digits &&
	    prev->prefix_len == n->prefix_len &&
	    memcmp(prev->name, n->name, n->prefix_len) == 0)
		n->prefix_id = prev->prefix_id;
}

/* A growing string (by xc_grow).  Not open_memstream(): glibc's drops
 * what it cannot write when its buffer fails to grow, and its fclose()
 * still succeeds, so a hostlist longer than its first buffer could come
 * out short instead of failing (parser/test/test_nomem.c writes one). */
struct sbuf {
	char *s;
	size_t len, cap;
	bool failed; /* out of memory: s is to be freed, not used */
};

static void sb_add(struct sbuf *b, const char *text, size_t n)
{
	if (b->failed)
		return;
	if (xc_grow((void **)&b->s, &b->cap, b->len + n + 1, 1) < 0) {
		b->failed = true;
		return;
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

/* The most hosts a range may hold for Slurm to read it: a longer one is
 * refused ("Too many hosts in range", _parse_single_range() in
 * src/common/hostlist.c: MAX_RANGE, 64 * 1024 in 22.05, MAX_SLURM_NODES
 * (the same) in 24.11 and 26.05), so a run of more nodes is written as
 * several: n[1-65536,65537-100000]. */
#define XC_HOSTLIST_MAX_RANGE 65536

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

/* The hostlist of the nodes[i] with selected[i] (NULL: all of them), in
 * their order: see xc_nodes_hostlist(). */
static char *write_hostlist(const struct node *nodes, size_t count,
			    const bool *selected)
{
	struct sbuf b = { 0 };
	struct group g = { 0 };
	bool any = false;

	sb_add(&b, "", 0);
	for (size_t i = 0; i < count; i++) {
		const struct node *n = &nodes[i];

		if (selected && !selected[i])
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
			if (n->number == g.run_end->number + 1 &&
			    g.run_end->number - g.run_start->number + 1 <
				    XC_HOSTLIST_MAX_RANGE) {
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

char *xc_nodes_hostlist(const xc_nodes_t *t, const bool *selected)
{
	if (!t || !selected)
		return NULL;
	return write_hostlist(t->nodes, t->count, selected);
}

/* Node order: by prefix, then number, then width (n1, n01, n001, n2),
 * then name; names without a number by name, before numbered ones of the
 * same prefix. */
static int cmp_node_order(const void *a, const void *b)
{
	const struct node *x = a, *y = b;
	size_t px = x->digits ? x->prefix_len : strlen(x->name);
	size_t py = y->digits ? y->prefix_len : strlen(y->name);
	int c = memcmp(x->name, y->name, px < py ? px : py);

	if (c)
		return c;
	if (px != py)
		return px < py ? -1 : 1;
	if (!x->digits != !y->digits)
		return x->digits ? 1 : -1;
	if (x->number != y->number)
		return x->number < y->number ? -1 : 1;
	if (x->digits != y->digits)
		return x->digits < y->digits ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Whether `name` can stand in a hostlist. */
static bool writable(const char *name)
{
	if (!*name)
		return false;
	for (const char *p = name; *p; p++)
		if (*p == ',' || *p == '[' || *p == ']' || *p == ' ' ||
		    (*p >= '\t' && *p <= '\r'))
			return false;
	return true;
}

char *xc_hostlist_of(const char *const *names, size_t n, xc_error_t *err)
{
	struct node *v;
	size_t k = 0;
	char *s;

	xc_error_clear(err);
	if (!names && n)
		return (xc_error_set(err, XC_E_INVALID_ARG, 0, 0, "no names"),
			NULL);
	if (!(v = calloc(n ? n : 1, sizeof(*v))))
		return (xc_error_set(err, XC_E_NOMEM, 0, 0, "out of memory"),
			NULL);
	for (size_t i = 0; i < n; i++) {
		if (!writable(names[i])) {
			xc_error_set(
				err, XC_E_INVALID_ARG, 0, 0,
				"node name '%s' cannot be written in a hostlist",
				names[i]);
			free(v);
			return NULL;
		}
		v[i].name = (char *)names[i]; /* borrowed: only read */
		xc_node_split_name(&v[i]);
	}
	qsort(v, n, sizeof(*v), cmp_node_order);
	for (size_t i = 0; i < n; i++) { /* duplicates go */
		if (k && strcmp(v[k - 1].name, v[i].name) == 0)
			continue;
		v[k] = v[i];
		xc_node_prefix_id(&v[k], k ? &v[k - 1] : NULL);
		k++;
	}
	if (!(s = write_hostlist(v, k, NULL)))
		xc_error_set(err, XC_E_NOMEM, 0, 0, "out of memory");
	free(v);
	return s;
}
