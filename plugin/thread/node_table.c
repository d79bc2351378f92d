/*
 * node_table.c - job_submit/extra's node table, kept current by its thread
 * from slurm_load_node() (node_table.h).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "elapsed.h"
#include "node_table.h"
#include "slurm_hostlist.h"
#include "slurm_nodes.h"
#include "xc_util.h"

/* Says once, when it is read, that node i's Extra is unusable. */
static void log_unusable(const struct thread *r, const xc_nodes_t *t, size_t i)
{
	xc_extra_state_t st = xc_nodes_state(t, i);
	char ebuf[256], why[96];

	if (st != XC_EXTRA_OBJECT && st != XC_EXTRA_UNSET)
		slurm_info(
			"%s: node %s: Extra is %s; jobs with --extra skip it",
			plugin_type,
			xc_escape(xc_nodes_name(t, i), ebuf, sizeof(ebuf)),
			xc_extra_state_explain(st, &r->cfg.limits, why,
					       sizeof(why)));
}

/* Nodes updated in place per hold of the lock (a few microseconds each). */
#define UPDATE_BATCH 256

/* A node whose Extra changed: its index in the table and in the node
 * data. */
struct change {
	size_t node;
	uint32_t rec;
};

/* The nodes of `msg` whose Extra differs from r->table's (*changed,
 * malloc'd; count returned), when both hold the same nodes in the same
 * order; -1 when they do not (or out of memory): the table must be built
 * anew. */
static long changed_nodes(const struct thread *r, const node_info_msg_t *msg,
			  struct change **changed)
{
	size_t count = xc_nodes_count(r->table), k = 0, n = 0, cap = 0;

	*changed = NULL;
	for (uint32_t i = 0; i < msg->record_count; i++)
		n += msg->node_array[i].name != NULL;
	if (n != count)
		return -1;
	for (uint32_t i = 0, j = 0; i < msg->record_count; i++) {
		const node_info_t *node = &msg->node_array[i];

		if (!node->name)
			continue;
		if (strcmp(xc_nodes_name(r->table, j), node->name) != 0) {
			free(*changed);
			*changed = NULL;
			return -1;
		}
		if (!xc_nodes_unchanged(r->table, j, node->name, node->extra)) {
			if (xc_grow((void **)changed, &cap, k + 1,
				    sizeof(**changed)) < 0) {
				free(*changed);
				*changed = NULL;
				return -1;
			}
			(*changed)[k++] = (struct change){ j, i };
		}
		j++;
	}
	return (long)k;
}

/* Tells the thread's memo which nodes of `msg` changed in place (memo.h):
 * each request re-evaluates them alone, their Extra read once here.  Out
 * of memory, it evaluates each request again. */
static void tell_memo(struct thread *r, const node_info_msg_t *msg,
		      const struct change *changed, size_t n)
{
	size_t *nodes = malloc((n ? n : 1) * sizeof(*nodes));
	xc_extra_t **extras = calloc(n ? n : 1, sizeof(*extras));
	bool failed = !nodes || !extras;

	for (size_t k = 0; !failed && k < n; k++) {
		const char *text = msg->node_array[changed[k].rec].extra;
		xc_error_t err = { 0 };

		nodes[k] = changed[k].node;
		extras[k] =
			xc_extra_load(text ? text : "", text ? strlen(text) : 0,
				      &r->cfg.limits, NULL, &err);
		failed = err.code == XC_E_NOMEM;
	}
	if (failed)
		memo_nodes_anew(&r->memo);
	else
		memo_nodes_changed(&r->memo, r->table, nodes,
				   (const xc_extra_t *const *)extras, n);
	for (size_t k = 0; extras && k < n; k++)
		xc_extra_destroy(extras[k]);
	free(extras);
	free(nodes);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names of node_table_hidden_names(), gathered. */
struct hidden {
	const char **named; /* the names slurm_load_node() gave, sorted */
	size_t nnamed;
	char **out; /* the others, malloc'd, in the partitions' order */
	size_t n, cap;
};

/* A name of a partition's list, kept in h->out unless slurm_load_node()
 * gave it; -1 when out of memory. */
static int gather_hidden(const char *name, void *arg)
{
	struct hidden *h = arg;
	const char *key = name;

	if (bsearch(&key, h->named, h->nnamed, sizeof(*h->named), by_name))
		return 0;
	if (xc_grow((void **)&h->out, &h->cap, h->n + 1, sizeof(*h->out)) < 0 ||
	    !(h->out[h->n] = strdup(name)))
		return -1;
	h->n++;
	return 0;
}

/* Pointers into one array of names: by name, then by place. */
static int by_name_then_place(const void *a, const void *b)
{
	char *const *x = *(char *const *const *)a;
	char *const *y = *(char *const *const *)b;
	int c = strcmp(*x, *y);

	return c ? c : (x > y) - (x < y);
}

/* Frees every name of names[0..*n) but the first of each, and closes the
 * gaps: the names left are distinct, in their order.  In n log n (a
 * partition's nodes are often in another partition too).  -1 when out of
 * memory, the names as they were. */
static int drop_repeats(char **names, size_t *n)
{
	char ***by = malloc((*n ? *n : 1) * sizeof(*by));
	size_t kept = 0;

	if (!by)
		return -1;
	for (size_t i = 0; i < *n; i++)
		by[i] = &names[i];
	qsort(by, *n, sizeof(*by), by_name_then_place);
	for (size_t i = 1, first = 0; i < *n; i++) {
		if (strcmp(*by[i], *by[first]) != 0) {
			first = i;
			continue;
		}
		free(*by[i]);
		*by[i] = NULL;
	}
	free(by);
	for (size_t i = 0; i < *n; i++)
		if (names[i])
			names[kept++] = names[i];
	*n = kept;
	return 0;
}

void node_table_free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

char **node_table_hidden_names(const node_info_msg_t *msg,
			       const partition_info_msg_t *parts, size_t *n)
{
	struct hidden h = { 0 };

	*n = 0;
	if (!(h.named = malloc((msg->record_count + 1) * sizeof(*h.named))))
		return NULL;
	for (uint32_t i = 0; i < msg->record_count; i++)
		if (msg->node_array[i].name)
			h.named[h.nnamed++] = msg->node_array[i].name;
	qsort(h.named, h.nnamed, sizeof(*h.named), by_name);
	for (uint32_t p = 0; p < parts->record_count; p++) {
		sx_hostlist_t hl;

		if (!parts->partition_array[p].nodes ||
		    !(hl = slurm_hostlist_create(
			      parts->partition_array[p].nodes)))
			continue;
		/* out of memory: the names gathered so far */
		(void)sx_hostlist_walk(hl, gather_hidden, &h);
		slurm_hostlist_destroy(hl);
	}
	free(h.named);
	if (!h.n || drop_repeats(h.out, &h.n) < 0) {
		node_table_free_names(h.out, h.n);
		return NULL;
	}
	*n = h.n;
	return h.out;
}

/*
 * The nodes slurm_load_node() hid from the plugin: on Slurm 22.05 a
 * powered-down CLOUD node is a record without a name unless slurm.conf has
 * PrivateData=cloud (_is_cloud_hidden(), src/slurmctld/node_mgr.c), and a
 * job could be powered up onto it whatever its Extra.  Their names come
 * from the partitions' node lists (node_table_hidden_names()); NULL with
 * *n 0 when none is hidden or they cannot be read, which is logged.
 */
static char **hidden_nodes(const node_info_msg_t *msg, size_t *n)
{
	partition_info_msg_t *parts = NULL;
	uint32_t hidden = 0;
	char **out;

	*n = 0;
	for (uint32_t i = 0; i < msg->record_count; i++)
		hidden += !msg->node_array[i].name;
	if (!hidden)
		return NULL;
	if (slurm_load_partitions(0, &parts, SHOW_ALL) != SLURM_SUCCESS) {
		slurm_error(
			"%s: %u nodes are hidden and the partitions cannot be read (%s): set PrivateData=cloud",
			plugin_type, hidden, slurm_strerror(sx_slurm_errno()));
		return NULL;
	}
	out = node_table_hidden_names(msg, parts, n);
	slurm_free_partition_info_msg(parts);
	return out;
}

/* Builds a new table from `msg`, with the `nhidden` nodes `hidden` that
 * Slurm hid as nodes without Extra (satisfying no request: excluded from
 * every job with one), and compiles it; NULL on failure (logged). */
static xc_nodes_t *build_table(const struct thread *r,
			       const node_info_msg_t *msg, char **hidden,
			       size_t nhidden, double *compile_ms)
{
	xc_nodes_t *fresh = xc_nodes_create(&r->cfg.limits);
	struct timespec t0;
	xc_error_t err;

	if (!fresh)
		return NULL;
	if (sx_nodes_add_msg(fresh, msg, &err) < 0) {
		slurm_error("%s: %s", plugin_type, err.message);
		xc_nodes_destroy(fresh);
		return NULL;
	}
	for (size_t i = 0; i < xc_nodes_count(fresh); i++)
		log_unusable(r, fresh, i);
	for (size_t i = 0; i < nhidden; i++) {
		if (xc_nodes_add(fresh, hidden[i], NULL, NULL, &err) < 0) {
			slurm_error("%s: %s", plugin_type, err.message);
			xc_nodes_destroy(fresh);
			return NULL;
		}
	}
	/* Columns per key: job_submit() then evaluates a request in one pass
	 * per leaf (without them, node by node: slower, same result). */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (xc_nodes_compile(fresh, &err) < 0)
		slurm_error(
			"%s: cannot compile the node table (%s): requests are evaluated node by node",
			plugin_type, err.message);
	*compile_ms = ms_since(&t0);
	return fresh;
}

/* The feature carrier's reading of the nodes just loaded (carry_seen),
 * when the thread manages node features. */
static void carry_saw(struct thread *r, const node_info_msg_t *msg)
{
	if (r->carry.manage &&
	    carry_seen(&r->carry, msg, xc_nodes_count(r->table)) < 0) {
		slurm_error("%s: out of memory reading the nodes' features",
			    plugin_type);
		r->table_time = 0; /* every node loaded again next round */
	}
}

/* Whether a node in `state` could start a job now: idle or mixed,
 * neither drained, failing nor unresponsive, neither powered down nor
 * powering up nor rebooting, not in a reservation (prefer.h's "free"). */
static bool node_free(uint32_t state)
{
	uint32_t base = state & NODE_STATE_BASE;

	return (base == NODE_STATE_IDLE || base == NODE_STATE_MIXED) &&
	       !(state & (NODE_STATE_DRAIN | NODE_STATE_FAIL |
			  NODE_STATE_NO_RESPOND | NODE_STATE_MAINT |
			  NODE_STATE_POWERING_UP | NODE_STATE_POWERED_DOWN |
			  NODE_STATE_RES | NODE_STATE_REBOOT_ISSUED));
}

/* The free nodes of `msg` (node_free), one bool a node of r->table (the
 * named nodes of `msg` are its first, in order; the hidden ones are never
 * free), with r->free_changed set when they differ from the last.  Out of
 * memory, none is known free. */
static void free_saw(struct thread *r, const node_info_msg_t *msg)
{
	size_t count = r->table ? xc_nodes_count(r->table) : 0, k = 0;
	bool *fresh = calloc(count ? count : 1, sizeof(*fresh)), *old;
	uint64_t print = 1469598103934665603ULL;

	if (fresh)
		for (uint32_t i = 0; i < msg->record_count && k < count; i++) {
			if (!msg->node_array[i].name)
				continue;
			fresh[k] = node_free(msg->node_array[i].node_state);
			print = (print ^ (fresh[k] ? k + 1 : 0)) *
				1099511628211ULL;
			k++;
		}
	pthread_mutex_lock(&r->lock);
	old = r->free;
	r->free = fresh;
	r->free_count = fresh ? count : 0;
	pthread_mutex_unlock(&r->lock);
	free(old);
	if (print != r->free_print)
		r->free_changed = true;
	r->free_print = print;
}

bool node_table_load(struct thread *r)
{
	node_info_msg_t *msg = NULL;
	xc_nodes_t *fresh, *old;
	struct timespec t0;
	struct change *changed = NULL;
	struct timespec start;
	char **hidden = NULL;
	size_t nhidden = 0;
	long nchanged = -1;
	double compile_ms = 0, lock_ms = 0, scan_ms;

	if (slurm_load_node(r->table_time, &msg, SHOW_ALL) != SLURM_SUCCESS) {
		int e = sx_slurm_errno();

		if (e != SLURM_NO_CHANGE_IN_DATA && !r->failing) {
			slurm_verbose("%s: cannot load node data yet: %s",
				      plugin_type, slurm_strerror(e));
			r->failing = true;
		}
		return false;
	}
	if (r->failing)
		slurm_verbose("%s: node data loaded", plugin_type);
	r->failing = false;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* Hidden nodes: the table is built anew with them (a few ms at
	 * 10,000 nodes, at each change of the node data). */
	if ((hidden = hidden_nodes(msg, &nhidden)) && !r->said_hidden) {
		slurm_info(
			"%s: nodes hidden from slurm_load_node(): %zu (powered-down CLOUD nodes; slurm.conf PrivateData=cloud shows them): their Extra cannot be read, so every job with --extra excludes them",
			plugin_type, nhidden);
		r->said_hidden = true;
	}
	if (r->table && xc_nodes_compiled(r->table) && !nhidden)
		nchanged = changed_nodes(r, msg, &changed);
	scan_ms = ms_since(&t0);
	if (nchanged == 0) { /* other node data changed, not Extra */
		r->table_time = msg->last_update;
		carry_saw(r, msg);
		free_saw(r, msg);
		sx_free_node_info_msg(msg);
		slurm_verbose(
			"%s: node table: %zu nodes, no Extra changed (checked in %.1f ms), digest %016llx; library objects live: %ld",
			plugin_type, xc_nodes_count(r->table), scan_ms,
			xc_nodes_digest(r->table), xc_live_objects());
		return false;
	}
	if (nchanged > 0) {
		size_t done = 0;
		xc_error_t err = { 0 };
		bool failed = false;

		clock_gettime(CLOCK_MONOTONIC, &start);
		/* In batches, so that a job_submit() waits for one batch at
		 * most: a submission between two sees each node either as it
		 * was or as it is now, as if the changes had come in several
		 * updates, and the round's re-filtering, which follows, sees
		 * them all. */
		while (done < (size_t)nchanged && !failed) {
			size_t end = done + UPDATE_BATCH;
			double held;

			if (end > (size_t)nchanged)
				end = (size_t)nchanged;
			clock_gettime(CLOCK_MONOTONIC, &t0);
			pthread_mutex_lock(&r->lock);
			for (; done < end; done++) {
				if (xc_nodes_update(
					    r->table, changed[done].node,
					    msg->node_array[changed[done].rec]
						    .extra,
					    &err) < 0) {
					failed = true;
					break;
				}
			}
			pthread_mutex_unlock(&r->lock);
			held = ms_since(&t0);
			lock_ms = held > lock_ms ? held : lock_ms;
		}
		r->table_time = msg->last_update;
		for (size_t k = 0; k < done; k++)
			log_unusable(r, r->table, changed[k].node);
		if (done == (size_t)nchanged) {
			tell_memo(r, msg, changed, done);
			slurm_verbose(
				"%s: node table: %zu nodes, %ld changed in place in %.2f ms, the lock held %.2f ms at most (found in %.1f ms), digest %016llx; library objects live: %ld",
				plugin_type, xc_nodes_count(r->table), nchanged,
				ms_since(&start), lock_ms, scan_ms,
				xc_nodes_digest(r->table), xc_live_objects());
			free(changed);
			carry_saw(r, msg);
			free_saw(r, msg);
			sx_free_node_info_msg(msg);
			return true;
		}
		memo_nodes_anew(&r->memo); /* some nodes changed in place */
		slurm_error(
			"%s: cannot update node %s in place (%s): building the node table anew",
			plugin_type,
			xc_nodes_name(r->table, changed[done].node),
			err.message);
	}
	free(changed);
	fresh = build_table(r, msg, hidden, nhidden, &compile_ms);
	node_table_free_names(hidden, nhidden);
	if (!fresh) {
		sx_free_node_info_msg(msg);
		return false;
	}
	memo_nodes_anew(&r->memo);
	pthread_mutex_lock(&r->lock);
	old = r->table;
	r->table = fresh;
	r->table_time = msg->last_update;
	pthread_mutex_unlock(&r->lock);
	xc_nodes_destroy(old);
	carry_saw(r, msg);
	free_saw(r, msg);
	sx_free_node_info_msg(msg);
	/* The live count is the load test's proof that nothing leaks. */
	slurm_verbose(
		"%s: node table: %zu nodes, built anew, digest %016llx; library objects live: %ld; compiled in %.1f ms",
		plugin_type, xc_nodes_count(fresh), xc_nodes_digest(fresh),
		xc_live_objects(), compile_ms);
	return true;
}

void node_table_parts(struct thread *r)
{
	partition_info_msg_t *msg = NULL;
	struct parts fresh = { 0 }, old;
	size_t count;

	if (!r->table)
		return;
	count = xc_nodes_count(r->table);
	if (slurm_load_partitions(r->parts.maps && r->parts.count == count
					  ? r->parts.time
					  : 0,
				  &msg, SHOW_ALL) != SLURM_SUCCESS)
		return; /* unchanged, or not now: as they are */
	fresh.count = count;
	fresh.time = msg->last_update;
	if (!(fresh.maps = calloc(msg->record_count ? msg->record_count : 1,
				  sizeof(*fresh.maps))))
		goto out;
	for (uint32_t i = 0; i < msg->record_count; i++) {
		const partition_info_t *pi = &msg->partition_array[i];
		struct part_map *m = &fresh.maps[fresh.n];

		if (!pi->name)
			continue;
		if (!(m->name = strdup(pi->name)) ||
		    !(m->nodes = calloc(count ? count : 1, sizeof(bool)))) {
			free(m->name);
			parts_free(&fresh);
			goto out;
		}
		m->is_default = pi->flags & PART_FLAG_DEFAULT;
		fresh.n++;
		if (pi->nodes && *pi->nodes)
			(void)sx_nodes_mark(r->table, pi->nodes, m->nodes, true,
					    NULL);
	}
	pthread_mutex_lock(&r->lock);
	old = r->parts;
	r->parts = fresh;
	pthread_mutex_unlock(&r->lock);
	parts_free(&old);
	r->parts_changed = true; /* the jobs with preferences planned again */
out:
	if (!r->parts.maps || r->parts.time != (msg ? msg->last_update : 0))
		slurm_verbose("%s: the partitions' nodes not read now",
			      plugin_type);
	slurm_free_partition_info_msg(msg);
}
