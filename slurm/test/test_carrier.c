/*
 * test_carrier.c - Slurm's feature strings as the feature carrier writes
 * them (slurm/carrier.h): the plugin's feature names, a job's constraint
 * with the feature ANDed in and the user's own part read back, and a
 * node's feature list with the site's own features kept.
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

struct with_row {
	const char *user;
	enum sx_constraint_why why;
	const char *out; /* and what sx_constraint_own() reads back: user */
};

static const struct with_row with_rows[] = {
	{ NULL, SX_CONSTRAINT_OK, F },
	{ "", SX_CONSTRAINT_OK, F },
	{ "gpu", SX_CONSTRAINT_OK, "gpu&" F },
	/* left to right, no precedence: (a|b)&F */
	{ "a|b", SX_CONSTRAINT_OK, "a|b&" F },
	{ "a&(b|c)", SX_CONSTRAINT_OK, "a&(b|c)&" F },
	{ "(a|b)", SX_CONSTRAINT_OK, "(a|b)&" F },
	/* matching OR, no counts: the whole is ANDed */
	{ "[a|b]", SX_CONSTRAINT_OK, "[a|b]&" F },
	{ "a,b", SX_CONSTRAINT_OK, "a,b&" F },
	/* a user's copy of another request's feature stays theirs */
	{ G "&gpu", SX_CONSTRAINT_OK, G "&gpu&" F },
	/* counts: Slurm selects counted nodes from their own terms only */
	{ "[a*2&b*1]", SX_CONSTRAINT_COUNTS, NULL },
	{ "a*2", SX_CONSTRAINT_COUNTS, NULL },
	/* a dangling operator, which Slurm ignores at the end: "a&&F" and
	 * "a|&F" it would refuse */
	{ "a&", SX_CONSTRAINT_DANGLING, NULL },
	{ "a|", SX_CONSTRAINT_DANGLING, NULL },
	{ "a,", SX_CONSTRAINT_DANGLING, NULL },
};

ROW_TEST(features, with, struct with_row, with_rows)
{
	char *out = (char *)"untouched", *own;

	cr_assert_eq(sx_constraint_with(row->user, F, &out), row->why, "%s",
		     row->user ? row->user : "(null)");
	if (!row->out) {
		cr_assert_null(out);
		return;
	}
	cr_assert_str_eq(out, row->out);
	cr_assert(sx_constraint_names_ours(out));
	own = sx_constraint_own(out, F);
	cr_assert_str_eq(own, row->user ? row->user : "");
	free(own);
	free(out);
}

Test(features, too_long)
{
	char user[SX_CONSTRAINT_MAX + 1], *out = NULL;
	size_t fit = SX_CONSTRAINT_MAX - 1 - SX_FEATURE_LEN;

	memset(user, 'a', fit);
	user[fit] = '\0';
	cr_assert_eq(sx_constraint_with(user, F, &out), SX_CONSTRAINT_OK);
	cr_assert_eq(strlen(out), SX_CONSTRAINT_MAX);
	free(out);
	user[fit] = 'a';
	user[fit + 1] = '\0';
	cr_assert_eq(sx_constraint_with(user, F, &out), SX_CONSTRAINT_TOO_LONG);
	cr_assert_null(out);
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

struct names_row {
	const char *features;
	bool ours;
};

static const struct names_row names_rows[] = {
	{ NULL, false },
	{ "gpu&big", false },
	{ F, true },
	{ "(a|" F ")*2", true },
	{ "[a|" F "]", true },
	{ "gpu" F, false }, /* a longer name of the site's */
	{ F "0", false },
};

ROW_TEST(features, names_ours, struct names_row, names_rows)
{
	cr_assert_eq(sx_constraint_names_ours(row->features), row->ours, "%s",
		     row->features ? row->features : "(null)");
}

struct node_row {
	const char *current;
	const char *ours[3];
	size_t n;
	const char *out;
};

static const struct node_row node_rows[] = {
	{ NULL, { 0 }, 0, "" },
	{ "", { F }, 1, F },
	{ "gpu,big", { 0 }, 0, "gpu,big" },
	{ "gpu,big", { F, G }, 2, "gpu,big," F "," G },
	/* the plugin's old features go, the site's stay in their order */
	{ "gpu," G ",big", { F }, 1, "gpu,big," F },
	{ G "," F, { 0 }, 0, "" },
	{ "gpu,,big,", { 0 }, 0, "gpu,big" },
	{ "gpu", { "", F, "" }, 3, "gpu," F }, /* empty names skipped */
};

ROW_TEST(features, node, struct node_row, node_rows)
{
	char *out = sx_node_features(row->current, row->ours, row->n);

	cr_assert_str_eq(out, row->out);
	free(out);
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
