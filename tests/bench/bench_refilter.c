/*
 * bench_refilter.c - what re-filtering the queue costs job_submit/extra's
 * thread, printed, never asserted: 10,000 pending jobs with 100 distinct
 * requests over 10,000 nodes, first when every job is new, then after one
 * node's Extra changes (the common case: only the jobs whose allowed nodes
 * changed get an update).  Runs the planning the thread does, on job
 * records built here; sending the updates is the cluster's part.  With
 * --prefer, 5,000 then 20,000 pending jobs with preferences (8 tiers
 * each, doc/preferences.md "Preferences") over NODES nodes (default 10,000):
 * the ms of each plan as the rounds go (prefer_bench()).
 *
 *   make tests/bench/bench_refilter && tests/bench/bench_refilter
 *   tests/bench/bench_refilter --prefer [NODES]
 */
#define _GNU_SOURCE

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "job_state.h"
#include "prefer.h"
#include "refilter.h"

/* The scale, from the command line (defaults: 10,000 nodes and jobs, 100
 * requests of about 40 bytes; `--long` makes each about 1 KB). */
static size_t NODES = 10000, JOBS = 10000, REQUESTS = 100;
static bool LONG_REQUESTS;
static bool SHORT; /* --short: two rounds without the memo (each plans
		      every job: they cost alike) */

/* The node table: NODES nodes, node `changed` (NODES for none) with
 * {"gpu": false}, the others' Extra made from their index; Extra that
 * did not change is shared with `prev`, as the plugin's thread does. */
static xc_nodes_t *make_table(size_t changed, const xc_nodes_t *prev)
{
	xc_nodes_t *t = xc_nodes_create(NULL);
	char name[32], extra[160];

	for (size_t i = 0; i < NODES; i++) {
		snprintf(name, sizeof(name), "n%05zu", i);
		if (i == changed)
			snprintf(extra, sizeof(extra), "{\"gpu\": false}");
		else
			snprintf(
				extra, sizeof(extra),
				"{\"gpu\": %s, \"mem\": %zu, \"rack\": %zu, \"arch\": \"%s\"}",
				i % 3 ? "true" : "false", 256 * (i % 16),
				i / 40, i % 5 ? "x86_64" : "aarch64");
		xc_nodes_add(t, name, extra, prev, NULL);
	}
	xc_nodes_compile(t, NULL); /* as the plugin's thread does */
	return t;
}

/* Applies the planned updates to the job records, as slurmctld would. */
static void apply(job_info_msg_t *msg, const struct job_update *u, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		slurm_job_info_t *job = &msg->job_array[u[k].job_id - 1];

		if (u[k].exc_nodes) {
			free(job->exc_nodes);
			job->exc_nodes = strdup(u[k].exc_nodes);
		}
		if (u[k].priority != NO_VAL)
			job->priority = u[k].priority;
		free(job->admin_comment);
		job->admin_comment = strdup(u[k].admin_comment);
	}
}

static size_t len(const char *s)
{
	return s ? strlen(s) + 1 : 0;
}

/* The thread's memo and the jobs it knows, from round to round (with
 * `memo`; without, every job is planned each round, nothing kept). */
static struct refilter_memo memo;
static struct known_jobs known;

/* The rounds' clock, the free nodes and the partitions (preferences;
 * 0 and NULL: none). */
static time_t NOW;
static const bool *FREE;

static void round_once(const char *what, const xc_nodes_t *table,
		       job_info_msg_t *msg, bool with_memo)
{
	struct refilter_stats stats = { 0 };
	struct job_update *u = NULL;
	struct known_jobs next;
	size_t n = 0, held = 0, lists = 0;
	struct timespec t0, t1;
	struct rusage ru;

	if (refilter_plan(
		    &(struct refilter_in){ .table = table,
					   .jobs = msg,
					   .prev = &known,
					   .memo = with_memo ? &memo : NULL,
					   .free = FREE,
					   .now = NOW ? NOW : time(NULL) },
		    &(struct refilter_out){ .updates = &u,
					    .n = &n,
					    .known = &next,
					    .stats = &stats }) < 0)
		printf("refilter: out of memory\n");
	known_jobs_free(&known);
	known = next;
	getrusage(RUSAGE_SELF, &ru);
	printf("refilter: %-38s %6zu of %6zu jobs planned, %5zu requests evaluated, %6zu updates, %8.1f ms (memo %zu KB, peak RSS %ld MB)\n",
	       what, stats.planned, stats.pending, stats.requests, n,
	       stats.plan_ms, memo.bytes / 1024, ru.ru_maxrss / 1024);
	/* what the plan holds for the lists (their recipes), then each list
	 * built as the thread builds it to send it */
	for (size_t k = 0; k < n; k++)
		held += len(u[k].exc_request) + len(u[k].exc_user) +
			len(u[k].exc_req);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t k = 0; k < n; k++) {
		if (job_update_build(table, NULL, &u[k]) < 0)
			printf("refilter: job %u: the list built differs\n",
			       u[k].job_id);
		lists += len(u[k].exc_nodes);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (n)
		printf("refilter: %-38s lists built as sent: %.3f ms each; the plan holds %zu bytes for them, not %zu\n",
		       "",
		       ((double)(t1.tv_sec - t0.tv_sec) * 1e3 +
			(double)(t1.tv_nsec - t0.tv_nsec) / 1e6) /
			       (double)n,
		       held, lists);
	apply(msg, u, n);
	job_updates_free(u, n);
}

static double ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* What job_submit() does for one submission with `count` nodes: evaluate
 * the request (compiled table) and build the job's excluded nodes
 * (filter_compute, through Slurm's hostlist functions). */
static void submission(size_t count)
{
	xc_nodes_t *t = xc_nodes_create(NULL);
	xc_expr_t *e = xc_parse(
		"gpu=true&mem>=512&(arch=x86_64|arch=aarch64)&rack<100", NULL,
		NULL);
	bool *matched = calloc(count, sizeof(*matched));
	char name[32], extra[160];
	double t0, t_match, t_filter;
	struct job_filter f;
	size_t n = 0;
	int reps = 20;

	for (size_t i = 0; i < count; i++) {
		snprintf(name, sizeof(name), "n%zu", i + 1);
		snprintf(
			extra, sizeof(extra),
			"{\"gpu\": %s, \"mem\": %zu, \"rack\": %zu, \"arch\": \"%s\"}",
			i % 3 ? "true" : "false", 256 * (i % 16), i / 40,
			i % 5 ? "x86_64" : "aarch64");
		xc_nodes_add(t, name, extra, NULL, NULL);
	}
	xc_nodes_compile(t, NULL);
	t0 = ms_now();
	for (int r = 0; r < reps; r++)
		n = xc_nodes_match(t, e, matched);
	t_match = (ms_now() - t0) / reps;
	t0 = ms_now();
	for (int r = 0; r < reps; r++) {
		filter_compute(t, matched, "", NULL, &f);
		if (r < reps - 1)
			filter_free(&f);
	}
	t_filter = (ms_now() - t0) / reps;
	printf("submission: %6zu nodes (%zu match): evaluate %.3f ms, excluded nodes %.3f ms (%zu bytes)\n",
	       count, n, t_match, t_filter, f.exc ? strlen(f.exc) : 0);
	filter_free(&f);
	free(matched);
	xc_expr_destroy(e);
	xc_nodes_destroy(t);
}

static void make_request(size_t r, char *out, size_t size);

/* `msg` as first submitted: JOBS pending jobs, job j with request j %
 * REQUESTS and no ExcNodeList yet. */
static void reset_jobs(job_info_msg_t *msg)
{
	char request[1100];

	if (!msg->job_array) {
		msg->record_count = JOBS;
		msg->job_array = calloc(JOBS, sizeof(*msg->job_array));
	}
	for (size_t j = 0; j < JOBS; j++) {
		slurm_job_info_t *job = &msg->job_array[j];
		struct sx_job_state st = { .status = "new", .exclude = "" };

		make_request(j % REQUESTS, request, sizeof(request));
		st.request = request;
		free(job->admin_comment);
		free(job->exc_nodes);
		job->exc_nodes = NULL;
		job->job_id = (uint32_t)j + 1;
		job->job_state = JOB_PENDING;
		job->priority = 1000;
		job->array_task_id = NO_VAL;
		job->admin_comment = sx_job_state_format(&st);
	}
}

/* Request r: memory thresholds by rack, some on arch; with --long about
 * 1 KB, padded with racks no node has (the same nodes match). */
static void make_request(size_t r, char *out, size_t size)
{
	int len =
		snprintf(out, size, "gpu=true&mem>=%zu&(rack<%zu|arch=aarch64)",
			 256 * (r % 16), 10 + r * 2);

	while (LONG_REQUESTS && (size_t)len + 24 < size && len < 1000)
		len += snprintf(out + len, size - (size_t)len, "&rack!=%zu",
				1000000 + r * 100 + (size_t)len);
}

/* The preferring jobs' tiers: 7 that no node satisfies (each evaluated
 * and passed over) and one that a few do. */
#define TIERS 8

/* `msg` as first submitted with `count` jobs with preferences: job j
 * with request j % REQUESTS, TIERS tiers of set j % REQUESTS (so
 * REQUESTS distinct requests with their tiers, as the caps count them),
 * eligible 5 s before NOW; half wait an hour, half have no wait (the
 * free nodes matter to them for PREFER_NOW_S). */
static void reset_prefer_jobs(job_info_msg_t *msg, size_t count)
{
	char request[1100], tier[TIERS][64];

	msg->record_count = (uint32_t)count;
	msg->job_array = calloc(count, sizeof(*msg->job_array));
	for (size_t j = 0; j < count; j++) {
		slurm_job_info_t *job = &msg->job_array[j];
		char *tiers[TIERS];
		struct sx_job_state st = { .status = "new",
					   .exclude = "",
					   .prefer = tiers,
					   .n_prefer = TIERS,
					   .wait = j % 2 ? 0 : 3600 };
		size_t set = j % REQUESTS;

		make_request(set, request, sizeof(request));
		for (size_t i = 0; i < TIERS; i++) {
			if (i < TIERS - 1)
				snprintf(tier[i], sizeof(tier[i]),
					 "cache=ds%zu", set * TIERS + i);
			else
				snprintf(tier[i], sizeof(tier[i]), "rack<%zu",
					 1 + set % 8);
			tiers[i] = tier[i];
		}
		st.request = request;
		job->job_id = (uint32_t)j + 1;
		job->job_state = JOB_PENDING;
		job->priority = 1000;
		job->array_task_id = NO_VAL;
		job->user_id = 1000 + (uint32_t)(j % 100);
		job->eligible_time = NOW - 5;
		job->submit_time = NOW - 5;
		job->admin_comment = sx_job_state_format(&st);
	}
}

/* One round of the preference bench, its plan's ms printed. */
static void prefer_round(const char *what, const xc_nodes_t *table,
			 job_info_msg_t *msg)
{
	round_once(what, table, msg, true);
}

/* `count` pending jobs with TIERS tiers each over NODES nodes, with the
 * memo, round after round: what a plan costs while nothing changes, when
 * the free nodes change, when one node's Extra changes, and once the
 * jobs with no wait are past their window. */
static void prefer_bench(size_t count)
{
	job_info_msg_t msg = { 0 };
	bool *free_nodes = malloc(NODES * sizeof(bool));
	static const size_t seven = 7;
	xc_nodes_t *t0, *t1;

	for (size_t k = 0; k < NODES; k++)
		free_nodes[k] = k % 2 == 0;
	NOW = 1000000;
	FREE = free_nodes;
	printf("prefer: %zu nodes, %zu pending jobs with %d tiers each (half with a wait of an hour, half with none), %zu distinct requests\n",
	       NODES, count, TIERS, REQUESTS);
	t0 = make_table(NODES, NULL);
	reset_prefer_jobs(&msg, count);
	if (memo_init(&memo, 600) < 0)
		exit(1);
	prefer_round("every job new:", t0, &msg);
	prefer_round("the updates read back:", t0, &msg);
	NOW++;
	prefer_round("nothing changed (1 s later):", t0, &msg);
	NOW++;
	prefer_round("nothing changed (2 s later):", t0, &msg);
	free_nodes[0] = !free_nodes[0];
	NOW++;
	prefer_round("one node's free state changed:", t0, &msg);
	t1 = make_table(seven, t0);
	{
		xc_extra_t *e =
			xc_extra_load("{\"gpu\": false}", 14, NULL, NULL, NULL);
		const xc_extra_t *const one[1] = { e };

		memo_nodes_changed(&memo, t1, &seven, one, 1);
		xc_extra_destroy(e);
	}
	NOW++;
	prefer_round("one node's Extra changed:", t1, &msg);
	NOW++;
	prefer_round("the updates read back:", t1, &msg);
	NOW += PREFER_NOW_S;
	prefer_round("30 s later (no-wait windows over):", t1, &msg);
	NOW++;
	prefer_round("nothing changed again:", t1, &msg);
	xc_nodes_destroy(t1);
	xc_nodes_destroy(t0);
	known_jobs_free(&known);
	memo_free(&memo);
	for (size_t j = 0; j < count; j++) {
		free(msg.job_array[j].admin_comment);
		free(msg.job_array[j].exc_nodes);
	}
	free(msg.job_array);
	free(free_nodes);
	FREE = NULL;
	NOW = 0;
}

static size_t arg(const char *s, size_t dflt)
{
	return s ? strtoul(s, NULL, 10) : dflt;
}

/*
 *   tests/bench/bench_refilter [NODES [JOBS [REQUESTS [--long] [--short]]]]
 *   tests/bench/bench_refilter --prefer [NODES]
 */
int main(int argc, char **argv)
{
	job_info_msg_t msg = { 0 };
	xc_nodes_t *t0, *t1;
	char request[1100];

	if (argc > 1 && strcmp(argv[1], "--prefer") == 0) {
		NODES = arg(argc > 2 ? argv[2] : NULL, NODES);
		prefer_bench(5000);
		prefer_bench(20000);
		return 0;
	}
	NODES = arg(argc > 1 ? argv[1] : NULL, NODES);
	JOBS = arg(argc > 2 ? argv[2] : NULL, JOBS);
	REQUESTS = arg(argc > 3 ? argv[3] : NULL, REQUESTS);
	for (int a = 4; a < argc; a++) {
		LONG_REQUESTS |= strcmp(argv[a], "--long") == 0;
		SHORT |= strcmp(argv[a], "--short") == 0;
	}
	if (!NODES || !JOBS || !REQUESTS) {
		fprintf(stderr,
			"usage: %s [NODES [JOBS [REQUESTS [--long] [--short]]]]\n",
			argv[0]);
		return 2;
	}
	if (argc <= 1) {
		submission(10000);
		submission(100000);
	}
	make_request(REQUESTS - 1, request, sizeof(request));
	printf("refilter: %zu nodes, %zu pending jobs, %zu distinct requests of up to %zu bytes\n",
	       NODES, JOBS, REQUESTS, strlen(request));
	t0 = make_table(NODES, NULL);
	/* Without the memo (every job planned each round), then with it
	 * (the thread's), from the same jobs. */
	for (int with = 0; with < 2; with++) {
		static const size_t seven = 7;

		printf("refilter: %s\n",
		       with ? "with the memo (the thread's: work follows change)"
			    : "without the memo (every job planned each round)");
		reset_jobs(&msg);
		if (with && memo_init(&memo, 600) < 0)
			return 1;
		round_once("every job new:", t0, &msg, with);
		round_once("the updates read back:", t0, &msg, with);
		if (SHORT && !with)
			continue;
		round_once("nothing changed:", t0, &msg, with);
		/* node 7: gpu=true, mem 1792, rack 0: matches several
		 * requests; its new Extra makes it match none (gpu false) */
		t1 = make_table(seven, t0);
		if (with) {
			xc_extra_t *e = xc_extra_load("{\"gpu\": false}", 14,
						      NULL, NULL, NULL);
			const xc_extra_t *const one[1] = { e };

			memo_nodes_changed(&memo, t1, &seven, one, 1);
			xc_extra_destroy(e);
		}
		round_once("one node's Extra changed:", t1, &msg, with);
		round_once("the updates read back:", t1, &msg, with);
		round_once("nothing changed again:", t1, &msg, with);
		xc_nodes_destroy(t1);
		known_jobs_free(&known);
	}
	memo_free(&memo);
	for (size_t j = 0; j < JOBS; j++) {
		free(msg.job_array[j].admin_comment);
		free(msg.job_array[j].exc_nodes);
	}
	free(msg.job_array);
	xc_nodes_destroy(t0);
	return 0;
}
