/*
 * glibc_scanf.h - whether this machine's glibc takes a dangling exponent
 * in scanf's float conversion (doc/language.md §3.1).  glibc 2.41 and
 * before read "1e" as 1 and "0x1p" as 1; glibc 2.43 (Debian sid) reads no
 * number there, as C says.  Slurm's _convert_data_float_from_string() and
 * xc_text_to_number() call the same sscanf(), so a request value such as
 * "1e" is a number on one machine and not on the other, for Slurm as for
 * slurm-extra: the rows that hold such a value give both answers.
 */
#ifndef SLURM_EXTRA_GLIBC_SCANF_H
#define SLURM_EXTRA_GLIBC_SCANF_H

#include <stdbool.h>
#include <stdio.h>

/* A row's last two fields: it depends on the dangling exponent, and its
 * answer where glibc refuses one. */
#define ON_STRICT_GLIBC(answer) true, answer

/* The rows that do not depend on it leave those two fields out (false),
 * which GCC 14 reports under -Wextra in every table that includes this
 * file (GCC 12 does not). */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

static inline bool glibc_takes_dangling_exponent(void)
{
	double d;
	char c;

	return sscanf("1e", "%lf%c", &d, &c) == 1;
}

/* `answer` where glibc takes a dangling exponent or the row does not
 * depend on it, `strict` elsewhere. */
static inline bool on_this_glibc(bool answer, bool dangling, bool strict)
{
	return dangling && !glibc_takes_dangling_exponent() ? strict : answer;
}

#endif
