/*
 * cmd_facts.c - the command facts (slurm-extra(1), "facts"; doc/facts.md):
 * prints this node's facts as one flat JSON object, the Extra Slurm reads
 * (`slurmd --extra "$(slurm-extra facts)"` on 23.11 and later), or with
 * --publish writes them into the node's Extra through slurmctld
 * (slurm_update_node(), as `scontrol update nodename=... extra=...`),
 * only when they changed, keeping the keys the site set by hand.
 *
 * Exit status: 0 printed, published or already published; 1 slurmctld
 * could not be read or refused the update, or the node's Extra is not a
 * JSON object it could keep; 2 a site fact or a hook is wrong, a fact
 * cannot stand in Extra, or a usage error.  On every failure nothing is
 * printed on stdout and the node's Extra is left as it was.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "cli.h"
#include "facts.h"
#include "slurm_compat.h"

#define DEFAULT_DIR "/etc/slurm/extra.d"
#define DEFAULT_STATE "/var/lib/slurm-extra"
/* Seconds a publication waits for the state's lock beyond twice the
 * timeout: the holder's RPCs to slurmctld. */
#define LOCK_SLACK_S 20
#define DEFAULT_TIMEOUT 10
#define EXIT_SLURM 1 /* slurmctld not read, or the update refused */

/* The node this runs for: --node, else $SLURMD_NODENAME (set for the
 * programs slurmd runs), else the host name up to its first '.' (slurmd's
 * own default NodeName). */
static const char *node_name(const struct opts *o, char *buf, size_t size)
{
	const char *env = getenv("SLURMD_NODENAME");

	if (o->node)
		return o->node;
	if (env && *env)
		return env;
	if (gethostname(buf, size) != 0)
		return NULL;
	buf[size - 1] = '\0';
	buf[strcspn(buf, ".")] = '\0';
	return buf;
}

/* Whether `changes` ("~a +b -c") removes a key discovery owns: then what
 * discovery could not read may be why. */
static bool discovered_gone(const char *changes)
{
	for (const char *p = changes; (p = strchr(p, '-')); p++) {
		char key[256];
		size_t n = strcspn(p + 1, " ");

		if (p != changes && p[-1] != ' ')
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)(n < 255 ? n : 255),
			 p + 1);
		if (facts_discovered_key(key))
			return true;
	}
	return false;
}

/* --publish: node `node`'s Extra made the facts `f` plus its keys set by
 * hand, when that changes it; `note` (what discovery could not read) is
 * said when that removes a key.  `dirfd` is the state directory `dir`,
 * locked (facts_open_state()) before the facts were gathered and until
 * the state is written, so that publications land in the order their
 * facts were read. */
static int publish(const struct opts *o, const struct facts *f,
		   const char *node, const char *note, const char *dir,
		   int dirfd)
{
	node_info_msg_t *msg = NULL;
	update_node_msg_t upd;
	char state[PATH_MAX], name[300], err[FACTS_ERR_SIZE];
	char *next = NULL, *changes = NULL;
	int rc = EXIT_SLURM, d;

	slurm_init(NULL);
	if (slurm_load_node_single(&msg, (char *)node, SHOW_ALL) !=
		    SLURM_SUCCESS ||
	    !msg || msg->record_count == 0) {
		say("cannot read node %s from slurmctld: %s; its Extra is left as it is",
		    node,
		    msg ? "no such node (give its name with --node)"
			: slurm_strerror(sx_slurm_errno()));
		goto out;
	}
	snprintf(name, sizeof(name), "facts-%s.keys.json", node);
	snprintf(state, sizeof(state), "%s/%s", dir, name);
	d = facts_publication(f, msg->node_array[0].extra, dirfd, name, &next,
			      &changes, err);
	if (d < 0) {
		say("node %s: %s; left as it is%s", node, err,
		    strstr(err, "not a JSON object")
			    ? " (make it an object, or clear it: scontrol update nodename=NODE extra=)"
			    : "");
		goto out;
	}
	if (d == 1) {
		slurm_init_update_node_msg(&upd);
		upd.node_names = (char *)node;
		upd.extra = next;
		if (slurm_update_node(&upd) != SLURM_SUCCESS) {
			say("node %s: slurmctld refused the update: %s; its Extra is left as it is",
			    node, slurm_strerror(sx_slurm_errno()));
			goto out;
		}
		printf("%s: Extra updated: %s\n", node, changes);
		if (*note && !o->verbose && discovered_gone(changes))
			say("note: %s", note);
	} else {
		printf("%s: Extra unchanged\n", node);
	}
	if (facts_save_state(f, dirfd, name) != 0)
		say("warning: cannot write %s (%s): a site key removed later will stay in the node's Extra",
		    state, strerror(errno));
	rc = 0;
out:
	free(next);
	free(changes);
	sx_free_node_info_msg(msg);
	return rc;
}

int cmd_facts(const struct opts *o)
{
	struct facts_env env = { NULL, NULL, o->scratch, false, 0 };
	struct facts *f;
	char note[FACTS_ERR_SIZE], err[FACTS_ERR_SIZE], host[256];
	const char *node = NULL;
	const char *state_dir = o->state ? o->state : DEFAULT_STATE;
	long timeout = DEFAULT_TIMEOUT;
	char *text;
	int rc, dirfd = -1, lockfd = -1;

	if (o->request)
		return fail("facts takes no REQUEST ('%s')", o->request);
	if (o->timeout) {
		char *end;

		errno = 0;
		timeout = strtol(o->timeout, &end, 10);
		if (errno || *end || end == o->timeout || timeout < 1 ||
		    timeout > 3600)
			return fail(
				"--timeout: a number of seconds from 1 to 3600 expected");
	}
	if (o->publish && !(node = node_name(o, host, sizeof(host))))
		return fail("cannot tell this node's name: give --node NAME");
	if (node &&
	    (!*node || strchr(node, '/') || *node == '.' || strlen(node) > 256))
		return fail("'%s' is not a node name", node);
	if (!o->publish && (o->node || o->state))
		return fail("--%s is for facts --publish",
			    o->node ? "node" : "state");
	if (o->scratch && access(o->scratch, F_OK) != 0)
		return fail("--scratch %s: %s", o->scratch, strerror(errno));
	env.timeout_s = (int)timeout;
	/* the lock waited for as long as a publication holding it may
	 * take: discovery and the site's hooks, each within the timeout,
	 * and slurmctld's answers */
	if (o->publish && (dirfd = facts_open_state(
				   state_dir, 2 * (int)timeout + LOCK_SLACK_S,
				   &lockfd, err)) < 0)
		return fail(
			"%s; nothing published: the node's Extra is left as it is",
			err);
	f = facts_gather(&env, o->dir ? o->dir : DEFAULT_DIR, o->dir != NULL,
			 (int)timeout, note, err);
	if (o->verbose && *note)
		say("note: %s", note);
	if (!f) {
		rc = fail(
			"%s; nothing %s", err,
			o->publish
				? "published: the node's Extra is left as it is"
				: "printed");
		goto out;
	}
	if (o->verbose)
		facts_print_sources(f, stderr);
	if (o->publish) {
		rc = publish(o, f, node, note, state_dir, dirfd);
	} else if (!(text = facts_text(f))) {
		rc = fail("out of memory");
	} else if (strlen(text) > FACTS_MAX_EXTRA) {
		rc = fail("the facts are %zu bytes, more than %d", strlen(text),
			  FACTS_MAX_EXTRA);
		free(text);
	} else {
		printf("%s\n", text);
		free(text);
		rc = EXIT_MATCH;
	}
	facts_free(f);
out:
	if (lockfd >= 0)
		close(lockfd);
	if (dirfd >= 0)
		close(dirfd);
	return rc;
}
