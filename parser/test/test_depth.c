/*
 * test_depth.c - no accepted setting can overflow a slurmctld RPC
 * thread's stack (1 MiB): every entry point that recurses over the
 * nesting of a request runs at the largest depth any caller may set
 * (XC_MAX_DEPTH_LIMIT) inside a thread created with a 1 MiB stack.  A
 * level more fails cleanly with XC_E_TOO_DEEP, whatever the caller asked.
 * (The stack bytes per level are printed by tests/bench/bench.)
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "xc.h"
#include "leakcheck.h"

LEAK_CHECKED(depth);

#define RPC_STACK (1u << 20)

/* A request nested `depth` parentheses deep, alternating OR and AND, whose
 * evaluation against {"a": 1} must go to the bottom: the first item of an
 * OR is false (missing key), that of an AND true. */
static char *deep_request(unsigned depth)
{
	size_t cap = 8 * (size_t)depth + 16;
	char *s = malloc(cap), *t = malloc(cap);

	strcpy(s, "a=1");
	for (unsigned i = 0; i < depth; i++) {
		char *x;

		if (i % 2)
			snprintf(t, cap, "a=1&(%s)", s);
		else
			snprintf(t, cap, "z=1|(%s)", s);
		x = s, s = t, t = x;
	}
	free(t);
	return s;
}

/* JSON text nested `levels` arrays deep around a 1. */
static char *deep_array_text(unsigned levels)
{
	char *s = malloc(2 * (size_t)levels + 2);

	memset(s, '[', levels);
	s[levels] = '1';
	memset(s + levels + 1, ']', levels);
	s[2 * (size_t)levels + 1] = '\0';
	return s;
}

struct run {
	const char *request;
	xc_limits_t limits;
	/* results, checked by the main thread */
	bool parsed, equal, matched, explained, formatted_same, flux_back,
		flux_text_clean, nodes_matched;
	xc_errcode_t parse_code;
	char parse_message[XC_ERROR_MESSAGE_SIZE];
};

static void *every_entry_point(void *arg)
{
	struct run *r = arg;
	xc_error_t err;
	xc_expr_t *e = xc_parse(r->request, &r->limits, &err), *again, *back;
	xc_extra_t *x = xc_extra_load("{\"a\": 1}", 8, NULL, NULL, NULL);
	xc_nodes_t *t = xc_nodes_create(NULL);
	bool m[1];
	char *text, *why, *jt;
	json_t *j;

	r->parse_code = err.code;
	snprintf(r->parse_message, sizeof(r->parse_message), "%s", err.message);
	r->parsed = e != NULL;
	if (e) {
		text = xc_format(e);
		again = xc_parse(text, &r->limits, NULL);
		if (again) {
			char *text2 = xc_format(again);

			r->formatted_same =
				text && text2 && strcmp(text, text2) == 0;
			free(text2);
		}
		r->equal = xc_expr_equal(e, again);
		r->matched = xc_match(e, x);
		why = xc_explain(e, x);
		r->explained = why && strstr(why, "result: match\n");
		xc_nodes_add(t, "n1", "{\"a\": 1}", NULL, NULL);
		r->nodes_matched = xc_nodes_match(t, e, m) == 1;
		j = xc_to_flux(e, NULL);
		back = xc_from_flux(j, &r->limits, NULL);
		r->flux_back = xc_expr_equal(e, back);
		/* jansson's parser stops at 2048 JSON levels, two a level
		 * here: a clean error, not a crash.  json_dumps() of jansson
		 * 2.15 (Debian sid) returns NULL for it, where json_dumpf()
		 * (the command's output) writes it: then a text as deep
		 * stands in. */
		jt = json_dumps(j, JSON_COMPACT);
		if (!jt)
			jt = deep_array_text(2 * XC_MAX_DEPTH_LIMIT + 2);
		xc_expr_destroy(back);
		back = xc_from_flux_text(
			jt, strlen(jt),
			&(xc_limits_t){ .max_flux_length = 1 << 20 }, &err);
		r->flux_text_clean =
			back ? xc_expr_equal(e, back) : err.code == XC_E_JSON;
		xc_expr_destroy(back);
		free(jt);
		json_decref(j);
		free(why);
		free(text);
		xc_expr_destroy(again);
		xc_expr_destroy(e);
	}
	xc_nodes_destroy(t);
	xc_extra_destroy(x);
	return NULL;
}

static void run_in_rpc_sized_thread(struct run *r)
{
	pthread_attr_t attr;
	pthread_t th;

	cr_assert_eq(pthread_attr_init(&attr), 0);
	cr_assert_eq(pthread_attr_setstacksize(&attr, RPC_STACK), 0);
	cr_assert_eq(pthread_create(&th, &attr, every_entry_point, r), 0);
	cr_assert_eq(pthread_join(th, NULL), 0);
	pthread_attr_destroy(&attr);
}

Test(depth, every_entry_point_at_the_limit_in_a_1_MiB_stack)
{
	char *req = deep_request(XC_MAX_DEPTH_LIMIT);
	struct run r = { .request = req,
			 .limits = { .max_request_length = 1 << 20,
				     .max_depth = XC_MAX_DEPTH_LIMIT } };

	run_in_rpc_sized_thread(&r);
	cr_assert(r.parsed, "%s", r.parse_message);
	cr_assert(r.formatted_same);
	cr_assert(r.equal);
	cr_assert(r.matched);
	cr_assert(r.explained);
	cr_assert(r.nodes_matched);
	cr_assert(r.flux_back);
	cr_assert(r.flux_text_clean);
	free(req);
}

Test(depth, one_level_more_is_refused_whatever_the_caller_asks)
{
	char *req = deep_request(XC_MAX_DEPTH_LIMIT + 1);
	struct run r = { .request = req,
			 .limits = { .max_request_length = 1 << 20,
				     .max_depth = 100000 } };

	run_in_rpc_sized_thread(&r);
	cr_assert_not(r.parsed);
	cr_assert_eq(r.parse_code, XC_E_TOO_DEEP);
	cr_assert_str_eq(r.parse_message,
			 "parentheses nested deeper than the limit of 1024");
	free(req);
}

/* Flux's side: a constraint nested past the limit is refused by depth,
 * in the same small stack. */
static void *from_flux_past_limit(void *arg)
{
	xc_error_t *err = arg;
	json_t *j = json_pack("{s:[s]}", "extra", "a=1");

	for (unsigned i = 0; i <= XC_MAX_DEPTH_LIMIT; i++)
		j = json_pack("{s:[{s:[s]},o]}", i % 2 ? "and" : "or", "extra",
			      "z=1", j);
	xc_expr_destroy(
		xc_from_flux(j, &(xc_limits_t){ .max_depth = 100000 }, err));
	json_decref(j);
	return NULL;
}

Test(depth, rfc31_past_the_limit)
{
	pthread_attr_t attr;
	pthread_t th;
	xc_error_t err;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, RPC_STACK);
	cr_assert_eq(pthread_create(&th, &attr, from_flux_past_limit, &err), 0);
	pthread_join(th, NULL);
	pthread_attr_destroy(&attr);
	cr_assert_eq(err.code, XC_E_TOO_DEEP);
	cr_assert(strstr(err.message,
			 "constraints nested deeper than the limit of 1024"),
		  "%s", err.message);
}
