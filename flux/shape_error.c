/*
 * shape_error.c - the names of the error codes of shapes and jobspec V1
 * (shape.h), and of the language's, to which the others are handed.
 */
#include "shape.h"

static const char *const code_names[SHAPE_E__COUNT - XC_E__COUNT] = {
	[SHAPE_E_SYNTAX - XC_E__COUNT] = "shape-syntax",
	[SHAPE_E_COUNT - XC_E__COUNT] = "shape-count",
	[SHAPE_E_LABEL - XC_E__COUNT] = "shape-label",
	[SHAPE_E_KEY - XC_E__COUNT] = "shape-key",
	[SHAPE_E_VALUE - XC_E__COUNT] = "shape-value",
	[SHAPE_E_RESOURCES - XC_E__COUNT] = "shape-resources",
	[SHAPE_E_NOT_V1 - XC_E__COUNT] = "not-v1",
};

const char *shape_errcode_name(int code)
{
	if (code < XC_E__COUNT || code >= SHAPE_E__COUNT)
		return xc_errcode_name(code);
	return code_names[code - XC_E__COUNT];
}
