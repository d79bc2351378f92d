/*
 * job_state.c - the plugin's state in a job's AdminComment (job_state.h).
 * No Slurm dependency, so it is tested on its own (slurm/test/test_job_state.c).
 */
#define _GNU_SOURCE /* asprintf */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_state.h"
#include "xc.h"

#define HELD "; held="
#define WROTE "; wrote="
#define EXCLUDE "; exclude="
#define REQUEST "; request="
#define WAIT "; wait="
#define PREFER "; prefer="

void sx_job_state_free(struct sx_job_state *st)
{
	free(st->admin);
	free(st->status);
	free(st->exclude);
	free(st->request);
	for (unsigned i = 0; i < st->n_prefer; i++)
		free(st->prefer[i]);
	free(st->prefer);
	memset(st, 0, sizeof(*st));
}

static char *dup_range(const char *from, const char *to)
{
	return strndup(from, (size_t)(to - from));
}

/* Whether byte `c` of a request is written %XX: control bytes (a newline
 * would start a line of its own in `scontrol show job`, which a user could
 * forge) and '%' itself; in a preference (`semi`) ';' too, so that no
 * preference holds the separators that follow it. */
static bool encoded(unsigned char c, bool semi)
{
	return c < 0x20 || c == 0x7f || c == '%' || (semi && c == ';');
}

/* `request` with the bytes encoded() says as %XX (malloc'd). */
static char *encode(const char *request, bool semi)
{
	size_t n = 0;
	char *out, *o;

	for (const char *p = request; *p; p++)
		n += encoded((unsigned char)*p, semi) ? 3 : 1;
	if (!(out = o = malloc(n + 1)))
		return NULL;
	for (const char *p = request; *p; p++) {
		if (encoded((unsigned char)*p, semi))
			o += sprintf(o, "%%%02X", (unsigned char)*p);
		else
			*o++ = *p;
	}
	*o = '\0';
	return out;
}

static int hex(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

/* The request encode() wrote (malloc'd), from the `len` bytes of `text`;
 * a '%' not followed by two upper-case hex digits is kept as it is. */
static char *decode(const char *text, size_t len)
{
	char *out = malloc(len + 1), *o = out;

	if (!out)
		return NULL;
	for (const char *p = text; p < text + len; p++) {
		if (p[0] == '%' && p + 2 < text + len && hex(p[1]) >= 0 &&
		    hex(p[2]) >= 0 && (hex(p[1]) << 4 | hex(p[2])) != 0) {
			*o++ = (char)(hex(p[1]) << 4 | hex(p[2]));
			p += 2;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return out;
}

/* Reads "; wait=S; prefer=P1; prefer=P2" (the preferences, when the job
 * has any) from `from` up to `to` (where "; request=" starts) into `st`.
 * false when mangled or out of memory. */
static bool parse_prefer(const char *from, const char *to,
			 struct sx_job_state *st)
{
	const char *p;
	char *end;
	unsigned n = 0;

	st->wait = strtol(from + sizeof(WAIT) - 1, &end, 10);
	if (end == from + sizeof(WAIT) - 1 || st->wait < 0 || end > to)
		return false;
	for (p = end; p && p < to; p = strstr(p + 1, PREFER))
		n++;
	if (n == 0 || n > SX_MAX_PREFER ||
	    !(st->prefer = calloc(n, sizeof(char *))))
		return false;
	for (p = end; p < to;) {
		const char *next;

		if (strncmp(p, PREFER, sizeof(PREFER) - 1) != 0)
			return false;
		p += sizeof(PREFER) - 1;
		next = strstr(p, PREFER);
		if (!next || next > to)
			next = to;
		if (!(st->prefer[st->n_prefer++] =
			      decode(p, (size_t)(next - p))))
			return false;
		p = next;
	}
	return true;
}

bool sx_job_state_parse(const char *comment, struct sx_job_state *st)
{
	const char *mark, *held, *exclude, *request, *admin_end, *wait;
	bool encoded_request = false;

	memset(st, 0, sizeof(*st));
	if (!comment || !(mark = strstr(comment, SX_STATE_MARK)))
		return false;
	/* Only the first of each separator counts: the status never holds
	 * one, the hostlist neither, and the request comes last. */
	if (!(held = strstr(mark, HELD)) ||
	    (held[sizeof(HELD) - 1] != '0' && held[sizeof(HELD) - 1] != '1'))
		return false;
	exclude = held + sizeof(HELD);
	if (held[sizeof(HELD) - 1] == '1' && *exclude == '/') {
		char *end;
		unsigned long runs = strtoul(exclude + 1, &end, 10);

		if (end == exclude + 1 || runs > UINT16_MAX)
			return false;
		st->held_at = (unsigned)runs + 1;
		exclude = end;
	}
	/* wrote= since requests are encoded: without it, a state of an
	 * earlier version, whose request is read as it is. */
	if (strncmp(exclude, WROTE, sizeof(WROTE) - 1) == 0) {
		char *end;

		st->wrote = strtoull(exclude + sizeof(WROTE) - 1, &end, 16);
		if (end != exclude + sizeof(WROTE) - 1 + 16)
			return false;
		exclude = end;
		encoded_request = true;
	}
	if (strncmp(exclude, EXCLUDE, sizeof(EXCLUDE) - 1) != 0)
		return false;
	if (!(request = strstr(exclude, REQUEST)))
		return false;
	/* Preferences come between the hostlist and the request; theirs is
	 * the first "; wait=" (a hostlist holds no ';', nor does an encoded
	 * preference). */
	if (!(wait = strstr(exclude, WAIT)) || wait > request)
		wait = request;
	else if (!encoded_request || !parse_prefer(wait, request, st)) {
		sx_job_state_free(st);
		return false;
	}
	admin_end = mark;
	if (admin_end > comment && admin_end[-1] == ' ')
		admin_end--;
	st->held = held[sizeof(HELD) - 1] == '1';
	if ((admin_end > comment &&
	     !(st->admin = dup_range(comment, admin_end))) ||
	    !(st->status = dup_range(mark + sizeof(SX_STATE_MARK) - 1, held)) ||
	    !(st->exclude = dup_range(exclude + sizeof(EXCLUDE) - 1, wait)) ||
	    !(st->request =
		      encoded_request
			      ? decode(request + sizeof(REQUEST) - 1,
				       strlen(request + sizeof(REQUEST) - 1))
			      : strdup(request + sizeof(REQUEST) - 1))) {
		sx_job_state_free(st);
		return false;
	}
	return true;
}

/* "; wait=S; prefer=P1; ..." of `st` (malloc'd; "" when it has no
 * preference); NULL when out of memory. */
static char *format_prefer(const struct sx_job_state *st)
{
	size_t len = 0, at;
	char **enc, *out = NULL;

	if (!st->n_prefer)
		return strdup("");
	if (!(enc = calloc(st->n_prefer, sizeof(char *))))
		return NULL;
	for (unsigned i = 0; i < st->n_prefer; i++) {
		if (!(enc[i] =
			      encode(st->prefer[i] ? st->prefer[i] : "", true)))
			goto out;
		len += sizeof(PREFER) - 1 + strlen(enc[i]);
	}
	len += sizeof(WAIT) - 1 + 24;
	if (!(out = malloc(len + 1)))
		goto out;
	at = (size_t)snprintf(out, len + 1, WAIT "%ld", st->wait);
	for (unsigned i = 0; i < st->n_prefer; i++)
		at += (size_t)snprintf(out + at, len + 1 - at, PREFER "%s",
				       enc[i]);
out:
	for (unsigned i = 0; i < st->n_prefer; i++)
		free(enc[i]);
	free(enc);
	return out;
}

char *sx_job_state_format(const struct sx_job_state *st)
{
	char *text = NULL,
	     *request = encode(st->request ? st->request : "", false);
	char *prefer = format_prefer(st);
	char runs[16] = "";
	int rc;

	if (!request || !prefer) {
		free(request);
		free(prefer);
		return NULL;
	}
	if (st->held && st->held_at)
		snprintf(runs, sizeof(runs), "/%u", st->held_at - 1);
	rc = asprintf(&text,
		      "%s%s" SX_STATE_MARK "%s" HELD "%d%s" WROTE
		      "%016llx" EXCLUDE "%s%s" REQUEST "%s",
		      st->admin ? st->admin : "", st->admin ? " " : "",
		      st->status ? st->status : "", st->held ? 1 : 0, runs,
		      (unsigned long long)st->wrote,
		      st->exclude ? st->exclude : "", prefer, request);
	free(request);
	free(prefer);
	return rc < 0 ? NULL : text;
}

int sx_job_state_copy_prefer(const struct sx_job_state *from,
			     struct sx_job_state *to)
{
	for (unsigned i = 0; i < to->n_prefer; i++)
		free(to->prefer[i]);
	free(to->prefer);
	to->prefer = NULL;
	to->n_prefer = 0;
	to->wait = from->wait;
	if (!from->n_prefer)
		return 0;
	if (!(to->prefer = calloc(from->n_prefer, sizeof(char *))))
		return -1;
	for (unsigned i = 0; i < from->n_prefer; i++)
		if (!(to->prefer[to->n_prefer++] = strdup(from->prefer[i])))
			return -1;
	return 0;
}

int sx_job_state_copy(const struct sx_job_state *from, const char *admin,
		      struct sx_job_state *to)
{
	memset(to, 0, sizeof(*to));
	to->held = from->held;
	to->held_at = from->held_at;
	to->wrote = from->wrote;
	if (!(to->request = strdup(from->request ? from->request : "")) ||
	    !(to->exclude = strdup(from->exclude ? from->exclude : "")) ||
	    !(to->status = strdup(from->status ? from->status : "")) ||
	    (admin && *admin && !(to->admin = strdup(admin))) ||
	    sx_job_state_copy_prefer(from, to) < 0) {
		sx_job_state_free(to);
		return -1;
	}
	return 0;
}

size_t sx_status_note_len(const char *status)
{
	const char *end;

	if (!status ||
	    (strncmp(status, SX_REQUEUE_NOTE, sizeof(SX_REQUEUE_NOTE) - 1) !=
		     0 &&
	     strncmp(status, SX_KILL_NOTE, sizeof(SX_KILL_NOTE) - 1) != 0) ||
	    !(end = strstr(status, "; ")))
		return 0;
	return (size_t)(end - status) + 2;
}

char *sx_status_with_note(const char *lead, const char *when, const char *why,
			  const char *status)
{
	char *s;

	if (!status)
		status = "";
	if (asprintf(&s, "%s%s: %s; %s", lead, when, why,
		     status + sx_status_note_len(status)) < 0)
		return NULL;
	return s;
}

char *sx_status_keep_note(const char *from, const char *status)
{
	char *s;

	if (!status)
		status = "";
	if (asprintf(&s, "%.*s%s", (int)sx_status_note_len(from),
		     from ? from : "", status + sx_status_note_len(status)) < 0)
		return NULL;
	return s;
}

bool sx_job_state_same_prefer(const struct sx_job_state *a,
			      const struct sx_job_state *b)
{
	if (a->n_prefer != b->n_prefer || (a->n_prefer && a->wait != b->wait))
		return false;
	for (unsigned i = 0; i < a->n_prefer; i++)
		if (strcmp(a->prefer[i], b->prefer[i]) != 0)
			return false;
	return true;
}

bool sx_job_state_held_now(const struct sx_job_state *st, unsigned restart_cnt)
{
	return st->held && (!st->held_at || st->held_at == restart_cnt + 1);
}

bool sx_job_state_by_thread(const struct sx_job_state *st)
{
	return st && st->status && !strstr(st->status, SX_GUARD_STATUS) &&
	       !strstr(st->status, SX_SLURM_STATUS);
}

bool sx_job_state_narrowed_by_thread(const struct sx_job_state *st,
				     const char *extra)
{
	return st && st->n_prefer && st->status &&
	       strstr(st->status, SX_SLURM_STATUS) && st->request && extra &&
	       strcmp(extra, st->request) != 0 &&
	       xc_text_hash(extra) == st->wrote;
}
