/*
 * carrier.h - the node features an earlier release's feature carrier
 * wrote, as the guard's look reads them to give them back (doc/guard.md
 * "The guard alone"): the plugin's feature name for one request, the one
 * ANDed last into a job's constraint, and the user's own part of it.  Text only: no Slurm call, so
 * that the rules are tested without a controller.
 *
 * The grammar is Slurm's (build_feature_list(), src/slurmctld/
 * job_scheduler.c, 22.05 to 26.05): names are any bytes but the
 * operators `&|*[]()` and `,` (which Slurm reads as `&`), compared
 * exactly; the carrier appended "&F" to the user's constraint, and to
 * its --prefer list (select_nodes(), src/slurmctld/job_mgr.c, tries that
 * list in the constraint's place).
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

/* The user's own part of a job's constraint `features` (NULL for none):
 * without the "&<feature>" (or the lone `feature`) that the carrier
 * appended, when it ends with `feature`, the job's own; a name of the plugin's shape that is not `feature` stays the
 * user's.  Slurm stores a constraint with its commas as "&": what comes
 * back is the stored form.  malloc'd ("" for none), or NULL when out of
 * memory. */
char *sx_constraint_own(const char *features, const char *feature);

/* Whether the last name of constraint `features` (may be NULL) is one of
 * the plugin's (sx_feature_is_ours(): the carrier ANDed its feature in at
 * the end); the name into `name` when it is.  Names
 * end at Slurm's operators. */
bool sx_constraint_last_ours(const char *features,
			     char name[SX_FEATURE_LEN + 1]);

#endif
