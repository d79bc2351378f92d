/*
 * look_walk.c - the look's walk of slurmctld's job list (look_walk.h).
 */
#include "config.h" /* Slurm's, from the configured tree */

#include <stdbool.h>
#include <stdint.h>

#include "slurm/slurm.h"
#include "src/common/list.h"
#include "src/slurmctld/slurmctld.h"

#include "look_walk.h"

static struct listIterator *walk_it;
static void *walk_list; /* the list it iterates */
static uint32_t walk_again;
static bool walk_lost;

job_record_t *look_walk_next(void)
{
	job_record_t *job_ptr;

	while (walk_again) { /* (gone since: the next one) */
		job_ptr = find_job_record(walk_again);
		walk_again = 0;
		if (job_ptr)
			return job_ptr;
	}
	if (!walk_it && !walk_lost && job_list) {
		walk_it = list_iterator_create(job_list);
		walk_list = job_list;
	}
	if (!walk_it || walk_list != (void *)job_list) {
		walk_it = NULL; /* (freed with its list) */
		walk_lost = true;
		return NULL;
	}
	return list_next(walk_it);
}

void look_walk_again(uint32_t job_id)
{
	walk_again = job_id;
}

bool look_walk_lost(void)
{
	return walk_lost;
}

void look_walk_stop(void)
{
	if (walk_it && job_list && walk_list == (void *)job_list)
		list_iterator_destroy(walk_it);
	look_walk_forget();
}

void look_walk_forget(void)
{
	walk_it = NULL;
	walk_list = NULL;
	walk_again = 0;
	walk_lost = false;
}
