/*
 * fuzz_parse.c - parsing any bytes.  Properties: no crash, no leak; an
 * error has a code, a message and offsets inside the input, and renders;
 * a request that parses prints to a canonical text that parses to the
 * same tree and prints the same again.
 */
#include <string.h>

#include "cases.h"
#include "fuzz.h"
#include "xc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A small depth limit so that TOO_DEEP is reached too. */
	xc_limits_t limits = { .max_request_length = 8192, .max_depth = 64 };
	char *s = fuzz_string(data, size), *text, *again, *render;
	size_t len = strlen(s);
	xc_error_t err;
	xc_expr_t *e, *e2;

	e = xc_parse(s, &limits, &err);
	if (!e) {
		CHECK_ERROR(err);
		CHECK(err.end <= len);
		render = xc_error_render(s, &err, NULL);
		CHECK(render != NULL);
		free(render);
		free(s);
		return 0;
	}
	CHECK(err.code == XC_OK);
	text = xc_format(e);
	CHECK(text != NULL);
	CHECK(strlen(text) <= len);
	e2 = xc_parse(text, &limits, &err);
	CHECK(e2 != NULL);
	CHECK(xc_expr_equal(e, e2));
	again = xc_format(e2);
	CHECK(strcmp(text, again) == 0);
	free(again);
	free(text);
	xc_expr_destroy(e2);
	xc_expr_destroy(e);
	free(s);
	return 0;
}

void fuzz_seeds(fuzz_emit_t emit, void *ctx)
{
	EMIT_ROWS(emit, ctx, valid_rows, request);
	EMIT_ROWS(emit, ctx, error_rows, request);
	EMIT_ROWS(emit, ctx, eval_rows, request);
}
