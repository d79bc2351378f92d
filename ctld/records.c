/*
 * records.c - what the ctld wing reads of slurmctld's own records
 * (records.h).
 */
#include "config.h" /* Slurm's, from the configured tree */

#include <sys/prctl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "src/common/bitstring.h"
#include "src/common/node_conf.h"
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
#include "src/interfaces/select.h"
#else
#include "src/common/select.h"
#endif
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "guard_api.h"
#include "guard_slurm.h"
#include "look_census.h"
#include "look_queue.h"
#include "records.h"
#include "xc.h"

#ifdef SLURM_BIGENDIAN
#error "the ctld wing reads Slurm's node sets as little-endian words"
#endif

#define STATE_MARK "slurm-extra: "
#define BITSTR_MAGIC_ 0x42434445

uint64_t *records_words(void *v, int64_t n)
{
	bitstr_t *b = v;

	if (!b || b[0] != BITSTR_MAGIC_ || b[1] != n || bit_size(b) != n)
		return NULL;
	return (uint64_t *)(b + 2);
}

bool records_words_laid_out(void)
{
	bitstr_t *b = bit_alloc(130);
	const uint64_t *w;
	bool ok;

	bit_set(b, 67);
	w = records_words(b, 130);
	ok = w && !w[0] && w[1] == (1ULL << 3) && !w[2];
	FREE_NULL_BITMAP(b);
	return ok;
}

static const char *api_admin_comment(const void *v)
{
	const job_record_t *job_ptr = v;

	return job_ptr->admin_comment;
}

static int api_set_admin_comment(void *v, const char *text)
{
	job_record_t *job_ptr = v;

	xfree(job_ptr->admin_comment);
	job_ptr->admin_comment = xstrdup(text);
	last_job_update = time(NULL);
	return 0;
}

static uint32_t api_user_id(const void *v)
{
	const job_record_t *job_ptr = v;

	return job_ptr->user_id;
}

static const char *api_exc_nodes(const void *v)
{
	const job_record_t *job_ptr = v;

	return job_ptr->details ? job_ptr->details->exc_nodes : NULL;
}

static const char *api_extra(const void *v)
{
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
	const job_record_t *job_ptr = v;

	return job_ptr->extra;
#else
	(void)v;
	return NULL;
#endif
}

static void api_job_changed(const void *v)
{
	const job_record_t *job_ptr = v;

	if (job_ptr)
		(void)look_queue_push(job_ptr->job_id);
}

const struct sx_guard_api sx_guard_record_api = {
	.version = SX_GUARD_API_VERSION,
	.admin_comment = api_admin_comment,
	.set_admin_comment = api_set_admin_comment,
	.user_id = api_user_id,
	.exc_nodes = api_exc_nodes,
	.extra = api_extra,
	.census = look_census_get,
	.set_alone = guard_slurm_set_alone,
	.job_changed = api_job_changed,
};

const char *records_request_of(void *v, struct sx_job_state *st)
{
	job_record_t *job_ptr = v;

	memset(st, 0, sizeof(*st));
	if (!job_ptr->admin_comment ||
	    !strstr(job_ptr->admin_comment, STATE_MARK)) {
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
		/* an Extra with no state of the plugin's: a job submitted
		 * while Slurm filtered by it (job_submit/extra writes none
		 * then), or before the plugins were loaded; wherever Slurm
		 * does not filter by it, nothing else would */
		if (job_ptr->extra && job_ptr->extra[0] &&
		    !records_slurm_filters())
			return job_ptr->extra;
#endif
		return NULL;
	}
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
	/* (prefer= may be the admin's own words too: the state says) */
	if (strstr(job_ptr->admin_comment, "prefer=") &&
	    !sx_job_state_parse(job_ptr->admin_comment, st))
		memset(st, 0, sizeof(*st));
	return (job_ptr->extra && job_ptr->extra[0]) ? job_ptr->extra : NULL;
#else
	if (!sx_job_state_parse(job_ptr->admin_comment, st))
		return NULL;
	return (st->request && st->request[0]) ? st->request : NULL;
#endif
}

unsigned long long records_rebuilt_from(const char *exc_nodes,
					const char *req_nodes,
					uint32_t min_nodes)
{
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
	return xc_text_hash(exc_nodes) ^
	       (xc_text_hash(req_nodes) * 0x9e3779b97f4a7c15ULL) ^ min_nodes;
#else
	(void)req_nodes;
	(void)min_nodes;
	return xc_text_hash(exc_nodes);
#endif
}

bool records_own_empty(const char *exc_nodes, const char *req_nodes,
		       const void *req_node_bitmap)
{
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
	/* (converted: the bitmap freed once its complement is ORed in) */
	if (req_nodes && req_nodes[0] && !req_node_bitmap)
		return false;
#else
	(void)req_nodes;
	(void)req_node_bitmap;
#endif
	return !exc_nodes || !exc_nodes[0];
}

bool records_in_backfill(void)
{
	char name[17] = "";

	return !prctl(PR_GET_NAME, name, 0, 0, 0) && !strcmp(name, "bckfl");
}

bool records_required_off(void *req, const uint32_t *failing, size_t n,
			  const uint64_t *ex, const uint64_t *own, size_t words)
{
	const uint64_t *r;

	if (!req)
		return false;
	if (!(r = records_words(req, node_record_count)))
		return true;
	for (size_t k = 0; k < n; k++)
		if ((r[failing[k] / 64] >> (failing[k] % 64)) & 1)
			return true;
	for (size_t k = 0; ex && own && k < words; k++)
		if (r[k] & ex[k] & ~own[k])
			return true;
	return false;
}

const char *records_extra_at(size_t i, void *arg)
{
	node_record_t *node_ptr = node_record_table_ptr[i];

	(void)arg;
	return node_ptr ? node_ptr->extra : NULL;
}

const bool records_extra_unstamped =
	SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0);

static long long stamp_at(size_t i, void *arg)
{
	node_record_t *node_ptr = node_record_table_ptr[i];

	(void)arg;
	return node_ptr ? (long long)node_ptr->last_response : 0;
}

long long (*const records_stamp_of)(size_t i, void *arg) =
	SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0) ? stamp_at : NULL;

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
extern bool extra_constraints_enabled(void) __attribute__((weak));
bool records_slurm_filters(void)
{
	return extra_constraints_enabled && extra_constraints_enabled();
}
#else
bool records_slurm_filters(void)
{
	return false;
}
#endif

/* The node-state flags that keep a node from being free
 * (doc/preferences.md "Preferences"). */
#define NOT_FREE                                                               \
	(NODE_STATE_DRAIN | NODE_STATE_FAIL | NODE_STATE_NO_RESPOND |          \
	 NODE_STATE_MAINT | NODE_STATE_POWERING_UP | NODE_STATE_POWERED_DOWN | \
	 NODE_STATE_RES | NODE_STATE_REBOOT_ISSUED)

static uint64_t *free_words;
static size_t free_n;
static time_t free_at;

const uint64_t *records_free_nodes(size_t nnodes, time_t now)
{
	size_t words = (nnodes + 63) / 64;

	if (free_words && free_n == nnodes && free_at == now)
		return free_words;
	if (free_n != nnodes) {
		free(free_words);
		free_n = 0;
		if (!(free_words =
			      calloc(words ? words : 1, sizeof(*free_words))))
			return NULL;
		free_n = nnodes;
	}
	memset(free_words, 0, (words ? words : 1) * sizeof(*free_words));
	/* the CPUs allocated on each node, summed again from the select
	 * plugin's rows when the nodes changed since its last sum (as for
	 * every node load: _slurm_rpc_dump_nodes(), proc_req.c) */
	(void)select_g_select_nodeinfo_set_all();
	for (size_t i = 0; i < nnodes && i < (size_t)node_record_count; i++) {
		node_record_t *node_ptr = node_record_table_ptr[i];
		uint16_t alloc = 0;
		bool is_free;

		if (!node_ptr || (node_ptr->node_state & NOT_FREE))
			continue;
		/* idle, or mixed: allocated with a CPU left (api/node_info.c
		 * _set_node_mixed(), which the thread's load asks for) */
		is_free = IS_NODE_IDLE(node_ptr);
		if (!is_free && IS_NODE_ALLOCATED(node_ptr) &&
		    select_g_select_nodeinfo_get(
			    node_ptr->select_nodeinfo, SELECT_NODEDATA_SUBCNT,
			    NODE_STATE_ALLOCATED, &alloc) == SLURM_SUCCESS)
			is_free = alloc < node_ptr->cpus_efctv;
		if (is_free)
			free_words[i / 64] |= 1ULL << (i % 64);
	}
	free_at = now;
	return free_words;
}

void records_release(void)
{
	free(free_words);
	free_words = NULL;
	free_n = 0;
	free_at = 0;
}
