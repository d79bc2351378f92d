/*
 * cases.h - the table rows of the unit tests, shared with the fuzz targets'
 * seed corpus (tests/fuzz): every test input seeds the fuzzers.
 */
#ifndef TESTS_CASES_H
#define TESTS_CASES_H

#include "xc.h"
struct valid_row {
	const char *request;
	const char *canonical;
};

static const struct valid_row valid_rows[] = {
	/* seeds/002, "examples of valid requests" */
	{ "a=1.23", "a=1.23" },
	{ "a=   b", "a=   b" },
	{ "a!=1.24", "a!=1.24" },
	{ "a!=1.23|foo!=blah", "a!=1.23|foo!=blah" },
	{ "b=200", "b=200" },
	{ "b=true", "b=true" },
	{ "foo<baz", "foo<baz" },
	{ "(c<=0.0001&a=1.25)|zed=23.0", "(c<=0.0001&a=1.25)|zed=23.0" },
	{ "((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00000001)",
	  "((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00000001)" },
	{ "((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=true|c>=0.1)",
	  "((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=true|c>=0.1)" },
	{ "((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00001)",
	  "((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00001)" },
	{ "a!=1.23", "a!=1.23" },
	{ "b=0", "b=0" },
	{ "b=false", "b=false" },
	{ "foo>baz", "foo>baz" },
	{ "(a=1&b=2)|c=foobar", "(a=1&b=2)|c=foobar" },
	{ "( a=b)", " a=b" },
	{ "c>=0.0001", "c>=0.0001" },
	{ "c=0.00001", "c=0.00001" },
	/* semantics.md 1.1 to 1.4 */
	{ "s=Hello ", "s=Hello " },
	{ "s=\"Hello\"", "s=\"Hello\"" },
	{ "i=5&s=Hello,f>2", "i=5&s=Hello&f>2" },
	{ "((((i=5))))", "i=5" },
	{ "o/x=1", "o/x=1" },
	{ "o.x=1", "o.x=1" },
	{ "k{:~}=v.~{}:", "k{:~}=v.~{}:" },
	{ "gr\xc3\xb6\xc3\x9f" "e=\xe2\x82\xac", "gr\xc3\xb6\xc3\x9f" "e=\xe2\x82\xac" },
	{ "a<1", "a<1" },
	{ "a<=1", "a<=1" },
	{ "a>1", "a>1" },
	{ "a>=1", "a>=1" },
	{ "gpu=true&mem>=512", "gpu=true&mem>=512" },
	{ "(gpu=true&mem>=512)|x=1", "(gpu=true&mem>=512)|x=1" },
	{ "a=1,b=2,c=3", "a=1&b=2&c=3" },
	{ "(a=1|b=2)&((c=3))", "(a=1|b=2)&c=3" },
	{ "((a=1&b=2))", "a=1&b=2" },
	{ "(a=1&b=2)&c=3", "(a=1&b=2)&c=3" },
	{ "a= ", "a= " },
	{ " a =\t1", " a =\t1" },
};

struct error_row {
	const char *request;
	xc_errcode_t code;
	size_t offset;
	const char *message;  /* NULL: not checked here */
};

static const struct error_row error_rows[] = {
	/* seeds/002, "examples of invalid requests" */
	{ "a,<=6", XC_E_NO_CMPOP, 1,
	  "comparison operator expected after key 'a'" },
	{ "a<=6<=", XC_E_VALUE_CMPOP, 4,
	  "unexpected '<=' in the value of key 'a' (one comparison per leaf)" },
	{ "a=5&&&b=5", XC_E_ITEM_EXPECTED, 4,
	  "leaf or '(' expected after '&', found '&'" },
	{ "a=5|||b=5", XC_E_ITEM_EXPECTED, 4,
	  "leaf or '(' expected after '|', found '|'" },
	{ "a====5", XC_E_BAD_CMPOP, 1,
	  "invalid comparison operator '====' (use =, !=, >, >=, <, <=)" },
	{ "b<=<=5", XC_E_BAD_CMPOP, 1, NULL },
	{ "a=5&()", XC_E_ITEM_EXPECTED, 4, "empty parentheses" },
	{ "a=5&b=5|c=5", XC_E_MIXED_BOOLOPS, 7,
	  "cannot mix '&' and '|' in one group; add parentheses" },
	{ "(a=1)&(b=2)|(c=3)", XC_E_MIXED_BOOLOPS, 11, NULL },
	{ "a=1(b=2)", XC_E_BOOLOP_EXPECTED, 3,
	  "'&', ',' or '|' expected before '('" },
	{ "(a=1)(b=2)", XC_E_BOOLOP_EXPECTED, 5, NULL },
	{ "(((a=1)b=2))", XC_E_BOOLOP_EXPECTED, 7,
	  "'&', ',' or '|' expected before 'b=2'" },
	{ " (a=b)", XC_E_NO_CMPOP, 1,
	  "comparison operator expected after key ' '" },
	{ "((c=0.00001)", XC_E_UNCLOSED_PAREN, 12,
	  "')' expected (to close '(' at column 1) before the end of the request" },
	/* semantics.md 1.1 */
	{ "i==5", XC_E_BAD_CMPOP, 1, NULL },
	{ "i=!5", XC_E_BAD_CMPOP, 1, NULL },
	{ "i=>5", XC_E_BAD_CMPOP, 1, NULL },
	{ "i<>5", XC_E_BAD_CMPOP, 1, NULL },
	{ "i!5", XC_E_BAD_CMPOP, 1, NULL },
	{ "=5", XC_E_EMPTY_KEY, 0, "key expected before '='" },
	{ "i=", XC_E_EMPTY_VALUE, 2, "value expected after 'i='" },
	{ "e=", XC_E_EMPTY_VALUE, 2, NULL },
	{ "a=b=c", XC_E_VALUE_CMPOP, 3, NULL },
	{ "a=b!", XC_E_VALUE_CMPOP, 3, NULL },
	{ "x=1>2", XC_E_VALUE_CMPOP, 3, NULL },
	{ "x>=1<", XC_E_VALUE_CMPOP, 4, NULL },
	{ "a!b=1", XC_E_BAD_CMPOP, 1, NULL },
	/* 1.2 */
	{ "a=5&&b=5", XC_E_ITEM_EXPECTED, 4, NULL },
	{ "a=5,&b=5", XC_E_ITEM_EXPECTED, 4,
	  "leaf or '(' expected after ',', found '&'" },
	/* 1.3 */
	{ "a=1,b=2|c=3", XC_E_MIXED_BOOLOPS, 7,
	  "cannot mix ',' and '|' in one group; add parentheses" },
	{ "a=1|b=2,c=3", XC_E_MIXED_BOOLOPS, 7, NULL },
	{ "(a=1|b=2&c=3)", XC_E_MIXED_BOOLOPS, 8, NULL },
	/* 1.4 */
	{ "&i=5", XC_E_ITEM_EXPECTED, 0, "leaf or '(' expected, found '&'" },
	{ "i=5&", XC_E_ITEM_EXPECTED, 4,
	  "leaf or '(' expected after '&', found the end of the request" },
	{ "i=5|", XC_E_ITEM_EXPECTED, 4, NULL },
	{ "(i=5&)", XC_E_ITEM_EXPECTED, 5,
	  "leaf or '(' expected after '&', found ')'" },
	{ "()", XC_E_ITEM_EXPECTED, 0, "empty parentheses" },
	{ "i=5)", XC_E_UNMATCHED_PAREN, 3, "unmatched ')'" },
	{ "(i=5))", XC_E_UNMATCHED_PAREN, 5, NULL },
	{ "", XC_E_EMPTY, 0, "empty request" },
	{ "(", XC_E_ITEM_EXPECTED, 1, NULL },
	{ ")", XC_E_ITEM_EXPECTED, 0, NULL },
	{ "(a=1", XC_E_UNCLOSED_PAREN, 4, NULL },
	{ "a", XC_E_NO_CMPOP, 1, NULL },
	{ "a=1&b", XC_E_NO_CMPOP, 5, NULL },
	{ "gpu=true&mem>=512|x=1", XC_E_MIXED_BOOLOPS, 17, NULL },
	{ "a=1&|b=2", XC_E_ITEM_EXPECTED, 4, NULL },
	{ "(a=1)b", XC_E_BOOLOP_EXPECTED, 5, NULL },
};

#define DOC_NODE "{ \"a\": 1.23, \"b\": true, \"c\": 0, \"foo\": \"bar\", \"zed\": 23 }"

struct eval_row {
	const char *extra;   /* node Extra text; NULL for unset */
	const char *request;
	bool match;
};

static const struct eval_row eval_rows[] = {
	/* seeds/002 and semantics.md 5: fulfilled */
	{ DOC_NODE, "a=1.23", true },
	{ DOC_NODE, "a!=1.24", true },
	{ DOC_NODE, "a!=1.23|foo!=blah", true },
	{ DOC_NODE, "b=200", true },
	{ DOC_NODE, "b=true", true },
	{ DOC_NODE, "foo<baz", true },
	{ DOC_NODE, "(c<=0.0001&a=1.25)|zed=23.0", true },
	{ DOC_NODE, "((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00000001)", true },
	{ DOC_NODE, "((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=true|c>=0.1)", true },
	/* not fulfilled */
	{ DOC_NODE, "a=   b", false },
	{ DOC_NODE, "a!=1.23", false },
	{ DOC_NODE, "b=0", false },
	{ DOC_NODE, "b=false", false },
	{ DOC_NODE, "foo>baz", false },
	{ DOC_NODE, "c>=0.0001", false },
	{ DOC_NODE, "c=0.00001", false },
	{ DOC_NODE, "((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00001)", false },
	/* 3.2 consequences */
	{ "{\"c\":0}", "c=0.0000099999", true },
	{ "{\"c\":0}", "c>=0.00000001", true },
	{ "{\"c\":0}", "c>=0.00001", false },
	{ "{\"i\":5}", "i=5.00001", true },
	{ "{\"i\":3}", "i>nan", true },
	{ "{\"i\":3}", "i!=nan", true },
	{ "{\"i\":3}", "i<nan", false },
	{ "{\"i\":3}", "i=nan", false },
	{ "{\"i\":3}", "i<inf", true },
	{ "{\"i\":3}", "i>-inf", true },
	{ "{\"i\":16}", "i=0x10", true },
	{ "{\"i\":3}", "i=0x1.8p1", true },
	{ "{\"i\":0}", "i=1e-400", true },
	{ "{\"i\":-2}", "i<-1", true },
	{ "{\"i\":1e300}", "i>1e299", true },
	/* key missing: false for every operator, != included */
	{ "{\"a\":1}", "x=1", false },
	{ "{\"a\":1}", "x!=1", false },
	{ "{\"a\":1}", "x<1", false },
	{ "{}", "k!=x", false },
	/* null, object, array: false for every operator */
	{ "{\"k\":null}", "k=null", false },
	{ "{\"k\":null}", "k!=x", false },
	{ "{\"k\":{}}", "k!=x", false },
	{ "{\"k\":[1]}", "k=1", false },
	{ "{\"k\":[1]}", "k!=1", false },
	/* strings: byte-wise strcmp */
	{ "{\"s\":\"Hello\"}", "s=Hello", true },
	{ "{\"s\":\"Hello\"}", "s=hello", false },
	{ "{\"s\":\"Hello\"}", "s=Hello ", false },
	{ "{\"s\":\"Hello\"}", "s=\"Hello\"", false },
	{ "{\"s\":\"\\\"Hello\\\"\"}", "s=\"Hello\"", true },
	{ "{\"s\":\"10\"}", "s=10.0", false },
	{ "{\"s\":\"10\"}", "s=10", true },
	{ "{\"s\":\"10\"}", "s<9", true },
	{ "{\"s\":\"b\"}", "s>a", true },
	{ "{\"s\":\"b\"}", "s>=b", true },
	{ "{\"s\":\"b\"}", "s<=a", false },
	{ "{\"s\":\"\xc3\xa9\"}", "s>z", true },
	{ "{\"s\":\"x\"}", "s!=y", true },
	/* numbers: value not a number is false for every operator */
	{ "{\"n\":5}", "n=abc", false },
	{ "{\"n\":5}", "n!=abc", false },
	{ "{\"n\":5}", "n!= 5", false },
	{ "{\"n\":5}", "n>.5", false },
	{ "{\"n\":5}", "n=5", true },
	{ "{\"n\":5.0}", "n=5", true },
	{ "{\"n\":5}", "n>=5", true },
	{ "{\"n\":5}", "n<=5", true },
	{ "{\"n\":5}", "n>5", false },
	{ "{\"n\":5}", "n<5", false },
	{ "{\"n\":5}", "n!=5", false },
	{ "{\"n\":5}", "n!=6", true },
	/* booleans (3.3) */
	{ "{\"b\":true}", "b=anything", true },
	{ "{\"b\":false}", "b=falsey", false },
	{ "{\"b\":false}", "b<=anything", true },
	{ "{\"b\":false}", "b<true", true },
	{ "{\"b\":false}", "b=off", true },
	{ "{\"b\":false}", "b=~", true },
	{ "{\"b\":true}", "b>0", true },
	{ "{\"b\":true}", "b>=1", true },
	{ "{\"b\":true}", "b=yes", true },
	{ "{\"b\":true}", "b!=no", true },
	{ "{\"b\":true}", "b= 0", false },
	{ "{\"b\":true}", "b=null", false },
	/* sem 2: Extra that is not an object matches nothing */
	{ NULL, "k!=x", false },
	{ "", "k!=x", false },
	{ "not json", "k!=x", false },
	{ "[1,2]", "k!=x", false },
	{ "\"str\"", "k!=x", false },
	{ "5", "k!=x", false },
	{ "null", "k!=x", false },
	/* keys: top level only, case sensitive, last duplicate wins */
	{ "{\"o\":{\"x\":1}}", "o.x=1", false },
	{ "{\"o.x\":1}", "o.x=1", true },
	{ "{\"o/x\":1}", "o/x=1", true },
	{ "{\"Key\":1}", "key=1", false },
	{ "{\"k\":1,\"k\":2}", "k=2", true },
	{ "{\"k\":1,\"k\":2}", "k=1", false },
	{ "{\" a\":\"b\"}", "( a=b)", true },
	{ "{\"a\":\"   b\"}", "a=   b", true },
	/* AND and OR */
	{ "{\"a\":1,\"b\":2}", "a=1&b=2", true },
	{ "{\"a\":1,\"b\":2}", "a=1,b=3", false },
	{ "{\"a\":1,\"b\":2}", "a=0|b=2", true },
	{ "{\"a\":1,\"b\":2}", "a=0|b=0", false },
	{ "{\"gpu\":true,\"mem\":1024}", "gpu=true&mem>=512", true },
	{ "{\"gpu\":true,\"mem\":256}", "gpu=true&mem>=512", false },
	{ "{\"gpu\":false,\"mem\":1024}", "gpu=true&mem>=512", false },
};

struct flux_row {
	const char *json;
	xc_errcode_t code;
	const char *text; /* the request, or the error message */
};

static const struct flux_row flux_rows[] = {
	/* RFC 31 examples */
	{ "{ \"properties\": [ \"ssd\" ] }", XC_E_FLUX_NO_EQUIVALENT,
	  "$: 'properties' has no --extra equivalent" },
	{ "{ \"properties\": [ \"^slowgpu\" ] }", XC_E_FLUX_NO_EQUIVALENT,
	  "$: 'properties' has no --extra equivalent" },
	{ "{ \"not\": [ { \"properties\": [ \"slowgpu\" ] } ] }",
	  XC_E_FLUX_NO_EQUIVALENT, "$: 'not' has no --extra equivalent" },
	{ "{ \"not\": [{ \"properties\": [ \"foo\", \"bar\" ]}] }",
	  XC_E_FLUX_NO_EQUIVALENT, "$: 'not' has no --extra equivalent" },
	{ "{ \"or\": [ { \"properties\": [ \"ssd\" ] }, { \"properties\": [ \"huge\" ] } ] }",
	  XC_E_FLUX_NO_EQUIVALENT, "$.or[0]: 'properties' has no --extra equivalent" },
	{ "{ \"or\": [{ \"properties\": [ \"foo\" ]}, { \"properties\": [ \"bar\" ]}] }",
	  XC_E_FLUX_NO_EQUIVALENT, "$.or[0]: 'properties' has no --extra equivalent" },
	{ "{ \"hostlist\": [ \"host[0-1]\" ] }", XC_E_FLUX_NO_EQUIVALENT,
	  "$: 'hostlist' has no --extra equivalent" },
	{ "{ \"not\": [ { \"hostlist\": [ \"host[0-1]\" ] } ] }",
	  XC_E_FLUX_NO_EQUIVALENT, "$: 'not' has no --extra equivalent" },
	{ "{ \"and\": [ { \"hostlist\": [ \"host[0-1]\" ] }, { \"properties\": [ \"ssd\" ] } ] }",
	  XC_E_FLUX_NO_EQUIVALENT, "$.and[0]: 'hostlist' has no --extra equivalent" },
	{ "{ \"ranks\": [ \"0\" ] }", XC_E_FLUX_NO_EQUIVALENT,
	  "$: 'ranks' has no --extra equivalent" },
	{ "{ \"or\": [] }", XC_E_FLUX_NO_EQUIVALENT,
	  "$: an empty 'or' (always match) has no --extra equivalent" },
	{ "{ \"and\": [] }", XC_E_FLUX_NO_EQUIVALENT,
	  "$: an empty 'and' (always match) has no --extra equivalent" },
	{ "{ \"not\": [] }", XC_E_FLUX_NO_EQUIVALENT,
	  "$: 'not' has no --extra equivalent" },
	{ "{}", XC_E_FLUX_NO_EQUIVALENT,
	  "$: {} (always match) has no --extra equivalent" },
	/* RFC 43 examples */
	{ "{ \"userid\": [ 42, 43 ] }", XC_E_FLUX_OPERATOR,
	  "$: unknown operator 'userid' (expected and, or, extra)" },
	{ "{ \"not\": [ { \"queue\": [ \"foobar\" ] } ] }",
	  XC_E_FLUX_NO_EQUIVALENT, "$: 'not' has no --extra equivalent" },
	{ "{ \"states\": [ \"depend\", \"priority\", \"sched\" ] }",
	  XC_E_FLUX_OPERATOR, "$: unknown operator 'states' (expected and, or, extra)" },
	{ "{ \"and\": [ { \"userid\": [ 42 ] }, { \"t_submit\": [ \">946713600.0\" ] } ] }",
	  XC_E_FLUX_OPERATOR, "$.and[0]: unknown operator 'userid' (expected and, or, extra)" },
	{ "{ \"and\": [ { \"queue\": [ \"foobar\" ] }, { \"userid\": [ 42 ] } ] }",
	  XC_E_FLUX_OPERATOR, "$.and[0]: unknown operator 'queue' (expected and, or, extra)" },
	{ "{ \"and\": [ { \"userid\": [ 42 ] }, { \"queue\": [ \"foobar\" ] } ] }",
	  XC_E_FLUX_OPERATOR, "$.and[0]: unknown operator 'userid' (expected and, or, extra)" },
	{ "{ \"states\": [ \"run\" ] }", XC_E_FLUX_OPERATOR,
	  "$: unknown operator 'states' (expected and, or, extra)" },
	/* flux.md's example and the symbolic form */
	{ "{\"or\":[{\"and\":[{\"extra\":[\"a=1\"]},{\"extra\":[\"b=2\"]}]},{\"extra\":[\"c>=3.5\"]}]}",
	  XC_OK, "(a=1&b=2)|c>=3.5" },
	{ "{\"extra\":[\"a=1\"]}", XC_OK, "a=1" },
	{ "{\"extra\":[\"a=1\",\"b!=x\",\" c<= 2\"]}", XC_OK, "a=1&b!=x& c<= 2" },
	{ "{\"and\":[{\"extra\":[\"a=1\",\"b=2\"]},{\"extra\":[\"c=3\"]}]}", XC_OK, "(a=1&b=2)&c=3" },
	{ "{\"or\":[{\"extra\":[\"a=1\"]}]}", XC_OK, "a=1" },
	{ "{\"and\":[{\"or\":[{\"extra\":[\"t_submit>946713600.0\"]}]}]}", XC_OK,
	  "t_submit>946713600.0" },
	{ "{\"extra\":[\"s=\\\"Hello\\\"\"]}", XC_OK, "s=\"Hello\"" },
	/* shapes */
	{ "[1]", XC_E_FLUX_SHAPE,
	  "$: a constraint must be a JSON object like {\"extra\": [\"gpu=true\"]}" },
	{ "{\"and\":[1]}", XC_E_FLUX_SHAPE,
	  "$.and[0]: a constraint must be a JSON object like {\"extra\": [\"gpu=true\"]}" },
	{ "{\"extra\":[\"a=1\"],\"or\":[]}", XC_E_FLUX_SHAPE,
	  "$: a constraint has exactly one operator, found 2" },
	{ "{\"extra\":\"a=1\"}", XC_E_FLUX_SHAPE, "$: the value of 'extra' must be an array" },
	{ "{\"extra\":[]}", XC_E_FLUX_SHAPE, "$: 'extra' needs at least one leaf" },
	{ "{\"extra\":[1]}", XC_E_FLUX_SHAPE,
	  "$.extra[0]: a leaf must be a string like \"gpu=true\"" },
	{ "{\"or\":[{\"extra\":[\"a=1\"]},{\"extra\":[\"gpu\"]}]}", XC_E_NO_CMPOP,
	  "$.or[1].extra[0]: comparison operator expected after key 'gpu'" },
	{ "{\"extra\":[\"a=1&b=2\"]}", XC_E_FLUX_SHAPE,
	  "$.extra[0]: '&' cannot appear in a leaf (column 4)" },
	{ "{\"extra\":[\"(a=1)\"]}", XC_E_FLUX_SHAPE,
	  "$.extra[0]: '(' cannot appear in a leaf (column 1)" },
	{ "{\"extra\":[\"a==1\"]}", XC_E_BAD_CMPOP,
	  "$.extra[0]: invalid comparison operator '==' (use =, !=, >, >=, <, <=)" },
	{ "{\"extra\":[\"\"]}", XC_E_EMPTY, "$.extra[0]: empty leaf" },
	{ "{\"extra\":[\"a=1\\u0000\"]}", XC_E_JSON, NULL },
	{ "{\"and\":[{\"extra\":[\"a=1\"]},{\"or\":[{\"extra\":[\"b=1\"]},{\"ranks\":[\"0\"]}]}]}",
	  XC_E_FLUX_NO_EQUIVALENT, "$.and[1].or[1]: 'ranks' has no --extra equivalent" },
	{ "{\"\\u0001op\":[]}", XC_E_FLUX_OPERATOR,
	  "$: unknown operator '\\x01op' (expected and, or, extra)" },
};

struct to_row {
	const char *request;
	const char *json;
};

static const struct to_row to_rows[] = {
	{ "(a=1&b=2)|c>=3.5",
	  "{\"or\":[{\"and\":[{\"extra\":[\"a=1\"]},{\"extra\":[\"b=2\"]}]},{\"extra\":[\"c>=3.5\"]}]}" },
	{ "a=1", "{\"extra\":[\"a=1\"]}" },
	{ "((((i=5))))", "{\"extra\":[\"i=5\"]}" },
	{ "( a=   b)", "{\"extra\":[\" a=   b\"]}" },
	{ "s=\"Hello\",t!=x", "{\"and\":[{\"extra\":[\"s=\\\"Hello\\\"\"]},{\"extra\":[\"t!=x\"]}]}" },
	{ "gpu=true&mem>=512", "{\"and\":[{\"extra\":[\"gpu=true\"]},{\"extra\":[\"mem>=512\"]}]}" },
};

#endif
