/*
 * error.c - error codes, messages, escaping and the caret renderer
 * (doc/language.md §6).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xc_private.h"

static const char *const code_names[XC_E__COUNT] = {
	[XC_OK] = "ok",
	[XC_E_EMPTY] = "empty",
	[XC_E_NO_CMPOP] = "no-cmpop",
	[XC_E_BAD_CMPOP] = "bad-cmpop",
	[XC_E_EMPTY_KEY] = "empty-key",
	[XC_E_EMPTY_VALUE] = "empty-value",
	[XC_E_VALUE_CMPOP] = "value-cmpop",
	[XC_E_ITEM_EXPECTED] = "item-expected",
	[XC_E_BOOLOP_EXPECTED] = "boolop-expected",
	[XC_E_MIXED_BOOLOPS] = "mixed-boolops",
	[XC_E_UNCLOSED_PAREN] = "unclosed-paren",
	[XC_E_UNMATCHED_PAREN] = "unmatched-paren",
	[XC_E_TOO_DEEP] = "too-deep",
	[XC_E_TOO_LONG] = "too-long",
	[XC_E_NOMEM] = "nomem",
	[XC_E_INVALID_ARG] = "invalid-arg",
	[XC_E_JSON] = "json",
	[XC_E_FLUX_SHAPE] = "flux-shape",
	[XC_E_FLUX_OPERATOR] = "flux-operator",
	[XC_E_FLUX_NO_EQUIVALENT] = "flux-no-equivalent",
	[XC_E_NOT_UTF8] = "not-utf8",
};

long xc_live;

long xc_live_objects(void)
{
	return __atomic_load_n(&xc_live, __ATOMIC_RELAXED);
}

const char *xc_errcode_name(int code)
{
	if (code < 0 || code >= XC_E__COUNT || !code_names[code])
		return "unknown";
	return code_names[code];
}

void xc_error_clear(xc_error_t *err)
{
	if (!err)
		return;
	err->code = XC_OK;
	err->offset = err->end = 0;
	err->message[0] = '\0';
}

int xc_error_set(xc_error_t *err, int code, size_t offset, size_t end,
		 const char *fmt, ...)
{
	va_list ap;

	if (!err || err->code != XC_OK)
		return -1;
	err->code = code;
	err->offset = offset;
	err->end = end < offset ? offset : end;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return -1;
}

/* The escaped form of one byte into `buf` (at least 5 bytes); returns its
 * length. */
static size_t escape_byte(unsigned char c, bool for_log, char *buf)
{
	switch (c) {
	case '\n':
		return (size_t)snprintf(buf, 5, "\\n");
	case '\t':
		return (size_t)snprintf(buf, 5, "\\t");
	case '\r':
		return (size_t)snprintf(buf, 5, "\\r");
	case '\\':
		return (size_t)snprintf(buf, 5, "\\\\");
	default:
		break;
	}
	if (c < 0x20 || c > 0x7e || (for_log && c == '%'))
		return (size_t)snprintf(buf, 5, "\\x%02x", c);
	buf[0] = (char)c;
	buf[1] = '\0';
	return 1;
}

size_t xc_escape_to(FILE *out, const char *text, size_t len, bool for_log)
{
	size_t cols = 0;
	char buf[8];

	for (size_t i = 0; i < len; i++) {
		size_t n = escape_byte((unsigned char)text[i], for_log, buf);
		fwrite(buf, 1, n, out);
		cols += n;
	}
	return cols;
}

char *xc_escape(const char *text, char *out, size_t size)
{
	size_t used = 0;
	char buf[8];

	if (!out || size == 0)
		return out;
	for (const char *p = text ? text : ""; *p; p++) {
		size_t n = escape_byte((unsigned char)*p, true, buf);
		if (used + n >= size)
			break;
		memcpy(out + used, buf, n);
		used += n;
	}
	out[used] = '\0';
	return out;
}

char *xc_quote(const char *text, size_t len, char *buf, size_t size)
{
	const size_t max = 32;
	char esc[8];
	size_t used = 0;

	if (size < 8) {
		if (size)
			buf[0] = '\0';
		return buf;
	}
	for (size_t i = 0; i < len; i++) {
		size_t n = escape_byte((unsigned char)text[i], false, esc);
		if (i >= max || used + n + 4 >= size) {
			memcpy(buf + used, "...", 3);
			used += 3;
			break;
		}
		memcpy(buf + used, esc, n);
		used += n;
	}
	buf[used] = '\0';
	return buf;
}

char *xc_error_render(const char *request, const xc_error_t *err,
		      const char *prefix)
{
	/* Show at most this many bytes of the request, around the error. */
	const size_t before = 40, width = 72;
	struct xc_text t;
	size_t len, start, stop, offset, caret;
	FILE *out;

	if (!err)
		return NULL;
	if (!request)
		request = "";
	len = strlen(request);
	offset = err->offset > len ? len : err->offset;
	start = offset > before ? offset - before : 0;
	stop = start + width < len ? start + width : len;

	if (!(out = xc_text_open(&t)))
		return NULL;
	fprintf(out, "%s%s (column %zu)\n  ",
		prefix ? prefix : "error: ", err->message, offset + 1);
	caret = 0;
	if (start > 0) {
		fputs("...", out);
		caret += 3;
	}
	caret += xc_escape_to(out, request + start, offset - start, false);
	xc_escape_to(out, request + offset, stop - offset, false);
	if (stop < len)
		fputs("...", out);
	fprintf(out, "\n  %*s^", (int)caret, "");
	return xc_text_close(&t);
}
