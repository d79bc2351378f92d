/*
 * test_carrier.c - the feature names an earlier release's feature
 * carrier wrote (slurm/carrier.h), as the guard's look reads them to give
 * them back: the names, the one ANDed last into a job's constraint, and
 * the user's own part of it.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "carrier.h"
#include "leakcheck.h"
#include "table.h"

LEAK_CHECKED(features);

#define F "xc_0123456789ab" /* a feature of the plugin's */
#define G "xc_ba9876543210" /* another */

Test(features, name_is_the_hash_top_48_bits)
{
	char name[SX_FEATURE_LEN + 1];

	sx_feature_name(0x0123456789abcdefULL, name);
	cr_assert_str_eq(name, F);
	sx_feature_name(0, name);
	cr_assert_str_eq(name, "xc_000000000000");
	sx_feature_name(~0ULL, name);
	cr_assert_str_eq(name, "xc_ffffffffffff");
	cr_assert(sx_feature_is_ours(name, strlen(name)));
}

struct ours_row {
	const char *token;
	bool ours;
};

static const struct ours_row ours_rows[] = {
	{ F, true },
	{ "xc_ffffffffffff", true },
	{ "xc_0123456789a", false },   /* one digit short */
	{ "xc_0123456789abc", false }, /* one too many */
	{ "xc_0123456789AB", false },  /* Slurm compares names exactly */
	{ "xc_0123456789ag", false },
	{ "XC_0123456789ab", false },
	{ "yc_0123456789ab", false },
	{ "gpu", false },
	{ "", false },
};

ROW_TEST(features, is_ours, struct ours_row, ours_rows)
{
	cr_assert_eq(sx_feature_is_ours(row->token, strlen(row->token)),
		     row->ours, "%s", row->token);
}

struct own_row {
	const char *features, *own;
};

static const struct own_row own_rows[] = {
	{ NULL, "" },
	{ "", "" },
	{ "gpu", "gpu" },
	{ F, "" },
	{ "gpu&" F, "gpu" },
	{ "gpu," F, "gpu" },
	/* only the job's feature at the end, after an AND, is the plugin's */
	{ F "&gpu", F "&gpu" },
	{ "gpu&" G, "gpu&" G }, /* another request's: the user's own copy */
	{ G, G },
	{ "gpu|" F, "gpu|" F },
	{ "gpu&" F "x", "gpu&" F "x" },
	{ "gpuxc_0123456789ab", "gpuxc_0123456789ab" },
};

ROW_TEST(features, own, struct own_row, own_rows)
{
	char *own = sx_constraint_own(row->features, F);

	cr_assert_str_eq(own, row->own, "%s",
			 row->features ? row->features : "(null)");
	free(own);
}

/* The plugin's feature a job goes by is the last name of its constraint,
 * when that is of the plugin's shape; one elsewhere is the user's. */
Test(features, the_last_name_is_ours)
{
	char f[SX_FEATURE_LEN + 1], got[SX_FEATURE_LEN + 1], c[64];

	sx_feature_name(0x0123456789abcdefULL, f);
	cr_assert(sx_constraint_last_ours(f, got));
	cr_assert_str_eq(got, f);
	snprintf(c, sizeof(c), "[a|b]&%s", f);
	cr_assert(sx_constraint_last_ours(c, got));
	cr_assert_str_eq(got, f);
	snprintf(c, sizeof(c), "%s&ib", f);
	cr_assert_not(sx_constraint_last_ours(c, got), "ours, not last");
	snprintf(c, sizeof(c), "ib&x%s", f);
	cr_assert_not(sx_constraint_last_ours(c, got), "not a whole name");
	cr_assert_not(sx_constraint_last_ours(NULL, got));
	cr_assert_not(sx_constraint_last_ours("", got));
}
