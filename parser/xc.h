/*
 * xc.h - the slurm-extra library: the `--extra` request language.
 *
 * Parses a request (`gpu=true&mem>=512`), evaluates it against a node's
 * Extra data (a JSON object), formats it back to canonical text and keeps
 * a node table.  The rules are those of doc/language.md (the
 * behaviour of Slurm 24.11); section numbers below ("§3.1") are its sections.
 *
 * Reads node Extra with json-c, as Slurm does, and RFC 31 constraints with
 * jansson, as Flux does (only the Flux functions use jansson types).
 * The library's general utilities (setting an error, escaping, arrays,
 * text in memory, UTF-8) are in xc_util.h.
 * Never aborts, never logs, never exits and keeps no global mutable
 * state but one atomic counter (xc_live_objects): it runs inside
 * slurmctld's threads.  Every function is safe to call from several
 * threads on distinct objects; a
 * parsed request (xc_expr_t) and a node table are read-only once built and
 * may be shared by threads that only read them.
 */
#ifndef XC_H
#define XC_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

/* jansson's JSON value, used by the Flux functions and xc_extra_value_json
 * only: include <jansson.h> to call them.  (Not included here: its names clash
 * with json-c's, which reads node Extra.) */
typedef struct json_t json_t;

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- errors */

/* Stable error codes.  Their names (xc_errcode_name) are part of the API:
 * scripts and the batch mode print them.  Never renumber; add at the end.
 * RFC 46 shapes and jobspec V1 have codes of their own (flux/shape.h,
 * named by shape_errcode_name()), from SHAPE_E_BASE (64), which travel
 * in the same xc_error_t: the language's stay below 64. */
typedef enum xc_errcode {
	XC_OK = 0,
	XC_E_EMPTY,	    /* the request is empty (doc/language.md §1.4) */
	XC_E_NO_CMPOP,	    /* leaf with no operator (doc/language.md §1.1) */
	XC_E_BAD_CMPOP,	    /* run of < > = ! that is not one operator */
	XC_E_EMPTY_KEY,	    /* `=5` (doc/language.md §1.1) */
	XC_E_EMPTY_VALUE,   /* `i=` (doc/language.md §1.1) */
	XC_E_VALUE_CMPOP,   /* second operator run in a leaf: `a=b=c` */
	XC_E_ITEM_EXPECTED, /* leaf or '(' expected: `&a=1`, `a=1&`, `()` */
	XC_E_BOOLOP_EXPECTED, /* two items, no operator between: `a=1(b=2)` */
	XC_E_MIXED_BOOLOPS,   /* `a=5&b=5|c=5` (doc/language.md §1.3) */
	XC_E_UNCLOSED_PAREN,  /* `((a=1)` */
	XC_E_UNMATCHED_PAREN, /* `a=1)` */
	XC_E_TOO_DEEP,	      /* nesting deeper than the limit */
	XC_E_TOO_LONG,	      /* request longer than the limit */
	XC_E_NOMEM,	      /* out of memory */
	XC_E_INVALID_ARG,     /* a NULL or otherwise unusable argument */
	XC_E_JSON,	 /* input JSON is not valid (node file, batch line) */
	XC_E_FLUX_SHAPE, /* RFC 31: not {"op": [values]}, or a bad value */
	XC_E_FLUX_OPERATOR, /* RFC 31: an operator this project does not know */
	XC_E_FLUX_NO_EQUIVALENT, /* RFC 31: not, properties, hostlist,
				    ranks, {} */
	XC_E_NOT_UTF8,		 /* a leaf JSON cannot carry (not UTF-8) */
	XC_E__COUNT
} xc_errcode_t;

#define XC_ERROR_MESSAGE_SIZE 200

/* An error: lives on the caller's stack; every function that can fail
 * takes an `xc_error_t *` that may be NULL.  `offset` and `end` are byte
 * offsets into the request: the offending token is [offset, end). */
typedef struct xc_error {
	int code; /* an xc_errcode_t, or a wing's code past XC_E__COUNT */
	size_t offset;
	size_t end;
	char message[XC_ERROR_MESSAGE_SIZE];
} xc_error_t;

/* The stable lower-case name of an error code ("mixed-boolops"), or
 * "unknown" for a value outside the enum.  Static storage. */
const char *xc_errcode_name(int code);

/* Renders `err` for a person, as doc/language.md §6 shows it:
 *
 *   <prefix><message> (column N)
 *     <request>
 *     <spaces>^
 *
 * `prefix` NULL means "error: "; N is the 1-based byte column.  Bytes that are
 * not printable ASCII are shown escaped (\xNN, \t ...) and the caret stays
 * under the offending token; a request wider than 72 columns is cut around the
 * error with "...".  Returns a malloc'd string the caller frees, or NULL when
 * out of memory. */
char *xc_error_render(const char *request, const xc_error_t *err,
		      const char *prefix);

/* How many library objects are alive in this process: expression nodes
 * (one per leaf and group), node tables and node Extras.  Callers that
 * free what they made come back to the same count; the plugin logs it
 * and the load test (tests/cluster/load.sh) compares it before and after a load,
 * as the proof that nothing leaks.  Thread-safe. */
long xc_live_objects(void);

/* ---------------------------------------------------------------- limits */

/* Bounds on the work one request or one node may cause.  A field left 0
 * takes its default.  Pass NULL for all defaults. */
typedef struct xc_limits {
	size_t max_request_length; /* bytes; default 1024, as Slurm */
	/* parentheses; default and most 1024 (doc/language.md §1.4) */
	unsigned max_depth;
	size_t max_extra_length;  /* bytes of node Extra; default 65536 */
	unsigned max_extra_depth; /* json-c depth for node Extra; default 32 */
	size_t max_flux_length;	  /* bytes of RFC 31 JSON text; default 65536 */
} xc_limits_t;

#define XC_DEFAULT_MAX_REQUEST_LENGTH 1024
#define XC_DEFAULT_MAX_DEPTH 1024
#define XC_DEFAULT_MAX_EXTRA_LENGTH 65536
#define XC_DEFAULT_MAX_EXTRA_DEPTH 32 /* json-c's, as Slurm uses it */
#define XC_DEFAULT_MAX_FLUX_LENGTH 65536

/* The largest values a caller (extra.conf, the command's options) may
 * set.  Parsing, formatting, matching, explaining, destroying, the RFC 31
 * translation and RFC 46 shapes (flux/) recurse once per level of
 * nesting, so max_depth bounds their stack: measured by tests/bench/bench, the
 * deepest user (reading RFC 31) takes about 430 bytes a level, xc_parse
 * 130, reading and writing shapes 140 to 210, so 1024 levels stay under
 * 450 KiB, inside the 1 MiB stacks of slurmctld's RPC threads
 * (parser/test/test_depth.c runs every request entry point there at this depth,
 * flux/test/test_shape.c the shape's).  A larger max_depth is taken as this
 * one. */
#define XC_MAX_DEPTH_LIMIT 1024
#define XC_MAX_REQUEST_LENGTH_LIMIT (16u << 20)
#define XC_MAX_EXTRA_LENGTH_LIMIT (64u << 20)

/* The limits a caller sets from text (extra.conf, the command's options). */
typedef enum xc_limit {
	XC_LIMIT_REQUEST_LENGTH, /* max_request_length: 1 to 16 MiB */
	XC_LIMIT_DEPTH,		 /* max_depth: 1 to XC_MAX_DEPTH_LIMIT */
	XC_LIMIT_EXTRA_LENGTH	 /* max_extra_length: 2 ("{}") to 64 MiB */
} xc_limit_t;

/* The smallest and largest value limit `which` may be set to (*min, *max),
 * the one range every caller takes. */
void xc_limit_range(xc_limit_t which, size_t *min, size_t *max);

/* A whole number from `text`: decimal digits only (no sign, blanks or
 * suffix), in [min, max], into *out.  Returns 0, or -1 (*out unchanged)
 * when `text` is not such a number: the one reader of the settings and
 * options that take a count. */
int xc_read_count(const char *text, size_t min, size_t max, size_t *out);

/* Sets limit `which` of `l` from `text`: whole decimal digits, nothing
 * else (no sign, no blanks, no suffix), a value in xc_limit_range().
 * Returns 0, or -1 with `l` unchanged when `text` is not such a value. */
int xc_limits_set(xc_limits_t *l, xc_limit_t which, const char *text);

/* The limits in force under `limits` (NULL: all defaults): each field left
 * 0 takes its default (XC_DEFAULT_*), and a max_depth above
 * XC_MAX_DEPTH_LIMIT is taken as that limit. */
xc_limits_t xc_limits_in_force(const xc_limits_t *limits);

/* ----------------------------------------------------------------- tree */

typedef enum xc_kind {
	XC_LEAF,
	XC_AND,
	XC_OR
} xc_kind_t;

typedef enum xc_cmpop {
	XC_EQ, /* =  */
	XC_NE, /* != */
	XC_GT, /* >  */
	XC_GE, /* >= */
	XC_LT, /* <  */
	XC_LE  /* <= */
} xc_cmpop_t;

/* A parsed request: a tree of AND/OR groups and leaves.  Opaque. */
typedef struct xc_expr xc_expr_t;

/* Parses `request` (a NUL-terminated string) by doc/language.md §1.  Returns a
 * tree the caller owns and frees with xc_expr_destroy, or NULL with `err` set
 * (its code, the byte range of the offending token and a one-line message).
 * Every request value is converted here, once, to what each node value type
 * needs (number by doc/language.md §3.1, boolean by doc/language.md §3.3), so
 * evaluation does no text parsing.  Work and stack are bounded by `limits`
 * (NULL: defaults): longer requests fail with XC_E_TOO_LONG, deeper nesting
 * with XC_E_TOO_DEEP. */
xc_expr_t *xc_parse(const char *request, const xc_limits_t *limits,
		    xc_error_t *err);

/* Frees a tree and every node below it; accepts NULL. */
void xc_expr_destroy(xc_expr_t *expr);

/* Read access to a tree, as doc/language.md §1 shapes it: a group (XC_AND
 * or XC_OR) has two or more items, each a leaf or a group; a leaf is key,
 * operator and value (doc/language.md §1.1).  These never fail; pointers
 * are borrowed, valid while the tree lives. */

/* The kind of `expr`; XC_LEAF for NULL. */
xc_kind_t xc_expr_kind(const xc_expr_t *expr);

/* How many items the group `expr` has; 0 for a leaf or NULL. */
size_t xc_expr_count(const xc_expr_t *expr);

/* Item `i` (from 0) of the group `expr`; NULL for a leaf, NULL or `i` out
 * of range. */
const xc_expr_t *xc_expr_child(const xc_expr_t *expr, size_t i);

/* The key of `leaf`, a NUL-terminated copy of its bytes in the request;
 * NULL when `leaf` is not a leaf (or NULL). */
const char *xc_leaf_key(const xc_expr_t *leaf);

/* The comparison operator of `leaf`; XC_EQ when it is not a leaf. */
xc_cmpop_t xc_leaf_cmpop(const xc_expr_t *leaf);

/* The value of `leaf`, as xc_leaf_key gives the key. */
const char *xc_leaf_value(const xc_expr_t *leaf);

/* Where `expr` starts in the request it was parsed from: a byte offset,
 * from 0 (0 for NULL, and for every node of a tree read from RFC 31). */
size_t xc_expr_offset(const xc_expr_t *expr);

/* The text of an operator: "=", "!=", ">", ">=", "<", "<=" (static
 * storage); "?" for a value outside the enum. */
const char *xc_cmpop_text(xc_cmpop_t op);

/* True when the two trees are the same: same shape, kinds, keys,
 * operators and values (offsets are not compared).  NULL equals NULL. */
bool xc_expr_equal(const xc_expr_t *a, const xc_expr_t *b);

/* Formats a tree as canonical request text: AND is written '&', leaves as
 * key, operator, value exactly, and parentheses only around a group that is
 * an item of another group.  The text parses back to an equal tree.
 * Returns a malloc'd string the caller frees, or NULL when out of memory. */
char *xc_format(const xc_expr_t *expr);

/* ------------------------------------------------------------ evaluation */

/* A node's Extra, read as Slurm reads it (doc/language.md §2): its top-level
 * keys and their values.  Opaque; immutable once loaded, so threads may share
 * it. */
typedef struct xc_extra xc_extra_t;

/* The type of a node value, as Slurm's data_t holds it (doc/language.md §3). */
typedef enum xc_value_type {
	XC_VALUE_NULL,
	XC_VALUE_BOOL,
	XC_VALUE_INT,  /* int64; json-c clamps larger integers */
	XC_VALUE_REAL, /* double, also NaN and infinities */
	XC_VALUE_STRING,
	XC_VALUE_OBJECT, /* never compared: its content is not kept */
	XC_VALUE_ARRAY	 /* likewise */
} xc_value_type_t;

/* Evaluates `expr` against one node's Extra, already read (doc/language.md §2
 * to §4).  `extra` is borrowed; NULL (unset, unreadable, not an object) matches
 * no request.  Never fails. */
bool xc_match(const xc_expr_t *expr, const xc_extra_t *extra);

/* How a node's Extra text was read (doc/language.md §2). */
typedef enum xc_extra_state {
	XC_EXTRA_OBJECT,     /* a JSON object: requests are evaluated */
	XC_EXTRA_UNSET,	     /* NULL or empty */
	XC_EXTRA_TOO_LONG,   /* longer than limits->max_extra_length */
	XC_EXTRA_INVALID,    /* not JSON as json-c reads it */
	XC_EXTRA_NOT_OBJECT, /* JSON but not an object */
	XC_EXTRA_TOO_DEEP,   /* nested as deep as limits->max_extra_depth */
	XC_EXTRA_NO_NODE     /* xc_nodes_state(): no node at that index */
} xc_extra_state_t;

/* Reads a node's Extra text (`len` bytes, need not be NUL-terminated) exactly
 * as Slurm 23.11+ does (doc/language.md §2): json-c's tokener, not strict, so
 * trailing commas, comments, single quotes, NaN, leading zeros and text after
 * the object are accepted; depth limits->max_extra_depth (default 32, json-c's
 * and Slurm's).  Duplicate keys: the last wins.  Returns the Extra the caller
 * frees with xc_extra_destroy and sets *state to XC_EXTRA_OBJECT; otherwise
 * returns NULL and sets *state to why (state may be NULL).  Out of memory: NULL
 * and `err` (may be NULL) set to XC_E_NOMEM; every other outcome clears `err`.
 * Bytes beyond limits->max_extra_length are never read. */
xc_extra_t *xc_extra_load(const char *text, size_t len,
			  const xc_limits_t *limits, xc_extra_state_t *state,
			  xc_error_t *err);

/* Drops a reference to `extra` (from xc_extra_load); accepts NULL. */
void xc_extra_destroy(xc_extra_t *extra);

/* How many top-level keys `extra` has (0 for NULL). */
size_t xc_extra_count(const xc_extra_t *extra);

/* A short phrase for a state ("not valid JSON"). Static storage. */
const char *xc_extra_state_text(xc_extra_state_t state);

/* The same phrase, naming the limit for TOO_LONG and TOO_DEEP ("longer
 * than the limit of 65536 bytes"), written into `buf`.  Returns `buf`. */
const char *xc_extra_state_explain(xc_extra_state_t state,
				   const xc_limits_t *limits, char *buf,
				   size_t size);

/* Explains the evaluation of `expr` against `extra` for a person: the tree,
 * one line per group and leaf with its outcome, and for each leaf why
 * (missing key, node value type, request value not a number ...).
 * Returns a malloc'd string the caller frees, or NULL when out of memory. */
char *xc_explain(const xc_expr_t *expr, const xc_extra_t *extra);

/* Why a leaf holds for a node's Extra or not (doc/language.md §3), as `why`
 * groups the nodes a leaf rules out. */
typedef enum xc_leaf_outcome {
	XC_LEAF_HOLDS,		/* the comparison holds */
	XC_LEAF_FALSE,		/* the values compare, and the comparison is
				   false */
	XC_LEAF_NO_KEY,		/* the node's Extra has no such key */
	XC_LEAF_NOT_COMPARABLE, /* its value is null, an object or an array */
	XC_LEAF_NOT_NUMBER,	/* its value is a number, the request value
				   is not (doc/language.md §3.1) */
	XC_LEAF_NO_EXTRA	/* Extra unset, unreadable or not an object */
} xc_leaf_outcome_t;

/* The outcome of `leaf` (a leaf of a parsed request; anything else is
 * XC_LEAF_FALSE) against `extra` (borrowed; NULL: XC_LEAF_NO_EXTRA).
 * XC_LEAF_HOLDS exactly when xc_match(leaf, extra) is true. */
xc_leaf_outcome_t xc_leaf_check(const xc_expr_t *leaf, const xc_extra_t *extra);

/* A short name of an outcome for scripts: "holds", "false", "no-key",
 * "not-comparable", "not-a-number", "no-extra".  Static storage. */
const char *xc_leaf_outcome_name(xc_leaf_outcome_t outcome);

/* Why `leaf` holds or not for `extra`, in the words xc_explain() gives
 * after the leaf ("node value 2048 is a number; 2048 < 4096").  Returns
 * a malloc'd string, or NULL when out of memory or `leaf` is not a leaf. */
char *xc_explain_leaf(const xc_expr_t *leaf, const xc_extra_t *extra);

/* The value of `key` in `extra` as JSON (jansson: a new reference the caller
 * decrefs): a number, string, boolean or null; objects and arrays, whose
 * content is not kept, as {} and []; NaN and infinities, which JSON cannot
 * hold, as the strings "NaN", "Infinity", "-Infinity".  NULL when the key is
 * missing (or `extra` is NULL) or out of memory. */
json_t *xc_extra_value_json(const xc_extra_t *extra, const char *key);

/* ------------------------------------------------------------ node table */

/* A table of nodes (name and parsed Extra), in insertion order.  Opaque.
 * Several threads may evaluate against one table while nobody changes it
 * (xc_nodes_add, xc_nodes_update, xc_nodes_compile). */
typedef struct xc_nodes xc_nodes_t;

/* Creates an empty table; `limits` (copied; NULL: defaults) bounds each
 * node's Extra.  Returns NULL when out of memory. */
xc_nodes_t *xc_nodes_create(const xc_limits_t *limits);

/* Frees a table; accepts NULL. */
void xc_nodes_destroy(xc_nodes_t *nodes);

/* Adds a node.  `name` is copied; `extra` is its Extra text as Slurm keeps
 * it (NULL for unset) and is read by xc_extra_load (the table keeps its
 * length and 64-bit FNV-1a hash, not the text).  When `prev` (may be
 * NULL; not compiled) holds a node of the same name at the same position
 * with the same Extra text, its parsed Extra is shared instead of read
 * again.  Returns 1 when it was shared, 0 when parsed, or -1 with `err`
 * set (XC_E_NOMEM; XC_E_INVALID_ARG, also when `nodes` is compiled: a
 * compiled table takes no more nodes). */
int xc_nodes_add(xc_nodes_t *nodes, const char *name, const char *extra,
		 const xc_nodes_t *prev, xc_error_t *err);

/* Whether node `i` is named `name` and has the Extra text `extra` (NULL:
 * unset), as far as the text's length and 64-bit hash tell: what a
 * refresh asks of each node before it updates only those that changed.
 * False for a NULL table or name, or `i` out of range. */
bool xc_nodes_unchanged(const xc_nodes_t *nodes, size_t i, const char *name,
			const char *extra);

/* Node `i` has the Extra text `extra` (NULL: unset) from now on: read by
 * xc_extra_load, and, on a compiled table, put in its columns in place,
 * in time proportional to the node's keys and the table's columns, not to
 * the number of nodes.  Returns 1 when the text changed, 0
 * when it is the same (nothing done), -1 with `err` set (XC_E_NOMEM,
 * XC_E_INVALID_ARG for `i` out of range): the node is then unchanged. */
int xc_nodes_update(xc_nodes_t *nodes, size_t i, const char *extra,
		    xc_error_t *err);

/* How many nodes the table holds (0 for NULL). */
size_t xc_nodes_count(const xc_nodes_t *nodes);
/* Node i's name (borrowed, valid while the table lives), or NULL when the
 * table has no node i (or is NULL). */
const char *xc_nodes_name(const xc_nodes_t *nodes, size_t i);
/* Node i's parsed Extra (borrowed), NULL unless an object, and NULL once
 * the table is compiled (the columns hold the values then). */
const xc_extra_t *xc_nodes_extra(const xc_nodes_t *nodes, size_t i);
/* How node i's Extra was read; XC_EXTRA_NO_NODE when the table has no
 * node i (or is NULL). */
xc_extra_state_t xc_nodes_state(const xc_nodes_t *nodes, size_t i);

/* The library's hash (64-bit FNV-1a) of a C string ("" for NULL): what
 * the plugin compares a job's excluded nodes by.  Never 0 for "". */
unsigned long long xc_text_hash(const char *text);

/* A 64-bit digest (FNV-1a) of the table's content: every node's name and
 * the hash of its Extra text, in order.  Two tables of the same node data
 * have the same digest, however they were built or updated: the plugin
 * logs it at each refresh, and the cluster tests wait until it equals the
 * digest of the live node data.  0 for NULL. */
unsigned long long xc_nodes_digest(const xc_nodes_t *nodes);

/* Compiles the filled table into columns, one per key: then xc_nodes_match()
 * evaluates each leaf of a request as one loop over an array per key instead of
 * walking every node's Extra, with the same result node for node
 * (doc/language.md §3, §4), and xc_nodes_update() changes a node in place.  The
 * parsed Extras are released (the columns hold what evaluation needs: about a
 * quarter of the memory); xc_nodes_extra() is NULL afterwards.  Compiling a
 * compiled table does nothing.  Returns 0, or -1 with `err` set (XC_E_NOMEM,
 * XC_E_INVALID_ARG); the table then still works, uncompiled. */
int xc_nodes_compile(xc_nodes_t *nodes, xc_error_t *err);

/* Whether `nodes` is compiled (xc_nodes_compile). */
bool xc_nodes_compiled(const xc_nodes_t *nodes);

/* The index of the node named `name` (from 0), or -1 when there is none or
 * an argument is NULL: a hash lookup once the table is compiled
 * (xc_nodes_compile builds the index), a scan before. */
long xc_nodes_find(const xc_nodes_t *nodes, const char *name);

/* The nodes with selected[i] set (xc_nodes_count() entries) as one
 * hostlist expression in Slurm's syntax, in table order: a node name is
 * split as Slurm's hostlist splits it (prefix, then the number it ends
 * with; a name of digits only, or ending in more than 18, stands alone),
 * and selected nodes with the same prefix,
 * with no node of another prefix between them in the table, share a
 * bracket, consecutive numbers as ranges: n[1-3,7],login,x[01-02], a range
 * at most 65,536 numbers long (Slurm refuses to read a longer one:
 * n[1-65536,65537-100000]).  A zero-padded number shares a bracket only
 * with numbers of its width.
 * Slurm's hostlist parser reads it back as exactly the selected names (so
 * does the RFC 29 one, doc/flux.md "Resolved": no bracket mixes widths of padded
 * numbers).  For a table in Slurm's node order (sorted by prefix and
 * number, as slurm.conf usually lists nodes) it is the string Slurm's own
 * ranged hostlist gives, but where a run is longer than 65,536 (Slurm
 * writes it whole, and cannot read it back).  One pass, no sorting: this
 * is what makes a job's excluded nodes cheap at 100,000 nodes.  Returns a malloc'd string the
 * caller frees ("" for none), or NULL when out of memory or `nodes` or
 * `selected` is NULL. */
char *xc_nodes_hostlist(const xc_nodes_t *nodes, const bool *selected);

/* The `n` node names (borrowed) as one hostlist expression, the form
 * every output of the command uses: sorted in node order (by prefix, then
 * number, then width: n1, n01, n2), duplicates removed, and compressed by
 * the rules of xc_nodes_hostlist() (consecutive numbers as ranges, a
 * zero-padded number only in a bracket of its width), so that both
 * Slurm's parser and RFC 29's read it back as exactly these names:
 * "x[01-02],x[3,10]", "login,n[1-4]".  Returns a malloc'd string the
 * caller frees ("" for none), or NULL with `err` set: XC_E_INVALID_ARG for
 * a name that cannot stand in a hostlist (empty, or holding ',', '[', ']'
 * or whitespace) or NULL `names` with `n` > 0, XC_E_NOMEM. */
char *xc_hostlist_of(const char *const *names, size_t n, xc_error_t *err);

/* Evaluates `expr` against every node: matched[i] is set for node i
 * (`matched` has xc_nodes_count() entries), by the columns when the table
 * is compiled, else node by node with xc_match().  Returns how many
 * matched, or -1 when memory ran out (on a compiled table) or an argument
 * is NULL: then no node is marked (a job then waits, the safe side; its
 * next evaluation tries again). */
long xc_nodes_match(const xc_nodes_t *nodes, const xc_expr_t *expr,
		    bool *matched);

/* ------------------------------------------------- Flux (RFC 31) forms */

/* The symbolic RFC 31 form of a request (doc/flux.md "Symbolic"): each
 * leaf is {"extra": ["<key><op><value>"]}, the leaf exactly as written
 * (RFC 43's convention of an operator inside the string), each group
 * {"and": [...]} or {"or": [...]}.  Lossless: xc_from_flux gives back an
 * equal tree.  Returns a new reference the caller json_decref()s, or NULL
 * with `err` set: XC_E_NOT_UTF8 for a leaf that is not valid UTF-8 (JSON
 * strings must be), XC_E_NOMEM, XC_E_INVALID_ARG. */
json_t *xc_to_flux(const xc_expr_t *expr, xc_error_t *err);

/* Reads an RFC 31 constraint in the symbolic form back into a tree the
 * caller owns (xc_expr_destroy).  Accepts `and`, `or` (arrays of
 * constraints) and `extra` (an array of leaf strings, several meaning
 * their AND); a one-element `and`/`or` is its element.  Errors (NULL,
 * `err` set, its message starting with the JSON path of the offending
 * place, e.g. "$.or[1].extra[0]: ..."):
 *   XC_E_FLUX_NO_EQUIVALENT  not, properties, hostlist, ranks, {}, and an
 *                            empty and/or (RFC 31 "always match");
 *   XC_E_FLUX_OPERATOR       any other operator;
 *   XC_E_FLUX_SHAPE          not one key, value not a non-empty array,
 *                            a leaf that is not a string;
 *   leaf errors (XC_E_NO_CMPOP ...) for a leaf string that is not exactly
 *   one doc/language.md §1.1 leaf, with offset/end inside that string;
 *   XC_E_TOO_DEEP            nesting deeper than limits->max_depth.
 * `limits` may be NULL (defaults). */
xc_expr_t *xc_from_flux(const json_t *constraint, const xc_limits_t *limits,
			xc_error_t *err);

/* xc_from_flux for JSON text (`len` bytes): XC_E_TOO_LONG past
 * limits->max_flux_length, XC_E_JSON (offset: where jansson stopped) for
 * text that is not JSON, else as xc_from_flux. */
xc_expr_t *xc_from_flux_text(const char *text, size_t len,
			     const xc_limits_t *limits, xc_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* XC_H */
