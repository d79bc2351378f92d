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
	/* Slurm's documentation, "examples of valid requests" */
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
	/* doc/language.md §1.1 to §1.4 */
	{ "s=Hello ", "s=Hello " },
	{ "s=\"Hello\"", "s=\"Hello\"" },
	{ "i=5&s=Hello,f>2", "i=5&s=Hello&f>2" },
	{ "((((i=5))))", "i=5" },
	{ "o/x=1", "o/x=1" },
	{ "o.x=1", "o.x=1" },
	{ "k{:~}=v.~{}:", "k{:~}=v.~{}:" },
	{ "gr\xc3\xb6\xc3\x9f"
	  "e=\xe2\x82\xac",
	  "gr\xc3\xb6\xc3\x9f"
	  "e=\xe2\x82\xac" },
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
	size_t offset, end; /* the offending token: [offset, end) */
	const char *message;
};

static const struct error_row error_rows[] = {
	/* Slurm's documentation, "examples of invalid requests" */
	{ "a,<=6", XC_E_NO_CMPOP, 1, 2,
	  "comparison operator expected after key 'a'" },
	{ "a<=6<=", XC_E_VALUE_CMPOP, 4, 6,
	  "unexpected '<=' in the value of key 'a' (one comparison per leaf)" },
	{ "a=5&&&b=5", XC_E_ITEM_EXPECTED, 4, 5,
	  "leaf or '(' expected after '&', found '&'" },
	{ "a=5|||b=5", XC_E_ITEM_EXPECTED, 4, 5,
	  "leaf or '(' expected after '|', found '|'" },
	{ "a====5", XC_E_BAD_CMPOP, 1, 5,
	  "invalid comparison operator '====' (use =, !=, >, >=, <, <=)" },
	{ "b<=<=5", XC_E_BAD_CMPOP, 1, 5,
	  "invalid comparison operator '<=<=' (use =, !=, >, >=, <, <=)" },
	{ "a=5&()", XC_E_ITEM_EXPECTED, 4, 6, "empty parentheses" },
	{ "a=5&b=5|c=5", XC_E_MIXED_BOOLOPS, 7, 8,
	  "cannot mix '&' and '|' in one group; add parentheses" },
	{ "(a=1)&(b=2)|(c=3)", XC_E_MIXED_BOOLOPS, 11, 12,
	  "cannot mix '&' and '|' in one group; add parentheses" },
	{ "a=1(b=2)", XC_E_BOOLOP_EXPECTED, 3, 4,
	  "'&', ',' or '|' expected before '('" },
	{ "(a=1)(b=2)", XC_E_BOOLOP_EXPECTED, 5, 6,
	  "'&', ',' or '|' expected before '('" },
	{ "(((a=1)b=2))", XC_E_BOOLOP_EXPECTED, 7, 8,
	  "'&', ',' or '|' expected before 'b=2'" },
	{ " (a=b)", XC_E_NO_CMPOP, 1, 2,
	  "comparison operator expected after key ' '" },
	{ "((c=0.00001)", XC_E_UNCLOSED_PAREN, 12, 12,
	  "')' expected (to close '(' at column 1) before the end of the request" },
	/* doc/language.md §1.1 */
	{ "i==5", XC_E_BAD_CMPOP, 1, 3,
	  "invalid comparison operator '==' (use =, !=, >, >=, <, <=)" },
	{ "i=!5", XC_E_BAD_CMPOP, 1, 3,
	  "invalid comparison operator '=!' (use =, !=, >, >=, <, <=)" },
	{ "i=>5", XC_E_BAD_CMPOP, 1, 3,
	  "invalid comparison operator '=>' (use =, !=, >, >=, <, <=)" },
	{ "i<>5", XC_E_BAD_CMPOP, 1, 3,
	  "invalid comparison operator '<>' (use =, !=, >, >=, <, <=)" },
	{ "i!5", XC_E_BAD_CMPOP, 1, 2,
	  "invalid comparison operator '!' (use =, !=, >, >=, <, <=)" },
	{ "=5", XC_E_EMPTY_KEY, 0, 1, "key expected before '='" },
	{ "i=", XC_E_EMPTY_VALUE, 2, 2, "value expected after 'i='" },
	{ "e=", XC_E_EMPTY_VALUE, 2, 2, "value expected after 'e='" },
	{ "a=b=c", XC_E_VALUE_CMPOP, 3, 4,
	  "unexpected '=' in the value of key 'a' (one comparison per leaf)" },
	{ "a=b!", XC_E_VALUE_CMPOP, 3, 4,
	  "unexpected '!' in the value of key 'a' (one comparison per leaf)" },
	{ "x=1>2", XC_E_VALUE_CMPOP, 3, 4,
	  "unexpected '>' in the value of key 'x' (one comparison per leaf)" },
	{ "x>=1<", XC_E_VALUE_CMPOP, 4, 5,
	  "unexpected '<' in the value of key 'x' (one comparison per leaf)" },
	{ "a!b=1", XC_E_BAD_CMPOP, 1, 2,
	  "invalid comparison operator '!' (use =, !=, >, >=, <, <=)" },
	/* 1.2 */
	{ "a=5&&b=5", XC_E_ITEM_EXPECTED, 4, 5,
	  "leaf or '(' expected after '&', found '&'" },
	{ "a=5,&b=5", XC_E_ITEM_EXPECTED, 4, 5,
	  "leaf or '(' expected after ',', found '&'" },
	/* 1.3 */
	{ "a=1,b=2|c=3", XC_E_MIXED_BOOLOPS, 7, 8,
	  "cannot mix ',' and '|' in one group; add parentheses" },
	{ "a=1|b=2,c=3", XC_E_MIXED_BOOLOPS, 7, 8,
	  "cannot mix '|' and ',' in one group; add parentheses" },
	{ "(a=1|b=2&c=3)", XC_E_MIXED_BOOLOPS, 8, 9,
	  "cannot mix '|' and '&' in one group; add parentheses" },
	/* 1.4 */
	{ "&i=5", XC_E_ITEM_EXPECTED, 0, 1, "leaf or '(' expected, found '&'" },
	{ "i=5&", XC_E_ITEM_EXPECTED, 4, 4,
	  "leaf or '(' expected after '&', found the end of the request" },
	{ "i=5|", XC_E_ITEM_EXPECTED, 4, 4,
	  "leaf or '(' expected after '|', found the end of the request" },
	{ "(i=5&)", XC_E_ITEM_EXPECTED, 5, 6,
	  "leaf or '(' expected after '&', found ')'" },
	{ "()", XC_E_ITEM_EXPECTED, 0, 2, "empty parentheses" },
	{ "i=5)", XC_E_UNMATCHED_PAREN, 3, 4, "unmatched ')'" },
	{ "(i=5))", XC_E_UNMATCHED_PAREN, 5, 6, "unmatched ')'" },
	{ "", XC_E_EMPTY, 0, 0, "empty request" },
	{ "(", XC_E_ITEM_EXPECTED, 1, 1,
	  "leaf or '(' expected, found the end of the request" },
	{ ")", XC_E_ITEM_EXPECTED, 0, 1, "leaf or '(' expected, found ')'" },
	{ "(a=1", XC_E_UNCLOSED_PAREN, 4, 4,
	  "')' expected (to close '(' at column 1) before the end of the request" },
	{ "a", XC_E_NO_CMPOP, 1, 1,
	  "comparison operator expected after key 'a'" },
	{ "a=1&b", XC_E_NO_CMPOP, 5, 5,
	  "comparison operator expected after key 'b'" },
	{ "gpu=true&mem>=512|x=1", XC_E_MIXED_BOOLOPS, 17, 18,
	  "cannot mix '&' and '|' in one group; add parentheses" },
	{ "a=1&|b=2", XC_E_ITEM_EXPECTED, 4, 5,
	  "leaf or '(' expected after '&', found '|'" },
	{ "(a=1)b", XC_E_BOOLOP_EXPECTED, 5, 6,
	  "'&', ',' or '|' expected before 'b'" },
};

#define DOC_NODE                                                               \
	"{ \"a\": 1.23, \"b\": true, \"c\": 0, \"foo\": \"bar\", \"zed\": 23 }"

struct eval_row {
	const char *extra; /* node Extra text; NULL for unset */
	const char *request;
	bool match;
};

static const struct eval_row eval_rows[] = {
	/* Slurm's documentation and doc/language.md §5: fulfilled */
	{ DOC_NODE, "a=1.23", true },
	{ DOC_NODE, "a!=1.24", true },
	{ DOC_NODE, "a!=1.23|foo!=blah", true },
	{ DOC_NODE, "b=200", true },
	{ DOC_NODE, "b=true", true },
	{ DOC_NODE, "foo<baz", true },
	{ DOC_NODE, "(c<=0.0001&a=1.25)|zed=23.0", true },
	{ DOC_NODE, "((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00000001)",
	  true },
	{ DOC_NODE, "((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=true|c>=0.1)", true },
	/* not fulfilled */
	{ DOC_NODE, "a=   b", false },
	{ DOC_NODE, "a!=1.23", false },
	{ DOC_NODE, "b=0", false },
	{ DOC_NODE, "b=false", false },
	{ DOC_NODE, "foo>baz", false },
	{ DOC_NODE, "c>=0.0001", false },
	{ DOC_NODE, "c=0.00001", false },
	{ DOC_NODE, "((c<=0.0001&a=1.25)|zed=23.0)&(a<1|b=false|c>=0.00001)",
	  false },
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
	/* doc/language.md §2: Extra that is not an object matches nothing */
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
	/* doc/language.md §3.1: glibc's scanf takes a dangling exponent, strtod does not */
	{ "{\"n\":21}", "n>1e", true },
	{ "{\"o\":0.00001}", "o<=1e", true },
	{ "{\"b\":0.0}", "b!=1e", true },
	{ "{\"n\":1}", "n=1E", true },
	{ "{\"n\":1}", "n=1e+", true },
	{ "{\"n\":1}", "n=1e-", true },
	{ "{\"n\":1.5}", "n=1.5e", true },
	{ "{\"n\":1}", "n=1.e", true },
	{ "{\"n\":1}", "n=0x1p", true },
	{ "{\"n\":1}", "n=0x1p+", true },
	{ "{\"n\":1}", "n!=1ee", false },
	{ "{\"n\":1.5}", "n!=1.5ex", false },
	{ "{\"n\":0}", "n!=0x.p1", false },
	{ "{\"b\":false}", "b=0e", true },
	{ "{\"b\":true}", "b=1e", true },
	/* doc/language.md §2: json-c's reading (not strict), as Slurm 23.11+ reads Extra */
	{ "{\"gpu\": true,}", "gpu=true", true },
	{ "{\"a\": [1,], \"gpu\": true}", "gpu=true", true },
	{ "{'gpu': 'yes'}", "gpu=yes", true },
	{ "{\"gpu\": true /* comment */}", "gpu=true", true },
	{ "{\"gpu\": /* c */ true}", "gpu=true", true },
	{ "{\"gpu\": true // comment\n}", "gpu=true", true },
	{ "{/**/\"gpu\": true}", "gpu=true", true },
	{ "{\"gpu\": True}", "gpu=true", true },
	{ "{\"gpu\": TRUE}", "gpu=true", true },
	{ "{\"gpu\": False}", "gpu=false", true },
	{ "{\"k\": Null}", "k!=x", false },
	{ "{\"n\": NaN}", "n>5", true },
	{ "{\"n\": NaN}", "n=5", false },
	{ "{\"n\": Infinity}", "n>1e308", true },
	{ "{\"n\": -INFINITY}", "n<-1e308", true },
	{ "{\"n\": infinity}", "n>1e308", true },
	{ "{\"n\": 007}", "n=7", true },
	{ "{\"n\": 010}", "n=10", true },
	{ "{\"n\": 1e}", "n=1", true },
	{ "{\"n\": 2.}", "n=2", true },
	{ "{\"s\": \"a\tb\"}", "s=a\tb", true },
	{ "{\"gpu\": true} trailing text", "gpu=true", true },
	{ "{\"gpu\": true}{\"gpu\": false}", "gpu=true", true },
	{ "{\"n\": 99999999999999999999}", "n=9223372036854775807", true },
	{ "{\"n\": -99999999999999999999}", "n=-9223372036854775808", true },
	{ "{\"n\": 1e400}", "n>1e308", true },
	{ "{\"n\": 1e400}", "n=inf",
	  false }, /* inf - inf is NaN: GT (doc/language.md §3.2) */
	{ "{\"n\": 1e-400}", "n=0", true },
	{ "{\"s\": \"\\ud800\"}", "s=\xef\xbf\xbd", true },
	{ "{\"s\": \"ab\\u0000cd\"}", "s=ab", true },
	{ "{\"k\\u0000x\": 1}", "k=1", true },
	{ "{\"k\": 1, \"k\": null}", "k!=x", false },
	/* 31 containers holding a scalar are read; 32 are not, under any key */
	{ "{\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]], \"gpu\": true}",
	  "gpu=true", true },
	{ "{\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]], \"gpu\": true}",
	  "gpu=true", false },
	/* ...what it refuses: the node then matches nothing */
	{ "{gpu: true}", "gpu=true", false },
	{ "{\"gpu\": true,, \"x\": 1}", "gpu=true", false },
	{ "{\"n\": .5, \"gpu\": true}", "gpu=true", false },
	{ "{\"n\": +1, \"gpu\": true}", "gpu=true", false },
	{ "{\"n\": 0x10, \"gpu\": true}", "gpu=true", false },
	{ "{\"n\": inf, \"gpu\": true}", "gpu=true", false },
	{ "{\"n\": -NaN, \"gpu\": true}", "gpu=true", false },
	{ "{\"gpu\": true # comment\n}", "gpu=true", false },
	{ "{/** doc **/\"gpu\": true}", "gpu=true", false },
	{ "\xef\xbb\xbf{\"gpu\": true}", "gpu=true", false },
	{ "\f{\"gpu\": true}", "gpu=true", false },
	{ "\v{\"gpu\": true}", "gpu=true", false },
	{ " \t\r\n{\"gpu\": true}", "gpu=true", true },
	{ "[{\"gpu\": true}]", "gpu=true", false },
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
	  XC_E_FLUX_NO_EQUIVALENT,
	  "$.or[0]: 'properties' has no --extra equivalent" },
	{ "{ \"or\": [{ \"properties\": [ \"foo\" ]}, { \"properties\": [ \"bar\" ]}] }",
	  XC_E_FLUX_NO_EQUIVALENT,
	  "$.or[0]: 'properties' has no --extra equivalent" },
	{ "{ \"hostlist\": [ \"host[0-1]\" ] }", XC_E_FLUX_NO_EQUIVALENT,
	  "$: 'hostlist' has no --extra equivalent" },
	{ "{ \"not\": [ { \"hostlist\": [ \"host[0-1]\" ] } ] }",
	  XC_E_FLUX_NO_EQUIVALENT, "$: 'not' has no --extra equivalent" },
	{ "{ \"and\": [ { \"hostlist\": [ \"host[0-1]\" ] }, { \"properties\": [ \"ssd\" ] } ] }",
	  XC_E_FLUX_NO_EQUIVALENT,
	  "$.and[0]: 'hostlist' has no --extra equivalent" },
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
	  XC_E_FLUX_OPERATOR,
	  "$: unknown operator 'states' (expected and, or, extra)" },
	{ "{ \"and\": [ { \"userid\": [ 42 ] }, { \"t_submit\": [ \">946713600.0\" ] } ] }",
	  XC_E_FLUX_OPERATOR,
	  "$.and[0]: unknown operator 'userid' (expected and, or, extra)" },
	{ "{ \"and\": [ { \"queue\": [ \"foobar\" ] }, { \"userid\": [ 42 ] } ] }",
	  XC_E_FLUX_OPERATOR,
	  "$.and[0]: unknown operator 'queue' (expected and, or, extra)" },
	{ "{ \"and\": [ { \"userid\": [ 42 ] }, { \"queue\": [ \"foobar\" ] } ] }",
	  XC_E_FLUX_OPERATOR,
	  "$.and[0]: unknown operator 'userid' (expected and, or, extra)" },
	{ "{ \"states\": [ \"run\" ] }", XC_E_FLUX_OPERATOR,
	  "$: unknown operator 'states' (expected and, or, extra)" },
	/* flux.md's example and the symbolic form */
	{ "{\"or\":[{\"and\":[{\"extra\":[\"a=1\"]},{\"extra\":[\"b=2\"]}]},{\"extra\":[\"c>=3.5\"]}]}",
	  XC_OK, "(a=1&b=2)|c>=3.5" },
	{ "{\"extra\":[\"a=1\"]}", XC_OK, "a=1" },
	{ "{\"extra\":[\"a=1\",\"b!=x\",\" c<= 2\"]}", XC_OK,
	  "a=1&b!=x& c<= 2" },
	{ "{\"and\":[{\"extra\":[\"a=1\",\"b=2\"]},{\"extra\":[\"c=3\"]}]}",
	  XC_OK, "(a=1&b=2)&c=3" },
	{ "{\"or\":[{\"extra\":[\"a=1\"]}]}", XC_OK, "a=1" },
	{ "{\"and\":[{\"or\":[{\"extra\":[\"t_submit>946713600.0\"]}]}]}",
	  XC_OK, "t_submit>946713600.0" },
	{ "{\"extra\":[\"s=\\\"Hello\\\"\"]}", XC_OK, "s=\"Hello\"" },
	/* shapes */
	{ "[1]", XC_E_FLUX_SHAPE,
	  "$: a constraint must be a JSON object like {\"extra\": [\"gpu=true\"]}" },
	{ "{\"and\":[1]}", XC_E_FLUX_SHAPE,
	  "$.and[0]: a constraint must be a JSON object like {\"extra\": [\"gpu=true\"]}" },
	{ "{\"extra\":[\"a=1\"],\"or\":[]}", XC_E_FLUX_SHAPE,
	  "$: a constraint has exactly one operator, found 2" },
	{ "{\"extra\":\"a=1\"}", XC_E_FLUX_SHAPE,
	  "$: the value of 'extra' must be an array" },
	{ "{\"extra\":[]}", XC_E_FLUX_SHAPE,
	  "$: 'extra' needs at least one leaf" },
	{ "{\"extra\":[1]}", XC_E_FLUX_SHAPE,
	  "$.extra[0]: a leaf must be a string like \"gpu=true\"" },
	{ "{\"or\":[{\"extra\":[\"a=1\"]},{\"extra\":[\"gpu\"]}]}",
	  XC_E_NO_CMPOP,
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
	  XC_E_FLUX_NO_EQUIVALENT,
	  "$.and[1].or[1]: 'ranks' has no --extra equivalent" },
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
	{ "s=\"Hello\",t!=x",
	  "{\"and\":[{\"extra\":[\"s=\\\"Hello\\\"\"]},{\"extra\":[\"t!=x\"]}]}" },
	{ "gpu=true&mem>=512",
	  "{\"and\":[{\"extra\":[\"gpu=true\"]},{\"extra\":[\"mem>=512\"]}]}" },
};

/* ------------------------------------------ RFC 46 shapes (test_shape) */

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
	xc_errcode_t code;
	size_t offset, end;
	const char *message;
};

static const struct shape_error_row shape_error_rows[] = {
	{ "", XC_E_EMPTY, 0, 0, "the shape is empty" },
	/* grammar */
	{ "slot", XC_E_SHAPE_SYNTAX, 4, 4,
	  "'/' and what the slot holds (RFC 14: a slot holds resources) expected, not the end" },
	{ "node/", XC_E_SHAPE_SYNTAX, 5, 5,
	  "a resource type expected, not the end" },
	{ "slot/node;core", XC_E_SHAPE_SYNTAX, 9, 10,
	  "the end ('[a;b]' holds several resources) expected, not ';'" },
	{ "slot/[node;core", XC_E_SHAPE_SYNTAX, 15, 15,
	  "';' or ']' expected (to close '[' at column 6), not the end" },
	{ "node/[slot{a}/[core;gpu]", XC_E_SHAPE_SYNTAX, 24, 24,
	  "';' or ']' expected (to close '[' at column 6), not the end" },
	/* a blank after a word in braces: flux-core's parser keeps it */
	{ "node{a b}", XC_E_SHAPE_SYNTAX, 6, 7,
	  "a blank after 'a' inside braces: quote the word or drop the blank (flux-core's shape parser keeps it in the word)" },
	{ "node{x }", XC_E_SHAPE_SYNTAX, 6, 7,
	  "a blank after 'x' inside braces: quote the word or drop the blank (flux-core's shape parser keeps it in the word)" },
	{ "slot{t }/core", XC_E_SHAPE_SYNTAX, 6, 7,
	  "a blank after 't' inside braces: quote the word or drop the blank (flux-core's shape parser keeps it in the word)" },
	/* the end inside brackets names the one to close */
	{ "node{", XC_E_SHAPE_SYNTAX, 5, 5,
	  "a key expected (to close '{' at column 5), not the end" },
	{ "node{a:[1,", XC_E_SHAPE_SYNTAX, 10, 10,
	  "a value expected (to close '[' at column 8), not the end" },
	{ "[node;", XC_E_SHAPE_SYNTAX, 6, 6,
	  "a resource type expected (to close '[' at column 1), not the end" },
	{ "node=[", XC_E_SHAPE_SYNTAX, 6, 6,
	  "a count (N, an idset such as 4,9 or a range such as 2+ or 3-30) expected (to close '[' at column 6), not the end" },
	{ "slot{", XC_E_SHAPE_SYNTAX, 5, 5,
	  "the slot's label or '}' expected (to close '{' at column 5), not the end" },
	{ "slot=2{", XC_E_SHAPE_SYNTAX, 7, 7,
	  "the slot's label or '}' expected (to close '{' at column 7), not the end" },
	{ "slot{a:", XC_E_SHAPE_LABEL, 5, 7,
	  "a slot's braces start with its label alone: slot{LABEL,key:value}" },
	{ "slot{a/core", XC_E_SHAPE_SYNTAX, 6, 7,
	  "',' or '}' after the label expected (to close '{' at column 5), not '/'" },
	{ "node{a,}", XC_E_SHAPE_SYNTAX, 7, 8, "a key expected, not '}'" },
	{ "slot{a,}/core", XC_E_SHAPE_SYNTAX, 7, 8, "a key expected, not '}'" },
	{ "node=", XC_E_SHAPE_SYNTAX, 5, 5,
	  "a count (N, an idset such as 4,9 or a range such as 2+ or 3-30) expected, not the end" },
	{ "node=x", XC_E_SHAPE_SYNTAX, 5, 6,
	  "a count (N, an idset such as 4,9 or a range such as 2+ or 3-30) expected, not 'x'" },
	{ "slot=[2-4/node", XC_E_SHAPE_SYNTAX, 9, 10,
	  "']' after the count expected (to close '[' at column 6), not '/'" },
	{ "node{a:[1 2]}", XC_E_SHAPE_SYNTAX, 9, 10,
	  "a blank after '1' inside braces: quote the word or drop the blank (flux-core's shape parser keeps it in the word)" },
	{ "node{a:[1,2\"x\"]}", XC_E_SHAPE_SYNTAX, 11, 12,
	  "',' or ']' expected (to close '[' at column 8), not '\"'" },
	{ "node{a:{b:1\"c\"}}", XC_E_SHAPE_SYNTAX, 11, 12,
	  "',' or '}' expected (to close '{' at column 8), not '\"'" },
	{ "node{a:}", XC_E_SHAPE_SYNTAX, 7, 8, "a value expected, not '}'" },
	{ "node{+a:1}", XC_E_SHAPE_SYNTAX, 7, 8,
	  "',' or '}' expected (to close '{' at column 5), not ':'" },
	{ "node core", XC_E_SHAPE_SYNTAX, 5, 6,
	  "the end expected, not 'core'" },
	{ "node{a:'b}", XC_E_SHAPE_VALUE, 7, 10,
	  "a string with no closing \"'\"" },
	/* counts */
	{ "slot=0/node", XC_E_SHAPE_COUNT, 5, 6,
	  "counts start at 1 and have no leading zero" },
	{ "slot=01/node", XC_E_SHAPE_COUNT, 5, 7,
	  "counts start at 1 and have no leading zero" },
	{ "slot=4,3/node", XC_E_SHAPE_COUNT, 7, 8,
	  "an idset's ids go up, each once (RFC 22)" },
	{ "node=1,1", XC_E_SHAPE_COUNT, 7, 8,
	  "an idset's ids go up, each once (RFC 22)" },
	{ "node=5-3,9", XC_E_SHAPE_COUNT, 7, 10,
	  "an idset range goes up (RFC 22)" },
	{ "node=1,", XC_E_SHAPE_COUNT, 6, 7, "an id expected after ','" },
	{ "slot=3-2/node", XC_E_SHAPE_COUNT, 7, 8,
	  "a range's maximum is below its minimum" },
	{ "slot=3:2/node", XC_E_SHAPE_COUNT, 6, 8,
	  "'+' or '-MAX' expected after a range's minimum (RFC 45)" },
	{ "slot=2+:2:%/node", XC_E_SHAPE_COUNT, 10, 11,
	  "an operator expected: +, * or ^ (RFC 45)" },
	{ "slot=2+:2:*:/node", XC_E_SHAPE_COUNT, 11, 12,
	  "the end of the count expected" },
	{ "slot=99999999999999999999/core", XC_E_SHAPE_COUNT, 5, 25,
	  "a number too large" },
	/* RFC 45 ranges Flux refuses (flux-core's libjob/count.c) */
	{ "node=2-8:1:*", XC_E_SHAPE_COUNT, 5, 12,
	  "'*' and '^' need an operand of at least 2 (RFC 45)" },
	{ "slot=2+:1:*/core", XC_E_SHAPE_COUNT, 5, 11,
	  "'*' and '^' need an operand of at least 2 (RFC 45)" },
	{ "node=1-9:2:^", XC_E_SHAPE_COUNT, 5, 12,
	  "'^' needs a minimum of at least 2 (RFC 45)" },
	/* labels */
	{ "slot{-x}/node", XC_E_SHAPE_LABEL, 5, 7,
	  "a slot's braces start with its label: slot{LABEL,-x}" },
	{ "slot{a:1}/node", XC_E_SHAPE_LABEL, 5, 7,
	  "a slot's braces start with its label alone: slot{LABEL,key:value}" },
	{ "[slot/node;slot/core]", XC_E_SHAPE_LABEL, 1, 5,
	  "a slot without a label: with 2 slots, each has one (slot{LABEL})" },
	{ "[slot{a}/node;slot{a}/core]", XC_E_SHAPE_LABEL, 19, 20,
	  "label 'a' is used twice (RFC 14: labels are unique)" },
	{ "node{label:a}/slot{a}/core", XC_E_SHAPE_LABEL, 19, 20,
	  "label 'a' is used twice (RFC 14: labels are unique)" },
	{ "node{label:default}/slot/core", XC_E_SHAPE_LABEL, 20, 24,
	  "the slot without a label is 'default', a label used elsewhere (RFC 14: labels are unique)" },
	{ "[slot  /core;node{label:default}]", XC_E_SHAPE_LABEL, 1, 5,
	  "the slot without a label is 'default', a label used elsewhere (RFC 14: labels are unique)" },
	/* keys */
	{ "node{count:3}", XC_E_SHAPE_KEY, 5, 10,
	  "'count' cannot be a key here: the count is written after '='" },
	{ "node{type:a}", XC_E_SHAPE_KEY, 5, 9,
	  "'type' cannot be a key here: the type comes first" },
	{ "node{with:[]}", XC_E_SHAPE_KEY, 5, 9,
	  "'with' cannot be a key here: what a resource holds is written after '/'" },
	{ "node{x,x}", XC_E_SHAPE_KEY, 7, 8, "'exclusive' is given twice" },
	{ "slot{lab,label:z}/core", XC_E_SHAPE_KEY, 9, 14,
	  "a slot's label is the first entry in its braces: slot{LABEL,...}" },
	/* values */
	{ "\"\"", XC_E_SHAPE_VALUE, 0, 2,
	  "a resource type is a non-empty string (RFC 14)" },
	{ "node/\"\"=2", XC_E_SHAPE_VALUE, 5, 7,
	  "a resource type is a non-empty string (RFC 14)" },
	{ "node{exclusive:5}", XC_E_SHAPE_VALUE, 5, 16,
	  "exclusive is true or false (RFC 14)" },
	{ "node{label:5}", XC_E_SHAPE_VALUE, 5, 12,
	  "a label is a string (RFC 14)" },
	{ "node{a:\"b}", XC_E_SHAPE_VALUE, 7, 10,
	  "a string with no closing '\"'" },
	{ "node{a:\"\\q\"}", XC_E_SHAPE_VALUE, 8, 10,
	  "not a JSON escape: \\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\uXXXX expected" },
	{ "node{a:\"\\u12\"}", XC_E_SHAPE_VALUE, 8, 10,
	  "not a JSON escape: \\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\uXXXX expected" },
	{ "node{a:\"\\ud800x\"}", XC_E_SHAPE_VALUE, 8, 14,
	  "a lone UTF-16 surrogate" },
	{ "node{a:\"\\u0000\"}", XC_E_SHAPE_VALUE, 8, 14,
	  "\\u0000: a string here cannot hold a NUL" },
	{ "node{a:\"\t\"}", XC_E_SHAPE_VALUE, 8, 9,
	  "a control byte in a JSON string: write it as \\u0009" },
	{ "node{a:1e999}", XC_E_SHAPE_VALUE, 7, 12,
	  "not a JSON value: real number overflow near '1e999'" },
	{ "node{\xff:1}", XC_E_NOT_UTF8, 5, 6,
	  "not UTF-8: a JSON string cannot hold it" },
};

#endif
