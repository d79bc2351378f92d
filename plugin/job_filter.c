/*
 * job_filter.c - the filter of one job (job_filter.h).  Hostlists are read
 * with Slurm's own functions (slurm_hostlist_*); a job's excluded nodes are
 * written in one pass over the node table (xc_nodes_hostlist), which
 * Slurm's push-sort-rank takes 10x longer to do at 10,000 nodes (2.1 ms)
 * and under slurmctld's locks.
 */
#define _GNU_SOURCE /* asprintf */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_filter.h"
#include "slurm_compat.h"
#include "slurm_hostlist.h"
#include "slurm_nodes.h"

bool *filter_match(const xc_nodes_t *table, const xc_expr_t *expr)
{
	size_t count = xc_nodes_count(table);
	bool *matched = calloc(count ? count : 1, sizeof(*matched));

	if (matched && xc_nodes_match(table, expr, matched) < 0) {
		free(matched); /* out of memory: no answer, not "none" */
		return NULL;
	}
	return matched;
}

/* A required node of filter_excludes_required(): 1 when excluded. */
struct required {
	const xc_nodes_t *table;
	const bool *matched;
};

static int excluded_required(const char *host, void *arg)
{
	const struct required *q = arg;
	long i = xc_nodes_find(q->table, host);

	return i >= 0 && !q->matched[i];
}

bool filter_excludes_required(const xc_nodes_t *table, const xc_expr_t *expr,
			      const char *req)
{
	struct required q = { table, NULL };
	sx_hostlist_t want;
	bool *matched;
	int rc;

	if (!table || !expr || !(want = slurm_hostlist_create(req)))
		return false;
	if (!(matched = filter_match(table, expr))) {
		slurm_hostlist_destroy(want);
		return true; /* out of memory */
	}
	q.matched = matched;
	/* an excluded node found (1), or out of memory (-1) */
	rc = sx_hostlist_walk(want, excluded_required, &q);
	slurm_hostlist_destroy(want);
	free(matched);
	return rc != 0;
}

int filter_compute_slurm(const xc_nodes_t *table, const bool *matched,
			 const char *user_exc, const char *req,
			 struct job_filter *f)
{
	sx_hostlist_t exc = NULL, user = NULL, required = NULL;
	size_t count = xc_nodes_count(table);
	int rc = -1;

	memset(f, 0, sizeof(*f));
	f->total = count;
	if (!(exc = slurm_hostlist_create(user_exc ? user_exc : "")) ||
	    (user_exc && *user_exc &&
	     !(user = slurm_hostlist_create(user_exc))) ||
	    (req && *req && !(required = slurm_hostlist_create(req))))
		goto out;
	for (size_t i = 0; i < count; i++) {
		const char *name = xc_nodes_name(table, i);

		if (matched[i]) {
			if (!user || slurm_hostlist_find(user, name) < 0)
				f->allowed++;
		} else if (required &&
			   slurm_hostlist_find(required, name) >= 0) {
			f->req_unmatched = true;
		} else if (!slurm_hostlist_push_host(exc, name)) {
			goto out;
		}
	}
	slurm_hostlist_uniq(exc);
	if (slurm_hostlist_count(exc) > 0 &&
	    !(f->exc = sx_hostlist_string(exc)))
		goto out;
	rc = 0;
out:
	if (exc)
		slurm_hostlist_destroy(exc);
	if (user)
		slurm_hostlist_destroy(user);
	if (required)
		slurm_hostlist_destroy(required);
	return rc;
}

/* *exc (malloc'd) with every node of the user's list `user_exc` added,
 * sorted and ranged as Slurm writes lists: the user's names the table does
 * not know are kept (the others are in *exc already).  -1 when out of
 * memory. */
static int keep_unknown(char **exc, const char *user_exc)
{
	sx_hostlist_t hl = slurm_hostlist_create(*exc);
	char *s;

	if (!hl)
		return -1;
	if (!slurm_hostlist_push(hl, user_exc)) {
		slurm_hostlist_destroy(hl);
		return -1;
	}
	slurm_hostlist_uniq(hl);
	s = sx_hostlist_string(hl);
	slurm_hostlist_destroy(hl);
	if (!s)
		return -1;
	free(*exc);
	*exc = s;
	return 0;
}

int filter_compute(const xc_nodes_t *table, const bool *matched,
		   const char *user_exc, const char *req, struct job_filter *f)
{
	size_t count = xc_nodes_count(table);
	bool *exc = NULL, *user = NULL, *required = NULL;
	bool has_user = user_exc && *user_exc, has_req = req && *req;
	int rc = -1, m = 0;

	/* Without the name index, Slurm's hostlist functions do it all. */
	if (!xc_nodes_compiled(table))
		return filter_compute_slurm(table, matched, user_exc, req, f);
	memset(f, 0, sizeof(*f));
	f->total = count;
	/* three arrays of one allocation: excluded, user's, required */
	if (!(exc = calloc(count ? 3 * count : 1, sizeof(*exc))))
		return -1;
	user = exc + count;
	required = user + count;
	/* m > 0: the user excluded a node the table does not know (a
	 * hidden one, or none Slurm knows: Slurm answers for that), kept in
	 * the list below.  (It went through Slurm's functions node by node,
	 * each lookup linear in the user's list: 6 s for 100,000 names at
	 * 10,000 nodes, under slurmctld's job write lock.) */
	if (has_user &&
	    (m = sx_nodes_mark(table, user_exc, user, true, NULL)) < 0)
		goto out;
	if (has_req && sx_nodes_mark(table, req, required, true, NULL) < 0)
		goto out;
	for (size_t i = 0; i < count; i++) {
		if (matched[i]) {
			f->allowed += !user[i];
			exc[i] = user[i];
		} else if (required[i]) {
			f->req_unmatched = true;
			exc[i] = user[i];
		} else {
			exc[i] = true;
		}
	}
	if (!(f->exc = xc_nodes_hostlist(table, exc)))
		goto out;
	if (has_user && m > 0 && keep_unknown(&f->exc, user_exc) < 0)
		goto out;
	if (!*f->exc) {
		free(f->exc);
		f->exc = NULL;
	}
	rc = 0;
out:
	free(exc);
	return rc;
}

char *filter_status(const struct job_filter *f)
{
	char *s = NULL;
	int rc;

	if (f->req_unmatched)
		rc = asprintf(
			&s,
			"held: a required node does not satisfy the request (%zu of %zu nodes do; slurm-extra why --job ID tells why)",
			f->allowed, f->total);
	else if (f->allowed == 0)
		rc = asprintf(
			&s,
			"waiting for a node whose Extra satisfies the request (none of %zu does; slurm-extra why --job ID tells why)",
			f->total);
	else
		rc = asprintf(&s, "%zu of %zu nodes satisfy the request",
			      f->allowed, f->total);
	return rc < 0 ? NULL : s;
}

void filter_free(struct job_filter *f)
{
	free(f->exc);
	f->exc = NULL;
}

uint64_t hostlist_hash(const char *hostlist)
{
	char *normal = sx_hostlist_normal(hostlist);
	uint64_t h = xc_text_hash(normal);

	free(normal);
	return h;
}

/* Whether a user's list `list` cannot be a list of the nodes of `table`
 * alone, each named once: longer than all their names written one by one
 * with a comma between.  Linear in the nodes. */
static bool longer_than_table(const xc_nodes_t *table, const char *list)
{
	size_t len = strlen(list), names = 0;

	for (size_t i = 0, n = xc_nodes_count(table); i < n && names < len; i++)
		names += strlen(xc_nodes_name(table, i)) + 1;
	return len > names;
}

/* Whether `normal` (a ranged list, duplicates removed) names more nodes
 * than `table` has, or one it does not have: 1, else 0; -1 when out of
 * memory.  Walks at most the table's count of names (a short text may
 * name tens of thousands: x[1-60000]). */
static int beyond_table(const xc_nodes_t *table, const char *normal)
{
	sx_hostlist_t hl = slurm_hostlist_create(normal);
	size_t count = xc_nodes_count(table);
	bool *seen;
	int rc;

	if (!hl)
		return -1;
	rc = (size_t)slurm_hostlist_count(hl) > count;
	slurm_hostlist_destroy(hl);
	if (rc)
		return 1;
	if (!(seen = calloc(count + 1, sizeof(*seen))))
		return -1;
	rc = sx_nodes_mark(table, normal, seen, true, NULL);
	free(seen);
	return rc;
}

/* The user's list `list` kept as they wrote it, unread, with the nodes of
 * `f` (the plugin's own exclusions) after it: "list,n[3-4]".  malloc'd;
 * NULL when out of memory. */
static char *append_unread(const char *list, const struct job_filter *f)
{
	char *out = NULL;

	if (!f->exc || !*f->exc)
		return strdup(list);
	return asprintf(&out, "%s%s%s", list, *list ? "," : "", f->exc) < 0
		       ? NULL
		       : out;
}

int filter_update_list(const xc_nodes_t *table, const bool *matched,
		       const char *given, const char *own, const char *req,
		       struct update_list *l)
{
	struct job_filter f = { 0 };
	bool unread = false;
	char *user = NULL;
	int rc = -1, beyond;

	memset(l, 0, sizeof(*l));
	if (given && longer_than_table(table, given)) {
		unread = true;
	} else {
		if (!(user = given ? sx_hostlist_normal(given)
				   : strdup(own ? own : "")))
			return given ? 1 : -1; /* not a hostlist: Slurm's */
		if (given && *user &&
		    (beyond = beyond_table(table, user)) != 0) {
			if (beyond < 0)
				goto out;
			unread = true;
		}
	}
	if (filter_compute(table, matched, unread ? NULL : user, req, &f) < 0) {
		rc = 1; /* Slurm answers the caller about its hostlists */
		goto out;
	}
	if (unread) { /* the user's part: their list as they wrote it */
		free(user);
		if (!(user = strdup(given)) ||
		    !(l->exc = append_unread(user, &f)))
			goto out;
		l->exc_text = xc_text_hash(l->exc);
	} else {
		if (!(l->exc = strdup(f.exc ? f.exc : "")))
			goto out;
		l->exc_hash = hostlist_hash(l->exc);
	}
	l->user = user;
	user = NULL;
	rc = 0;
out:
	if (rc != 0) {
		free(l->exc);
		l->exc = NULL;
	}
	free(user);
	filter_free(&f);
	return rc;
}
