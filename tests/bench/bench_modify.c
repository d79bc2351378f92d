/*
 * bench_modify.c - what a user's own ExcNodeList costs job_modify() under
 * slurmctld's job write lock, printed, never asserted: `scontrol update
 * job=N ExcNodeList=<list>` of a pending job the plugin filters, against
 * a table of NODES nodes, with lists of NAMES names written three ways
 * (each name apart, as a script writes them; ranged with brackets; names
 * no node has), beside what Slurm alone spends reading the same list
 * (slurm_hostlist_create(), as _update_job() does).  Then a flood of
 * hints: a user's 66 updates of a whole 1,001-task array in one round
 * holding it (Slurm calls job_modify() once per record with the same
 * update), and
 * whether the thread's updates of that round are then refused.
 *
 *   make tests/bench/bench_modify && tests/bench/bench_modify [NODES [NAMES]]
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caps.h"
#include "entry.h"
#include "job_filter.h"
#include "job_state.h"
#include "plugin_config.h"
#include "thread_private.h"

#include <stdio.h>

static double ms_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1e3 + (b->tv_nsec - a->tv_nsec) / 1e6;
}

/* The context the thread would leave: NODES nodes n000000..., the even
 * ones {"gpu":true}, and job 7 of user 1001 asking gpu=true, known. */
static struct thread *context(size_t nodes)
{
	struct thread *r = calloc(1, sizeof(*r));
	slurm_job_info_t job = { 0 };
	job_info_msg_t msg = { .record_count = 1, .job_array = &job };
	struct refilter_stats stats = { 0 };
	struct job_update *ups = NULL;
	size_t n = 0;
	char name[32];
	struct sx_job_state state = { .status = "",
				      .exclude = "",
				      .request = "gpu=true" };

	state.wrote = hostlist_hash("");
	thread_init_sync(r);
	plugin_config_defaults(&r->cfg);
	r->self = getuid();
	r->table = xc_nodes_create(&r->cfg.limits);
	for (size_t i = 0; i < nodes; i++) {
		snprintf(name, sizeof(name), "n%06zu", i);
		if (xc_nodes_add(r->table, name,
				 i % 2 ? "{\"gpu\":false}" : "{\"gpu\":true}",
				 NULL, NULL) != 0)
			abort();
	}
	if (xc_nodes_compile(r->table, NULL) != 0)
		abort();
	job.job_id = 7;
	job.array_task_id = NO_VAL;
	job.job_state = JOB_PENDING;
	job.priority = 1000;
	job.user_id = 1001;
	job.admin_comment = sx_job_state_format(&state);
#if SX_SLURM_HAS_EXTRA_OPTION
	job.extra = strdup("gpu=true");
#endif
	if (refilter_plan(&(struct refilter_in){ .table = r->table,
						 .jobs = &msg,
						 .limits = &r->cfg.limits },
			  &(struct refilter_out){ .updates = &ups,
						  .n = &n,
						  .known = &r->known,
						  .stats = &stats }) != 0)
		abort();
	job_updates_free(ups, n);
	free(job.admin_comment);
#if SX_SLURM_HAS_EXTRA_OPTION
	free(job.extra);
#endif
	return r;
}

/* A list of `names` names: node names one by one (`first` on; from the
 * last down with `reverse`), or `prefix` names no node has. */
static char *list_of(size_t names, size_t first, const char *prefix,
		     bool reverse)
{
	size_t cap = names * 16 + 1, len = 0;
	char *s = malloc(cap);

	s[0] = '\0';
	for (size_t i = 0; i < names; i++)
		len += (size_t)snprintf(s + len, cap - len, "%s%s%06zu",
					i ? "," : "", prefix,
					first + (reverse ? names - 1 - i : i));
	return s;
}

static void row(const char *what, const char *list)
{
	job_desc_msg_t d;
	struct timespec t0, t1, t2;
	sx_hostlist_t hl;

	slurm_init_job_desc_msg(&d);
	d.job_id_str = slurm_xstrdup("7");
	d.exc_nodes = slurm_xstrdup(list);
	modify_forget();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (modify(&d, 1001, NULL) != SLURM_SUCCESS)
		printf("  (refused)\n");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	hl = slurm_hostlist_create(d.exc_nodes);
	clock_gettime(CLOCK_MONOTONIC, &t2);
	if (hl)
		slurm_hostlist_destroy(hl);
	printf("%-44s %12.1f ms %14.1f ms %10zu bytes\n", what,
	       ms_between(&t0, &t1), ms_between(&t1, &t2), strlen(d.exc_nodes));
	slurm_xfree((void **)&d.job_id_str);
	slurm_xfree((void **)&d.exc_nodes);
	hints_free(&entry_thread->hints);
}

/* The flood: `updates` updates of array 7's `records` records, each a
 * hold (job_modify() called once per record, same job_desc). */
static void flood(int updates, int records)
{
	job_desc_msg_t d;
	const uint32_t ids[3] = { 8, 0, 0 };
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int u = 0; u < updates; u++) {
		slurm_init_job_desc_msg(&d);
		d.job_id_str = slurm_xstrdup("7");
		d.priority = 0; /* a hold: a field the plan reads */
		modify_forget();
		for (int r = 0; r < records; r++)
			modify(&d, 1001, NULL);
		slurm_xfree((void **)&d.job_id_str);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%d updates of a %d-task array: %zu hints kept, %s (%.1f ms)\n",
	       updates, records, entry_thread->hints.n,
	       hints_newer(&entry_thread->hints, ids, 1002, 0)
		       ? "the round's updates of every job refused"
		       : "no other job's update refused",
	       ms_between(&t0, &t1));
	hints_free(&entry_thread->hints);
}

int main(int argc, char **argv)
{
	size_t nodes = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
	size_t names = argc > 2 ? strtoul(argv[2], NULL, 10) : 100000;
	char *list;
	struct timespec t0, t1;
	sx_hostlist_t hl;

	entry_thread = context(nodes);
	entry_cfg = entry_thread->cfg;
	entry_self = entry_thread->self;
	entry_on = true;
	printf("job_modify() of a user's ExcNodeList, %zu nodes, %zu names\n",
	       nodes, names);
	printf("%-44s %15s %17s %16s\n", "the user's list", "job_modify()",
	       "Slurm reads after", "list set");
	list = list_of(names < nodes ? names : nodes, 0, "n", false);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	hl = slurm_hostlist_create(list);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	slurm_hostlist_destroy(hl);
	printf("%-44s %15s %14.1f ms\n",
	       "(Slurm alone, the node names one by one)", "-",
	       ms_between(&t0, &t1));
	row("the node names one by one", list);
	free(list);
	list = list_of(names < nodes ? names : nodes, 0, "n", true);
	row("the node names one by one, last first", list);
	free(list);
	list = list_of(names, 0, "x", false);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	hl = slurm_hostlist_create(list);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	slurm_hostlist_destroy(hl);
	printf("%-44s %15s %14.1f ms\n", "(Slurm alone, names no node has)",
	       "-", ms_between(&t0, &t1));
	row("names no node has, one by one", list);
	free(list);
	row("ranged: n[000000-099999]", "n[000000-099999]");
	flood(66, 1001);
	xc_nodes_destroy(entry_thread->table);
	known_jobs_free(&entry_thread->known);
	hints_free(&entry_thread->hints);
	caps_free();
	free(entry_thread);
	return 0;
}
