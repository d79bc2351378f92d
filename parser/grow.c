/*
 * grow.c - one growth rule for arrays (xc_util.h "arrays").
 */
#include <stdint.h>
#include <stdlib.h>

#include "xc_private.h"

int xc_grow(void **array, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 8;
	void *p;

	if (need <= *cap && *array)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -1;
		n *= 2;
	}
	if (size && n > SIZE_MAX / size)
		return -1;
	if (!(p = realloc(*array, n * size)))
		return -1;
	*array = p;
	*cap = n;
	return 0;
}

int xc_grow_parallel(void **const arrays[], const size_t sizes[], size_t count,
		     size_t *cap, size_t need)
{
	size_t grown = *cap;

	if (need <= *cap)
		return 0;
	for (size_t k = 0; k < count; k++) {
		grown = *cap;
		if (xc_grow(arrays[k], &grown, need, sizes[k]) < 0)
			return -1;
	}
	*cap = grown;
	return 0;
}
