/*
 * bench.c - speed figures for the library, printed, never asserted:
 * parse and evaluation rates, a 10,000-node table, and parse time per
 * byte as requests grow to 1 MiB (linear time shows as a flat ns/byte).
 *
 *   make tests/bench && tests/bench
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

int main(void)
{
	bench_parse();
	bench_eval();
	bench_table();
	bench_large();
	return 0;
}
