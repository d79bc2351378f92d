/*
 * test_flux.c - requests to and from the symbolic RFC 31 form
 * (doc/flux.md): every example of RFC 31 and RFC 43 gives its
 * --extra equivalent or the right "no equivalent" error; valid forms read
 * back; and a seeded generated suite checks the round trip.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gen.h"
#include "cases.h"
#include "table.h"
#include "xc.h"
#include "leakcheck.h"

LEAK_CHECKED(flux);

ROW_TEST(flux, from, struct flux_row, flux_rows)
{
	json_error_t jerr;
	json_t *j = json_loads(row->json, JSON_DECODE_ANY, &jerr);
	xc_error_t err;
	xc_expr_t *e;
	char *text;

	if (row->code == XC_E_JSON) {
		cr_assert_null(j, "jansson refuses NUL in strings");
		return;
	}
	cr_assert_not_null(j, "%s: %s", row->json, jerr.text);
	e = xc_from_flux(j, NULL, &err);
	if (row->code == XC_OK) {
		cr_assert_not_null(e, "%s: %s", row->json, err.message);
		text = xc_format(e);
		cr_assert_str_eq(text, row->text);
		free(text);
	} else {
		cr_assert_null(e, "%s", row->json);
		cr_assert_eq(err.code, row->code, "%s: %s, expected %s",
			     row->json, xc_errcode_name(err.code),
			     xc_errcode_name(row->code));
		cr_assert_str_eq(err.message, row->text);
	}
	xc_expr_destroy(e);
	json_decref(j);
}

ROW_TEST(flux, to, struct to_row, to_rows)
{
	xc_expr_t *e = xc_parse(row->request, NULL, NULL);
	json_t *j = xc_to_flux(e, NULL);
	char *text = json_dumps(j, JSON_COMPACT);

	cr_assert_str_eq(text, row->json);
	free(text);
	json_decref(j);
	xc_expr_destroy(e);
}

Test(flux, not_utf8_and_bad_arguments)
{
	xc_expr_t *e = xc_parse("a=1|k=\xff", NULL, NULL);
	xc_error_t err;

	cr_assert_not_null(e);
	cr_assert_null(xc_to_flux(e, &err));
	cr_assert_eq(err.code, XC_E_NOT_UTF8);
	cr_assert_eq(err.offset, 4);
	cr_assert_null(xc_to_flux(NULL, &err));
	cr_assert_eq(err.code, XC_E_INVALID_ARG);
	cr_assert_null(xc_from_flux(NULL, NULL, &err));
	cr_assert_eq(err.code, XC_E_INVALID_ARG);
	xc_expr_destroy(e);
}

/* Values whose UTF-8 validity decides whether a leaf can be carried in
 * JSON: xc_to_flux checks it itself, and must agree with jansson's own
 * check (json_stringn refuses exactly the invalid ones). */
static const char *const utf8_values[] = {
	"plain",
	"\xc3\xa9",
	"\xe2\x82\xac",
	"\xf0\x9f\x98\x80",
	"\xf4\x8f\xbf\xbf", /* U+10FFFF, the last */
	"\xed\x9f\xbf",	    /* U+D7FF, before surrogates */
	"\xee\x80\x80",	    /* U+E000, after them */
	"\xff",
	"\x80",
	"x\xbf", /* no lead byte */
	"\xc0\x80",
	"\xc1\xbf", /* overlong 2 bytes */
	"\xe0\x80\x80",
	"\xe0\x9f\xbf", /* overlong 3 bytes */
	"\xf0\x80\x80\x80",
	"\xf0\x8f\xbf\xbf", /* overlong 4 bytes */
	"\xed\xa0\x80",
	"\xed\xbf\xbf", /* surrogates */
	"\xf4\x90\x80\x80",
	"\xf5\x80\x80\x80", /* above U+10FFFF */
	"\xe2\x82",
	"\xc3",
	"\xf0\x9f\x98", /* cut short */
	"\xc3\x41",
	"\xe2\x41\xa1", /* bad continuation */
};

Test(flux, utf8_check_agrees_with_jansson)
{
	for (size_t i = 0; i < sizeof(utf8_values) / sizeof(*utf8_values);
	     i++) {
		const char *v = utf8_values[i];
		char req[64];
		json_t *jansson = json_stringn(v, strlen(v)), *j;
		xc_expr_t *e;
		xc_error_t err;

		snprintf(req, sizeof(req), "k=%s", v);
		e = xc_parse(req, NULL, NULL);
		cr_assert_not_null(e, "value %zu", i);
		j = xc_to_flux(e, &err);
		if (jansson)
			cr_assert_not_null(j, "value %zu is valid UTF-8: %s", i,
					   err.message);
		else
			cr_assert(!j && err.code == XC_E_NOT_UTF8,
				  "value %zu is not valid UTF-8", i);
		json_decref(j);
		json_decref(jansson);
		xc_expr_destroy(e);
	}
}

Test(flux, limits)
{
	xc_limits_t shallow = { .max_depth = 3 };
	json_t *deep = json_pack("{s:[s]}", "extra", "a=1");
	xc_error_t err;
	xc_expr_t *e;
	char big[2000];

	for (int i = 0; i < 4; i++)
		deep = json_pack("{s:[o,{s:[s]}]}", "and", deep, "extra",
				 "b=2");
	e = xc_from_flux(deep, &shallow, &err);
	cr_assert_null(e);
	cr_assert_eq(err.code, XC_E_TOO_DEEP);
	cr_assert_str_eq(
		err.message,
		"$.and[0].and[0].and[0].and[0]: constraints nested deeper than the limit of 3");
	e = xc_from_flux(deep, NULL, &err);
	cr_assert_not_null(e);
	xc_expr_destroy(e);
	json_decref(deep);

	memset(big, 'v', sizeof(big));
	memcpy(big, "k=", 2);
	big[sizeof(big) - 1] = '\0';
	deep = json_pack("{s:[s]}", "extra", big);
	cr_assert_null(xc_from_flux(deep, NULL, &err));
	cr_assert_eq(err.code, XC_E_TOO_LONG);
	cr_assert_str_eq(
		err.message,
		"$: the request is 1999 bytes, longer than the limit of 1024");
	json_decref(deep);
}

Test(flux, long_paths_keep_their_end)
{
	json_t *j = json_pack("{s:[s]}", "ranks", "0");
	xc_error_t err;

	for (int i = 0; i < 40; i++)
		j = json_pack("{s:[{s:[s]},o]}", "or", "extra", "a=1", j);
	cr_assert_null(xc_from_flux(j, NULL, &err));
	cr_assert_eq(err.code, XC_E_FLUX_NO_EQUIVALENT);
	cr_assert_eq(strncmp(err.message, "$...or[1].or[1]", 15), 0, "%s",
		     err.message);
	cr_assert(strstr(err.message,
			 ".or[1]: 'ranks' has no --extra equivalent"),
		  "%s", err.message);
	json_decref(j);
}

/* from-flux(to-flux(R)) is R: the same tree, the same canonical text, the
 * same nodes; over thousands of seeded random requests and nodes. */
Test(flux, generated_round_trip)
{
	enum {
		REQUESTS = 4000,
		NODES = 40
	};
	gen_t g = { 0x5eed5eedULL };
	xc_extra_t *nodes[NODES];
	int valid = 0;

	for (int i = 0; i < NODES; i++) {
		char *text = gen_node(&g);

		nodes[i] = xc_extra_load(text, text ? strlen(text) : 0, NULL,
					 NULL, NULL);
		free(text);
	}
	for (int r = 0; r < REQUESTS; r++) {
		char req[1024] = "";
		xc_expr_t *e, *back;
		json_t *j;
		char *t1, *t2;

		gen_request(&g, req, sizeof(req) - 64,
			    1 + (int)gen_below(&g, 4), 1);
		e = xc_parse(req, NULL, NULL);
		if (!e)
			continue; /* cut short by the buffer */
		valid++;
		j = xc_to_flux(e, NULL);
		cr_assert_not_null(j, "%s", req);
		back = xc_from_flux(j, NULL, NULL);
		cr_assert_not_null(back, "%s", req);
		cr_assert(xc_expr_equal(e, back), "%s", req);
		t1 = xc_format(e);
		t2 = xc_format(back);
		cr_assert_str_eq(t1, t2);
		for (int i = 0; i < NODES; i++)
			cr_assert_eq(xc_match(e, nodes[i]),
				     xc_match(back, nodes[i]), "%s on node %d",
				     req, i);
		free(t1);
		free(t2);
		json_decref(j);
		xc_expr_destroy(e);
		xc_expr_destroy(back);
	}
	cr_assert_geq(valid, REQUESTS * 9 / 10, "only %d valid requests",
		      valid);
	for (int i = 0; i < NODES; i++)
		xc_extra_destroy(nodes[i]);
}

Test(flux, text_length_limit_and_bad_json)
{
	xc_limits_t small = { .max_flux_length = 18 };
	const char *ok = "{\"extra\":[\"a=1\"]}"; /* 18 bytes */
	xc_error_t err;
	xc_expr_t *e;

	e = xc_from_flux_text(ok, strlen(ok), &small, &err);
	cr_assert_not_null(e, "%s", err.message);
	xc_expr_destroy(e);
	cr_assert_null(
		xc_from_flux_text("{\"extra\":[\"a=12\"]}", 19, &small, &err));
	cr_assert_eq(err.code, XC_E_TOO_LONG);
	cr_assert_str_eq(
		err.message,
		"the constraint is 19 bytes, longer than the limit of 18");
	cr_assert_null(xc_from_flux_text("{\"or\":", 6, NULL, &err));
	cr_assert_eq(err.code, XC_E_JSON);
	cr_assert_leq(err.offset, 6);
	cr_assert_null(xc_from_flux_text(NULL, 0, NULL, &err));
	cr_assert_eq(err.code, XC_E_INVALID_ARG);
}

/* `levels` nested and groups, built in memory (jansson's own parser stops
 * at 2048 JSON levels, two per constraint level). */
static json_t *nested_and(unsigned levels)
{
	json_t *j = json_pack("{s:[s]}", "extra", "a=1");

	for (unsigned i = 1; i < levels; i++)
		j = json_pack("{s:[o,{s:[s]}]}", "and", j, "extra", "b=2");
	return j;
}

Test(flux, depth_limit_at_and_past)
{
	xc_limits_t limits = { .max_request_length = 1 << 20 };
	json_t *at = nested_and(XC_DEFAULT_MAX_DEPTH + 1);
	json_t *past = nested_and(XC_DEFAULT_MAX_DEPTH + 2);
	xc_error_t err;
	xc_expr_t *e;

	e = xc_from_flux(at, &limits, &err);
	cr_assert_not_null(e, "%s", err.message);
	xc_expr_destroy(e);
	cr_assert_null(xc_from_flux(past, &limits, &err));
	cr_assert_eq(err.code, XC_E_TOO_DEEP);
	cr_assert(strstr(err.message,
			 "constraints nested deeper than the limit of 1024"),
		  "%s", err.message);
	json_decref(at);
	json_decref(past);
}

/* A node value as JSON, for `why --json`: each type, and NaN and the
 * infinities (which JSON cannot hold) as their names. */
Test(flux, extra_value_json)
{
	const char *text = "{\"b\": true, \"i\": -7, \"r\": 2.5, \"s\": \"x\", "
			   "\"n\": null, \"o\": {\"k\": 1}, \"a\": [1], "
			   "\"nan\": NaN, \"inf\": -Infinity}";
	xc_extra_t *x = xc_extra_load(text, strlen(text), NULL, NULL, NULL);
	static const struct {
		const char *key, *json;
	} want[] = {
		{ "b", "true" },
		{ "i", "-7" },
		{ "r", "2.5" },
		{ "s", "\"x\"" },
		{ "n", "null" },
		{ "o", "{}" },
		{ "a", "[]" },
		{ "nan", "\"NaN\"" },
		{ "inf", "\"-Infinity\"" },
	};

	cr_assert_not_null(x);
	for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++) {
		json_t *v = xc_extra_value_json(x, want[i].key);
		char *s = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT)
			    : NULL;

		cr_assert_str_eq(s, want[i].json, "%s", want[i].key);
		free(s);
		json_decref(v);
	}
	cr_assert_null(xc_extra_value_json(x, "missing"));
	cr_assert_null(xc_extra_value_json(NULL, "b"));
	xc_extra_destroy(x);
}
