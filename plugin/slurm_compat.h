/*
 * slurm_compat.h - what the plugins use from Slurm beyond its public
 * headers.
 *
 * Plugins are loaded into Slurm's own processes (slurmctld, sbatch ...),
 * which are linked with libslurmfull; the plugins are not linked with any
 * Slurm library and take these symbols from the process.  slurm_xstrdup
 * and slurm_xfree are exported but not declared in slurm.h: strings that
 * Slurm frees (*err_msg, job_desc->exc_nodes) must come from its own
 * allocator.
 */
#ifndef SLURM_EXTRA_SLURM_COMPAT_H
#define SLURM_EXTRA_SLURM_COMPAT_H

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

extern char *slurm_xstrdup(const char *str);
extern void slurm_xfree(void **item);

/* Slurm's log functions (declared in spank.h too, identically). */
extern void slurm_info(const char *format, ...)
	__attribute__((format(printf, 1, 2)));
extern void slurm_error(const char *format, ...)
	__attribute__((format(printf, 1, 2)));
extern void slurm_verbose(const char *format, ...)
	__attribute__((format(printf, 1, 2)));
extern void slurm_debug(const char *format, ...)
	__attribute__((format(printf, 1, 2)));

/* Slurm 23.02 added `--extra` to sbatch, salloc and srun; its value reaches
 * slurmctld in job_desc->extra.  Older clients need the SPANK option. */
#define XC_SLURM_HAS_EXTRA_OPTION                                              \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0))

/* slurm_free_node_info_msg() of Slurm 22.05 does not free each node's
 * `extra` and `comment` strings: a process that calls slurm_load_node()
 * every second (job_submit/extra's thread) grows by their size each time
 * (seen with valgrind: 60 KB per load for a 60 KB Extra).  Freeing them
 * first, with Slurm's allocator, is right for every version: slurm_xfree
 * sets them to NULL, which a fixed Slurm then skips. */
static inline void xc_free_node_info_msg(node_info_msg_t *msg)
{
	if (!msg)
		return;
	for (uint32_t i = 0; msg->node_array && i < msg->record_count; i++) {
		slurm_xfree((void **)&msg->node_array[i].extra);
		slurm_xfree((void **)&msg->node_array[i].comment);
	}
	slurm_free_node_info_msg(msg);
}

/* Likewise slurm_free_job_info_msg() of Slurm 22.05 does not free each
 * job's admin_comment, cluster_features, cronspec, prefer and
 * system_comment (slurm_free_job_info_members() in Slurm's
 * src/common/slurm_protocol_defs.c lacks them): the re-filtering thread,
 * which loads the jobs whenever they change, would grow by every job's
 * AdminComment each time. */
static inline void xc_free_job_info_msg(job_info_msg_t *msg)
{
	if (!msg)
		return;
	for (uint32_t i = 0; msg->job_array && i < msg->record_count; i++) {
		slurm_job_info_t *j = &msg->job_array[i];

		slurm_xfree((void **)&j->admin_comment);
		slurm_xfree((void **)&j->cluster_features);
		slurm_xfree((void **)&j->cronspec);
		slurm_xfree((void **)&j->prefer);
		slurm_xfree((void **)&j->system_comment);
	}
	slurm_free_job_info_msg(msg);
}

#endif
