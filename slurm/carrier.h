/*
 * carrier.h - Slurm's feature strings as the feature carrier writes them
 * (an earlier release's; doc/guard.md "The guard alone" gives its leftovers
 * back): the plugin's node feature for one request,
 * a job's constraint with that feature ANDed in, and a node's feature list
 * with the plugin's features beside the site's own.  Text only: no Slurm
 * call, so that the rules are tested without a controller.
 *
 * The grammar is Slurm's (build_feature_list() and valid_feature_counts(),
 * src/slurmctld/job_scheduler.c, 22.05 to 26.05): names are any bytes but
 * the operators `&|*[]()` and `,` (which Slurm reads as `&`), compared
 * exactly; operators apply from left to right, with no precedence, so that
 * appending "&F" to any expression ANDs F with all of it.  Node counts
 * (`*N`) are the exception: with one in the expression, Slurm selects the
 * counted nodes from each counted term's own nodes and does not AND them
 * with a term outside the brackets (valid_feature_counts() ANDs the whole
 * only `if (!have_count)`), so a constraint with counts cannot carry the
 * plugin's feature.  These rules are read in Slurm's source of 22.05.8,
 * 23.11, 24.11.7 and 26.05 and checked on a cluster of 22.05.8
 * (tests/cluster/carrier-grammar.sh).  They hold without a NodeFeatures
 * plugin: with one, 23.11 and later rewrite an OR over changeable
 * features with AND first (job_features_list2feature_sets()), so that
 * "a|b&F" no longer means "(a|b)&F"; the carrier is not used there
 * (an earlier release's; doc/guard.md "The guard alone" gives its leftovers
 * back).  A job's --prefer list replaces its
 * constraint while Slurm tries it (select_nodes(), src/slurmctld/job_mgr.c),
 * so the feature goes into both, each through sx_constraint_with().
 */
#ifndef SLURM_EXTRA_CARRIER_H
#define SLURM_EXTRA_CARRIER_H

#include <stdbool.h>
#include <stddef.h>

/* The plugin's features are "xc_" and 12 lowercase hex digits: the first
 * 48 bits of the request's hash (xc_text_hash() of its canonical text), so
 * that two of 100,000 distinct requests share a name by chance about once
 * in 56,000 (the birthday bound, n^2 / 2^49).  The hash is not keyed: a
 * user can search for a request whose name is another's, so the user of
 * these names keeps which canonical text each stands for and carries a
 * request whose name is taken by another on the ExcNodeList. */
#define SX_FEATURE_PREFIX "xc_"
#define SX_FEATURE_HEX 12
#define SX_FEATURE_LEN (sizeof(SX_FEATURE_PREFIX) - 1 + SX_FEATURE_HEX)

/* Slurm refuses a job whose Features are longer than this
 * (_test_job_desc_fields(), src/slurmctld/job_mgr.c: "features", 1024). */
#define SX_CONSTRAINT_MAX 1024

/* Writes the feature of the request whose hash is `request_hash` into
 * `name` (SX_FEATURE_LEN bytes and a NUL). */
void sx_feature_name(unsigned long long request_hash,
		     char name[SX_FEATURE_LEN + 1]);

/* Whether the `len` bytes at `token` are one of the plugin's feature names
 * (any request's): the prefix and exactly SX_FEATURE_HEX lowercase hex
 * digits.  A site's own feature of that shape would be taken for the
 * plugin's: the prefix is the plugin's (an earlier release's; doc/guard.md
 * "The guard alone" gives its leftovers back). */
bool sx_feature_is_ours(const char *token, size_t len);

/* Why a constraint cannot carry the plugin's feature (sx_constraint_with):
 * the caller keeps the job on the ExcNodeList carrier. */
enum sx_constraint_why {
	SX_CONSTRAINT_OK = 0,
	SX_CONSTRAINT_COUNTS,	/* the user's constraint counts nodes (`*`) */
	SX_CONSTRAINT_DANGLING, /* it ends in an operator, which Slurm ignores
				   there and "&F" would not leave alone */
	SX_CONSTRAINT_TOO_LONG, /* the result would pass SX_CONSTRAINT_MAX */
	SX_CONSTRAINT_NOMEM,
};

/* The job's constraint with the plugin's feature `feature` (not NULL)
 * ANDed in: the user's own constraint `user` (NULL or "" for none), "&",
 * and the feature; the feature alone without one.  `user` is taken as the
 * user's own: sx_constraint_own() first takes out what an earlier call
 * appended.
 * Returns SX_CONSTRAINT_OK and *out (malloc'd; the caller frees it), or the
 * reason with *out NULL.  A constraint Slurm would refuse stays one that
 * Slurm refuses: the plugin does not read it further. */
enum sx_constraint_why sx_constraint_with(const char *user, const char *feature,
					  char **out);

/* The user's own part of a job's constraint `features` (NULL for none):
 * without the "&<feature>" (or the lone `feature`) that
 * sx_constraint_with() appended, when it ends with `feature`, the job's
 * own; a name of the plugin's shape that is not `feature` stays the
 * user's.  Slurm stores a constraint with its commas as "&": what comes
 * back is the stored form.  malloc'd ("" for none), or NULL when out of
 * memory. */
char *sx_constraint_own(const char *features, const char *feature);

/* Whether `features` (a job's constraint, may be NULL) names any of the
 * plugin's features anywhere, as a whole name: a user who copied one into
 * their own constraint only narrows their job's nodes, but the plugin must
 * not take that part for its own. */
bool sx_constraint_names_ours(const char *features);

/* Whether the last name of constraint `features` (may be NULL) is one of
 * the plugin's (sx_feature_is_ours(): the carrier ANDs its feature in at
 * the end, sx_constraint_with()); the name into `name` when it is.  Names
 * end at Slurm's operators. */
bool sx_constraint_last_ours(const char *features,
			     char name[SX_FEATURE_LEN + 1]);

/* A node's feature list: the tokens of `current` (its available or its
 * active features, comma-separated as Slurm prints them; NULL for none)
 * that are not the plugin's, in their order, then the `n` names of `ours`
 * (empty ones skipped), in their order, joined by commas.  malloc'd (""
 * for none), or NULL when out of memory.  update_node() replaces a node's
 * whole lists (node_mgr.c), so the plugin's update of a node writes the
 * site's features back unchanged: its available list from the site's
 * available one, its active list from the site's active one. */
char *sx_node_features(const char *current, const char *const *ours, size_t n);

#endif
