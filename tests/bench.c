/*
 * bench.c - speed figures for the library, printed, never asserted:
 * parse and evaluation rates, a 10,000-node table, parse time per byte as
 * requests grow to 1 MiB (linear time shows as a flat ns/byte), and the
 * stack each entry point takes per level of nesting.
 *
 *   make tests/bench && tests/bench
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

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
		xc_nodes_t *t = xc_nodes_create(NULL);
		bool *matched = calloc(count, sizeof(*matched));
		char name[32], extra[192];
		double t0, build;

		for (size_t i = 0; i < count; i++) {
			snprintf(name, sizeof(name), "n%zu", i + 1);
			columns_node(i, extra, sizeof(extra));
			xc_nodes_add(t, name, extra, NULL, NULL);
		}
		for (int ri = 0; ri < 2; ri++) {
			xc_expr_t *e = xc_parse(reqs[ri], NULL, NULL);
			size_t ntree = 0, ncol = 0;
			int reps = 0;
			double tree, col;

			if (!e) {
				printf("         cannot parse the request\n");
				continue;
			}
			if (xc_nodes_compiled(
				    t)) { /* a fresh, uncompiled table */
				xc_nodes_destroy(t);
				t = xc_nodes_create(NULL);
				for (size_t i = 0; i < count; i++) {
					snprintf(name, sizeof(name), "n%zu",
						 i + 1);
					columns_node(i, extra, sizeof(extra));
					xc_nodes_add(t, name, extra, NULL,
						     NULL);
				}
			}
			t0 = now();
			do {
				ntree = xc_nodes_match(t, e, matched);
				reps++;
			} while (now() - t0 < 0.3);
			tree = (now() - t0) / reps;
			t0 = now();
			xc_nodes_compile(t, NULL);
			build = now() - t0;
			reps = 0;
			t0 = now();
			do {
				ncol = xc_nodes_match(t, e, matched);
				reps++;
			} while (now() - t0 < 0.3);
			col = (now() - t0) / reps;
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
	E_COUNT
};
static const char *const entry_names[E_COUNT] = {
	"xc_parse",	 "xc_format",	    "xc_match",	  "xc_explain",
	"xc_expr_equal", "xc_expr_destroy", "xc_to_flux", "xc_from_flux",
};

struct probe {
	enum entry which;
	const char *request;
	xc_expr_t *tree; /* parsed beforehand (not for E_PARSE) */
	json_t *flux;	 /* the tree's RFC 31 form, for E_FROM_FLUX */
	xc_extra_t *extra;
};

/* A request `depth` levels deep that xc_match must walk to the bottom (as
 * in tests/test_depth.c). */
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
	bench_large();
	bench_stack();
	return 0;
}
