/*
 * test_look_changed.c - what the look's walk of what changed visits
 * (ctld/look_changed.c): the queued jobs first, a piece at a time, then
 * the carried ones; a list under way neither restarted nor skipped; a
 * visit cut short given again; an overflow said; everything forgotten by
 * a walk of every job.
 */
#include <criterion/criterion.h>

#include "guard.h"
#include "look.h"
#include "look_changed.h"
#include "look_queue.h"

#define NODES 130
#define WORDS GUARD_WORDS(NODES)

static struct look *lk;

/* Jobs `ids` (0-terminated) carried: each with a set of its own that
 * the look wrote a request's failing nodes into. */
static void carry(const uint32_t *ids)
{
	static uint64_t bits[8][WORDS];
	uint64_t fail[WORDS] = { 0 };
	bool fresh;
	int r;

	look_round(lk, 1);
	r = look_req_seen(lk, "a=1", &fresh);
	cr_assert_geq(r, 0);
	fail[0] = 1ULL << 3;
	(void)look_req_update(lk, r, NULL, fail, 1);
	for (size_t k = 0; ids[k]; k++)
		cr_assert_eq(
			look_job_apply(lk, ids[k], 0, r, bits[k], 7, false),
			LOOK_WRITTEN);
}

static void setup(void)
{
	lk = look_create(NODES, 4);
	cr_assert_not_null(lk);
	look_queue_clear();
	look_changed_free();
}

static void teardown(void)
{
	look_changed_free();
	look_destroy(lk);
}

TestSuite(look_changed, .init = setup, .fini = teardown);

/* Visits all that is listed, in order; returns how many. */
static size_t visit_all(uint32_t *got, size_t cap)
{
	size_t n = 0;
	uint32_t id;

	while ((id = look_changed_next())) {
		cr_assert_lt(n, cap, "more visits than listed");
		got[n++] = id;
		look_changed_visited();
	}
	return n;
}

Test(look_changed, the_queued_first_then_the_carried)
{
	uint32_t got[8];
	bool met[3] = { false };

	carry((uint32_t[]){ 11, 12, 0 });
	cr_assert(look_queue_push(5));
	cr_assert(look_queue_push(6));
	cr_assert_not(look_changed_take());
	cr_assert_not(look_changed_carrying());
	cr_assert_eq(look_changed_carry(lk), 0);
	cr_assert(look_changed_carrying());
	cr_assert_eq(visit_all(got, 8), 4);
	cr_assert_eq(got[0], 5);
	cr_assert_eq(got[1], 6);
	for (size_t k = 2; k < 4; k++) {
		cr_assert(got[k] == 11 || got[k] == 12);
		met[got[k] - 10] = true;
	}
	cr_assert(met[1] && met[2], "each carried job once");
	cr_assert_not(look_changed_carrying(), "the list is done");
	cr_assert_eq(look_changed_next(), 0);
}

/* A change during a list waits for its end; the list goes on where it
 * was, a piece of the queue taken meanwhile visited first. */
Test(look_changed, a_list_under_way_is_not_restarted)
{
	uint32_t first, got[8];

	carry((uint32_t[]){ 11, 12, 13, 0 });
	cr_assert(look_changed_list_due(1, 0));
	cr_assert_not(look_changed_list_due(1, 1), "no change since");
	cr_assert_eq(look_changed_carry(lk), 0);
	first = look_changed_next();
	look_changed_visited();
	cr_assert(look_changed_carrying());
	cr_assert_not(look_changed_list_due(2, 1), "mid-list: not again");
	cr_assert(look_queue_push(5));
	(void)look_changed_take();
	cr_assert_eq(visit_all(got, 8), 3);
	cr_assert_eq(got[0], 5, "the queued first");
	cr_assert(got[1] != first && got[2] != first && got[1] != got[2],
		  "the rest of the list, where it was");
	cr_assert(look_changed_list_due(2, 1), "its end: the next list");
}

/* A visit cut short (no look_changed_visited()) gives the same job
 * again; the queue's next piece waits for this one to be visited. */
Test(look_changed, a_piece_is_visited_whole_before_the_next)
{
	uint32_t got[8];

	for (uint32_t id = 1; id <= 3; id++)
		cr_assert(look_queue_push(id));
	(void)look_changed_take();
	cr_assert(look_queue_push(4));
	cr_assert_eq(look_changed_next(), 1);
	cr_assert_eq(look_changed_next(), 1, "not visited: the same again");
	look_changed_visited();
	(void)look_changed_take(); /* (the piece not done: nothing taken) */
	cr_assert_eq(look_queue_count(), 1);
	cr_assert_eq(visit_all(got, 8), 2);
	cr_assert_eq(got[0], 2);
	cr_assert_eq(got[1], 3);
	(void)look_changed_take();
	cr_assert_eq(look_changed_next(), 4);
}

/* More ids than a piece: taken a piece at a time, none lost. */
Test(look_changed, the_queue_comes_in_pieces)
{
	static uint32_t got[LOOK_CHANGED_PIECE];
	size_t total = 0;

	for (uint32_t id = 1; id <= LOOK_CHANGED_PIECE + 10; id++)
		cr_assert(look_queue_push(id));
	for (int piece = 0; piece < 2; piece++) {
		size_t n;

		(void)look_changed_take();
		n = visit_all(got, LOOK_CHANGED_PIECE);
		cr_assert_eq(n, piece ? 10 : LOOK_CHANGED_PIECE);
		cr_assert_eq(got[0], (uint32_t)total + 1, "in order");
		total += n;
	}
	cr_assert_eq(total, LOOK_CHANGED_PIECE + 10);
}

Test(look_changed, an_overflow_is_said)
{
	for (uint32_t id = 1; id <= LOOK_QUEUE_CAP + 1; id++)
		(void)look_queue_push(id);
	cr_assert(look_changed_take());
	cr_assert_eq(look_changed_next(), 1, "the ids kept still visited");
}

/* A walk of every job forgets what was listed and taken. */
Test(look_changed, a_whole_walk_forgets_the_lists)
{
	carry((uint32_t[]){ 11, 0 });
	cr_assert(look_queue_push(5));
	(void)look_changed_take();
	cr_assert_eq(look_changed_carry(lk), 0);
	look_changed_clear();
	cr_assert_not(look_changed_carrying());
	cr_assert_eq(look_changed_next(), 0);
}
