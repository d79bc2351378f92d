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

#define HELD "; held="
#define WROTE "; wrote="
#define EXCLUDE "; exclude="
#define REQUEST "; request="

void sx_job_state_free(struct sx_job_state *st)
{
	free(st->admin);
	free(st->status);
	free(st->exclude);
	free(st->request);
	memset(st, 0, sizeof(*st));
}

static char *dup_range(const char *from, const char *to)
{
	return strndup(from, (size_t)(to - from));
}

/* Whether byte `c` of a request is written %XX: control bytes (a newline
 * would start a line of its own in `scontrol show job`, which a user could
 * forge) and '%' itself. */
static bool encoded(unsigned char c)
{
	return c < 0x20 || c == 0x7f || c == '%';
}

/* `request` with the bytes encoded() says as %XX (malloc'd). */
static char *encode(const char *request)
{
	size_t n = 0;
	char *out, *o;

	for (const char *p = request; *p; p++)
		n += encoded((unsigned char)*p) ? 3 : 1;
	if (!(out = o = malloc(n + 1)))
		return NULL;
	for (const char *p = request; *p; p++) {
		if (encoded((unsigned char)*p))
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

/* The request encode() wrote (malloc'd); a '%' not followed by two
 * upper-case hex digits is kept as it is. */
static char *decode(const char *text)
{
	char *out = malloc(strlen(text) + 1), *o = out;

	if (!out)
		return NULL;
	for (const char *p = text; *p; p++) {
		if (p[0] == '%' && hex(p[1]) >= 0 && hex(p[2]) >= 0 &&
		    (hex(p[1]) << 4 | hex(p[2])) != 0) {
			*o++ = (char)(hex(p[1]) << 4 | hex(p[2]));
			p += 2;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return out;
}

bool sx_job_state_parse(const char *comment, struct sx_job_state *st)
{
	const char *mark, *held, *exclude, *request, *admin_end;
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
	admin_end = mark;
	if (admin_end > comment && admin_end[-1] == ' ')
		admin_end--;
	st->held = held[sizeof(HELD) - 1] == '1';
	if ((admin_end > comment &&
	     !(st->admin = dup_range(comment, admin_end))) ||
	    !(st->status = dup_range(mark + sizeof(SX_STATE_MARK) - 1, held)) ||
	    !(st->exclude =
		      dup_range(exclude + sizeof(EXCLUDE) - 1, request)) ||
	    !(st->request = encoded_request
				    ? decode(request + sizeof(REQUEST) - 1)
				    : strdup(request + sizeof(REQUEST) - 1))) {
		sx_job_state_free(st);
		return false;
	}
	return true;
}

char *sx_job_state_format(const struct sx_job_state *st)
{
	char *text = NULL, *request = encode(st->request ? st->request : "");
	char runs[16] = "";
	int rc;

	if (!request)
		return NULL;
	if (st->held && st->held_at)
		snprintf(runs, sizeof(runs), "/%u", st->held_at - 1);
	rc = asprintf(&text,
		      "%s%s" SX_STATE_MARK "%s" HELD "%d%s" WROTE
		      "%016llx" EXCLUDE "%s" REQUEST "%s",
		      st->admin ? st->admin : "", st->admin ? " " : "",
		      st->status ? st->status : "", st->held ? 1 : 0, runs,
		      (unsigned long long)st->wrote,
		      st->exclude ? st->exclude : "", request);
	free(request);
	return rc < 0 ? NULL : text;
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
	    (admin && *admin && !(to->admin = strdup(admin)))) {
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
