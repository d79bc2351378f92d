/*
 * test_shape.c - RFC 46 shapes (doc/flux.md "Shapes"): every example of
 * RFC 46 reads as the resources list the RFC prints and writes back as
 * itself; every resources list of the RFC 14 and RFC 25 use cases writes
 * as a shape that reads back as the same list; each error kind has a row
 * with its bytes and message, and each code its name; jobspec V1
 * (RFC 25) is told apart; and the bounds hold in a 1 MiB stack.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gen.h"
#include "shape.h"
#include "shape_cases.h"
#include "table.h"
#include "xc.h"
#include "leakcheck.h"

LEAK_CHECKED(shape);

/* Checks that `shape` reads as `json`, and that `json` writes as
 * `shape` and reads back as itself. */
static void check_both_ways(const struct shape_row *row)
{
	json_error_t jerr;
	json_t *want = json_loads(row->json, 0, &jerr), *got, *again;
	xc_error_t err;
	char *back;

	cr_assert_not_null(want, "%s: %s", row->json, jerr.text);
	got = shape_parse(row->shape, strlen(row->shape), NULL, &err);
	cr_assert_not_null(got, "%s: %s", row->shape, err.message);
	cr_assert(json_equal(got, want), "%s: got %s", row->shape,
		  json_dumps(got, JSON_COMPACT));
	back = shape_format(want, NULL, &err);
	cr_assert_not_null(back, "%s: %s", row->json, err.message);
	cr_assert_str_eq(back, row->shape);
	again = shape_parse(back, strlen(back), NULL, &err);
	cr_assert(json_equal(again, want), "%s: read back differs", back);
	free(back);
	json_decref(again);
	json_decref(got);
	json_decref(want);
}

ROW_TEST(shape, rfc46_examples_both_ways, struct shape_row, rfc46_rows)
{
	check_both_ways(row);
}

ROW_TEST(shape, more_shapes_both_ways, struct shape_row, more_rows)
{
	check_both_ways(row);
}

/* A shape that is not the shortest reads as the same list as the
 * shortest, which is what is written back. */
struct longer_row {
	const char *shape;
	const char *shortest;
};

static const struct longer_row longer_rows[] = {
	{ "[slot=[4]/[node=1]]", "slot=4/node" },
	{ "slot=4{default}/node{}", "slot=4/node" },
	{ "slot{}/core", "slot/core" },
	{ "node{+x,gpu:true}", "node{x,gpu}" },
	{ "node{exclusive:false}", "node{-x}" },
	{ "node=[3-30]", "node=3-30" },
	{ "node=3-30:1:+", "node=3-30" },
	{ "node=2+:1:+", "node=2+" },
	{ "node=[1,4-6]", "node=1,4-6" },
	{ "node{\"unit\":\"GB\"}", "node{unit:GB}" },
	{ "node{a:\"\\u00e9t\\u00e9 \\ud83d\\ude00\\n\\\"\\\\\\/\"}",
	  "node{a:\"\u00e9t\u00e9 \U0001F600\\n\\\"\\\\/\"}" },
	{ "node{a:\"\\u00e9t\\u00e9\"}", "node{a:\u00e9t\u00e9}" },
	/* blanks between tokens (but after a word in braces), and single
	 * quotes around raw text, as flux-core's own shape parser reads
	 * them */
	{ " [ node = 2 {x, a: 1} / slot { t} / core ] ",
	  "node=2{x,a:1}/slot{t}/core" },
	{ "slot=4\n/\tnode", "slot=4/node" },
	{ "node{a:'b c',d:'\"'}", "node{a:\"b c\",d:\"\\\"\"}" },
	{ "node{'x'}", "node{\"x\"}" },
	{ "'my type'=2", "\"my type\"=2" },
	{ "node{a:\"it's\"}", "node{a:\"it's\"}" },
	{ "node{a:[ 1, two,\t{ b: [ ] }\n]}", "node{a:[1,two,{b:[]}]}" },
	{ "node{a:{ }}", "node{a:{}}" },
	{ "node{a:{\r\"b\" :\"c d\" }}", "node{a:{b:\"c d\"}}" },
};

ROW_TEST(shape, longer_forms_read_as_the_shortest, struct longer_row,
	 longer_rows)
{
	xc_error_t err;
	json_t *a = shape_parse(row->shape, strlen(row->shape), NULL, &err);
	json_t *b;
	char *back;

	cr_assert_not_null(a, "%s: %s", row->shape, err.message);
	b = shape_parse(row->shortest, strlen(row->shortest), NULL, &err);
	cr_assert_not_null(b, "%s: %s", row->shortest, err.message);
	cr_assert(json_equal(a, b), "%s and %s differ", row->shape,
		  row->shortest);
	back = shape_format(a, NULL, &err);
	cr_assert_str_eq(back, row->shortest);
	free(back);
	json_decref(a);
	json_decref(b);
}

ROW_TEST(shape, errors, struct shape_error_row, shape_error_rows)
{
	xc_error_t err;
	json_t *j = shape_parse(row->shape, strlen(row->shape), NULL, &err);

	cr_assert_null(j, "%s: accepted", row->shape);
	cr_assert_eq(err.code, row->code, "%s: %s, expected %s: %s", row->shape,
		     shape_errcode_name(err.code),
		     shape_errcode_name(row->code), err.message);
	cr_assert_str_eq(err.message, row->message);
	cr_assert_eq(err.offset, row->offset, "%s: offset %zu", row->shape,
		     err.offset);
	cr_assert_eq(err.end, row->end, "%s: end %zu", row->shape, err.end);
}

/* A resources list no shape writes: the path and why. */
struct format_error_row {
	const char *json;
	const char *message;
};

static const struct format_error_row format_error_rows[] = {
	{ "[]", "$: a list of resources is a non-empty array (RFC 14)" },
	{ "{}", "$: a list of resources is a non-empty array (RFC 14)" },
	{ "[5]", "$[0]: a resource is an object (RFC 14)" },
	{ "[{\"count\":1}]",
	  "$[0]: a resource has a type, a non-empty string (RFC 14)" },
	{ "[{\"type\":\"node\"}]", "$[0]: a resource has a count (RFC 14)" },
	{ "[{\"type\":\"node\",\"count\":0}]", "$[0]: a count is at least 1" },
	{ "[{\"type\":\"node\",\"count\":\"4,3\"}]",
	  "$[0]: count \"4,3\": an idset's ids go up, each once (RFC 22)" },
	{ "[{\"type\":\"node\",\"count\":{\"min\":2,\"max\":1,\"operator\":\"+\",\"operand\":1}}]",
	  "$[0]: a count is an integer, an idset, a range string, {min} or {min,max,operator,operand} (RFC 14)" },
	{ "[{\"type\":\"node\",\"count\":{\"min\":2,\"size\":1}}]",
	  "$[0]: a count is an integer, an idset, a range string, {min} or {min,max,operator,operand} (RFC 14)" },
	/* RFC 14's schema: max, operator and operand go together */
	{ "[{\"type\":\"node\",\"count\":{\"min\":2,\"max\":4}}]",
	  "$[0]: a count is an integer, an idset, a range string, {min} or {min,max,operator,operand} (RFC 14)" },
	{ "[{\"type\":\"node\",\"count\":{\"min\":2,\"operator\":\"*\",\"operand\":2}}]",
	  "$[0]: a count is an integer, an idset, a range string, {min} or {min,max,operator,operand} (RFC 14)" },
	{ "[{\"type\":\"node\",\"count\":{\"min\":2,\"max\":4,\"operator\":\"\\u0000\",\"operand\":2}}]",
	  "$[0]: a count is an integer, an idset, a range string, {min} or {min,max,operator,operand} (RFC 14)" },
	/* and what Flux refuses of them (flux-core's libjob/count.c) */
	{ "[{\"type\":\"node\",\"count\":{\"min\":2,\"max\":9,\"operator\":\"*\",\"operand\":1}}]",
	  "$[0]: '*' and '^' need an operand of at least 2 (RFC 45)" },
	{ "[{\"type\":\"node\",\"count\":{\"min\":1,\"max\":9,\"operator\":\"^\",\"operand\":2}}]",
	  "$[0]: '^' needs a minimum of at least 2 (RFC 45)" },
	{ "[{\"type\":\"node\",\"count\":\"2+:1:*\"}]",
	  "$[0]: count \"2+:1:*\": '*' and '^' need an operand of at least 2 (RFC 45)" },
	{ "[{\"type\":\"\"}]",
	  "$[0]: a resource has a type, a non-empty string (RFC 14)" },
	/* labels are unique, as the reader wants them */
	{ "[{\"type\":\"node\",\"count\":1,\"label\":\"default\",\"with\":[{\"type\":\"slot\",\"count\":1,\"label\":\"default\",\"with\":[{\"type\":\"core\",\"count\":1}]}]}]",
	  "$[0].with[0]: label 'default' is used twice (RFC 14: labels are unique)" },
	{ "[{\"type\":\"node\",\"count\":1,\"with\":[{\"type\":\"slot\",\"count\":1,\"with\":[]}]}]",
	  "$[0].with[0]: a slot has a label, a string (RFC 14)" },
	{ "[{\"type\":\"node\",\"count\":1,\"with\":[{\"type\":\"slot\",\"count\":1,\"label\":\"a\"}]}]",
	  "$[0].with[0]: a slot holds resources: it has a with (RFC 14)" },
	{ "[{\"type\":\"node\",\"count\":1,\"with\":[{\"type\":\"core\",\"count\":1},{\"type\":\"gpu\",\"count\":1,\"with\":[]}]}]",
	  "$[0].with[1].with: a list of resources is a non-empty array (RFC 14)" },
	{ "[{\"type\":\"node\",\"count\":1,\"exclusive\":\"yes\"}]",
	  "$[0]: exclusive is true or false (RFC 14)" },
};

ROW_TEST(shape, format_errors, struct format_error_row, format_error_rows)
{
	json_t *j = json_loads(row->json, JSON_ALLOW_NUL, NULL);
	xc_error_t err;
	char *s;

	cr_assert_not_null(j, "%s", row->json);
	s = shape_format(j, NULL, &err);
	cr_assert_null(s, "%s: wrote %s", row->json, s);
	cr_assert_eq(err.code, SHAPE_E_RESOURCES, "%s: %s", row->json,
		     shape_errcode_name(err.code));
	cr_assert_str_eq(err.message, row->message);
	json_decref(j);
}

/* Jobspec V1 (RFC 25): the shapes it takes, and why the others fail. */
struct v1_row {
	const char *shape;
	const char *message; /* NULL: V1 */
};

static const struct v1_row v1_rows[] = {
	{ "node=4/slot/core=2", NULL },
	{ "node=4/slot{myslot}/core", NULL },
	{ "slot=10/core=2", NULL },
	{ "slot=10/[core=2;gpu]", NULL },
	{ "node=4/slot=4/[gpu;core]", NULL },
	{ "node=2{x}/slot{task}/core=4", NULL },
	{ "slot=4/node",
	  "$[0].with[0]: 'node' where jobspec V1 has core or gpu (RFC 25: node>slot>core[,gpu] or slot>core[,gpu])" },
	{ "cluster=2/slot/node=1+{-x}/core=30",
	  "$[0]: 'cluster' where jobspec V1 has node or slot (RFC 25: node>slot>core[,gpu] or slot>core[,gpu])" },
	{ "[node/slot{a}/core;node/slot{b}/core]",
	  "$: jobspec V1 has exactly one resource at the top, node or slot (RFC 25)" },
	{ "node=2+/slot/core",
	  "$[0]: jobspec V1 counts are integers of at least 1 (RFC 25), not ranges or idsets" },
	{ "slot=4,9/core",
	  "$[0]: jobspec V1 counts are integers of at least 1 (RFC 25), not ranges or idsets" },
	{ "node/[slot{a}/core;slot{b}/core]",
	  "$[0]: a node holds exactly one slot in jobspec V1 (RFC 25)" },
	{ "node",
	  "$[0]: a node holds exactly one slot in jobspec V1 (RFC 25)" },
	{ "slot/gpu",
	  "$[0]: the slot holds no core; jobspec V1 needs one (RFC 25)" },
	{ "slot/[core;core{a:1}]",
	  "$[0].with[1]: jobspec V1 has no 'a' on a core (RFC 25)" },
	{ "slot/[core;gpu;gpu]",
	  "$[0]: a slot holds a core, and may hold a gpu beside it, in jobspec V1 (RFC 25)" },
	{ "slot/[core;core]",
	  "$[0].with[1]: a second core in the slot (RFC 25)" },
	{ "slot{default,x}/core",
	  "$[0]: jobspec V1 has no 'exclusive' on a slot (RFC 25)" },
	{ "node/slot/core/hwthread",
	  "$[0].with[0].with[0]: a core holds nothing in jobspec V1 (RFC 25)" },
	{ "node{unit:x}/slot/core=2{unit:y}", NULL },
};

ROW_TEST(shape, jobspec_v1, struct v1_row, v1_rows)
{
	xc_error_t err;
	json_t *j = shape_parse(row->shape, strlen(row->shape), NULL, &err);
	int rc;

	cr_assert_not_null(j, "%s: %s", row->shape, err.message);
	rc = shape_check_v1(j, &err);
	if (!row->message) {
		cr_assert_eq(rc, 0, "%s: %s", row->shape, err.message);
	} else {
		cr_assert_eq(rc, -1, "%s: taken as V1", row->shape);
		cr_assert_eq(err.code, SHAPE_E_NOT_V1);
		cr_assert_str_eq(err.message, row->message);
	}
	json_decref(j);
}

/* The names of the error codes: the wing's own (shape.h), and the
 * language's, which shape_errcode_name() hands to xc_errcode_name(). */
struct code_name_row {
	int code;
	const char *name;
};

static const struct code_name_row code_name_rows[] = {
	{ SHAPE_E_SYNTAX, "shape-syntax" },
	{ SHAPE_E_COUNT, "shape-count" },
	{ SHAPE_E_LABEL, "shape-label" },
	{ SHAPE_E_KEY, "shape-key" },
	{ SHAPE_E_VALUE, "shape-value" },
	{ SHAPE_E_RESOURCES, "shape-resources" },
	{ SHAPE_E_NOT_V1, "not-v1" },
	{ XC_OK, "ok" },
	{ XC_E_EMPTY, "empty" },
	{ XC_E_NOT_UTF8, "not-utf8" },
	{ SHAPE_E__COUNT, "unknown" },
	{ -1, "unknown" },
};

ROW_TEST(shape, error_code_names, struct code_name_row, code_name_rows)
{
	cr_assert_str_eq(shape_errcode_name(row->code), row->name, "code %d",
			 row->code);
}

/* ------------------------------------------------------------ bounds */

Test(shape, longer_than_the_limit_is_refused)
{
	xc_limits_t l = { .max_request_length = 10 };
	xc_error_t err;
	json_t *j =
		shape_parse("node=4/core", 11,
			    &(xc_limits_t){ .max_request_length = 11 }, &err);

	cr_assert_not_null(j);
	json_decref(j);
	cr_assert_null(shape_parse("node=4/core", 11, &l, &err));
	cr_assert_eq(err.code, XC_E_TOO_LONG);
	cr_assert_str_eq(err.message, "the shape is longer than 10 bytes");
}

struct deep_run {
	unsigned levels;
	bool value;    /* nest values, not vertices */
	int code;      /* of the read */
	int back_code; /* of the write, when read */
	bool same;     /* written back as read */
};

static void *deep(void *arg)
{
	struct deep_run *d = arg;
	xc_limits_t l = { .max_request_length = 1u << 20,
			  .max_depth = XC_MAX_DEPTH_LIMIT };
	char *s = gen_deep_shape(d->levels, d->value);
	xc_error_t err;
	json_t *j = shape_parse(s, strlen(s), &l, &err);
	char *back;

	d->code = err.code;
	if (j) {
		back = shape_format(j, &l, &err);
		d->back_code = err.code;
		d->same = back && strcmp(back, s) == 0;
		free(back);
	}
	json_decref(j);
	free(s);
	return NULL;
}

/* Runs deep() in a thread with a slurmctld RPC thread's 1 MiB stack. */
static struct deep_run run_deep(unsigned levels, bool value)
{
	struct deep_run d = { .levels = levels, .value = value };
	pthread_attr_t a;
	pthread_t t;

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 1u << 20);
	cr_assert_eq(pthread_create(&t, &a, deep, &d), 0);
	pthread_join(t, NULL);
	pthread_attr_destroy(&a);
	return d;
}

Test(shape, the_deepest_shape_allowed_reads_and_writes_in_a_1_MiB_stack)
{
	struct deep_run d = run_deep(XC_MAX_DEPTH_LIMIT, false);

	cr_assert_eq(d.code, XC_OK, "%s", shape_errcode_name(d.code));
	cr_assert_eq(d.back_code, XC_OK);
	cr_assert(d.same);
	d = run_deep(XC_MAX_DEPTH_LIMIT, true);
	cr_assert_eq(d.code, XC_OK, "%s", shape_errcode_name(d.code));
	cr_assert_eq(d.back_code, XC_OK);
	cr_assert(d.same);
}

Test(shape, a_level_more_is_refused)
{
	cr_assert_eq(run_deep(XC_MAX_DEPTH_LIMIT + 1, false).code,
		     XC_E_TOO_DEEP);
	cr_assert_eq(run_deep(XC_MAX_DEPTH_LIMIT + 1, true).code,
		     XC_E_TOO_DEEP);
}

Test(shape, a_list_too_deep_to_write_is_refused)
{
	char *s = gen_deep_shape(40, false);
	xc_limits_t l = { .max_depth = 40 }, less = { .max_depth = 39 };
	xc_error_t err;
	json_t *j = shape_parse(s, strlen(s), &l, &err);

	cr_assert_not_null(j, "%s", err.message);
	cr_assert_null(shape_format(j, &less, &err));
	cr_assert_eq(err.code, XC_E_TOO_DEEP);
	json_decref(j);
	free(s);
}

Test(shape, null_arguments)
{
	xc_error_t err;

	cr_assert_null(shape_parse(NULL, 0, NULL, &err));
	cr_assert_eq(err.code, XC_E_INVALID_ARG);
	cr_assert_null(shape_format(NULL, NULL, &err));
	cr_assert_eq(err.code, XC_E_INVALID_ARG);
	cr_assert_null(shape_parse("", 0, NULL, NULL));
}

/* A NUL byte is neither a count's operator nor a word's byte: it is
 * refused where it stands (strchr() would have found its own set's
 * terminator). */
Test(shape, a_nul_byte_is_refused_where_it_stands)
{
	xc_error_t err;

	cr_assert_null(shape_parse("node{a:'b\0c'}", 13, NULL, &err));
	cr_assert_eq(err.code, SHAPE_E_VALUE, "%s", err.message);
	cr_assert_eq(err.offset, 7);
	cr_assert_eq(err.end, 12);

	cr_assert_null(shape_parse("e=2+:1:\0", 8, NULL, &err));
	cr_assert_eq(err.code, SHAPE_E_COUNT, "%s", err.message);
	cr_assert_eq(err.offset, 7);
	cr_assert_eq(err.end, 8);
	cr_assert_str_eq(err.message,
			 "an operator expected: +, * or ^ (RFC 45)");
	cr_assert_null(shape_parse("node\0", 5, NULL, &err));
	cr_assert_eq(err.code, SHAPE_E_SYNTAX, "%s", err.message);
	cr_assert_eq(err.offset, 4);
	cr_assert_eq(err.end, 5);
}

/* An error at the end of a shape ends there, a depth error included. */
Test(shape, errors_end_inside_the_shape)
{
	xc_limits_t l = { .max_depth = 1 };
	xc_error_t err;

	cr_assert_null(shape_parse("node/", 5, &l, &err));
	cr_assert_eq(err.code, XC_E_TOO_DEEP, "%s", err.message);
	cr_assert_eq(err.offset, 5);
	cr_assert_eq(err.end, 5);
	cr_assert_null(shape_parse("node/ ", 6, &l, &err));
	cr_assert_eq(err.code, XC_E_TOO_DEEP, "%s", err.message);
	cr_assert_eq(err.end, 6);
	cr_assert_null(shape_parse("node{a:", 7, &l, &err));
	cr_assert_eq(err.code, XC_E_TOO_DEEP, "%s", err.message);
	cr_assert_eq(err.offset, 7);
	cr_assert_eq(err.end, 7);
}
