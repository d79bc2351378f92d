/*
 * fuzz_from_flux.c - reading any bytes as an RFC 31 constraint.
 * Properties: no crash, no leak; an error has a code and a message; a
 * constraint that reads prints to a request that parses to the same tree,
 * and whose symbolic form reads back to the same tree.
 */
#include <string.h>

#include <jansson.h>

#include "cases.h"
#include "fuzz.h"
#include "xc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	xc_error_t err;
	xc_expr_t *e, *e2, *e3;
	json_t *j;
	char *text;

	e = xc_from_flux_text((const char *)data, size, NULL, &err);
	if (!e) {
		CHECK_ERROR(err);
		return 0;
	}
	text = xc_format(e);
	CHECK(text != NULL);
	e2 = xc_parse(text, NULL, &err);
	CHECK(e2 != NULL);
	CHECK(xc_expr_equal(e, e2));
	/* Leaves read from JSON are UTF-8, so the way back cannot fail. */
	j = xc_to_flux(e, &err);
	CHECK(j != NULL);
	e3 = xc_from_flux(j, NULL, &err);
	CHECK(e3 != NULL);
	CHECK(xc_expr_equal(e, e3));
	json_decref(j);
	free(text);
	xc_expr_destroy(e);
	xc_expr_destroy(e2);
	xc_expr_destroy(e3);
	return 0;
}

void fuzz_seeds(fuzz_emit_t emit, void *ctx)
{
	EMIT_ROWS(emit, ctx, flux_rows, json);
	EMIT_ROWS(emit, ctx, to_rows, json);
}
