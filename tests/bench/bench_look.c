/*
 * bench_look.c - what the look costs a round (ctld/look.h with the
 * guard's kept answers, ctld/guard.h), at 65,536 nodes, without Slurm:
 * 500 distinct requests ("gpu=true&rack!=K"), 10,000 waiting jobs with
 * one of them each (20 a request), one in 50 with a user's --exclude of
 * a few nodes; node records and Extra texts as bench_guard's.  Printed,
 * never asserted; the look.c and guard.c work of a round only (the
 * plugin adds the walk of slurmctld's job list and the read of each
 * job's request):
 *  - the first round: every request evaluated on every node (the plugin
 *    spreads it over holds of LOOK_ANSWERS answers), every job's set
 *    written whole;
 *  - a round after one node's Extra changed: the look at every node
 *    (its text compared: on 22.05 once a new stamp; from 24.11 only the
 *    nodes whose own stamp moved), then each request's answers (the
 *    changed node evaluated) and each job patched;
 *  - a round after a job changed, no node: each request's answers as
 *    kept, each job found the same;
 *  - a round after every node changed (scontrol update nodename=ALL):
 *    every answer again, every job written whole;
 *  - the memory: the look's own, and the jobs' excluded nodes it gave a
 *    set (slurmctld's, nodes/8 bytes each);
 * each row node by node, then with the guard's columns (guard.h
 * "Columns"; their build timed apart: the plugin builds them outside
 * slurmctld's locks).
 *   make tests/bench/bench_look && tests/bench/bench_look
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "guard.h"
#include "look.h"

#define NODES 65536
#define WORDS GUARD_WORDS(NODES)
#define REQUESTS 500
#define JOBS 10000

static char **extra;
static uint64_t *bits[JOBS];
static char requests[REQUESTS][64];

static const char *extra_at(size_t i, void *arg)
{
	(void)arg;
	return extra[i];
}

static char *extra_for(size_t i, int gpu, int v)
{
	char text[256];

	snprintf(
		text, sizeof(text),
		"{\"gpu\":%s,\"mem\":%zu,\"arch\":\"x86_64\",\"load\":0.%zu,\"ib_pod\":%zu,\"rack\":%zu,\"ssd\":\"nvme\",\"v\":%d}",
		gpu ? "true" : "false", (size_t)256 << (i % 4), i % 10, i % 16,
		i % 500, v);
	return strdup(text);
}

static double ms_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

/* One round over every job: the answers of each request met, then the
 * job's set.  The counts of what look_job_apply() did, into did[]. */
static int round_of(struct guard *g, struct look *lk, uint64_t round,
		    size_t did[6])
{
	look_round(lk, round);
	for (int j = 0; j < JOBS; j++) {
		const char *text = requests[j % REQUESTS];
		struct guard_req *r;
		enum look_did d;
		bool fresh;
		int i = look_req_seen(lk, text, &fresh);

		if (i < 0)
			return -1;
		if (look_req_changes(lk, i) != guard_changes(g)) {
			size_t budget = SIZE_MAX;

			if (!fresh || !(r = guard_request(g, text)) ||
			    !look_req_answer(lk, i, g, r, &budget))
				return -1;
		}
		d = look_job_apply(lk, (uint32_t)j + 1, 0, i, bits[j],
				   7 + (j % 50 == 0), j % 50 != 0);
		if (d == LOOK_NEED_SET) {
			if (!(bits[j] = calloc(WORDS, sizeof(uint64_t))))
				return -1;
			d = look_job_apply(lk, (uint32_t)j + 1, 0, i, bits[j],
					   7 + (j % 50 == 0), j % 50 != 0);
		}
		did[d]++;
	}
	return 0;
}

/* The guard's columns built from every node's text (guard.h "Columns"):
 * the copy and the install (under the locks in the plugin) and the build
 * (outside them), in ms; false when it failed. */
static bool columns(struct guard *g, double *locked, double *built)
{
	struct timespec a, b, c, d;
	struct guard_cols_copy *copy;

	clock_gettime(CLOCK_MONOTONIC, &a);
	if (!(copy = guard_cols_copy(g)) ||
	    guard_cols_copy_more(g, copy, NODES) != 1)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (!guard_cols_build(copy))
		return false;
	clock_gettime(CLOCK_MONOTONIC, &c);
	if (!guard_cols_install(g, copy))
		return false;
	clock_gettime(CLOCK_MONOTONIC, &d);
	*locked = ms_between(&a, &b) + ms_between(&c, &d);
	*built = ms_between(&b, &c);
	return true;
}

/* 100 requests new to the guard, each answered on every node (as a
 * placement's, or a look's first answers): the time of one, printed. */
static int new_requests(struct guard *g, const char *how)
{
	uint64_t *all = malloc(WORDS * sizeof(*all)),
		 *off = malloc(WORDS * sizeof(*off));
	struct timespec a, b;
	char text[64];
	size_t left;

	if (!all || !off)
		return 1;
	memset(all, 0xff, WORDS * sizeof(*all));
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int k = 0; k < 100; k++) {
		struct guard_req *r;

		snprintf(text, sizeof(text), "gpu=true&rack!=%d&mem>=%d", k,
			 256 << (k % 4));
		if (!(r = guard_request(g, text)))
			return 1;
		(void)guard_verdict(g, r, all, off, &left);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%s: a request of 3 leaves new to the guard, answered on every node: %.3f ms\n",
	       how, ms_between(&a, &b) / 100);
	free(all);
	free(off);
	return 0;
}

/* The rows, node by node or (`cols`) with the guard's columns. */
static int run(bool cols)
{
	struct guard *g = guard_create(NULL);
	struct look *lk = look_create(NODES, GUARD_MAX_REQUESTS / 2);
	struct timespec a, b, m;
	size_t did[6] = { 0 }, sets = 0;
	uint64_t round = 0;
	long changed;
	double locked, built;
	const char *how = cols ? "columns" : "node by node";

	if (!g || !lk || !(extra = calloc(NODES, sizeof(*extra))))
		return 1;
	for (size_t i = 0; i < NODES; i++)
		if (!(extra[i] = extra_for(i, (int)(i % 2), 0)))
			return 1;
	for (int k = 0; k < REQUESTS; k++)
		snprintf(requests[k], sizeof(requests[k]), "gpu=true&rack!=%d",
			 k);
	/* one job in 50 with a user's --exclude of a few nodes */
	for (int j = 0; j < JOBS; j++) {
		free(bits[j]);
		bits[j] = NULL;
	}
	for (int j = 0; j < JOBS; j += 50) {
		if (!(bits[j] = calloc(WORDS, sizeof(uint64_t))))
			return 1;
		bits[j][j % WORDS] = 0xf0;
	}
	if (guard_look(g, NODES, NULL, extra_at, NULL) < 0)
		return 1;
	guard_looked_all(g, 1, 2);
	if (cols) {
		if (!columns(g, &locked, &built))
			return 1;
		printf("%s: built in %.1f ms outside the locks, copied and installed in %.1f ms\n",
		       how, built, locked);
	}

	if (new_requests(g, how))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (round_of(g, lk, ++round, did))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%s: first round (%d requests on %d nodes evaluated, %d jobs): %.1f ms; written whole %zu; requests answered by the columns %zu\n",
	       how, REQUESTS, NODES, JOBS, ms_between(&a, &b),
	       did[LOOK_WRITTEN], guard_cols_evaluated(g));

	for (int k = 0; k < 5; k++) {
		size_t n = (size_t)k * 4099 % NODES | 1; /* a node with a GPU */

		free(extra[n]);
		extra[n] = extra_for(n, 0, k + 1); /* loses its GPU */
		memset(did, 0, sizeof(did));
		clock_gettime(CLOCK_MONOTONIC, &a);
		changed = guard_look(g, NODES, NULL, extra_at, NULL);
		clock_gettime(CLOCK_MONOTONIC, &m);
		if (changed != 1 || round_of(g, lk, ++round, did))
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &b);
		printf("%s: a round after one node changed: the look at every node %.2f ms, the requests' answers and the jobs %.2f ms; patched %zu, written whole %zu\n",
		       how, ms_between(&a, &m), ms_between(&m, &b),
		       did[LOOK_PATCHED], did[LOOK_WRITTEN]);
	}
	memset(did, 0, sizeof(did));
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (round_of(g, lk, ++round, did))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%s: a round after a job changed, no node: %.2f ms; the same %zu\n",
	       how, ms_between(&a, &b), did[LOOK_SAME]);

	for (size_t i = 0; i < NODES; i++) {
		free(extra[i]);
		extra[i] = extra_for(i, (int)(i % 2), 9);
	}
	memset(did, 0, sizeof(did));
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (guard_look(g, NODES, NULL, extra_at, NULL) != NODES)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &m);
	/* (the columns, too far behind, dropped: built again first) */
	if (cols && !columns(g, &locked, &built))
		return 1;
	if (round_of(g, lk, ++round, did))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%s: a round after every node changed (every answer again): %.1f ms, of which the look at every node %.1f ms%s; written whole %zu, patched %zu\n",
	       how, ms_between(&a, &b), ms_between(&a, &m),
	       cols ? " and the columns built again" : "", did[LOOK_WRITTEN],
	       did[LOOK_PATCHED]);

	for (int j = 0; j < JOBS; j++)
		sets += bits[j] != NULL;
	printf("%s: memory: the look's answers %.1f MiB (%zu requests); the jobs' excluded nodes %.1f MiB (%zu sets of %zu KiB; %zu given by the look)\n",
	       how, (double)look_requests_kept(lk) * WORDS * 8 / 1048576.0,
	       look_requests_kept(lk), (double)sets * WORDS * 8 / 1048576.0,
	       sets, (size_t)WORDS * 8 / 1024, sets - JOBS / 50);
	look_destroy(lk);
	guard_destroy(g);
	for (size_t i = 0; i < NODES; i++)
		free(extra[i]);
	free(extra);
	return 0;
}

int main(void)
{
	return run(false) || run(true);
}
