/*
 * why.h - `slurm-extra why`: which part of a request rules out which
 * nodes.
 */
#ifndef SLURM_EXTRA_WHY_H
#define SLURM_EXTRA_WHY_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "xc.h"

/*
 * Reports on `out` how request `expr` fares on the nodes of `table` (not
 * compiled: the nodes' parsed Extra are read) for which in[i] is set (`in`
 * NULL: all of them).  The items are the request's top-level parts (the
 * children of a top-level AND; else the request itself); for each, how
 * many nodes satisfy it, and the others grouped by why (xc_leaf_check:
 * values compared, with the values and the largest or smallest; missing
 * key; value not comparable; request value not a number; no usable Extra;
 * for a group: the nodes it fails on), each with a few node names as a
 * hostlist.  Then the closest nodes: those that fail the fewest items, and
 * which.  The request's parts, keys and values, the nodes' values and
 * names are shown escaped (put_text, json_text: cli.h), as text another
 * user may have written.  With `json`, the same as one JSON object
 * (complete hostlists, the first 8 values).  Returns the number of nodes
 * that satisfy the request, or -1 when out of memory (after printing why
 * on stderr).  The report is the one slurm-extra(1) describes under
 * "why"; its reasons are the evaluator's (doc/language.md §3).  `more`
 * (may be NULL, borrowed): members added to the JSON object (a job's
 * preferences).
 */
long why_report(FILE *out, const xc_expr_t *expr, const xc_nodes_t *table,
		const bool *in, bool json, json_t *more);

#endif
