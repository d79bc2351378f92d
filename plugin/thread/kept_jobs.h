/*
 * kept_jobs.h - the thread's own copy of the jobs it loaded: of each
 * slurm_load_jobs() answer, only the pending jobs a round may plan
 * (refilter.h) and only the fields the plan reads, so that Slurm's answer
 * is freed at once (doc/design.md "Memory").
 */
#ifndef SLURM_EXTRA_KEPT_JOBS_H
#define SLURM_EXTRA_KEPT_JOBS_H

#include "slurm_compat.h"
#include "known_jobs.h"

/*
 * The jobs of a slurm_load_jobs() answer `msg` that a round may plan
 * (refilter_plan): the pending jobs with a non-empty `extra` or
 * AdminComment, or in `known` (may be NULL), with only the fields the plan
 * reads (ids, owner, state, priority, reason, restart count, EligibleTime,
 * SubmitTime,
 * partitions,
 * AdminComment, `extra`, ReqNodeList, ExcNodeList, an array record's task
 * bitmap: the rest zero), in one block of their own.  So the thread frees
 * Slurm's answer at once: libslurm unpacks each job's ExcNodeList a
 * second time as an index array sized for every node of the cluster (bitstr2inx() in Slurm's
 * src/common/bitstring.c: 4 bytes a node, 40 KB a job at 10,000 nodes,
 * 200 MB for 5,000 jobs), which the thread used to keep between rounds
 * (doc/design.md "Memory").  Free with kept_jobs_free(); NULL when
 * out of memory.
 */
job_info_msg_t *kept_jobs_keep(const job_info_msg_t *msg,
			       const struct known_jobs *known);

/* Frees what kept_jobs_keep() returned (NULL: nothing). */
void kept_jobs_free(job_info_msg_t *kept);

#endif
