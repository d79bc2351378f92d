/*
 * guard_alone.c - whether burst_buffer/extra filters alone (guard_slurm.h;
 * beside an earlier release's thread of job_submit/extra it did not):
 * its carrier, read from extra.conf at its load and followed at each
 * init() of job_submit/extra, and what it says of the unusable nodes.
 */
#include "config.h" /* Slurm's, from the configured tree */

#include <stdbool.h>
#include <stddef.h>

#include "slurm/slurm.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/slurmctld/slurmctld.h"

#include "guard.h"
#include "guard_slurm.h"
#include "plugin_config.h"
#include "xc.h"
#include "xc_util.h"

extern const char plugin_type[]; /* burst_buffer_extra.c's */

/* Carrier=guard, the guard alone: records_free_nodes() read, the unusable
 * nodes said and an earlier thread's leftovers given back (set at load,
 * and by job_submit/extra's init() at a reload: guard_slurm_set_alone();
 * read atomically) */
static bool free_read;

static void complain(const char *message)
{
	error("%s: %s", plugin_type, message);
}

/* extra.conf as the file says now into `cfg` (job_submit/extra reads it
 * the same way); the defaults when it cannot be read, each bad line said
 * in the log. */
void guard_slurm_config(struct plugin_config *cfg)
{
	char path[4096];

	plugin_config_path(path, sizeof(path));
	if (plugin_config_read(cfg, path, complain) < 0)
		plugin_config_defaults(cfg);
	plugin_config_carrier(cfg, true); /* (this is burst_buffer/extra) */
}

/* guard_on_unusable(): node i's Extra cannot be read (the node read
 * lock held: the name is the table's) */
void guard_slurm_say_unusable(size_t i, const char *why, void *arg)
{
	node_record_t *node_ptr =
		i < (size_t)node_record_count ? node_record_table_ptr[i] : NULL;
	char ebuf[256];

	(void)arg;
	/* (beside an earlier release's thread, its node table said it) */
	if (!guard_slurm_alone())
		return;
	if (i == GUARD_UNUSABLE_MORE) {
		info("%s: %s", plugin_type, why);
		return;
	}
	info("%s: node %s: Extra is %s; jobs with --extra skip it", plugin_type,
	     xc_escape(node_ptr && node_ptr->name ? node_ptr->name : "?", ebuf,
		       sizeof(ebuf)),
	     why);
}

bool guard_slurm_alone(void)
{
	return __atomic_load_n(&free_read, __ATOMIC_RELAXED);
}

void guard_alone_store(bool alone)
{
	__atomic_store_n(&free_read, alone, __ATOMIC_RELAXED);
}
