/*
 * job_state.c - the plugin's state in a job's AdminComment (job_state.h).
 * No Slurm dependency, so it is tested on its own (tests/test_job_state.c).
 */
#define _GNU_SOURCE /* asprintf */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_state.h"

#define HELD "; held="
#define EXCLUDE "; exclude="
#define REQUEST "; request="

void xc_job_state_free(struct xc_job_state *st)
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

bool xc_job_state_parse(const char *comment, struct xc_job_state *st)
{
	const char *mark, *held, *exclude, *request, *admin_end;

	memset(st, 0, sizeof(*st));
	if (!comment || !(mark = strstr(comment, XC_STATE_MARK)))
		return false;
	/* Only the first of each separator counts: the status never holds
	 * one, the hostlist neither, and the request comes last. */
	if (!(held = strstr(mark, HELD)) ||
	    (held[sizeof(HELD) - 1] != '0' && held[sizeof(HELD) - 1] != '1'))
		return false;
	exclude = held + sizeof(HELD);
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
	    !(st->status = dup_range(mark + sizeof(XC_STATE_MARK) - 1, held)) ||
	    !(st->exclude =
		      dup_range(exclude + sizeof(EXCLUDE) - 1, request)) ||
	    !(st->request = strdup(request + sizeof(REQUEST) - 1))) {
		xc_job_state_free(st);
		return false;
	}
	return true;
}

char *xc_job_state_format(const struct xc_job_state *st)
{
	char *text = NULL;

	if (asprintf(&text,
		     "%s%s" XC_STATE_MARK "%s" HELD "%d" EXCLUDE "%s" REQUEST
		     "%s",
		     st->admin ? st->admin : "", st->admin ? " " : "",
		     st->status ? st->status : "", st->held ? 1 : 0,
		     st->exclude ? st->exclude : "",
		     st->request ? st->request : "") < 0)
		return NULL;
	return text;
}
