/*
 * look_cols.c - the guard's columns built by the look's thread
 * (look_cols.h; doc/guard.md "The columns").
 */
#include "config.h" /* Slurm's, from the configured tree */

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "slurm/slurm.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"

#include "guard.h"
#include "guard_slurm.h"
#include "look_cols.h"
#include "ns_now.h"

extern const char plugin_type[]; /* burst_buffer_extra.c's */

/* the nodes copied between two looks at the clock, and what one hold
 * spends copying: some 2 ms at 65,536 nodes and 30,000 jobs, where the
 * texts are far apart in memory */
#define LOOK_COLS_COPY_NODES 512
#define LOOK_COLS_COPY_NS (2 * 1000000ULL)
/* the next copy after one begun, or after an install refused (more node
 * changes during the copy and build than the install replays: a mass
 * update): a build costs the thread some 0.45 s at 65,536 nodes, so at
 * most some 5% of one core while mass updates go on */
#define LOOK_COLS_RETRY_S 10

static struct guard_cols_copy *copying;
static time_t retry_at;
static uint64_t installs;

struct guard_cols_copy *look_cols_copy(time_t now, bool *more)
{
	struct guard *g = guard_slurm_guard();
	struct guard_cols_copy *c;
	uint64_t t0 = ns_now();
	int r;

	if (!g) {
		look_cols_free();
		return NULL;
	}
	if (!copying) {
		if (now < retry_at || !(copying = guard_cols_copy(g)))
			return NULL;
		retry_at = now + LOOK_COLS_RETRY_S;
	}
	while (!(r = guard_cols_copy_more(g, copying, LOOK_COLS_COPY_NODES)) &&
	       ns_now() - t0 < LOOK_COLS_COPY_NS)
		;
	if (r < 0) {
		look_cols_free();
		return NULL;
	}
	if (!r) {
		*more = true;
		return NULL;
	}
	c = copying;
	copying = NULL;
	return c;
}

void look_cols_install(struct guard_cols_copy *c, uint64_t built_ns, time_t now)
{
	struct guard *g = guard_slurm_guard();

	if (!g) {
		guard_cols_copy_free(c);
		return;
	}
	if (!guard_cols_install(g, c)) {
		retry_at = now + LOOK_COLS_RETRY_S;
		return;
	}
	installs++;
	verbose("%s: the look: the guard's columns of %zu nodes built in %.1f ms outside the locks, installed",
		plugin_type, (size_t)node_record_count, (double)built_ns / 1e6);
}

uint64_t look_cols_installs(void)
{
	return installs;
}

void look_cols_free(void)
{
	guard_cols_copy_free(copying);
	copying = NULL;
}
