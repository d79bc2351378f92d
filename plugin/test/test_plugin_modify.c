/*
 * test_plugin_modify.c - job_submit/extra's job_modify() outside
 * slurmctld, in the context of test_plugin_fixture.h (the thread's state
 * built by hand through thread_private.h), for users' updates:
 * exclusions added only to the ExcNodeList being set, never an
 * AdminComment the caller did not set, the hints for the thread (trusted
 * on 22.05 only for the owner, root and SlurmUser), what is urgent, and
 * the calls Slurm repeats with the same job_desc (doc/thread.md
 * "Updates").  The thread's own update, admins' AdminComments and the
 * check's note are test_plugin_modify_admin.c's.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "entry.h"
#include "job_filter.h"
#include "job_state.h"
#include "plugin_config.h"

#include <criterion/criterion.h>

#include "test_plugin_fixture.h"

/* The only hint job_modify() recorded, checked as one for job `id` whose
 * ExcNodeList was set to `exc`, `user` being the user's own part of it
 * (NULL: none). */
static const struct job_hint *only_exc_hint(uint32_t id, const char *exc,
					    const char *user)
{
	const struct job_hint *h = only_hint();

	cr_assert_eq(h->id, id);
	cr_assert(h->exc);
	if (user)
		cr_assert_str_eq(h->user_exc, user);
	else
		cr_assert_null(h->user_exc);
	cr_assert_eq(h->exc_hash, hostlist_hash(exc));
	return h;
}

/* The owner's update of job `name` setting ExcNodeList=`exc`, through
 * job_modify() (the test fails unless it passes). */
static job_desc_msg_t *owners_exc_update(const char *name, const char *exc)
{
	job_desc_msg_t *d = update(&desc, name);

	set_str(&d->exc_nodes, exc);
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	return d;
}

Test(plugin, the_owners_exclusions_keep_the_plugins)
{
	job_desc_msg_t *d = owners_exc_update("7", "n1");
	const struct job_hint *h;

	cr_assert_null(err);
	cr_assert_str_eq(d->exc_nodes, "n[1,3-4]");
	cr_assert_null(d->admin_comment, "an AdminComment added: '%s'",
		       d->admin_comment);
	h = only_exc_hint(7, "n[1,3-4]", "n1");
	cr_assert_eq(h->task, NO_VAL);
	cr_assert_eq(h->offset, NO_VAL);
	cr_assert(h->trusted);
	cr_assert_not(h->hold);
}

/* 22.05 checks the caller after job_modify(): the same change (which
 * Slurm then refuses, or lets an operator make), and no hint: an
 * untrusted caller's hint decides nothing and costs the thread nothing. */
Test(plugin, another_users_update_is_not_trusted_on_22_05)
{
	job_desc_msg_t *d = update(&desc, "7");

	if (SX_OWNER_CHECKED_FIRST)
		cr_skip_test(
			"from 23.02 Slurm checks the caller before job_modify(): every hint is trusted");
	set_str(&d->exc_nodes, "n1");
	cr_assert_eq(modify(d, OTHER, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->exc_nodes, "n[1,3-4]");
	cr_assert_null(d->admin_comment);
	cr_assert_eq(entry_thread->hints.n, 0, "%zu hints",
		     entry_thread->hints.n);
	cr_assert_eq(entry_thread->hints.losses, 0);
}

Test(plugin, an_update_of_other_fields_changes_nothing)
{
	job_desc_msg_t *d = update(&desc, "7");

	d->time_limit = 60;
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_null(d->exc_nodes);
	cr_assert_null(d->admin_comment);
	cr_assert_null(d->req_nodes);
	cr_assert_eq(d->time_limit, 60);
	cr_assert_eq(entry_thread->hints.n, 0, "%zu hints",
		     entry_thread->hints.n);
}

/* An update of no field the thread's plan reads leaves no hint, of a job
 * the thread filters or not: it costs the thread nothing (before, every
 * update of any job made the thread load every job). */
Test(plugin, an_update_of_a_field_the_plan_does_not_read_leaves_no_hint)
{
	job_desc_msg_t *d = update(&desc, "999");

	d->time_limit = 60;
	cr_assert_eq(modify(d, 0, &err), SLURM_SUCCESS);
	cr_assert_eq(entry_thread->hints.n, 0);
	desc_free(d);
	d = update(&desc, "7");
	set_str(&d->comment, "x");
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_eq(entry_thread->hints.n, 0);
}

/* Slurm calls job_modify() once per record of a whole array with the
 * same update: a thousand calls leave one hint, not a thousand (which
 * flooded the set, and every plan of the thread was refused). */
Test(plugin, one_update_of_a_whole_array_leaves_one_hint)
{
	job_desc_msg_t *d = update(&desc, "7");

	d->priority = 0;
	for (int i = 0; i < 1001; i++)
		cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_eq(entry_thread->hints.n, 1, "%zu hints",
		     entry_thread->hints.n);
	cr_assert_eq(entry_thread->hints.v[0].seq, entry_thread->hints.seq,
		     "the hint carries the last call's seq");
	cr_assert_eq(entry_thread->hints.losses, 0);
	cr_assert_eq(entry_thread->hints.v[0].owner, OWNER);
}

Test(plugin, a_hold_is_hinted)
{
	job_desc_msg_t *d = update(&desc, "7");

	d->priority = 0;
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_eq(d->priority, 0);
	cr_assert(only_hint()->hold);
	cr_assert_null(d->admin_comment);
}

Test(plugin, roots_admin_comment_keeps_the_state_after_it)
{
	job_desc_msg_t *d = update(&desc, "7");

	set_str(&d->admin_comment, "reboot first");
	cr_assert_eq(modify(d, 0, &err), SLURM_SUCCESS);
	cr_assert_eq(strncmp(d->admin_comment, "reboot first" MARK, 26), 0,
		     "'%s'", d->admin_comment);
	state_of(d->admin_comment, &st);
	cr_assert_str_eq(st.admin, "reboot first");
	cr_assert_str_eq(st.request, REQUEST);
	cr_assert_str_eq(st.exclude, "");
	cr_assert_str_eq(st.status, TWO_OF_FOUR);
	cr_assert_not(st.held);
	cr_assert_null(d->exc_nodes);
	cr_assert_not(only_hint()->exc);
}

/* Root sets both: the state's user exclusions are the ones being set. */
Test(plugin, roots_exclusions_and_comment_together)
{
	job_desc_msg_t *d = update(&desc, "7");

	set_str(&d->exc_nodes, "n2");
	set_str(&d->admin_comment, "x");
	cr_assert_eq(modify(d, 0, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->exc_nodes, "n[2-4]");
	state_of(d->admin_comment, &st);
	cr_assert_str_eq(st.admin, "x");
	cr_assert_str_eq(st.exclude, "n2");
	cr_assert(only_hint()->trusted);
}

/* New required nodes: the user's own exclusions (n2, from the state) and
 * the plugin's, less the required node. */
Test(plugin, new_required_nodes_keep_the_users_exclusions)
{
	job_desc_msg_t *d = update(&desc, "8");

	set_str(&d->req_nodes, "n3");
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->exc_nodes, "n[2,4]");
	cr_assert_str_eq(d->req_nodes, "n3");
	cr_assert_null(d->admin_comment);
	only_exc_hint(8, "n[2,4]", "n2");
}

/* A whole heterogeneous job: its components' requests may differ, so
 * nothing is added. */
Test(plugin, an_update_of_a_het_leader_adds_nothing)
{
	job_desc_msg_t *d = owners_exc_update("200", "n1");

	cr_assert_str_eq(d->exc_nodes, "n1");
	cr_assert_null(d->admin_comment);
	cr_assert_eq(only_exc_hint(200, "n1", NULL)->offset, NO_VAL);
}

Test(plugin, an_update_of_one_het_component_keeps_its_filter)
{
	job_desc_msg_t *d = owners_exc_update("200+1", "n1");
	const struct job_hint *h;

	cr_assert_str_eq(d->exc_nodes, "n[1,3-4]");
	h = only_hint();
	cr_assert_eq(h->id, 200);
	cr_assert_eq(h->offset, 1);
	cr_assert_str_eq(h->user_exc, "n1");
	cr_assert(h->trusted);
}

Test(plugin, an_update_of_an_unknown_job_adds_nothing)
{
	job_desc_msg_t *d = owners_exc_update("999", "n1");

	cr_assert_str_eq(d->exc_nodes, "n1");
	cr_assert_null(d->admin_comment);
	if (SX_OWNER_CHECKED_FIRST)
		only_exc_hint(999, "n1", NULL);
	else /* 22.05: its owner is not known, nor whether Slurm allows it:
		the hint only has the job planned */
		cr_assert_not(only_hint()->exc);
}

/* What job_modify() settles itself waits for the thread at the pace of
 * users' asks; what it cannot is urgent: the thread's next round
 * (thread_private.h, `urgent`), at most once in HINTS_URGENT_S per owner
 * (forgotten here between the cases by emptying the hints). */
Test(plugin, what_an_update_does_not_settle_is_urgent)
{
	job_desc_msg_t *d;
	bool het_all;

	/* each update's strings freed before the next fills `desc` */
	owners_exc_update("7", "n1");
	cr_assert_eq(entry_thread->urgent, 0, "a list set here");
	entry_thread->max_job_id = 1000;
	desc_free(&desc);
	owners_exc_update("999", "n1");
	cr_assert_eq(entry_thread->urgent, 0,
		     "a job the last load had, not known: no request");
	desc_free(&desc);
	owners_exc_update("1001", "n1");
	cr_assert_eq(entry_thread->urgent, 1, "a job after the last load");
	desc_free(&desc);
	owners_exc_update("1002", "n1");
	cr_assert_eq(entry_thread->urgent, 1,
		     "the same owner again within %d s: paced", HINTS_URGENT_S);
	hints_free(&entry_thread->hints);
	desc_free(&desc);
	d = update(&desc, "1003");
	d->priority = 0;
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_eq(entry_thread->urgent, 1,
		     "a hold of a job after the last load");
	desc_free(&desc);
	owners_exc_update("200", "n1");
	cr_assert_eq(entry_thread->urgent, 2, "a whole het job's list");
	hints_free(&entry_thread->hints);
	desc_free(&desc);
	d = update(&desc, "200");
	d->priority = 0;
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_eq(entry_thread->urgent, 2, "a whole het job's hold");
	desc_free(&desc);
	d = update(&desc, "7");
	set_str(&d->req_nodes, "n1");
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_eq(entry_thread->urgent, 2, "required nodes that match");
	desc_free(&desc);
	d = update(&desc, "7");
	d->priority = 100;
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_eq(entry_thread->urgent, 2,
		     "a release of a job the plugin did not hold");
	desc_free(&desc);
	d = update(&desc, "8");
	set_str(&d->req_nodes, "n3");
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_eq(entry_thread->urgent, 3,
		     "required nodes the request excludes: held");
	hints_free(&entry_thread->hints);
	((struct known_job *)known_target(&entry_thread->known, 7, NO_VAL,
					  NO_VAL, &het_all))
		->st.held = true;
	desc_free(&desc);
	d = update(&desc, "7");
	d->priority = 100;
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_eq(entry_thread->urgent, 4, "a release of the plugin's hold");
	hints_free(&entry_thread->hints);
	desc_free(&desc);
	d = update(&desc, "8");
	set_str(&d->req_nodes, "n3");
	((struct known_job *)known_target(&entry_thread->known, 8, NO_VAL,
					  NO_VAL, &het_all))
		->st.held = true;
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_eq(
		entry_thread->urgent, 4,
		"required nodes the request excludes, the job held already");
}

/* Slurm calls job_modify() once per record of an array or het job, with
 * the same job_desc: the first call did it all. */
Test(plugin, the_same_job_desc_again_is_done_already)
{
	job_desc_msg_t *d = owners_exc_update("7", "n1");
	const char *exc;

	exc = d->exc_nodes;
	cr_assert_str_eq(exc, "n[1,3-4]");
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_eq(d->exc_nodes, exc, "exc_nodes replaced");
	cr_assert_str_eq(d->exc_nodes, "n[1,3-4]");
	cr_assert_eq(entry_thread->hints.n, 1, "%zu hints",
		     entry_thread->hints.n);
	cr_assert_null(err);
}

/* A later update whose job_desc and list happen to sit where the last
 * one's were (freed, then allocated again), but which says something
 * else, is a new update: before, the addresses alone decided, and it was
 * taken for a repeat and passed without the plugin's exclusions or a
 * hint. */
Test(plugin, a_new_update_at_the_same_addresses_is_not_a_repeat)
{
	job_desc_msg_t *d = owners_exc_update("7", "n1");

	cr_assert_str_eq(d->exc_nodes, "n[1,3-4]");
	/* the same addresses, another list of the same length */
	memcpy(d->exc_nodes, "n[2,3-4]", 8);
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->exc_nodes, "n[2-4]");
	cr_assert_eq(entry_thread->hints.n, 2, "%zu hints",
		     entry_thread->hints.n);
	/* another job's update at the same address, setting the same list
	 * the plugin set last */
	set_str(&d->job_id_str, "8");
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_eq(entry_thread->hints.n, 3, "%zu hints",
		     entry_thread->hints.n);
}

/* A new request is checked as at submission. */
Test(plugin, an_invalid_new_request_is_refused)
{
	job_desc_msg_t *d = update(&desc, "7");

	if (!SX_SLURM_HAS_EXTRA_OPTION)
		cr_skip_test(
			"22.05 has no `extra` in updates: the plugin ignores it too");

	set_str(&d->extra, "gpu=");
	set_str(&d->exc_nodes, "n1");
	assert_refused_request(modify(d, OWNER, &err));
	cr_assert_str_eq(d->exc_nodes, "n1");
	cr_assert_null(d->admin_comment);
	cr_assert_eq(entry_thread->hints.n, 0, "%zu hints",
		     entry_thread->hints.n);
}

/* A new valid request with new exclusions: filtered by the new one. */
Test(plugin, a_new_request_filters_the_exclusions_being_set)
{
	job_desc_msg_t *d = update(&desc, "7");
	const struct job_hint *h;

	if (!SX_SLURM_HAS_EXTRA_OPTION)
		cr_skip_test(
			"22.05 has no `extra` in updates: the plugin ignores it too");

	set_str(&d->extra, "mem>100");
	set_str(&d->exc_nodes, "n1");
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->exc_nodes, "n[1-4]");
	cr_assert_null(d->admin_comment);
	h = only_hint();
	cr_assert_str_eq(h->user_exc, "n1");
}

Test(plugin, an_update_without_the_plugin_running_passes)
{
	job_desc_msg_t *d = update(&desc, "7");

	set_str(&d->exc_nodes, "n1");
	entry_on = false;
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	entry_on = true;
	cr_assert_str_eq(d->exc_nodes, "n1");
	cr_assert_eq(entry_thread->hints.n, 0);
}

/* A ReqNodeList alone whose nodes all satisfy the request: nothing added
 * (it may be a running job's shrink, which an ExcNodeList makes Slurm
 * refuse after applying it). */
Test(plugin, required_nodes_that_match_add_no_exclusions)
{
	job_desc_msg_t *d = update(&desc, "7");

	set_str(&d->req_nodes, "n1");
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_null(d->exc_nodes, "'%s'", d->exc_nodes);
	cr_assert_not(only_hint()->exc);
}

/* A user's list longer than every node name of the table written one by
 * one cannot name the table's nodes alone: it is not read by name (so its
 * cost to the plugin is the table's, not the list's; before, it was
 * parsed, rewritten and parsed again under the job write lock: 1 s for
 * 100,000 names at 10,000 nodes, tests/bench/bench_modify); the plugin's nodes
 * are written after it as it is, and the hint tells the list by its
 * text's hash, the user's part as they wrote it. */
Test(plugin, a_list_longer_than_the_table_gets_the_plugins_nodes_after_it)
{
	job_desc_msg_t *d = update(&desc, "7");
	const struct job_hint *h;

	set_str(&d->exc_nodes, "n1,n1,n1,n1,n1,n1");
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->exc_nodes, "n1,n1,n1,n1,n1,n1,n[3-4]");
	h = only_hint();
	cr_assert(h->exc);
	cr_assert_eq(h->exc_hash, 0);
	cr_assert_eq(h->exc_text, xc_text_hash("n1,n1,n1,n1,n1,n1,n[3-4]"));
	cr_assert_str_eq(h->user_exc, "n1,n1,n1,n1,n1,n1");
}

/* A list naming a node the table does not have, or more names than the
 * table has (a short text may name thousands), alike: Slurm reads it, and
 * refuses a node it does not have. */
Test(plugin, a_list_beyond_the_table_gets_the_plugins_nodes_after_it)
{
	job_desc_msg_t *d = update(&desc, "7");

	set_str(&d->exc_nodes, "x1");
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->exc_nodes, "x1,n[3-4]");
	cr_assert_str_eq(only_hint()->user_exc, "x1");
	desc_free(d);
	d = update(&desc, "7");
	set_str(&d->exc_nodes, "x[1-60000]");
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->exc_nodes, "x[1-60000],n[3-4]");
	/* within the table: read, and the plugin's nodes merged, as before */
	desc_free(d);
	d = update(&desc, "7");
	set_str(&d->exc_nodes, "n4,n1");
	cr_assert_eq(modify(d, OWNER, &err), SLURM_SUCCESS);
	cr_assert_str_eq(d->exc_nodes, "n[1,3-4]");
}
