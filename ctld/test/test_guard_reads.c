/*
 * test_guard_reads.c - which nodes a look of the guard reads (ctld/guard.c
 * guard_look(), guard_look_stamps()): the nodes asked for and no other,
 * and from 24.11 by each node's own stamp only those whose stamp moved.
 * The rest of what the guard keeps: test_guard.c.
 */
#include "guard_fixture.h"

/* A look reads the nodes of `which` and no other, whatever their number
 * and place (across words; bits past the node count ignored): a node
 * outside it keeps what it read before. */
static bool asked[TABLE];

static const char *extra_marked(size_t i, void *arg)
{
	(void)arg;
	cr_assert_lt(i, TABLE);
	cr_assert_not(asked[i], "node %zu read twice in one look", i);
	asked[i] = true;
	return table[i];
}

Test(guard, a_look_reads_the_nodes_asked_for)
{
	uint64_t which[GUARD_WORDS(TABLE)];
	static const char *const text[] = { "{\"ok\":1}", "{\"ok\":2}" };

	for (size_t i = 0; i < TABLE; i++)
		table[i] = text[0];
	cr_assert_eq(guard_look(g, TABLE, NULL, extra_marked, NULL), TABLE);
	for (size_t i = 0; i < TABLE; i++)
		cr_assert(asked[i], "node %zu not read by a full look", i);
	for (unsigned seed = 1; seed <= 20; seed++) {
		size_t want = 0, got;

		srand(seed);
		memset(asked, 0, sizeof(asked));
		for (size_t w = 0; w < GUARD_WORDS(TABLE); w++)
			which[w] = seed % 5 == 0 ? ~0ULL
						 : ((uint64_t)rand() << 33 ^
						    (uint64_t)rand() << 11 ^
						    (uint64_t)rand());
		/* every node changes; the look is asked for some */
		for (size_t i = 0; i < TABLE; i++) {
			table[i] = table[i] == text[0] ? text[1] : text[0];
			want += which[i / 64] >> (i % 64) & 1;
		}
		got = (size_t)guard_look(g, TABLE, which, extra_marked, NULL);
		for (size_t i = 0; i < TABLE; i++)
			cr_assert_eq(asked[i], which[i / 64] >> (i % 64) & 1,
				     "seed %u node %zu", seed, i);
		cr_assert_eq(got, want, "seed %u", seed);
		/* the others, changed too, are read at the next full look */
		memset(asked, 0, sizeof(asked));
		cr_assert_eq(guard_look(g, TABLE, NULL, extra_marked, NULL),
			     TABLE - want, "seed %u", seed);
	}
	memset(table, 0, sizeof(table));
}

/* A node's own stamp: node i's, as the test sets it. */
static long long stamps[TABLE];

static long long stamp_at(size_t i, void *arg)
{
	(void)arg;
	return stamps[i];
}

/* A look at the nodes of `which` with their own stamps, in second `now`,
 * `reads` counting the texts it asked for. */
static long look_at(const uint64_t *which, long long now, bool skip)
{
	reads = 0;
	return guard_look_stamps(g, TABLE, which, extra_of, stamp_at, NULL, now,
				 skip);
}

/* With its own stamp (24.11's registrations move last_response), a node
 * is read again only when the stamp moved, or is the second of the last
 * read (a change later in that second could leave it as it was); the
 * other looks read every node asked for and record the stamps. */
Test(guard, a_nodes_own_stamp)
{
	uint64_t which[GUARD_WORDS(TABLE)] = { 0 };
	struct guard_req *r;

	memset(stamps, 0, sizeof(stamps));
	table[1] = "{\"ok\":1}";
	table[2] = "{\"ok\":1}";
	which[0] = 0x6; /* nodes 1 and 2 */
	cr_assert_eq(guard_look_stamps(g, TABLE, NULL, extra_of, stamp_at, NULL,
				       100, false),
		     TABLE);
	stamps[2] = 100; /* a registration in the second of the read */
	cr_assert_eq(look_at(which, 100, true), 0);
	cr_assert_eq(reads, 1, "node 2's stamp moved: read; node 1 not");
	/* node 2 changes later in second 100: its stamp stays 100 */
	table[2] = "{\"ok\":0}";
	cr_assert_eq(look_at(which, 101, true), 1,
		     "its stamp is its read's second: read again");
	cr_assert_eq(reads, 1);
	r = guard_request(g, "ok=1");
	cr_assert_not(guard_req_matches(g, r, 2));
	cr_assert_eq(look_at(which, 102, true), 0);
	cr_assert_eq(reads, 0, "read in 101, stamped 100: nothing to read");
	/* a change with no stamp of the node's (an admin's update: the
	 * table's stamp) is read by a look that does not skip */
	table[1] = "{\"ok\":0}";
	cr_assert_eq(look_at(which, 102, false), 1);
	cr_assert_eq(reads, 2);
	/* a clock set back behind a read: every node read afresh */
	guard_looked_all(g, 100, 101);
	cr_assert_eq(guard_look_needed(g, TABLE, 100, 101, true),
		     GUARD_LOOK_ALL);
	cr_assert_eq(guard_look_needed(g, TABLE, 100, 103, true),
		     GUARD_LOOK_REGISTERED);
	memset(table, 0, sizeof(table));
}

/* Skipped and read nodes mixed across words: only the nodes whose stamp
 * moved are read, and a change among them is found; a change only the
 * table's stamp shows waits for a look that does not skip. */
Test(guard, a_look_skips_by_stamp_node_by_node)
{
	size_t moved = 0;

	memset(stamps, 0, sizeof(stamps));
	cr_assert_eq(guard_look_stamps(g, TABLE, NULL, extra_of, stamp_at, NULL,
				       200, false),
		     TABLE);
	for (size_t i = 0; i < TABLE; i += 3) {
		stamps[i] = 250;
		moved++;
	}
	table[999] = "{\"ok\":1}"; /* 999 = 3 x 333: its stamp moved */
	table[998] = "{\"ok\":1}"; /* unstamped: not seen by this look */
	cr_assert_eq(look_at(NULL, 300, true), 1);
	cr_assert_eq((size_t)reads, moved);
	cr_assert_eq(look_at(NULL, 301, false), 1, "node 998 read now");
	cr_assert_eq(reads, TABLE);
	memset(table, 0, sizeof(table));
}
