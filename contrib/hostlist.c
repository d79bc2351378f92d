/*
 * hostlist.c - RFC 29 hostlists over Slurm's hostlist API (see
 * hostlist.h).  Slurm compresses and sorts; this file only makes sure that
 * names of different zero-padding widths never share a bracket, by giving
 * Slurm one group of names at a time.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>

#include "slurm_compat.h"

#include "hostlist.h"

struct host {
	const char *name;
	size_t prefix_len;	/* bytes before the numeric suffix */
	size_t digits;		/* digits of the numeric suffix (0: none) */
	unsigned long long num; /* its value */
	size_t width;		/* group: padded width, or 0 (unpadded) */
};

static bool writable(const char *name)
{
	if (!*name)
		return false;
	for (const char *p = name; *p; p++)
		if (*p == ',' || *p == '[' || *p == ']' ||
		    isspace((unsigned char)*p))
			return false;
	return true;
}

/* Orders by prefix, then plain names before numbered ones; 0 when both
 * have the same prefix and are alike in that. */
static int cmp_prefix(const struct host *x, const struct host *y)
{
	size_t n =
		x->prefix_len < y->prefix_len ? x->prefix_len : y->prefix_len;
	int c = memcmp(x->name, y->name, n);

	if (c)
		return c;
	if (x->prefix_len != y->prefix_len)
		return x->prefix_len < y->prefix_len ? -1 : 1;
	if (!x->digits != !y->digits)
		return x->digits ? 1 : -1;
	return 0;
}

/* Hosts by prefix, width, number: a group's hosts become adjacent. */
static int cmp_host(const void *a, const void *b)
{
	const struct host *x = a, *y = b;
	int c = cmp_prefix(x, y);

	if (c)
		return c;
	if (x->width != y->width)
		return x->width < y->width ? -1 : 1;
	if (x->num != y->num)
		return x->num < y->num ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* A run of hosts[] that goes in one bracket (or one plain name). */
struct group {
	const struct host *first; /* the smallest number of the group */
	size_t start, end;	  /* hosts[start..end) */
};

/* Groups of one prefix in order of their smallest number, then width:
 * n[01-02],n3 and n[1-2],n01. */
static int cmp_group(const void *a, const void *b)
{
	const struct host *x = ((const struct group *)a)->first;
	const struct host *y = ((const struct group *)b)->first;
	int c = cmp_prefix(x, y);

	if (c)
		return c;
	if (x->num != y->num)
		return x->num < y->num ? -1 : 1;
	if (x->width != y->width)
		return x->width < y->width ? -1 : 1;
	return strcmp(x->name, y->name);
}

static bool same_group(const struct host *a, const struct host *b)
{
	return a->digits && b->digits && a->prefix_len == b->prefix_len &&
	       memcmp(a->name, b->name, a->prefix_len) == 0 &&
	       a->width == b->width;
}

/* Sets the numeric suffix and padded width of `h`. */
static void split(struct host *h)
{
	size_t len = strlen(h->name), p = len;

	while (p > 0 && isdigit((unsigned char)h->name[p - 1]))
		p--;
	h->prefix_len = p;
	h->digits = len - p;
	if (h->digits == 0 || h->digits > 18 || p == 0) {
		/* No number, one too long to be a range, or no prefix
		 * (Slurm would write "[1-2]"): a plain name. */
		h->prefix_len = len;
		h->digits = 0;
		return;
	}
	h->num = strtoull(h->name + p, NULL, 10);
	h->width = h->digits > 1 && h->name[p] == '0' ? h->digits : 0;
}

/* Whether a padded group of `prefix` with `width` exists in hosts. */
static bool padded_group(const struct host *hosts, size_t n,
			 const struct host *h, size_t width)
{
	for (size_t i = 0; i < n; i++)
		if (hosts[i].width == width && hosts[i].digits &&
		    hosts[i].prefix_len == h->prefix_len &&
		    memcmp(hosts[i].name, h->name, h->prefix_len) == 0)
			return true;
	return false;
}

char *rfc29_hostlist(const char *const *names, size_t n)
{
	struct host *hosts = calloc(n ? n : 1, sizeof(*hosts));
	struct group *groups = NULL;
	size_t ngroups = 0;
	char *text = NULL;
	size_t len = 0;
	FILE *out = NULL;
	bool ok = true;

	if (!hosts)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (!writable(names[i]))
			goto fail;
		hosts[i].name = names[i];
		split(&hosts[i]);
	}
	/* An unpadded number of the same width as a padded group joins it
	 * (n08, n09, n10 is n[08-10]). */
	for (size_t i = 0; i < n; i++)
		if (hosts[i].digits > 1 && hosts[i].width == 0 &&
		    padded_group(hosts, n, &hosts[i], hosts[i].digits))
			hosts[i].width = hosts[i].digits;
	qsort(hosts, n, sizeof(*hosts), cmp_host);

	/* hosts[] is sorted by prefix, width, number: cut it into groups,
	 * then put the groups in order. */
	if (!(groups = calloc(n ? n : 1, sizeof(*groups))))
		goto fail;
	for (size_t i = 0, j; i < n; i = j) {
		j = i + 1;
		if (hosts[i].digits)
			while (j < n && same_group(&hosts[i], &hosts[j]))
				j++;
		else
			while (j < n &&
			       strcmp(hosts[i].name, hosts[j].name) == 0)
				j++; /* duplicates */
		groups[ngroups++] = (struct group){ &hosts[i], i, j };
	}
	qsort(groups, ngroups, sizeof(*groups), cmp_group);

	if (!(out = open_memstream(&text, &len)))
		goto fail;
	for (size_t g = 0; g < ngroups && ok; g++) {
		const struct group *gr = &groups[g];

		if (gr->first->digits) {
			xc_hostlist_t hl = slurm_hostlist_create("");
			char *range;

			if (!hl)
				ok = false;
			for (size_t k = gr->start; ok && k < gr->end; k++)
				slurm_hostlist_push_host(hl, hosts[k].name);
			if (ok) {
				slurm_hostlist_uniq(hl);
				range = xc_hostlist_string(hl);
				if (range)
					fprintf(out, "%s%s", g ? "," : "",
						range);
				else
					ok = false;
				free(range);
			}
			if (hl)
				slurm_hostlist_destroy(hl);
		} else {
			fprintf(out, "%s%s", g ? "," : "", gr->first->name);
		}
	}
	if (fclose(out) != 0 || !ok)
		goto fail;
	free(groups);
	free(hosts);
	return text;
fail:
	free(text);
	free(groups);
	free(hosts);
	return NULL;
}
