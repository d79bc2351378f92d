/*
 * table.h - table-driven Criterion tests.
 *
 * Criterion runs each test in a new process, where pointers taken in the
 * parent (string literals inside rows) are not valid, so the parameter is
 * the row's index and the test reads the row from the static table.
 *
 *   ROW_TEST(parse, valid, struct valid_row, valid_rows) { ... row-> ... }
 */
#ifndef TESTS_TABLE_H
#define TESTS_TABLE_H

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#define ROWS(rows) (sizeof(rows) / sizeof((rows)[0]))

#define ROW_TEST(suite, name, type, rows)                                      \
	static void suite##_##name##_row(const type *row);                     \
	ParameterizedTestParameters(suite, name)                               \
	{                                                                      \
		static size_t idx[ROWS(rows)];                                 \
		for (size_t k = 0; k < ROWS(rows); k++)                        \
			idx[k] = k;                                            \
		return cr_make_param_array(size_t, idx, ROWS(rows));           \
	}                                                                      \
	ParameterizedTest(size_t *k, suite, name)                              \
	{                                                                      \
		suite##_##name##_row(&(rows)[*k]);                             \
	}                                                                      \
	static void suite##_##name##_row(const type *row)

#endif
