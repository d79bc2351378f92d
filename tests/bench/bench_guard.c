/*
 * bench_guard.c - what the guard at placement costs a placement attempt
 * (ctld/guard.h), at 65,536 nodes, without Slurm: node records of
 * Slurm's size scattered on the heap, each with an Extra of the shape a
 * site writes, read through a table of pointers as the guard reads
 * node_record_table_ptr; 500 distinct requests ("gpu=true&rack!=K"); the
 * job's candidates are the nodes with a GPU (the thread keeps the others
 * off through the job's ExcNodeList or feature), all available, of which
 * a request keeps 0 (K even) or about 131 (K odd) off.  Printed in
 * microseconds an attempt, never asserted; guard.c's work only (the
 * plugin adds a copy of the job's bitmap, the partitions' words ORed and
 * the feature looked up by name):
 *  - nothing changed since the last look (GUARD_LOOK_NONE): the answers
 *    kept per request and node, word operations only;
 *  - the first attempt of a request never seen: every candidate evaluated;
 *  - within the second of a node change (GUARD_LOOK_CANDIDATES): every
 *    candidate's text compared;
 *  - from 24.11 in a later second (GUARD_LOOK_REGISTERED): each
 *    candidate's own stamp read, its text compared when it moved;
 *  - a look at every node after a change (GUARD_LOOK_ALL), once a stamp,
 *    with the caches emptied first (it comes once a second at most);
 *  - a job with 8 preferences and a wait, over its usable nodes (its
 *    partitions', all 65,536 less a few): the tiers counted with their
 *    answers kept (no change), the first pick of 8 tiers never seen
 *    (every usable node evaluated for each tier up to the one picked)
 *    undivided, and within the tiers' budget of a second, with cheap
 *    tiers and with a user's worst (100 leaves each, satisfied by none);
 *  - for reference, what the guard did before: every candidate's text
 *    compared and the request evaluated on every candidate, each attempt
 *    (a request not kept, so every candidate is evaluated).
 *   make tests/bench/bench_guard && tests/bench/bench_guard
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "guard.h"

#define NODES 65536
#define REQUESTS 500
#define RECORD 472	 /* sizeof(node_record_t), 22.05.8 */
#define EVICT (64 << 20) /* bytes written to empty the caches */

struct record {
	char *extra;
	/* last_response 112 bytes after extra, on another cache line, as in
	 * 24.11.5's node_record_t (extra at 128, last_response at 240) */
	char before[104];
	long long last_response;
	char rest[RECORD - sizeof(char *) - 104 - sizeof(long long)];
};

static struct record **table;

static const char *extra_at(size_t i, void *arg)
{
	(void)arg;
	return table[i]->extra;
}

static long long stamp_at(size_t i, void *arg)
{
	(void)arg;
	return table[i]->last_response;
}

/* Counts the 8 tiers of job k, "(gpu=true)&(rack=K)": the first 7 with
 * a rack no node has, the last rack k; *nodes: the last tier's usable
 * nodes.  0, or -1 when a count fails. */
static int count_tiers(struct guard *g, int k, const uint64_t *usable,
		       uint64_t *scratch, size_t *budget, size_t *nodes)
{
	char tier[64];
	size_t n_free;

	for (int i = 0; i < 8; i++) {
		snprintf(tier, sizeof(tier), "(gpu=true)&(rack=%d)",
			 i < 7 ? 1000 + k * 8 + i : k);
		if (guard_count(g, tier, usable, NULL, scratch, budget, nodes,
				&n_free) != 1)
			return -1;
	}
	return 0;
}

static double us_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e6 +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e3;
}

static char *extra_for(size_t i, int gpu)
{
	char text[256];

	snprintf(
		text, sizeof(text),
		"{\"gpu\":%s,\"mem\":%zu,\"arch\":\"x86_64\",\"load\":0.%zu,\"ib_pod\":%zu,\"rack\":%zu,\"ssd\":\"nvme\"}",
		gpu ? "true" : "false", (size_t)256 << (i % 4), i % 10, i % 16,
		i % 500);
	return strdup(text);
}

int main(void)
{
	static uint64_t pool[GUARD_WORDS(NODES)], cand[GUARD_WORDS(NODES)],
		off[GUARD_WORDS(NODES)];
	static uint32_t list[NODES];
	char requests[REQUESTS][64];
	struct guard *g = guard_create(NULL);
	struct guard_req *r;
	struct timespec a, b;
	void *filler[NODES];
	char *evict = malloc(EVICT);
	size_t least = NODES, most = 0;
	size_t left, n = 0;
	const int rounds = 200;
	double t;

	if (!g || !evict || !(table = calloc(NODES, sizeof(*table))))
		return 1;
	/* records and texts scattered among other allocations */
	for (size_t i = 0; i < NODES; i++) {
		if (!(table[i] = calloc(1, sizeof(**table))) ||
		    !(filler[i] = malloc(64 + (i * 37) % 512)) ||
		    !(table[i]->extra = extra_for(i, (int)(i % 2))))
			return 1;
	}
	for (size_t i = 0; i < NODES; i++)
		free(filler[i]);
	for (int k = 0; k < REQUESTS; k++)
		snprintf(requests[k], sizeof(requests[k]), "gpu=true&rack!=%d",
			 k);
	/* the nodes with a GPU (odd), a few the user excluded */
	memset(pool, 0xaa, sizeof(pool));
	for (size_t k = 0; k < 10; k++)
		pool[k * 97] &= ~2ULL;
	memcpy(cand, pool, sizeof(cand));

	clock_gettime(CLOCK_MONOTONIC, &a);
	if (guard_look(g, NODES, NULL, extra_at, NULL) < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("first look at every node (parsed): %.0f us\n",
	       us_between(&a, &b));
	guard_looked_all(g, 1, 2);

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int k = 0; k < REQUESTS; k++) {
		if (!(r = guard_request(g, requests[k])))
			return 1;
		n += guard_keep_off(g, r, pool, cand, off, list, &left);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("first attempt of a request never seen (every candidate evaluated): %.0f us an attempt\n",
	       us_between(&a, &b) / REQUESTS);

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int k = 0; k < rounds; k++) {
		size_t kept;

		if (guard_look_needed(g, NODES, 1, 2, false) !=
			    GUARD_LOOK_NONE ||
		    !(r = guard_request(g, requests[k % REQUESTS])))
			return 1;
		kept = guard_keep_off(g, r, pool, cand, off, list, &left);
		least = kept < least ? kept : least;
		most = kept > most ? kept : most;
		n += kept;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("nothing changed (answers kept; %zu to %zu of %d candidates kept off): %.1f us an attempt\n",
	       least, most, NODES / 2 - 10, us_between(&a, &b) / rounds);

	/* one node changes: the look at every node, once a stamp, the
	 * caches emptied first */
	t = 0;
	for (int k = 0; k < 20; k++) {
		free(table[k * 1000]->extra);
		table[k * 1000]->extra = extra_for((size_t)k * 1000, 1);
		memset(evict, k, EVICT);
		clock_gettime(CLOCK_MONOTONIC, &a);
		if (guard_look(g, NODES, NULL, extra_at, NULL) != 1)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &b);
		t += us_between(&a, &b);
	}
	guard_looked_all(g, 3, 3);
	printf("look at every node, one changed, caches emptied: %.0f us\n",
	       t / 20);

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int k = 0; k < rounds; k++) {
		if (guard_look_needed(g, NODES, 3, 3, false) !=
			    GUARD_LOOK_CANDIDATES ||
		    guard_look(g, NODES, cand, extra_at, NULL) < 0 ||
		    !(r = guard_request(g, requests[k % REQUESTS])))
			return 1;
		n += guard_keep_off(g, r, pool, cand, off, list, &left);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("within the second of a change (every candidate's text compared): %.0f us an attempt\n",
	       us_between(&a, &b) / rounds);

	/* from 24.11, each node's own stamp: the stamps recorded by a look
	 * at every node, then placements in later seconds read the text of
	 * a candidate only when its stamp moved (1 in 100 of them, as
	 * slurmd's responses move them) */
	if (guard_look_stamps(g, NODES, NULL, extra_at, stamp_at, NULL, 10,
			      false) < 0)
		return 1;
	guard_looked_all(g, 3, 10);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int k = 0; k < rounds; k++) {
		for (size_t i = (size_t)k * 7 % 100; i < NODES; i += 100)
			table[i]->last_response = 11 + k;
		if (guard_look_needed(g, NODES, 3, 12 + k, true) !=
			    GUARD_LOOK_REGISTERED ||
		    guard_look_stamps(g, NODES, cand, extra_at, stamp_at, NULL,
				      12 + k, true) < 0 ||
		    !(r = guard_request(g, requests[k % REQUESTS])))
			return 1;
		n += guard_keep_off(g, r, pool, cand, off, list, &left);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("from 24.11, a later second (the candidates' own stamps read, 1 in 100 moved: its text compared): %.0f us an attempt\n",
	       us_between(&a, &b) / rounds);

	/* preferences: 8 tiers "(R)&(rack=K)", the last satisfied by nodes
	 * (K < 500), the others by none (K >= 500), counted over the usable
	 * nodes as the plugin does through prefer_pick_tiers() */
	{
		static uint64_t usable[GUARD_WORDS(NODES)],
			scratch[GUARD_WORDS(NODES)];
		char tier[64];
		size_t nodes, n_free, picked = 0, budget;

		memset(usable, 0xff, sizeof(usable));
		for (size_t k = 0; k < 10; k++)
			usable[k * 97] &= ~2ULL;
		guard_looked_all(g, 4,
				 1000); /* after the stamped looks above */
		t = 0;
		for (int k = 0; k < 20; k++) {
			clock_gettime(CLOCK_MONOTONIC, &a);
			budget = SIZE_MAX; /* the cost undivided */
			if (count_tiers(g, k, usable, scratch, &budget,
					&nodes) < 0)
				return 1;
			picked += nodes > 0;
			clock_gettime(CLOCK_MONOTONIC, &b);
			t += us_between(&a, &b);
		}
		printf("a job with 8 preferences never seen, the last picked (%zu of 20 with a node; 8 x %d usable nodes evaluated): %.0f us an attempt\n",
		       picked, NODES - 10, t / 20);
		/* one user's share of a second's budget
		 * (GUARD_TIER_USER_SHARE answers: guard_tiers_allowance())
		 * spent on 8 tiers never seen, cheap ones (2 leaves) and a
		 * user's worst (100 leaves, no node satisfying them): a
		 * second's cost, and how many seconds until the pick is
		 * made */
		for (int heavy = 0; heavy < 2; heavy++) {
			static char big[8][1200];
			int seconds = 0, rc = -1;
			double slowest = 0;

			for (int i = 0; i < 8; i++) {
				int at = snprintf(big[i], sizeof(big[i]),
						  "(gpu=true)&(rack=%d",
						  i < 7 ? 3000 + heavy * 100 + i
							: 1);
				for (int l = 0; heavy && l < 98; l++)
					at += snprintf(big[i] + at,
						       sizeof(big[i]) -
							       (size_t)at,
						       "|rack=%d", 5000 + l);
				snprintf(big[i] + at,
					 sizeof(big[i]) - (size_t)at, ")");
			}
			while (rc < 0 && seconds < 10000) {
				struct timespec c, d;
				size_t allowed = guard_tiers_allowance(
					g, 1000, 2000 + seconds);

				budget = allowed;
				clock_gettime(CLOCK_MONOTONIC, &c);
				for (int i = 0; i < 8; i++)
					if ((rc = guard_count(g, big[i], usable,
							      NULL, scratch,
							      &budget, &nodes,
							      &n_free)) != 1)
						break;
				clock_gettime(CLOCK_MONOTONIC, &d);
				guard_tiers_spend(g, 1000, 2000 + seconds,
						  allowed - budget);
				slowest = us_between(&c, &d) > slowest
						  ? us_between(&c, &d)
						  : slowest;
				seconds++;
			}
			printf("8 tiers never seen of %d leaves within one user's share of a second's budget (%d of %d answers): %.0f us a second at most, picked after %d seconds\n",
			       heavy ? 100 : 2, GUARD_TIER_USER_SHARE,
			       GUARD_TIER_BUDGET, slowest, seconds);
		}
		/* the whole budget of one second: four users, each with 8
		 * tiers of 100 leaves never seen, that no node satisfies,
		 * spending their shares (the bound on the tiers' time under
		 * slurmctld's locks, a second) */
		{
			static char worst[8][1200];
			struct timespec c, d;
			size_t spent = 0;

			clock_gettime(CLOCK_MONOTONIC, &c);
			for (uint32_t u = 0; u < 4; u++) {
				size_t allowed = guard_tiers_allowance(
					g, 3000 + u, 9000);

				budget = allowed;
				for (int i = 0; i < 8; i++) {
					int at = snprintf(worst[i],
							  sizeof(worst[i]),
							  "(gpu=true)&(rack=%u",
							  7000 + u * 8 + i);

					for (int l = 0; l < 98; l++)
						at += snprintf(
							worst[i] + at,
							sizeof(worst[i]) -
								(size_t)at,
							"|rack=%d", 8000 + l);
					snprintf(worst[i] + at,
						 sizeof(worst[i]) - (size_t)at,
						 ")");
					if (guard_count(g, worst[i], usable,
							NULL, scratch, &budget,
							&nodes, &n_free) != 1)
						break;
				}
				guard_tiers_spend(g, 3000 + u, 9000,
						  allowed - budget);
				spent += allowed - budget;
			}
			clock_gettime(CLOCK_MONOTONIC, &d);
			printf("four users' shares in one second, each user's worst (8 tiers of 100 leaves never seen): %zu of %d answers spent, %.0f us\n",
			       spent, GUARD_TIER_BUDGET, us_between(&c, &d));
		}
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (int k = 0; k < rounds; k++) {
			int j = k % 20;

			if (guard_look_needed(g, NODES, 4, 1001, false) !=
			    GUARD_LOOK_NONE)
				return 1;
			budget = GUARD_TIER_BUDGET;
			if (count_tiers(g, j, usable, scratch, &budget,
					&nodes) < 0)
				return 1;
			snprintf(tier, sizeof(tier), "(gpu=true)&(rack=%d)", j);
			if (!(r = guard_tier(g, tier)))
				return 1;
			n += guard_keep_off(g, r, pool, cand, off, list, &left);
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		printf("the same jobs again, nothing changed (8 tiers counted, answers kept): %.1f us an attempt\n",
		       us_between(&a, &b) / rounds);
	}

	/* before: the text of every candidate compared and every candidate
	 * evaluated, each attempt */
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int k = 0; k < 20; k++) {
		char fresh[64];

		snprintf(fresh, sizeof(fresh), "gpu=true&rack!=%d&ssd=nvme", k);
		if (guard_look(g, NODES, cand, extra_at, NULL) < 0 ||
		    !(r = guard_request(g, fresh)))
			return 1;
		n += guard_keep_off(g, r, pool, cand, off, list, &left);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("reference, every candidate read and evaluated each attempt: %.0f us an attempt\n",
	       us_between(&a, &b) / 20);
	guard_destroy(g);
	for (size_t i = 0; i < NODES; i++) {
		free(table[i]->extra);
		free(table[i]);
	}
	free(table);
	free(evict);
	return n ? 0 : 1;
}
