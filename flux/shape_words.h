/*
 * shape_words.h - what the reader (shape_read.c, shape_value.c) and the
 * writer (shape_write.c) of RFC 46 shapes share: the words and counts of
 * shape_words.c.  Private to flux/.
 */
#ifndef SHAPE_WORDS_H
#define SHAPE_WORDS_H

#include <stdbool.h>
#include <stddef.h>

#include "shape.h"

/* Whether byte `c` may stand in a word, an unquoted string of a shape:
 * anything printable but RFC 46's punctuation `[]{};/,:="` and the
 * single quote (flux-core's shape parser quotes with it too) (bytes of
 * UTF-8 included; blanks, control bytes and NUL are not). */
bool shape_is_word(unsigned char c);

/* Whether the word `s` (`n` bytes) reads as something other than a
 * string: the JSON literals true, false, null, or a JSON number. */
bool shape_word_is_other(const char *s, size_t n);

/* Why an RFC 45 range of minimum `min`, operator `op` ('+', '*' or
 * '^') and `operand` is not one Flux takes, or NULL when it is: '*' and
 * '^' need an operand of at least 2, '^' a minimum of at least 2 (as
 * flux-core checks them: count_decode() and create_count() of its
 * libjob/count.c, Jobspec._validate_complex_range()). */
const char *shape_range_check(long long min, char op, long long operand);

/* A count's text (`n` bytes, no brackets) as its RFC 14 value: an
 * integer, an RFC 22 idset (a string), an RFC 45 range (RFC 14's
 * dictionary, or the string when the dictionary cannot hold it).
 * Returns a new reference, or NULL with *why set (a static message) and
 * *at the byte at fault or, *why NULL, when out of memory. */
json_t *shape_count(const char *s, size_t n, size_t *at, const char **why);

#endif /* SHAPE_WORDS_H */
