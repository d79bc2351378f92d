/*
 * test_ctld.c - what the plugins read of slurmctld's own configuration
 * (slurm/ctld.h): a plugin named in a slurm.conf list, and whether
 * BurstBufferType names burst_buffer/extra, read from the `slurm_conf`
 * libslurm exports (this process's, set here as slurmctld would).
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */

#include <dlfcn.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include "ctld.h"

Test(ctld, a_plugin_named_in_a_list)
{
	cr_assert(sx_list_has_word("burst_buffer/extra", "extra"));
	cr_assert(sx_list_has_word("lua,extra", "extra"));
	cr_assert(sx_list_has_word("burst_buffer/lua,burst_buffer/Extra",
				   "extra"));
	cr_assert(sx_list_has_word("extra_constraints,bf_interval=30",
				   "extra_constraints"));
	cr_assert_not(sx_list_has_word("burst_buffer/extras", "extra"));
	cr_assert_not(sx_list_has_word("burst_buffer/lua", "extra"));
	cr_assert_not(sx_list_has_word("myextra", "extra"));
	cr_assert_not(sx_list_has_word("", "extra"));
	cr_assert_not(sx_list_has_word(NULL, "extra"));
}

Test(ctld, the_guard_configured)
{
	slurm_conf_t *conf;
	char *was;

	/* (a call into libslurm, so that the linker keeps it: the plugins
	 * read the slurm_conf of the process they run in) */
	cr_assert_gt(slurm_api_version(), 0);
	conf = dlsym(RTLD_DEFAULT, "slurm_conf");
	cr_assert_not_null(conf, "libslurm exports slurm_conf");
	was = conf->bb_type;
	conf->bb_type = NULL;
	cr_assert_not(sx_guard_configured());
	conf->bb_type = "burst_buffer/lua";
	cr_assert_not(sx_guard_configured());
	conf->bb_type = "burst_buffer/extra";
	cr_assert(sx_guard_configured());
	conf->bb_type = was;
}
