/*
 * kept_jobs.h - the thread's own copy of the jobs it loaded: of each
 * slurm_load_jobs() answer, only the pending jobs a round may plan
 * (refilter.h) and only the fields the plan reads, so that Slurm's answer
 * is freed at once (doc/thread.md "Memory").
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
 * bitmap: the rest zero), their strings in one block of their own.  So the thread frees
 * Slurm's answer at once: libslurm unpacks each job's ExcNodeList a
 * second time as an index array sized for every node of the cluster (bitstr2inx() in Slurm's
 * src/common/bitstring.c: 4 bytes a node, 40 KB a job at 10,000 nodes,
 * 200 MB for 5,000 jobs), which the thread used to keep between rounds
 * (doc/thread.md "Memory").  Free with kept_jobs_free(); NULL when
 * out of memory.
 */
job_info_msg_t *kept_jobs_keep(const job_info_msg_t *msg,
			       const struct known_jobs *known);

/*
 * Puts in place, in `kept` (kept_jobs_keep()'s), the records of the `n`
 * ids `ids` from `fresh` (slurm_load_job()'s answers for them, `nfresh`
 * of them; NULL for an id that names no job now): each record of `kept`
 * whose job id, array job id or het job id is one of `ids` (such an id's
 * answer holds every record of its array or het job) goes, and every
 * record of `fresh` worth keeping (as kept_jobs_keep() keeps them) comes
 * in, its strings in a block of their own, which lives until `kept` is
 * freed.  Linear in the records and the ids' log.  The strings spliced
 * in are bounded: past 1 MiB, or the load's own strings when more, the
 * answer is 1 and `kept` is as it was (the caller loads every job
 * afresh).  0, 1, or -1 when out of memory (`kept` as it was).  Its
 * last_update stays (the next load of every job asks from then).
 */
int kept_jobs_splice(job_info_msg_t *kept, job_info_msg_t *const *fresh,
		     size_t nfresh, const uint32_t *ids, size_t n,
		     const struct known_jobs *known);

/* Frees what kept_jobs_keep() returned (NULL: nothing). */
void kept_jobs_free(job_info_msg_t *kept);

#endif
