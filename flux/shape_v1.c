/*
 * shape_v1.c - whether an RFC 14 resources list is jobspec V1's (RFC 25;
 * doc/flux.md "Jobspec V1").
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "shape.h"
#include "xc_util.h"

/* Whether vertex `v` has a key outside `allowed` (NULL-terminated). */
static const char *stray_key(const json_t *v, const char *const *allowed)
{
	const char *key;
	json_t *item;

	json_object_foreach ((json_t *)v, key, item) {
		size_t i = 0;

		while (allowed[i] && strcmp(allowed[i], key) != 0)
			i++;
		if (!allowed[i])
			return key;
	}
	return NULL;
}

/* One V1 vertex of type `a` (or `b`, when not NULL), `count` an
 * integer, no key but V1's. */
static int v1_vertex(const json_t *v, const char *path, const char *a,
		     const char *b, xc_error_t *err)
{
	static const char *const keys[] = { "type",  "count", "with",
					    "label", "unit",  NULL };
	static const char *const node_keys[] = { "type",  "count", "with",
						 "label", "unit",  "exclusive",
						 NULL };
	const char *type = json_string_value(json_object_get(v, "type"));
	const char *stray;

	if (!json_is_object(v) || !type)
		return xc_error_set(err, SHAPE_E_NOT_V1, 0, 0,
				    "%s: a resource is an object with a type",
				    path);
	if (strcmp(type, a) != 0 && (!b || strcmp(type, b) != 0))
		return xc_error_set(
			err, SHAPE_E_NOT_V1, 0, 0,
			"%s: '%s' where jobspec V1 has %s%s%s (RFC 25: node>slot>core[,gpu] or slot>core[,gpu])",
			path, type, a, b ? " or " : "", b ? b : "");
	if (!json_is_integer(json_object_get(v, "count")) ||
	    json_integer_value(json_object_get(v, "count")) < 1)
		return xc_error_set(
			err, SHAPE_E_NOT_V1, 0, 0,
			"%s: jobspec V1 counts are integers of at least 1 (RFC 25), not ranges or idsets",
			path);
	stray = stray_key(v, strcmp(type, "node") == 0 ? node_keys : keys);
	if (stray)
		return xc_error_set(
			err, SHAPE_E_NOT_V1, 0, 0,
			"%s: jobspec V1 has no '%s' on a %s (RFC 25)", path,
			stray, type);
	return 0;
}

int shape_check_v1(const json_t *resources, xc_error_t *err)
{
	const json_t *top, *slot, *with, *v;
	char path[64];
	bool core = false, gpu = false;
	size_t i;

	xc_error_clear(err);
	if (!json_is_array(resources) || json_array_size(resources) != 1)
		return xc_error_set(
			err, SHAPE_E_NOT_V1, 0, 0,
			"$: jobspec V1 has exactly one resource at the top, node or slot (RFC 25)");
	top = json_array_get(resources, 0);
	if (v1_vertex(top, "$[0]", "node", "slot", err) < 0)
		return -1;
	slot = top;
	snprintf(path, sizeof(path), "$[0]");
	if (strcmp(json_string_value(json_object_get(top, "type")), "node") ==
	    0) {
		with = json_object_get(top, "with");
		if (json_array_size(with) != 1)
			return xc_error_set(
				err, SHAPE_E_NOT_V1, 0, 0,
				"$[0]: a node holds exactly one slot in jobspec V1 (RFC 25)");
		slot = json_array_get(with, 0);
		snprintf(path, sizeof(path), "$[0].with[0]");
		if (v1_vertex(slot, path, "slot", NULL, err) < 0)
			return -1;
	}
	with = json_object_get(slot, "with");
	if (!json_is_array(with) || json_array_size(with) < 1 ||
	    json_array_size(with) > 2)
		return xc_error_set(
			err, SHAPE_E_NOT_V1, 0, 0,
			"%s: a slot holds a core, and may hold a gpu beside it, in jobspec V1 (RFC 25)",
			path);
	json_array_foreach (with, i, v) {
		char at[96];
		const char *type;

		snprintf(at, sizeof(at), "%s.with[%zu]", path, i);
		if (v1_vertex(v, at, "core", "gpu", err) < 0)
			return -1;
		type = json_string_value(json_object_get(v, "type"));
		if (json_object_get(v, "with"))
			return xc_error_set(
				err, SHAPE_E_NOT_V1, 0, 0,
				"%s: a %s holds nothing in jobspec V1 (RFC 25)",
				at, type);
		if ((strcmp(type, "core") == 0 && core) ||
		    (strcmp(type, "gpu") == 0 && gpu))
			return xc_error_set(
				err, SHAPE_E_NOT_V1, 0, 0,
				"%s: a second %s in the slot (RFC 25)", at,
				type);
		core = core || strcmp(type, "core") == 0;
		gpu = gpu || strcmp(type, "gpu") == 0;
	}
	if (!core)
		return xc_error_set(
			err, SHAPE_E_NOT_V1, 0, 0,
			"%s: the slot holds no core; jobspec V1 needs one (RFC 25)",
			path);
	return 0;
}
