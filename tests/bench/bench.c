/*
 * bench.c - speed figures for the library, printed, never asserted:
 * parse and evaluation rates, a 10,000-node table, parse time per byte as
 * requests grow to 1 MiB (linear time shows as a flat ns/byte), and the
 * stack each entry point takes per level of nesting.
 *
 *   make tests/bench/bench && tests/bench/bench
 */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "gen.h"
#include "shape.h"
#include "xc.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *const requests[] = {
	"gpu=true&mem>=512",
	"((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00000001)",
	"(arch=aarch64|ssd=nvme)&rack<5",
};

static void bench_parse(void)
{
	const int n = 300000;
	double t0 = now();

	for (int i = 0; i < n; i++)
		xc_expr_destroy(xc_parse(requests[i % 3], NULL, NULL));
	printf("parse:   %10.0f requests/s (3 typical requests, 17-57 bytes)\n",
	       n / (now() - t0));
}

static void bench_eval(void)
{
	const int n = 3000000;
	xc_expr_t *e = xc_parse(requests[1], NULL, NULL);
	const char *text =
		"{ \"a\": 1.23, \"b\": true, \"c\": 0, \"foo\": \"bar\", \"zed\": 23 }";
	xc_extra_t *node = xc_extra_load(text, strlen(text), NULL, NULL, NULL);
	volatile int matched = 0;
	double t0 = now();

	for (int i = 0; i < n; i++)
		matched += xc_match(e, node);
	printf("eval:    %10.0f evaluations/s (6-leaf request, 5-key node)\n",
	       n / (now() - t0));
	xc_extra_destroy(node);
	xc_expr_destroy(e);
}

static void bench_table(void)
{
	const size_t count = 10000;
	xc_nodes_t *t = xc_nodes_create(NULL), *t2 = xc_nodes_create(NULL);
	xc_expr_t *e = xc_parse("gpu=true&mem>=512", NULL, NULL);
	bool *matched = calloc(count, sizeof(*matched));
	char name[32], extra[128];
	double t0, t1, t2t, t3;
	size_t n = 0;

	t0 = now();
	for (size_t i = 0; i < count; i++) {
		snprintf(name, sizeof(name), "node%05zu", i);
		snprintf(extra, sizeof(extra),
			 "{\"gpu\": %s, \"mem\": %zu, \"rack\": %zu}",
			 i % 3 ? "true" : "false", 256 * (i % 8), i / 40);
		xc_nodes_add(t, name, extra, NULL, NULL);
	}
	t1 = now();
	for (size_t i = 0; i < count; i++)
		xc_nodes_add(t2, xc_nodes_name(t, i), NULL, NULL, NULL);
	t2t = now();
	for (int r = 0; r < 100; r++)
		n = xc_nodes_match(t, e, matched);
	t3 = now();
	printf("nodes:   %10.2f ms to load 10,000 nodes' Extra; %.3f ms to match them all (%zu match)\n",
	       (t1 - t0) * 1e3, (t3 - t2t) * 1e3 / 100, n);
	free(matched);
	xc_expr_destroy(e);
	xc_nodes_destroy(t);
	xc_nodes_destroy(t2);
}

/* The longest request the default limit allows (1024 bytes): OR groups
 * of short leaves over the keys of columns_node(), ANDed. */
static char *long_request(size_t *leaves)
{
	static const char *const leaf[] = {
		"gpu=true", "mem>=512", "arch=x86_64", "load<0.5",
		"ib_pod=2", "rack>3",	"ssd=nvme",    "mem<64",
	};
	char *s = calloc(1, 1100), *p = s;
	size_t n = 0;

	while (p - s < 1000) {
		p += sprintf(p, "%s(%s|%s|%s)", p == s ? "" : "&", leaf[n % 8],
			     leaf[(n + 3) % 8], leaf[(n + 5) % 8]);
		n += 3;
	}
	*leaves = n;
	return s;
}

/* Node i's Extra: 7 or 8 keys of every type. */
static void columns_node(size_t i, char *buf, size_t size)
{
	static const char *const arch[] = { "x86_64", "aarch64", "ppc64le" };

	snprintf(
		buf, size,
		"{\"gpu\": %s, \"mem\": %zu, \"arch\": \"%s\", \"load\": %.2f, "
		"\"ib_pod\": %zu, \"rack\": %zu, \"ssd\": \"%s\"%s}",
		i % 3 ? "true" : "false", (size_t)64 << (i % 5), arch[i % 3],
		(double)(i % 100) / 100, i % 7, i / 40, i % 2 ? "nvme" : "sata",
		i % 4 ? "" : ", \"fpga\": 1");
}

/* A table of `count` nodes n1, n2, ... with columns_node()'s Extra;
 * *text (may be NULL) gets the bytes of Extra text it holds. */
static xc_nodes_t *columns_table(size_t count, size_t *text)
{
	xc_nodes_t *t = xc_nodes_create(NULL);
	char name[32], extra[192];

	if (text)
		*text = 0;
	for (size_t i = 0; i < count; i++) {
		snprintf(name, sizeof(name), "n%zu", i + 1);
		columns_node(i, extra, sizeof(extra));
		if (text)
			*text += strlen(extra);
		xc_nodes_add(t, name, extra, NULL, NULL);
	}
	return t;
}

/* The time one xc_nodes_match(t, e, matched) takes, the mean of its calls
 * over 0.3 s; *n gets what it returned. */
static double match_time(const xc_nodes_t *t, const xc_expr_t *e, bool *matched,
			 size_t *n)
{
	double t0 = now();
	int reps = 0;

	do {
		*n = xc_nodes_match(t, e, matched);
		reps++;
	} while (now() - t0 < 0.3);
	return (now() - t0) / reps;
}

/* Evaluation over 10,000 and 100,000 nodes: the tree evaluator (each
 * node's Extra walked) against the compiled columns, for a 6-leaf request
 * and the longest one the default limit allows; the counts must agree. */
static void bench_columns(void)
{
	size_t nleaves;
	char *longest = long_request(&nleaves);
	const char *reqs[2] = {
		"gpu=true&mem>=512&(arch=x86_64|arch=aarch64)&load<0.5&ib_pod=2",
		longest
	};
	char label[2][48];
	size_t sizes[2] = { 10000, 100000 };

	snprintf(label[0], sizeof(label[0]), "6 leaves");
	snprintf(label[1], sizeof(label[1]), "%zu leaves, %zu bytes", nleaves,
		 strlen(longest));
	printf("columns: evaluation per pass over all nodes, tree vs columns (xc_nodes_compile):\n");
	for (int si = 0; si < 2; si++) {
		size_t count = sizes[si];
		xc_nodes_t *t = columns_table(count, NULL);
		bool *matched = calloc(count, sizeof(*matched));
		double t0, build;

		for (int ri = 0; ri < 2; ri++) {
			xc_expr_t *e = xc_parse(reqs[ri], NULL, NULL);
			size_t ntree = 0, ncol = 0;
			double tree, col;

			if (!e) {
				printf("         cannot parse the request\n");
				continue;
			}
			if (xc_nodes_compiled(
				    t)) { /* a fresh, uncompiled one */
				xc_nodes_destroy(t);
				t = columns_table(count, NULL);
			}
			tree = match_time(t, e, matched, &ntree);
			t0 = now();
			xc_nodes_compile(t, NULL);
			build = now() - t0;
			col = match_time(t, e, matched, &ncol);
			printf("         %6zu nodes, %-24s tree %8.3f ms (%6.1f ns/node)   columns %7.3f ms (%5.2f ns/node)   %5.0fx   %zu match%s\n",
			       count, label[ri], tree * 1e3, tree * 1e9 / count,
			       col * 1e3, col * 1e9 / count, tree / col, ncol,
			       ncol == ntree ? "" : "  MISMATCH");
			if (ri == 0)
				printf("         %6zu nodes: columns built in %.1f ms\n",
				       count, build * 1e3);
			xc_expr_destroy(e);
		}
		free(matched);
		xc_nodes_destroy(t);
	}
	free(longest);
}

/* Bytes the C library has handed out (glibc's count). */
static size_t heap_used(void)
{
	struct mallinfo2 m = mallinfo2();

	return m.uordblks + m.hblkhd; /* the heap's and the mmap'd blocks */
}

/* Node i's Extra after its change in round r: a new load (random, 6
 * digits), a new health string, a rack past every other; keys as
 * before but one. */
static void changed_node(size_t i, int r, char *buf, size_t size)
{
	unsigned long x = (i + 1) * 2654435761UL + (unsigned long)r * 40503UL;

	snprintf(
		buf, size,
		"{\"gpu\": true, \"mem\": 4096, \"arch\": \"x86_64\", \"load\": 0.%06lu, \"health\": \"checked-%d-%zu\", \"rack\": %zu}",
		x % 1000000, r, i, 3000 + i);
}

/* Keeping a 100,000-node table current: a refresh compares
 * each node's new Extra with the table's (xc_nodes_unchanged: length and
 * hash) and changes in place only the nodes that differ
 * (xc_nodes_update); the other way is to build and compile the table
 * anew.  Also what the table takes in memory against its Extra text. */
static void bench_refresh(void)
{
	const size_t count = 100000, changes[2] = { 1, 10000 };
	size_t text, before = heap_used(), plain, compiled;
	xc_nodes_t *t = columns_table(count, &text);
	xc_expr_t *e = xc_parse(
		"gpu=true&mem>=512&(arch=x86_64|arch=aarch64)&load<0.5&ib_pod=2",
		NULL, NULL);
	bool *matched = calloc(count, sizeof(*matched));
	char extra[192], name[32];
	double t0, rebuild;

	plain = heap_used() - before;
	xc_nodes_compile(t, NULL);
	compiled = heap_used() - before;
	printf("refresh: a table of %zu nodes holding %.1f MB of Extra text (%.0f bytes a node):\n",
	       count, text / 1e6, (double)text / count);
	printf("         %.1f MB uncompiled (%.2fx the text), %.1f MB compiled (%.2fx; goal: at most 2x)\n",
	       plain / 1e6, (double)plain / text, compiled / 1e6,
	       (double)compiled / text);
	t0 = now();
	{
		xc_nodes_t *fresh = columns_table(count, NULL);

		xc_nodes_compile(fresh, NULL);
		xc_nodes_destroy(fresh);
	}
	rebuild = now() - t0;
	printf("         built and compiled anew: %.1f ms\n", rebuild * 1e3);
	for (int ci = 0; ci < 2; ci++) {
		size_t k = changes[ci], differ = 0, step = count / k;
		double scan, update;
		int reps = ci == 0 ? 200 : 3;

		/* each changed node gets values no node had (changed_node) */
		scan = update = 0;
		for (int r = 0; r < reps; r++) {
			double t1 = now(), t2;

			differ = 0;
			for (size_t i = 0; i < count; i++) {
				snprintf(name, sizeof(name), "n%zu", i + 1);
				if (i % step == 0 && i / step < k)
					changed_node(i, r, extra,
						     sizeof(extra));
				else
					columns_node(i, extra, sizeof(extra));
				if (!xc_nodes_unchanged(t, i, name, extra))
					differ++;
			}
			t2 = now();
			scan += t2 - t1;
			/* the scan includes writing every node's text (the
			 * plugin gets them from Slurm); the updates alone: */
			for (size_t i = 0; i < count; i += step) {
				if (i / step >= k)
					break;
				changed_node(i, r, extra, sizeof(extra));
				t1 = now();
				xc_nodes_update(t, i, extra, NULL);
				update += now() - t1;
			}
		}
		scan /= reps;
		update /= reps;
		printf("         %5zu of %zu nodes changed: found by comparing every node %.1f ms (%zu differ; incl. writing each node's text), updated in place %.3f ms (%.2f us a node), %.0fx less than anew\n",
		       k, count, scan * 1e3, differ, update * 1e3,
		       update * 1e6 / k, rebuild / update);
	}
	{
		/* the updated table against one built anew from the same
		 * data: the last round changed every 10th node (r = 2) */
		xc_nodes_t *fresh = xc_nodes_create(NULL);
		bool *again = calloc(count, sizeof(*again));
		size_t n1, n2, differ = 0;

		for (size_t i = 0; i < count; i++) {
			snprintf(name, sizeof(name), "n%zu", i + 1);
			if (i % 10 == 0)
				changed_node(i, 2, extra, sizeof(extra));
			else
				columns_node(i, extra, sizeof(extra));
			xc_nodes_add(fresh, name, extra, NULL, NULL);
		}
		xc_nodes_compile(fresh, NULL);
		n1 = xc_nodes_match(t, e, matched);
		n2 = xc_nodes_match(fresh, e, again);
		for (size_t i = 0; i < count; i++)
			differ += matched[i] != again[i];
		printf("         after the changes: %zu nodes match the 6-leaf request, %zu in a table built anew%s\n",
		       n1, n2,
		       differ || xc_nodes_digest(t) != xc_nodes_digest(fresh)
			       ? "  MISMATCH"
			       : " (same nodes, same digest)");
		free(again);
		xc_nodes_destroy(fresh);
	}
	free(matched);
	xc_expr_destroy(e);
	xc_nodes_destroy(t);
}

/* A request of about `size` bytes: `k=v&` leaves in nested groups. */
static char *big_request(size_t size)
{
	char *s = malloc(size + 64), *p = s;

	while ((size_t)(p - s) < size) {
		p += sprintf(p, "(k%zu=v|x=%zu)&", (size_t)(p - s),
			     (size_t)(p - s) % 97);
	}
	p[-1] = '\0';
	return s;
}

static void bench_large(void)
{
	xc_limits_t limits = { .max_request_length = 4 << 20 };
	size_t sizes[] = { 16 << 10, 64 << 10, 256 << 10, 1 << 20 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char *s = big_request(sizes[i]);
		size_t len = strlen(s);
		xc_error_t err;
		double t0 = now(), t;
		xc_expr_t *e = NULL;
		int reps = 5;

		for (int r = 0; r < reps; r++) {
			xc_expr_destroy(e);
			e = xc_parse(s, &limits, &err);
		}
		t = (now() - t0) / reps;
		printf("large:   %8zu bytes parsed in %8.3f ms (%5.1f ns/byte)%s\n",
		       len, t * 1e3, t * 1e9 / (double)len, e ? "" : " ERROR");
		xc_expr_destroy(e);
		t0 = now();
		e = xc_parse(s, NULL, &err);
		printf("         refused at the default limit in %.3f ms (%s)\n",
		       (now() - t0) * 1e3, xc_errcode_name(err.code));
		free(s);
	}
}

/* ---- stack bytes per level of nesting, for each entry point: the
 * figures behind XC_MAX_DEPTH_LIMIT (xc.h).  Each entry point runs in a
 * thread whose stack was painted; the bytes it touched are counted at two
 * depths, and the difference divided by the levels between them. */

#define PAINTED (8u << 20)

enum entry {
	E_PARSE,
	E_FORMAT,
	E_MATCH,
	E_EXPLAIN,
	E_EQUAL,
	E_DESTROY,
	E_TO_FLUX,
	E_FROM_FLUX,
	E_SHAPE_LIST,	/* shape_parse of a/a/.../a */
	E_SHAPE_VALUE,	/* shape_parse of node{a:{a:...}} */
	E_SHAPE_FORMAT, /* shape_format of the first */
	E_COUNT
};
static const char *const entry_names[E_COUNT] = {
	"xc_parse",	 "xc_format",	    "xc_match",	    "xc_explain",
	"xc_expr_equal", "xc_expr_destroy", "xc_to_flux",   "xc_from_flux",
	"shape, lists",	 "shape, values",   "shape_format",
};

struct probe {
	enum entry which;
	const char *request;
	xc_expr_t *tree;   /* parsed beforehand (not for E_PARSE) */
	json_t *flux;	   /* the tree's RFC 31 form, for E_FROM_FLUX */
	char *shape;	   /* for E_SHAPE_LIST and E_SHAPE_VALUE */
	json_t *resources; /* the list's, for E_SHAPE_FORMAT */
	xc_extra_t *extra;
};

/* A request `depth` levels deep that xc_match must walk to the bottom (as
 * in parser/test/test_depth.c). */
static char *deep_request(unsigned depth)
{
	size_t cap = 8 * (size_t)depth + 16;
	char *s = malloc(cap), *t = malloc(cap), *x;

	strcpy(s, "a=1");
	for (unsigned i = 0; i < depth; i++) {
		snprintf(t, cap, i % 2 ? "a=1&(%s)" : "z=1|(%s)", s);
		x = s, s = t, t = x;
	}
	free(t);
	return s;
}

static void *run_entry(void *arg)
{
	struct probe *p = arg;
	xc_limits_t limits = { .max_request_length = 1 << 20 };

	switch (p->which) {
	case E_PARSE:
		xc_expr_destroy(xc_parse(p->request, &limits, NULL));
		break;
	case E_FORMAT:
		free(xc_format(p->tree));
		break;
	case E_MATCH:
		xc_match(p->tree, p->extra);
		break;
	case E_EXPLAIN:
		free(xc_explain(p->tree, p->extra));
		break;
	case E_EQUAL:
		xc_expr_equal(p->tree, p->tree);
		break;
	case E_DESTROY:
		xc_expr_destroy(p->tree);
		p->tree = NULL;
		break;
	case E_TO_FLUX:
		json_decref(xc_to_flux(p->tree, NULL));
		break;
	case E_FROM_FLUX:
		xc_expr_destroy(xc_from_flux(p->flux, NULL, NULL));
		break;
	case E_SHAPE_LIST:
	case E_SHAPE_VALUE:
		json_decref(
			shape_parse(p->shape, strlen(p->shape), &limits, NULL));
		break;
	case E_SHAPE_FORMAT:
		free(shape_format(p->resources, NULL, NULL));
		break;
	default:
		break;
	}
	return NULL;
}

/* Stack bytes `which` touches at `depth` levels. */
static size_t stack_used(enum entry which, unsigned depth)
{
	static unsigned char *stack;
	xc_limits_t limits = { .max_request_length = 1 << 20 };
	struct probe p = { .which = which };
	pthread_attr_t attr;
	pthread_t th;
	size_t i = 0;

	if (!stack)
		stack = aligned_alloc(4096, PAINTED);
	p.request = deep_request(depth);
	p.tree = xc_parse(p.request, &limits, NULL);
	p.flux = xc_to_flux(p.tree, NULL);
	p.extra = xc_extra_load("{\"a\": 1}", 8, NULL, NULL, NULL);
	p.shape = gen_deep_shape(depth, which == E_SHAPE_VALUE);
	p.resources = shape_parse(p.shape, strlen(p.shape), &limits, NULL);
	memset(stack, 0xa5, PAINTED);
	pthread_attr_init(&attr);
	pthread_attr_setstack(&attr, stack, PAINTED);
	pthread_create(&th, &attr, run_entry, &p);
	pthread_join(th, NULL);
	pthread_attr_destroy(&attr);
	while (i < PAINTED && stack[i] == 0xa5)
		i++;
	xc_expr_destroy(p.tree);
	json_decref(p.flux);
	xc_extra_destroy(p.extra);
	free((char *)p.request);
	free(p.shape);
	json_decref(p.resources);
	return PAINTED - i;
}

static void bench_stack(void)
{
	const unsigned lo = 100, hi = XC_MAX_DEPTH_LIMIT;

	printf("stack:   bytes per level of nesting (%u to %u levels), and at %u:\n",
	       lo, hi, hi);
	for (int w = 0; w < E_COUNT; w++) {
		size_t a = stack_used(w, lo), b = stack_used(w, hi);

		printf("         %-16s %5.0f bytes/level   %7zu bytes at %u levels\n",
		       entry_names[w], (double)(b - a) / (hi - lo), b, hi);
	}
}

int main(void)
{
	bench_parse();
	bench_eval();
	bench_table();
	bench_columns();
	bench_refresh();
	bench_large();
	bench_stack();
	return 0;
}
