/*
 * look_thread.c - the look's thread in slurmctld (look_slurm.h): every
 * LOOK_PERIOD_MS it takes the job write, node read and partition read
 * locks for one hold (look_slurm_hold(), look_slurm.c); with work left it
 * comes back after letting the locks go three times as long as it held
 * them (LOOK_BREATHE_MS at least): a quarter of the time at most.  A
 * plugin thread may take slurmctld's locks (lock_slurmctld(),
 * src/slurmctld/locks.h); fini() stops it before the guard is freed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_timedjoin_np() */
#endif
#include "config.h" /* Slurm's, from the configured tree */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "slurm/slurm.h"
#include "src/common/log.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"
#include "src/slurmctld/state_save.h"

#include "guard.h"
#include "guard_slurm.h"
#include "look_cols.h"
#include "look_leftover.h"
#include "look_slurm.h"
#include "ns_now.h"

extern const char plugin_type[]; /* burst_buffer_extra.c's */

#define LOOK_PERIOD_MS 500
#define LOOK_BREATHE_MS 5
#define LOOK_JOIN_S 10 /* what fini() waits for the thread */

static pthread_t thread;
static bool running;
/* the thread's generation: a thread whose own is not this one stops */
static uint64_t generation;
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;

static void *look_main(void *arg)
{
	slurmctld_lock_t locks = { .job = WRITE_LOCK,
				   .node = READ_LOCK,
				   .part = READ_LOCK };
	uint64_t mine = (uint64_t)(uintptr_t)arg;
	long breathe_ns = LOOK_BREATHE_MS * 1000000L;
	struct guard_cols_copy *built = NULL; /* to install */
	uint64_t built_ns = 0;
	bool more = false;

	pthread_mutex_lock(&mutex);
	while (generation == mine) {
		struct timespec until;
		uint64_t t0, ns, cpu0, cpu;
		struct guard_cols_copy *copy;
		time_t now;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += more ? breathe_ns : LOOK_PERIOD_MS * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		(void)pthread_cond_timedwait(&wake, &mutex, &until);
		if (generation != mine)
			break;
		pthread_mutex_unlock(&mutex);
		lock_slurmctld(locks);
		pthread_mutex_lock(&mutex);
		if (generation != mine) { /* stopped while it waited */
			pthread_mutex_unlock(&mutex);
			unlock_slurmctld(locks);
			guard_cols_copy_free(built);
			return NULL;
		}
		pthread_mutex_unlock(&mutex);
		now = time(NULL);
		t0 = ns_now();
		cpu0 = ns_of(CLOCK_THREAD_CPUTIME_ID);
		if (built) /* (built since the last hold) */
			look_cols_install(built, built_ns, now);
		built = NULL;
		more = look_slurm_hold(now, t0);
		copy = look_cols_copy(now, &more);
		ns = ns_now() - t0;
		cpu = ns_of(CLOCK_THREAD_CPUTIME_ID) - cpu0;
		unlock_slurmctld(locks);
		if (copy) { /* the guard's columns, outside the locks */
			uint64_t t_build = ns_now();

			if (guard_cols_build(copy)) {
				built = copy;
				built_ns = ns_now() - t_build;
				more = true; /* installed in the next hold */
			} else {
				guard_cols_copy_free(copy);
			}
		}
		if (look_leftover_saved()) /* (as after a job update) */
			schedule_job_save();
		/* work left: the locks let go three times as long as held,
		 * so that the look takes a quarter of them at most */
		breathe_ns = 3 * (long)ns > LOOK_BREATHE_MS * 1000000L
				     ? 3 * (long)ns
				     : LOOK_BREATHE_MS * 1000000L;
		look_slurm_held(ns, cpu, now);
		pthread_mutex_lock(&mutex);
	}
	pthread_mutex_unlock(&mutex);
	guard_cols_copy_free(built);
	return NULL;
}

int look_slurm_start(void)
{
	uint64_t mine;

	if (running || !guard_slurm_guard())
		return SLURM_SUCCESS;
	look_slurm_begin(); /* (what a thread that did not stop left) */
	pthread_mutex_lock(&mutex);
	mine = ++generation;
	pthread_mutex_unlock(&mutex);
	if (pthread_create(&thread, NULL, look_main, (void *)(uintptr_t)mine)) {
		error("%s: the look's thread could not start: jobs are kept off at their placement only",
		      plugin_type);
		return SLURM_SUCCESS;
	}
	running = true;
	guard_slurm_on_base(look_slurm_base);
	return SLURM_SUCCESS;
}

bool look_slurm_stop(void)
{
	struct timespec until;

	if (!running)
		return true;
	pthread_mutex_lock(&mutex);
	generation++;
	pthread_cond_signal(&wake);
	pthread_mutex_unlock(&mutex);
	running = false;
	guard_slurm_on_base(NULL);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += LOOK_JOIN_S;
	if (pthread_timedjoin_np(thread, NULL, &until)) {
		/* it waits for slurmctld's locks, which a thread waiting for
		 * this plugin's own may hold: it stops when it gets them,
		 * before it reads anything (the plugin is never unloaded:
		 * -z nodelete); what it kept is left to it */
		error("%s: the look's thread did not stop within %d s: left to stop by itself, what it and the guard keep left to it",
		      plugin_type, LOOK_JOIN_S);
		pthread_detach(thread);
		return false;
	}
	look_slurm_release();
	return true;
}
