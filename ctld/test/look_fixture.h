/*
 * look_fixture.h - what the look's tests (ctld/look.c) share: a look over
 * NODES nodes keeping 4 requests, made and freed around each test, and
 * requests' answers given by hand.  Included once per test program.
 */
#ifndef SLURM_EXTRA_LOOK_FIXTURE_H
#define SLURM_EXTRA_LOOK_FIXTURE_H

#include <criterion/criterion.h>

#include "guard.h"
#include "look.h"

#define NODES 200
#define WORDS GUARD_WORDS(NODES)

static struct look *lk;
static uint64_t round_no;

static void setup(void)
{
	lk = look_create(NODES, 4);
	cr_assert_not_null(lk);
}

static void teardown(void)
{
	look_destroy(lk);
}

__attribute__((unused)) static void set(uint64_t *w, unsigned n)
{
	w[n / 64] |= 1ULL << (n % 64);
}

__attribute__((unused)) static bool has(const uint64_t *w, unsigned n)
{
	return (w[n / 64] >> (n % 64)) & 1;
}

/* A new round in which request `text` fails the nodes of `fail`
 * (terminated by a number past the nodes); its index. */
__attribute__((unused)) static int answers(const char *text,
					   const unsigned *fail)
{
	uint64_t w[WORDS] = { 0 };
	bool fresh;
	int r;

	look_round(lk, ++round_no);
	r = look_req_seen(lk, text, &fresh);
	cr_assert_geq(r, 0);
	cr_assert(fresh);
	for (; *fail < NODES; fail++)
		set(w, *fail);
	(void)look_req_update(lk, r, NULL, w, round_no);
	return r;
}

__attribute__((unused)) static size_t count(const uint64_t *w)
{
	size_t n = 0;

	for (size_t k = 0; k < WORDS; k++)
		n += (size_t)__builtin_popcountll(w[k]);
	return n;
}

#endif
