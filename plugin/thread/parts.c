/*
 * parts.c - the nodes of each partition (parts.h).
 */
#include <stdlib.h>
#include <string.h>

#include "parts.h"

/* The map of partition `name` (`len` bytes), or NULL. */
static const struct part_map *find(const struct parts *p, const char *name,
				   size_t len)
{
	for (size_t i = 0; i < p->n; i++)
		if (strlen(p->maps[i].name) == len &&
		    memcmp(p->maps[i].name, name, len) == 0)
			return &p->maps[i];
	return NULL;
}

/* None of the nodes: a job whose partitions are not known. */
static int unknown(size_t count, bool *usable)
{
	for (size_t k = 0; k < count; k++)
		usable[k] = false;
	return 1;
}

int parts_usable(const struct parts *p, const char *list, size_t count,
		 bool *usable)
{
	const struct part_map *one[64];
	size_t n = 0;

	if (!p->maps || p->count != count)
		return unknown(count, usable);
	if (!list || !*list) {
		for (size_t i = 0; i < p->n && !n; i++)
			if (p->maps[i].is_default)
				one[n++] = &p->maps[i];
	} else {
		for (const char *s = list; *s;) {
			size_t len = strcspn(s, ",");

			if (len) {
				if (n == sizeof(one) / sizeof(*one) ||
				    !(one[n] = find(p, s, len)))
					return unknown(count, usable);
				n++;
			}
			s += len + (s[len] == ',');
		}
	}
	if (!n)
		return unknown(count, usable);
	for (size_t k = 0; k < count; k++) {
		bool in = false;

		for (size_t i = 0; i < n && !in; i++)
			in = one[i]->nodes[k];
		if (!in)
			usable[k] = false;
	}
	return 0;
}

void parts_free(struct parts *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->maps[i].name);
		free(p->maps[i].nodes);
	}
	free(p->maps);
	memset(p, 0, sizeof(*p));
}
