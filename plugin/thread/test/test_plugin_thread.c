/*
 * test_plugin_thread.c - job_submit/extra's thread outside slurmctld,
 * linked with the plugin's sources (the thread itself never runs), through
 * what its private headers expose (thread_private.h, pace.h, memory.h,
 * node_table.h): a backup slurmctld's thread stands idle while the primary
 * answers; the nodes Slurm hides are read from the partitions; the update
 * budget; what loads the jobs; when glibc's memory is trimmed.
 */
#include <json-c/linkhash.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "memory.h"
#include "node_table.h"
#include "pace.h"
#include "thread_private.h"

#include <criterion/criterion.h>

#include "leakcheck.h"

LEAK_CHECKED(plugin);

static int primary_answers(int dest)
{
	return dest == 0 ? SLURM_SUCCESS : SLURM_ERROR;
}

static int primary_silent(int dest)
{
	(void)dest;
	return SLURM_ERROR;
}

/* slurmctld exports `slurmctld_primary` (an int on 22.05-23.02, a bool
 * since); a backup's thread stands idle while the primary answers, and
 * filters once it does not (the backup took over).  Without the symbol
 * (a process not slurmctld) it is in control. */
Test(plugin, a_backups_thread_is_idle_while_the_primary_answers)
{
	static unsigned char flag;

	/* this test program has no slurmctld_primary */
	thread_control.ping = primary_answers;
	cr_assert(thread_in_control(), "no slurmctld_primary: in control");
	cr_assert(thread_control.looked);
	cr_assert_null(thread_control.primary);
	/* as slurmctld's own symbol would be found */
	flag = 1;
	thread_control.primary = &flag;
	cr_assert(thread_in_control(), "the primary");
	flag = 0;
	cr_assert_not(thread_in_control(), "a backup, the primary answering");
	thread_control.ping = primary_silent;
	cr_assert(thread_in_control(), "a backup that took over");
	thread_control.ping = slurm_ping;
	thread_control.primary = NULL;
}

/* ------------------------------------------------------- hidden nodes */

/* Slurm 22.05 hides a powered-down CLOUD node from slurm_load_node() (a
 * record without a name): the hidden nodes are the partitions' nodes that
 * the node data do not name, each once, in the order the partitions list
 * them (node_table.c). */
Test(plugin, hidden_nodes_are_the_partitions_nodes_not_named)
{
	node_info_t nodes[4] = { { 0 } };
	node_info_msg_t msg = { .record_count = 4, .node_array = nodes };
	partition_info_t part[3] = { { 0 } };
	partition_info_msg_t parts = { .record_count = 3,
				       .partition_array = part };
	static const char *const want[] = { "c3", "c4", "c1", "c2" };
	char **names;
	size_t n;

	nodes[0].name = (char *)"n1"; /* nodes[1] and [3]: hidden */
	nodes[2].name = (char *)"n2";
	part[0].nodes = (char *)"n[1-2],c[3-4]";
	part[2].nodes = (char *)"c[1-4],c3,n1"; /* part[1]: no nodes */
	names = node_table_hidden_names(&msg, &parts, &n);
	cr_assert_eq(n, 4, "%zu hidden nodes", n);
	for (size_t k = 0; k < n; k++)
		cr_assert_str_eq(names[k], want[k], "name %zu", k);
	node_table_free_names(names, n);

	part[0].nodes = (char *)"n[1-2]"; /* every partition node named */
	part[2].nodes = NULL;
	cr_assert_null(node_table_hidden_names(&msg, &parts, &n));
	cr_assert_eq(n, 0);
}

/* ------------------------------------------------------ update budget */

/* Each update's RPC owes rest in proportion to UpdateBudget (doc/thread.md
 * "The update budget"): 20 ms at 100 ms a second owe 180 ms, taken before
 * the next update; at 1000 nothing is owed; a stopping plugin stops the
 * wait.  What is asserted is the waits counted, never a time. */
Test(plugin, updates_past_the_budget_rest_before_the_next)
{
	struct thread *r = calloc(1, sizeof(*r));
	struct refilter_stats stats = { 0 };
	struct pace p = { 0 };

	cr_assert_not_null(r);
	thread_init_sync(r);
	r->cfg.update_budget = 100;
	cr_assert(pace_wait(r, &p, &stats), "nothing owed yet");
	cr_assert_eq(stats.paced, 0);
	pace_owe(r, &p, 5.0); /* owes 45 ms: under a step, no wait yet */
	cr_assert(pace_wait(r, &p, &stats));
	cr_assert_eq(stats.paced, 0);
	pace_owe(r, &p, 15.0); /* 45 + 135 ms: rest before the next */
	cr_assert(p.owed_ms >= PACE_STEP_MS, "%f", p.owed_ms);
	cr_assert(pace_wait(r, &p, &stats));
	cr_assert_eq(stats.paced, 1);
	cr_assert_eq(p.owed_ms, 0);
	r->cfg.update_budget = 1000;
	pace_owe(r, &p, 500.0);
	cr_assert_eq(p.owed_ms, 0, "at 1000 nothing is owed");
	r->cfg.update_budget = 100;
	pace_owe(r, &p, 100.0);
	r->stopping = true;
	cr_assert_not(pace_wait(r, &p, &stats), "stopping: no rest");
	pthread_cond_destroy(&r->wake);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

/* A thread that has just loaded the jobs, ask 1 among them, and seen no
 * ask since the round before. */
static struct thread just_loaded(void)
{
	static job_info_msg_t loaded;
	struct thread r = { .jobs = &loaded,
			    .asked_seen = 1,
			    .asked_round = 1 };

	clock_gettime(CLOCK_MONOTONIC, &r.jobs_asked);
	clock_gettime(CLOCK_MONOTONIC, &r.unloaded_since);
	return r;
}

/* What else loads every job at once, whatever the asks: a change of the
 * node data, moves held back, the backstop; nothing new, a preference's
 * deadline or the free nodes load nothing. */
Test(plugin, node_data_refusals_and_the_backstop_load_the_jobs)
{
	struct thread r = just_loaded();

	cr_assert_not(thread_jobs_wanted(&r, false, 0, 1), "nothing new");
	cr_assert(thread_jobs_wanted(&r, true, 0, 2), "the node data changed");
	cr_assert(thread_jobs_wanted(&r, false, 1, 2), "an urgent ask");
	r.replan = true;
	cr_assert(thread_jobs_wanted(&r, false, 0, 2),
		  "moves held back, or a refused job's retry not kept");
	r.replan = false;
	/* a preference's deadline, or the free nodes for preferences with
	 * no wait: the jobs as last loaded are planned, none loaded (the
	 * thread loaded every job each second while 600 waits ended) */
	r.prefer_next = 1;
	r.prefer_free = 1;
	r.free_changed = true;
	cr_assert(thread_prefer_due(&r, time(NULL)));
	cr_assert_not(thread_jobs_wanted(&r, false, 0, 1),
		      "a deadline or the free nodes: no load");
	r.prefer_next = 0;
	r.prefer_free = 0;
	r.free_changed = false;
	r.carry_due = true;
	cr_assert(thread_jobs_wanted(&r, false, 0, 2),
		  "a feature now known: its jobs move");
	r.carry_due = false;
	r.jobs_asked.tv_sec -= JOBS_BACKSTOP_S - 1;
	cr_assert_not(thread_jobs_wanted(&r, false, 0, 1), "nothing new");
	r.jobs_asked.tv_sec -= 1;
	cr_assert(thread_jobs_wanted(&r, false, 0, 1), "the backstop");
}

/* A node change the feature carrier answered alone loads no job: every
 * job of the request it touched is carried and keeps its chance; any ask
 * since the last load, a request that may lose its chance, or no carrier
 * loads them (thread_nodes_want_jobs, then thread_jobs_wanted). */
Test(plugin, a_node_change_the_carrier_answered_alone_loads_no_job)
{
	struct thread r = just_loaded();
	uint64_t bits = 0x7; /* 3 nodes */
	struct memo_request req = { .bits = &bits,
				    .nodes = 3,
				    .changed = 2, /* after the last plan */
				    .carried_only = true,
				    .max_nodes = 2,
				    .count_at_plan = 2 };

	r.carry.enabled = true;
	r.memo.round = 1;
	cr_assert_not_null(r.memo.requests = lh_kchar_table_new(4, NULL));
	cr_assert_eq(lh_table_insert(r.memo.requests, "gpu=true", &req), 0);

	cr_assert_not(thread_nodes_want_jobs(&r, true, 0, 1),
		      "2 to 3 nodes, its jobs ask for 2: answered");
	cr_assert_not(thread_nodes_want_jobs(&r, false, 1, 2),
		      "no node change: the asks are thread_jobs_wanted's");
	cr_assert(thread_nodes_want_jobs(&r, true, 0, 2),
		  "a job came since the last load: its plan never saw it");
	cr_assert(thread_nodes_want_jobs(&r, true, 1, 1), "an urgent ask");
	bits = 0x1;
	cr_assert(thread_nodes_want_jobs(&r, true, 0, 1),
		  "1 node left, its jobs ask for 2: their status changes");
	bits = 0x7;
	req.count_at_plan = 1;
	cr_assert(thread_nodes_want_jobs(&r, true, 0, 1),
		  "it had 1 at the plan: its jobs may have been set aside");
	req.count_at_plan = 2;
	req.carried_only = false;
	cr_assert(thread_nodes_want_jobs(&r, true, 0, 1),
		  "a job of it goes by its ExcNodeList");
	req.carried_only = true;
	req.changed = 1;
	cr_assert_not(thread_nodes_want_jobs(&r, true, 0, 1),
		      "a request the change left alone");
	req.changed = 2;
	r.memo.plan_all = true;
	cr_assert(thread_nodes_want_jobs(&r, true, 0, 1),
		  "a round that plans every job");
	r.memo.plan_all = false;
	r.carry.enabled = false;
	cr_assert(thread_nodes_want_jobs(&r, true, 0, 1),
		  "Carrier=exclusions: every change loads the jobs");
	cr_assert_not(thread_nodes_want_jobs(&r, false, 0, 1),
		      "but no change none");
	lh_table_free(r.memo.requests);
}

/* What counts as an ask for a load of every job: a submission, a hint
 * lost (paced); a job job_submit() held, an update job_modify() could not
 * settle, hints at half their bound (urgent).  A hint alone is none: it
 * has its own jobs loaded (job_loads.h). */
Test(plugin, hints_and_their_losses_are_asks)
{
	struct thread r = { 0 };
	struct job_hint h = { .trusted = true,
			      .task = NO_VAL,
			      .offset = NO_VAL };
	uint64_t asked, urgent;

	thread_users_asks(&r, &asked, &urgent);
	cr_assert(asked == 0 && urgent == 0);
	r.submitted++;
	thread_users_asks(&r, &asked, &urgent);
	cr_assert(asked == 1 && urgent == 0, "a submission");
	h.id = 7;
	cr_assert(hints_add(&r.hints, &h));
	thread_users_asks(&r, &asked, &urgent);
	cr_assert(asked == 1 && urgent == 0, "a hint: none");
	for (uint32_t i = 1; i < HINTS_PER_OWNER / 2; i++) {
		h.id = 7 + i;
		cr_assert(hints_add(&r.hints, &h));
	}
	thread_users_asks(&r, &asked, &urgent);
	cr_assert_eq(urgent, 1, "half an owner's bound: urgent");
	for (uint32_t i = HINTS_PER_OWNER / 2; i <= HINTS_PER_OWNER; i++) {
		h.id = 7 + i;
		hints_add(&r.hints, &h);
	}
	cr_assert_eq(r.hints.losses, 1);
	thread_users_asks(&r, &asked, &urgent);
	cr_assert_eq(asked, 1 + 1, "a submission and a loss");
	r.urgent++;
	thread_users_asks(&r, &asked, &urgent);
	cr_assert_eq(urgent, 2, "a held job, an unsettled update");
	hints_free(&r.hints);
}

/* When the thread trims glibc's free memory after a load: on, at most
 * every MallocTrimInterval s, and only when slurmctld grew by 4 MB since
 * it was last measured at its least. */
Test(plugin, malloc_trim_follows_growth_at_most_every_interval)
{
	const long mb = 1024;

	cr_assert(thread_trim_due(10, INFINITY, 0, 20 * mb), "the first");
	cr_assert_not(thread_trim_due(0, INFINITY, 0, 20 * mb), "off");
	cr_assert_not(thread_trim_due(10, 9999, 100 * mb, 200 * mb),
		      "9.999 s after the last");
	cr_assert(thread_trim_due(10, 10000, 100 * mb, 200 * mb),
		  "10 s after the last");
	cr_assert_not(thread_trim_due(10, 60000, 400 * mb, 403 * mb),
		      "grown by 3 MB");
	cr_assert(thread_trim_due(10, 60000, 400 * mb, 404 * mb),
		  "grown by 4 MB");
	cr_assert_not(thread_trim_due(10, INFINITY, 0, -1),
		      "the resident memory unknown");
}

/* The resident memory the trim follows is the kernel's VmRSS. */
Test(plugin, resident_memory_is_vmrss)
{
	char line[256];
	long vmrss = -1, statm;
	FILE *f = fopen("/proc/self/status", "r");

	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &vmrss) == 1)
			break;
	fclose(f);
	statm = thread_resident_kb();
	cr_assert_gt(vmrss, 0);
	cr_assert(labs(statm - vmrss) <= 1024, "statm %ld KB, VmRSS %ld KB",
		  statm, vmrss);
}

/* Users' asks (submissions, hints, their losses) load the jobs once they
 * pause (a round with none since the round before), at most JOBS_PACED_S
 * after the first one unloaded while they go on. */
Test(plugin, asks_load_the_jobs_when_they_pause)
{
	struct thread r = just_loaded();

	cr_assert_not(thread_jobs_wanted(&r, false, 0, 2),
		      "an ask since the round before");
	r.asked_round = 2;
	cr_assert(thread_jobs_wanted(&r, false, 0, 2),
		  "none since the round before: they paused");
	cr_assert_not(
		thread_jobs_wanted(&r, false, 0, 3),
		"more since the round before, the first unloaded 0 s ago");
	r.unloaded_since.tv_sec -= JOBS_PACED_S;
	cr_assert(thread_jobs_wanted(&r, false, 0, 3),
		  "still more, the first unloaded %d s ago", JOBS_PACED_S);
}
