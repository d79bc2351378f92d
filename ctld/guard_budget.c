/*
 * guard_budget.c - what the guard's counts of the preferences' tiers may
 * take a second, and each user's share of it (guard.h, doc/guard.md
 * "Preferences there"), and the tier a placement applies.
 */
#include <string.h>

#include "guard_private.h"

/* The budget of second `now`, whole again at a new one. */
static void budget_of(struct guard *g, long long now)
{
	if (!g->budget_set || now != g->budget_at) {
		g->budget = GUARD_TIER_BUDGET;
		g->budget_at = now;
		g->budget_set = true;
		memset(g->users, 0, sizeof(g->users));
	}
}

/* User `uid`'s slot in this second: its own, a free one after it, or,
 * every slot taken by others, the one it hashes to (shared). */
static size_t user_slot(const struct guard *g, uint32_t uid)
{
	size_t at = uid % GUARD_TIER_USERS;

	for (size_t k = 0; k < GUARD_TIER_USERS; k++) {
		size_t i = (at + k) % GUARD_TIER_USERS;

		if (!g->users[i].spent || g->users[i].uid == uid)
			return i;
	}
	return at;
}

size_t guard_tiers_allowance(struct guard *g, uint32_t uid, long long now)
{
	size_t spent;

	budget_of(g, now);
	spent = g->users[user_slot(g, uid)].spent;
	if (spent >= GUARD_TIER_USER_SHARE)
		return 0;
	return GUARD_TIER_USER_SHARE - spent < g->budget
		       ? GUARD_TIER_USER_SHARE - spent
		       : g->budget;
}

void guard_tiers_spend(struct guard *g, uint32_t uid, long long now,
		       size_t spent)
{
	size_t i;

	budget_of(g, now);
	if (!spent)
		return;
	i = user_slot(g, uid);
	/* (a slot is taken for the second: a uid sharing it never takes it
	 * from its owner, so that none gets past a share) */
	if (!g->users[i].spent)
		g->users[i].uid = uid;
	g->users[i].spent += spent;
	g->budget -= spent < g->budget ? spent : g->budget;
}

size_t guard_tiers_left(struct guard *g, long long now)
{
	budget_of(g, now);
	return g->budget;
}

bool guard_tiers_compare(struct guard *g, size_t allowed, size_t more,
			 long long now, size_t *budget, size_t *compared)
{
	*compared = 0;
	if (more <= *budget) {
		*budget -= more;
	} else if (allowed == GUARD_TIER_USER_SHARE &&
		   more <= guard_tiers_left(g, now) / 2) {
		/* past the share, once a second for a user who took none
		 * of it yet, and never more than half of what is left */
		*budget = 0;
	} else {
		return false;
	}
	*compared = more;
	return true;
}

unsigned guard_tier_applied(bool counted, unsigned picked, unsigned carried,
			    bool by_list)
{
	if (!counted)
		return carried;
	if (by_list && carried && (!picked || picked > carried))
		return carried;
	return picked;
}
