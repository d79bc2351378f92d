/*
 * shape_error.c - the names of the error codes of shapes and jobspec V1
 * (shape.h), and of the language's, to which the others are handed.
 */
#include "shape.h"

_Static_assert(XC_E__COUNT <= SHAPE_E_BASE,
	       "the language's codes reach the shapes' (SHAPE_E_BASE)");

static const char *const code_names[SHAPE_E__COUNT - SHAPE_E_BASE] = {
	[SHAPE_E_SYNTAX - SHAPE_E_BASE] = "shape-syntax",
	[SHAPE_E_COUNT - SHAPE_E_BASE] = "shape-count",
	[SHAPE_E_LABEL - SHAPE_E_BASE] = "shape-label",
	[SHAPE_E_KEY - SHAPE_E_BASE] = "shape-key",
	[SHAPE_E_VALUE - SHAPE_E_BASE] = "shape-value",
	[SHAPE_E_RESOURCES - SHAPE_E_BASE] = "shape-resources",
	[SHAPE_E_NOT_V1 - SHAPE_E_BASE] = "not-v1",
};

const char *shape_errcode_name(int code)
{
	const char *name;

	if (code < SHAPE_E_BASE || code >= SHAPE_E__COUNT)
		return xc_errcode_name(code);
	name = code_names[code - SHAPE_E_BASE];
	return name ? name : "unknown";
}
