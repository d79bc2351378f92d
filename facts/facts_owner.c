/*
 * facts_owner.c - which keys of a node's Extra the facts own, and so may
 * replace or remove, and the Extra a publication writes (doc/facts.md
 * "Publishing"); what a site fact may be (doc/facts.md "Site facts").
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facts_json.h"

/* ------------------------------------------------------- ownership */

/* Every key discovery may set, besides the instruction-set flags
 * (facts_flag_key(); doc/facts.md "Discovered facts"). */
static const char *const DISCOVERED[] = { "cpu_arch",
					  "cpu_vendor",
					  "cpu_model",
					  "cpu_sockets",
					  "cpu_cores",
					  "cpu_threads",
					  "x86_64_level",
					  "mem_mb",
					  "numa_nodes",
					  "hugepages_2m",
					  "hugepages_1g",
					  "gpu_count",
					  "gpu_vendor",
					  "gpu_model",
					  "gpu_name",
					  "gpu_mem_mb",
					  "gpu_driver",
					  "gpu_cc",
					  "os_id",
					  "os_version",
					  "os_version_major",
					  "os_version_minor",
					  "kernel_release",
					  "kernel_major",
					  "kernel_minor",
					  "ib_ports",
					  "ib_rate_gbps",
					  "local_ssd",
					  "scratch_gb",
					  "scratch_ssd",
					  NULL };

static bool in_list(const char *const *list, const char *key)
{
	for (; *list; list++)
		if (strcmp(*list, key) == 0)
			return true;
	return false;
}

bool facts_discovered_key(const char *key)
{
	return in_list(DISCOVERED, key) || facts_flag_key(key);
}

bool facts_check(const char *key, json_object *v, char *why)
{
	size_t n = strlen(key);
	const char *s;

	if (n == 0 || n > 128) {
		snprintf(why, FACTS_ERR_SIZE,
			 "key '%.40s' is %s (1 to 128 bytes)", key,
			 n ? "too long" : "empty");
		return false;
	}
	for (const char *p = key; *p; p++)
		if (facts_operator_byte((unsigned char)*p) ||
		    iscntrl((unsigned char)*p)) {
			snprintf(why, FACTS_ERR_SIZE,
				 "key '%s' holds %s, which no request can name",
				 key,
				 iscntrl((unsigned char)*p)
					 ? "a control byte"
					 : "an operator byte");
			return false;
		}
	switch (json_object_get_type(v)) {
	case json_type_boolean:
	case json_type_int:
		return true;
	case json_type_double:
		if (isfinite(json_object_get_double(v)))
			return true;
		snprintf(why, FACTS_ERR_SIZE,
			 "the value of '%s' is not a finite number", key);
		return false;
	case json_type_string:
		s = json_object_get_string(v);
		n = (size_t)json_object_get_string_len(v);
		if (n == 0 || n > 1024 || strlen(s) != n) {
			snprintf(
				why, FACTS_ERR_SIZE,
				"the value of '%s' is %s (a string of 1 to 1024 bytes, without NUL)",
				key,
				n == 0	   ? "empty"
				: n > 1024 ? "too long"
					   : "holds a NUL byte");
			return false;
		}
		for (const char *p = s; *p; p++)
			if (facts_operator_byte((unsigned char)*p) ||
			    iscntrl((unsigned char)*p)) {
				snprintf(
					why, FACTS_ERR_SIZE,
					"the value of '%s' (\"%.60s\") holds '%s', which no request can hold in a value",
					key, s,
					iscntrl((unsigned char)*p)
						? "a control byte"
						: (char[]){ *p, 0 });
				return false;
			}
		return true;
	default:
		snprintf(
			why, FACTS_ERR_SIZE,
			"the value of '%s' is %s: a node's Extra is matched by its top-level booleans, numbers and strings only",
			key,
			json_object_is_type(v, json_type_null) ? "null"
			: json_object_is_type(v, json_type_array)
				? "an array"
				: "an object");
		return false;
	}
}

bool facts_array_has(json_object *keys, const char *key)
{
	size_t n = keys ? json_object_array_length(keys) : 0;

	for (size_t i = 0; i < n; i++) {
		const char *k = json_object_get_string(
			json_object_array_get_idx(keys, i));

		if (k && strcmp(k, key) == 0)
			return true;
	}
	return false;
}

json_object *facts_merge(json_object *current, const struct facts *f,
			 json_object *site_keys, json_object *old_site_keys)
{
	json_object *out = json_object_new_object();

	if (!out)
		return NULL;
	if (current && json_object_is_type(current, json_type_object)) {
		json_object_object_foreach (current, key, v) {
			if (facts_discovered_key(key) ||
			    facts_array_has(site_keys, key) ||
			    facts_array_has(old_site_keys, key) ||
			    json_object_object_get_ex(f->values, key, NULL))
				continue;
			json_object *c = v ? facts_copy(v) : NULL;

			if ((v && !c) ||
			    json_object_object_add(out, key, c) != 0) {
				json_object_put(c);
				goto nomem;
			}
		}
	}
	{
		json_object_object_foreach (f->values, key, v) {
			json_object *c = facts_copy(v);

			if (!c || json_object_object_add(out, key, c) != 0) {
				json_object_put(c);
				goto nomem;
			}
		}
	}
	return out;
nomem:
	json_object_put(out);
	return NULL;
}
