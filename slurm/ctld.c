/*
 * ctld.c - what the plugins ask of the slurmctld they run in (ctld.h).
 */
#define _GNU_SOURCE /* RTLD_DEFAULT, strcasestr */

#include <dlfcn.h>
#include <string.h>

#include "ctld.h"
#include "slurm_compat.h"

bool sx_list_has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p && (p = strcasestr(p, word)); p += n)
		if ((p == list || p[-1] == ',' || p[-1] == '/') &&
		    (p[n] == '\0' || p[n] == ',' || p[n] == '='))
			return true;
	return false;
}

bool sx_guard_configured(void)
{
	const slurm_conf_t *conf = dlsym(RTLD_DEFAULT, "slurm_conf");

	return conf && sx_list_has_word(conf->bb_type, "extra");
}

const struct sx_guard_api *sx_guard_api_now(void)
{
	void *h = dlopen(SX_GUARD_SONAME, RTLD_LAZY | RTLD_NOLOAD);
	const struct sx_guard_api *a = h ? dlsym(h, SX_GUARD_API) : NULL;

	/* (the reference let go: the plugin is never unloaded, -z nodelete,
	 * so its object stays where it is) */
	if (h)
		dlclose(h);
	return a && a->version == SX_GUARD_API_VERSION ? a : NULL;
}

const struct sx_guard_api *sx_guard_api(void)
{
	static const struct sx_guard_api *api;
	static int looked;

	if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {
		/* the plugin slurmctld loaded (never unloaded: -z nodelete),
		 * by its name; the handle kept */
		void *h = dlopen(SX_GUARD_SONAME, RTLD_LAZY | RTLD_NOLOAD);
		const struct sx_guard_api *a =
			h ? dlsym(h, SX_GUARD_API) : NULL;

		if (a && a->version != SX_GUARD_API_VERSION)
			a = NULL;
		__atomic_store_n(&api, a, __ATOMIC_RELEASE);
		__atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
	}
	return __atomic_load_n(&api, __ATOMIC_ACQUIRE);
}
