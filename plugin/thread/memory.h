/*
 * memory.h - what job_submit/extra's thread does about slurmctld's memory
 * (memory.c; doc/thread.md "Memory"): glibc's free memory given back after
 * a load of the jobs (malloc_trim), by slurmctld's resident memory.  Its
 * other side, glibc's mmap threshold, is thread_tune_malloc(), which the
 * front door thread.h declares for init().  Private to plugin/thread/ and
 * its unit tests.
 */
#ifndef SLURM_EXTRA_MEMORY_H
#define SLURM_EXTRA_MEMORY_H

#include <stdbool.h>
#include <stddef.h>

#include "thread_private.h"

/* Growth of slurmctld's resident memory (KB) since its least after a
 * load that asks for a trim (thread_trim_due). */
#define TRIM_GROWTH_KB (4L << 10)

/* slurmctld's resident memory in KB: the second field of
 * /proc/self/statm (pages) times the page size, which is the kernel's
 * VmRSS; -1 when it cannot be read (no /proc). */
long thread_resident_kb(void);

/* Whether the thread gives glibc's free memory back (malloc_trim) after
 * a load of the jobs: trimming is on (`interval_s`, MallocTrimInterval,
 * not 0), the last trim is at least that old (`since_ms`; INFINITY: none
 * yet), and slurmctld's resident memory now (`now_kb`; -1: unknown) grew
 * by TRIM_GROWTH_KB since it was last measured at its least
 * (`trimmed_kb`).  Pure: no state, no call. */
bool thread_trim_due(size_t interval_s, double since_ms, long trimmed_kb,
		     long now_kb);

/*
 * After a round that loaded the jobs, from the thread without r->lock
 * held: glibc's free memory given back with malloc_trim() when
 * thread_trim_due() says so (doc/thread.md "Memory"); r->trimmed_kb and
 * r->trimmed, the thread's own, follow it.  Each load unpacks many small
 * blocks in the arena the thread shares with some of slurmctld's RPC
 * threads; their long-lived blocks (a submitted job's structures, its node
 * bitmap), placed above the freed ones meanwhile, keep glibc from giving
 * those back (it trims an arena only from its top): 104 MB of a 118 MB
 * arena free at 60,000 nodes and 5,000 jobs.  malloc_trim() gives back the
 * free pages in every arena, each locked while it is walked (1 to 4 ms
 * measured there); its time is logged.  Nothing without glibc.
 */
void thread_trim_after_load(struct thread *r);

#endif
