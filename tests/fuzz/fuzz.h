/*
 * fuzz.h - what the fuzz targets share.
 *
 * Each target (fuzz_*.c) defines LLVMFuzzerTestOneInput, asserting its
 * properties with CHECK (abort on failure, so libFuzzer and the replay
 * driver both see it), and fuzz_seeds(), its seed inputs, made from the
 * unit tests' rows (parser/test/cases.h, flux/test/shape_cases.h).  Built with --enable-fuzzing the
 * target gets libFuzzer's main; otherwise replay.c's, which runs the seeds
 * and tests/fuzz/corpus/<target>/ as a plain test in `make check`.
 */
#ifndef TESTS_FUZZ_H
#define TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xc.h"

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: property failed: %s\n",        \
				__FILE__, __LINE__, #cond);                    \
			abort();                                               \
		}                                                              \
	} while (0)

typedef void (*fuzz_emit_t)(const void *data, size_t len, void *ctx);

/* Emits the string `field` of every row of the table `rows` (a table of
 * parser/test/cases.h or flux/test/shape_cases.h) as a seed: emit(text, its length, ctx). */
#define EMIT_ROWS(emit, ctx, rows, field)                                      \
	do {                                                                   \
		for (size_t row_ = 0; row_ < sizeof(rows) / sizeof((rows)[0]); \
		     row_++)                                                   \
			(emit)((rows)[row_].field, strlen((rows)[row_].field), \
			       (ctx));                                         \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
void fuzz_seeds(fuzz_emit_t emit, void *ctx);

/* An error the library reported is well formed: a known code (below
 * `codes`: XC_E__COUNT, or a wing's end of codes, SHAPE_E__COUNT), a
 * message, and a byte range that does not end before it starts. */
#define CHECK_ERROR_BELOW(err, codes)                                          \
	do {                                                                   \
		CHECK((err).code > XC_OK && (err).code < (codes));             \
		CHECK((err).message[0] != '\0');                               \
		CHECK((err).offset <= (err).end);                              \
	} while (0)
#define CHECK_ERROR(err) CHECK_ERROR_BELOW(err, XC_E__COUNT)

/* A NUL-terminated copy of the input (malloc'd; the caller frees). */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	for (size_t i = 0; i < size; i++)
		s[i] = (char)data[i];
	s[size] = '\0';
	return s;
}

#endif
