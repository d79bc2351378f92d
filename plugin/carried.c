/*
 * carried.c - the entry points' side of the feature carrier (carried.h).
 */
#include <stdlib.h>
#include <string.h>

#include "carried.h"
#include "entry.h"

int carried_with(const char *features, const char *prefer, const char *name,
		 char **out_f, char **out_p)
{
	char *own_f = sx_constraint_own(features, name);
	char *own_p = sx_constraint_own(prefer, name);
	enum sx_constraint_why wf = SX_CONSTRAINT_NOMEM, wp = SX_CONSTRAINT_OK;
	int rc = -1;

	*out_f = *out_p = NULL;
	if (!own_f || !own_p)
		goto out;
	wf = sx_constraint_with(own_f, name, out_f);
	if (wf == SX_CONSTRAINT_OK && *own_p)
		wp = sx_constraint_with(own_p, name, out_p);
	if (wf == SX_CONSTRAINT_NOMEM || wp == SX_CONSTRAINT_NOMEM)
		goto out;
	rc = wf == SX_CONSTRAINT_OK && wp == SX_CONSTRAINT_OK;
out:
	if (rc != 1) {
		free(*out_f);
		free(*out_p);
		*out_f = *out_p = NULL;
	}
	free(own_f);
	free(own_p);
	return rc;
}

int carried_submit(job_desc_msg_t *job_desc, const xc_expr_t *expr,
		   char name[SX_FEATURE_LEN + 1], long *count)
{
	char *canonical, *f = NULL, *p = NULL;
	int rc;

	*count = -1;
	if (!entry_cfg.carrier_features ||
	    (job_desc->req_nodes && *job_desc->req_nodes))
		return 0;
	if (!(canonical = xc_format(expr)))
		return -1;
	*count = thread_carry_lookup(entry_thread, canonical, name);
	free(canonical);
	if (*count < 0)
		return 0;
	rc = carried_with(job_desc->features, job_desc->prefer, name, &f, &p);
	if (rc == 1 && (set_desc_string(&job_desc->features, f) < 0 ||
			(p && set_desc_string(&job_desc->prefer, p) < 0)))
		rc = -1;
	free(f);
	free(p);
	return rc;
}

bool carried_now(const struct known_job *k, char name[SX_FEATURE_LEN + 1])
{
	char *own;
	bool carried;

	memcpy(name, k->feature, SX_FEATURE_LEN + 1);
	if (!*name || !k->features || !*k->features)
		return false;
	if (!(own = sx_constraint_own(k->features, name)))
		return false;
	carried = strcmp(own, k->features) != 0;
	free(own);
	return carried;
}

/* job_desc's `field` set to `text` unless it holds that already; -1 when
 * out of memory. */
static int set_if_other(char **field, const char *text)
{
	if (*field && !strcmp(*field, text))
		return 0;
	return set_desc_string(field, text);
}

/* The constraint and --prefer `f` and `p` (NULL: none) less feature
 * `name` into the fields of job_desc: the constraint always, --prefer
 * when the caller sets it or it had the feature.  -1 when out of
 * memory. */
static int strip(job_desc_msg_t *job_desc, const char *f, const char *p,
		 const char *name)
{
	char *own_f = sx_constraint_own(f, name);
	char *own_p = sx_constraint_own(p, name);
	int rc = -1;

	if (own_f && own_p && set_if_other(&job_desc->features, own_f) == 0 &&
	    ((!job_desc->prefer && !strcmp(own_p, p ? p : "")) ||
	     set_if_other(&job_desc->prefer, own_p) == 0))
		rc = 0;
	free(own_f);
	free(own_p);
	return rc;
}

int carried_modify(job_desc_msg_t *job_desc, const struct known_job *k,
		   const xc_expr_t *expr, const char *name, bool *leave)
{
	const char *f = job_desc->features ? job_desc->features : k->features;
	const char *p = job_desc->prefer ? job_desc->prefer : k->prefer;
	char to[SX_FEATURE_LEN + 1], *own_f = NULL, *own_p = NULL;
	char *nf = NULL, *np = NULL;
	int rc = -1, with = 0;

	*leave = false;
	memcpy(to, name, sizeof(to));
	if (job_desc->req_nodes && *job_desc->req_nodes) {
		*leave = true; /* a job that requires nodes: not carried */
		return strip(job_desc, f, p, name);
	}
	if (expr) { /* a new request: its feature, if known and its own */
		char *canonical = xc_format(expr);

		if (!canonical)
			return -1;
		with = thread_carry_lookup(entry_thread, canonical, to) >= 0;
		free(canonical);
		if (!with) {
			*leave = true;
			return strip(job_desc, f, p, name);
		}
	} else if (!job_desc->features && !job_desc->prefer) {
		return 0; /* neither touched: the job keeps its feature */
	} else if (thread_carry_lookup_name(entry_thread, name) < 0) {
		/* slurmctld no longer knows the name (a reconfigure or a
		 * restart since): Slurm would refuse a constraint naming it */
		*leave = true;
		return strip(job_desc, f, p, name);
	}
	/* The user's own parts, less the feature the job had. */
	if (!(own_f = sx_constraint_own(f, name)) ||
	    !(own_p = sx_constraint_own(p, name)))
		goto out;
	with = carried_with(own_f, own_p, to, &nf, &np);
	if (with < 0)
		goto out;
	if (!with) {
		*leave = true;
		rc = strip(job_desc, f, p, name);
		goto out;
	}
	/* Set what the caller sets, and both for a new request. */
	if ((job_desc->features || expr) &&
	    set_if_other(&job_desc->features, nf) < 0)
		goto out;
	if ((job_desc->prefer || (expr && p && *p)) &&
	    set_if_other(&job_desc->prefer, np ? np : own_p) < 0)
		goto out;
	rc = 0;
out:
	free(own_f);
	free(own_p);
	free(nf);
	free(np);
	return rc;
}
