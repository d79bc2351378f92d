/*
 * carrier.c - Slurm's feature strings as the feature carrier writes them
 * (carrier.h).
 */
#include "carrier.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sx_feature_name(unsigned long long request_hash,
		     char name[SX_FEATURE_LEN + 1])
{
	snprintf(name, SX_FEATURE_LEN + 1, "%s%0*llx", SX_FEATURE_PREFIX,
		 SX_FEATURE_HEX, request_hash >> (64 - 4 * SX_FEATURE_HEX));
}

bool sx_feature_is_ours(const char *token, size_t len)
{
	size_t pre = sizeof(SX_FEATURE_PREFIX) - 1;

	if (len != SX_FEATURE_LEN || strncmp(token, SX_FEATURE_PREFIX, pre))
		return false;
	for (size_t i = pre; i < len; i++)
		if (!((token[i] >= '0' && token[i] <= '9') ||
		      (token[i] >= 'a' && token[i] <= 'f')))
			return false;
	return true;
}

/* Slurm's operators, which end a feature name (build_feature_list()); ','
 * is read as '&'. */
static bool is_operator(char c)
{
	return strchr("&|*[](),", c) != NULL;
}

enum sx_constraint_why sx_constraint_with(const char *user, const char *feature,
					  char **out)
{
	size_t ulen = user ? strlen(user) : 0, flen = strlen(feature);
	size_t len = ulen ? ulen + 1 + flen : flen;

	*out = NULL;
	if (ulen && strchr(user, '*'))
		return SX_CONSTRAINT_COUNTS;
	if (ulen && strchr("&|,", user[ulen - 1]))
		return SX_CONSTRAINT_DANGLING;
	if (len > SX_CONSTRAINT_MAX)
		return SX_CONSTRAINT_TOO_LONG;
	if (!(*out = malloc(len + 1)))
		return SX_CONSTRAINT_NOMEM;
	if (ulen) {
		memcpy(*out, user, ulen);
		(*out)[ulen] = '&';
		memcpy(*out + ulen + 1, feature, flen + 1);
	} else {
		memcpy(*out, feature, flen + 1);
	}
	return SX_CONSTRAINT_OK;
}

char *sx_constraint_own(const char *features, const char *feature)
{
	size_t len = features ? strlen(features) : 0, flen = strlen(feature);

	if (len >= flen) {
		size_t at = len - flen;

		if (!strcmp(features + at, feature)) {
			if (at == 0)
				return strdup("");
			if (features[at - 1] == '&' || features[at - 1] == ',')
				return strndup(features, at - 1);
		}
	}
	return strdup(features ? features : "");
}

bool sx_constraint_names_ours(const char *features)
{
	const char *p = features;

	while (p && *p) {
		size_t n = 0;

		while (p[n] && !is_operator(p[n]))
			n++;
		if (sx_feature_is_ours(p, n))
			return true;
		p += n ? n : 1;
	}
	return false;
}

bool sx_constraint_last_ours(const char *features,
			     char name[SX_FEATURE_LEN + 1])
{
	size_t len = features ? strlen(features) : 0, at = len;

	while (at && !is_operator(features[at - 1]))
		at--;
	if (!sx_feature_is_ours(features + at, len - at))
		return false;
	memcpy(name, features + at, SX_FEATURE_LEN);
	name[SX_FEATURE_LEN] = '\0';
	return true;
}

char *sx_node_features(const char *current, const char *const *ours, size_t n)
{
	size_t cap = (current ? strlen(current) : 0) + 1;
	const char *p = current;
	char *out, *w;

	for (size_t i = 0; i < n; i++)
		cap += strlen(ours[i]) + 1;
	if (!(out = malloc(cap)))
		return NULL;
	w = out;
	while (p && *p) {
		size_t len = strcspn(p, ",");

		if (len && !sx_feature_is_ours(p, len)) {
			if (w != out)
				*w++ = ',';
			memcpy(w, p, len);
			w += len;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(ours[i]);

		if (!len)
			continue;
		if (w != out)
			*w++ = ',';
		memcpy(w, ours[i], len);
		w += len;
	}
	*w = '\0';
	return out;
}
