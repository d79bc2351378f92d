/*
 * memory.c - what job_submit/extra's thread does about slurmctld's memory
 * (memory.h; doc/thread.md "Memory"): glibc's free memory given back after
 * loads of the jobs, and glibc's mmap threshold (thread_tune_malloc(),
 * thread.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__ /* (known once a libc header is in) mallopt, malloc_trim */
#include <malloc.h>
#endif

#include "elapsed.h"
#include "memory.h"

long thread_resident_kb(void)
{
	long pages = -1, rss = -1;
	FILE *f = fopen("/proc/self/statm", "re");

	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
			rss = -1;
		fclose(f);
	}
	return rss < 0 ? -1 : rss * (sysconf(_SC_PAGESIZE) / 1024);
}

bool thread_trim_due(size_t interval_s, double since_ms, long trimmed_kb,
		     long now_kb)
{
	return interval_s && since_ms >= interval_s * 1000.0 && now_kb >= 0 &&
	       now_kb >= trimmed_kb + TRIM_GROWTH_KB;
}

void thread_trim_after_load(struct thread *r)
{
#if defined(__GLIBC__)
	struct timespec t0;
	long before = thread_resident_kb(), after;

	/* growth from the least: memory given back meanwhile (jobs gone)
	 * and taken again is growth too */
	if (before >= 0 && before < r->trimmed_kb)
		r->trimmed_kb = before;
	if (!thread_trim_due(r->cfg.trim_interval,
			     time_set(&r->trimmed) ? ms_since(&r->trimmed)
						   : INFINITY,
			     r->trimmed_kb, before))
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	malloc_trim(0);
	r->trimmed_kb = (after = thread_resident_kb()) < 0 ? before : after;
	slurm_verbose(
		"%s: malloc_trim: slurmctld's resident memory %ld -> %ld MB in %.1f ms (MallocTrimInterval=%zu)",
		plugin_type, before >> 10, r->trimmed_kb >> 10, ms_since(&t0),
		r->cfg.trim_interval);
	clock_gettime(CLOCK_MONOTONIC, &r->trimmed);
#else
	(void)r;
#endif
}

/*
 * Why (doc/thread.md "Memory"): each round that loads the jobs has two
 * large, short-lived sides: slurmctld packs the answer in one of its RPC
 * threads (megabytes, grown by realloc), and libslurm unpacks each job's
 * ExcNodeList into an index array sized for every node (40 KB a job at
 * 10,000 nodes).  Past glibc's dynamic threshold (which rises to 32 MiB
 * after the first such block is freed) these come from the threads'
 * arenas, which keep them once freed: with 5,000 jobs slurmctld grew past
 * 550 MB while using under 100.  At a fixed threshold every block that
 * large is mapped for itself and unmapped when freed.
 */
void thread_tune_malloc(const struct plugin_config *cfg, bool slurm)
{
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD)
	/* once a process: the plugin stays mapped (stay_mapped, thread.c),
	 * so this outlives a reconfigure; init() and the thread may both
	 * ask */
	static bool tried;
	const char *tunables = getenv("GLIBC_TUNABLES");

	/* (Carrier=guard: the thread keeps nothing) */
	if (!cfg->mmap_threshold || slurm || cfg->carrier_guard ||
	    __atomic_exchange_n(&tried, true, __ATOMIC_ACQ_REL))
		return;
	if (getenv("MALLOC_MMAP_THRESHOLD_") ||
	    (tunables && strstr(tunables, "glibc.malloc.mmap_threshold"))) {
		slurm_info(
			"%s: MallocMmapThreshold: slurmctld's environment sets glibc's mmap threshold; left as it is",
			plugin_type);
		return;
	}
	if (mallopt(M_MMAP_THRESHOLD, (int)cfg->mmap_threshold) != 1) {
		/* e.g. under ASan, whose allocator replaces glibc's */
		slurm_info(
			"%s: MallocMmapThreshold=%zu: mallopt() refused it (another allocator than glibc's?); left as it is",
			plugin_type, cfg->mmap_threshold);
		return;
	}
	slurm_info(
		"%s: glibc's mmap threshold set to %zu bytes (MallocMmapThreshold): slurmctld gives back the large blocks of the thread's loads when they are freed",
		plugin_type, cfg->mmap_threshold);
#else
	(void)cfg;
	(void)slurm;
#endif
}
