/*
 * ctld.c - what the plugins ask of the slurmctld they run in (ctld.h).
 */
#define _GNU_SOURCE /* RTLD_DEFAULT, strcasestr */

#include <dlfcn.h>
#include <string.h>

#include "ctld.h"
#include "slurm_compat.h"

time_t sx_conf_time(void)
{
	static const time_t *conf;
	static int looked;

	if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&conf, dlsym(RTLD_DEFAULT, "slurm_conf"),
				 __ATOMIC_RELEASE);
		__atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
	}
	return conf ? __atomic_load_n(conf, __ATOMIC_RELAXED) : 0;
}

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

int sx_node_features_plugins(bool *plugins)
{
	slurm_conf_t *conf = NULL;

	if (slurm_load_ctl_conf(0, &conf) != SLURM_SUCCESS)
		return -1;
	*plugins = conf->node_features_plugins && *conf->node_features_plugins;
	sx_free_ctl_conf(conf);
	return 0;
}

int sx_load_node_one(const char *name, node_info_msg_t **msg)
{
	*msg = NULL;
	if (slurm_load_node_single(msg, (char *)name, SHOW_ALL) !=
	    SLURM_SUCCESS) {
		*msg = NULL;
		return sx_slurm_errno();
	}
	return SLURM_SUCCESS;
}

int sx_load_nodes_since(time_t since, node_info_msg_t **msg)
{
	*msg = NULL;
	if (slurm_load_node(since, msg, SHOW_ALL) != SLURM_SUCCESS) {
		*msg = NULL;
		return sx_slurm_errno();
	}
	return SLURM_SUCCESS;
}

int sx_update_node_features(const char *names, const char *avail,
			    const char *act)
{
	update_node_msg_t msg;

	slurm_init_update_node_msg(&msg);
	msg.node_names = (char *)names;
	msg.features = (char *)avail;
	msg.features_act = (char *)act;
	if (slurm_update_node(&msg) != SLURM_SUCCESS)
		return sx_slurm_errno();
	return SLURM_SUCCESS;
}
