/*
 * test_carry_fixture.h - what the feature carrier's node-update tests
 * (test_carry_site.c, test_carry_fresh.c) build their rounds from: a node
 * table of n1..nN, every node {"gpu":true}, a request "gpu=true" that
 * wants the carrier, its plan, and slurmctld played where
 * pace_send_nodes() asks it (pace_ctld): each update sent is caught in
 * `sent`, each load answered from `fresh`.  A failed assertion fails the
 * test that called the helper.
 */
#ifndef TESTS_TEST_CARRY_FIXTURE_H
#define TESTS_TEST_CARRY_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <slurm/slurm.h>

#include "carry.h"
#include "thread_private.h"
#include "xc.h"

/* The updates a round may send, at most. */
#define MAX_SENT 8

/* What slurmctld was sent: each update's names and lists (malloc'd). */
struct sent {
	char *names, *avail, *act;
};

extern xc_nodes_t *table;   /* n1..nN, each {"gpu":true} */
extern struct thread r;	    /* the thread: r.table is `table` */
extern node_info_msg_t msg; /* the thread's load: `infos`, all N */
extern struct sent sent[MAX_SENT];
extern size_t nsent;	   /* updates sent */
extern bool ok[MAX_SENT];  /* ok[k] of the last round_sent() */
extern size_t loads;	   /* single-node loads asked (pace_ctld.load) */
extern bool load_fails;	   /* they, and the loads of every node, fail */
extern size_t loads_since; /* loads of every node asked */
extern time_t since_asked; /* the `since` of the last of them */
extern bool no_change;	   /* they answer SLURM_NO_CHANGE_IN_DATA */

/* The N nodes as the thread's load shows them (names set; the test sets
 * their lists). */
extern node_info_t *infos;

/* The nodes as slurmctld shows them when the carrier loads them: `infos`
 * unless a test plays an admin's change. */
extern node_info_t *fresh;

/* Sets up the suite's round over `nodes` nodes (named n1..nN, at most
 * 9999), r.table_time 1000, slurmctld played; carry_fixture_teardown()
 * frees it all and fails a test that leaked (leakcheck.h). */
void carry_fixture_setup(size_t nodes);
void carry_fixture_teardown(void);

/* The thread's load of the nodes (carry_seen() of `msg`), a round in
 * which a job of "gpu=true" wants the carrier, its plan and the updates
 * sent as pace_send_nodes() sends them (ok[] set); the request's feature
 * into `feature`.  How many updates were planned. */
size_t round_sent(char feature[SX_FEATURE_LEN + 1]);

/* The update sent for `nodes` (a hostlist as sent), or a failure. */
const struct sent *sent_to(const char *nodes);

/* Whether an update was sent for `nodes`. */
bool was_sent(const char *nodes);

/* `want` with each "F" token replaced by the request's `feature`, into
 * `out` of `size` bytes. */
void expand(const char *want, const char *feature, char *out, size_t size);

#endif
