/*
 * test_nomem.c - out of memory at every allocation: parse, format, explain,
 * the error renderer, RFC 31 translation both ways, RFC 46 shapes both
 * ways, node loading (with json-c) and hostlists each run once per allocation they make, with
 * exactly that allocation failing.  Each run must fail cleanly (XC_E_NOMEM,
 * or NULL from a function that has no error argument) or succeed with the
 * right result, and free every block it took.
 *
 * json-c before 0.17 (Debian 12 has 0.16) dereferences NULL when one of
 * its own allocations fails inside its tokener (a key's strdup, fixed in
 * 0.17 with json_tokener_error_memory): no caller can make that clean,
 * Slurm's own reading included.  There, an allocation made from inside
 * json-c is not failed, and the count of those is printed.  0.17 and
 * 0.18 leak the parsed value when json_object_object_add_ex() fails (so
 * does json-c alone): its allocations are not failed there, and counted.
 *
 * This program replaces malloc, calloc, realloc and free (glibc supports
 * it by symbol interposition), so the failures reach json-c, jansson and
 * glibc's own strdup and open_memstream too.  The replacements delegate to
 * glibc's allocator and only count and fail on the test's own thread while
 * armed.  Not built with sanitizers, which replace malloc themselves.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <json-c/json_c_version.h>

#include "shape.h"
#include "xc.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

/* volatile, and set between compiler barriers: glibc declares its
 * functions "leaf" (they never call back into this file), so the compiler
 * could otherwise move or drop the stores around a call to strdup. */
static __thread volatile bool armed;
static __thread volatile long
	countdown; /* allocations left before the failure */
static __thread volatile bool injected; /* the failure happened */
static __thread volatile bool spared;	/* ...or it was spared: inside json-c */
static __thread volatile long net;	/* blocks taken minus blocks freed */
#define BARRIER() __asm__ __volatile__("" ::: "memory")

static void arm(long n)
{
	net = 0;
	injected = spared = false;
	countdown = n;
	BARRIER();
	armed = true;
	BARRIER();
}

static void disarm(void)
{
	BARRIER();
	armed = false;
	BARRIER();
}

/* backtrace() loads libgcc_s the first time, allocating: do it before any
 * test arms the counters. */
__attribute__((constructor)) static void warm_up_backtrace(void)
{
	void *frames[4];

	backtrace(frames, 4);
}

/* The allocation comes from json-c (any) or its object_add_ex (!any). */
static bool in_json_c(bool any)
{
	void *frames[16];
	int n = backtrace(frames, 16);
	Dl_info info;

	for (int i = 0; i < n; i++)
		if (dladdr(frames[i], &info) && info.dli_fname &&
		    strstr(info.dli_fname, "libjson-c") &&
		    (any ||
		     (info.dli_sname &&
		      !strcmp(info.dli_sname, "json_object_object_add_ex"))))
			return true;
	return false;
}

/* Whether this allocation is the one to fail. */
static bool fail_now(void)
{
	if (!armed || injected || spared)
		return false;
	if (countdown-- > 0)
		return false;
	if (in_json_c(JSON_C_VERSION_NUM < ((0 << 16) | (17 << 8)))) {
		spared = true;
		return false;
	}
	injected = true;
	errno = ENOMEM;
	return true;
}

void *malloc(size_t n)
{
	void *p;

	if (fail_now())
		return NULL;
	p = __libc_malloc(n);
	if (p && armed)
		net++;
	return p;
}

void *calloc(size_t k, size_t n)
{
	void *p;

	if (fail_now())
		return NULL;
	p = __libc_calloc(k, n);
	if (p && armed)
		net++;
	return p;
}

void *realloc(void *old, size_t n)
{
	void *p;

	if (fail_now())
		return NULL;
	p = __libc_realloc(old, n);
	if (p && !old && armed)
		net++;
	return p;
}

void free(void *p)
{
	if (p && armed)
		net--;
	__libc_free(p);
}

/* An operation: 0 when it succeeded with the right result, 1 when it
 * failed cleanly for want of memory, -1 otherwise.  It frees all it made. */
typedef int (*op_t)(void);

static long spared_total;

/* Runs `op` once with each of its allocations failing in turn; returns how
 * many were failed (all but those spared inside json-c, above). */
static long every_allocation_fails(const char *name, op_t op)
{
	long n, recovered = 0, in_jsonc = 0;

	cr_assert_eq(op(), 0, "%s: fails with all the memory it wants", name);
	for (n = 0; n < 1000000; n++) {
		int r;
		long leaked;

		arm(n);
		r = op();
		disarm();
		leaked = net;
		cr_assert_eq(leaked, 0,
			     "%s: allocation %ld failed: %ld blocks not freed",
			     name, n, leaked);
		if (spared) {
			cr_assert_eq(r, 0,
				     "%s: wrong result with all its memory",
				     name);
			in_jsonc++;
			continue;
		}
		if (!injected) {
			cr_assert_eq(r, 0,
				     "%s: wrong result with all its memory",
				     name);
			break;
		}
		/* json-c gets over some failures on its own (its locale
		 * copy, for one): a right result is as good as a clean
		 * failure. */
		cr_assert_neq(
			r, -1,
			"%s: allocation %ld failed: wrong result, or not XC_E_NOMEM",
			name, n);
		recovered += r == 0;
	}
	cr_assert_gt(n - in_jsonc, 0, "%s allocates", name);
	spared_total += in_jsonc;
	printf("nomem: %-12s %4ld allocations: %ld failed once each (%ld out of memory, %ld got over it)%s",
	       name, n, n - in_jsonc, n - in_jsonc - recovered, recovered,
	       in_jsonc ? "" : "\n");
	if (in_jsonc)
		printf(", %ld inside json-c %s not failed\n", in_jsonc,
		       JSON_C_VERSION);
	fflush(stdout);
	return n - in_jsonc;
}

static const char *const requests[] = {
	"gpu=true&mem>=512",
	"((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00000001)",
	"(a=1|b=2|c=3|d=4|e=5|f=6|g=7|h=8|i=9)&j=10",
};

/* A result that needs no memory of its own: NULL with XC_E_NOMEM is 1. */
static int nomem_or(const void *result, const xc_error_t *err, int ok)
{
	if (result)
		return ok;
	return err->code == XC_E_NOMEM ? 1 : -1;
}

static int op_parse(void)
{
	for (size_t i = 0; i < sizeof(requests) / sizeof(*requests); i++) {
		xc_error_t err;
		xc_expr_t *e = xc_parse(requests[i], NULL, &err);
		int r = nomem_or(e, &err, 0);

		xc_expr_destroy(e);
		if (r)
			return r;
	}
	return 0;
}

static int op_parse_error(void)
{
	xc_error_t err;
	xc_expr_t *e = xc_parse("(a=1&b=2)|c=3&d=4", NULL, &err);

	xc_expr_destroy(e);
	if (e)
		return -1;
	if (err.code == XC_E_NOMEM)
		return 1;
	return err.code == XC_E_MIXED_BOOLOPS ? 0 : -1;
}

/* Runs `fn` on a tree parsed while memory lasts; the parse's own failures
 * are op_parse's business, so here they count as clean failures too. */
static int with_tree(const char *request, int (*fn)(const xc_expr_t *))
{
	xc_error_t err;
	xc_expr_t *e = xc_parse(request, NULL, &err);
	int r;

	if (!e)
		return err.code == XC_E_NOMEM ? 1 : -1;
	r = fn(e);
	xc_expr_destroy(e);
	return r;
}

static int format_fn(const xc_expr_t *e)
{
	char *t = xc_format(e);
	int r = !t ? 1 : strcmp(t, requests[1]) == 0 ? 0 : -1;

	free(t);
	return r;
}

static int op_format(void)
{
	return with_tree(requests[1], format_fn);
}

/* A request formatted past the stream's first buffer (8 KiB in glibc):
 * each failed allocation is NULL, never a text cut short. */
#define LONG_LEAVES 3000
static int op_format_long(void)
{
	static char req[4 * LONG_LEAVES];
	const xc_limits_t lim = { .max_request_length = sizeof(req) };
	xc_error_t err;
	xc_expr_t *e;
	char *t;
	int r;

	if (!req[0]) { /* once, before any allocation fails */
		size_t len = 0;

		for (int i = 0; i < LONG_LEAVES; i++)
			len += (size_t)snprintf(req + len, sizeof(req) - len,
						"%sa=1", i ? "&" : "");
	}
	if (!(e = xc_parse(req, &lim, &err)))
		return err.code == XC_E_NOMEM ? 1 : -1;
	t = xc_format(e);
	r = !t ? 1 : strcmp(t, req) == 0 ? 0 : -1;
	free(t);
	xc_expr_destroy(e);
	return r;
}

static int render_fn(const xc_expr_t *e)
{
	xc_error_t err = { .code = XC_E_MIXED_BOOLOPS,
			   .offset = 7,
			   .end = 8,
			   .message = "cannot mix" };
	char *t = xc_error_render("a=5&b=5|c=5", &err, NULL);
	int r = !t ? 1 : strstr(t, "         ^") ? 0 : -1;

	(void)e;
	free(t);
	return r;
}

static int op_render(void)
{
	return with_tree("a=1", render_fn);
}

/* Node Extra read with json-c, then matched and explained. */
static int op_extra(void)
{
	static const char text[] =
		"{\"a\": 1.23, \"b\": true, \"c\": 0, "
		"\"foo\": \"bar\", \"zed\": 23, \"l\": [1, {\"x\": 2}],}";
	xc_extra_state_t st;
	xc_error_t err;
	xc_extra_t *x = xc_extra_load(text, strlen(text), NULL, &st, &err);
	xc_expr_t *e;
	char *why;
	int r;

	if (!x)
		return err.code == XC_E_NOMEM ? 1 : -1;
	if (st != XC_EXTRA_OBJECT || xc_extra_count(x) != 6) {
		xc_extra_destroy(x);
		return -1;
	}
	e = xc_parse(requests[1], NULL, &err);
	if (!e) {
		xc_extra_destroy(x);
		return err.code == XC_E_NOMEM ? 1 : -1;
	}
	why = xc_explain(e, x);
	r = !why						 ? 1
	    : (xc_match(e, x) && strstr(why, "result: match\n")) ? 0
								 : -1;
	free(why);
	xc_expr_destroy(e);
	xc_extra_destroy(x);
	return r;
}

static int op_nodes(void)
{
	xc_nodes_t *a = xc_nodes_create(NULL), *b;
	xc_error_t err;
	int r = 0;

	if (!a)
		return 1;
	if (xc_nodes_add(a, "n1", "{\"gpu\": true, \"mem\": 1024}", NULL,
			 &err) < 0 ||
	    xc_nodes_add(a, "n2", "not json", NULL, &err) < 0 ||
	    xc_nodes_add(a, "n3", NULL, NULL, &err) < 0) {
		xc_nodes_destroy(a);
		return err.code == XC_E_NOMEM ? 1 : -1;
	}
	if (!(b = xc_nodes_create(NULL))) {
		xc_nodes_destroy(a);
		return 1;
	}
	if (xc_nodes_add(b, "n1", "{\"gpu\": true, \"mem\": 1024}", a, &err) <
		    0 ||
	    xc_nodes_add(b, "n2", "{'gpu': false}", a, &err) < 0)
		r = err.code == XC_E_NOMEM ? 1 : -1;
	else if (xc_nodes_count(b) != 2 ||
		 xc_nodes_state(a, 1) != XC_EXTRA_INVALID ||
		 xc_nodes_state(b, 1) != XC_EXTRA_OBJECT)
		r = -1;
	xc_nodes_destroy(a);
	xc_nodes_destroy(b);
	return r;
}

/* Compiling a table into columns, matching by them, changing a node in
 * place, writing a hostlist: a failed allocation in xc_nodes_compile is
 * XC_E_NOMEM; one in the match leaves no node matched (the safe side);
 * one in xc_nodes_update is XC_E_NOMEM with the node as it was; the
 * hostlist is NULL. */
static int match_is(const xc_nodes_t *t, const xc_expr_t *e, bool m0, bool m1,
		    bool m2)
{
	bool matched[3];
	long n = xc_nodes_match(t, e, matched);

	/* a failed allocation says so (-1) and marks no node */
	if (n < 0)
		return !matched[0] && !matched[1] && !matched[2] ? 1 : -1;
	return n == (long)(m0 + m1 + m2) && matched[0] == m0 &&
			       matched[1] == m1 && matched[2] == m2
		       ? 0
		       : -1;
}

static int op_columns(void)
{
	xc_nodes_t *t = xc_nodes_create(NULL);
	xc_expr_t *e;
	xc_error_t err;
	int r = 0;

	if (!t)
		return 1;
	if (xc_nodes_add(t, "n1", "{\"a\": \"x\", \"b\": 3, \"c\": true}", NULL,
			 &err) < 0 ||
	    xc_nodes_add(t, "n2", "{\"a\": \"y\", \"b\": 1.5, \"c\": true}",
			 NULL, &err) < 0 ||
	    xc_nodes_add(t, "n3", "{\"a\": 1, \"c\": false}", NULL, &err) < 0) {
		xc_nodes_destroy(t);
		return err.code == XC_E_NOMEM ? 1 : -1;
	}
	if (xc_nodes_compile(t, &err) < 0) {
		xc_nodes_destroy(t);
		return err.code == XC_E_NOMEM ? 1 : -1;
	}
	if (!(e = xc_parse("(a=x|b>=2)&c=true", NULL, &err))) {
		xc_nodes_destroy(t);
		return err.code == XC_E_NOMEM ? 1 : -1;
	}
	r = match_is(t, e, true, false, false);
	if (r == 0) {
		int u = xc_nodes_update(
			t, 2,
			"{\"a\": \"z\", \"b\": 9, \"c\": true, \"d\": \"w\"}",
			&err);

		if (u < 0 && err.code != XC_E_NOMEM)
			r = -1;
		else if (u < 0) /* unchanged */
			r = match_is(t, e, true, false, false) < 0 ? -1 : 1;
		else
			r = match_is(t, e, true, false, true);
	}
	if (r == 0) {
		bool all[3] = { true, true, true };
		char *h = xc_nodes_hostlist(t, all);

		r = !h ? 1 : strcmp(h, "n[1-3]") == 0 ? 0 : -1;
		free(h);
	}
	xc_expr_destroy(e);
	xc_nodes_destroy(t);
	return r;
}

/* A hostlist longer than the writer's first buffers, so that it grows
 * while written: names without a number, which no bracket compresses. */
#define LONG_NAMES 2000
static int op_hostlist_long(void)
{
	static char names[LONG_NAMES][8];
	static const char *ptrs[LONG_NAMES];
	static char want[LONG_NAMES * 8];
	xc_error_t err;
	char *h;
	int r;

	if (!ptrs[0]) { /* once, before any allocation fails */
		size_t len = 0;

		for (int i = 0; i < LONG_NAMES; i++) {
			snprintf(names[i], sizeof(names[i]), "h%04dx", i);
			ptrs[i] = names[i];
			len += (size_t)snprintf(want + len, sizeof(want) - len,
						"%s%s", i ? "," : "", names[i]);
		}
	}
	h = xc_hostlist_of(ptrs, LONG_NAMES, &err);
	if (!h)
		return err.code == XC_E_NOMEM ? 1 : -1;
	r = strcmp(h, want) == 0 ? 0 : -1;
	free(h);
	return r;
}

static int to_flux_fn(const xc_expr_t *e)
{
	xc_error_t err;
	json_t *j = xc_to_flux(e, &err);
	xc_expr_t *back;
	int r;

	if (!j)
		return err.code == XC_E_NOMEM ? 1 : -1;
	back = xc_from_flux(j, NULL, &err);
	r = nomem_or(back, &err, xc_expr_equal(e, back) ? 0 : -1);
	xc_expr_destroy(back);
	json_decref(j);
	return r;
}

static int op_to_flux(void)
{
	return with_tree(requests[1], to_flux_fn);
}

static int op_from_flux_text(void)
{
	static const char text[] =
		"{\"or\":[{\"and\":[{\"extra\":[\"a=1\"]},{\"extra\":[\"b=2\"]}]},"
		"{\"extra\":[\"c>=3.5\",\"d!=x\"]}]}";
	xc_error_t err;
	xc_expr_t *e = xc_from_flux_text(text, strlen(text), NULL, &err);
	char *t;
	int r;

	if (!e)
		return err.code == XC_E_NOMEM ? 1 : -1;
	t = xc_format(e);
	r = !t ? 1 : strcmp(t, "(a=1&b=2)|(c>=3.5&d!=x)") == 0 ? 0 : -1;
	free(t);
	xc_expr_destroy(e);
	return r;
}

/* An RFC 46 shape with every kind of part, read and written back. */
static int op_shape(void)
{
	static const char shape[] =
		"[cluster/slot=2{ib}/node{-x,a:{b:[1,\"two words\",{c}]}}/"
		"[memory=4+{unit:GB};ib10g=1-9:2:*];switch=4,9/slot{bicore}/"
		"node/core=2]";
	xc_error_t err;
	json_t *j = shape_parse(shape, strlen(shape), NULL, &err);
	char *back;
	int r;

	if (!j)
		return err.code == XC_E_NOMEM ? 1 : -1;
	back = shape_format(j, NULL, &err);
	if (!back)
		r = err.code == XC_E_NOMEM ? 1 : -1;
	else
		r = strcmp(back, shape) == 0 ? 0 : -1;
	free(back);
	json_decref(j);
	return r;
}

Test(nomem, every_allocation)
{
	long total = 0;

	total += every_allocation_fails("parse", op_parse);
	total += every_allocation_fails("parse-error", op_parse_error);
	total += every_allocation_fails("format", op_format);
	total += every_allocation_fails("format-long", op_format_long);
	total += every_allocation_fails("render", op_render);
	total += every_allocation_fails("extra", op_extra);
	total += every_allocation_fails("nodes", op_nodes);
	total += every_allocation_fails("columns", op_columns);
	total += every_allocation_fails("hostlist", op_hostlist_long);
	total += every_allocation_fails("to-flux", op_to_flux);
	total += every_allocation_fails("from-flux", op_from_flux_text);
	total += every_allocation_fails("shape", op_shape);
	printf("nomem: %ld allocations failed in all, each cleanly; %ld inside json-c not failed\n",
	       total, spared_total);
}

/* The harness itself: a failure it injects is seen by the code under test,
 * and a block the code keeps is counted. */
Test(nomem, the_harness_fails_and_counts)
{
	void *p;

	arm(0);
	p = malloc(16);
	disarm();
	cr_assert_null(p);
	cr_assert(injected);
	cr_assert_eq(errno, ENOMEM);
	arm(5);
	p = strdup("x");
	disarm();
	cr_assert_not_null(p);
	cr_assert_eq(net, 1, "glibc's strdup goes through the replaced malloc");
	free(p);
}
