/*
 * memo.h - what a round of the re-filtering thread keeps for the next, so
 * that a round costs what changed, not what exists (doc/thread.md "Work
 * follows change"):
 *   - each distinct request text parsed once while a pending job has it,
 *     and each distinct request (its canonical text) evaluated once: the
 *     nodes it matches, one bit a node, and the filter of a job that has
 *     no exclusions or required nodes of its own (its counts and the
 *     hashes of its list, not the list);
 *   - a node whose Extra changed in place re-evaluated against each
 *     request alone (xc_match() on that node), and a request whose nodes
 *     changed marked with the round;
 *   - each job planned keeps a print of what the plan reads of it but its
 *     ExcNodeList (known_jobs.h), so that a job whose print, hints and
 *     request are unchanged since its plan is not planned again.
 * A job's ExcNodeList, which no print shows (hashing every pending job's
 * list each round is what this avoids), changes only through an update,
 * which job_modify() sees and leaves a hint of; the round that takes the
 * hint plans the job (the thread plans whenever it takes hints: within
 * JOBS_PACED_S of the update, thread_private.h).  Every job is planned
 * after a lost hint, a refused update, a table built anew, a time when
 * Slurm filtered or another controller was in control, and, as a
 * backstop, every `full_round` seconds, with every request evaluated
 * again.  A memo serves one thread, one node table and one set of limits.
 */
#ifndef SLURM_EXTRA_MEMO_H
#define SLURM_EXTRA_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "carrier.h"
#include "slurm_compat.h"
#include "job_filter.h"
#include "xc.h"

struct lh_table; /* json-c's linkhash */

/* One distinct request (its canonical text), evaluated over the table. */
struct memo_request {
	char *canonical;	/* xc_format(), the key */
	xc_expr_t *expr;	/* parsed */
	uint64_t *bits;		/* the nodes it matches, bit i node i; NULL: not
			    evaluated on the table as it is now */
	size_t nodes;		/* the table's node count when evaluated */
	bool base_ok;		/* the fields below hold for the table now: */
	struct job_filter base; /* the filter of a job with no exclusions or
				   required nodes of its own (exc NULL: its
				   list is not kept) */
	uint64_t base_text;	/* xc_text_hash() of that list ("" none) */
	uint64_t base_hosts;	/* hostlist_hash() of it */
	uint64_t changed;	/* the round its nodes last changed */
	uint64_t moves;		/* when its bits last changed or were made
				   anew (the memo's sequence: a request made
				   again never repeats a value); the
				   carrier's want follows (carry.h) */
	uint64_t used;		/* the last round a job had it */
	char feature[SX_FEATURE_LEN + 1]; /* its name as a node feature
					     (sx_feature_name(), carry.h) */
	uint64_t carry_round; /* the last round a job of it wanted the
				 feature carrier (carry.h) */
	uint32_t carry_owner; /* the least uid of that round's jobs wanting
				 it: whose name it claims (carry.h bounds) */
	uint64_t rose;	      /* the round after its feature's count last
				 rose (carry_done) */
	/* What the last plan left (refilter.h), for carry_covers(): */
	bool carried_only;    /* each of its jobs goes by its feature, none
				 with exclusions of its own */
	uint32_t max_nodes;   /* the most nodes one of its jobs asks for */
	size_t count_at_plan; /* the nodes it matched then */
	bool carry_conflict;  /* another request wanted its feature's name,
				 free then, in the same round: neither goes
				 by it while this request lives (carry.h) */
};

/* One distinct request text, parsed: its request, or NULL when invalid. */
struct memo_text {
	char *text; /* the key */
	struct memo_request *request;
	uint64_t used;
};

struct refilter_memo {
	struct lh_table *texts;	   /* text -> struct memo_text */
	struct lh_table *requests; /* canonical -> struct memo_request */
	size_t nodes;		   /* the table's node count for the bits */
	uint64_t round;		   /* rounds planned with this memo (1, ...) */
	bool plan_all;		   /* the next round plans every job */
	struct timespec last_all;  /* when a round last planned every job */
	unsigned full_round;	   /* seconds between such rounds (0: each) */
	size_t bytes;		   /* held by the bits */
	uint64_t moves;		   /* the last memo_request.moves given out:
				      one sequence for every request */
	size_t deleted;		   /* entries deleted since the tables were
				      last copied (rehash) */
	int normal;		   /* the table's lists are Slurm's own text
		       (sx_nodes_in_slurm_order): 1, 0, or -1 not known yet */
};

/* Initialises `memo` (every job planned in its first round), with a round
 * that plans every job at least every `full_round` seconds (0: every
 * round).  0, or -1 when out of memory. */
int memo_init(struct refilter_memo *memo, unsigned full_round);

/* Frees what `memo` holds (NULL, or never initialised and zeroed: nothing). */
void memo_free(struct refilter_memo *memo);

/* The nodes `nodes` (n of them, indices in `table`, whose node count is
 * unchanged) had their Extra changed in place, to `extras` (n of them, as
 * xc_extra_load() read them; NULL: unusable, which matches nothing, as in
 * the table): each request evaluated re-evaluates those nodes alone
 * (xc_match(), which the table's columns equal node for node), and a
 * request whose nodes changed is marked with the next round. */
void memo_nodes_changed(struct refilter_memo *memo, const xc_nodes_t *table,
			const size_t *nodes, const xc_extra_t *const *extras,
			size_t n);

/* The table was built anew (or the changed nodes are not known): every
 * request is evaluated again when a job needs it, and every job planned. */
void memo_nodes_anew(struct refilter_memo *memo);

/* Every job planned in the next round (hints lost, updates refused, a
 * round that failed). */
void memo_plan_all(struct refilter_memo *memo);

/* Starts a round: its number, and whether it plans every job (*all: when
 * asked since the round before, and every `full_round` seconds, when every
 * request's evaluation is dropped too).  A round ends with
 * memo_round_end(), or, when it failed, memo_plan_all(). */
uint64_t memo_round(struct refilter_memo *memo, bool *all);

/* The parsed request of text `text` (copied), parsed with `limits` (NULL:
 * the defaults) the first time it is seen (a memo keeps one set of
 * limits: the plugin's, which change only with a new thread); marked used
 * by the round, it lives until the end of a round that does not use it.
 * *request is NULL when the text is invalid.  -1 when out of memory. */
int memo_request_of(struct refilter_memo *memo, const char *text,
		    const xc_limits_t *limits, struct memo_request **request);

/* Fills `matched` (xc_nodes_count(table) bools) with the nodes `req`
 * matches on `table` (the memo's: the one whose changes it is told),
 * evaluating it when it is not (*evaluated then true).  -1 when out of
 * memory (matched undefined). */
int memo_matched(struct refilter_memo *memo, struct memo_request *req,
		 const xc_nodes_t *table, bool *matched, bool *evaluated);

/* The nodes `req` matches on the table it was evaluated on (its bits
 * counted); 0 when it has no evaluation. */
size_t memo_request_count(const struct memo_request *req);

/* Ends a round: the texts and requests no job had in it are freed. */
void memo_round_end(struct refilter_memo *memo);

/* A 64-bit print (eight bytes a step, memo.c) of what a round's plan
 * reads of pending `job` but its ExcNodeList: its AdminComment, request,
 * required nodes, constraint, --prefer, node count, ids, owner, and
 * whether it is held (and why: BadConstraints too; not its priority or
 * reason otherwise, which change at every scheduling pass). */
uint64_t memo_job_print(const slurm_job_info_t *job);

/* One 64-bit word into hash `h`: multiply and fold (the finaliser of
 * MurmurHash3, fmix64), eight bytes a step where the library's FNV-1a
 * takes one (a round's print of 10,000 AdminComments of 1 KB took 12 ms of
 * the 50 a round with nothing changed cost).  For the thread's own prints
 * and keys, never stored nor compared with anything but themselves. */
uint64_t memo_mix_word(uint64_t h, uint64_t w);

/* Text `s` and its length into hash `h` (memo_mix_word()), NULL apart
 * from "". */
uint64_t memo_mix_text(uint64_t h, const char *s);

#endif
