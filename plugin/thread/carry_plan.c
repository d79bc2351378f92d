/*
 * carry_plan.c - the feature carrier's plan (carry.h): the claims of a
 * round's requests, the features each node should carry, the node updates
 * that set them, and what their outcome teaches (carry_plan, carry_done).
 */
#include <json-c/linkhash.h>
#include <stdlib.h>
#include <string.h>

#include "carry.h"
#include "slurm_compat.h"
#include "xc_util.h"

/* Whether one more name may be claimed for the jobs of user `owner`:
 * CARRY_MAX_NAMES in all and CARRY_MAX_USER_NAMES of theirs (carry.h),
 * the names not wanted since counted until they are forgotten.  Linear in
 * the names, which that bounds. */
static bool within_bounds(const struct carry *c, uint32_t owner)
{
	size_t all = 0, theirs = 0;
	struct lh_entry *e;

	lh_foreach(c->names, e)
	{
		all++;
		theirs += ((const struct carry_name *)lh_entry_v(e))->owner ==
			  owner;
	}
	return all < CARRY_MAX_NAMES && theirs < CARRY_MAX_USER_NAMES;
}

/* The names a job wanted this round claim theirs (a name claimed by
 * another request in an earlier round stays with it; a free one two
 * requests want in this round is claimed by neither: both marked in
 * conflict, the name wanted by none; a free one past the bounds,
 * within_bounds(), by none either: its jobs go by their ExcNodeList);
 * *set gets the XOR of the wanted names' hashes; each name's count noted
 * as it was before the plan.  -1 when out of memory. */
static int claim(struct carry *c, struct refilter_memo *memo, uint64_t round,
		 uint64_t *set)
{
	struct lh_entry *e;

	*set = 0;
	lh_foreach(c->names, e)
	{
		struct carry_name *n = (struct carry_name *)lh_entry_v(e);

		n->req = NULL;
		n->before = n->count;
	}
	lh_foreach(memo->requests, e)
	{
		struct memo_request *r = (struct memo_request *)lh_entry_v(e);
		struct carry_name *n;

		if (r->carry_round != round || !c->enabled || r->carry_conflict)
			continue;
		if (!lh_table_lookup_ex(c->names, r->feature, (void **)&n)) {
			if (!within_bounds(c, r->carry_owner))
				continue;
			if (!(n = calloc(1, sizeof(*n))) ||
			    !(n->canonical = strdup(r->canonical))) {
				free(n);
				return -1;
			}
			memcpy(n->name, r->feature, sizeof(n->name));
			n->hash = xc_text_hash(n->name);
			n->claimed = round;
			n->owner = r->carry_owner;
			if (lh_table_insert(c->names, n->name, n) < 0) {
				free(n->canonical);
				free(n);
				return -1;
			}
		} else if (strcmp(n->canonical, r->canonical) != 0) {
			/* another request's name: claimed before, it keeps
			 * it; claimed free in this very round, neither */
			if (n->claimed == round || n->conflict) {
				n->conflict = true;
				r->carry_conflict = true;
				if (n->req)
					n->req->carry_conflict = true;
			}
			continue;
		}
		n->round = round;
		n->req = r;
		n->owner = r->carry_owner; /* whose jobs want it now */
	}
	lh_foreach(c->names, e)
	{
		struct carry_name *n = (struct carry_name *)lh_entry_v(e);

		if (n->conflict) { /* off every node, then forgotten */
			n->round = 0;
			n->req = NULL;
			n->known = false;
			n->count = 0;
		}
		if (n->round != round || !n->req)
			continue;
		*set ^= n->hash;
		if (n->req->moves != n->moves)
			c->dirty = true; /* its nodes changed */
	}
	return 0;
}

/* Whether bit `i` of a request's nodes is set. */
static inline bool has_bit(const uint64_t *bits, size_t i)
{
	return bits[i / 64] >> (i % 64) & 1;
}

/* Whether every name wanted this round has its request's nodes evaluated
 * on the table as it is (else the next round plans). */
static bool bits_ready(const struct carry *c, uint64_t round)
{
	struct lh_entry *e;

	lh_foreach(c->names, e)
	{
		struct carry_name *n = (struct carry_name *)lh_entry_v(e);

		if (n->round == round &&
		    (!n->req || !n->req->bits || n->req->nodes != c->nodes))
			return false;
	}
	return true;
}

/* Each node's wanted set computed again from the names wanted this round,
 * and each name's count of nodes (hidden ones left out). */
static void compute_want(struct carry *c, uint64_t round)
{
	struct lh_entry *e;

	memset(c->want, 0, c->nodes * sizeof(*c->want));
	lh_foreach(c->names, e)
	{
		struct carry_name *n = (struct carry_name *)lh_entry_v(e);

		n->want = 0;
		if (n->round != round)
			continue;
		n->moves = n->req->moves;
		for (size_t w = 0; w < (c->nodes + 63) / 64; w++) {
			uint64_t word = n->req->bits[w];

			while (word) {
				size_t i =
					w * 64 + (size_t)__builtin_ctzll(word);

				word &= word - 1;
				if (i < c->nodes && c->site[i]) {
					c->want[i] ^= n->hash;
					n->want++;
				}
			}
		}
	}
}

/* The names wanted this round, sorted: the order a node's list has them. */
static int by_name(const void *a, const void *b)
{
	return strcmp((*(struct carry_name *const *)a)->name,
		      (*(struct carry_name *const *)b)->name);
}

/* The names wanted in round `round` (borrowed), sorted by name, *n of
 * them; malloc'd array, NULL when out of memory. */
static struct carry_name **wanted_names(const struct carry *c, uint64_t round,
					size_t *n)
{
	struct carry_name **v;
	struct lh_entry *e;
	size_t k = 0;

	*n = 0;
	lh_foreach(c->names, e) k +=
		((struct carry_name *)lh_entry_v(e))->round == round;
	if (!(v = malloc((k ? k : 1) * sizeof(*v))))
		return NULL;
	k = 0;
	lh_foreach(c->names, e)
	{
		struct carry_name *cn = (struct carry_name *)lh_entry_v(e);

		if (cn->round == round)
			v[k++] = cn;
	}
	qsort(v, k, sizeof(*v), by_name);
	*n = k;
	return v;
}

/* For the grouping: nodes by their site lists (available, then active:
 * interned, so compared by address), then their wanted set. */
struct node_key {
	const char *site, *site_act;
	uint64_t want;
	size_t node;
};

static int by_key(const void *a, const void *b)
{
	const struct node_key *x = a, *y = b;

	if (x->site != y->site)
		return (x->site > y->site) - (x->site < y->site);
	if (x->site_act != y->site_act)
		return (x->site_act > y->site_act) -
		       (x->site_act < y->site_act);
	if (x->want != y->want)
		return (x->want > y->want) - (x->want < y->want);
	return (x->node > y->node) - (x->node < y->node);
}

/* The update of the nodes keys[from, to) (same site lists, same set):
 * their names, the plugin's names, and their new lists, available and
 * active.  -1 when out of memory. */
static int make_update(const struct carry *c, const xc_nodes_t *table,
		       struct carry_name *const *names, size_t nnames,
		       const struct node_key *keys, size_t from, size_t to,
		       struct carry_update *u)
{
	const char **ours = malloc((nnames ? nnames : 1) * sizeof(*ours));
	const char **hosts = malloc((to - from) * sizeof(*hosts));
	size_t k = 0, first = keys[from].node;
	int rc = -1;

	memset(u, 0, sizeof(*u));
	if (!ours || !hosts)
		goto out;
	for (size_t i = 0; i < nnames; i++)
		if (has_bit(names[i]->req->bits, first))
			ours[k++] = names[i]->name;
	if (!(u->ours = sx_node_features(NULL, ours, k)) ||
	    !(u->features = sx_node_features(c->site[first], ours, k)) ||
	    !(u->features_act =
		      sx_node_features(c->site_act[first], ours, k)) ||
	    !(u->idx = malloc((to - from) * sizeof(*u->idx))))
		goto out;
	for (size_t i = from; i < to; i++) {
		u->idx[i - from] = keys[i].node;
		hosts[i - from] = xc_nodes_name(table, keys[i].node);
	}
	u->nodes = to - from;
	/* its own names alone: a list of the table's would cost the table's
	 * size for every update */
	if ((u->names = xc_hostlist_of(hosts, to - from, NULL)))
		rc = 0;
out:
	free(ours);
	free(hosts);
	if (rc < 0) {
		free(u->ours);
		free(u->features);
		free(u->features_act);
		free(u->idx);
		memset(u, 0, sizeof(*u));
	}
	return rc;
}

/* The counts that can only fall while the updates are sent: a wanted
 * name's nodes that keep it are those that should have it (its `want`)
 * less those about to be updated (`keys`, whose present set is not what
 * is wanted); a name no longer wanted, none.  Each the lower of that and
 * the count now.  In time proportional to the wanted names times the
 * nodes updated. */
static void lower_counts(struct carry *c, uint64_t round,
			 struct carry_name *const *names, size_t nnames,
			 const struct node_key *keys, size_t nkeys)
{
	struct lh_entry *e;

	lh_foreach(c->names, e)
	{
		struct carry_name *n = (struct carry_name *)lh_entry_v(e);

		if (n->round != round)
			n->count = 0;
	}
	for (size_t k = 0; k < nnames; k++) {
		struct carry_name *n = names[k];
		size_t stable = n->want;

		for (size_t i = 0; i < nkeys && stable; i++)
			stable -= has_bit(n->req->bits, keys[i].node);
		if (stable < n->count)
			n->count = stable;
	}
	lh_foreach(c->names, e)
	{
		struct carry_name *n = (struct carry_name *)lh_entry_v(e);

		n->low = n->count;
	}
}

int carry_plan(struct carry *c, struct refilter_memo *memo,
	       const xc_nodes_t *table, uint64_t round,
	       struct carry_update **ups, size_t *n, void (*lock)(void *),
	       void (*unlock)(void *), void *arg)
{
	struct carry_name **names = NULL;
	struct node_key *keys = NULL;
	size_t nnames = 0, nkeys = 0, nups = 0;
	uint64_t set;
	int rc = -1;

	*ups = NULL;
	*n = 0;
	if (!c->manage || !c->seen || c->nodes != xc_nodes_count(table))
		return 0;
	lock(arg); /* the entry points look the names up */
	rc = claim(c, memo, round, &set);
	unlock(arg);
	if (rc < 0)
		return -1;
	rc = -1;
	if (set != c->set_hash)
		c->dirty = true;
	if (!bits_ready(c, round)) {
		c->dirty = true;
		return 0; /* the next round, with every evaluation */
	}
	if (c->dirty) {
		compute_want(c, round);
		c->set_hash = set;
		c->dirty = false;
	}
	if (!(names = wanted_names(c, round, &nnames)))
		return -1;
	for (size_t i = 0; i < c->nodes; i++)
		nkeys += c->site[i] && c->have[i] != c->want[i];
	if (nkeys) {
		if (!(keys = malloc(nkeys * sizeof(*keys))) ||
		    !(*ups = calloc(nkeys, sizeof(**ups))))
			goto out;
		nkeys = 0;
		for (size_t i = 0; i < c->nodes; i++)
			if (c->site[i] && c->have[i] != c->want[i])
				keys[nkeys++] =
					(struct node_key){ c->site[i],
							   c->site_act[i],
							   c->want[i], i };
		qsort(keys, nkeys, sizeof(*keys), by_key);
		for (size_t from = 0, to; from < nkeys; from = to) {
			for (to = from + 1;
			     to < nkeys && keys[to].site == keys[from].site &&
			     keys[to].site_act == keys[from].site_act &&
			     keys[to].want == keys[from].want;
			     to++)
				;
			if (make_update(c, table, names, nnames, keys, from, to,
					&(*ups)[nups]) < 0)
				goto out;
			nups++;
		}
	}
	lock(arg);
	lower_counts(c, round, names, nnames, keys, nkeys);
	unlock(arg);
	*n = nups;
	c->planned = round;
	rc = 0;
out:
	if (rc < 0) {
		carry_updates_free(*ups, nups);
		*ups = NULL;
	}
	free(keys);
	free(names);
	return rc;
}

bool carry_done(struct carry *c, struct refilter_memo *memo,
		const struct carry_update *ups, size_t n, const bool *ok,
		uint64_t round)
{
	struct lh_entry *e, *next;
	bool all = true, marked = false;

	(void)memo;
	if (c->planned != round)
		return false; /* nothing planned: nothing learnt */
	c->planned = 0;
	for (size_t k = 0; k < n; k++) {
		if (!ok[k]) {
			all = false;
			continue;
		}
		for (size_t i = 0; i < ups[k].nodes; i++)
			c->have[ups[k].idx[i]] = c->want[ups[k].idx[i]];
	}
	if (!all || c->dirty)
		return false; /* the next round's load tells */
	lh_foreach_safe(c->names, e, next)
	{
		struct carry_name *cn = (struct carry_name *)lh_entry_v(e);

		/* A count that rose, or a name slurmctld now knows: the
		 * next round plans the request's jobs (a job moves to the
		 * feature, a BadConstraints job is taken up again). */
		/* (a rise that leaves the count below none of its jobs'
		 * needs changes nothing for them: not marked) */
		if (cn->req &&
		    ((cn->want > cn->low &&
		      cn->low <
			      (cn->req->max_nodes ? cn->req->max_nodes : 1)) ||
		     (cn->want && !cn->known))) {
			cn->req->changed = cn->req->rose = round + 1;
			marked = true;
		}
		cn->count = cn->want;
		cn->known = cn->known || cn->want > 0;
		cn->req = NULL;
		if (cn->round != round) /* no job wants it: off every node */
			lh_table_delete_entry(c->names, e);
	}
	return marked;
}

void carry_updates_free(struct carry_update *ups, size_t n)
{
	for (size_t k = 0; ups && k < n; k++) {
		free(ups[k].names);
		free(ups[k].ours);
		free(ups[k].features);
		free(ups[k].features_act);
		free(ups[k].idx);
	}
	free(ups);
}
