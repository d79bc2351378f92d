/*
 * prefer.c - a job's effective request from its preferences (prefer.h).
 */
#define _GNU_SOURCE /* asprintf */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>

#include "prefer.h"
#include "xc.h"

char *prefer_compose(const char *request, const char *tier)
{
	char *text = NULL;

	if (asprintf(&text, "(%s)&(%s)", request ? request : "", tier) < 0)
		return NULL;
	return text;
}

/* Whether the wait of `st` lasts at `now` for a job eligible at
 * `eligible`, and *until its end (0: not eligible yet). */
static bool waiting(const struct sx_job_state *st, time_t eligible, time_t now,
		    time_t *until)
{
	long wait = st->wait <= 0		 ? PREFER_NOW_S
		    : st->wait > PREFER_MAX_WAIT ? PREFER_MAX_WAIT
						 : st->wait;

	if (eligible <= 0) {
		/* held or dependent: a wait lasts; "free now" means nothing */
		*until = 0;
		return st->wait > 0;
	}
	/* a raw RPC's begin_time may lie near the end of time: saturated
	 * rather than wrapped into the past */
	*until = eligible > PREFER_TIME_MAX - (time_t)wait
			 ? PREFER_TIME_MAX
			 : eligible + (time_t)wait;
	return now < *until;
}

time_t prefer_deadline(const struct sx_job_state *st, time_t eligible)
{
	time_t until;

	(void)waiting(st, eligible, 0, &until);
	return until;
}

bool prefer_waiting(const struct sx_job_state *st, time_t eligible, time_t now)
{
	time_t until;

	return st->n_prefer && st->request &&
	       waiting(st, eligible, now, &until);
}

uint64_t prefer_census_hash(const char *canonical,
			    const struct sx_job_state *st)
{
	uint64_t h = xc_text_hash(canonical ? canonical : "");

	/* each tier's hash folded in, in order (FNV-1a's prime) */
	for (unsigned i = 0; st && i < st->n_prefer; i++)
		h = (h ^ xc_text_hash(st->prefer[i])) * 1099511628211ULL + i +
		    1;
	return h;
}

int prefer_pick_tiers(const struct sx_job_state *st, time_t eligible,
		      time_t now, prefer_count_fn count, void *ctx,
		      struct prefer_pick *pick)
{
	time_t until;

	memset(pick, 0, sizeof(*pick));
	if (!st->n_prefer || !st->request ||
	    !waiting(st, eligible, now, &until))
		return 0;
	pick->waiting = true;
	for (unsigned i = 0; i < st->n_prefer; i++) {
		size_t n = 0, n_free = 0;
		int rc = count(ctx, i, &n, &n_free);

		if (rc < 0)
			return -1;
		/* with no wait, a tier counts while one of its nodes is free;
		 * its status counts its nodes, free or not (they change only
		 * with the nodes' Extra) */
		if (rc > 0 && (st->wait > 0 ? n : n_free) > 0) {
			pick->tier = i + 1;
			pick->nodes = n;
			pick->until = until;
			return 0;
		}
	}
	return 0;
}

const char *prefer_env_value(char **env, unsigned n, const char *name)
{
	size_t len = strlen(name);

	for (unsigned i = 0; env && i < n && i < PREFER_ENV_MAX_ENTRIES; i++)
		if (env[i] && strncmp(env[i], name, len) == 0)
			return env[i] + len;
	return NULL;
}

/* Reads `tiers` (each ended by PREFER_SEP; "" for none) into st->prefer
 * and st->n_prefer (replaced).  0; 1 when not acceptable (longer than
 * PREFER_TIERS_MAX(max_len), mangled, more than SX_MAX_PREFER), the
 * reason in why[size]; -1 when out of memory (`st` then as it was).
 * Nothing past PREFER_TIERS_MAX(max_len) bytes is read. */
static int read_tiers(const char *tiers, size_t max_len,
		      struct sx_job_state *st, char *why, size_t size)
{
	size_t len = strnlen(tiers, PREFER_TIERS_MAX(max_len) + 1);
	unsigned count = 0, n = 0;
	char **v = NULL;

	if (len > PREFER_TIERS_MAX(max_len)) {
		snprintf(
			why, size,
			"--extra-prefer: longer than %d preferences of %zu bytes each",
			SX_MAX_PREFER, max_len);
		return 1;
	}
	for (const char *p = tiers; *p; p++)
		count += *p == PREFER_SEP;
	if (*tiers && (count == 0 || tiers[strlen(tiers) - 1] != PREFER_SEP)) {
		snprintf(why, size, "--extra-prefer: mangled by the client");
		return 1;
	}
	if (count > SX_MAX_PREFER) {
		snprintf(
			why, size,
			"--extra-prefer: %u preferences, at most %d are allowed",
			count, SX_MAX_PREFER);
		return 1;
	}
	if (count && !(v = calloc(count, sizeof(char *))))
		return -1;
	for (const char *p = tiers; *p;) {
		const char *end = strchr(p, PREFER_SEP);

		if (!(v[n] = strndup(p, (size_t)(end - p)))) {
			while (n)
				free(v[--n]);
			free(v);
			return -1;
		}
		n++;
		p = end + 1;
	}
	for (unsigned i = 0; i < st->n_prefer; i++)
		free(st->prefer[i]);
	free(st->prefer);
	st->prefer = v;
	st->n_prefer = n;
	return 0;
}

/* Reads a wait in seconds as the SPANK plugin hands it over: 0 and *w,
 * or 1 with the reason in why[size]. */
static int read_secs(const char *wait, long *w, char *why, size_t size)
{
	char *end;

	errno = 0;
	*w = strnlen(wait, PREFER_WAIT_MAX_LEN + 1) > PREFER_WAIT_MAX_LEN
		     ? -1
		     : strtol(wait, &end, 10);
	if (*w < 0 || errno || *end || end == wait || *w > PREFER_MAX_WAIT) {
		snprintf(why, size,
			 "--extra-prefer-wait: not a number of seconds");
		return 1;
	}
	return 0;
}

int prefer_from_env(char **env, unsigned n, size_t max_len,
		    struct sx_job_state *st, char *why, size_t size)
{
	const char *tiers = prefer_env_value(env, n, PREFER_VAR);
	const char *wait = prefer_env_value(env, n, PREFER_WAIT_VAR);
	long w = 0;
	int rc;

	if (prefer_env_value(env, n, PREFER_REFUSED_VAR)) {
		snprintf(
			why, size,
			"--extra-prefer: refused by the client (its message above): not submitted");
		return 1;
	}
	if (!tiers || !*tiers) {
		if (wait && *wait) {
			snprintf(
				why, size,
				"--extra-prefer-wait: it needs --extra-prefer");
			return 1;
		}
		return 0;
	}
	if (wait && *wait && read_secs(wait, &w, why, size))
		return 1;
	if ((rc = read_tiers(tiers, max_len, st, why, size)) != 0)
		return rc;
	st->wait = w;
	return 0;
}

int prefer_change_from_env(char **env, unsigned n, size_t max_len,
			   struct prefer_change *c, char *why, size_t size)
{
	const char *tiers = prefer_env_value(env, n, PREFER_VAR);
	const char *wait = prefer_env_value(env, n, PREFER_WAIT_VAR);
	struct sx_job_state probe = { 0 };
	int rc;

	c->tiers = NULL;
	c->wait = -1;
	if (!tiers && !wait)
		return 0;
	if (wait && read_secs(wait, &c->wait, why, size))
		return 2;
	if (tiers) { /* checked as read_tiers() reads them, then kept */
		rc = read_tiers(tiers, max_len, &probe, why, size);
		for (unsigned i = 0; i < probe.n_prefer; i++)
			free(probe.prefer[i]);
		free(probe.prefer); /* (job_state.c is not the SPANK
				       plugin's) */
		if (rc)
			return rc < 0 ? -1 : 2;
		if (!(c->tiers = strdup(tiers)))
			return -1;
	}
	return 1;
}

int prefer_change_apply(const struct prefer_change *c, struct sx_job_state *st)
{
	char why[128];

	if (c->tiers && read_tiers(c->tiers, SIZE_MAX / (SX_MAX_PREFER + 1) - 1,
				   st, why, sizeof(why)) != 0)
		return -1; /* read before: only memory can fail */
	if (c->wait >= 0)
		st->wait = c->wait;
	if (!st->n_prefer)
		st->wait = 0;
	return 0;
}

void prefer_change_free(struct prefer_change *c)
{
	free(c->tiers);
	c->tiers = NULL;
	c->wait = -1;
}

/* libslurm's, exported (src/common/parse_time.c) but in no public
 * header: seconds, INFINITE for UNLIMITED, NO_VAL when not a time. */
extern int slurm_time_str2secs(const char *string);

/* The seconds of `text` read as slurm_time_str2secs() reads its formats
 * (days-hours:minutes:seconds; hours:minutes:seconds; minutes:seconds;
 * minutes), in 64 bits, each number at most 9 digits: Slurm's own sum is
 * an int, which a long duration overflows (71582789 minutes read as 44
 * s).  -1 when `text` holds anything else. */
static long long wide_secs(const char *text)
{
	unsigned long long v[4] = { 0 };
	int n = 0, digits = 0;

	for (const char *p = text; *p; p++) {
		if (*p >= '0' && *p <= '9') {
			if (++digits > 9)
				return -1;
			v[n] = v[n] * 10 + (unsigned)(*p - '0');
		} else if ((*p == '-' || *p == ':') && n < 3) {
			n++;
			digits = 0;
		} else {
			return -1;
		}
	}
	if (strchr(text, '-'))
		return (long long)(v[0] * 86400 + v[1] * 3600 + v[2] * 60 +
				   v[3]);
	if (n == 2)
		return (long long)(v[0] * 3600 + v[1] * 60 + v[2]);
	return (long long)(v[0] * 60 + v[1]);
}

int prefer_wait_read(const char *text, long *secs, char *why, size_t size)
{
	int s = text ? slurm_time_str2secs(text) : (int)NO_VAL;
	long long wide = text ? wide_secs(text) : -1;

	if (s == (int)INFINITE) {
		snprintf(
			why, size,
			"--extra-prefer-wait: UNLIMITED: a preference waited for without end is a request: --extra 'REQUEST&PREFERENCE'");
		return -1;
	}
	/* Slurm's reading, unless it overflowed (ours differs) */
	if (s < 0 || s == (int)NO_VAL || wide != (long long)s ||
	    wide > PREFER_MAX_WAIT) {
		snprintf(
			why, size,
			"--extra-prefer-wait: '%s' is not a duration of at most 365 days (Slurm's formats: minutes, minutes:seconds, hours:minutes:seconds, days-hours[:minutes[:seconds]])",
			text ? text : "");
		return -1;
	}
	*secs = s;
	return 0;
}
