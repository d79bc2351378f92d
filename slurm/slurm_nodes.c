/*
 * slurm_nodes.c - the node table from Slurm's node data, and a hostlist's
 * nodes in it (slurm_nodes.h).
 */
#include <stdlib.h>
#include <string.h>

#include "slurm_hostlist.h"
#include "slurm_nodes.h"

int sx_nodes_add_msg(xc_nodes_t *t, const node_info_msg_t *msg, xc_error_t *err)
{
	for (uint32_t i = 0; i < msg->record_count; i++) {
		const node_info_t *n = &msg->node_array[i];

		if (n->name &&
		    xc_nodes_add(t, n->name, n->extra, NULL, err) < 0)
			return -1;
	}
	return 0;
}

/* The table walked, each node looked up in the list's ranges. */
static int mark_by_table(const xc_nodes_t *t, sx_hostlist_t hl, bool *set,
			 bool value, size_t *unknown)
{
	size_t names, found = 0;

	slurm_hostlist_uniq(hl);
	names = (size_t)slurm_hostlist_count(hl);
	for (size_t i = 0; i < xc_nodes_count(t); i++)
		if (slurm_hostlist_find(hl, xc_nodes_name(t, i)) >= 0) {
			set[i] = value;
			found++;
		}
	/* a table may hold a name twice (xc_nodes_add takes it) */
	if (unknown)
		*unknown = found < names ? names - found : 0;
	return found < names;
}

/* One name of the list, found in the table's index (mark_by_list). */
struct mark {
	const xc_nodes_t *t;
	bool *set;
	bool value;
	size_t missing;
};

static int mark_name(const char *host, void *arg)
{
	struct mark *m = arg;
	long i = xc_nodes_find(m->t, host);

	if (i < 0)
		m->missing++;
	else
		m->set[i] = m->value;
	return 0;
}

/* The list walked, each name found in the table's index. */
static int mark_by_list(const xc_nodes_t *t, sx_hostlist_t hl, bool *set,
			bool value, size_t *unknown)
{
	struct mark m = { t, set, value, 0 };

	/* distinct names only when they are counted: a sort of the list */
	if (unknown)
		slurm_hostlist_uniq(hl);
	if (sx_hostlist_walk(hl, mark_name, &m) < 0)
		return -1;
	if (unknown)
		*unknown = m.missing;
	return m.missing > 0;
}

int sx_nodes_mark(const xc_nodes_t *t, const char *hostlist, bool *set,
		  bool value, size_t *unknown)
{
	sx_hostlist_t hl = slurm_hostlist_create(hostlist);
	int rc;

	if (!hl)
		return -1;
	rc = xc_nodes_compiled(t) ? mark_by_list(t, hl, set, value, unknown)
				  : mark_by_table(t, hl, set, value, unknown);
	slurm_hostlist_destroy(hl);
	return rc;
}

int sx_nodes_in_slurm_order(const xc_nodes_t *t)
{
	size_t count = xc_nodes_count(t);
	bool *all = malloc((count ? count : 1) * sizeof(*all));
	char *mine = NULL, *normal = NULL;
	int rc = -1;

	if (!all)
		return -1;
	for (size_t i = 0; i < count; i++)
		all[i] = true;
	if ((mine = xc_nodes_hostlist(t, all)) &&
	    (normal = sx_hostlist_normal(mine)))
		rc = strcmp(mine, normal) == 0;
	free(all);
	free(mine);
	free(normal);
	return rc;
}
