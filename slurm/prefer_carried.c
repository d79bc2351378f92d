/*
 * prefer_carried.c - which node feature job_submit/extra's thread
 * carried a job by (prefer_carried_by(), prefer.h).  Apart from prefer.c,
 * which the SPANK plugin links without the feature names (carrier.c).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "carrier.h"
#include "prefer.h"
#include "xc.h"

int prefer_carried_by(const struct sx_job_state *st, const xc_limits_t *limits,
		      const char *name)
{
	int is = 0;

	for (unsigned k = 0; !is && st->request && k <= st->n_prefer; k++) {
		char *text = k ? prefer_compose(st->request, st->prefer[k - 1])
			       : strdup(st->request);
		xc_error_t err = { 0 };
		xc_expr_t *expr = text ? xc_parse(text, limits, &err) : NULL;
		char *canonical = expr ? xc_format(expr) : NULL;
		char mine[SX_FEATURE_LEN + 1];

		if (canonical) {
			sx_feature_name(xc_text_hash(canonical), mine);
			is = strcmp(mine, name) == 0;
		} else if (!text || err.code == XC_E_NOMEM || expr) {
			is = -1; /* (an invalid text is no feature's) */
		}
		free(canonical);
		xc_expr_destroy(expr);
		free(text);
	}
	return is;
}
