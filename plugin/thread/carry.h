/*
 * carry.h - the feature carrier (doc/thread.md "Carriers"): the nodes a
 * request allows reach its jobs as a node feature, one a distinct request
 * (sx_feature_name() of its canonical text, slurm/carrier.h), set by the
 * thread on the nodes whose Extra satisfies the request and ANDed into the
 * constraint of each job that has it.  Slurm then evaluates the feature
 * with its own bitmaps when it places a job, so a node whose Extra
 * changes costs one node update, whatever the number of jobs.
 *
 * What is kept here, by the thread, for three readers:
 *   - the claims: which canonical text each name stands for.  The name is
 *     48 bits of an unkeyed hash, so two requests may share one (a user
 *     could look for it): the first request to claim a name keeps it while
 *     a pending job has it, and the jobs of any other request with that
 *     name go by their ExcNodeList;
 *   - per name, the nodes that carry it for sure (`count`, a lower bound
 *     that job_submit() and job_modify() read under the thread's lock) and
 *     whether slurmctld knows the name at all (`known`: set on some node
 *     since slurmctld last read slurm.conf; Slurm refuses a job naming a
 *     feature it does not know, "Invalid feature specification");
 *   - per node, the set of the plugin's features it carries (`have`, from
 *     the thread's loads) and should carry (`want`, from the requests'
 *     nodes), each as the XOR of its names' hashes, so that the nodes to
 *     update are found without a string a node.
 * The race rule: a count is lowered before the node updates that take the
 * name away are sent, and raised only after all the round's updates
 * succeeded,
 * so an entry point never names a feature on fewer nodes than it reads;
 * every name is forgotten when slurm_conf's last_update changes (a
 * reconfigure rebuilds Slurm's feature lists from slurm.conf), which the
 * entry points check themselves (sx_conf_time()).
 */
#ifndef SLURM_EXTRA_CARRY_H
#define SLURM_EXTRA_CARRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "carrier.h"
#include "memo.h"
#include "slurm_compat.h"
#include "xc.h"

struct lh_table; /* json-c's linkhash */

/* The bounds on the names claimed (doc/thread.md "Carriers"): at most
 * CARRY_MAX_NAMES in all, so that a node never carries more than that of
 * the plugin's features (16 bytes each, in its available and its active
 * list, packed into every node load and state save), and at most
 * CARRY_MAX_USER_NAMES claimed for one user's jobs, so that one user's
 * distinct requests cannot take them all.  A request past them has no
 * name: its jobs go by their ExcNodeList, as with Carrier=exclusions,
 * until a name frees. */
#define CARRY_MAX_NAMES 64
#define CARRY_MAX_USER_NAMES 8

/* One of the plugin's feature names and the request that claimed it. */
struct carry_name {
	char name[SX_FEATURE_LEN + 1];
	char *canonical;  /* the request it stands for (malloc'd) */
	uint64_t hash;	  /* xc_text_hash(name): its part of a node's set */
	size_t want;	  /* nodes that should carry it (the last plan) */
	size_t count;	  /* nodes that carry it for sure: a lower bound */
	size_t before;	  /* `count` when the last plan started */
	size_t low;	  /* `count` while its updates were sent: the least
			     it may have had meanwhile */
	bool known;	  /* slurmctld knows the name (set on some node since
			    it last read slurm.conf) */
	uint64_t round;	  /* the last round a job wanted it */
	uint64_t claimed; /* the round its request claimed it */
	uint32_t owner;	  /* for whose jobs: memo_request.carry_owner at
			     the last round a job wanted it */
	uint64_t moves;	  /* its request's `moves` at the last compute of
			     the nodes' sets */
	bool conflict;	  /* two requests claimed it free in one round */
	struct memo_request *req; /* this round's request (borrowed: valid
				     from carry_plan() to carry_done()) */
};

/* One node update the thread sends: `names` (a ranged hostlist) get
 * `features` as their available features and `features_act` as their
 * active ones: the site's own lists, each kept as it was (a feature the
 * site made available but not active stays inactive), then `ours`.  A
 * node's active features must be among its available ones
 * (_valid_features_act() in update_node(), src/slurmctld/node_mgr.c,
 * 22.05.8 to 26.05.3, refuses the update otherwise): the plugin's names
 * are in both, and the site's active ones are kept to those of its
 * available ones. */
struct carry_update {
	char *names;	    /* malloc'd */
	char *ours;	    /* the plugin's names, comma-separated ("" for
			       none), malloc'd */
	char *features;	    /* available: the site's, then `ours` (as the
			       plan's load saw the site's; malloc'd) */
	char *features_act; /* active: the same from the site's active
			       list (malloc'd) */
	size_t nodes;	    /* how many */
	size_t *idx;	    /* the nodes it names (table indices), malloc'd */
};

struct carry {
	bool manage;		/* the thread manages node features (no
			     NodeFeatures plugin): its own, stale ones
			     taken away too */
	bool enabled;		/* Carrier=features and `manage` */
	time_t conf_time;	/* slurm_conf's last_update the names hold for
			     (0: not read yet) */
	struct lh_table *names; /* name -> struct carry_name (the claims) */
	size_t nodes;		/* the node count of the arrays below: */
	uint64_t *have;		/* per node: the set it carries (loaded) */
	uint64_t *want;		/* per node: the set it should carry */
	const char **site;	/* per node: the site's own available features
			     (interned in `sites`; NULL: not seen, hidden
			     nodes) */
	const char **site_act;	/* per node: the site's own active ones, of
				   its available ones (interned; NULL with
				   `site`) */
	struct lh_table *sites; /* interned site lists */
	bool seen;		/* `have` read from a load of every node */
	bool dirty;		/* `want` must be computed again */
	uint64_t set_hash;	/* of the names wanted at the last plan */
	uint64_t planned;	/* the round carry_plan() planned (0: none
				   since the last carry_done()) */
};

/* Initialises `c` (zeroed first).  0, or -1 when out of memory. */
int carry_init(struct carry *c);

/* Frees what `c` holds (zeroed, or never initialised: nothing). */
void carry_free(struct carry *c);

/* A new reading of slurm.conf (`conf_time`, slurm_conf's last_update),
 * with `manage` (no NodeFeatures plugin) and `enabled` (Carrier=features
 * as well): every name unknown and its count 0, `want` computed again.
 * With the thread's lock held (the entry points read the names). */
void carry_conf(struct carry *c, time_t conf_time, bool manage, bool enabled);

/* The node data `msg` just loaded, whose named nodes are the first of
 * the table's `count` (node_table.h; the others are hidden): each node's
 * site features, its available and its active ones apart (an unset active
 * list is the available one, as update_node() reads it,
 * src/slurmctld/node_mgr.c), and the set of the plugin's it carries.
 * Thread only.
 * -1 when out of memory (`c->seen` false: no node update until a load
 * is read). */
int carry_seen(struct carry *c, const node_info_msg_t *msg, size_t count);

/* What the entry points ask, with the thread's lock held: the name of the
 * request whose canonical text is `canonical` into `name`, and whether its
 * jobs go by it: -1 when not (the carrier off, slurm.conf read again since
 * the thread's last round, the name not known to slurmctld yet, or claimed
 * by another request), else the nodes that carry it for sure (0: none
 * now; a job naming it must be held, or Slurm refuses it). */
long carry_lookup(const struct carry *c, const char *canonical,
		  char name[SX_FEATURE_LEN + 1]);

/* The same for a job that has feature `name` already (job_modify()):
 * -1 unless the carrier is on, slurm.conf was not read again since, and
 * slurmctld knows the name; else the nodes that carry it for sure. */
long carry_lookup_name(const struct carry *c, const char *name);

/* For the plan (thread only): whether request `req`'s jobs may go by its
 * feature: the carrier on, the request not in a conflict over its name
 * (memo_request.carry_conflict), and the name free or claimed by `req`'s
 * text.  *known: claimed by it and known to slurmctld; *count: the nodes
 * that carry it for sure. */
bool carry_may(const struct carry *c, const struct memo_request *req,
	       bool *known, size_t *count);

/* Whether the node changes since the last plan (memo_nodes_changed(): the
 * requests marked changed for the next round) need no plan of the jobs
 * that plan saw: the carrier on, and each changed request's jobs all
 * carried by its feature with no exclusions of their own, its count of
 * nodes at least the most nodes one of its jobs asks for, before and
 * after (every job's status says "enough" both times; a job set aside
 * for too few nodes since is planned by the rise carry_done() marks).
 * Then the carrier's node update is the whole answer for those jobs;
 * jobs that came or changed since that plan are the caller's to
 * consider.  Thread only; linear in the memo's requests. */
bool carry_covers(const struct carry *c, const struct refilter_memo *memo);

/* Plans the node updates of round `round` (thread only): the requests a
 * job wanted the feature of this round (req->carry_round == round) claim
 * their names (under the lock: `lock` and `unlock` with `arg`); the
 * names no job wants any more are taken off their nodes
 * and forgotten once no node has them; each node's wanted set computed
 * again when anything changed; the nodes whose set differs from what
 * they carry grouped by their new list, one update a list, into *ups (*n
 * of them; malloc'd, free with carry_updates_free).  `table` is the
 * memo's.  The counts that fall are lowered now (under the lock too);
 * those that rise wait for carry_done().  Names that became known are marked in
 * their request (memo_request.changed = round + 1) so that the next round
 * moves its jobs.  0, or -1 when out of memory (nothing planned). */
int carry_plan(struct carry *c, struct refilter_memo *memo,
	       const xc_nodes_t *table, uint64_t round,
	       struct carry_update **ups, size_t *n, void (*lock)(void *),
	       void (*unlock)(void *), void *arg);

/* After the updates of carry_plan() for round `round` were sent, `ok`
 * of them succeeded (in order; `n` in all): the nodes of each that
 * succeeded carry their new set (have = want), and when all did, every
 * count is what the plan wanted and the names on some node known, the
 * names no job wanted forgotten.  Nothing when carry_plan() did not plan
 * that round.  With the thread's lock held.  Returns whether a request
 * was marked for the next round (a name now known, or a count above the
 * least it may have had while the updates were sent, which was below the
 * most nodes one of its jobs asks for: a job Slurm set aside may run
 * now): its jobs are to be planned then, even if nothing else
 * changed. */
bool carry_done(struct carry *c, struct refilter_memo *memo,
		const struct carry_update *ups, size_t n, const bool *ok,
		uint64_t round);

/* The site's lists of one update's nodes as they are when the update is
 * sent (pace_send_nodes(): each node loaded alone right before it, or
 * the round's load of every node), so that an admin's change of a node's
 * features since the thread's load the plan was made from is kept, not
 * overwritten with the lists that load showed.  update_node()
 * (src/slurmctld/node_mgr.c, 22.05.8 to 26.05.3) gives every node an
 * update names the same two lists, so they are sent only when every node
 * has the same.  { 0 } before the first node; carry_fresh_free() after. */
struct carry_fresh {
	char *avail;  /* the first node's available features, the plugin's
			 left out (malloc'd; NULL before it) */
	char *act;    /* its active ones, of those (malloc'd) */
	size_t nodes; /* the nodes read */
	bool differ;  /* a node's lists differ from the first's */
};

/* The most nodes a round's node updates may name in all for each node to
 * be loaded alone right before its update (pace_send_nodes()); past it
 * the round loads every node once instead.  16: a change of a few nodes
 * (one node's Extra, a small job's nodes: the usual flip) keeps the
 * narrowest window, one load and one update, and a round's burst stays
 * at 32 RPCs at most, 16 single loads and 16 updates, each one node
 * packed or updated and one munge credential: the guard at placement
 * loads a job's nodes alone up to 32 (doc/thread.md "The check at
 * start"), its loads alone;
 * here each single load comes with its share of updates.  A load of
 * every node took 95 ms of slurmctld's time at 10,000 nodes and 643 ms
 * at 65,536 (doc/benchmarks.md), but costs nothing when no node changed
 * since the plan's load. */
#define CARRY_FRESH_SINGLE_MAX 16

/* Reads the site's lists of `node` (a record of slurm_load_node_single()
 * or of slurm_load_node(); borrowed) into `f`, as carry_seen() reads them: the plugin's names left
 * out, an unset active list the available one, the active features kept
 * to the available ones.  Linear in the lists' length (quadratic in the
 * active list's tokens).  0, or -1 when out of memory (`f` as it was). */
int carry_fresh_read(struct carry_fresh *f, const node_info_t *node);

/* The lists update `u` sends once its nodes were read into `f`: into
 * *avail the site's available features as `f` has them, then u->ours;
 * into *act the same of the active ones (both malloc'd, the caller's).
 * 0; 1 when the update is not to be sent, *avail and *act NULL: fewer
 * nodes read than it names, or their lists differ (the next round's load
 * shows them, and its plan groups the nodes by them); -1 when out of
 * memory. */
int carry_fresh_lists(const struct carry_fresh *f, const struct carry_update *u,
		      char **avail, char **act);

/* Frees what `f` holds and zeroes it. */
void carry_fresh_free(struct carry_fresh *f);

/* Frees `n` updates and their array. */
void carry_updates_free(struct carry_update *ups, size_t n);

#endif
