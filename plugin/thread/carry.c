/*
 * carry.c - the feature carrier's names (carry.h): what the nodes carry,
 * the names the entry points may use, whether a node change needs the
 * jobs, a job's status; its plan and node updates are carry_plan.c's.
 * The names and the interned site lists are json-c's linkhash tables, as
 * the memo's are.
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
	free(c->site_act);
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

/* Whether the `n` bytes at `token` are one of the tokens of `list`
 * (comma-separated). */
static bool in_list(const char *list, const char *token, size_t n)
{
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");

		if (len == n && memcmp(p, token, n) == 0)
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

/* `act` (a site's active list, comma-separated) kept, in place, to the
 * tokens of `avail` (its available list): Slurm refuses an update whose
 * active list names a feature its available list lacks
 * (_valid_features_act() in update_node(), src/slurmctld/node_mgr.c,
 * 22.05.8 to 26.05.3), and without a NodeFeatures plugin no update makes
 * such a node, so this drops nothing Slurm let through. */
static void keep_available(char *act, const char *avail)
{
	char *w = act;

	for (const char *p = act; *p;) {
		size_t len = strcspn(p, ",");
		const char *next = p + len + (p[len] == ',');

		if (len && in_list(avail, p, len)) {
			if (w != act)
				*w++ = ',';
			memmove(w, p, len);
			w += len;
		}
		p = next;
	}
	*w = '\0';
}

/* The arrays sized for `count` nodes; -1 when out of memory. */
static int size_arrays(struct carry *c, size_t count)
{
	uint64_t *have, *want;
	const char **site, **site_act;

	if (c->have && c->nodes == count)
		return 0;
	have = calloc(count ? count : 1, sizeof(*have));
	want = calloc(count ? count : 1, sizeof(*want));
	site = calloc(count ? count : 1, sizeof(*site));
	site_act = calloc(count ? count : 1, sizeof(*site_act));
	if (!have || !want || !site || !site_act) {
		free(have);
		free(want);
		free(site);
		free(site_act);
		return -1;
	}
	free(c->have);
	free(c->want);
	free(c->site);
	free(c->site_act);
	c->have = have;
	c->want = want;
	c->site = site;
	c->site_act = site_act;
	c->nodes = count;
	c->dirty = true;
	return 0;
}

/* A node's active list: unset is its available list, as update_node()
 * reads it (`orig_features_act`, src/slurmctld/node_mgr.c, 22.05.8 to
 * 26.05.3). */
static const char *active_of(const node_info_t *node)
{
	return node->features_act ? node->features_act : node->features;
}

int carry_seen(struct carry *c, const node_info_msg_t *msg, size_t count)
{
	size_t j = 0, room = 0;
	char *site = NULL, *site_act;

	c->seen = false;
	if (size_arrays(c, count) < 0)
		return -1;
	/* The interned lists start again when they outnumber the nodes' two
	 * (available and active) well (a site changing its features keeps
	 * adding lists). */
	if ((size_t)lh_table_length(c->sites) > 4 * count + 64) {
		struct lh_table *fresh = lh_kchar_table_new(64, free_site);

		if (!fresh)
			return -1;
		lh_table_free(c->sites);
		c->sites = fresh;
	}
	for (uint32_t i = 0; i < msg->record_count && j < count; i++) {
		const node_info_t *node = &msg->node_array[i];
		const char *act = active_of(node);
		size_t len = node->features ? strlen(node->features) : 0;
		uint64_t avail;

		if (!node->name)
			continue;
		if (act && strlen(act) > len)
			len = strlen(act);
		if (2 * (len + 1) > room) { /* room for the longest lists */
			char *more = realloc(site, 2 * (len + 1));

			if (!more) {
				free(site);
				return -1;
			}
			site = more;
			room = 2 * (len + 1);
		}
		site_act = site + len + 1;
		avail = read_list(node->features, site);
		c->have[j] = read_list(act, site_act);
		keep_available(site_act, site);
		/* The plugin's names differ between available and active:
		 * not a set the plugin wrote, so never equal to one it
		 * wants (its update writes both). */
		if (c->have[j] != avail)
			c->have[j] = ~c->have[j] ^ avail;
		if (!(c->site[j] = intern(c, site)) ||
		    !(c->site_act[j] = intern(c, site_act))) {
			free(site);
			return -1;
		}
		j++;
	}
	for (; j < count; j++) { /* hidden nodes: never updated */
		c->have[j] = c->want[j] = 0;
		c->site[j] = c->site_act[j] = NULL;
	}
	free(site);
	c->seen = true;
	return 0;
}

int carry_fresh_read(struct carry_fresh *f, const node_info_t *node)
{
	const char *act = active_of(node);
	size_t la = node->features ? strlen(node->features) : 0;
	size_t lb = act ? strlen(act) : 0;
	char *a = malloc(la + 1), *b = malloc(lb + 1);

	if (!a || !b) {
		free(a);
		free(b);
		return -1;
	}
	read_list(node->features, a);
	read_list(act, b);
	keep_available(b, a);
	if (!f->nodes++) {
		f->avail = a;
		f->act = b;
		return 0;
	}
	if (strcmp(a, f->avail) != 0 || strcmp(b, f->act) != 0)
		f->differ = true;
	free(a);
	free(b);
	return 0;
}

int carry_fresh_lists(const struct carry_fresh *f, const struct carry_update *u,
		      char **avail, char **act)
{
	const char *ours = u->ours;

	*avail = *act = NULL;
	if (f->differ || f->nodes != u->nodes || !f->avail)
		return 1;
	if (!(*avail = sx_node_features(f->avail, &ours, 1)) ||
	    !(*act = sx_node_features(f->act, &ours, 1))) {
		free(*avail);
		*avail = NULL;
		return -1;
	}
	return 0;
}

void carry_fresh_free(struct carry_fresh *f)
{
	free(f->avail);
	free(f->act);
	memset(f, 0, sizeof(*f));
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
