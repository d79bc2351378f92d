/*
 * shape_cases.h - the table rows of RFC 46 shapes (test_shape), shared
 * with the fuzz target's seed corpus (tests/fuzz/fuzz_shape.c), as
 * cases.h is for the language.
 */
#ifndef TESTS_SHAPE_CASES_H
#define TESTS_SHAPE_CASES_H

#include "shape.h"

/* A shape and the RFC 14 resources list it stands for. */
struct shape_row {
	const char *shape;
	const char *json;
};

/* The examples of RFC 46 ("Examples": the basic use cases of RFC 14),
 * each with the YAML the RFC prints under it, written as JSON. */
static const struct shape_row rfc46_rows[] = {
	/* Use Case 1.1 (and 2.1, 2.2) */
	{ "slot=4/node",
	  "[{\"type\":\"slot\",\"count\":4,\"label\":\"default\",\"with\":[{\"type\":\"node\",\"count\":1}]}]" },
	/* 1.2 */
	{ "slot=3-30/node",
	  "[{\"type\":\"slot\",\"count\":{\"min\":3,\"max\":30,\"operator\":\"+\",\"operand\":1},\"label\":\"default\",\"with\":[{\"type\":\"node\",\"count\":1}]}]" },
	/* 1.3 */
	{ "slot=4{nodelevel}/node{-x}/socket=2+/core=4+",
	  "[{\"type\":\"slot\",\"count\":4,\"label\":\"nodelevel\",\"with\":[{\"type\":\"node\",\"count\":1,\"exclusive\":false,\"with\":[{\"type\":\"socket\",\"count\":{\"min\":2},\"with\":[{\"type\":\"core\",\"count\":{\"min\":4}}]}]}]}]" },
	/* 1.4 */
	{ "slot=4{nodelevel}/node/socket=2/core=4",
	  "[{\"type\":\"slot\",\"count\":4,\"label\":\"nodelevel\",\"with\":[{\"type\":\"node\",\"count\":1,\"with\":[{\"type\":\"socket\",\"count\":2,\"with\":[{\"type\":\"core\",\"count\":4}]}]}]}]" },
	/* 1.5 */
	{ "[cluster/slot=2{ib}/node/[memory=4{unit:GB};ib10g];switch/slot=2{bicore}/node/core=2]",
	  "[{\"type\":\"cluster\",\"count\":1,\"with\":[{\"type\":\"slot\",\"count\":2,\"label\":\"ib\",\"with\":[{\"type\":\"node\",\"count\":1,\"with\":[{\"type\":\"memory\",\"count\":4,\"unit\":\"GB\"},{\"type\":\"ib10g\",\"count\":1}]}]}]},"
	  "{\"type\":\"switch\",\"count\":1,\"with\":[{\"type\":\"slot\",\"count\":2,\"label\":\"bicore\",\"with\":[{\"type\":\"node\",\"count\":1,\"with\":[{\"type\":\"core\",\"count\":2}]}]}]}]" },
	/* 1.6 */
	{ "cluster=2/slot/node=1+{-x}/core=30",
	  "[{\"type\":\"cluster\",\"count\":2,\"with\":[{\"type\":\"slot\",\"count\":1,\"label\":\"default\",\"with\":[{\"type\":\"node\",\"count\":{\"min\":1},\"exclusive\":false,\"with\":[{\"type\":\"core\",\"count\":30}]}]}]}]" },
	/* 1.7 */
	{ "switch=3/slot/node=1+{-x}/core",
	  "[{\"type\":\"switch\",\"count\":3,\"with\":[{\"type\":\"slot\",\"count\":1,\"label\":\"default\",\"with\":[{\"type\":\"node\",\"count\":{\"min\":1},\"exclusive\":false,\"with\":[{\"type\":\"core\",\"count\":1}]}]}]}]" },
	/* 1.8 */
	{ "slot=4,9,16,25/node",
	  "[{\"type\":\"slot\",\"count\":\"4,9,16,25\",\"label\":\"default\",\"with\":[{\"type\":\"node\",\"count\":1}]}]" },
	/* 2.3 */
	{ "slot=10/core=2",
	  "[{\"type\":\"slot\",\"count\":10,\"label\":\"default\",\"with\":[{\"type\":\"core\",\"count\":2}]}]" },
	/* 2.4 */
	{ "node/[slot=10{read-db}/[core;memory=4{unit:GB}];slot{db}/[core=6;memory=24{unit:GB}]]",
	  "[{\"type\":\"node\",\"count\":1,\"with\":[{\"type\":\"slot\",\"count\":10,\"label\":\"read-db\",\"with\":[{\"type\":\"core\",\"count\":1},{\"type\":\"memory\",\"count\":4,\"unit\":\"GB\"}]},"
	  "{\"type\":\"slot\",\"count\":1,\"label\":\"db\",\"with\":[{\"type\":\"core\",\"count\":6},{\"type\":\"memory\",\"count\":24,\"unit\":\"GB\"}]}]}]" },
	/* 2.5 */
	{ "slot=10/[memory=2+{unit:GB};core]",
	  "[{\"type\":\"slot\",\"count\":10,\"label\":\"default\",\"with\":[{\"type\":\"memory\",\"count\":{\"min\":2},\"unit\":\"GB\"},{\"type\":\"core\",\"count\":1}]}]" },
	/* 2.6 */
	{ "slot=2{4GB-node}/node/memory=4+{unit:GB}",
	  "[{\"type\":\"slot\",\"count\":2,\"label\":\"4GB-node\",\"with\":[{\"type\":\"node\",\"count\":1,\"with\":[{\"type\":\"memory\",\"count\":{\"min\":4},\"unit\":\"GB\"}]}]}]" },
	/* 2.7, 2.8 and 2.9 */
	{ "slot/node",
	  "[{\"type\":\"slot\",\"count\":1,\"label\":\"default\",\"with\":[{\"type\":\"node\",\"count\":1}]}]" },
};

/* The resources of RFC 25's example and use cases (jobspec V1, what
 * flux run writes) and of RFC 14's example, with the shortest shape for
 * each; and shapes of the grammar's other corners. */
static const struct shape_row more_rows[] = {
	/* RFC 25 example (and RFC 14 example 1) */
	{ "node=4/slot/core=2",
	  "[{\"type\":\"node\",\"count\":4,\"with\":[{\"type\":\"slot\",\"count\":1,\"label\":\"default\",\"with\":[{\"type\":\"core\",\"count\":2}]}]}]" },
	/* RFC 25 1.1 */
	{ "node=4/slot/core",
	  "[{\"type\":\"node\",\"count\":4,\"with\":[{\"type\":\"slot\",\"count\":1,\"label\":\"default\",\"with\":[{\"type\":\"core\",\"count\":1}]}]}]" },
	/* RFC 25 2.1 */
	{ "node=4/slot{myslot}/core",
	  "[{\"type\":\"node\",\"count\":4,\"with\":[{\"type\":\"slot\",\"count\":1,\"label\":\"myslot\",\"with\":[{\"type\":\"core\",\"count\":1}]}]}]" },
	/* RFC 25 2.2 */
	{ "slot=10/core=2",
	  "[{\"type\":\"slot\",\"label\":\"default\",\"count\":10,\"with\":[{\"type\":\"core\",\"count\":2}]}]" },
	/* RFC 25 2.3 */
	{ "slot=10/[core=2;gpu]",
	  "[{\"type\":\"slot\",\"count\":10,\"label\":\"default\",\"with\":[{\"type\":\"core\",\"count\":2},{\"type\":\"gpu\",\"count\":1}]}]" },
	/* RFC 25 2.4 */
	{ "node=4/slot=4/[core;gpu]",
	  "[{\"type\":\"node\",\"count\":4,\"with\":[{\"type\":\"slot\",\"count\":4,\"label\":\"default\",\"with\":[{\"type\":\"core\",\"count\":1},{\"type\":\"gpu\",\"count\":1}]}]}]" },
	/* flux run -N2 --exclusive: exclusive true is x */
	{ "node=2{x}/slot{task}/core=4",
	  "[{\"type\":\"node\",\"count\":2,\"exclusive\":true,\"with\":[{\"type\":\"slot\",\"count\":1,\"label\":\"task\",\"with\":[{\"type\":\"core\",\"count\":4}]}]}]" },
	/* a label of "default" with more in the braces is written */
	{ "slot{default,x}/core",
	  "[{\"type\":\"slot\",\"count\":1,\"label\":\"default\",\"exclusive\":true,\"with\":[{\"type\":\"core\",\"count\":1}]}]" },
	/* RFC 45 operators and operands; a range the dictionary cannot hold */
	{ "node=2-16:2:*/core",
	  "[{\"type\":\"node\",\"count\":{\"min\":2,\"max\":16,\"operator\":\"*\",\"operand\":2},\"with\":[{\"type\":\"core\",\"count\":1}]}]" },
	{ "node=1-9:2/core",
	  "[{\"type\":\"node\",\"count\":{\"min\":1,\"max\":9,\"operator\":\"+\",\"operand\":2},\"with\":[{\"type\":\"core\",\"count\":1}]}]" },
	{ "node=2+:2:^", "[{\"type\":\"node\",\"count\":\"2+:2:^\"}]" },
	{ "node=1,3-5,9", "[{\"type\":\"node\",\"count\":\"1,3-5,9\"}]" },
	/* values: JSON, words, nested dictionaries and lists, quoting */
	{ "node{a:{b:[1,two,{c}],d:-3.5,e:null,f:\"x y\",g:\"true\",h:\"7\"}}",
	  "[{\"type\":\"node\",\"count\":1,\"a\":{\"b\":[1,\"two\",{\"c\":true}],\"d\":-3.5,\"e\":null,\"f\":\"x y\",\"g\":\"true\",\"h\":\"7\"}}]" },
	{ "node{\"x\":1,y,-z,\"-w\":2,\"a:b\":\"c;d\"}",
	  "[{\"type\":\"node\",\"count\":1,\"x\":1,\"y\":true,\"z\":false,\"-w\":2,\"a:b\":\"c;d\"}]" },
	{ "\"my type\"=2{label:\"two words\"}",
	  "[{\"type\":\"my type\",\"count\":2,\"label\":\"two words\"}]" },
	{ "slot{\"-x\"}/core",
	  "[{\"type\":\"slot\",\"count\":1,\"label\":\"-x\",\"with\":[{\"type\":\"core\",\"count\":1}]}]" },
	/* a key named x at a vertex is quoted: a bare x is exclusive */
	{ "node{\"x\"}", "[{\"type\":\"node\",\"count\":1,\"x\":true}]" },
	{ "node{-\"x\"}", "[{\"type\":\"node\",\"count\":1,\"x\":false}]" },
	{ "node{x,\"x\"}",
	  "[{\"type\":\"node\",\"count\":1,\"exclusive\":true,\"x\":true}]" },
	{ "slot{dt,\"x\",x}/ce",
	  "[{\"type\":\"slot\",\"count\":1,\"label\":\"dt\",\"x\":true,\"exclusive\":true,\"with\":[{\"type\":\"ce\",\"count\":1}]}]" },
	/* a key named x inside a value is just x */
	{ "node{a:{x}}",
	  "[{\"type\":\"node\",\"count\":1,\"a\":{\"x\":true}}]" },
	{ "gpu{unit:\u00e9t\u00e9}",
	  "[{\"type\":\"gpu\",\"count\":1,\"unit\":\"\u00e9t\u00e9\"}]" },
};

/* A shape that is refused: its code, bytes and message. */
struct shape_error_row {
	const char *shape;
	int code; /* shape.h's or the language's */
	size_t offset, end;
	const char *message;
};

static const struct shape_error_row shape_error_rows[] = {
	{ "", XC_E_EMPTY, 0, 0, "the shape is empty" },
	/* grammar */
	{ "slot", SHAPE_E_SYNTAX, 4, 4,
	  "'/' and what the slot holds (RFC 14: a slot holds resources) expected, not the end" },
	{ "node/", SHAPE_E_SYNTAX, 5, 5,
	  "a resource type expected, not the end" },
	{ "slot/node;core", SHAPE_E_SYNTAX, 9, 10,
	  "the end ('[a;b]' holds several resources) expected, not ';'" },
	{ "slot/[node;core", SHAPE_E_SYNTAX, 15, 15,
	  "';' or ']' expected (to close '[' at column 6), not the end" },
	{ "node/[slot{a}/[core;gpu]", SHAPE_E_SYNTAX, 24, 24,
	  "';' or ']' expected (to close '[' at column 6), not the end" },
	/* a blank after a word in braces: flux-core's parser keeps it */
	{ "node{a b}", SHAPE_E_SYNTAX, 6, 7,
	  "a blank after 'a' inside braces: quote the word or drop the blank (flux-core's shape parser keeps it in the word)" },
	{ "node{x }", SHAPE_E_SYNTAX, 6, 7,
	  "a blank after 'x' inside braces: quote the word or drop the blank (flux-core's shape parser keeps it in the word)" },
	{ "slot{t }/core", SHAPE_E_SYNTAX, 6, 7,
	  "a blank after 't' inside braces: quote the word or drop the blank (flux-core's shape parser keeps it in the word)" },
	/* the end inside brackets names the one to close */
	{ "node{", SHAPE_E_SYNTAX, 5, 5,
	  "a key expected (to close '{' at column 5), not the end" },
	{ "node{a:[1,", SHAPE_E_SYNTAX, 10, 10,
	  "a value expected (to close '[' at column 8), not the end" },
	{ "[node;", SHAPE_E_SYNTAX, 6, 6,
	  "a resource type expected (to close '[' at column 1), not the end" },
	{ "node=[", SHAPE_E_SYNTAX, 6, 6,
	  "a count (N, an idset such as 4,9 or a range such as 2+ or 3-30) expected (to close '[' at column 6), not the end" },
	{ "slot{", SHAPE_E_SYNTAX, 5, 5,
	  "the slot's label or '}' expected (to close '{' at column 5), not the end" },
	{ "slot=2{", SHAPE_E_SYNTAX, 7, 7,
	  "the slot's label or '}' expected (to close '{' at column 7), not the end" },
	{ "slot{a:", SHAPE_E_LABEL, 5, 7,
	  "a slot's braces start with its label alone: slot{LABEL,key:value}" },
	{ "slot{a/core", SHAPE_E_SYNTAX, 6, 7,
	  "',' or '}' after the label expected (to close '{' at column 5), not '/'" },
	{ "node{a,}", SHAPE_E_SYNTAX, 7, 8, "a key expected, not '}'" },
	{ "slot{a,}/core", SHAPE_E_SYNTAX, 7, 8, "a key expected, not '}'" },
	{ "node=", SHAPE_E_SYNTAX, 5, 5,
	  "a count (N, an idset such as 4,9 or a range such as 2+ or 3-30) expected, not the end" },
	{ "node=x", SHAPE_E_SYNTAX, 5, 6,
	  "a count (N, an idset such as 4,9 or a range such as 2+ or 3-30) expected, not 'x'" },
	{ "slot=[2-4/node", SHAPE_E_SYNTAX, 9, 10,
	  "']' after the count expected (to close '[' at column 6), not '/'" },
	{ "node{a:[1 2]}", SHAPE_E_SYNTAX, 9, 10,
	  "a blank after '1' inside braces: quote the word or drop the blank (flux-core's shape parser keeps it in the word)" },
	{ "node{a:[1,2\"x\"]}", SHAPE_E_SYNTAX, 11, 12,
	  "',' or ']' expected (to close '[' at column 8), not '\"'" },
	{ "node{a:{b:1\"c\"}}", SHAPE_E_SYNTAX, 11, 12,
	  "',' or '}' expected (to close '{' at column 8), not '\"'" },
	{ "node{a:}", SHAPE_E_SYNTAX, 7, 8, "a value expected, not '}'" },
	{ "node{+a:1}", SHAPE_E_SYNTAX, 7, 8,
	  "',' or '}' expected (to close '{' at column 5), not ':'" },
	{ "node core", SHAPE_E_SYNTAX, 5, 6, "the end expected, not 'core'" },
	{ "node{a:'b}", SHAPE_E_VALUE, 7, 10,
	  "a string with no closing \"'\"" },
	/* counts */
	{ "slot=0/node", SHAPE_E_COUNT, 5, 6,
	  "counts start at 1 and have no leading zero" },
	{ "slot=01/node", SHAPE_E_COUNT, 5, 7,
	  "counts start at 1 and have no leading zero" },
	{ "slot=4,3/node", SHAPE_E_COUNT, 7, 8,
	  "an idset's ids go up, each once (RFC 22)" },
	{ "node=1,1", SHAPE_E_COUNT, 7, 8,
	  "an idset's ids go up, each once (RFC 22)" },
	{ "node=5-3,9", SHAPE_E_COUNT, 7, 10,
	  "an idset range goes up (RFC 22)" },
	{ "node=1,", SHAPE_E_COUNT, 6, 7, "an id expected after ','" },
	{ "slot=3-2/node", SHAPE_E_COUNT, 7, 8,
	  "a range's maximum is below its minimum" },
	{ "slot=3:2/node", SHAPE_E_COUNT, 6, 8,
	  "'+' or '-MAX' expected after a range's minimum (RFC 45)" },
	{ "slot=2+:2:%/node", SHAPE_E_COUNT, 10, 11,
	  "an operator expected: +, * or ^ (RFC 45)" },
	{ "slot=2+:2:*:/node", SHAPE_E_COUNT, 11, 12,
	  "the end of the count expected" },
	{ "slot=99999999999999999999/core", SHAPE_E_COUNT, 5, 25,
	  "a number too large" },
	/* RFC 45 ranges Flux refuses (flux-core's libjob/count.c) */
	{ "node=2-8:1:*", SHAPE_E_COUNT, 5, 12,
	  "'*' and '^' need an operand of at least 2 (RFC 45)" },
	{ "slot=2+:1:*/core", SHAPE_E_COUNT, 5, 11,
	  "'*' and '^' need an operand of at least 2 (RFC 45)" },
	{ "node=1-9:2:^", SHAPE_E_COUNT, 5, 12,
	  "'^' needs a minimum of at least 2 (RFC 45)" },
	/* labels */
	{ "slot{-x}/node", SHAPE_E_LABEL, 5, 7,
	  "a slot's braces start with its label: slot{LABEL,-x}" },
	{ "slot{a:1}/node", SHAPE_E_LABEL, 5, 7,
	  "a slot's braces start with its label alone: slot{LABEL,key:value}" },
	{ "[slot/node;slot/core]", SHAPE_E_LABEL, 1, 5,
	  "a slot without a label: with 2 slots, each has one (slot{LABEL})" },
	{ "[slot{a}/node;slot{a}/core]", SHAPE_E_LABEL, 19, 20,
	  "label 'a' is used twice (RFC 14: labels are unique)" },
	{ "node{label:a}/slot{a}/core", SHAPE_E_LABEL, 19, 20,
	  "label 'a' is used twice (RFC 14: labels are unique)" },
	{ "node{label:default}/slot/core", SHAPE_E_LABEL, 20, 24,
	  "the slot without a label is 'default', a label used elsewhere (RFC 14: labels are unique)" },
	{ "[slot  /core;node{label:default}]", SHAPE_E_LABEL, 1, 5,
	  "the slot without a label is 'default', a label used elsewhere (RFC 14: labels are unique)" },
	/* keys */
	{ "node{count:3}", SHAPE_E_KEY, 5, 10,
	  "'count' cannot be a key here: the count is written after '='" },
	{ "node{type:a}", SHAPE_E_KEY, 5, 9,
	  "'type' cannot be a key here: the type comes first" },
	{ "node{with:[]}", SHAPE_E_KEY, 5, 9,
	  "'with' cannot be a key here: what a resource holds is written after '/'" },
	{ "node{x,x}", SHAPE_E_KEY, 7, 8, "'exclusive' is given twice" },
	{ "slot{lab,label:z}/core", SHAPE_E_KEY, 9, 14,
	  "a slot's label is the first entry in its braces: slot{LABEL,...}" },
	/* values */
	{ "\"\"", SHAPE_E_VALUE, 0, 2,
	  "a resource type is a non-empty string (RFC 14)" },
	{ "node/\"\"=2", SHAPE_E_VALUE, 5, 7,
	  "a resource type is a non-empty string (RFC 14)" },
	{ "node{exclusive:5}", SHAPE_E_VALUE, 5, 16,
	  "exclusive is true or false (RFC 14)" },
	{ "node{label:5}", SHAPE_E_VALUE, 5, 12,
	  "a label is a string (RFC 14)" },
	{ "node{a:\"b}", SHAPE_E_VALUE, 7, 10,
	  "a string with no closing '\"'" },
	{ "node{a:\"\\q\"}", SHAPE_E_VALUE, 8, 10,
	  "not a JSON escape: \\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\uXXXX expected" },
	{ "node{a:\"\\u12\"}", SHAPE_E_VALUE, 8, 10,
	  "not a JSON escape: \\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\uXXXX expected" },
	{ "node{a:\"\\ud800x\"}", SHAPE_E_VALUE, 8, 14,
	  "a lone UTF-16 surrogate" },
	{ "node{a:\"\\u0000\"}", SHAPE_E_VALUE, 8, 14,
	  "\\u0000: a string here cannot hold a NUL" },
	{ "node{a:\"\t\"}", SHAPE_E_VALUE, 8, 9,
	  "a control byte in a JSON string: write it as \\u0009" },
	{ "node{a:1e999}", SHAPE_E_VALUE, 7, 12,
	  "not a JSON value: real number overflow near '1e999'" },
	{ "node{\xff:1}", XC_E_NOT_UTF8, 5, 6,
	  "not UTF-8: a JSON string cannot hold it" },
};

#endif
