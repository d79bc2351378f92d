/*
 * test_plugin_carried.c - the entry points with the feature carrier on
 * (Carrier=features; plugin/carried.h, doc/thread.md "Carriers"), in the
 * context of test_plugin_fixture.h with the thread's carrier state set as
 * its round leaves it: the feature of gpu=true known to slurmctld and on
 * n1 and n2.  A submission gets the feature ANDed into its constraint and
 * --prefer and keeps its user's exclusions alone, is held while too few
 * nodes carry it, and goes by its ExcNodeList when it cannot be carried;
 * an update keeps the feature in what the owner sets, or moves the job to
 * its ExcNodeList in the same update.
 */
#include <stdlib.h>
#include <string.h>

#include <json-c/linkhash.h>

#include "ctld.h"
#include "entry.h"
#include "job_filter.h"
#include "plugin_config.h"

#include <criterion/criterion.h>

#include "test_plugin_fixture.h"

static char F[SX_FEATURE_LEN + 1];

/* The name of `text`'s request, as the thread would claim it. */
static void name_of(const char *text, char name[SX_FEATURE_LEN + 1])
{
	xc_expr_t *e = xc_parse(text, NULL, NULL);
	char *canonical;

	cr_assert_not_null(e);
	canonical = xc_format(e);
	cr_assert_not_null(canonical);
	sx_feature_name(xc_text_hash(canonical), name);
	free(canonical);
	xc_expr_destroy(e);
}

/* Claims `name` for canonical text `canonical`, known to slurmctld, on
 * `count` nodes: the state the thread's round leaves (carry_done()). */
static void claim(const char *name, const char *canonical, size_t count)
{
	struct carry_name *n = calloc(1, sizeof(*n));

	cr_assert_not_null(n);
	memcpy(n->name, name, sizeof(n->name));
	n->canonical = strdup(canonical);
	n->known = true;
	n->count = count;
	cr_assert_eq(lh_table_insert(entry_thread->carry.names, n->name, n), 0);
}

static void carried_setup(void)
{
	struct thread *r;

	setup();
	r = entry_thread;
	r->cfg.carrier_features = entry_cfg.carrier_features = true;
	cr_assert_eq(carry_init(&r->carry), 0);
	carry_conf(&r->carry, sx_conf_time(), true, true);
	name_of(REQUEST, F);
	claim(F, REQUEST, 2);
}

TestSuite(carried, .init = carried_setup, .fini = teardown);

static char *with_f(const char *own)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s%s%s", own, *own ? "&" : "", F);
	return buf;
}

Test(carried, a_submission_names_the_feature_and_keeps_the_users_exclusions)
{
	job_desc_msg_t *d = submission(&desc, REQUEST);

	set_str(&d->exc_nodes, "n1");
	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->features, F);
	cr_assert_null(d->prefer);
	cr_assert_str_eq(d->exc_nodes, "n1", "the user's alone");
	state_of(d->admin_comment, &st);
	cr_assert(strstr(st.status, F), "'%s'", st.status);
	cr_assert_str_eq(st.exclude, "n1");
	cr_assert_not(st.held);
}

Test(carried, the_users_constraint_and_prefer_stay_in_front)
{
	job_desc_msg_t *d = submission(&desc, REQUEST);

	set_str(&d->features, "ib|big");
	set_str(&d->prefer, "fast");
	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->features, with_f("ib|big"));
	cr_assert_str_eq(d->prefer, with_f("fast"));
}

Test(carried, held_while_fewer_nodes_carry_it_than_the_job_asks_for)
{
	job_desc_msg_t *d = submission(&desc, REQUEST);

	d->min_nodes = 3; /* two carry it, four in all */
	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->features, F);
	cr_assert_eq(d->priority, 0);
	state_of(d->admin_comment, &st);
	cr_assert(st.held);
}

Test(carried, node_counts_required_nodes_or_an_unknown_name_keep_the_exclusions)
{
	job_desc_msg_t *d = submission(&desc, REQUEST);

	set_str(&d->features, "[ib*1&big*1]");
	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->features, "[ib*1&big*1]");
	cr_assert_str_eq(d->exc_nodes, "n[3-4]");
	desc_free(d);
	d = submission(&desc, REQUEST);
	set_str(&d->req_nodes, "n1");
	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_null(d->features);
	cr_assert_str_eq(d->exc_nodes, "n[3-4]");
	desc_free(d);
	d = submission(&desc, "gpu=false"); /* no name claimed */
	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_null(d->features);
	cr_assert_str_eq(d->exc_nodes, "n[1-2]");
}

Test(carried, a_name_another_request_claimed_is_not_borrowed)
{
	char name[SX_FEATURE_LEN + 1];
	job_desc_msg_t *d = submission(&desc, "gpu=false");

	name_of("gpu=false", name);
	claim(name, "gpu=maybe", 4); /* another text, same name */
	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_null(d->features);
	cr_assert_str_eq(d->exc_nodes, "n[1-2]");
}

Test(carried, slurm_conf_read_again_since_the_thread_looked_forgets_the_names)
{
	job_desc_msg_t *d = submission(&desc, REQUEST);

	entry_thread->carry.conf_time = sx_conf_time() + 1;
	cr_assert_eq(job_submit(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_null(d->features);
	cr_assert_str_eq(d->exc_nodes, "n[3-4]");
}

/* Known job 7 carried by F, with constraint `own` of its user's. */
static void job7_carried(const char *own)
{
	struct known_job *k =
		(struct known_job *)known_job_find(&entry_thread->known, 7);

	cr_assert_not_null(k);
	cr_assert_str_eq(k->feature, F);
	free(k->features);
	k->features = strdup(with_f(own));
	free(k->st.exclude);
	k->st.exclude = strdup("");
}

Test(carried, the_owners_constraint_gets_the_feature_back)
{
	job_desc_msg_t *d;

	job7_carried("ib");
	d = update(&desc, "7");
	set_str(&d->features, "big");
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->features, with_f("big"));
	cr_assert_null(d->exc_nodes, "no exclusions of the plugin's");
	d = update(&desc2, "7");
	set_str(&d->features, "");
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->features, F, "cleared: the feature alone");
}

Test(carried, a_copy_of_the_feature_is_not_doubled)
{
	job_desc_msg_t *d;

	job7_carried("");
	d = update(&desc, "7");
	set_str(&d->features, with_f("ib")); /* from scontrol show job */
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->features, with_f("ib"));
}

Test(carried, the_owners_prefer_gets_it_too)
{
	job_desc_msg_t *d;

	job7_carried("");
	d = update(&desc, "7");
	set_str(&d->prefer, "fast");
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->prefer, with_f("fast"));
	cr_assert_null(d->features, "the constraint has it already");
}

Test(carried, counts_move_the_job_to_its_exclusions_in_the_same_update)
{
	job_desc_msg_t *d;

	job7_carried("ib");
	d = update(&desc, "7");
	set_str(&d->features, "[ib*1&big*1]");
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->features, "[ib*1&big*1]");
	cr_assert_str_eq(d->exc_nodes, "n[3-4]");
}

Test(carried, required_nodes_move_it_too)
{
	job_desc_msg_t *d;

	job7_carried("ib");
	d = update(&desc, "7");
	set_str(&d->req_nodes, "n1");
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->features, "ib", "the user's own alone");
	cr_assert_str_eq(d->exc_nodes, "n[3-4]");
}

Test(carried, the_users_exclusions_pass_as_they_are)
{
	job_desc_msg_t *d;

	job7_carried("");
	d = update(&desc, "7");
	set_str(&d->exc_nodes, "n2");
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->exc_nodes, "n2");
	cr_assert_null(d->features);
	cr_assert(only_hint()->exc, "the thread told of the user's list");
	cr_assert_eq(only_hint()->exc_hash, hostlist_hash("n2"),
		     "as the caller set it: all the user's own");
}

Test(carried, a_name_slurmctld_no_longer_knows_moves_the_job_to_its_exclusions)
{
	job_desc_msg_t *d;

	job7_carried("ib");
	entry_thread->carry.conf_time = sx_conf_time() + 1; /* reconfigured */
	d = update(&desc, "7");
	set_str(&d->features, "big");
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->features, "big", "Slurm would refuse the name");
	cr_assert_str_eq(d->exc_nodes, "n[3-4]");
}
