/*
 * test_carry_fixture.c - the feature carrier's rounds for its node-update
 * tests, slurmctld played (test_carry_fixture.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "ctld.h"
#include "memo.h"
#include "pace.h"
#include "test_carry_fixture.h"

#include "leakcheck.h"

xc_nodes_t *table;
struct thread r;
node_info_t *infos;
node_info_msg_t msg;
struct sent sent[MAX_SENT];
size_t nsent;
bool ok[MAX_SENT];
node_info_t *fresh;
size_t loads;
bool load_fails;
size_t loads_since;
time_t since_asked;
bool no_change;

static size_t count;	 /* N */
static char (*names)[8]; /* "n1".."nN" */
static struct pace_ctld real;

static int play_update(const char *nodes, const char *avail, const char *act)
{
	cr_assert_lt(nsent, MAX_SENT);
	sent[nsent].names = strdup(nodes);
	sent[nsent].avail = strdup(avail);
	sent[nsent].act = strdup(act);
	nsent++;
	return SLURM_SUCCESS;
}

static int play_load(const char *name, node_info_msg_t **out)
{
	node_info_msg_t *m = calloc(1, sizeof(*m));

	loads++;
	*out = m;
	cr_assert(m);
	if (load_fails)
		return ESLURM_INVALID_NODE_NAME;
	for (size_t i = 0; i < count; i++)
		if (strcmp(fresh[i].name, name) == 0) {
			m->node_array = malloc(sizeof(*m->node_array));
			cr_assert(m->node_array);
			m->node_array[0] = fresh[i]; /* its strings borrowed */
			m->record_count = 1;
		}
	return SLURM_SUCCESS;
}

static int play_load_since(time_t since, node_info_msg_t **out)
{
	node_info_msg_t *m;

	loads_since++;
	since_asked = since;
	*out = NULL;
	if (load_fails)
		return SLURM_ERROR;
	if (no_change)
		return SLURM_NO_CHANGE_IN_DATA;
	m = calloc(1, sizeof(*m));
	cr_assert(m);
	m->node_array = malloc(count * sizeof(*m->node_array));
	cr_assert(m->node_array);
	memcpy(m->node_array, fresh, count * sizeof(*m->node_array));
	m->record_count = (uint32_t)count;
	m->last_update = since + 1;
	*out = m;
	return SLURM_SUCCESS;
}

static void play_free(node_info_msg_t *m)
{
	if (m)
		free(m->node_array);
	free(m);
}

void carry_fixture_setup(size_t nodes)
{
	xc_error_t err;

	cr_assert(nodes > 0 && nodes <= 9999);
	count = nodes;
	names = calloc(nodes, sizeof(*names));
	infos = calloc(nodes, sizeof(*infos));
	cr_assert(names && infos);
	table = xc_nodes_create(NULL);
	cr_assert(table);
	for (size_t i = 0; i < nodes; i++) {
		snprintf(names[i], sizeof(names[i]), "n%zu", i + 1);
		infos[i].name = names[i];
		cr_assert_eq(xc_nodes_add(table, names[i], "{\"gpu\":true}",
					  NULL, &err),
			     0);
	}
	cr_assert_eq(xc_nodes_compile(table, &err), 0);
	msg = (node_info_msg_t){ .record_count = (uint32_t)nodes,
				 .node_array = infos };
	memset(&r, 0, sizeof(r));
	thread_init_sync(&r);
	r.cfg.update_budget = 1000; /* nothing owed: no wait */
	r.table = table;
	r.table_time = 1000;
	cr_assert_eq(memo_init(&r.memo, 0), 0);
	cr_assert_eq(carry_init(&r.carry), 0);
	carry_conf(&r.carry, sx_conf_time(), true, true);
	real = pace_ctld;
	pace_ctld.load = play_load;
	pace_ctld.load_since = play_load_since;
	pace_ctld.free_msg = play_free;
	pace_ctld.update = play_update;
	fresh = infos;
	loads = nsent = loads_since = 0;
	since_asked = 0;
	load_fails = no_change = false;
}

void carry_fixture_teardown(void)
{
	pace_ctld = real;
	for (size_t k = 0; k < nsent; k++) {
		free(sent[k].names);
		free(sent[k].avail);
		free(sent[k].act);
	}
	carry_free(&r.carry);
	memo_free(&r.memo);
	xc_nodes_destroy(table);
	pthread_mutex_destroy(&r.lock);
	pthread_cond_destroy(&r.wake);
	free(infos);
	free(names);
	xc_leak_check();
}

static void lock(void *arg)
{
	(void)arg;
}

size_t round_sent(char feature[SX_FEATURE_LEN + 1])
{
	struct refilter_stats stats = { 0 };
	struct memo_request *req;
	struct carry_update *ups;
	bool all, *matched = calloc(count, sizeof(*matched)), evaluated;
	uint64_t round;
	size_t n;

	cr_assert(matched);
	cr_assert_eq(carry_seen(&r.carry, &msg, count), 0);
	round = memo_round(&r.memo, &all);
	cr_assert_eq(memo_request_of(&r.memo, "gpu=true", NULL, &req), 0);
	cr_assert_eq(memo_matched(&r.memo, req, table, matched, &evaluated), 0);
	free(matched);
	req->carry_round = round;
	cr_assert_eq(carry_plan(&r.carry, &r.memo, table, round, &ups, &n, lock,
				lock, NULL),
		     0);
	cr_assert_leq(n, MAX_SENT);
	pace_send_nodes(&r, ups, n, ok, &stats);
	carry_done(&r.carry, &r.memo, ups, n, ok, round);
	carry_updates_free(ups, n);
	memcpy(feature, req->feature, SX_FEATURE_LEN + 1);
	return n;
}

bool was_sent(const char *nodes)
{
	for (size_t k = 0; k < nsent; k++)
		if (strcmp(sent[k].names, nodes) == 0)
			return true;
	return false;
}

const struct sent *sent_to(const char *nodes)
{
	for (size_t k = 0; k < nsent; k++)
		if (strcmp(sent[k].names, nodes) == 0)
			return &sent[k];
	cr_assert_fail("no update sent to %s", nodes);
	return NULL;
}

void expand(const char *want, const char *feature, char *out, size_t size)
{
	size_t len = 0;

	for (const char *p = want; *p && len + SX_FEATURE_LEN + 1 < size; p++)
		if (*p == 'F' && (p == want || p[-1] == ',') &&
		    (!p[1] || p[1] == ',')) {
			memcpy(out + len, feature, SX_FEATURE_LEN);
			len += SX_FEATURE_LEN;
		} else {
			out[len++] = *p;
		}
	out[len] = '\0';
}
