/*
 * look_read.h - the look's read of the nodes' Extra (doc/guard.md "The
 * look"), in slurmctld, the job write and node read locks held: what a
 * placement reads at once (guard.h, guard_look_needed()) the look reads
 * a chunk a hold, so that no hold of its is long at 65,536 nodes.
 */
#ifndef SLURM_EXTRA_LOOK_READ_H
#define SLURM_EXTRA_LOOK_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "guard.h"

/* This hold's part of the read `look` asks for (guard_look_needed()), at
 * `now`: a read of every node (GUARD_LOOK_ALL, and GUARD_LOOK_CANDIDATES,
 * which for the look is every node) goes LOOK_READ_CHUNK nodes a hold,
 * recorded as a look at every node (guard_looked_all()) at its first
 * chunk's stamp and clock after its last, so that a change during it is
 * read again; one under way goes on whatever `look` says, and begins
 * again with another node count (the guard then has read none).  A look at the nodes whose own stamp
 * moved (GUARD_LOOK_REGISTERED, 24.11) reads one chunk of the stamps a
 * hold, in turn.  The guard at placement reads what it needs itself.
 * False when out of memory. */
bool look_read_nodes(struct guard *g, size_t nnodes, enum guard_look look,
		     time_t now);

/* Whether a read of every node is under way (the look comes back soon). */
bool look_reading(void);

/* What the read kept, freed. */
void look_read_free(void);

#endif
