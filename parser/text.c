/*
 * text.c - a string written through a stdio stream in memory (xc_util.h),
 * for the library's functions that return text: xc_format, xc_explain,
 * xc_explain_leaf, xc_error_render; and for shape_format (flux/) and the
 * command.
 *
 * The stream is fopencookie() over a string grown by xc_grow(), not
 * open_memstream(): glibc's memstream drops the bytes it cannot store once
 * it is past its first buffer and still closes with 0, so a text could
 * come back cut short when memory runs out.  Here a failed growth fails
 * the write, the stream's error flag is set, and the text is NULL.
 */
#define _GNU_SOURCE /* fopencookie */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "xc_private.h"

static ssize_t text_write(void *cookie, const char *buf, size_t n)
{
	struct xc_text *t = cookie;

	if (t->failed ||
	    xc_grow((void **)&t->s, &t->cap, t->len + n + 1, 1) < 0) {
		t->failed = true;
		return -1;
	}
	memcpy(t->s + t->len, buf, n);
	t->len += n;
	t->s[t->len] = '\0';
	return (ssize_t)n;
}

FILE *xc_text_open(struct xc_text *t)
{
	static const cookie_io_functions_t io = { .write = text_write };

	memset(t, 0, sizeof(*t));
	return t->out = fopencookie(t, "w", io);
}

char *xc_text_close(struct xc_text *t)
{
	bool bad = ferror(t->out) != 0;

	if (fclose(t->out) != 0 || bad || t->failed ||
	    (!t->s && !(t->s = calloc(1, 1)))) {
		free(t->s);
		return NULL;
	}
	return t->s;
}
