/*
 * test_nodes.c - the node table: how each node's Extra is read (doc/language.md §2),
 * reuse of parsed Extra across refreshes, and matching every node.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>

#include "xc_private.h"
#include "leakcheck.h"

LEAK_CHECKED(nodes);

Test(nodes, states_and_matching)
{
	xc_nodes_t *t =
		xc_nodes_create(&(xc_limits_t){ .max_extra_length = 64 });
	xc_expr_t *e = xc_parse("gpu=true", NULL, NULL);
	bool matched[6];

	cr_assert_eq(xc_nodes_add(t, "n1", "{\"gpu\":true}", NULL, NULL), 0);
	cr_assert_eq(xc_nodes_add(t, "n2", "{\"gpu\":false}", NULL, NULL), 0);
	cr_assert_eq(xc_nodes_add(t, "n3", NULL, NULL, NULL), 0);
	cr_assert_eq(xc_nodes_add(t, "n4", "{gpu", NULL, NULL), 0);
	cr_assert_eq(xc_nodes_add(t, "n5", "[true]", NULL, NULL), 0);
	cr_assert_eq(
		xc_nodes_add(
			t, "n6",
			"{\"gpu\":true,\"pad\":\"0123456789012345678901234567890123456789012345678901234567890\"}",
			NULL, NULL),
		0);
	cr_assert_eq(xc_nodes_count(t), 6);
	cr_assert_eq(xc_nodes_state(t, 0), XC_EXTRA_OBJECT);
	cr_assert_eq(xc_nodes_state(t, 2), XC_EXTRA_UNSET);
	cr_assert_eq(xc_nodes_state(t, 3), XC_EXTRA_INVALID);
	cr_assert_eq(xc_nodes_state(t, 4), XC_EXTRA_NOT_OBJECT);
	cr_assert_eq(xc_nodes_state(t, 5), XC_EXTRA_TOO_LONG);
	cr_assert_eq(xc_nodes_state(t, 6), XC_EXTRA_NO_NODE);
	cr_assert_eq(xc_nodes_state(NULL, 0), XC_EXTRA_NO_NODE);
	cr_assert_str_eq(xc_extra_state_text(XC_EXTRA_NO_NODE), "no such node");
	cr_assert_eq(xc_nodes_match(t, NULL, matched), -1);
	cr_assert_eq(xc_nodes_match(NULL, e, matched), -1);
	cr_assert_str_eq(xc_nodes_name(t, 1), "n2");
	cr_assert_null(xc_nodes_name(t, 6));
	cr_assert_eq(xc_nodes_match(t, e, matched), 1);
	cr_assert(matched[0]);
	for (int i = 1; i < 6; i++)
		cr_assert_not(matched[i], "node %d", i);
	xc_expr_destroy(e);
	xc_nodes_destroy(t);
}

Test(nodes, reuse_parsed_extra)
{
	xc_nodes_t *a = xc_nodes_create(NULL), *b = xc_nodes_create(NULL);

	xc_nodes_add(a, "n1", "{\"x\":1}", NULL, NULL);
	xc_nodes_add(a, "n2", "{\"x\":2}", NULL, NULL);
	cr_assert_eq(xc_nodes_add(b, "n1", "{\"x\":1}", a, NULL), 1);
	cr_assert_eq(xc_nodes_add(b, "n2", "{\"x\":3}", a, NULL), 0);
	cr_assert_eq(xc_nodes_add(b, "n3", "{\"x\":2}", a, NULL), 0);
	cr_assert_eq(xc_nodes_extra(a, 0), xc_nodes_extra(b, 0),
		     "unchanged Extra is shared");
	cr_assert_neq(xc_nodes_extra(a, 1), xc_nodes_extra(b, 1),
		      "changed Extra is parsed again");
	xc_nodes_destroy(a);
	cr_assert_eq(xc_extra_count(xc_nodes_extra(b, 0)), 1,
		     "the shared Extra outlives the old table");
	{
		xc_expr_t *e = xc_parse("x=1", NULL, NULL);

		cr_assert(xc_match(e, xc_nodes_extra(b, 0)));
		xc_expr_destroy(e);
	}
	xc_nodes_destroy(b);
}

Test(nodes, states_and_bad_arguments)
{
	xc_nodes_t *t = xc_nodes_create(NULL);
	xc_error_t err;

	cr_assert_eq(xc_nodes_add(t, "a", "{\"x\":1}", NULL, NULL), 0);
	cr_assert_eq(xc_nodes_add(t, "b", NULL, NULL, NULL), 0);
	cr_assert_eq(xc_nodes_add(t, "c", "[1]", NULL, NULL), 0);
	cr_assert_eq(xc_nodes_add(t, "d", "{x:1}", NULL, NULL), 0);
	cr_assert_eq(xc_nodes_state(t, 0), XC_EXTRA_OBJECT);
	cr_assert_eq(xc_nodes_state(t, 1), XC_EXTRA_UNSET);
	cr_assert_eq(xc_nodes_state(t, 2), XC_EXTRA_NOT_OBJECT);
	cr_assert_eq(xc_nodes_state(t, 3), XC_EXTRA_INVALID);
	cr_assert_null(xc_nodes_extra(t, 2));
	cr_assert_eq(xc_nodes_add(t, NULL, "{}", NULL, &err), -1);
	cr_assert_eq(err.code, XC_E_INVALID_ARG);
	cr_assert_str_eq(err.message, "no node table or node name");
	cr_assert_eq(xc_nodes_add(NULL, "x", "{}", NULL, NULL), -1);
	cr_assert_eq(xc_nodes_count(NULL), 0);
	xc_nodes_destroy(t);
	xc_nodes_destroy(NULL);
}

/* Every object the library makes is counted while it lives. */
Test(nodes, live_objects_come_back_to_the_same_count)
{
	long before = xc_live_objects();
	xc_nodes_t *a = xc_nodes_create(NULL), *b = xc_nodes_create(NULL);
	xc_expr_t *e = xc_parse("(a=1&b=2)|c=3", NULL, NULL);

	cr_assert_eq(xc_live_objects() - before, 2 + 5,
		     "2 tables, 3 leaves and 2 groups");
	xc_nodes_add(a, "n1", "{\"x\":1}", NULL, NULL);
	xc_nodes_add(a, "n2", "not json", NULL, NULL);
	xc_nodes_add(b, "n1", "{\"x\":1}", a, NULL);
	cr_assert_eq(xc_live_objects() - before, 2 + 5 + 1,
		     "one Extra, shared");
	xc_nodes_destroy(a);
	cr_assert_eq(xc_live_objects() - before, 1 + 5 + 1,
		     "the shared Extra lives on");
	xc_nodes_destroy(b);
	xc_expr_destroy(e);
	cr_assert_eq(xc_live_objects(), before);
}

/* The leak check itself: a test that leaks must fail (abort). */
LEAK_CHECKED(leakcheck);

#ifdef XC_HAVE_LSAN
#define LSAN_ON 1
#else
#define LSAN_ON 0
#endif

/* Runs only in sanitizer builds (skipped otherwise).  The check that
 * LEAK_CHECKED runs after every test, run here in the test itself so that
 * Criterion can expect its abort: a leaked block makes it abort.  (When it
 * aborts in the teardown, Criterion reports "crashed during its setup or
 * teardown" and counts the test as failed.) */
Test(leakcheck, a_leak_fails_the_test, .signal = SIGABRT, .disabled = !LSAN_ON)
{
	volatile char *p = malloc(64);

	p[0] = 1;
	p = NULL;
	xc_leak_check();
}

/* xc_grow: capacity doubles from 8 until `need` fits; a size that
 * overflows is refused with the array left as it was. */
Test(grow, doubles_and_refuses_overflow)
{
	int *v = NULL;
	size_t cap = 0;

	cr_assert_eq(xc_grow((void **)&v, &cap, 1, sizeof(*v)), 0);
	cr_assert_eq(cap, 8);
	v[7] = 7;
	cr_assert_eq(xc_grow((void **)&v, &cap, 8, sizeof(*v)), 0);
	cr_assert_eq(cap, 8);
	cr_assert_eq(xc_grow((void **)&v, &cap, 9, sizeof(*v)), 0);
	cr_assert_eq(cap, 16);
	cr_assert_eq(v[7], 7);
	cr_assert_eq(xc_grow((void **)&v, &cap, 100, sizeof(*v)), 0);
	cr_assert_eq(cap, 128);
	cr_assert_eq(xc_grow((void **)&v, &cap, SIZE_MAX / 2, sizeof(*v)), -1);
	cr_assert_eq(cap, 128);
	cr_assert_eq(v[7], 7);
	free(v);
}

/* xc_grow_parallel: arrays that share one capacity grow to the same one by
 * xc_grow's rule; nothing is done while it holds enough; on a refusal the
 * shared capacity stays as it was. */
Test(grow, parallel_arrays_share_the_capacity)
{
	int *a = NULL;
	double *b = NULL;
	void **const arrays[] = { (void **)&a, (void **)&b };
	const size_t sizes[] = { sizeof(*a), sizeof(*b) };
	size_t cap = 0;

	cr_assert_eq(xc_grow_parallel(arrays, sizes, 2, &cap, 0), 0);
	cr_assert_eq(cap, 0);
	cr_assert_null(a);
	cr_assert_eq(xc_grow_parallel(arrays, sizes, 2, &cap, 3), 0);
	cr_assert_eq(cap, 8);
	a[7] = 7;
	b[7] = 7.5;
	cr_assert_eq(xc_grow_parallel(arrays, sizes, 2, &cap, 8), 0);
	cr_assert_eq(cap, 8);
	cr_assert_eq(xc_grow_parallel(arrays, sizes, 2, &cap, 17), 0);
	cr_assert_eq(cap, 32);
	a[31] = 31;
	b[31] = 31.5;
	cr_assert_eq(a[7], 7);
	cr_assert_eq(b[7], 7.5);
	cr_assert_eq(xc_grow_parallel(arrays, sizes, 2, &cap, SIZE_MAX / 2),
		     -1);
	cr_assert_eq(cap, 32);
	cr_assert_eq(b[31], 31.5);
	free(a);
	free(b);
}
