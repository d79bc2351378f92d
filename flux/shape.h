/*
 * shape.h - RFC 46 resource shapes and jobspec V1 (doc/flux.md "Shapes",
 * "Jobspec V1"): a shape read into the RFC 14 resources list it stands
 * for, a list written back as its shortest shape, and whether a list is
 * jobspec V1's (RFC 25).  The front header of flux/, built on the
 * library's errors and limits (parser/xc.h) and on jansson: include
 * <jansson.h> to use the lists.
 *
 * As the library: never aborts, logs or exits, keeps no global state, and
 * is safe to call from several threads on distinct objects.  Each level
 * of nesting is bounded by limits->max_depth (xc.h XC_MAX_DEPTH_LIMIT).
 */
#ifndef SHAPE_H
#define SHAPE_H

#include <stddef.h>

#include "xc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The first of this wing's codes: the language's (xc.h) stay below it
 * (shape_error.c asserts it), so that a code added to either renumbers
 * none of the other's. */
#define SHAPE_E_BASE 64

/* Stable error codes of shapes and jobspec V1, from SHAPE_E_BASE: they
 * travel in the language's xc_error_t, so that one renderer
 * (xc_error_render) shows both.  Their names (shape_errcode_name) are part
 * of the API.  Never renumber; add at the end. */
typedef enum shape_errcode {
	SHAPE_E_SYNTAX = SHAPE_E_BASE, /* a character the grammar does not
					  take there (the message says what
					  it wants) */
	SHAPE_E_COUNT,	   /* RFC 46 count: not N, an RFC 22 idset or an
			      RFC 45 range */
	SHAPE_E_LABEL,	   /* slot label missing, repeated or not a label */
	SHAPE_E_KEY,	   /* a key given twice, or one the shape writes
			      elsewhere (type, count, with, a slot's label) */
	SHAPE_E_VALUE,	   /* a value that is not JSON, or of the wrong type */
	SHAPE_E_RESOURCES, /* an RFC 14 resources list no shape writes */
	SHAPE_E_NOT_V1,	   /* resources that jobspec V1 (RFC 25) refuses */
	SHAPE_E__COUNT	   /* not a code: the end of the codes */
} shape_errcode_t;

/* The stable lower-case name of an error code ("shape-syntax", "not-v1"),
 * this wing's or the language's (xc_errcode_name()), or "unknown".
 * Static storage. */
const char *shape_errcode_name(int code);

/* Reads an RFC 46 shape (`len` bytes, e.g. "slot=4{nodelevel}/node{-x}/
 * socket=2+/core=4+") into the RFC 14 resources list it stands for
 * (doc/flux.md "Shapes"): a new jansson array the caller json_decref()s.
 * Each vertex is {"type", "count", "label" (slots), the keys of its
 * braces in their order, "with"}.  A count is an integer, an RFC 45
 * range as RFC 14's dictionary ("3-30" -> {"min":3,"max":30,
 * "operator":"+","operand":1}, "2+" -> {"min":2}; "2+:3", which that
 * dictionary cannot hold without a max, stays a string), or an RFC 22
 * idset as a string ("4,9,16"); `x` is "exclusive"; a slot without a
 * label is "default", allowed only when it is the shape's one slot.
 * Bounded: XC_E_TOO_LONG past limits->max_request_length bytes,
 * XC_E_TOO_DEEP past limits->max_depth levels (a '/' or a nested value
 * is one); `limits` may be NULL.  Errors (NULL, `err` set, [offset, end)
 * the offending bytes, the message naming what was expected):
 * XC_E_EMPTY, SHAPE_E_SYNTAX, SHAPE_E_COUNT, SHAPE_E_LABEL, SHAPE_E_KEY,
 * SHAPE_E_VALUE, XC_E_NOT_UTF8, XC_E_TOO_LONG, XC_E_TOO_DEEP,
 * XC_E_NOMEM, XC_E_INVALID_ARG. */
json_t *shape_parse(const char *shape, size_t len, const xc_limits_t *limits,
		    xc_error_t *err);

/* Writes an RFC 14 resources list as the shortest shape RFC 46 allows
 * (doc/flux.md "Shapes"): brackets only around a list of several, no
 * "=1", no "{}", a slot's label left out when it is the one slot, named
 * "default" and has nothing else in its braces, booleans as `x`, `-x`,
 * `key`, `-key`, strings unquoted where they read back as the same
 * string.  shape_parse() of the result equals `resources`, but for a
 * count given as a range string, which reads back as RFC 14's
 * dictionary where it can be one.  Returns a malloc'd string the caller
 * frees, or NULL with `err` set: SHAPE_E_RESOURCES (the message starts
 * with the JSON path, "$[0].with[1]: ...") for what RFC 14 does not
 * allow or no shape writes (no type or count, a bad count, a slot
 * without a label or a with, an empty list), XC_E_TOO_DEEP past
 * limits->max_depth levels, XC_E_NOMEM, XC_E_INVALID_ARG. */
char *shape_format(const json_t *resources, const xc_limits_t *limits,
		   xc_error_t *err);

/* Whether an RFC 14 resources list is jobspec V1's (RFC 25 "Resources";
 * doc/flux.md "Jobspec V1"): one vertex, node or slot; node>slot>core or
 * slot>core, either with a gpu beside the core; integer counts of at
 * least 1; no keys but type, count, with, label and unit, and exclusive
 * on a node.  (flux-core 0.88's job-ingest does not check the shape: it
 * takes other graphs, whose vertices its scheduler skips unless node,
 * slot, core or gpu; its unused flux_jobspec1_check() is stricter.)
 * Returns 0, or -1 with `err` set to SHAPE_E_NOT_V1 and a message that
 * starts with the JSON path of the first vertex that breaks a rule and
 * says which. */
int shape_check_v1(const json_t *resources, xc_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* SHAPE_H */
