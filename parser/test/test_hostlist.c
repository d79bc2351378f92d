/*
 * test_hostlist.c - the hostlist every output of the command writes
 * (xc_hostlist_of: eval --nodes/--slurm and the resolved Flux form): edge
 * cases as rows (padding widths, non-numeric names, one node, thousands),
 * and a seeded suite: the hostlist of the nodes a request matches expands,
 * read back by Slurm's own hostlist parser, to exactly those nodes, in node
 * order, and no bracket mixes zero-padding widths.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>

#include "gen.h"
#include "slurm_compat.h"
#include "table.h"
#include "xc.h"
#include "leakcheck.h"

LEAK_CHECKED(hostlist);

struct hl_row {
	const char *names;    /* space-separated */
	const char *hostlist; /* NULL: refused */
};

static const struct hl_row hl_rows[] = {
	{ "n1", "n1" },
	{ "node", "node" },
	{ "n1 n2 n3", "n[1-3]" },
	{ "n3 n1 n2", "n[1-3]" },
	{ "n1 n1 n2", "n[1-2]" },
	{ "n01 n02 n3", "n[01-02],n3" },
	{ "n01 n02 n3 n10", "n[01-02],n[3,10]" },
	{ "x3 x01 x02 x10", "x[01-02],x[3,10]" },
	{ "node3 node01", "node01,node3" },
	{ "n08 n09 n10 n11", "n[08-11]" },
	{ "n9 n10", "n[9-10]" },
	{ "n1 n01 n001", "n1,n01,n001" },
	{ "n001 n002 n01 n1 n2", "n1,n01,n001,n2,n002" },
	{ "n10 n9 n010 n009", "n9,n009,n10,n010" },
	{ "login gpu-a n2 n1", "gpu-a,login,n[1-2]" },
	{ "login login", "login" },
	{ "a1b2 a1b3 a2b1", "a1b[2-3],a2b1" },
	{ "rack1-n1 rack2-n1 rack1-n2", "rack1-n[1-2],rack2-n1" },
	{ "123 124", "123,124" },
	{ "n1 n3 n5 n6 n7", "n[1,3,5-7]" },
	{ "x n123456789012345678901", "n123456789012345678901,x" },
	{ "a,b", NULL },
	{ "n[1]", NULL },
	{ "", "" },
};

/* Splits `names` into a malloc'd array (the caller frees it and [0]). */
static char **split_names(const char *names, size_t *n)
{
	char *copy = strdup(names), **v = calloc(64, sizeof(*v)), *save;

	*n = 0;
	for (char *t = strtok_r(copy, " ", &save); t;
	     t = strtok_r(NULL, " ", &save))
		v[(*n)++] = t;
	if (*n == 0)
		v[0] = copy;
	return v;
}

ROW_TEST(hostlist, rows, struct hl_row, hl_rows)
{
	size_t n;
	char **v = split_names(row->names, &n);
	xc_error_t err;
	char *hl = xc_hostlist_of((const char *const *)v, n, &err);

	if (row->hostlist)
		cr_assert_str_eq(hl, row->hostlist, "%s", row->names);
	else
		cr_assert(!hl && err.code == XC_E_INVALID_ARG, "%s",
			  row->names);
	free(hl);
	free(v[0]);
	free(v);
}

Test(hostlist, thousands_of_nodes)
{
	enum {
		N = 5000
	};
	char **names = calloc(N, sizeof(*names));
	char *hl;

	for (int i = 0; i < N; i++) {
		names[i] = malloc(16);
		snprintf(names[i], 16, "node%d", N - i);
	}
	hl = xc_hostlist_of((const char *const *)names, N, NULL);
	cr_assert_str_eq(hl, "node[1-5000]");
	free(hl);
	/* 0001, 0004, ... 9997 (width 4), then 10000 ... 14998 (width 5) */
	for (int i = 0; i < N; i++)
		snprintf(names[i], 16, "node%04d", 3 * i + 1);
	hl = xc_hostlist_of((const char *const *)names, N, NULL);
	cr_assert_eq(strncmp(hl, "node[0001,0004,0007,", 20), 0, "%.40s", hl);
	cr_assert(strstr(hl, ",9997],node[10000,10003,"),
		  "widths 4 and 5 apart");
	cr_assert_eq(strcmp(hl + strlen(hl) - 7, ",14998]"), 0, "%s",
		     hl + strlen(hl) - 20);
	free(hl);
	for (int i = 0; i < N; i++)
		free(names[i]);
	free(names);
}

/* 100,000 nodes in a row: no range longer than Slurm reads
 * (MAX_RANGE, 65,536 hosts: "Too many hosts in range"), and Slurm's own
 * parser reads the list back to every one of them.  Unsplit, the list of
 * a job no node satisfies at such a cluster was refused by slurmctld. */
Test(hostlist, a_range_longer_than_slurm_reads_is_split)
{
	enum {
		N = 100000
	};
	char **names = calloc(N, sizeof(*names));
	char *hl;
	sx_hostlist_t parsed;

	for (int i = 0; i < N; i++) {
		names[i] = malloc(16);
		snprintf(names[i], 16, "s%d", i + 1);
	}
	hl = xc_hostlist_of((const char *const *)names, N, NULL);
	cr_assert_str_eq(hl, "s[1-65536,65537-100000]");
	parsed = slurm_hostlist_create(hl);
	cr_assert_not_null(parsed);
	cr_assert_eq(slurm_hostlist_count(parsed), N,
		     "Slurm reads %d of the %d names",
		     slurm_hostlist_count(parsed), N);
	slurm_hostlist_destroy(parsed);
	free(hl);
	for (int i = 0; i < N; i++)
		free(names[i]);
	free(names);
}

/* No bracket holds numbers of different zero-padded widths. */
static void assert_no_mixed_widths(const char *hl)
{
	for (const char *p = strchr(hl, '['); p; p = strchr(p + 1, '[')) {
		const char *end = strchr(p, ']');
		size_t width = 0;
		bool padded = false, unpadded_other = false;

		for (const char *q = p + 1; q < end;) {
			size_t len = 0;

			while (isdigit((unsigned char)q[len]))
				len++;
			if (len > 1 && q[0] == '0')
				padded = true;
			if (width && len != width)
				unpadded_other = true;
			width = width ? width : len;
			q += len + 1;
		}
		cr_assert_not(padded && unpadded_other, "mixed widths in %s",
			      hl);
	}
}

/* Node order as the writer promises it: prefix, then number, then
 * width; names without a number before numbered ones of their prefix. */
static int node_order(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), pa = la, pb = lb;

	while (pa > 0 && isdigit((unsigned char)a[pa - 1]))
		pa--;
	while (pb > 0 && isdigit((unsigned char)b[pb - 1]))
		pb--;
	if (pa == 0 || la - pa > 18)
		pa = la;
	if (pb == 0 || lb - pb > 18)
		pb = lb;
	if (pa != pb || memcmp(a, b, pa) != 0) {
		int c = memcmp(a, b, pa < pb ? pa : pb);

		return c ? c : pa < pb ? -1 : 1;
	}
	if ((pa == la) != (pb == lb))
		return pa == la ? -1 : 1;
	if (pa < la) {
		unsigned long long x = strtoull(a + pa, NULL, 10);
		unsigned long long y = strtoull(b + pb, NULL, 10);

		if (x != y)
			return x < y ? -1 : 1;
		if (la != lb)
			return la < lb ? -1 : 1;
	}
	return strcmp(a, b);
}

Test(hostlist, generated_resolved_form_expands_to_eval)
{
	static const char *const prefixes[] = { "n", "node", "gpu-", "r1n",
						"login" };
	gen_t g = { 0x40575e1dULL };

	for (int round = 0; round < 300; round++) {
		xc_nodes_t *t = xc_nodes_create(NULL);
		size_t count = 1 + gen_below(&g, 60), k = 0, matched_n;
		bool *matched = calloc(count, sizeof(*matched));
		const char **names = calloc(count, sizeof(*names));
		char req[512] = "", name[32];
		xc_expr_t *e;
		sx_hostlist_t back;
		char *hl, *h, *prev;

		for (size_t i = 0; i < count; i++) {
			char *extra = gen_node(&g);

			snprintf(name, sizeof(name), "%s%0*u",
				 prefixes[gen_below(&g, 5)],
				 (int)gen_below(&g, 4), gen_below(&g, 120));
			xc_nodes_add(t, name, extra, NULL, NULL);
			free(extra);
		}
		do {
			req[0] = '\0';
			gen_request(&g, req, sizeof(req) - 32, 2, 1);
		} while (!(e = xc_parse(req, NULL, NULL)));
		matched_n = xc_nodes_match(t, e, matched);
		for (size_t i = 0; i < count; i++)
			if (matched[i])
				names[k++] = xc_nodes_name(t, i);
		cr_assert_eq(k, matched_n);
		hl = xc_hostlist_of(names, k, NULL);
		cr_assert_not_null(hl);
		assert_no_mixed_widths(hl);
		/* Expand with Slurm and compare as sets. */
		back = slurm_hostlist_create(hl);
		cr_assert_not_null(back, "%s", hl);
		prev = NULL;
		while ((h = slurm_hostlist_shift(back))) {
			bool found = false;

			/* written in node order, each name once */
			if (prev)
				cr_assert_lt(node_order(prev, h), 0,
					     "%s before %s in %s", prev, h, hl);
			free(prev);
			prev = strdup(h);

			for (size_t i = 0; i < k && !found; i++)
				found = strcmp(names[i], h) == 0;
			cr_assert(found, "%s in %s was not matched", h, hl);
			free(h);
		}
		free(prev);
		slurm_hostlist_destroy(back);
		back = slurm_hostlist_create(hl);
		for (size_t i = 0; i < k; i++)
			cr_assert_geq(slurm_hostlist_find(back, names[i]), 0,
				      "%s matched but not in %s", names[i], hl);
		slurm_hostlist_destroy(back);
		free(hl);
		free(names);
		free(matched);
		xc_expr_destroy(e);
		xc_nodes_destroy(t);
	}
}
