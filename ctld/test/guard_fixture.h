/*
 * guard_fixture.h - what the guard's unit tests share (test_guard.c,
 * test_guard_reads.c, test_guard_jobs.c, test_guard_budget.c): a guard
 * made before each test and freed after it, a node table for its looks,
 * and a job's excluded nodes as a plain array of flags.
 */
#ifndef SLURM_EXTRA_GUARD_FIXTURE_H
#define SLURM_EXTRA_GUARD_FIXTURE_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"

#define NODES 16

/* A job's excluded nodes, as a plain array of flags. */
struct bits {
	bool b[NODES];
};

static void *bcopy_(const void *bits)
{
	struct bits *c = malloc(sizeof(*c));

	if (c)
		*c = *(const struct bits *)bits;
	return c;
}

static bool bequal(const void *a, const void *b)
{
	return !memcmp(a, b, sizeof(struct bits));
}

static void bfree(void *bits)
{
	free(bits);
}

static const struct guard_bits_ops ops = { bcopy_, bequal, bfree };

static struct guard *g;

/* A node table for guard_look(): each node's Extra, by index, and how
 * many texts the guard asked for. */
#define TABLE 1000
static const char *table[TABLE] __attribute__((unused));
static int reads __attribute__((unused));

static __attribute__((unused)) const char *extra_of(size_t i, void *arg)
{
	(void)arg;
	reads++;
	return table[i];
}

static void setup(void)
{
	g = guard_create(NULL);
	cr_assert_not_null(g);
}

static void teardown(void)
{
	guard_destroy(g);
}

TestSuite(guard, .init = setup, .fini = teardown);

#endif
