/*
 * fuzz_round_trip.c - request -> RFC 31 JSON text -> request.
 * Properties: no crash, no leak; every request that parses translates
 * (unless a leaf is not UTF-8, which JSON cannot carry), and its JSON text
 * reads back to the same tree.
 */
#include <string.h>

#include <jansson.h>

#include "cases.h"
#include "fuzz.h"
#include "xc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	xc_limits_t limits = { .max_request_length = 4096,
			       .max_flux_length = 1 << 20 };
	char *s = fuzz_string(data, size), *json;
	xc_error_t err;
	xc_expr_t *e, *back;
	json_t *j;

	e = xc_parse(s, &limits, NULL);
	if (!e)
		goto out;
	j = xc_to_flux(e, &err);
	if (!j) {
		CHECK(err.code == XC_E_NOT_UTF8);
		goto done;
	}
	json = json_dumps(j, JSON_COMPACT);
	CHECK(json != NULL);
	back = xc_from_flux_text(json, strlen(json), &limits, &err);
	CHECK(back != NULL);
	CHECK(xc_expr_equal(e, back));
	xc_expr_destroy(back);
	free(json);
	json_decref(j);
done:
	xc_expr_destroy(e);
out:
	free(s);
	return 0;
}

void fuzz_seeds(fuzz_emit_t emit, void *ctx)
{
	EMIT_ROWS(emit, ctx, valid_rows, request);
	EMIT_ROWS(emit, ctx, to_rows, request);
}
