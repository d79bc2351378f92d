/*
 * fuzz_eval.c - evaluating a request against arbitrary node Extra bytes.
 * Input: the request, a newline, then the Extra bytes.  Properties: no
 * crash, no leak; the node table and explain agree with xc_match; so do
 * the table's columns (xc_nodes_compile), with the node among others whose
 * values of the same keys have other types and strings.
 */
#include <string.h>

#include "cases.h"
#include "fuzz.h"
#include "xc.h"

/* Nodes beside the fuzzed one in a compiled table: the request's keys
 * meet every type and other strings in the same column. */
static const char *const neighbours[] = {
	DOC_NODE,
	"{\"a\":\"x\",\"b\":\"\",\"c\":\"zz\",\"foo\":1,\"zed\":\"23\"}",
	"{\"a\":true,\"b\":1e400,\"c\":null,\"foo\":false,\"zed\":[1]}",
	"{\"a\":-5,\"b\":\"bar\",\"c\":{},\"foo\":\"baz\",\"zed\":0}",
	NULL,
	"not json",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	size_t rlen = nl ? (size_t)(nl - data) : size;
	char *request = fuzz_string(data, rlen);
	char *extra = fuzz_string(nl ? nl + 1 : data + size,
				  nl ? size - rlen - 1 : 0);
	size_t elen = nl ? size - rlen - 1 : 0;
	xc_extra_state_t st;
	xc_nodes_t *t;
	xc_expr_t *e;
	xc_extra_t *x;
	bool m, matched[1], many[8];
	char *why;

	e = xc_parse(request, NULL, NULL);
	if (!e)
		goto out;
	x = xc_extra_load(extra, elen, NULL, &st, NULL);
	CHECK((x != NULL) == (st == XC_EXTRA_OBJECT));
	m = xc_match(e, x);
	why = xc_explain(e, x);
	CHECK(why != NULL);
	CHECK(strstr(why, m ? "result: match\n" : "result: no match\n") !=
	      NULL);
	free(why);
	/* The node table reads the NUL-terminated text the same way (when
	 * the bytes hold no NUL). */
	if (strlen(extra) == elen) {
		t = xc_nodes_create(NULL);
		CHECK(xc_nodes_add(t, "n1", elen ? extra : NULL, NULL, NULL) ==
		      0);
		CHECK(xc_nodes_match(t, e, matched) == (long)m);
		CHECK(xc_nodes_compile(t, NULL) == 0);
		CHECK(xc_nodes_match(t, e, matched) == (long)m);
		xc_nodes_destroy(t);
		t = xc_nodes_create(NULL);
		for (size_t i = 0; i < sizeof(neighbours) / sizeof(*neighbours);
		     i++)
			CHECK(xc_nodes_add(t, "n", neighbours[i], NULL, NULL) >=
			      0);
		CHECK(xc_nodes_add(t, "x", elen ? extra : NULL, NULL, NULL) ==
		      0);
		for (size_t i = 0; i < xc_nodes_count(t); i++)
			CHECK(!xc_nodes_extra(t, i) ==
			      (xc_nodes_state(t, i) != XC_EXTRA_OBJECT));
		CHECK(xc_nodes_compile(t, NULL) == 0);
		xc_nodes_match(t, e, many);
		for (size_t i = 0; i + 1 < xc_nodes_count(t); i++) {
			const char *nb = neighbours[i];
			xc_extra_t *y = xc_extra_load(nb, nb ? strlen(nb) : 0,
						      NULL, NULL, NULL);

			CHECK(many[i] == xc_match(e, y));
			xc_extra_destroy(y);
		}
		CHECK(many[xc_nodes_count(t) - 1] == m);
		/* The fuzzed node changed in place to a neighbour's Extra and
		 * back: the columns follow. */
		CHECK(xc_nodes_update(t, 0, elen ? extra : NULL, NULL) >= 0);
		xc_nodes_match(t, e, many);
		CHECK(many[0] == m);
		CHECK(xc_nodes_update(t, 0, neighbours[0], NULL) >= 0);
		xc_nodes_match(t, e, many);
		{
			xc_extra_t *y = xc_extra_load(neighbours[0],
						      strlen(neighbours[0]),
						      NULL, NULL, NULL);

			CHECK(many[0] == xc_match(e, y));
			xc_extra_destroy(y);
		}
		xc_nodes_destroy(t);
	}
	xc_extra_destroy(x);
	xc_expr_destroy(e);
out:
	free(request);
	free(extra);
	return 0;
}

void fuzz_seeds(fuzz_emit_t emit, void *ctx)
{
	for (size_t i = 0; i < sizeof(eval_rows) / sizeof(eval_rows[0]); i++) {
		const struct eval_row *r = &eval_rows[i];
		size_t rl = strlen(r->request),
		       el = r->extra ? strlen(r->extra) : 0;
		char *buf = malloc(rl + el + 2);

		memcpy(buf, r->request, rl);
		buf[rl] = '\n';
		if (el)
			memcpy(buf + rl + 1, r->extra, el);
		emit(buf, rl + 1 + el, ctx);
		free(buf);
	}
}
