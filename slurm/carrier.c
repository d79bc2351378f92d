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
