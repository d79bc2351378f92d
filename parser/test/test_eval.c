/*
 * test_eval.c - evaluation against a node's Extra (doc/language.md §2 to §5): the worked
 * example of the Slurm page and doc/language.md §5, then one row per type
 * rule of doc/language.md §3.
 */
#include <criterion/criterion.h>
#include "cases.h"
#include "table.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xc.h"
#include "leakcheck.h"

LEAK_CHECKED(eval);

ROW_TEST(eval, rows, struct eval_row, eval_rows)
{
	xc_error_t err;
	xc_expr_t *e = xc_parse(row->request, NULL, &err);
	xc_extra_t *extra;

	cr_assert_not_null(e, "'%s': %s", row->request, err.message);
	extra = xc_extra_load(row->extra, row->extra ? strlen(row->extra) : 0,
			      NULL, NULL, NULL);
	cr_assert_eq(xc_match(e, extra), eval_row_match(row), "%s against %s",
		     row->request, row->extra ? row->extra : "(unset)");
	xc_extra_destroy(extra);
	xc_expr_destroy(e);
}

/* The columns of a compiled table (xc_nodes_compile) agree with xc_match
 * on every row, the row's node alone in its table. */
ROW_TEST(eval, rows_by_columns, struct eval_row, eval_rows)
{
	xc_expr_t *e = xc_parse(row->request, NULL, NULL);
	xc_nodes_t *t = xc_nodes_create(NULL);
	bool matched[1];

	cr_assert_eq(xc_nodes_add(t, "n1", row->extra, NULL, NULL), 0);
	cr_assert_eq(xc_nodes_compile(t, NULL), 0);
	cr_assert(xc_nodes_compiled(t));
	cr_assert_eq(xc_nodes_match(t, e, matched), eval_row_match(row) ? 1 : 0,
		     "%s against %s", row->request,
		     row->extra ? row->extra : "(unset)");
	xc_nodes_destroy(t);
	xc_expr_destroy(e);
}

/* The parsed Extra of every row's node, by xc_extra_load (the table
 * keeps none once compiled). */
static xc_extra_t **row_extras(void)
{
	size_t n = ROWS(eval_rows);
	xc_extra_t **x = calloc(n, sizeof(*x));

	cr_assert_not_null(x);
	for (size_t i = 0; i < n; i++)
		x[i] = xc_extra_load(
			eval_rows[i].extra,
			eval_rows[i].extra ? strlen(eval_rows[i].extra) : 0,
			NULL, NULL, NULL);
	return x;
}

static void free_extras(xc_extra_t **x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		xc_extra_destroy(x[i]);
	free(x);
}

/* Every row's request against table `t`, whose node i has the Extra of
 * row which[i]: the table agrees with xc_match on each; returns the
 * pairs checked. */
static size_t check_all(const xc_nodes_t *t, const size_t *which,
			xc_extra_t *const *extras)
{
	size_t n = xc_nodes_count(t), checked = 0;
	bool *matched = calloc(n, sizeof(*matched));

	cr_assert_not_null(matched);
	for (size_t r = 0; r < ROWS(eval_rows); r++) {
		xc_expr_t *e = xc_parse(eval_rows[r].request, NULL, NULL);
		size_t count = xc_nodes_match(t, e, matched), want = 0;

		for (size_t i = 0; i < n; i++) {
			bool m = xc_match(e, extras[which[i]]);

			cr_assert_eq(matched[i], m,
				     "'%s' against %s (node %zu)",
				     eval_rows[r].request,
				     eval_rows[which[i]].extra
					     ? eval_rows[which[i]].extra
					     : "(unset)",
				     i);
			want += m;
			checked++;
		}
		cr_assert_eq(count, want);
		xc_expr_destroy(e);
	}
	free(matched);
	return checked;
}

/* One table with the node of every row (so each key's column mixes types
 * and many strings), every row's request: the columns agree with xc_match
 * for every request and every node. */
Test(eval, every_request_every_node_by_columns)
{
	size_t n = ROWS(eval_rows), *which = calloc(n, sizeof(*which));
	xc_extra_t **extras = row_extras();
	xc_nodes_t *t = xc_nodes_create(NULL);

	for (size_t i = 0; i < n; i++) {
		cr_assert_geq(
			xc_nodes_add(t, "n", eval_rows[i].extra, NULL, NULL),
			0);
		which[i] = i;
	}
	cr_assert_eq(xc_nodes_compile(t, NULL), 0);
	cr_assert_null(xc_nodes_extra(t, 0), "compiled: no parsed Extra kept");
	cr_assert_eq(check_all(t, which, extras), n * n);
	free(which);
	free_extras(extras, n);
	xc_nodes_destroy(t);
}

/* A compiled table changed node by node (xc_nodes_update) stays exact:
 * after each of many seeded rounds, each changing some nodes to another
 * row's Extra (so values come and go from each column, and keys appear
 * and vanish), every request agrees with xc_match on every node, and the
 * table has the digest of one built anew from the same data. */
Test(eval, columns_updated_in_place)
{
	size_t n = ROWS(eval_rows), *which = calloc(n, sizeof(*which));
	xc_extra_t **extras = row_extras();
	xc_nodes_t *t = xc_nodes_create(NULL);
	unsigned seed = 12345;
	size_t changed = 0, same = 0;

	for (size_t i = 0; i < n; i++) {
		which[i] = (i * 7) % n;
		cr_assert_geq(xc_nodes_add(t, "n", eval_rows[which[i]].extra,
					   NULL, NULL),
			      0);
	}
	cr_assert_eq(xc_nodes_compile(t, NULL), 0);
	for (int round = 0; round < 12; round++) {
		xc_nodes_t *fresh = xc_nodes_create(NULL);
		size_t k = round == 0 ? 1 : 1 + (size_t)rand_r(&seed) % n;

		for (size_t j = 0; j < k; j++) {
			size_t i = (size_t)rand_r(&seed) % n;
			size_t to = (size_t)rand_r(&seed) % n;
			bool differs = !xc_nodes_unchanged(t, i, "n",
							   eval_rows[to].extra);
			int rc = xc_nodes_update(t, i, eval_rows[to].extra,
						 NULL);

			cr_assert_eq(rc, differs ? 1 : 0);
			changed += rc == 1;
			same += rc == 0;
			which[i] = to;
			cr_assert(xc_nodes_unchanged(t, i, "n",
						     eval_rows[to].extra));
			{
				xc_extra_state_t st;
				const char *text = eval_rows[to].extra;

				xc_extra_destroy(xc_extra_load(
					text, text ? strlen(text) : 0, NULL,
					&st, NULL));
				cr_assert_eq(xc_nodes_state(t, i), st);
			}
		}
		check_all(t, which, extras);
		for (size_t i = 0; i < n; i++)
			cr_assert_geq(xc_nodes_add(fresh, "n",
						   eval_rows[which[i]].extra,
						   NULL, NULL),
				      0);
		cr_assert_eq(xc_nodes_digest(t), xc_nodes_digest(fresh),
			     "round %d", round);
		xc_nodes_destroy(fresh);
	}
	cr_assert_gt(changed, n, "the rounds changed many nodes");
	cr_assert_gt(same, 0, "and set some to the text they had");
	cr_assert_eq(xc_nodes_update(t, n, "{}", NULL), -1);
	free(which);
	free_extras(extras, n);
	xc_nodes_destroy(t);
}

/* Values that leave no gap between their codes: node i holds 1 + 2^-i
 * (each new one between the last two), then the same with strings "a",
 * "aa", ..., inserted before each other; the column respaces its codes
 * and stays exact, checked against the tree evaluator on thresholds
 * between all the values. */
Test(eval, columns_respace)
{
	enum {
		N = 70
	};
	xc_nodes_t *t = xc_nodes_create(NULL);
	xc_extra_t *x[N];
	bool matched[N];
	char text[160], req[200];

	for (int i = 0; i < N; i++)
		cr_assert_eq(xc_nodes_add(t, "n", NULL, NULL, NULL), 0);
	cr_assert_eq(xc_nodes_compile(t, NULL), 0);
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < N; i++) {
			if (pass == 0) {
				snprintf(text, sizeof(text),
					 "{\"v\": %.17g, \"w\": 1}",
					 1 + ldexp(1, -i / 2) *
							 (i % 2 ? 1 : -1));
			} else {
				int len = snprintf(text, sizeof(text),
						   "{\"v\": \"");

				for (int c = 0; c < N - i; c++)
					text[len++] = 'a';
				snprintf(text + len, sizeof(text) - (size_t)len,
					 "\"}");
			}
			cr_assert_eq(xc_nodes_update(t, (size_t)i, text, NULL),
				     1);
			x[i] = xc_extra_load(text, strlen(text), NULL, NULL,
					     NULL);
		}
		for (int i = 0; i < N; i++) {
			const char *ops[] = { "<", "<=", "=", "!=", ">=", ">" };

			for (int o = 0; o < 6; o++) {
				xc_expr_t *e;

				if (pass == 0)
					snprintf(req, sizeof(req), "v%s%.17g",
						 ops[o],
						 1 + ldexp(1, -i / 2) *
								 (i % 2 ? 1
									: -1));
				else
					snprintf(
						req, sizeof(req), "v%s%.*s",
						ops[o], N - i,
						"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
				e = xc_parse(req, NULL, NULL);
				cr_assert_not_null(e, "%s", req);
				xc_nodes_match(t, e, matched);
				for (int j = 0; j < N; j++)
					cr_assert_eq(matched[j],
						     xc_match(e, x[j]),
						     "%s on node %d", req, j);
				xc_expr_destroy(e);
			}
		}
		for (int i = 0; i < N; i++)
			xc_extra_destroy(x[i]);
	}
	xc_nodes_destroy(t);
}

Test(eval, extra_states)
{
	xc_limits_t small = { .max_extra_length = 8 };
	xc_extra_state_t st;
	xc_extra_t *v;
	char *deep;

	cr_assert_null(xc_extra_load(NULL, 0, NULL, &st, NULL));
	cr_assert_eq(st, XC_EXTRA_UNSET);
	cr_assert_null(xc_extra_load("", 0, NULL, &st, NULL));
	cr_assert_eq(st, XC_EXTRA_UNSET);
	cr_assert_null(xc_extra_load("{", 1, NULL, &st, NULL));
	cr_assert_eq(st, XC_EXTRA_INVALID);
	cr_assert_null(xc_extra_load("[1]", 3, NULL, &st, NULL));
	cr_assert_eq(st, XC_EXTRA_NOT_OBJECT);
	cr_assert_null(xc_extra_load("{\"a\":12345}", 11, &small, &st, NULL));
	cr_assert_eq(st, XC_EXTRA_TOO_LONG);
	v = xc_extra_load("{\"a\":1}", 7, &small, &st, NULL);
	cr_assert_not_null(v);
	cr_assert_eq(st, XC_EXTRA_OBJECT);
	xc_extra_destroy(v);
	/* 10,000 levels deep: json-c stops at its depth limit */
	deep = malloc(20010);
	memcpy(deep, "{\"a\":", 5);
	memset(deep + 5, '[', 10000);
	memset(deep + 10005, ']', 10000);
	memcpy(deep + 20005, "}", 2);
	cr_assert_null(xc_extra_load(
		deep, strlen(deep),
		&(xc_limits_t){ .max_extra_length = 1 << 20 }, &st, NULL));
	cr_assert_eq(st, XC_EXTRA_TOO_DEEP);
	free(deep);
	cr_assert_str_eq(xc_extra_state_text(XC_EXTRA_INVALID),
			 "not valid JSON");
}

/* `{"a":[[...]]}` nested `depth` brackets deep in all. */
static char *nested_extra(unsigned depth)
{
	char *s = malloc(2 * depth + 8);

	strcpy(s, "{\"a\":");
	memset(s + 5, '[', depth - 1);
	memset(s + 5 + depth - 1, ']', depth - 1);
	strcpy(s + 5 + 2 * (depth - 1), "}");
	return s;
}

Test(eval, extra_limits_at_and_past)
{
	char buf[80], *at = nested_extra(XC_DEFAULT_MAX_EXTRA_DEPTH),
		      *past = nested_extra(XC_DEFAULT_MAX_EXTRA_DEPTH + 1);
	char *text = malloc(XC_DEFAULT_MAX_EXTRA_LENGTH + 2);
	xc_extra_state_t st;
	xc_extra_t *v;

	v = xc_extra_load(at, strlen(at), NULL, &st, NULL);
	cr_assert_not_null(
		v, "31 containers holding a scalar are within json-c's depth");
	xc_extra_destroy(v);
	cr_assert_null(xc_extra_load(past, strlen(past), NULL, &st, NULL));
	cr_assert_eq(st, XC_EXTRA_TOO_DEEP);
	cr_assert_str_eq(xc_extra_state_explain(st, NULL, buf, sizeof(buf)),
			 "nested deeper than the limit of 32");
	/* brackets inside strings do not count */
	{
		const char *t = "{\"a\":\"[[[[[[\\\"[[[\"}";

		v = xc_extra_load(t, strlen(t),
				  &(xc_limits_t){ .max_extra_depth = 3 }, &st,
				  NULL);
	}
	cr_assert_not_null(v);
	xc_extra_destroy(v);

	memset(text, ' ', XC_DEFAULT_MAX_EXTRA_LENGTH + 1);
	memcpy(text, "{\"a\":1}", 7);
	v = xc_extra_load(text, XC_DEFAULT_MAX_EXTRA_LENGTH, NULL, &st, NULL);
	cr_assert_not_null(v, "65536 bytes is within the default");
	xc_extra_destroy(v);
	cr_assert_null(xc_extra_load(text, XC_DEFAULT_MAX_EXTRA_LENGTH + 1,
				     NULL, &st, NULL));
	cr_assert_eq(st, XC_EXTRA_TOO_LONG);
	cr_assert_str_eq(xc_extra_state_explain(st, NULL, buf, sizeof(buf)),
			 "longer than the limit of 65536 bytes");
	free(text);
	free(at);
	free(past);
}

Test(eval, null_arguments)
{
	xc_extra_t *o = xc_extra_load("{}", 2, NULL, NULL, NULL);
	xc_expr_t *e = xc_parse("a=1", NULL, NULL);

	cr_assert_not_null(o);
	cr_assert_eq(xc_extra_count(o), 0);
	cr_assert_not(xc_match(NULL, o));
	cr_assert_not(xc_match(e, NULL));
	cr_assert_null(xc_explain(NULL, o));
	xc_extra_destroy(o);
	xc_expr_destroy(e);
}

struct explain_row {
	const char *extra;
	const char *request;
	const char *text;
};

static const struct explain_row explain_rows[] = {
	{ DOC_NODE, "(c<=0.0001&a=1.25)|zed=23.0",
	  "OR: match\n"
	  "  AND: no match\n"
	  "    c<=0.0001: match (node value 0 is a number; 0 < 0.0001)\n"
	  "    a=1.25: no match (node value 1.23 is a number; 1.23 < 1.25)\n"
	  "  zed=23.0: match (node value 23 is a number; 23 = 23.0 (within 0.00001))\n"
	  "result: match\n" },
	{ DOC_NODE, "x=1",
	  "x=1: no match (no key 'x' in the node's Extra)\nresult: no match\n" },
	{ DOC_NODE, "a!=abc",
	  "a!=abc: no match (node value 1.23 is a number; request value 'abc' is not a number)\nresult: no match\n" },
	{ DOC_NODE, "b=200",
	  "b=200: match (node value true is a boolean; request value '200' reads as true; true = true)\nresult: match\n" },
	{ DOC_NODE, "foo<baz",
	  "foo<baz: match (node value \"bar\" is a string; \"bar\" < \"baz\" (byte order))\nresult: match\n" },
	{ "{\"k\":[1]}", "k=1",
	  "k=1: no match (node value [...] is an array; only strings, numbers and booleans compare)\nresult: no match\n" },
	{ "[1]", "k=1",
	  "node Extra is not a JSON object: no request matches it\nresult: no match\n" },
};

ROW_TEST(eval, explain, struct explain_row, explain_rows)
{
	xc_expr_t *e = xc_parse(row->request, NULL, NULL);
	xc_extra_t *extra =
		xc_extra_load(row->extra, strlen(row->extra), NULL, NULL, NULL);
	char *text = xc_explain(e, extra);

	cr_assert_not_null(text);
	cr_assert_str_eq(text, row->text);
	free(text);
	xc_extra_destroy(extra);
	xc_expr_destroy(e);
}

/* xc_leaf_check: the outcome of a leaf, by cause (doc/language.md §3). */
struct outcome_row {
	const char *extra;
	const char *leaf;
	xc_leaf_outcome_t outcome;
};

static const struct outcome_row outcome_rows[] = {
	{ "{\"a\": 1}", "a=1", XC_LEAF_HOLDS },
	{ "{\"a\": 1}", "a>1", XC_LEAF_FALSE },
	{ "{\"a\": \"x\"}", "a<y", XC_LEAF_HOLDS },
	{ "{\"a\": true}", "a=false", XC_LEAF_FALSE },
	{ "{\"a\": 1}", "b!=1", XC_LEAF_NO_KEY },
	{ "{\"a\": null}", "a!=1", XC_LEAF_NOT_COMPARABLE },
	{ "{\"a\": [1]}", "a=1", XC_LEAF_NOT_COMPARABLE },
	{ "{\"a\": {}}", "a=1", XC_LEAF_NOT_COMPARABLE },
	{ "{\"a\": 5}", "a!=abc", XC_LEAF_NOT_NUMBER },
	{ "{\"a\": \"5\"}", "a!=abc", XC_LEAF_HOLDS },
	{ NULL, "a=1", XC_LEAF_NO_EXTRA },
	{ "[1]", "a=1", XC_LEAF_NO_EXTRA },
};

ROW_TEST(eval, leaf_outcomes, struct outcome_row, outcome_rows)
{
	xc_expr_t *e = xc_parse(row->leaf, NULL, NULL);
	xc_extra_t *x =
		xc_extra_load(row->extra, row->extra ? strlen(row->extra) : 0,
			      NULL, NULL, NULL);
	char *why = xc_explain_leaf(e, x);

	cr_assert_eq(xc_leaf_check(e, x), row->outcome, "%s on %s", row->leaf,
		     row->extra ? row->extra : "(unset)");
	cr_assert_str_eq(xc_leaf_outcome_name(xc_leaf_check(e, x)),
			 xc_leaf_outcome_name(row->outcome));
	cr_assert_not_null(why);
	cr_assert_gt(strlen(why), 5);
	free(why);
	xc_extra_destroy(x);
	xc_expr_destroy(e);
}

/* On every evaluation row whose request is one leaf, the leaf holds
 * exactly when the request matches. */
Test(eval, leaf_check_agrees_with_match)
{
	size_t leaves = 0;

	for (size_t r = 0; r < ROWS(eval_rows); r++) {
		xc_expr_t *e = xc_parse(eval_rows[r].request, NULL, NULL);
		const char *t = eval_rows[r].extra;
		xc_extra_t *x =
			xc_extra_load(t, t ? strlen(t) : 0, NULL, NULL, NULL);

		if (e && xc_expr_kind(e) == XC_LEAF) {
			cr_assert_eq(xc_leaf_check(e, x) == XC_LEAF_HOLDS,
				     eval_row_match(&eval_rows[r]), "%s on %s",
				     eval_rows[r].request, t ? t : "(unset)");
			leaves++;
		}
		xc_extra_destroy(x);
		xc_expr_destroy(e);
	}
	cr_assert_gt(leaves, 50);
}
