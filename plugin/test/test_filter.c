/*
 * test_filter.c - a job's excluded nodes, written in one pass over the
 * node table (xc_nodes_hostlist, filter_compute) instead of through
 * Slurm's hostlist functions (filter_compute_slurm):
 *   - rows: the string for fixed tables and selections (padding widths,
 *     names without a number, prefixes that come back, one node, none);
 *   - seeded suites: Slurm's own hostlist parser reads the string back as
 *     exactly the selected names, for tables in any order; for tables in
 *     Slurm's node order the whole filter (excluded nodes, allowed count,
 *     the hold for a required node) is the one Slurm's functions give,
 *     string for string, with users' exclusions and required nodes;
 *   - which new required nodes the request excludes (job_modify()).
 */
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>

#include "gen.h"
#include "job_filter.h"
#include "slurm_nodes.h"
#include "slurm_compat.h"
#include "table.h"
#include "xc.h"
#include "leakcheck.h"

LEAK_CHECKED(filter);

/* A table of the space-separated `names` (no Extra). */
static xc_nodes_t *table_of(const char *names)
{
	xc_nodes_t *t = xc_nodes_create(NULL);
	char *copy = strdup(names), *save;

	for (char *n = strtok_r(copy, " ", &save); n;
	     n = strtok_r(NULL, " ", &save))
		cr_assert_eq(xc_nodes_add(t, n, NULL, NULL, NULL), 0);
	free(copy);
	return t;
}

struct hl_row {
	const char *names;    /* the table, space-separated */
	const char *selected; /* '1' for each selected node */
	const char *hostlist;
};

static const struct hl_row hl_rows[] = {
	{ "n1 n2 n3 n4", "0000", "" },
	{ "n1 n2 n3 n4", "0100", "n2" },
	{ "n1 n2 n3 n4", "0110", "n[2-3]" },
	{ "n1 n2 n3 n4", "1111", "n[1-4]" },
	{ "n1 n2 n3 n4 n5", "11011", "n[1-2,4-5]" },
	{ "n1 n2 n3 n4 n5", "10101", "n[1,3,5]" },
	{ "n8 n9 n10 n11", "1111", "n[8-11]" },
	{ "n08 n09 n10 n11", "1111", "n[08-11]" },
	{ "n01 n02 n3", "111", "n[01-02],n3" },
	{ "n1 n01 n001", "111", "n1,n01,n001" },
	{ "n001 n002 n01 n1 n2", "11111", "n[001-002],n01,n[1-2]" },
	{ "n9 n10 n011", "111", "n[9-10],n011" },
	{ "n0 n1 n2", "111", "n[0-2]" },
	{ "n1 n2 login n3 n4", "11111", "n[1-2],login,n[3-4]" },
	{ "n1 n2 login n3 n4", "11011", "n[1-2],n[3-4]" },
	{ "login n1", "11", "login,n1" },
	{ "a1b2 a1b3 a2b1", "111", "a1b[2-3],a2b1" },
	{ "rack1-n1 rack1-n2 rack2-n1", "111", "rack1-n[1-2],rack2-n1" },
	{ "123 124", "11", "123,124" },
	{ "n3 n1 n2", "111", "n[3,1-2]" },
	{ "x n123456789012345678901 n1", "111", "x,n123456789012345678901,n1" },
	{ "n999999999999999998 n999999999999999999", "11",
	  "n[999999999999999998-999999999999999999]" },
};

ROW_TEST(filter, hostlist_rows, struct hl_row, hl_rows)
{
	xc_nodes_t *t = table_of(row->names);
	size_t n = xc_nodes_count(t);
	bool *sel = calloc(n, sizeof(*sel));
	char *s;

	cr_assert_eq(strlen(row->selected), n);
	for (size_t i = 0; i < n; i++)
		sel[i] = row->selected[i] == '1';
	s = xc_nodes_hostlist(t, sel);
	cr_assert_str_eq(s, row->hostlist, "%s / %s", row->names,
			 row->selected);
	free(s);
	/* compiled or not, the same */
	cr_assert_eq(xc_nodes_compile(t, NULL), 0);
	s = xc_nodes_hostlist(t, sel);
	cr_assert_str_eq(s, row->hostlist);
	free(s);
	free(sel);
	xc_nodes_destroy(t);
}

Test(filter, find)
{
	xc_nodes_t *t = table_of("n1 n2 login n03");

	for (int pass = 0; pass < 2; pass++) {
		cr_assert_eq(xc_nodes_find(t, "n1"), 0);
		cr_assert_eq(xc_nodes_find(t, "login"), 2);
		cr_assert_eq(xc_nodes_find(t, "n03"), 3);
		cr_assert_eq(xc_nodes_find(t, "n3"), -1);
		cr_assert_eq(xc_nodes_find(t, ""), -1);
		cr_assert_eq(xc_nodes_find(t, NULL), -1);
		cr_assert_eq(xc_nodes_compile(t, NULL), 0);
	}
	xc_nodes_destroy(t);
}

/* ---------------------------------------------------- seeded suites */

/* Node names: a few prefixes, padded and unpadded numbers, names without
 * a number.  With `sorted`, in Slurm's node order: prefixes in order, each
 * with increasing numbers of one width. */
static xc_nodes_t *random_table(gen_t *g, bool sorted, size_t *count)
{
	static const char *const prefixes[] = { "a", "gpu", "n", "rack1-n",
						"x" };
	xc_nodes_t *t = xc_nodes_create(NULL);
	char name[64];
	size_t n = 0, target = 1 + gen_below(g, 300);

	if (sorted) {
		for (size_t p = 0; p < 5 && n < target; p++) {
			unsigned width = gen_below(g, 3) + 1; /* 1: none */
			unsigned long num = gen_below(g, 5);

			if (gen_below(g, 3) == 0)
				continue;
			/* numbers within the width: Slurm's order is
			 * then the table's */
			unsigned long cap = width == 1	 ? 100000
					    : width == 2 ? 99
							 : 999;

			for (size_t k = 0, m = 1 + gen_below(g, 80); k < m;
			     k++) {
				num += 1 +
				       (gen_below(g, 4) == 0) * gen_below(g, 5);
				if (num > cap)
					break;
				snprintf(name, sizeof(name), "%s%0*lu",
					 prefixes[p], width == 1 ? 0 : width,
					 num);
				if (xc_nodes_find(t, name) >= 0)
					continue;
				cr_assert_eq(
					xc_nodes_add(t, name, NULL, NULL, NULL),
					0);
				n++;
			}
		}
		if (n == 0) {
			xc_nodes_add(t, "n1", NULL, NULL, NULL);
			n = 1;
		}
	} else {
		while (n < target) {
			unsigned kind = gen_below(g, 10);

			if (kind == 0)
				snprintf(name, sizeof(name), "login%c",
					 'a' + gen_below(g, 26));
			else
				snprintf(name, sizeof(name), "%s%0*u",
					 prefixes[gen_below(g, 5)],
					 (int)gen_below(g, 4),
					 gen_below(g, 120));
			if (xc_nodes_find(t, name) >= 0)
				continue;
			cr_assert_eq(xc_nodes_add(t, name, NULL, NULL, NULL),
				     0);
			n++;
		}
	}
	*count = n;
	return t;
}

/* Slurm's parser reads `hostlist` as exactly the selected names. */
static void assert_reads_back(const xc_nodes_t *t, const bool *sel,
			      const char *hostlist)
{
	size_t n = xc_nodes_count(t), want = 0, got = 0;
	sx_hostlist_t hl = slurm_hostlist_create(hostlist);
	bool *seen = calloc(n ? n : 1, sizeof(*seen));
	char *host;

	cr_assert_not_null(hl, "Slurm cannot read '%s'", hostlist);
	while ((host = slurm_hostlist_shift(hl))) {
		long i = xc_nodes_find(t, host);

		cr_assert_geq(i, 0, "'%s' gives '%s', not in the table",
			      hostlist, host);
		cr_assert(sel[i], "'%s' gives '%s', not selected", hostlist,
			  host);
		cr_assert_not(seen[i], "'%s' gives '%s' twice", hostlist, host);
		seen[i] = true;
		got++;
		free(host);
	}
	for (size_t i = 0; i < n; i++)
		want += sel[i];
	cr_assert_eq(got, want, "'%s': %zu names, %zu selected", hostlist, got,
		     want);
	slurm_hostlist_destroy(hl);
	free(seen);
}

Test(filter, slurm_reads_back_exactly_the_selected_nodes)
{
	gen_t g = { 0x5eed1e55ULL };
	size_t cases = 0;

	for (int c = 0; c < 400; c++) {
		size_t n;
		xc_nodes_t *t = random_table(&g, c % 2, &n);
		bool *sel = calloc(n, sizeof(*sel));
		unsigned density = gen_below(&g, 101);
		char *s;

		for (size_t i = 0; i < n; i++)
			sel[i] = gen_below(&g, 100) < density;
		if (c % 3 == 0)
			xc_nodes_compile(t, NULL);
		s = xc_nodes_hostlist(t, sel);
		cr_assert_not_null(s);
		assert_reads_back(t, sel, s);
		free(s);
		free(sel);
		xc_nodes_destroy(t);
		cases++;
	}
	cr_assert_eq(cases, 400);
}

/* A random subset of the table's names as a hostlist written by Slurm
 * ("" for none); with `stranger`, plus a node the table does not have. */
static char *random_hostlist(gen_t *g, const xc_nodes_t *t, unsigned per100,
			     bool stranger)
{
	sx_hostlist_t hl = slurm_hostlist_create("");
	char *s;

	for (size_t i = 0; i < xc_nodes_count(t); i++)
		if (gen_below(g, 100) < per100)
			slurm_hostlist_push_host(hl, xc_nodes_name(t, i));
	if (stranger)
		slurm_hostlist_push_host(hl, "zz9");
	slurm_hostlist_uniq(hl);
	s = sx_hostlist_string(hl);
	slurm_hostlist_destroy(hl);
	return s;
}

Test(filter, the_same_filter_as_slurms_hostlist_functions)
{
	gen_t g = { 0xfeedbeefULL };
	size_t fast = 0;

	for (int c = 0; c < 300; c++) {
		size_t n;
		xc_nodes_t *t = random_table(&g, true, &n);
		bool *matched = calloc(n, sizeof(*matched));
		unsigned density = gen_below(&g, 101);
		char *user = random_hostlist(&g, t, gen_below(&g, 3) * 5,
					     gen_below(&g, 10) == 0);
		char *req = random_hostlist(&g, t, gen_below(&g, 2) * 3, false);
		struct job_filter a, b;

		for (size_t i = 0; i < n; i++)
			matched[i] = gen_below(&g, 100) < density;
		cr_assert_eq(xc_nodes_compile(t, NULL), 0);
		cr_assert_eq(filter_compute(t, matched, user, req, &a), 0);
		cr_assert_eq(filter_compute_slurm(t, matched, user, req, &b),
			     0);
		cr_assert_str_eq(a.exc ? a.exc : "(none)",
				 b.exc ? b.exc : "(none)",
				 "user '%s', required '%s'", user, req);
		cr_assert_eq(a.allowed, b.allowed);
		cr_assert_eq(a.total, b.total);
		cr_assert_eq(a.req_unmatched, b.req_unmatched);
		fast += !strstr(user, "zz9");
		filter_free(&a);
		filter_free(&b);
		free(user);
		free(req);
		free(matched);
		xc_nodes_destroy(t);
	}
	cr_assert_gt(fast, 200, "most cases take the one-pass path");
}

/* A table in Slurm's order (sx_nodes_in_slurm_order): every list written
 * from it is Slurm's own text of it, so its text hash is its
 * hostlist_hash(), which the thread then takes without Slurm's reading
 * (refilter.c); tables in another order are told apart. */
Test(filter, a_table_in_slurms_order_writes_slurms_own_lists)
{
	gen_t g = { 0xa11ce5ULL };
	size_t in_order = 0, other = 0;

	for (int c = 0; c < 200; c++) {
		size_t n;
		xc_nodes_t *t = random_table(&g, c % 2 == 0, &n);
		bool *sel = calloc(n ? n : 1, sizeof(*sel));
		int order = sx_nodes_in_slurm_order(t);

		cr_assert_geq(order, 0);
		if (c % 2 == 0)
			cr_assert_eq(order, 1, "a sorted table is in order");
		in_order += order == 1;
		other += order == 0;
		for (int k = 0; order == 1 && k < 10; k++) {
			unsigned density = gen_below(&g, 101);
			char *hl;

			for (size_t i = 0; i < n; i++)
				sel[i] = gen_below(&g, 100) < density;
			hl = xc_nodes_hostlist(t, sel);
			cr_assert_not_null(hl);
			cr_assert_eq(xc_text_hash(hl), hostlist_hash(hl), "%s",
				     hl);
			free(hl);
		}
		free(sel);
		xc_nodes_destroy(t);
	}
	cr_assert_gt(other, 20, "tables out of order are told apart");
	cr_assert_gt(in_order, 100);
}

/* Odd hostlists from the user, as excluded or required nodes: the one-pass
 * path answers as Slurm's functions do (same status, same nodes). */
Test(filter, odd_hostlists_as_slurm_reads_them)
{
	/* (Not "n[2-1]": libslurm 22.05's hostlist_create leaks a string
	 * on an inverted range, which fails the sanitizer build.) */
	static const char *const odd[] = {
		"n[1",	   "n[3-",	    "n[",  ",,",      "n1,,n2",
		"n[1-2]]", "n[1-2],n[2-3]", " n1", "n[01-2]", "n1 n2"
	};
	xc_nodes_t *t = table_of("n1 n2 n3");
	bool matched[3] = { true, false, true };

	cr_assert_eq(xc_nodes_compile(t, NULL), 0);
	for (size_t k = 0; k < sizeof(odd) / sizeof(*odd); k++) {
		for (int as_req = 0; as_req < 2; as_req++) {
			const char *u = as_req ? NULL : odd[k],
				   *r = as_req ? odd[k] : NULL;
			struct job_filter a, b;
			int ra = filter_compute(t, matched, u, r, &a);
			int rb = filter_compute_slurm(t, matched, u, r, &b);

			cr_assert_eq(ra, rb, "'%s' as %s", odd[k],
				     as_req ? "required" : "excluded");
			if (ra == 0) {
				cr_assert_str_eq(a.exc ? a.exc : "(none)",
						 b.exc ? b.exc : "(none)",
						 "'%s'", odd[k]);
				cr_assert_eq(a.allowed, b.allowed);
				cr_assert_eq(a.req_unmatched, b.req_unmatched);
				filter_free(&a);
				filter_free(&b);
			}
		}
	}
	xc_nodes_destroy(t);
}

/* New required nodes get the plugin's exclusions in an update only when
 * one of them is a node the request excludes (job_modify()): n1-n2 match
 * gpu=true, n3-n4 do not; a name the table does not know is Slurm's to
 * answer. */
Test(filter, required_nodes_the_request_excludes)
{
	xc_nodes_t *t = xc_nodes_create(NULL);
	xc_expr_t *e = xc_parse("gpu=true", NULL, NULL);

	cr_assert_eq(xc_nodes_add(t, "n1", "{\"gpu\":true}", NULL, NULL), 0);
	cr_assert_eq(xc_nodes_add(t, "n2", "{\"gpu\":true}", NULL, NULL), 0);
	cr_assert_eq(xc_nodes_add(t, "n3", "{\"gpu\":false}", NULL, NULL), 0);
	cr_assert_eq(xc_nodes_add(t, "n4", "{\"gpu\":false}", NULL, NULL), 0);
	cr_assert_eq(xc_nodes_compile(t, NULL), 0);
	cr_assert_not_null(e);
	cr_assert_not(filter_excludes_required(t, e, "n[1-2]"));
	cr_assert_not(filter_excludes_required(t, e, "n1,n9"));
	cr_assert(filter_excludes_required(t, e, "n3"));
	cr_assert(filter_excludes_required(t, e, "n[1-4]"));
	cr_assert_not(filter_excludes_required(t, NULL, "n3"), "no request");
	cr_assert_not(filter_excludes_required(NULL, e, "n3"), "no table");
	xc_expr_destroy(e);
	xc_nodes_destroy(t);
}
