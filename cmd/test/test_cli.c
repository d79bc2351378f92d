/*
 * test_cli.c - the slurm-extra command run as a user would: exit status
 * and output of check, eval (--node-extra, --nodes, --batch), explain,
 * to-flux, from-flux, why and prolog-slurmctld by hand, option errors,
 * --node-extra's old spelling, bash completion and --version.  jobspec
 * is test_cli_jobspec.c's: one test program.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "table.h"
#include "leakcheck.h"
#include "cli_fixture.h"

LEAK_CHECKED(cli);

/* Nodes x01, x02, x3, x10 (k=v) and x4 (unset), in no order. */
#define PADDED                                                                 \
	"{\"x3\":{\"k\":\"v\"},\"x10\":{\"k\":\"v\"},\"x4\":null,"             \
	"\"x02\":{\"k\":\"v\"},\"x01\":{\"k\":\"v\"}}"

static const struct
	cli_row
		cli_rows
			[] = {
				{ "check 'i=5&s=Hello,f>2'", NULL, 0,
				  "i=5&s=Hello&f>2\n" },
				{ "check '((((i=5))))'", NULL, 0, "i=5\n" },
				{ "check 'a=5&b=5|c=5'", NULL, 2,
				  "slurm-extra: error: cannot mix '&' and '|' in one group; add parentheses (column 8)\n"
				  "  a=5&b=5|c=5\n"
				  "         ^\n" },
				{ "check ''", NULL, 2,
				  "slurm-extra: error: empty request (column 1)\n  \n  ^\n" },
				{ "check --max-length 1 a=1", NULL, 2,
				  "slurm-extra: error: request is 3 bytes, longer than the limit of 1 (column 2)\n"
				  "  a=1\n"
				  "   ^\n" },
				{ "check --max-length 0 a=1", NULL, 2,
				  "slurm-extra: --max-length: a number from 1 to 16777216 expected\n" },
				{ "check --max-length 4 'a=12'", NULL, 0,
				  "a=12\n" },
				{ "check --max-length 4 'a=123'", NULL, 2,
				  "slurm-extra: error: request is 5 bytes, longer than the limit of 4 (column 5)\n"
				  "  a=123\n"
				  "      ^\n" },
				{ "check --max-depth 1 '(a=1)'", NULL, 0,
				  "a=1\n" },
				{ "check --max-depth 1 '((a=1))'", NULL, 2,
				  "slurm-extra: error: parentheses nested deeper than the limit of 1 (column 2)\n"
				  "  ((a=1))\n"
				  "   ^\n" },
				{ "check --max-depth 1024 a=1", NULL, 0,
				  "a=1\n" },
				{ "check --max-depth 1025 a=1", NULL, 2,
				  "slurm-extra: --max-depth: a number from 1 to 1024 expected\n" },
				{ "check --max-depth 0 a=1", NULL, 2,
				  "slurm-extra: --max-depth: a number from 1 to 1024 expected\n" },
				{ "check --max-length 16777217 a=1", NULL, 2,
				  "slurm-extra: --max-length: a number from 1 to 16777216 expected\n" },
				{ "check --max-length -5 a=1", NULL, 2,
				  "slurm-extra: --max-length: a number from 1 to 16777216 expected\n" },
				{ "check", NULL, 2,
				  "slurm-extra: check needs a REQUEST\n" USAGE },
				{ "frobnicate 'a=1'", NULL, 2,
				  "slurm-extra: unknown command 'frobnicate'\n" USAGE },
				/* without a request too: the command first, not "needs a REQUEST" */
				{ "frobnicate", NULL, 2,
				  "slurm-extra: unknown command 'frobnicate'\n" USAGE },
				{ "frobnicate --nodes x", NULL, 2,
				  "slurm-extra: unknown command 'frobnicate'\n" USAGE },
				{ "check a=1 b=2", NULL, 2,
				  "slurm-extra: unexpected argument 'b=2' (quote the request)\n" },
				/* doctor reads the live cluster (tests/cluster/e2e-cluster.sh): here only
	 * its usage error */
				{ "doctor a=1", NULL, 2,
				  "slurm-extra: doctor takes no REQUEST ('a=1')\n" },
				/* facts: its usage errors and a missing site directory */
				{ "facts a=1", NULL, 2,
				  "slurm-extra: facts takes no REQUEST ('a=1')\n" },
				{ "facts --timeout 0", NULL, 2,
				  "slurm-extra: --timeout: a number of seconds from 1 to 3600 expected\n" },
				{ "facts --timeout 5s", NULL, 2,
				  "slurm-extra: --timeout: a number of seconds from 1 to 3600 expected\n" },
				{ "facts --dir /nonexistent/xc-facts", NULL, 2,
				  "slurm-extra: site directory /nonexistent/xc-facts: No such file or directory; nothing printed\n" },
				{ "facts --publish --dir /nonexistent/xc-facts --node n1",
				  NULL, 2,
				  "slurm-extra: site directory /nonexistent/xc-facts: No such file or directory; nothing published: the node's Extra is left as it is\n" },
				{ "eval 'gpu=true&mem>=512' --node-extra '{\"gpu\":true,\"mem\":1024}'",
				  NULL, 0, "match\n" },
				{ "eval 'gpu=true&mem>=512' --node-extra '{\"gpu\":true,\"mem\":256}'",
				  NULL, 1, "no match\n" },
				{ "eval 'k!=x' --node-extra '[1]'", NULL, 1,
				  "slurm-extra: note: node Extra is JSON but not an object: no request matches it\nno match\n" },
				{ "eval 'a=1|' --node-extra '{}'", NULL, 2,
				  "slurm-extra: error: leaf or '(' expected after '|', found the end of the request (column 5)\n"
				  "  a=1|\n"
				  "      ^\n" },
				/* node Extra is read as Slurm reads it: json-c, not strict (doc/language.md §2) */
				{ "eval 'gpu=true' --node-extra '{\"gpu\": True, /* json-c */}'",
				  NULL, 0, "match\n" },
				{ "eval 'n=7' --node-extra \"{'n': 007} trailing\"",
				  NULL, 0, "match\n" },
				{ "eval 'gpu=true' --node-extra '{gpu: true}'",
				  NULL, 1,
				  "slurm-extra: note: node Extra is not valid JSON: no request matches it\nno match\n" },
				{ "eval 'a=1'", NULL, 2,
				  "slurm-extra: eval needs one of --node-extra, --nodes, --slurm\n" },
				{ "eval 'gpu=true&mem>=512' --nodes " EXAMPLES_DIR
				  "/nodes.json",
				  NULL, 0, "n[1,4]\n" },
				{ "eval 'arch=aarch64|ssd=nvme' --nodes -",
				  "{\"n3\":\"{\\\"arch\\\":\\\"aarch64\\\"}\",\"n4\":{\"ssd\":\"nvme\"},"
				  "\"n5\":null,\"n6\":\"{broken\"}",
				  0, "n[3-4]\n" },
				{ "eval 'gpu=true&mem>4096' --nodes " EXAMPLES_DIR
				  "/nodes.json",
				  NULL, 1,
				  "slurm-extra: no node satisfies the request (4 checked)\n" },
				{ "eval 'a=1' --nodes -", "[1]", 2,
				  "slurm-extra: -: expected a JSON object mapping node names to Extra\n" },
				{ "eval 'a=1' --nodes -", "{\"n1\": 5}", 2,
				  "slurm-extra: -: node 'n1': Extra must be an object, a string or null\n" },
				{ "eval 'a=1' --nodes /nonexistent/nodes.json",
				  NULL, 2,
				  "slurm-extra: error: cannot read /nonexistent/nodes.json: unable to open /nonexistent/nodes.json: No such file or directory\n" },
				{ "eval 'a=1' --nodes -", "{\"n1\": ", 2,
				  "slurm-extra: error: - is not valid JSON: unexpected token near end of file (line 1, column 7)\n" },
				{ "eval --batch",
				  "{\"extra\": \"{\\\"a\\\": 1}\", \"expr\": \"a=1\"}\n"
				  "{\"extra\": null, \"expr\": \"a!=1\"}\n"
				  "{\"extra\": \"{\\\"b\\\": true}\", \"expr\": \"b=200\"}\n"
				  "{\"extra\": \"not json\", \"expr\": \"b!=0\"}\n"
				  "{\"extra\": \"{}\", \"expr\": \"a=5&b=5|c=5\"}\n"
				  "not json at all\n"
				  "{\"extra\": \"{}\"}\n",
				  0,
				  "{\"result\":\"match\"}\n"
				  "{\"result\":\"nomatch\"}\n"
				  "{\"result\":\"match\"}\n"
				  "{\"result\":\"nomatch\"}\n"
				  "{\"result\":\"error\",\"code\":\"mixed-boolops\",\"offset\":7,\"end\":8,"
				  "\"message\":\"cannot mix '&' and '|' in one group; add parentheses\"}\n"
				  "{\"result\":\"error\",\"code\":\"json\",\"offset\":3,\"message\":\"'[' or '{' expected near 'not'\"}\n"
				  "{\"result\":\"error\",\"code\":\"json\",\"offset\":0,\"message\":\"expected {\\\"extra\\\": ..., \\\"expr\\\": \\\"...\\\"}\"}\n" },
				{ "explain 'foo<baz|zed=23.0' --node-extra '{ \"foo\": \"bar\", \"zed\": 23 }'",
				  NULL, 0,
				  "OR: match\n"
				  "  foo<baz: match (node value \"bar\" is a string; \"bar\" < \"baz\" (byte order))\n"
				  "  zed=23.0: match (node value 23 is a number; 23 = 23.0 (within 0.00001))\n"
				  "result: match\n" },
				{ "explain 'x=1' --node-extra '{}'", NULL, 1,
				  "x=1: no match (no key 'x' in the node's Extra)\nresult: no match\n" },
				{ "explain 'x=1'", NULL, 2,
				  "slurm-extra: explain needs --node-extra JSON\n" },
				/* --extra is a request, as sbatch's: without a REQUEST argument,
	 * eval's and explain's; with one and --node-extra too, the request
	 * twice; with one alone, the old --extra JSON (node_extra_spellings) */
				{ "eval --extra 'gpu=true&mem>=512' --node-extra '{\"gpu\":true,\"mem\":1024}'",
				  NULL, 0, "match\n" },
				{ "eval --extra 'gpu=true' --nodes " EXAMPLES_DIR
				  "/nodes.json",
				  NULL, 0, "n[1,3-4]\n" },
				{ "explain --node-extra '{}' --extra 'x=1'",
				  NULL, 1,
				  "x=1: no match (no key 'x' in the node's Extra)\nresult: no match\n" },
				{ "eval 'a=1' --extra 'b=2' --node-extra '{}'",
				  NULL, 2,
				  "slurm-extra: eval takes one request: REQUEST 'a=1' or --extra 'b=2', not both (the node's Extra goes with --node-extra)\n" },
				{ "explain 'a=1' --extra '{\"a\":1}' --node-extra '{}'",
				  NULL, 2,
				  "slurm-extra: explain takes one request: REQUEST 'a=1' or --extra '{\"a\":1}', not both (the node's Extra goes with --node-extra)\n" },
				{ "eval --extra '{\"a\":1}'", NULL, 2,
				  "slurm-extra: eval needs one of --node-extra, --nodes, --slurm (--extra gave the REQUEST)\n" },
				{ "explain --extra 'a=1'", NULL, 2,
				  "slurm-extra: explain needs --node-extra JSON (--extra gave the REQUEST)\n" },
				{ "eval 'a=1' --extra '{}' --nodes x.json",
				  NULL, 2,
				  "slurm-extra: note: eval REQUEST --extra JSON is now eval REQUEST --node-extra JSON (--extra is a request, as sbatch's)\n"
				  "slurm-extra: eval needs one of --node-extra, --nodes, --slurm\n" },
				{ "eval --batch --extra 'a=1'",
				  "{\"extra\": null, \"expr\": \"a!=1\"}\n", 0,
				  "{\"result\":\"nomatch\"}\n" },
				{ "--help", NULL, 0, USAGE },
				/* Flux: symbolic and resolved forms, jobspecs, and back */
				{ "to-flux '(a=1&b=2)|c>=3.5'", NULL, 0, "{\"or\":[{\"and\":[{\"extra\":[\"a=1\"]},{\"extra\":[\"b=2\"]}]},{\"extra\":[\"c>=3.5\"]}]}\n" },
				{ "to-flux 'a=1|'", NULL, 2,
				  "slurm-extra: error: leaf or '(' expected after '|', found the end of the request (column 5)\n"
				  "  a=1|\n"
				  "      ^\n" },
				{ "to-flux 'gpu=true&mem>=512' --resolve --nodes " EXAMPLES_DIR
				  "/nodes.json",
				  NULL, 0, "{\"hostlist\":[\"n[1,4]\"]}\n" },
				{ "to-flux 'gpu=true&mem>4096' --resolve --nodes " EXAMPLES_DIR
				  "/nodes.json",
				  NULL, 1,
				  "slurm-extra: no node satisfies the request (4 checked)\n" },
				{ "to-flux a=1 --resolve", NULL, 2,
				  "slurm-extra: --resolve needs one of --nodes, --slurm\n" },
				{ "to-flux a=1 --nodes x.json", NULL, 2,
				  "slurm-extra: --nodes, --slurm and --within go with --resolve\n" },
				{ "to-flux 'k=v' --resolve --nodes -",
				  "{\"n01\":{\"k\":\"v\"},\"n02\":{\"k\":\"v\"},\"n3\":{\"k\":\"v\"},\"n4\":{}}",
				  0, "{\"hostlist\":[\"n[01-02],n3\"]}\n" },
				/* One hostlist style for every output: in node order, compressed,
	 * a zero-padded number only in a bracket of its width. */
				{ "eval 'k=v' --nodes -", PADDED, 0,
				  "x[01-02],x[3,10]\n" },
				{ "to-flux 'k=v' --resolve --nodes -", PADDED,
				  0,
				  "{\"hostlist\":[\"x[01-02],x[3,10]\"]}\n" },
				{ "eval 'k=v' --nodes -",
				  "{\"b 1\":{\"k\":\"v\"}}", 2,
				  "slurm-extra: error: node name 'b 1' cannot be written in a hostlist\n" },
				/* --within: only the nodes of a hostlist count */
				{ "eval 'gpu=true' --nodes " EXAMPLES_DIR
				  "/nodes.json --within 'n[1-2]'",
				  NULL, 0, "n1\n" },
				{ "eval 'gpu=true' --nodes " EXAMPLES_DIR
				  "/nodes.json --within n2",
				  NULL, 1,
				  "slurm-extra: no node satisfies the request (1 checked within --within; 3 outside it do)\n" },
				{ "eval 'gpu=true' --nodes " EXAMPLES_DIR
				  "/nodes.json --within 'x[1-9]'",
				  NULL, 1,
				  "slurm-extra: no node satisfies the request: --within names none of the 4 nodes (3 of them do)\n" },
				{ "eval 'k=v' --nodes - --within 'x[01-02,10],y7'",
				  PADDED, 0, "x[01-02,10]\n" },
				{ "eval 'k=v' --nodes - --within x01 -v",
				  PADDED, 0,
				  "slurm-extra: node x4: Extra is unset\n"
				  "slurm-extra: 1 of 1 nodes within --within match\nx01\n" },
				{ "eval 'gpu=true' --nodes " EXAMPLES_DIR
				  "/nodes.json --within -",
				  "n1\nn4\n\n", 0, "n[1,4]\n" },
				{ "to-flux 'gpu=true' --resolve --nodes " EXAMPLES_DIR
				  "/nodes.json --within -",
				  "n[1-3]\n", 0,
				  "{\"hostlist\":[\"n[1,3]\"]}\n" },
				{ "to-flux 'gpu=true' --resolve --nodes " EXAMPLES_DIR
				  "/nodes.json --within n2",
				  NULL, 1,
				  "slurm-extra: no node satisfies the request (1 checked within --within; 3 outside it do)\n" },
				{ "eval 'k=v' --nodes - --within -", PADDED, 2,
				  "slurm-extra: --within - and --nodes - cannot both read standard input\n" },
				{ "eval 'gpu=true' --nodes " EXAMPLES_DIR
				  "/nodes.json --within ''",
				  NULL, 2,
				  "slurm-extra: --within: an empty hostlist\n" },
				{ "eval 'a=1' --node-extra '{}' --within n1",
				  NULL, 2,
				  "slurm-extra: --within goes with --nodes or --slurm\n" },
				{ "to-flux 'a=1' --within n1", NULL, 2,
				  "slurm-extra: --nodes, --slurm and --within go with --resolve\n" },
				/* why: each part of the request, how many nodes satisfy it, and
	 * why the others do not */
				{ "why 'gpu=true&mem>=4096&(arch=x86_64|arch=aarch64)' --nodes " EXAMPLES_DIR
				  "/nodes.json",
				  NULL, 1,
				  "request: gpu=true&mem>=4096&(arch=x86_64|arch=aarch64)\n"
				  "0 of 4 nodes satisfy it.\n"
				  "  gpu=true                       3 of 4 nodes   (n2: false)\n"
				  "  mem>=4096                      0 of 4 nodes   (n1: 1024, n2: 2048, n3: 256, n4: 512; largest 2048)\n"
				  "  (arch=x86_64|arch=aarch64)     4 of 4 nodes\n"
				  "closest: n[1,3-4] (only mem>=4096 fails)\n" },
				{ "why 'rack<2&(ssd=nvme|mem<300)' --nodes " EXAMPLES_DIR
				  "/nodes.json",
				  NULL, 1,
				  "request: rack<2&(ssd=nvme|mem<300)\n"
				  "0 of 4 nodes satisfy it.\n"
				  "  rack<2                         2 of 4 nodes   (n3: 2, n4: 2; smallest 2)\n"
				  "  (ssd=nvme|mem<300)             2 of 4 nodes   (fails on n[1-2])\n"
				  "closest: n[1-2] (only (ssd=nvme|mem<300) fails)\n"
				  "         n[3-4] (only rack<2 fails)\n" },
				{ "why 'gpu=true&ssd=nvme&mem>=abc' --nodes " EXAMPLES_DIR
				  "/nodes.json",
				  NULL, 1,
				  "request: gpu=true&ssd=nvme&mem>=abc\n"
				  "0 of 4 nodes satisfy it.\n"
				  "  gpu=true                       3 of 4 nodes   (n2: false)\n"
				  "  ssd=nvme                       1 of 4 nodes   (no key 'ssd': n[1-3])\n"
				  "  mem>=abc                       0 of 4 nodes   ('abc' is not a number: n[1-4])\n"
				  "closest: n4 (only mem>=abc fails)\n" },
				{ "why a=1 --nodes -",
				  "{\"n1\":null,\"n2\":\"{bad\",\"n3\":{\"a\":[1]},\"n4\":{\"a\":2},\"n5\":{\"a\":1}}",
				  0,
				  "request: a=1\n"
				  "1 of 5 nodes satisfy it: n5\n"
				  "  a=1                            1 of 5 nodes   (n4: 2; value is null, an object or an array: n3; Extra unset or not a JSON object: n[1-2])\n" },
				{ "why 'gpu=true&mem>=512' --nodes " EXAMPLES_DIR
				  "/nodes.json --within 'n[2-4]' --json",
				  NULL, 0,
				  "{\"request\":\"gpu=true&mem>=512\",\"nodes\":3,\"satisfy\":1,\"satisfying\":\"n4\","
				  "\"items\":[{\"item\":\"gpu=true\",\"satisfy\":2,\"ruled_out\":[{\"why\":\"false\",\"count\":1,\"nodes\":\"n2\",\"values\":{\"n2\":false}}]},"
				  "{\"item\":\"mem>=512\",\"satisfy\":2,\"ruled_out\":[{\"why\":\"false\",\"count\":1,\"nodes\":\"n3\",\"values\":{\"n3\":256},\"largest\":256}]}],"
				  "\"closest\":{\"fail\":1,\"sets\":[{\"nodes\":\"n2\",\"count\":1,\"failing\":[\"gpu=true\"]},"
				  "{\"nodes\":\"n3\",\"count\":1,\"failing\":[\"mem>=512\"]}],\"more\":false}}\n" },
				{ "why 'a=1' --extra '{}'", NULL, 2,
				  "slurm-extra: why needs one of --nodes, --slurm, --job\n" },
				{ "why --job 5 --nodes x.json", NULL, 2,
				  "slurm-extra: why --job reads the job's request, preferences and nodes: no REQUEST, --nodes, --within or --extra-prefer\n" },
				{ "why --job 5 --extra-prefer b=1", NULL, 2,
				  "slurm-extra: why --job reads the job's request, preferences and nodes: no REQUEST, --nodes, --within or --extra-prefer\n" },
				{ "why --job x7", NULL, 2,
				  "slurm-extra: --job: a job id expected, not 'x7'\n" },
				{ "why 'a=1|' --nodes " EXAMPLES_DIR
				  "/nodes.json",
				  NULL, 2,
				  "slurm-extra: error: leaf or '(' expected after '|', found the end of the request (column 5)\n"
				  "  a=1|\n"
				  "      ^\n" },
				/* --json on every command that prints results; --version */
				{ "check --json 'a=1,b=2'", NULL, 0,
				  "{\"valid\":true,\"request\":\"a=1&b=2\"}\n" },
				{ "check --json 'a=1|b=2&c=3'", NULL, 2,
				  "{\"valid\":false,\"error\":{\"code\":\"mixed-boolops\",\"offset\":7,\"end\":8,"
				  "\"message\":\"cannot mix '|' and '&' in one group; add parentheses\"}}\n" },
				{ "eval --json 'gpu=true' --nodes " EXAMPLES_DIR
				  "/nodes.json",
				  NULL, 0,
				  "{\"satisfy\":3,\"nodes\":4,\"hostlist\":\"n[1,3-4]\"}\n" },
				{ "eval --json 'gpu=true&mem>4096' --nodes " EXAMPLES_DIR
				  "/nodes.json",
				  NULL, 1,
				  "slurm-extra: no node satisfies the request (4 checked)\n"
				  "{\"satisfy\":0,\"nodes\":4,\"hostlist\":\"\"}\n" },
				{ "eval --json 'gpu=true' --node-extra '{\"gpu\":1}'",
				  NULL, 1, "{\"result\":\"nomatch\"}\n" },
				{ "explain --json 'a=1|(b>2&c=x)' --node-extra '{\"a\":2,\"b\":3,\"c\":null}'",
				  NULL, 1,
				  "{\"result\":\"nomatch\",\"tree\":{\"group\":\"or\",\"result\":false,\"items\":["
				  "{\"leaf\":\"a=1\",\"result\":false,\"outcome\":\"false\",\"why\":\"node value 2 is a number; 2 > 1\"},"
				  "{\"group\":\"and\",\"result\":false,\"items\":["
				  "{\"leaf\":\"b>2\",\"result\":true,\"outcome\":\"holds\",\"why\":\"node value 3 is a number; 3 > 2\"},"
				  "{\"leaf\":\"c=x\",\"result\":false,\"outcome\":\"not-comparable\",\"why\":\"node value null is null; only strings, numbers and booleans compare\"}]}]}}\n" },
				{ "explain --json 'a=1' --node-extra nope",
				  NULL, 1,
				  "slurm-extra: note: node Extra is not valid JSON: no request matches it\n"
				  "{\"result\":\"nomatch\",\"why\":\"node Extra is not a JSON object: no request matches it\"}\n" },
				{ "to-flux 'a=1' --jobspec", NULL, 0,
				  "{\"attributes\":{\"system\":{\"constraints\":{\"extra\":[\"a=1\"]}}}}\n" },
				{ "to-flux 'gpu=true&mem>=512' --resolve --nodes " EXAMPLES_DIR
				  "/nodes.json --jobspec",
				  NULL, 0,
				  "{\"attributes\":{\"system\":{\"constraints\":{\"hostlist\":[\"n[1,4]\"]}}}}\n" },
				{ "to-flux 'a=1' --jobspec -",
				  "{\"version\":1,\"resources\":[{\"type\":\"slot\",\"count\":1}],"
				  "\"attributes\":{\"system\":{\"duration\":0.1,\"constraints\":{\"properties\":[\"ssd\"]}},\"user\":{\"x\":1}}}",
				  0,
				  "{\"version\":1,\"resources\":[{\"type\":\"slot\",\"count\":1}],"
				  "\"attributes\":{\"system\":{\"duration\":0.1,\"constraints\":{\"and\":[{\"properties\":[\"ssd\"]},{\"extra\":[\"a=1\"]}]}},\"user\":{\"x\":1}}}\n" },
				{ "to-flux 'a=1' --jobspec -",
				  "{\"version\":1}", 0,
				  "{\"version\":1,\"attributes\":{\"system\":{\"constraints\":{\"extra\":[\"a=1\"]}}}}\n" },
				{ "to-flux 'a=1' --jobspec -",
				  "{\"attributes\":[]}", 2,
				  "slurm-extra: error: the jobspec must be an object whose attributes and attributes.system are objects\n" },
				{ "to-flux 'a=1' --jobspec -", "{", 2,
				  "slurm-extra: error: - is not valid JSON: string or '}' expected near end of file (line 1, column 1)\n" },
				{ "from-flux '{\"or\":[{\"and\":[{\"extra\":[\"a=1\"]},{\"extra\":[\"b=2\"]}]},{\"extra\":[\"c>=3.5\"]}]}'",
				  NULL, 0, "(a=1&b=2)|c>=3.5\n" },
				{ "from-flux -",
				  "{\"extra\":[\"gpu=true\",\"mem>=512\"]}", 0,
				  "gpu=true&mem>=512\n" },
				{ "from-flux '{\"or\":[{\"extra\":[\"a=1\"]},{\"extra\":[\"gpu\"]}]}'",
				  NULL, 2,
				  "slurm-extra: error: $.or[1].extra[0]: comparison operator expected after key 'gpu'\n" },
				{ "from-flux '{\"not\":[{\"properties\":[\"slowgpu\"]}]}'",
				  NULL, 2,
				  "slurm-extra: error: $: 'not' has no --extra equivalent\n" },
				{ "from-flux '{\"or\":'", NULL, 2,
				  "slurm-extra: error: not valid JSON: unexpected token near end of file (line 1, column 6)\n" },
				{ "from-flux", NULL, 2,
				  "slurm-extra: from-flux needs a JSON constraint (or '-')\n" USAGE },
				/* One table of options for every subcommand (cmd/main.c): each
	 * option acts in its turn, an abbreviation does, an option that a
	 * subcommand does not read is ignored, and only eval's --batch,
	 * why's --job and eval's and explain's --extra stand for a
	 * REQUEST. */
				{ "check --help a=1", NULL, 0, USAGE },
				{ "eval --max-length 0 --version", NULL, 2,
				  "slurm-extra: --max-length: a number from 1 to 16777216 expected\n" },
				{ "eval a=1 --node-e '{\"a\":1}'", NULL, 0,
				  "match\n" },
				{ "to-flux a=1 --jobspec --json", NULL, 0,
				  "{\"attributes\":{\"system\":{\"constraints\":{\"extra\":[\"a=1\"]}}}}\n" },
				{ "why --batch", NULL, 2,
				  "slurm-extra: why needs a REQUEST\n" USAGE },
				{ "eval --job 5", NULL, 2,
				  "slurm-extra: eval needs a REQUEST\n" USAGE },
				/* an earlier release's check at start: it
				 * checks nothing, says so, exit 0 */
				{ "prolog-slurmctld", NULL, 0,
				  "slurm-extra: prolog-slurmctld: the check at start is gone (burst_buffer/extra checks each placement): the job starts; remove PrologSlurmctld=slurm-extra-prolog-slurmctld from slurm.conf\n" },
				{ "check a=1 --within - --jobspec -", NULL, 2,
				  "slurm-extra: --within - and --jobspec - cannot both read standard input\n" },
			};

ROW_TEST(cli, rows, struct cli_row, cli_rows)
{
	check_row(row, "");
}

/* eval and explain with --node-extra JSON, and with its old spelling,
 * --extra JSON after the REQUEST: the same exit status and stdout, and on
 * stderr the old spelling's note first (once), then the same messages;
 * --node-extra has no note. */
Test(cli, node_extra_spellings)
{
	static const struct {
		const char *cmd, *before, *json, *after;
	} cases[] = {
		{ "eval", "'gpu=true&mem>=512'",
		  "'{\"gpu\":true,\"mem\":1024}'", "" },
		{ "eval", "'gpu=true&mem>=512'", "'{\"gpu\":true,\"mem\":256}'",
		  "" },
		{ "eval", "'k!=x'", "'[1]'", "" },
		{ "eval", "'a=1|'", "'{}'", "" },
		{ "eval", "--json 'gpu=true'", "'{\"gpu\":1}'", "" },
		{ "eval", "'a=1'", "'{}'", "--within n1" },
		{ "eval", "'a=1'", "'{}'", "--slurm" },
		{ "explain", "'foo<baz|zed=23.0'",
		  "'{ \"foo\": \"bar\", \"zed\": 23 }'", "" },
		{ "explain", "--json 'a=1'", "nope", "" },
		{ "explain", "--json 'a=1|'", "'{}'", "" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char old[512], new[512], note[256];
		struct run ro, rn, eo, en;

		snprintf(old, sizeof(old), "%s %s --extra %s %s", cases[i].cmd,
			 cases[i].before, cases[i].json, cases[i].after);
		snprintf(new, sizeof(new), "%s %s --node-extra %s %s",
			 cases[i].cmd, cases[i].before, cases[i].json,
			 cases[i].after);
		snprintf(
			note, sizeof(note),
			"slurm-extra: note: %s REQUEST --extra JSON is now %s REQUEST --node-extra JSON (--extra is a request, as sbatch's)\n",
			cases[i].cmd, cases[i].cmd);
		run_stream(&ro, old, false);
		run_stream(&rn, new, false);
		run_stream(&eo, old, true);
		run_stream(&en, new, true);
		cr_assert_eq(ro.status, rn.status, "%s: exit %d, %s: exit %d",
			     old, ro.status, new, rn.status);
		cr_assert_eq(eo.status, en.status, "%s / %s", old, new);
		cr_assert_str_eq(ro.out, rn.out, "stdout of %s / %s", old, new);
		cr_assert_eq(strncmp(eo.out, note, strlen(note)), 0,
			     "stderr of %s: %s", old, eo.out);
		cr_assert_str_eq(eo.out + strlen(note), en.out,
				 "stderr of %s / %s", old, new);
		cr_assert_null(strstr(en.out, "--extra JSON is now"),
			       "stderr of %s: %s", new, en.out);
	}
}

/* As slurmctld runs an earlier release's check at start (its
 * PrologSlurmctld: the command's second name, a link as `make install`
 * makes, run without arguments, with slurmctld's variables and no
 * slurm.conf): the job starts, whatever the job, and stderr says the
 * check is gone.  The subcommand by hand, with the same variables, too. */
Test(cli, an_earlier_releases_check_at_start_lets_every_job_go)
{
	static const char env[] =
		"env -i SLURM_CONF=/dev/null SLURM_SCRIPT_CONTEXT=prolog_slurmctld SLURM_JOB_ID=12 SLURM_JOB_NODELIST=n1 SLURM_JOB_EXTRA=gpu=true";
	char dir[] = "/tmp/xc-prolog-XXXXXX", name[64], cmd[512], err[4096];
	struct run r;
	size_t n;
	FILE *p;
	int st;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(name, sizeof(name), "%s/slurm-extra-prolog-slurmctld", dir);
	cr_assert_eq(symlink(CLI_PATH, name), 0, "symlink %s", name);
	/* its stderr alone, stdin /dev/null */
	snprintf(cmd, sizeof(cmd), "{ %s %s; } 2>&1 >/dev/null </dev/null", env,
		 name);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	n = fread(err, 1, sizeof(err) - 1, p);
	err[n] = '\0';
	st = pclose(p);
	unlink(name);
	rmdir(dir);
	cr_assert_eq(st, 0, "%s: wait status %d: %s", name, st, err);
	cr_assert_not_null(strstr(err, "the check at start is gone"), "%s",
			   err);

	run_as(&r, NULL, env, "prolog-slurmctld");
	cr_assert_eq(r.status, 0, "%s", r.out);
	cr_assert_not_null(strstr(r.out, "the check at start is gone"), "%s",
			   r.out);
}

Test(cli, batch_handles_many_lines)
{
	char *input = malloc(64 * 5000 + 1), *p = input;
	struct run r;

	for (int i = 0; i < 5000; i++)
		p += sprintf(
			p,
			"{\"extra\": \"{\\\"n\\\": %d}\", \"expr\": \"n>=2500\"}\n",
			i);
	run(&r, input, "eval --batch | sort | uniq -c | sed 's/^ *//'");
	cr_assert_eq(r.status, 0);
	cr_assert_str_eq(
		r.out,
		"2500 {\"result\":\"match\"}\n2500 {\"result\":\"nomatch\"}\n");
	free(input);
}

/* An option getopt_long() cannot read: its message (in the C library's
 * words, so only what the option table decides is checked: the candidates
 * of an abbreviation, in the table's order), then the usage, exit 2. */
Test(cli, option_errors)
{
	static const struct {
		const char *args;
		const char *says;
	} cases[] = {
		{ "check --j a=1", "'--jobspec' '--job' '--json'\n" },
		{ "check --max a=1", "'--max-length' '--max-depth'\n" },
		{ "check --ver a=1", "'--verbose' '--version'\n" },
		{ "check --json=x a=1", "'--json'" },
		{ "check a=1 --extra", "'--extra'" },
		{ "check --node- x a=1", "'--node-extra' '--node-count'\n" },
		{ "check a=1 -x", "'x'" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct run r;
		size_t n, u = strlen(USAGE);

		run(&r, NULL, cases[i].args);
		n = strlen(r.out);
		cr_assert_eq(r.status, 2, "%s: %s", cases[i].args, r.out);
		cr_assert_not_null(strstr(r.out, cases[i].says), "%s: %s",
				   cases[i].args, r.out);
		cr_assert(n > u && strcmp(r.out + n - u, USAGE) == 0, "%s: %s",
			  cases[i].args, r.out);
	}
}

/* --version, alone or after a subcommand: the package's version and the
 * Slurm version the command was built for. */
Test(cli, version)
{
	const char *args[] = { "--version", "-V", "why --version" };

	for (size_t i = 0; i < sizeof(args) / sizeof(*args); i++) {
		struct run r;
		unsigned major, minor, micro;
		char end[4];

		run(&r, NULL, args[i]);
		cr_assert_eq(r.status, 0, "%s: %s", args[i], r.out);
		cr_assert_eq(strncmp(r.out,
				     "slurm-extra " PACKAGE_VERSION
				     " (built for Slurm ",
				     strlen("slurm-extra " PACKAGE_VERSION
					    " (built for Slurm ")),
			     0, "%s", r.out);
		cr_assert_eq(
			sscanf(r.out + strlen("slurm-extra " PACKAGE_VERSION
					      " (built for Slurm "),
			       "%u.%u.%u%3s", &major, &minor, &micro, end),
			4, "%s", r.out);
		cr_assert_str_eq(end, ")", "%s", r.out);
		cr_assert_eq(r.out[strlen(r.out) - 1], '\n', "%s", r.out);
		cr_assert(major >= 22 && minor <= 12, "%s", r.out);
	}
}
