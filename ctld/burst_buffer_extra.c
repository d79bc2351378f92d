/*
 * burst_buffer_extra.c - BurstBufferType=burst_buffer/extra: the guard at
 * placement (doc/guard.md "The guard at placement").  It offers no burst
 * buffer: every entry point answers as slurmctld answers with no burst
 * buffer plugin at all, but one, the stage-in test, which select_nodes()
 * calls for every job it is about to place (src/slurmctld/
 * node_scheduler.c, 22.05.8 line 2407, 24.11.5 line 2635), holding the
 * job and node write locks, before it reads the job's excluded nodes.
 * There the guard keeps off every node of the job's partitions whose
 * Extra does not satisfy the job's request *now*, under the same locks
 * as the node choice: no update can land in between (an `scontrol update
 * nodename=... extra=...` queues a scheduling pass at once:
 * _slurm_rpc_update_node(), src/slurmctld/proc_req.c).  Its look
 * (look_slurm.c) keeps the waiting jobs' excluded nodes in step for
 * backfill's plans.
 *
 * This file is the one that reads Slurm's internal records: it is built
 * only against the configured source tree of the exact Slurm it runs in
 * (configure --with-slurm-source=DIR), and slurmctld loads it only into
 * that version (plugin_version, the micro version included:
 * src/common/plugin.c).  The guard for one job is guard_slurm.c's; what
 * it keeps between placements is guard.c's.
 *
 * Never a lock taken here: every entry point is called with slurmctld's
 * locks as the caller holds them.  Never a refusal: the stage-in test
 * answers 1 ("staged in"), as with no plugin, but for a job none of
 * whose nodes satisfies its request now (0: it waits, its reason
 * BurstBufferStageIn until the look's next walk; guard_job()).
 */
#include "config.h" /* Slurm's, from the configured tree */

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "slurm/slurm.h"
#include "src/common/log.h"
#include "src/common/pack.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "guard_slurm.h"
#include "look_queue.h"
#include "look_slurm.h"
#include "records.h"

/* The entry points and the records read here were checked against Slurm
 * 22.05.8 and 24.11.5 (their burst_buffer interface's syms[], the
 * records' fields); the 23.02 boundary of their signatures is 24.11's
 * shape.  Another version is refused at build time rather than loaded
 * unchecked into slurmctld. */
#if !((SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(22, 5, 0) &&                  \
       SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(22, 6, 0)) ||                  \
      (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0) &&                 \
       SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(24, 12, 0)))
#error "burst_buffer/extra is checked against Slurm 22.05 and 24.11 only"
#endif

const char plugin_name[] = "slurm-extra guard at placement (no burst buffer)";
const char plugin_type[] = "burst_buffer/extra";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* What `slurm-extra doctor` reads in this file to say which Slurm the
 * guard was built against (cmd_doctor.c, GUARD_MARK): slurmctld loads
 * it only into that version. */
#ifndef XC_SLURM_SOURCE_DIR
#define XC_SLURM_SOURCE_DIR "?"
#endif
__attribute__((used)) static const char built_against[] =
	"slurm-extra guard: Slurm " SLURM_VERSION_STRING
	"; tree " XC_SLURM_SOURCE_DIR;

extern int init(void)
{
	int rc = guard_slurm_load();

	return rc == SLURM_SUCCESS ? look_slurm_start() : rc;
}

extern int fini(void)
{
	/* the look first: it reads the guard (left, if it does not stop) */
	if (look_slurm_stop())
		guard_slurm_unload();
	return SLURM_SUCCESS;
}

/* -- the entry points: as with no burst buffer plugin at all ---------- */

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
/* The script whole, as Slurm answers with no plugin
 * (bb_g_build_het_job_script(), src/interfaces/burst_buffer.c 24.11.5:
 * xstrdup(script)); the caller xfree()s it. */
extern char *bb_p_build_het_job_script(char *script, uint32_t het_job_offset)
{
	(void)het_job_offset;
	return script ? xstrdup(script) : NULL;
}
#endif

extern uint64_t bb_p_get_system_size(void)
{
	return 0;
}

extern int bb_p_load_state(bool init_config)
{
	(void)init_config;
	return SLURM_SUCCESS;
}

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
extern char *bb_p_get_status(uint32_t argc, char **argv, uint32_t uid,
			     uint32_t gid)
{
	(void)argc;
	(void)argv;
	(void)uid;
	(void)gid;
	return NULL;
}
#else
extern char *bb_p_get_status(uint32_t argc, char **argv)
{
	(void)argc;
	(void)argv;
	return NULL;
}
#endif

/* Packs nothing: slurmctld then counts no burst buffer record, as with
 * no plugin (bb_g_state_pack()). */
extern int bb_p_state_pack(uid_t uid, buf_t *buffer, uint16_t protocol_version)
{
	(void)uid;
	(void)buffer;
	(void)protocol_version;
	return SLURM_SUCCESS;
}

/* slurmctld calls this at every removal of an association or a QOS and
 * (22.05) at `scontrol reconfigure` (bb_g_reconfig(),
 * src/slurmctld/controller.c 24.11.5 lines 1875, 1910, 3798): nothing to
 * do.  The guard keeps extra.conf's limits as init() read them, as
 * job_submit/extra keeps its own (read at its init(): a change of
 * extra.conf takes a restart of slurmctld for both, so that they judge
 * alike). */
extern int bb_p_reconfig(void)
{
	return SLURM_SUCCESS;
}

extern int bb_p_job_validate(job_desc_msg_t *job_desc, uid_t submit_uid,
			     char **err_msg)
{
	(void)job_desc;
	(void)submit_uid;
	(void)err_msg;
	return SLURM_SUCCESS;
}

/* Every job Slurm makes (_job_create(), src/slurmctld/job_mgr.c; also an
 * array's record split for a burst buffer): queued for the look's next
 * walk of what changed (look_queue.h; what is not queued: doc/guard.md
 * "The look"). */
extern int bb_p_job_validate2(job_record_t *job_ptr, char **err_msg)
{
	(void)err_msg;
	if (job_ptr)
		(void)look_queue_push(job_ptr->job_id);
	return SLURM_SUCCESS;
}

extern void bb_p_job_set_tres_cnt(job_record_t *job_ptr, uint64_t *tres_cnt,
				  bool locked)
{
	(void)job_ptr;
	(void)tres_cnt;
	(void)locked;
}

extern time_t bb_p_job_get_est_start(job_record_t *job_ptr)
{
	(void)job_ptr;
	return time(NULL);
}

extern int bb_p_job_try_stage_in(void *job_queue)
{
	(void)job_queue;
	return SLURM_SUCCESS;
}

/* The guard (the job and node write locks held by the caller): at a
 * placement, not at a test (backfill's plans, will-run: Slurm's own
 * filter applies only when !test_only either, _build_node_list(),
 * src/slurmctld/node_scheduler.c 24.11.5 line 3816).  1, "staged in",
 * unless no node of the job satisfies its request now: 0, the job waits
 * (guard_job()).  Where Slurm filters by the request itself, the guard
 * keeps off only what a job's preference narrows, and only alone (with
 * Carrier=guard: else preferences are refused there). */
extern int bb_p_job_test_stage_in(job_record_t *job_ptr, bool test_only)
{
	if (test_only || !job_ptr || !IS_JOB_PENDING(job_ptr) ||
	    (records_slurm_filters() && !guard_slurm_alone()))
		return 1;
	return guard_slurm_place(job_ptr);
}

extern int bb_p_job_begin(job_record_t *job_ptr)
{
	(void)job_ptr;
	return SLURM_SUCCESS;
}

extern int bb_p_job_revoke_alloc(job_record_t *job_ptr)
{
	(void)job_ptr;
	return SLURM_SUCCESS;
}

extern int bb_p_job_start_stage_out(job_record_t *job_ptr)
{
	(void)job_ptr;
	return SLURM_SUCCESS;
}

extern int bb_p_job_test_post_run(job_record_t *job_ptr)
{
	(void)job_ptr;
	return 1;
}

extern int bb_p_job_test_stage_out(job_record_t *job_ptr)
{
	(void)job_ptr;
	return 1;
}

extern int bb_p_job_cancel(job_record_t *job_ptr)
{
	(void)job_ptr;
	return SLURM_SUCCESS;
}

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
extern int bb_p_run_script(char *func, uint32_t job_id, uint32_t argc,
			   char **argv, job_info_msg_t *job_info,
			   char **resp_msg)
{
	(void)job_info;
#else
extern int bb_p_run_script(char *func, uint32_t job_id, uint32_t argc,
			   char **argv, char **resp_msg)
{
#endif
	(void)func;
	(void)job_id;
	(void)argc;
	(void)argv;
	(void)resp_msg;
	return SLURM_SUCCESS;
}

extern char *bb_p_xlate_bb_2_tres_str(char *burst_buffer)
{
	(void)burst_buffer;
	return NULL;
}
