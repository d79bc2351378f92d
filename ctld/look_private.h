/*
 * look_private.h - what look.c and look_jobs.c share of the look
 * (look.h): its records, for its two halves, the requests and the
 * placement of each job's set (look.c) and the jobs' table and bases
 * (look_jobs.c).
 */
#ifndef SLURM_EXTRA_LOOK_PRIVATE_H
#define SLURM_EXTRA_LOOK_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "look.h"

struct look_req {
	char *text;	  /* NULL: a free slot */
	uint64_t *fail;	  /* words */
	size_t nfail;	  /* how many nodes fail */
	uint64_t version; /* counts the changes of `fail` */
	uint64_t lost;	  /* the latest version the log no longer holds */
	uint64_t seen;	  /* the last round it was met in */
	uint32_t gen;	  /* counts the slot's requests */
	uint64_t changes; /* the caller's count at its last answers */
	size_t logged;	  /* entries ever logged */
	struct {
		uint64_t version;
		uint32_t node;
	} log[LOOK_LOG];
};

struct look_job {
	uint32_t id; /* 0: a free slot */
	int req;     /* -1: none applied yet */
	uint32_t gen;
	uint64_t version;
	unsigned long long text;
	int64_t sentinel; /* a node set that the base does not hold, -1 */
	bool left;	  /* no room for its base: left to Slurm */
	bool given;	  /* its set is one the caller gave it for the look */
	uint32_t nruns;	  /* the base as runs [start, end) ... */
	uint32_t *runs;
	uint64_t *dense; /* ... or whole */
};

struct look {
	size_t nnodes, words;
	struct look_req *reqs;
	size_t max_reqs, nreqs;
	struct lh_table *by_text; /* text -> slot + 1 */
	uint64_t round;
	struct look_job *jobs; /* open addressing by id */
	size_t jobs_cap, jobs_n, dense_n;
	uint64_t *scratch;	/* words */
	uint64_t *which, *fail; /* words, for look_req_answer() */
	size_t work;		/* words read or written (look_work()) */
};

/* The jobs' table (open addressing by id; 0 a free slot). */
struct look_job *look_job_find(struct look *lk, uint32_t id);
struct look_job *look_job_add(struct look *lk,
			      uint32_t id); /* NULL: no memory */
void look_job_remove(struct look *lk, size_t at);

/* A job's base: freed; expanded into the look's scratch words (counted
 * in its work); whether it holds node n; read from a set (NULL: none;
 * false when it has more runs than kept and no room is left whole);
 * copied from another job's (false out of memory or room). */
void look_base_free(struct look *lk, struct look_job *j);
const uint64_t *look_base_words(struct look *lk, const struct look_job *j);
bool look_base_has(const struct look_job *j, uint32_t n);
bool look_base_capture(struct look *lk, struct look_job *j,
		       const uint64_t *bits);
bool look_base_copy(struct look *lk, struct look_job *to,
		    const struct look_job *from);

#endif
