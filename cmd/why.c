/*
 * why.c - `slurm-extra why` (why.h): each top-level part of a request,
 * how many nodes satisfy it, and why the others do not, as HTCondor's
 * -better-analyze does for its requirements.  The reasons are the
 * library's (xc_leaf_check, xc_extra_value_json), so they are the
 * evaluator's own.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "why.h"

/* Node names shown in a line of text, and values in JSON. */
#define SHOWN 8
/* Values shown in a line of text. */
#define SHOWN_VALUES 4

/* Why a node fails an item: a leaf outcome, or, for a group, FAILS. */
enum {
	FAILS = XC_LEAF_NO_EXTRA + 1,
	NCAUSES
};

struct item {
	const xc_expr_t *expr;
	char *text;	    /* as written in the report */
	char *shown;	    /* text as the text report shows it (put_text) */
	size_t satisfy;	    /* nodes that satisfy it */
	uint8_t *cause;	    /* per node: XC_LEAF_HOLDS or why not */
	size_t by[NCAUSES]; /* nodes per cause */
};

struct why {
	const xc_nodes_t *t;
	const bool *in;
	size_t count, nodes; /* in the table; considered */
	struct item *items;
	size_t nitems;
	unsigned *fails; /* per node: items failed */
};

static bool counted(const struct why *w, size_t i)
{
	return !w->in || w->in[i];
}

/* The hostlist of the considered nodes with pick(w, i, arg), at most
 * `most` of them (0: all); *n gets how many there are in all.  malloc'd;
 * NULL when out of memory. */
static char *nodes_where(const struct why *w,
			 bool (*pick)(const struct why *, size_t, const void *),
			 const void *arg, size_t most, size_t *n)
{
	const char **names = calloc(w->count ? w->count : 1, sizeof(*names));
	size_t k = 0;
	char *hl;

	*n = 0;
	if (!names)
		return NULL;
	for (size_t i = 0; i < w->count; i++) {
		if (!counted(w, i) || !pick(w, i, arg))
			continue;
		if (!most || k < most)
			names[k++] = xc_nodes_name(w->t, i);
		(*n)++;
	}
	hl = xc_hostlist_of(names, k, NULL);
	free(names);
	return hl;
}

struct cause_of {
	const struct item *it;
	int cause;
};

static bool has_cause(const struct why *w, size_t i, const void *arg)
{
	const struct cause_of *c = arg;

	(void)w;
	return c->it->cause[i] == c->cause;
}

static bool satisfies(const struct why *w, size_t i, const void *arg)
{
	(void)arg;
	return w->fails[i] == 0;
}

/* The nodes that fail exactly the items of node `*(size_t *)arg`. */
static bool fails_like(const struct why *w, size_t i, const void *arg)
{
	size_t j = *(const size_t *)arg;

	if (w->fails[i] != w->fails[j])
		return false;
	for (size_t k = 0; k < w->nitems; k++)
		if ((w->items[k].cause[i] == XC_LEAF_HOLDS) !=
		    (w->items[k].cause[j] == XC_LEAF_HOLDS))
			return false;
	return true;
}

static const char *cause_words(int cause)
{
	switch (cause) {
	case XC_LEAF_FALSE:
		return "values compared";
	case XC_LEAF_NO_KEY:
		return "no such key";
	case XC_LEAF_NOT_COMPARABLE:
		return "value is null, an object or an array";
	case XC_LEAF_NOT_NUMBER:
		return "request value is not a number, node value is";
	case XC_LEAF_NO_EXTRA:
		return "Extra unset or not a JSON object";
	default:
		return "fails";
	}
}

static const char *cause_name(int cause)
{
	return cause == FAILS ? "fails" : xc_leaf_outcome_name(cause);
}

static void free_why(struct why *w)
{
	for (size_t k = 0; k < w->nitems; k++) {
		free(w->items[k].text);
		free(w->items[k].shown);
		free(w->items[k].cause);
	}
	free(w->items);
	free(w->fails);
}

/* Evaluates every item on every considered node. */
static int compute(struct why *w, const xc_expr_t *expr)
{
	bool split = xc_expr_kind(expr) == XC_AND && xc_expr_count(expr) > 1;

	w->nitems = split ? xc_expr_count(expr) : 1;
	if (!(w->items = calloc(w->nitems, sizeof(*w->items))) ||
	    !(w->fails = calloc(w->count ? w->count : 1, sizeof(*w->fails))))
		return -1;
	for (size_t k = 0; k < w->nitems; k++) {
		struct item *it = &w->items[k];
		char *f;

		it->expr = split ? xc_expr_child(expr, k) : expr;
		if (!(f = xc_format(it->expr)) ||
		    !(it->cause = calloc(w->count ? w->count : 1, 1)))
			return free(f), -1;
		if (split && xc_expr_kind(it->expr) != XC_LEAF) {
			it->text = malloc(strlen(f) + 3);
			if (it->text)
				sprintf(it->text, "(%s)", f);
			free(f);
			if (!it->text)
				return -1;
		} else {
			it->text = f;
		}
		if (!(it->shown = shown_text(it->text)))
			return -1;
	}
	for (size_t i = 0; i < w->count; i++) {
		const xc_extra_t *x = xc_nodes_extra(w->t, i);

		if (!counted(w, i))
			continue;
		w->nodes++;
		for (size_t k = 0; k < w->nitems; k++) {
			struct item *it = &w->items[k];
			int c;

			if (xc_expr_kind(it->expr) == XC_LEAF)
				c = xc_leaf_check(it->expr, x);
			else
				c = xc_match(it->expr, x) ? XC_LEAF_HOLDS
							  : FAILS;
			it->cause[i] = (uint8_t)c;
			it->by[c]++;
			if (c == XC_LEAF_HOLDS)
				it->satisfy++;
			else
				w->fails[i]++;
		}
	}
	return 0;
}

/* Which extreme of the compared values tells how far a leaf is from
 * holding: "largest" for > and >=, "smallest" for < and <=, else NULL. */
static const char *extreme_word(const xc_expr_t *leaf)
{
	switch (xc_leaf_cmpop(leaf)) {
	case XC_GT:
	case XC_GE:
		return "largest";
	case XC_LT:
	case XC_LE:
		return "smallest";
	default:
		return NULL;
	}
}

/* The values a leaf compared on the nodes it is false for: the first
 * SHOWN of them (name -> value, in *values) and the largest or smallest
 * number of all, as its operator asks (*extreme; NULL: none). */
static int false_values(const struct why *w, const struct item *it,
			json_t **values, json_t **extreme)
{
	const char *want = extreme_word(it->expr);
	bool want_max = want && strcmp(want, "largest") == 0;
	double best = 0;
	bool any = false;

	*extreme = NULL;
	if (!(*values = json_object()))
		return -1;
	for (size_t i = 0; i < w->count; i++) {
		json_t *v;

		if (!counted(w, i) || it->cause[i] != XC_LEAF_FALSE)
			continue;
		v = xc_extra_value_json(xc_nodes_extra(w->t, i),
					xc_leaf_key(it->expr));
		if (!v)
			continue;
		if (json_is_number(v) && want) {
			double d = json_number_value(v);

			if (!any || (want_max ? d > best : d < best))
				best = d;
			any = true;
		}
		if (json_object_size(*values) < SHOWN)
			json_object_set_new(*values, xc_nodes_name(w->t, i), v);
		else
			json_decref(v);
	}
	if (any && !(*extreme = best == floor(best) && fabs(best) < 9e15
					? json_integer((json_int_t)best)
					: json_real(best)))
		return -1;
	return 0;
}

/* A JSON value as text ("1024", "\"x86_64\"", "false"; a string's
 * bytes as json_text() writes them); malloc'd. */
static char *value_text(const json_t *v)
{
	if (json_is_real(v)) {
		char *s = malloc(32);

		if (s)
			snprintf(s, 32, "%.15g", json_real_value(v));
		return s;
	}
	return json_text(v, JSON_ENCODE_ANY | JSON_COMPACT);
}

/* The nodes failing the fewest items (> 0; *least): the first node of
 * each distinct set of failed items, in node order, at most `most` sets;
 * *more is set when there are more.  Returns the sets found. */
static size_t closest(const struct why *w, size_t *first, size_t most,
		      unsigned *least, bool *more)
{
	size_t n = 0;

	*least = 0;
	*more = false;
	for (size_t i = 0; i < w->count; i++)
		if (counted(w, i) && w->fails[i] &&
		    (!*least || w->fails[i] < *least))
			*least = w->fails[i];
	for (size_t i = 0; *least && i < w->count; i++) {
		bool seen = false;

		if (!counted(w, i) || w->fails[i] != *least)
			continue;
		for (size_t k = 0; k < n && !seen; k++)
			seen = fails_like(w, i, &first[k]);
		if (seen)
			continue;
		if (n == most) {
			*more = true;
			break;
		}
		first[n++] = i;
	}
	return n;
}

/* "a", "a and b", "a, b and c" of the items node i fails. */
static void print_failed(FILE *out, const struct why *w, size_t i)
{
	size_t shown = 0;

	for (size_t k = 0; k < w->nitems; k++) {
		if (w->items[k].cause[i] == XC_LEAF_HOLDS)
			continue;
		if (shown)
			fputs(shown + 1 == w->fails[i] ? " and " : ", ", out);
		fputs(w->items[k].shown, out);
		shown++;
	}
}

static int report_text(FILE *out, struct why *w, const xc_expr_t *expr,
		       size_t satisfy)
{
	size_t width = 30, first[3], nsets, n;
	unsigned least;
	bool more;
	char *req = xc_format(expr), *hl;

	if (!req)
		return -1;
	fputs("request: ", out);
	put_text(out, req);
	fputc('\n', out);
	free(req);
	if (satisfy) {
		if (!(hl = nodes_where(w, satisfies, NULL, SHOWN, &n)))
			return -1;
		fprintf(out, "%zu of %zu nodes satisfy it: ", satisfy,
			w->nodes);
		put_text(out, hl);
		fputs(n > SHOWN ? " ...\n" : "\n", out);
		free(hl);
	} else {
		fprintf(out, "0 of %zu nodes satisfy it.\n", w->nodes);
	}
	for (size_t k = 0; k < w->nitems; k++)
		if (strlen(w->items[k].shown) > width)
			width = strlen(w->items[k].shown);
	for (size_t k = 0; k < w->nitems; k++) {
		struct item *it = &w->items[k];
		const char *sep = "   (";

		fprintf(out, "  %-*s %zu of %zu nodes", (int)width, it->shown,
			it->satisfy, w->nodes);
		for (int c = XC_LEAF_FALSE; c < NCAUSES; c++) {
			struct cause_of arg = { it, c };

			if (!it->by[c])
				continue;
			fputs(sep, out);
			sep = "; ";
			if (c == XC_LEAF_FALSE) {
				json_t *values, *extreme, *v;
				const char *name;
				size_t shown = 0;

				if (false_values(w, it, &values, &extreme) < 0)
					return -1;
				json_object_foreach (values, name, v) {
					char *s;

					if (shown == SHOWN_VALUES)
						break;
					s = value_text(v);
					fputs(shown ? ", " : "", out);
					put_text(out, name);
					fprintf(out, ": %s", s ? s : "?");
					free(s);
					shown++;
				}
				if (it->by[c] > shown)
					fprintf(out, " and %zu more",
						it->by[c] - shown);
				if (extreme)
					fprintf(out, "; %s %.15g",
						extreme_word(it->expr),
						json_number_value(extreme));
				json_decref(values);
				json_decref(extreme);
				continue;
			}
			if (!(hl = nodes_where(w, has_cause, &arg, SHOWN, &n)))
				return -1;
			if (c == XC_LEAF_NO_KEY) {
				fputs("no key '", out);
				put_text(out, xc_leaf_key(it->expr));
				fputs("': ", out);
			} else if (c == XC_LEAF_NOT_NUMBER) {
				fputc('\'', out);
				put_text(out, xc_leaf_value(it->expr));
				fputs("' is not a number: ", out);
			} else if (c != FAILS) {
				fprintf(out, "%s: ", cause_words(c));
			} else {
				fputs("fails on ", out);
			}
			put_text(out, hl);
			fputs(n > SHOWN ? " ..." : "", out);
			free(hl);
		}
		fputs(*sep == ';' ? ")\n" : "\n", out);
	}
	/* with one item, every other node fails it: nothing to tell */
	if (w->nitems < 2)
		return 0;
	nsets = closest(w, first, 3, &least, &more);
	for (size_t s = 0; s < nsets; s++) {
		if (!(hl = nodes_where(w, fails_like, &first[s], SHOWN, &n)))
			return -1;
		fprintf(out, "%s ", s ? "        " : "closest:");
		put_text(out, hl);
		fprintf(out, "%s (%s", n > SHOWN ? " ..." : "",
			least == 1 ? "only " : "");
		print_failed(out, w, first[s]);
		fprintf(out, " %s)\n", least == 1 ? "fails" : "fail");
		free(hl);
	}
	if (more)
		fprintf(out, "         and other nodes failing %u item%s\n",
			least, least == 1 ? "" : "s");
	return 0;
}

static json_t *report_json(struct why *w, const xc_expr_t *expr, size_t satisfy)
{
	json_t *root = json_object(), *items = json_array(), *sets;
	size_t first[64], nsets, n;
	unsigned least;
	bool more;
	char *req = xc_format(expr), *hl;

	if (!root || !items || !req ||
	    !(hl = nodes_where(w, satisfies, NULL, 0, &n)))
		goto fail;
	json_object_set_new(root, "request", json_string(req));
	json_object_set_new(root, "nodes", json_integer((json_int_t)w->nodes));
	json_object_set_new(root, "satisfy", json_integer((json_int_t)satisfy));
	json_object_set_new(root, "satisfying", json_string(hl));
	free(hl);
	for (size_t k = 0; k < w->nitems; k++) {
		struct item *it = &w->items[k];
		json_t *jit = json_object(), *out = json_array();

		json_array_append_new(items, jit);
		json_object_set_new(jit, "item", json_string(it->text));
		json_object_set_new(jit, "satisfy",
				    json_integer((json_int_t)it->satisfy));
		json_object_set_new(jit, "ruled_out", out);
		for (int c = XC_LEAF_FALSE; c < NCAUSES; c++) {
			struct cause_of arg = { it, c };
			json_t *jc;

			if (!it->by[c])
				continue;
			if (!(hl = nodes_where(w, has_cause, &arg, 0, &n)))
				goto fail;
			jc = json_pack("{s:s,s:I,s:s}", "why", cause_name(c),
				       "count", (json_int_t)n, "nodes", hl);
			free(hl);
			if (!jc)
				goto fail;
			json_array_append_new(out, jc);
			if (c == XC_LEAF_FALSE) {
				json_t *values, *extreme;

				if (false_values(w, it, &values, &extreme) < 0)
					goto fail;
				json_object_set_new(jc, "values", values);
				if (extreme)
					json_object_set_new(
						jc, extreme_word(it->expr),
						extreme);
			}
		}
	}
	json_object_set_new(root, "items", items);
	items = NULL;
	nsets = closest(w, first, 64, &least, &more);
	sets = json_array();
	json_object_set_new(root, "closest",
			    json_pack("{s:I,s:o,s:b}", "fail",
				      (json_int_t)least, "sets", sets, "more",
				      more));
	for (size_t s = 0; s < nsets; s++) {
		json_t *failed = json_array();

		if (!(hl = nodes_where(w, fails_like, &first[s], 0, &n)))
			goto fail;
		for (size_t k = 0; k < w->nitems; k++)
			if (w->items[k].cause[first[s]] != XC_LEAF_HOLDS)
				json_array_append_new(
					failed, json_string(w->items[k].text));
		json_array_append_new(
			sets, json_pack("{s:s,s:I,s:o}", "nodes", hl, "count",
					(json_int_t)n, "failing", failed));
		free(hl);
	}
	free(req);
	return root;
fail:
	free(req);
	json_decref(items);
	json_decref(root);
	return NULL;
}

long why_report(FILE *out, const xc_expr_t *expr, const xc_nodes_t *table,
		const bool *in, bool json, json_t *more)
{
	struct why w = { .t = table, .in = in, .count = xc_nodes_count(table) };
	size_t satisfy = 0;
	long rc = -1;

	if (compute(&w, expr) < 0)
		goto out;
	for (size_t i = 0; i < w.count; i++)
		satisfy += counted(&w, i) && w.fails[i] == 0;
	if (json) {
		json_t *j = report_json(&w, expr, satisfy);

		if (!j || (more && json_object_update(j, more) < 0) ||
		    !put_json(out, j, JSON_COMPACT)) {
			json_decref(j);
			goto out;
		}
		json_decref(j);
	} else if (report_text(out, &w, expr, satisfy) < 0) {
		goto out;
	}
	rc = (long)satisfy;
out:
	if (rc < 0)
		say("out of memory");
	free_why(&w);
	return rc;
}
