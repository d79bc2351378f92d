/*
 * fuzz_shape.c - reading any bytes as an RFC 46 shape.  Properties: no
 * crash, no leak; an error has a code and a message inside the input; a
 * shape that reads writes back as a shape that reads as the same
 * resources list, and that writes as itself (the shortest form is a
 * fixed point).
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "shape_cases.h"
#include "fuzz.h"
#include "shape.h"
#include "xc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const xc_limits_t longer = { .max_request_length =
					     XC_MAX_REQUEST_LENGTH_LIMIT };
	xc_error_t err;
	json_t *j, *j2;
	char *s, *s2;

	/* under a small depth limit (from the first byte) too: an error's
	 * bytes stay inside the input */
	if (size) {
		xc_limits_t small = { .max_depth = 1 + data[0] % 4 };

		j = shape_parse((const char *)data, size, &small, &err);
		if (!j)
			CHECK(err.offset <= size && err.end <= size);
		json_decref(j);
	}
	j = shape_parse((const char *)data, size, NULL, &err);
	if (!j) {
		CHECK_ERROR_BELOW(err, SHAPE_E__COUNT);
		CHECK(err.offset <= size && err.end <= size);
		return 0;
	}
	s = shape_format(j, NULL, &err);
	CHECK(s != NULL);
	/* the shortest shape may be longer than what was read (a key '-'
	 * is written "-"): it reads back within a larger limit */
	j2 = shape_parse(s, strlen(s), &longer, &err);
	CHECK(j2 != NULL);
	CHECK(json_equal(j, j2));
	s2 = shape_format(j2, NULL, &err);
	CHECK(s2 != NULL && strcmp(s, s2) == 0);
	(void)shape_check_v1(j, &err);
	free(s);
	free(s2);
	json_decref(j);
	json_decref(j2);
	return 0;
}

void fuzz_seeds(fuzz_emit_t emit, void *ctx)
{
	EMIT_ROWS(emit, ctx, rfc46_rows, shape);
	EMIT_ROWS(emit, ctx, more_rows, shape);
	EMIT_ROWS(emit, ctx, shape_error_rows, shape);
}
