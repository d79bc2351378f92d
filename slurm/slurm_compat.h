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

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- The differences between the Slurm versions this project builds
 * against (22.05 to 26.05), each checked here and nowhere else. ---- */

/* Slurm 23.11 made hostlist_t the struct itself: callers hold pointers. */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
typedef hostlist_t *sx_hostlist_t;
#else
typedef hostlist_t sx_hostlist_t;
#endif

/* `hl` as a Slurm ranged string in a malloc'd copy ("" when empty), NULL
 * when out of memory.  (slurm_hostlist_ranged_string_malloc() is gone
 * since 23.11; the xmalloc'd form is in every version.) */
static inline char *sx_hostlist_string(sx_hostlist_t hl)
{
	char *x, *s;

	if (slurm_hostlist_count(hl) == 0)
		return strdup("");
	if (!(x = slurm_hostlist_ranged_string_xmalloc(hl)))
		return NULL;
	s = strdup(x);
	slurm_xfree((void **)&x);
	return s;
}

/* Slurm 24.11 removed slurm_get_errno(): the API leaves errno set. */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
#include <errno.h>
#define sx_slurm_errno() (errno)
#else
#define sx_slurm_errno() (slurm_get_errno())
#endif

/* Slurm 25.11 names a job by step_id in job_desc_msg_t and in
 * submit_response_msg_t. */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 11, 0)
#define SX_DESC_JOB_ID(desc) ((desc)->step_id.job_id)
#define SX_SUBMIT_JOB_ID(resp) ((resp)->step_id.job_id)
#else
#define SX_DESC_JOB_ID(desc) ((desc)->job_id)
#define SX_SUBMIT_JOB_ID(resp) ((resp)->job_id)
#endif

/* slurm_load_job() of one job (*resp: sx_free_job_info_msg), whose
 * return and errno are Slurm's: Slurm 26.05 names the job it reads by a
 * step id. */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
static inline int sx_load_job(job_info_msg_t **resp, uint32_t job_id,
			      uint16_t show_flags)
{
	slurm_step_id_t id = SLURM_STEP_ID_INITIALIZER;

	id.job_id = job_id;
	return slurm_load_job(resp, id, show_flags);
}
#else
#define sx_load_job(resp, job_id, show_flags)                                  \
	slurm_load_job((resp), (job_id), (show_flags))
#endif

/* Slurm 26.05 reads a job_id_str "s..." as a job's SLUID
 * (update_job_str(), src/slurmctld/job_mgr.c): one record the plugin
 * cannot tell by its number without slurmctld's own record. */
#define SX_JOB_ID_IS_SLUID(str)                                                \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0) && (str) &&       \
	 (str)[0] == 's')

/* Slurm 23.02 added `--extra` to sbatch, salloc and srun; its value reaches
 * slurmctld in job_desc->extra.  Older clients need the SPANK option. */
#define SX_SLURM_HAS_EXTRA_OPTION                                              \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0))

/* job_modify() of a job_submit plugin takes `char **err_msg` from Slurm
 * 23.02 (src/slurmctld/job_submit.c of 22.05 calls it with three
 * arguments: reading a fourth reads a register's leftover). */
#define SX_MODIFY_HAS_ERR_MSG                                                  \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0))

/* Slurm 23.02 and later check that the caller may update the job before
 * job_modify(); 22.05 after it (_update_job(), src/slurmctld/job_mgr.c). */
#define SX_OWNER_CHECKED_FIRST                                                 \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0))

/* A job's own `extra` as slurm_load_jobs() returns it: Slurm 23.02 added
 * it to job_info_t (and `scontrol update job=N extra=...`); NULL before. */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
#define SX_JOB_EXTRA(job) ((const char *)(job)->extra)
#else
#define SX_JOB_EXTRA(job) ((const char *)NULL)
#endif

/* hostlist_iterator_create(), hostlist_next() (a strdup'd name: free())
 * and hostlist_iterator_destroy() of src/common/hostlist.c, which libslurm
 * exports as slurm_hostlist_* in every version (22.05-26.05) but no public
 * header declares; the iterator is an opaque pointer in all of them.  A
 * user's list is walked with them, not with slurm_hostlist_shift(), which
 * moves the rest of the list at each call: 0.8 s for 100,000 single-node
 * ranges, quadratic, under slurmctld's job write lock. */
extern void *slurm_hostlist_iterator_create(void *hl);
extern char *slurm_hostlist_next(void *it);
extern void slurm_hostlist_iterator_destroy(void *it);

/* bit_size(), bit_test(), bit_copy() and bit_free() of
 * src/common/bitstring.c, which libslurm exports as slurm_bit_size,
 * slurm_bit_test, slurm_bit_copy and slurm_bit_free (taking the pointer's
 * address, and setting it to NULL) in every version (22.05-26.05) but no
 * public header declares (26.05's bitstring.h). */
extern bitoff_t slurm_bit_size(bitstr_t *b);
extern int slurm_bit_test(bitstr_t *b, bitoff_t bit);
extern bitstr_t *slurm_bit_copy(bitstr_t *b);
extern void slurm_bit_free(bitstr_t **b);

/* time_str2secs() of src/common/parse_time.c, Slurm's reader of -t's
 * forms (minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS,
 * "UNLIMITED"), which libslurm exports as slurm_time_str2secs in every
 * version (22.05-26.05, a strong_alias) but no public header declares:
 * seconds, INFINITE for unlimited, NO_VAL for text it cannot read. */
extern int slurm_time_str2secs(const char *string);

/* Slurm 23.11 filters by `extra` itself when SchedulerParameters has
 * extra_constraints: extra_constraints_enabled() (src/common/
 * extra_constraints.c, exported by libslurmfull) answers what slurmctld
 * read from slurm.conf, at start and at every reconfigure, with the same
 * xstrcasestr() test.  A plain flag read: safe under any lock and in any
 * thread.  Weak, so that a process without it reads "off". */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
extern bool extra_constraints_enabled(void) __attribute__((weak));
static inline bool sx_slurm_filters_extra(void)
{
	return extra_constraints_enabled && extra_constraints_enabled();
}
#else
static inline bool sx_slurm_filters_extra(void)
{
	return false;
}
#endif

/* slurm_load_ctl_conf()'s answer is freed by slurm_free_ctl_conf() until
 * 25.11 and by slurm_free_conf() from 26.05 on (SchedMD commit 654434e944
 * renamed it; the old name is gone from slurm.h and libslurm). */
static inline void sx_free_ctl_conf(slurm_conf_t *conf)
{
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
	slurm_free_conf(conf);
#else
	slurm_free_ctl_conf(conf);
#endif
}

/* slurm_free_node_info_msg() of Slurm 22.05 does not free each node's
 * `extra` and `comment` strings: a process that calls slurm_load_node()
 * again and again (`slurm-extra why --slurm` in a loop) grows by their
 * size each time
 * (seen with valgrind: 60 KB per load for a 60 KB Extra).  Freeing them
 * first, with Slurm's allocator, is right for every version: slurm_xfree
 * sets them to NULL, which a fixed Slurm then skips. */
static inline void sx_free_node_info_msg(node_info_msg_t *msg)
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
static inline void sx_free_job_info_msg(job_info_msg_t *msg)
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
