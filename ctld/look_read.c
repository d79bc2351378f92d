/*
 * look_read.c - the look's read of the nodes' Extra in slurmctld
 * (look_read.h): a read of every node spread over holds, in chunks.
 */
#include "config.h" /* Slurm's, from the configured tree */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "src/common/node_conf.h"
#include "src/slurmctld/slurmctld.h"

#include "guard.h"
#include "look_read.h"
#include "records.h"

/* the nodes one hold reads: every node's 79 ms at most in one run in
 * slurmctld at 65,536 nodes and 30,000 jobs, where every node's record
 * and texts are far apart in memory (doc/benchmarks.md "The guard
 * alone"): some 5 ms a chunk */
#define LOOK_READ_CHUNK 4096

/* a read of every node under way: the next node, the node count, and
 * Slurm's stamp and the clock when it began */
static bool reading;
static size_t read_at, read_nnodes;
static time_t read_stamp, read_now;
static uint64_t *read_which; /* a chunk's nodes, words */

/* LOOK_READ_CHUNK nodes from *at read (guard_look_stamps(), `skip` as
 * there), *at moved past them.  False when out of memory. */
static bool read_chunk(struct guard *g, size_t nnodes, size_t *at, time_t now,
		       bool skip)
{
	size_t words = GUARD_WORDS(nnodes), end = *at + LOOK_READ_CHUNK;

	if (!read_which || read_nnodes != nnodes) {
		free(read_which);
		if (!(read_which = calloc(words, sizeof(*read_which))))
			return false;
		read_nnodes = nnodes;
	}
	memset(read_which, 0, words * sizeof(*read_which));
	if (end > nnodes)
		end = nnodes;
	for (size_t i = *at; i < end; i++)
		read_which[i / 64] |= 1ULL << (i % 64);
	if (guard_look_stamps(g, nnodes, read_which, records_extra_at,
			      records_stamp_of, NULL, now, skip) < 0)
		return false;
	*at = end;
	return true;
}

bool look_read_nodes(struct guard *g, size_t nnodes, enum guard_look look,
		     time_t now)
{
	static size_t reg_at;

	if ((reading && read_nnodes != nnodes) ||
	    (!reading &&
	     (look == GUARD_LOOK_ALL || look == GUARD_LOOK_CANDIDATES))) {
		reading = true;
		read_at = 0;
		read_stamp = last_node_update;
		read_now = now;
	}
	if (reading) {
		if (!read_chunk(g, nnodes, &read_at, read_now, false)) {
			reading = false;
			return false;
		}
		/* recorded at its first chunk's stamp and clock, unless a
		 * placement's look at every node since needs no other */
		if (read_at >= nnodes) {
			enum guard_look still =
				guard_look_needed(g, nnodes, last_node_update,
						  now, records_extra_unstamped);

			if (still == GUARD_LOOK_ALL ||
			    still == GUARD_LOOK_CANDIDATES)
				guard_looked_all(g, read_stamp, read_now);
			reading = false;
		}
		return true;
	}
	if (look != GUARD_LOOK_REGISTERED)
		return true;
	if (reg_at >= nnodes)
		reg_at = 0;
	return read_chunk(g, nnodes, &reg_at, now, true);
}

bool look_reading(void)
{
	return reading;
}

void look_read_free(void)
{
	free(read_which);
	read_which = NULL;
	read_nnodes = 0;
	reading = false;
}
