/*
 * slurm-helper.c - what the cluster tests need that the Slurm commands
 * cannot do, done through Slurm's public API against the real cluster:
 *
 *   slurm-helper set-extra NODE FILE   set NODE's Extra to FILE's bytes
 *                                      (scontrol cannot pass 1 MiB)
 *   slurm-helper submit FILE           submit a batch job whose request is
 *                                      FILE's bytes, as a client without
 *                                      the SPANK check would send it
 *                                      (in spank_job_env); prints
 *                                      "accepted JOBID" or "refused: MSG"
 *   slurm-helper digest                the digest (xc_nodes_digest) of the
 *                                      live node data, as the plugin logs
 *                                      it for the table it loaded
 *   slurm-helper features NODE         NODE's active features, read alone
 *                                      (slurm_load_node_single: scontrol
 *                                      show node loads every node, which
 *                                      a benchmark polling it would pay)
 *   slurm-helper excluded JOBID INDEX  whether node INDEX (of the node
 *                                      table, 0 the first) is in job
 *                                      JOBID's excluded nodes as slurmctld
 *                                      keeps them (its bitmap, packed as
 *                                      exc_node_inx with SHOW_DETAIL; the
 *                                      ExcNodeList text may say less): 0
 *                                      yes, 1 no, 2 cannot tell
 *   slurm-helper excluded JOBID        the names of the nodes in that
 *                                      bitmap, comma-separated (an empty
 *                                      line: none), by the node table's
 *                                      order as slurm_load_node() gives
 *                                      it (a table without holes: no
 *                                      dynamic nodes)
 *   slurm-helper update COUNT IDSTR JOBID [FIELD=VALUE...]
 *                                      sends COUNT times the update
 *                                      slurm_update_job() of job_id_str
 *                                      IDSTR ("-": none) and job_id JOBID
 *                                      (0: none), as a hostile client may:
 *                                      priority=N, exclude=LIST,
 *                                      extra=TEXT, tiers=T1,T2 (the
 *                                      preferences' variable, each tier
 *                                      ended by its separator), tiers-of=
 *                                      N,BYTES (N tiers of BYTES bytes
 *                                      each), wait=SECONDS; prints "N ok,
 *                                      M refused: MSG" (the last refusal)
 *
 * Exit status: 0 done/accepted, 1 refused, 2 usage or I/O error.
 */
#define _GNU_SOURCE /* asprintf */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "prefer.h"
#include "slurm_compat.h"
#include "xc.h"

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long len;

	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) || !(buf = malloc((size_t)len + 1)) ||
	    fread(buf, 1, (size_t)len, f) != (size_t)len) {
		perror(path);
		exit(2);
	}
	buf[len] = '\0';
	fclose(f);
	return buf;
}

static int set_extra(const char *node, const char *path)
{
	update_node_msg_t msg;

	slurm_init_update_node_msg(&msg);
	msg.node_names = (char *)node;
	msg.extra = read_file(path);
	if (slurm_update_node(&msg) != SLURM_SUCCESS) {
		fprintf(stderr, "update %s: %s\n", node,
			slurm_strerror(sx_slurm_errno()));
		return 2;
	}
	free(msg.extra);
	return 0;
}

static int submit(const char *path)
{
	static const char prefix[] = "_SLURM_SPANK_OPTION_extra_extra=";
	char *request = read_file(path), *env_var,
	     *envp[] = { "PATH=/bin:/usr/bin", NULL };
	char cwd[4096];
	job_desc_msg_t job;
	submit_response_msg_t *resp = NULL;
	int rc;

	env_var = malloc(sizeof(prefix) + strlen(request));
	strcpy(env_var, prefix);
	strcat(env_var, request);
	slurm_init_job_desc_msg(&job);
	job.name = "xc-helper";
	job.script = "#!/bin/sh\ntrue\n";
	job.user_id = getuid();
	job.group_id = getgid();
	job.min_nodes = 1;
	job.environment = envp;
	job.env_size = 1;
	job.work_dir = getcwd(cwd, sizeof(cwd));
	job.std_out = "/dev/null";
	job.spank_job_env = &env_var;
	job.spank_job_env_size = 1;
	rc = slurm_submit_batch_job(&job, &resp);
	if (rc == SLURM_SUCCESS) {
		printf("accepted %u\n", SX_SUBMIT_JOB_ID(resp));
		slurm_free_submit_response_response_msg(resp);
		return 0;
	}
	printf("refused: %s\n", slurm_strerror(sx_slurm_errno()));
	free(env_var);
	free(request);
	return 1;
}

/* The preferences' variable of `value` "N,BYTES": N tiers "k=aaa..." of
 * BYTES bytes each, each ended by PREFER_SEP (malloc'd). */
static char *tiers_of(const char *value)
{
	unsigned long n = 0, bytes = 0;
	char *v, *p;

	if (sscanf(value, "%lu,%lu", &n, &bytes) != 2 || bytes < 3 ||
	    !(v = malloc(sizeof(PREFER_VAR) + n * (bytes + 1))))
		return NULL;
	p = v + sprintf(v, "%s", PREFER_VAR);
	for (unsigned long i = 0; i < n; i++) {
		p[0] = 'k';
		p[1] = '=';
		memset(p + 2, 'a', bytes - 2);
		p[bytes] = PREFER_SEP;
		p += bytes + 1;
	}
	*p = '\0';
	return v;
}

static int update(int argc, char **argv)
{
	long count = strtol(argv[2], NULL, 10), ok = 0, refused = 0;
	char *env[2] = { NULL, NULL }, last[256] = "";
	unsigned n_env = 0;
	job_desc_msg_t d;

	slurm_init_job_desc_msg(&d);
	if (strcmp(argv[3], "-") != 0)
		d.job_id_str = argv[3];
	if (strtoul(argv[4], NULL, 10))
		SX_DESC_JOB_ID(&d) = (uint32_t)strtoul(argv[4], NULL, 10);
	for (int i = 5; i < argc; i++) {
		char *eq = strchr(argv[i], '='), *v;

		if (!eq || n_env == 2)
			return 2;
		*eq = '\0';
		v = eq + 1;
		if (strcmp(argv[i], "priority") == 0) {
			d.priority = (uint32_t)strtoul(v, NULL, 10);
		} else if (strcmp(argv[i], "exclude") == 0) {
			d.exc_nodes = v;
		} else if (strcmp(argv[i], "extra") == 0) {
#if SX_SLURM_HAS_EXTRA_OPTION
			d.extra = v;
#else
			return 2; /* 22.05 updates carry no extra */
#endif
		} else if (strcmp(argv[i], "tiers") == 0) {
			char *t = malloc(sizeof(PREFER_VAR) + strlen(v) + 2);

			if (!t)
				return 2;
			sprintf(t, "%s%s,", PREFER_VAR, v);
			for (char *c = t + strlen(PREFER_VAR); *c; c++)
				if (*c == ',')
					*c = PREFER_SEP;
			env[n_env++] = t;
		} else if (strcmp(argv[i], "tiers-of") == 0) {
			if (!(env[n_env++] = tiers_of(v)))
				return 2;
		} else if (strcmp(argv[i], "wait") == 0) {
			if (asprintf(&env[n_env++], "%s%s", PREFER_WAIT_VAR,
				     v) < 0)
				return 2;
		} else {
			return 2;
		}
	}
	d.spank_job_env = n_env ? env : NULL;
	d.spank_job_env_size = n_env;
	for (long i = 0; i < count; i++) {
		job_array_resp_msg_t *resp = NULL;
		int rc = slurm_update_job2(&d, &resp) == SLURM_SUCCESS
				 ? SLURM_SUCCESS
				 : sx_slurm_errno();

		/* an array's answer: one code a record, the first refusal */
		for (uint32_t k = 0;
		     resp && rc == SLURM_SUCCESS && k < resp->job_array_count;
		     k++)
			rc = (int)resp->error_code[k];
		if (resp)
			slurm_free_job_array_resp(resp);
		if (rc == SLURM_SUCCESS) {
			ok++;
			continue;
		}
		refused++;
		snprintf(last, sizeof(last), "%s", slurm_strerror(rc));
	}
	printf("%ld ok, %ld refused%s%s\n", ok, refused, refused ? ": " : "",
	       last);
	free(env[0]);
	free(env[1]);
	return 0;
}

/* The node table the plugin would build now, and its digest. */
static int digest(void)
{
	node_info_msg_t *msg = NULL;
	xc_nodes_t *t = xc_nodes_create(NULL);

	if (!t || slurm_load_node((time_t)0, &msg, SHOW_ALL) != SLURM_SUCCESS) {
		fprintf(stderr, "slurm-helper: cannot load the nodes\n");
		xc_nodes_destroy(t);
		return 2;
	}
	for (uint32_t i = 0; i < msg->record_count; i++) {
		node_info_t *n = &msg->node_array[i];

		if (n->name &&
		    xc_nodes_add(t, n->name, n->extra, NULL, NULL) < 0)
			return 2;
	}
	printf("%016llx\n", xc_nodes_digest(t));
	xc_nodes_destroy(t);
	sx_free_node_info_msg(msg);
	return 0;
}

/* NODE's active features ("" for none), one node loaded.  Without a
 * NodeFeatures plugin Slurm may leave them unset when they are the
 * available ones (carry_seen() reads them the same way). */
static int features(const char *node)
{
	node_info_msg_t *msg = NULL;
	const node_info_t *n;

	if (slurm_load_node_single(&msg, (char *)node, SHOW_ALL) !=
		    SLURM_SUCCESS ||
	    msg->record_count != 1) {
		fprintf(stderr, "slurm-helper: cannot load node %s\n", node);
		if (msg)
			sx_free_node_info_msg(msg);
		return 2;
	}
	n = &msg->node_array[0];
	printf("%s\n", n->features_act ? n->features_act
		       : n->features   ? n->features
				       : "");
	sx_free_node_info_msg(msg);
	return 0;
}

static int excluded(const char *job, const char *index)
{
	job_info_msg_t *msg = NULL;
	const int32_t *inx;
	long want = strtol(index, NULL, 10);
	int rc = 1;

	if (sx_load_job(&msg, (uint32_t)strtoul(job, NULL, 10), SHOW_DETAIL) !=
		    SLURM_SUCCESS ||
	    msg->record_count < 1) {
		fprintf(stderr, "slurm-helper: cannot load job %s\n", job);
		if (msg)
			sx_free_job_info_msg(msg);
		return 2;
	}
	/* pairs of first and last index, ended by -1 */
	for (inx = msg->job_array[0].exc_node_inx; inx && inx[0] >= 0; inx += 2)
		if (want >= inx[0] && want <= inx[1])
			rc = 0;
	sx_free_job_info_msg(msg);
	return rc;
}

/* Job `job`'s excluded nodes as slurmctld keeps them, by name. */
static int excluded_names(const char *job)
{
	job_info_msg_t *jobs = NULL;
	node_info_msg_t *nodes = NULL;
	const int32_t *inx;
	const char *sep = "";

	if (sx_load_job(&jobs, (uint32_t)strtoul(job, NULL, 10), SHOW_DETAIL) !=
		    SLURM_SUCCESS ||
	    jobs->record_count < 1 ||
	    slurm_load_node((time_t)0, &nodes, SHOW_ALL) != SLURM_SUCCESS) {
		fprintf(stderr,
			"slurm-helper: cannot load job %s or the nodes\n", job);
		if (jobs)
			sx_free_job_info_msg(jobs);
		return 2;
	}
	for (inx = jobs->job_array[0].exc_node_inx; inx && inx[0] >= 0;
	     inx += 2)
		for (int32_t i = inx[0]; i <= inx[1]; i++) {
			const char *name = (uint32_t)i < nodes->record_count
						   ? nodes->node_array[i].name
						   : NULL;

			printf("%s%s", sep, name ? name : "?");
			sep = ",";
		}
	printf("\n");
	sx_free_job_info_msg(jobs);
	sx_free_node_info_msg(nodes);
	return 0;
}

int main(int argc, char **argv)
{
	slurm_init(NULL);
	if (argc == 4 && strcmp(argv[1], "set-extra") == 0)
		return set_extra(argv[2], argv[3]);
	if (argc == 3 && strcmp(argv[1], "submit") == 0)
		return submit(argv[2]);
	if (argc == 2 && strcmp(argv[1], "digest") == 0)
		return digest();
	if (argc == 3 && strcmp(argv[1], "features") == 0)
		return features(argv[2]);
	if (argc >= 5 && strcmp(argv[1], "update") == 0)
		return update(argc, argv);
	if (argc == 4 && strcmp(argv[1], "excluded") == 0)
		return excluded(argv[2], argv[3]);
	if (argc == 3 && strcmp(argv[1], "excluded") == 0)
		return excluded_names(argv[2]);
	fprintf(stderr,
		"usage: slurm-helper set-extra NODE FILE | submit FILE | digest | features NODE | update COUNT IDSTR JOBID [FIELD=VALUE...] | excluded JOBID [INDEX]\n");
	return 2;
}
