/*
 * test_look_queue.c - the jobs queued for the look's walk of what
 * changed (ctld/look_queue.c): in order, one job's pushes in a row
 * once, bounded, an overflow said once,
 * cleared by a walk of every job, pushed from threads at once.
 */
#include <criterion/criterion.h>
#include <pthread.h>

#include "look_queue.h"

static void setup(void)
{
	look_queue_clear();
}

TestSuite(look_queue, .init = setup);

Test(look_queue, ids_come_out_in_order_and_in_pieces)
{
	uint32_t ids[4];
	bool lost = true;

	for (uint32_t id = 1; id <= 6; id++)
		cr_assert(look_queue_push(id));
	cr_assert(look_queue_push(0), "nothing to queue");
	cr_assert(look_queue_push(6), "the last one again");
	cr_assert_eq(look_queue_count(), 6);
	cr_assert_eq(look_queue_take(ids, 4, &lost), 4);
	cr_assert_not(lost);
	for (uint32_t k = 0; k < 4; k++)
		cr_assert_eq(ids[k], k + 1);
	cr_assert_eq(look_queue_take(ids, 4, NULL), 2);
	cr_assert_eq(ids[0], 5);
	cr_assert_eq(ids[1], 6);
	cr_assert_eq(look_queue_take(ids, 4, &lost), 0);
	cr_assert(look_queue_push(6), "taken: queued again");
	cr_assert_eq(look_queue_count(), 1);
}

/* Past its bound the ids are dropped and the next take says so, once;
 * the ring goes on from where it was. */
Test(look_queue, an_overflow_is_said_once)
{
	static uint32_t ids[LOOK_QUEUE_CAP];
	bool lost = false;

	for (uint32_t id = 1; id <= LOOK_QUEUE_CAP; id++)
		cr_assert(look_queue_push(id));
	cr_assert_not(look_queue_push(LOOK_QUEUE_CAP + 1));
	cr_assert_eq(look_queue_count(), LOOK_QUEUE_CAP);
	cr_assert_eq(look_queue_take(ids, 10, &lost), 10);
	cr_assert(lost);
	cr_assert_eq(ids[0], 1);
	cr_assert(look_queue_push(7777), "room again");
	cr_assert_eq(look_queue_take(ids, LOOK_QUEUE_CAP, &lost),
		     LOOK_QUEUE_CAP - 10 + 1);
	cr_assert_not(lost, "said once");
	cr_assert_eq(ids[0], 11);
	cr_assert_eq(ids[LOOK_QUEUE_CAP - 10], 7777);
}

Test(look_queue, a_whole_walk_clears_it)
{
	uint32_t id;
	bool lost = true;

	for (uint32_t k = 0; k <= LOOK_QUEUE_CAP; k++)
		(void)look_queue_push(k + 1);
	look_queue_clear();
	cr_assert_eq(look_queue_count(), 0);
	cr_assert_eq(look_queue_take(&id, 1, &lost), 0);
	cr_assert_not(lost, "the overflow forgotten too");
}

#define THREADS 4
#define EACH 10000

static void *pusher(void *arg)
{
	uint32_t base = (uint32_t)(uintptr_t)arg * EACH;

	for (uint32_t k = 1; k <= EACH; k++)
		(void)look_queue_push(base + k);
	return NULL;
}

/* Pushed from several threads at once: every id comes out once. */
Test(look_queue, threads_lose_nothing)
{
	static uint32_t ids[THREADS * EACH];
	static bool met[THREADS * EACH + 1];
	pthread_t t[THREADS];
	size_t n;

	for (uintptr_t k = 0; k < THREADS; k++)
		cr_assert_eq(pthread_create(&t[k], NULL, pusher, (void *)k), 0);
	for (size_t k = 0; k < THREADS; k++)
		pthread_join(t[k], NULL);
	n = look_queue_take(ids, THREADS * EACH, NULL);
	cr_assert_eq(n, THREADS * EACH);
	for (size_t k = 0; k < n; k++) {
		cr_assert(ids[k] >= 1 && ids[k] <= THREADS * EACH);
		cr_assert_not(met[ids[k]], "id %u twice", ids[k]);
		met[ids[k]] = true;
	}
}
