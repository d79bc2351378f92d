/*
 * parts.h - the nodes of each partition, as the thread last loaded them
 * (slurm_load_partitions()), for preferences: a preferred node counts
 * only when it is in one of the job's partitions (slurm/prefer.h,
 * doc/preferences.md "Preferences").  Written by the thread under r->lock,
 * read by job_submit() under it and by the thread's plan.
 */
#ifndef SLURM_EXTRA_PARTS_H
#define SLURM_EXTRA_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* One partition: its name and its nodes, a bool a node of the table. */
struct part_map {
	char *name;
	bool *nodes;
	bool is_default; /* Default=YES: a job naming no partition's */
};

struct parts {
	struct part_map *maps; /* NULL until loaded */
	size_t n;
	size_t count; /* the table's node count the maps are for */
	time_t time;  /* last_update of the partitions loaded */
};

/* Marks usable[k] false (count entries, the caller's) for each node of
 * the table in none of the partitions of `list` (a job's comma-separated
 * partitions; NULL or "": the default one).  0 when done; 1 when `p`
 * does not know them all (no maps, maps for another table, a partition
 * it has not loaded, no default one): every node is then marked false,
 * so that no tier narrows a job whose partitions are not known (a
 * narrowing outside them would keep it waiting, or, on 22.05, have its
 * submission refused).  Linear in the nodes times the job's
 * partitions. */
int parts_usable(const struct parts *p, const char *list, size_t count,
		 bool *usable);

/* Frees what `p` holds and empties it. */
void parts_free(struct parts *p);

#endif
