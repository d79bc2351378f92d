/*
 * guard_cols.c - the guard's columns (guard.h, "Columns"): every node's
 * Extra as last read, compiled into the library's columns
 * (xc_nodes_compile(), parser/columns_match.c), so that a request
 * answered on many nodes at once (one new to the guard or the look, or
 * after many nodes changed) costs one pass over an array per leaf, not
 * an evaluation per node (doc/benchmarks.md "Evaluation over the whole
 * cluster").  Built outside slurmctld's locks from a copy of the texts,
 * installed in a later hold with the changes since replayed, kept
 * current in place (xc_nodes_update()) while at most GUARD_COLS_REPLAY
 * changes behind; further behind, or another node count, dropped until
 * built again.  A node's answer from the columns is the one satisfies()
 * gives in guard.c (the library's columns and xc_match() agree node for
 * node: parser/test), ANDed with the node having an object read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard_private.h"

struct guard_cols_copy {
	uint64_t serial;     /* the guard's it was copied from */
	uint64_t changes;    /* guard_changes() when the copy began */
	size_t nnodes, done; /* nodes, and nodes copied so far */
	xc_limits_t limits;
	char **texts;	   /* nnodes (NULL: none, or not read) */
	xc_nodes_t *table; /* built, compiled */
};

static void texts_free(struct guard_cols_copy *c)
{
	for (size_t i = 0; c->texts && i < c->nnodes; i++)
		free(c->texts[i]);
	free(c->texts);
	c->texts = NULL;
}

void guard_cols_drop(struct guard *g)
{
	xc_nodes_destroy(g->cols);
	free(g->matched);
	g->cols = NULL;
	g->matched = NULL;
}

bool guard_cols_current(struct guard *g)
{
	xc_error_t err;

	if (!g->cols)
		return false;
	if (xc_nodes_count(g->cols) != g->nnodes ||
	    g->changes < g->cols_changes ||
	    g->changes - g->cols_changes > GUARD_COLS_REPLAY) {
		guard_cols_drop(g);
		return false;
	}
	for (; g->cols_changes < g->changes; g->cols_changes++) {
		uint32_t i = g->change_log[g->cols_changes % GUARD_CHANGE_LOG];
		const struct node_seen *s = &g->nodes[i];

		/* (unset first: the columns know a text by its length and
		 * hash, the guard by its bytes, which say it changed) */
		if (xc_nodes_update(g->cols, i, NULL, &err) < 0 ||
		    xc_nodes_update(g->cols, i, s->read ? s->text : NULL,
				    &err) < 0) {
			guard_cols_drop(g);
			return false;
		}
	}
	return true;
}

struct guard_cols_copy *guard_cols_copy(struct guard *g)
{
	struct guard_cols_copy *c;

	if (guard_cols_current(g) || !g->looked || !g->nnodes)
		return NULL;
	if (!(c = calloc(1, sizeof(*c))) ||
	    !(c->texts = calloc(g->nnodes, sizeof(*c->texts)))) {
		free(c);
		return NULL;
	}
	c->serial = g->serial;
	c->changes = g->changes;
	c->nnodes = g->nnodes;
	c->limits = g->limits;
	return c;
}

int guard_cols_copy_more(const struct guard *g, struct guard_cols_copy *c,
			 size_t n)
{
	size_t end = n < c->nnodes - c->done ? c->done + n : c->nnodes;

	/* (another guard, or node count: what was copied is not its) */
	if (c->serial != g->serial || c->nnodes != g->nnodes)
		return -1;
	for (; c->done < end; c->done++) {
		const struct node_seen *s = &g->nodes[c->done];

		if (s->read && s->text &&
		    !(c->texts[c->done] = strdup(s->text)))
			return -1;
	}
	return c->done == c->nnodes;
}

bool guard_cols_build(struct guard_cols_copy *c)
{
	xc_error_t err;
	char name[24];

	if (!c || c->done != c->nnodes ||
	    !(c->table = xc_nodes_create(&c->limits)))
		return false;
	for (size_t i = 0; i < c->nnodes; i++) {
		snprintf(name, sizeof(name), "n%zu", i);
		if (xc_nodes_add(c->table, name, c->texts[i], NULL, &err) < 0)
			goto fail;
	}
	if (xc_nodes_compile(c->table, &err) < 0 ||
	    !xc_nodes_compiled(c->table))
		goto fail;
	texts_free(c); /* (in the columns now) */
	return true;
fail:
	xc_nodes_destroy(c->table);
	c->table = NULL;
	return false;
}

bool guard_cols_install(struct guard *g, struct guard_cols_copy *c)
{
	bool ok = c && c->table && c->serial == g->serial &&
		  c->nnodes == g->nnodes && !g->cols &&
		  g->changes >= c->changes &&
		  g->changes - c->changes <= GUARD_COLS_REPLAY &&
		  (g->matched = malloc((g->nnodes ? g->nnodes : 1) *
				       sizeof(*g->matched)));

	if (ok) {
		g->cols = c->table;
		g->cols_changes = c->changes;
		c->table = NULL;
		ok = guard_cols_current(g); /* (the changes since replayed) */
	}
	guard_cols_copy_free(c);
	if (!ok && !g->cols) {
		free(g->matched);
		g->matched = NULL;
	}
	return ok;
}

void guard_cols_copy_free(struct guard_cols_copy *c)
{
	if (!c)
		return;
	xc_nodes_destroy(c->table);
	texts_free(c);
	free(c);
}

size_t guard_cols_cost(const struct guard *g, const struct guard_req *r)
{
	/* (3 leaves at 65,536 nodes: some 0.44 ms, as 1,000 answers one
	 * by one, on a loaded 2-core machine: tests/bench/bench_look) */
	return 1 + (r->leaves + 4) * g->nnodes / 256;
}

bool guard_cols_answer(struct guard *g, struct guard_req *r, size_t *budget)
{
	size_t cost = guard_cols_cost(g, r);

	if (!g->cols || *budget < cost || !guard_cols_current(g) ||
	    xc_nodes_match(g->cols, r->expr, g->matched) < 0)
		return false;
	for (size_t i = 0; i < g->nnodes; i++) {
		const struct node_seen *s = &g->nodes[i];
		uint64_t m = 1ULL << (i % 64);

		/* (a node not read is kept off and asked again, as in
		 * guard.c's verdict()) */
		if (!s->read)
			continue;
		r->known[i / 64] |= m;
		if (s->extra && g->matched[i])
			r->fails[i / 64] &= ~m;
		else
			r->fails[i / 64] |= m;
	}
	*budget -= cost;
	g->cols_evaluated++;
	return true;
}

size_t guard_cols_evaluated(const struct guard *g)
{
	return g->cols_evaluated;
}
