/*
 * xc_util.h - the library's general utilities, for its own files, its
 * callers and the wings built on it (flux/): setting an error of the
 * library's model (xc.h "errors"), quoting and escaping text for messages
 * and logs, growing arrays, text written in memory, UTF-8.  The language
 * itself is xc.h's.  The same rules hold: nothing aborts, logs or exits,
 * and nothing keeps state.
 */
#ifndef XC_UTIL_H
#define XC_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct xc_error; /* xc_error_t, xc.h */

/* ---------------------------------------------------- errors (error.c) */

/* Sets `err` (may be NULL) unless it already holds an error: the first
 * error set is kept.  `code` is an xc_errcode_t, or a code of a wing
 * built on the library (flux/shape.h); the message is cut at
 * XC_ERROR_MESSAGE_SIZE - 1 bytes, and an `end` below `offset` is taken
 * as `offset`.  Returns -1 for convenience. */
int xc_error_set(struct xc_error *err, int code, size_t offset, size_t end,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Clears `err` (may be NULL) to XC_OK. */
void xc_error_clear(struct xc_error *err);

/* Writes a short, escaped, possibly shortened ("...") quotation of `len`
 * bytes of `text` (non-NULL when `len` > 0; at most 32 of them quoted)
 * into `buf` of `size` bytes for an error message: "" when `size` is
 * below 8.  Returns `buf`. */
char *xc_quote(const char *text, size_t len, char *buf, size_t size);

/* Writes the `len` bytes of `text` (may hold any byte, NUL included; not
 * NULL when `len` > 0) to `out`, each byte that is not printable ASCII
 * escaped as the error renderer shows it (doc/language.md §6): \n, \t,
 * \r, \xNN for the other control bytes (C0 and DEL) and for every byte
 * above 0x7e (so a C1 control, U+0080 to U+009F in UTF-8, and invalid
 * UTF-8 are bytes like any other), and a backslash as \\, so that the
 * escaped text reads back to the same bytes.  With `for_log`, '%' is
 * \x25 too (a log line that goes through a printf-like logger).  What is
 * written is printable ASCII alone, one column a byte: the return value,
 * the number of bytes (columns) written, is where a caret under the next
 * byte goes.  Write errors are the stream's (ferror). */
size_t xc_escape_to(FILE *out, const char *text, size_t len, bool for_log);

/* Copies `text` into `out` (a buffer of `size` bytes, always terminated),
 * escaping every byte that is not printable ASCII, and '%' and '\\', as
 * \xNN or \n-style escapes: the form in which a request may be logged.
 * Returns `out` ("" for a NULL `text`).  At most size-1 bytes are written;
 * a cut escape is never written half. */
char *xc_escape(const char *text, char *out, size_t size);

/* ----------------------------------------------------- arrays (grow.c) */

/* Makes room for `need` elements of `size` bytes in the malloc'd array
 * *array of *cap elements, doubling the capacity (from 8) until it holds
 * them: one growth rule for the library and its callers.  Returns 0 with
 * *array and *cap updated (unchanged when they hold enough already), or
 * -1 when memory ran out or the bytes overflow size_t: *array and *cap
 * are then unchanged and still the caller's.  Use:
 *   if (xc_grow((void **)&v, &cap, n + 1, sizeof(*v)) < 0) ... */
int xc_grow(void **array, size_t *cap, size_t need, size_t size);

/* --------------------------------------------- text in memory (text.c) */

/* A string written through a stdio stream, for the library and its
 * callers: unlike glibc's open_memstream(), which drops what it cannot
 * store and still closes with 0, a write that runs out of memory makes
 * xc_text_close() return NULL.  xc_text_open(), writes to t->out, then
 * xc_text_close() for the string.  The stream writes into `t`
 * itself, which must stay where it is (a local of the writing function)
 * until closed. */
struct xc_text {
	FILE *out;
	char *s;
	size_t len, cap;
	bool failed; /* a write could not grow the string */
};

/* Opens `t` on an empty string (fopencookie over a string grown by
 * xc_grow).  Returns t->out, or NULL when out of memory: then nothing is
 * left to free, and xc_text_close() is not to be called. */
FILE *xc_text_open(struct xc_text *t);

/* Closes t->out and returns what was written to it: a malloc'd,
 * NUL-terminated string the caller frees, or NULL when out of memory (a
 * write could not grow the string, or the stream failed: never a text cut
 * short; nothing is left to free). */
char *xc_text_close(struct xc_text *t);

/* ------------------------------------------------------ UTF-8 (utf8.c) */

/* Whether `s` (`n` bytes) is valid UTF-8 (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), which JSON text must be.  jansson
 * checks the same, but json_stringn() answers NULL both for invalid text
 * and for want of memory, and does not export its check: this tells the
 * two apart. */
bool xc_valid_utf8(const unsigned char *s, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* XC_UTIL_H */
