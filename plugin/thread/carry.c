/*
 * carry.c - the feature carrier's claims, counts and node updates
 * (carry.h).  The names and the interned site lists are json-c's linkhash
 * tables, as the memo's are.
 */
#define _GNU_SOURCE /* asprintf */

#include <json-c/linkhash.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carry.h"
#include "ctld.h"
#include "thread.h"
#include "slurm_compat.h"
#include "xc_util.h"

static void free_name(struct lh_entry *e)
{
	struct carry_name *n = (struct carry_name *)lh_entry_v(e);

	free(n->canonical);
	free(n);
}

static void free_site(struct lh_entry *e)
{
	free((char *)lh_entry_k(e));
}

int carry_init(struct carry *c)
{
	memset(c, 0, sizeof(*c));
	c->names = lh_kchar_table_new(256, free_name);
	c->sites = lh_kchar_table_new(64, free_site);
	if (!c->names || !c->sites) {
		carry_free(c);
		return -1;
	}
	return 0;
}

void carry_free(struct carry *c)
{
	if (c->names)
		lh_table_free(c->names);
	if (c->sites)
		lh_table_free(c->sites);
	free(c->have);
	free(c->want);
	free(c->site);
	memset(c, 0, sizeof(*c));
}

void carry_conf(struct carry *c, time_t conf_time, bool manage, bool enabled)
{
	struct lh_entry *e;

	lh_foreach(c->names, e)
	{
		struct carry_name *n = (struct carry_name *)lh_entry_v(e);

		n->known = false;
		n->count = 0;
	}
	c->conf_time = conf_time;
	c->manage = manage;
	c->enabled = enabled && manage;
	c->dirty = true;
}

/* The interned copy of `site` ("" for none); NULL when out of memory. */
static const char *intern(struct carry *c, const char *site)
{
	char *copy;

	if (lh_table_lookup_ex(c->sites, site, (void **)&copy))
		return copy;
	if (!(copy = strdup(site)))
		return NULL;
	if (lh_table_insert(c->sites, copy, copy) < 0) {
		free(copy);
		return NULL;
	}
	return copy;
}

/* The set hash of the plugin's names in `list` (a node's features,
 * comma-separated; NULL none); with `site` (may be NULL), the list's other
 * tokens written there in their order, comma-separated (room for the whole
 * list). */
static uint64_t read_list(const char *list, char *site)
{
	uint64_t set = 0;
	size_t len = 0;

	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (sx_feature_is_ours(p, n)) {
			char name[SX_FEATURE_LEN + 1];

			memcpy(name, p, n);
			name[n] = '\0';
			set ^= xc_text_hash(name);
		} else if (site && n) {
			if (len)
				site[len++] = ',';
			memcpy(site + len, p, n);
			len += n;
		}
		p = end ? end + 1 : p + n;
	}
	if (site)
		site[len] = '\0';
	return set;
}

/* The arrays sized for `count` nodes; -1 when out of memory. */
static int size_arrays(struct carry *c, size_t count)
{
	uint64_t *have, *want;
	const char **site;

	if (c->have && c->nodes == count)
		return 0;
	have = calloc(count ? count : 1, sizeof(*have));
	want = calloc(count ? count : 1, sizeof(*want));
	site = calloc(count ? count : 1, sizeof(*site));
	if (!have || !want || !site) {
		free(have);
		free(want);
		free(site);
		return -1;
	}
	free(c->have);
	free(c->want);
	free(c->site);
	c->have = have;
	c->want = want;
	c->site = site;
	c->nodes = count;
	c->dirty = true;
	return 0;
}

int carry_seen(struct carry *c, const node_info_msg_t *msg, size_t count)
{
	size_t j = 0, room = 0;
	char *site = NULL;

	c->seen = false;
	if (size_arrays(c, count) < 0)
		return -1;
	/* The interned lists start again when they outnumber the nodes (a
	 * site changing its features keeps adding lists). */
	if ((size_t)lh_table_length(c->sites) > 2 * count + 64) {
		struct lh_table *fresh = lh_kchar_table_new(64, free_site);

		if (!fresh)
			return -1;
		lh_table_free(c->sites);
		c->sites = fresh;
	}
	for (uint32_t i = 0; i < msg->record_count && j < count; i++) {
		const node_info_t *node = &msg->node_array[i];
		const char *act = node->features_act ? node->features_act
						     : node->features;
		size_t len = node->features ? strlen(node->features) : 0;
		uint64_t avail;

		if (!node->name)
			continue;
		if (len + 1 > room) { /* room for the longest list so far */
			char *more = realloc(site, len + 1);

			if (!more) {
				free(site);
				return -1;
			}
			site = more;
			room = len + 1;
		}
		avail = read_list(node->features, site);
		c->have[j] = read_list(act, NULL);
		/* The plugin's names differ between available and active:
		 * not a set the plugin wrote, so never equal to one it
		 * wants (its update writes both). */
		if (c->have[j] != avail)
			c->have[j] = ~c->have[j] ^ avail;
		if (!(c->site[j] = intern(c, site))) {
			free(site);
			return -1;
		}
		j++;
	}
	for (; j < count; j++) { /* hidden nodes: never updated */
		c->have[j] = c->want[j] = 0;
		c->site[j] = NULL;
	}
	free(site);
	c->seen = true;
	return 0;
}

/* The name `name` as the entry points may use it: enabled, slurm.conf not
 * read again since (its names forgotten then), known to slurmctld, no
 * clash; NULL otherwise. */
static const struct carry_name *usable(const struct carry *c, const char *name)
{
	struct carry_name *n;

	if (!c->enabled || sx_conf_time() != c->conf_time ||
	    !lh_table_lookup_ex(c->names, name, (void **)&n) || !n->known ||
	    n->conflict)
		return NULL;
	return n;
}

long carry_lookup(const struct carry *c, const char *canonical,
		  char name[SX_FEATURE_LEN + 1])
{
	const struct carry_name *n;

	sx_feature_name(xc_text_hash(canonical), name);
	n = usable(c, name);
	return n && strcmp(n->canonical, canonical) == 0 ? (long)n->count : -1;
}

long carry_lookup_name(const struct carry *c, const char *name)
{
	const struct carry_name *n = usable(c, name);

	return n ? (long)n->count : -1;
}

bool carry_may(const struct carry *c, const struct memo_request *req,
	       bool *known, size_t *count)
{
	struct carry_name *n;

	*known = false;
	*count = 0;
	if (!c || !c->enabled || !req || req->carry_conflict)
		return false;
	if (!lh_table_lookup_ex(c->names, req->feature, (void **)&n))
		return true; /* free: claimed at this round's end */
	if (strcmp(n->canonical, req->canonical) != 0)
		return false;
	*known = n->known;
	*count = n->count;
	return true;
}

/* The names a job wanted this round claim theirs (a name claimed by
 * another request in an earlier round stays with it; a free one two
 * requests want in this round is claimed by neither: both marked in
 * conflict, the name wanted by none); *set gets the XOR of the wanted
 * names' hashes; each name's count noted as it was before the plan.  -1
 * when out of memory. */
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
			if (!(n = calloc(1, sizeof(*n))) ||
			    !(n->canonical = strdup(r->canonical))) {
				free(n);
				return -1;
			}
			memcpy(n->name, r->feature, sizeof(n->name));
			n->hash = xc_text_hash(n->name);
			n->claimed = round;
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

bool carry_covers(const struct carry *c, const struct refilter_memo *memo)
{
	struct lh_entry *e;

	if (!c->enabled || !memo->requests || memo->plan_all)
		return false;
	lh_foreach(memo->requests, e)
	{
		const struct memo_request *r =
			(const struct memo_request *)lh_entry_v(e);
		size_t now, need, was = r->count_at_plan;

		if (r->changed <= memo->round)
			continue; /* unchanged since the last plan */
		if (!r->carried_only || !r->bits)
			return false;
		now = memo_request_count(r);
		need = r->max_nodes ? r->max_nodes : 1;
		if (now < need || was < need)
			return false;
	}
	return true;
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

/* For the grouping: nodes by their site list, then their wanted set. */
struct node_key {
	const char *site;
	uint64_t want;
	size_t node;
};

static int by_key(const void *a, const void *b)
{
	const struct node_key *x = a, *y = b;

	if (x->site != y->site)
		return (x->site > y->site) - (x->site < y->site);
	if (x->want != y->want)
		return (x->want > y->want) - (x->want < y->want);
	return (x->node > y->node) - (x->node < y->node);
}

/* The update of the nodes keys[from, to) (same site list, same set):
 * their names and their new list.  -1 when out of memory. */
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
	if (!(u->features = sx_node_features(c->site[first], ours, k)) ||
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
		free(u->features);
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
							   c->want[i], i };
		qsort(keys, nkeys, sizeof(*keys), by_key);
		for (size_t from = 0, to; from < nkeys; from = to) {
			for (to = from + 1;
			     to < nkeys && keys[to].site == keys[from].site &&
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
		free(ups[k].features);
		free(ups[k].idx);
	}
	free(ups);
}

char *carry_status(const char *name, size_t allowed, size_t total,
		   uint32_t min_nodes)
{
	char *s = NULL;
	int rc;

	if (min_nodes == 0 || min_nodes == NO_VAL)
		min_nodes = 1;
	if (allowed == 0)
		rc = asprintf(
			&s,
			"waiting for a node whose Extra satisfies the request (none of %zu does; slurm-extra why --job ID tells why)",
			total);
	else if (allowed < min_nodes)
		rc = asprintf(
			&s,
			"waiting for %u nodes whose Extra satisfies the request (fewer do; slurm-extra why --job ID tells why)",
			min_nodes);
	else
		rc = asprintf(
			&s,
			"the nodes whose Extra satisfies the request carry feature %s (slurm-extra why --job ID tells which)",
			name);
	return rc < 0 ? NULL : s;
}
