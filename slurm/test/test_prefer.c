/*
 * test_prefer.c - the preferences' rule on its own (slurm/prefer.h): when
 * a wait lasts, which tier prefer_pick_tiers() (the one picker, the
 * guard's) picks and until when, and the bounds on what is read of a
 * job_desc's SPANK environment.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>

#include "carrier.h"
#include "prefer.h"
#include "xc.h"

/* A state with request `request` and one tier "x=1", wait `wait` (s). */
static struct sx_job_state one_tier(long wait)
{
	static char *tier[] = { "x=1" };
	struct sx_job_state st = { .request = "gpu=true",
				   .prefer = tier,
				   .n_prefer = 1,
				   .wait = wait };

	return st;
}

Test(prefer, the_wait_lasts_from_eligible_time)
{
	struct sx_job_state st = one_tier(600);

	cr_assert(prefer_waiting(&st, 1000, 1599));
	cr_assert_not(prefer_waiting(&st, 1000, 1600));
	cr_assert(prefer_waiting(&st, 0, 1000000), "held: still waiting");
}

/* Each tier's count for prefer_pick_tiers(): rc (1 counted, 0 narrows
 * nothing, -1 out of memory), its nodes and free nodes; the calls made. */
struct counts {
	int rc[SX_MAX_PREFER];
	size_t nodes[SX_MAX_PREFER], free_nodes[SX_MAX_PREFER];
	unsigned calls;
};

static int count_table(void *ctx, unsigned tier, size_t *n, size_t *n_free)
{
	struct counts *c = ctx;

	c->calls++;
	*n = c->nodes[tier];
	*n_free = c->free_nodes[tier];
	return c->rc[tier];
}

/* A raw RPC may give a begin_time near the end of time: the wait's end
 * saturates there rather than wrapping into the past (which ended the
 * wait at once and dropped the job's preferences). */
Test(prefer, a_wait_from_the_end_of_time_does_not_wrap)
{
	struct sx_job_state st = one_tier(PREFER_MAX_WAIT);
	struct counts c = { .rc = { 1 }, .nodes = { 2 }, .free_nodes = { 2 } };
	struct prefer_pick pick;
	time_t late = PREFER_TIME_MAX - 5;

	cr_assert(prefer_waiting(&st, late, late + 1));
	cr_assert_eq(
		prefer_pick_tiers(&st, late, late + 1, count_table, &c, &pick),
		0);
	cr_assert_eq(pick.tier, 1);
	cr_assert_eq(pick.until, PREFER_TIME_MAX);
}

/* A state with request "r" and three tiers, wait `wait` (s). */
static struct sx_job_state three_tiers(long wait)
{
	static char *tier[] = { "a=1", "b=1", "c=1" };
	struct sx_job_state st = {
		.request = "r=1", .prefer = tier, .n_prefer = 3, .wait = wait
	};

	return st;
}

/* The rule with a wait: the strongest tier with a usable node, free or
 * not, until EligibleTime + the wait; a tier that narrows nothing is
 * passed over; the wait over, the request alone and no tier counted. */
Test(prefer, with_a_wait_the_strongest_tier_with_a_node)
{
	struct sx_job_state st = three_tiers(600);
	struct counts c = { .rc = { 1, 0, 1 }, .nodes = { 0, 5, 2 } };
	struct prefer_pick pick;

	cr_assert_eq(prefer_pick_tiers(&st, 1000, 1100, count_table, &c, &pick),
		     0);
	cr_assert_eq(pick.tier, 3, "tier 1 has no node, tier 2 is invalid");
	cr_assert_eq(pick.nodes, 2);
	cr_assert_eq(pick.until, 1600);
	cr_assert(pick.waiting);
	cr_assert_eq(c.calls, 3);

	c = (struct counts){ .rc = { 1, 1, 1 }, .nodes = { 1, 5, 2 } };
	cr_assert_eq(prefer_pick_tiers(&st, 1000, 1100, count_table, &c, &pick),
		     0);
	cr_assert_eq(pick.tier, 1, "no free node needed with a wait");
	cr_assert_eq(c.calls, 1, "the weaker tiers are not counted");

	c = (struct counts){ .rc = { 1, 1, 1 }, .nodes = { 0, 0, 0 } };
	cr_assert_eq(prefer_pick_tiers(&st, 1000, 1100, count_table, &c, &pick),
		     0);
	cr_assert_eq(pick.tier, 0, "no tier has a node: the request alone");
	cr_assert(pick.waiting);

	c = (struct counts){ .rc = { 1, 1, 1 }, .nodes = { 4, 4, 4 } };
	cr_assert_eq(prefer_pick_tiers(&st, 1000, 1600, count_table, &c, &pick),
		     0);
	cr_assert_eq(pick.tier, 0, "the wait is over");
	cr_assert_not(pick.waiting);
	cr_assert_eq(c.calls, 0);

	cr_assert_eq(
		prefer_pick_tiers(&st, 0, 99999999, count_table, &c, &pick), 0);
	cr_assert_eq(pick.tier, 1, "not eligible yet: the wait has not begun");
	cr_assert_eq(pick.until, 0);

	c = (struct counts){ .rc = { -1, 1, 1 }, .nodes = { 4, 4, 4 } };
	cr_assert_eq(prefer_pick_tiers(&st, 1000, 1100, count_table, &c, &pick),
		     -1);
}

/* The rule with no wait: a tier counts while one of its nodes is free,
 * for PREFER_NOW_S from EligibleTime, and a job not eligible yet is not
 * narrowed. */
Test(prefer, with_no_wait_a_free_node_for_a_short_while)
{
	struct sx_job_state st = three_tiers(0);
	struct counts c = { .rc = { 1, 1, 1 },
			    .nodes = { 3, 2, 1 },
			    .free_nodes = { 0, 1, 1 } };
	struct prefer_pick pick;

	cr_assert_eq(prefer_pick_tiers(&st, 1000, 1000 + PREFER_NOW_S - 1,
				       count_table, &c, &pick),
		     0);
	cr_assert_eq(pick.tier, 2, "tier 1 has nodes, none of them free");
	cr_assert_eq(pick.nodes, 2, "its nodes, free or not");
	cr_assert_eq(pick.until, 1000 + PREFER_NOW_S);

	cr_assert_eq(prefer_pick_tiers(&st, 1000, 1000 + PREFER_NOW_S,
				       count_table, &c, &pick),
		     0);
	cr_assert_eq(pick.tier, 0);
	cr_assert_not(pick.waiting);

	cr_assert_eq(prefer_pick_tiers(&st, 0, 1000, count_table, &c, &pick),
		     0);
	cr_assert_eq(pick.tier, 0, "held or dependent: not narrowed");
	cr_assert_not(pick.waiting);
}

/* A job without preferences, or without a request, is never narrowed and
 * nothing is counted. */
Test(prefer, no_tier_no_pick)
{
	struct sx_job_state st = three_tiers(600);
	struct counts c = { .rc = { 1, 1, 1 }, .nodes = { 1, 1, 1 } };
	struct prefer_pick pick;

	st.n_prefer = 0;
	cr_assert_eq(prefer_pick_tiers(&st, 1000, 1100, count_table, &c, &pick),
		     0);
	cr_assert_eq(pick.tier, 0);
	st = three_tiers(600);
	st.request = NULL;
	cr_assert_eq(prefer_pick_tiers(&st, 1000, 1100, count_table, &c, &pick),
		     0);
	cr_assert_eq(pick.tier, 0);
	cr_assert_eq(c.calls, 0);
}

/* The preferences' variable holding `n` bytes of tiers (one tier ended
 * by PREFER_SEP), malloc'd. */
static char *tiers_of(size_t n)
{
	char *big = malloc(sizeof(PREFER_VAR) + n);

	cr_assert_not_null(big);
	memset(big, 'a', sizeof(PREFER_VAR) + n);
	memcpy(big, PREFER_VAR, strlen(PREFER_VAR));
	big[sizeof(PREFER_VAR) + n - 2] = PREFER_SEP;
	big[sizeof(PREFER_VAR) + n - 1] = '\0';
	return big;
}

/* An owner's change longer than PREFER_TIERS_MAX is refused before
 * anything of it is copied (Slurm unpacks strings up to 1 GiB), as is a
 * wait longer than a number of seconds. */
Test(prefer, a_change_past_the_bound_is_refused_uncopied)
{
	char *env[1] = { tiers_of(PREFER_TIERS_MAX(16) + 1) };
	struct prefer_change c;
	char why[128];

	cr_assert_eq(prefer_change_from_env(env, 1, 16, &c, why, sizeof(why)),
		     2);
	cr_assert_null(c.tiers);
	cr_assert_not_null(strstr(why, "longer than"), "%s", why);
	free(env[0]);
	env[0] = PREFER_WAIT_VAR "000000000000000000000000000000000060";
	cr_assert_eq(prefer_change_from_env(env, 1, 16, &c, why, sizeof(why)),
		     2);
	env[0] = PREFER_WAIT_VAR "60";
	cr_assert_eq(prefer_change_from_env(env, 1, 16, &c, why, sizeof(why)),
		     1);
	cr_assert_eq(c.wait, 60);
}

/* The tiers at submission are bounded as a change's are: past
 * PREFER_TIERS_MAX of the request limit, refused uncopied. */
Test(prefer, tiers_past_the_bound_are_refused)
{
	size_t n = PREFER_TIERS_MAX(16) + 1;
	char *big = tiers_of(n), *env[1] = { big };
	struct sx_job_state st = { 0 };
	char why[128];

	cr_assert_eq(prefer_from_env(env, 1, 16, &st, why, sizeof(why)), 1);
	cr_assert_eq(st.n_prefer, 0);
	cr_assert_not_null(strstr(why, "longer than 8 preferences of 16"), "%s",
			   why);
	big[sizeof(PREFER_VAR) + n - 3] = PREFER_SEP; /* one byte less */
	big[sizeof(PREFER_VAR) + n - 2] = '\0';
	cr_assert_eq(
		prefer_from_env(env, 1, 16, &st, why, sizeof(why)), 0,
		"within the bound: read (its tier, too long for a request, "
		"is the caller's to refuse)");
	cr_assert_eq(st.n_prefer, 1);
	for (unsigned i = 0; i < st.n_prefer; i++)
		free(st.prefer[i]);
	free(st.prefer);
	free(big);
}

/* Only the first PREFER_ENV_MAX_ENTRIES entries of the SPANK environment
 * are read: an RPC of millions of entries costs a bounded look-up, under
 * slurmctld's job write lock, for each record of an update. */
Test(prefer, the_entries_read_are_bounded)
{
	static char *env[PREFER_ENV_MAX_ENTRIES + 1];
	struct prefer_change c;
	char why[128];

	for (size_t i = 0; i < PREFER_ENV_MAX_ENTRIES; i++)
		env[i] = "OTHER=1";
	env[PREFER_ENV_MAX_ENTRIES] = PREFER_WAIT_VAR "60";
	cr_assert_null(prefer_env_value(env, PREFER_ENV_MAX_ENTRIES + 1,
					PREFER_WAIT_VAR));
	cr_assert_eq(prefer_change_from_env(env, PREFER_ENV_MAX_ENTRIES + 1, 16,
					    &c, why, sizeof(why)),
		     0, "past the bound: no change");
	env[PREFER_ENV_MAX_ENTRIES - 1] = PREFER_WAIT_VAR "60";
	cr_assert_str_eq(prefer_env_value(env, PREFER_ENV_MAX_ENTRIES + 1,
					  PREFER_WAIT_VAR),
			 "60");
}

/* The feature of canonical request text `canonical`. */
static void feature_of(const char *canonical, char name[SX_FEATURE_LEN + 1])
{
	sx_feature_name(xc_text_hash(canonical), name);
}

Test(prefer, the_thread_carried_a_job_by_its_request_or_a_tier_feature)
{
	static char *tiers[] = { "x=1", "y=2" };
	struct sx_job_state st = { .request = "gpu=true",
				   .prefer = tiers,
				   .n_prefer = 2 };
	char name[SX_FEATURE_LEN + 1];

	/* the request's feature, of its canonical text, however written */
	feature_of("gpu=true", name);
	cr_assert_eq(prefer_carried_by(&st, NULL, name), 1);
	st.request = "(gpu=true)";
	cr_assert_eq(prefer_carried_by(&st, NULL, name), 1);
	/* each tier's "(R)&(P)" */
	feature_of("gpu=true&x=1", name);
	cr_assert_eq(prefer_carried_by(&st, NULL, name), 1);
	feature_of("gpu=true&y=2", name);
	cr_assert_eq(prefer_carried_by(&st, NULL, name), 1);
	/* a name of the plugin's shape the user chose, another request's */
	cr_assert_eq(prefer_carried_by(&st, NULL, "xc_0123456789ab"), 0);
	feature_of("gpu=false", name);
	cr_assert_eq(prefer_carried_by(&st, NULL, name), 0);
	/* a tier not the job's; no tier at all */
	feature_of("gpu=true&z=3", name);
	cr_assert_eq(prefer_carried_by(&st, NULL, name), 0);
	st.n_prefer = 0;
	feature_of("gpu=true&x=1", name);
	cr_assert_eq(prefer_carried_by(&st, NULL, name), 0);
	/* no request, or one no longer valid: none */
	st.request = NULL;
	cr_assert_eq(prefer_carried_by(&st, NULL, name), 0);
	st.request = "gpu=";
	feature_of("gpu=", name);
	cr_assert_eq(prefer_carried_by(&st, NULL, name), 0);
}
