/*
 * test_job_state.c - the plugin's state in a job's AdminComment
 * (slurm/job_state.h): written and read back, an admin's own comment kept
 * before it, requests with any byte, and texts that are not the state.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "job_state.h"
#include "leakcheck.h"
#include "table.h"
#include "xc.h"

LEAK_CHECKED(job_state);

struct state_row {
	const char *admin, *status;
	bool held;
	unsigned long long wrote;
	const char *exclude, *request;
	const char *text;
};

static const struct state_row state_rows[] = {
	{ NULL, "2 of 4 nodes satisfy the request", false,
	  0x1234abcd5678ef90ULL, "", "gpu=true&mem>=512",
	  "slurm-extra: 2 of 4 nodes satisfy the request; held=0; wrote=1234abcd5678ef90; exclude=; request=gpu=true&mem>=512" },
	{ "reboot n3 first",
	  "waiting for a node whose Extra satisfies the request (none of 4 does)",
	  true, 0x1234abcd5678ef90ULL, "n[1-2]", "mem>4096",
	  "reboot n3 first slurm-extra: waiting for a node whose Extra satisfies the request (none of 4 does); held=1; wrote=1234abcd5678ef90; exclude=n[1-2]; request=mem>4096" },
	/* the request runs to the end: separators inside it are its own */
	{ NULL, "s", false, 0x1234abcd5678ef90ULL, "n1",
	  "a=; request=x|b=; held=1",
	  "slurm-extra: s; held=0; wrote=1234abcd5678ef90; exclude=n1; request=a=; request=x|b=; held=1" },
	/* control bytes and '%' as %XX: a newline would forge a line of
	 * `scontrol show job` (a user's request "x\n   ExcNodeList=n1") */
	{ NULL, "s", false, 0x1234abcd5678ef90ULL, "", "k=v w\tx\"y'z%s",
	  "slurm-extra: s; held=0; wrote=1234abcd5678ef90; exclude=; request=k=v w%09x\"y'z%25s" },
	{ NULL, "s", false, 0x1234abcd5678ef90ULL, "",
	  "a=1\n   ExcNodeList=n1\r\x7f%%41",
	  "slurm-extra: s; held=0; wrote=1234abcd5678ef90; exclude=; request=a=1%0A   ExcNodeList=n1%0D%7F%25%2541" },
};

/* A state of an earlier version (no wrote=, its request not encoded)
 * reads back as it was, %XX and all. */
Test(job_state, an_earlier_versions_request_is_read_as_it_is)
{
	struct sx_job_state st;

	cr_assert(sx_job_state_parse(
		"slurm-extra: s; held=0; exclude=n1; request=k=%41", &st));
	cr_assert_str_eq(st.request, "k=%41");
	cr_assert_str_eq(st.exclude, "n1");
	cr_assert_eq(st.wrote, 0);
	sx_job_state_free(&st);
}

/* A state written since requests are encoded reads back what was
 * encoded; a '%' not followed by two hex digits is kept. */
Test(job_state, a_percent_not_followed_by_hex_is_kept)
{
	struct sx_job_state st;

	cr_assert(sx_job_state_parse(
		"slurm-extra: s; held=0; wrote=0000000000000001; exclude=; request=a=%z|b=%4|c=%00",
		&st));
	cr_assert_str_eq(st.request, "a=%z|b=%4|c=%00");
	sx_job_state_free(&st);
}

ROW_TEST(job_state, round_trip, struct state_row, state_rows)
{
	struct sx_job_state st = { .admin = (char *)row->admin,
				   .status = (char *)row->status,
				   .held = row->held,
				   .wrote = row->wrote,
				   .exclude = (char *)row->exclude,
				   .request = (char *)row->request },
			    back;
	char *text = sx_job_state_format(&st);

	cr_assert_str_eq(text, row->text);
	cr_assert(sx_job_state_parse(text, &back), "%s", text);
	if (row->admin)
		cr_assert_str_eq(back.admin, row->admin);
	else
		cr_assert_null(back.admin);
	cr_assert_str_eq(back.status, row->status);
	cr_assert_eq(back.held, row->held);
	cr_assert_eq(back.wrote, row->wrote);
	cr_assert_str_eq(back.exclude, row->exclude);
	cr_assert_str_eq(back.request, row->request);
	sx_job_state_free(&back);
	free(text);
}

static const char *const not_state[] = {
	"",
	"an admin's comment",
	"slurm-extra: no fields",
	"slurm-extra: s; held=2; exclude=; request=a=1",
	"slurm-extra: s; held=1; request=a=1",
	"slurm-extra: s; held=1; exclude=n1",
	"slurm-extra: s; held=1/; wrote=1234abcd5678ef90; exclude=; request=a=1",
	"slurm-extra: s; held=1/x; wrote=1234abcd5678ef90; exclude=; request=a=1",
	"slurm-extra: s; held=1/70000; wrote=1234abcd5678ef90; exclude=; request=a=1",
};

/* held=1/N: the plugin held the job at its Nth requeue; read back and
 * written as it was, and not written for a job never requeued. */
Test(job_state, the_restart_count_of_a_hold_reads_back)
{
	const char *text =
		"slurm-extra: s; held=1/3; wrote=1234abcd5678ef90; exclude=n1; request=a=1";
	struct sx_job_state st;
	char *again;

	cr_assert(sx_job_state_parse(text, &st));
	cr_assert(st.held);
	cr_assert_eq(st.held_at, 4);
	cr_assert_str_eq(st.exclude, "n1");
	again = sx_job_state_format(&st);
	cr_assert_str_eq(again, text);
	free(again);
	st.held_at = 0; /* an earlier version's: bare */
	again = sx_job_state_format(&st);
	cr_assert_not_null(strstr(again, "; held=1; "), "'%s'", again);
	free(again);
	sx_job_state_free(&st);
}

Test(job_state, texts_that_are_not_the_state)
{
	struct sx_job_state st;

	cr_assert_not(sx_job_state_parse(NULL, &st));
	for (size_t i = 0; i < sizeof(not_state) / sizeof(*not_state); i++) {
		cr_assert_not(sx_job_state_parse(not_state[i], &st), "%s",
			      not_state[i]);
		cr_assert_null(st.request);
	}
}

/* The requeue note of the check at start (job_state.h): put in front of
 * a status, replacing an earlier note, and its length read back. */
Test(job_state, a_requeue_note_goes_in_front_of_the_status)
{
	char *s = sx_status_with_note(SX_REQUEUE_NOTE, "2026-11-23T12:00:01",
				      "n3 no longer",
				      "2 of 4 nodes satisfy the request");
	char *again;

	cr_assert_str_eq(
		s,
		"requeued 2026-11-23T12:00:01: n3 no longer; 2 of 4 nodes satisfy the request");
	cr_assert_eq(sx_status_note_len(s),
		     strlen("requeued 2026-11-23T12:00:01: n3 no longer; "));
	/* a second requeue: one note, the newest */
	again = sx_status_with_note(SX_REQUEUE_NOTE, "T2", "n1 no longer", s);
	cr_assert_str_eq(
		again,
		"requeued T2: n1 no longer; 2 of 4 nodes satisfy the request");
	cr_assert_eq(sx_status_note_len("2 of 4 nodes satisfy the request"), 0);
	cr_assert_eq(sx_status_note_len("requeued but no end"), 0);
	cr_assert_eq(sx_status_note_len(NULL), 0);
	free(s);
	free(again);
	s = sx_status_with_note(SX_REQUEUE_NOTE, "T", "w", NULL);
	cr_assert_str_eq(s, "requeued T: w; ");
	free(s);
	/* a note kept in front of a status written anew, replacing its own */
	s = sx_status_keep_note("requeued T: w; old", "killed U: v; 3 of 4");
	cr_assert_str_eq(s, "requeued T: w; 3 of 4");
	free(s);
	s = sx_status_keep_note(NULL, "3 of 4");
	cr_assert_str_eq(s, "3 of 4");
	free(s);
	s = sx_status_keep_note("requeued T: w; old", NULL);
	cr_assert_str_eq(s, "requeued T: w; ");
	free(s);
	/* a job Slurm kills rather than requeues */
	s = sx_status_with_note(SX_KILL_NOTE, "T", "w", "2 of 4");
	cr_assert_str_eq(s, "killed T: w; 2 of 4");
	cr_assert_eq(sx_status_note_len(s), strlen("killed T: w; "));
	free(s);
}

/* Preferences (tiers) and their wait come before the request, each
 * encoded with ';' as %3B too, and read back as they were. */
Test(job_state, preferences_are_written_and_read_back)
{
	char *tiers[] = { "cache=ds1;x", "rack=r1|gen>=4", "a=1\nb" };
	struct sx_job_state st = { .status = "s",
				   .wrote = 0x1234abcd5678ef90ULL,
				   .exclude = "n1",
				   .request = "gpu=true; request=x",
				   .prefer = tiers,
				   .n_prefer = 3,
				   .wait = 900 };
	struct sx_job_state back, copy;
	char *text = sx_job_state_format(&st);

	cr_assert_not_null(text);
	cr_assert_str_eq(
		text,
		"slurm-extra: s; held=0; wrote=1234abcd5678ef90; exclude=n1; wait=900; prefer=cache=ds1%3Bx; prefer=rack=r1|gen>=4; prefer=a=1%0Ab; request=gpu=true; request=x");
	cr_assert(sx_job_state_parse(text, &back));
	cr_assert_str_eq(back.exclude, "n1");
	cr_assert_str_eq(back.request, "gpu=true; request=x");
	cr_assert_eq(back.n_prefer, 3);
	cr_assert_eq(back.wait, 900);
	for (unsigned i = 0; i < 3; i++)
		cr_assert_str_eq(back.prefer[i], tiers[i]);
	cr_assert_eq(sx_job_state_copy(&back, "adm", &copy), 0);
	cr_assert_eq(copy.n_prefer, 3);
	cr_assert_eq(copy.wait, 900);
	cr_assert_str_eq(copy.prefer[1], tiers[1]);
	cr_assert_str_eq(copy.admin, "adm");
	sx_job_state_free(&copy);
	sx_job_state_free(&back);
	free(text);
}

/* A state without preferences is written as before; a mangled wait or
 * preference is not the plugin's state. */
Test(job_state, mangled_preferences_are_not_a_state)
{
	const char *bad[] = {
		"slurm-extra: s; held=0; wrote=1234abcd5678ef90; exclude=; wait=; prefer=a=1; request=b=1",
		"slurm-extra: s; held=0; wrote=1234abcd5678ef90; exclude=; wait=-5; prefer=a=1; request=b=1",
		"slurm-extra: s; held=0; wrote=1234abcd5678ef90; exclude=; wait=5; request=b=1",
		"slurm-extra: s; held=0; wrote=1234abcd5678ef90; exclude=; wait=5x; prefer=a=1; request=b=1",
		"slurm-extra: s; held=0; wrote=1234abcd5678ef90; exclude=; wait=5; prefer=1; prefer=2; prefer=3; prefer=4; prefer=5; prefer=6; prefer=7; prefer=8; prefer=9; request=b=1",
	};
	struct sx_job_state st = { .status = "s",
				   .exclude = "",
				   .request = "b=1" };
	char *text = sx_job_state_format(&st);

	cr_assert_str_eq(
		text,
		"slurm-extra: s; held=0; wrote=0000000000000000; exclude=; request=b=1");
	free(text);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		cr_assert_not(sx_job_state_parse(bad[i], &st), "%s", bad[i]);
		cr_assert_null(st.request);
	}
	/* "; wait=" inside the request is the request's */
	cr_assert(sx_job_state_parse(
		"slurm-extra: s; held=0; wrote=1234abcd5678ef90; exclude=; request=a=1; wait=5; prefer=b",
		&st));
	cr_assert_str_eq(st.request, "a=1; wait=5; prefer=b");
	cr_assert_eq(st.n_prefer, 0);
	sx_job_state_free(&st);
}

/* A state is the thread's unless its status is the guard's or Slurm's
 * own filter's, a preference's note before either aside: what the thread
 * set on a job is then the job's until taken back (doc/guard.md "The
 * guard alone"). */
Test(job_state, the_threads_states_are_told_apart)
{
	struct sx_job_state st = { 0 };
	const char *thread[] = {
		"2 of 4 nodes match", "held until the node data are loaded",
		"preferring cache=ds1 until 12:00; 1 of 4 nodes "
		"match"
	};
	const char * not [] = {
		SX_GUARD_STATUS, SX_SLURM_STATUS,
		"preferring cache=ds1 until 12:00; " SX_SLURM_STATUS
	};

	cr_assert_not(sx_job_state_by_thread(NULL));
	cr_assert_not(sx_job_state_by_thread(&st), "no status");
	for (size_t i = 0; i < sizeof(thread) / sizeof(*thread); i++) {
		st.status = (char *)thread[i];
		cr_assert(sx_job_state_by_thread(&st), "%s", thread[i]);
	}
	for (size_t i = 0; i < sizeof(not ) / sizeof(*not ); i++) {
		st.status = (char *)not [i];
		cr_assert_not(sx_job_state_by_thread(&st), "%s", not [i]);
	}
}

Test(job_state, the_plugins_hold_holds_at_the_count_it_was_given)
{
	struct sx_job_state st = { .held = true, .held_at = 1 };

	/* held=1/1: given before any requeue */
	cr_assert(sx_job_state_held_now(&st, 0));
	cr_assert_not(sx_job_state_held_now(&st, 1), "requeued since");
	st.held_at = 3; /* after the second requeue */
	cr_assert(sx_job_state_held_now(&st, 2));
	cr_assert_not(sx_job_state_held_now(&st, 0));
	st.held_at = 0; /* a bare held=1, an earlier version's: any count */
	cr_assert(sx_job_state_held_now(&st, 0));
	cr_assert(sx_job_state_held_now(&st, 7));
	st.held = false;
	cr_assert_not(sx_job_state_held_now(&st, 0));
	st.held_at = 1;
	cr_assert_not(sx_job_state_held_now(&st, 0));
}

/* An Extra an earlier release's thread narrowed to a preference's tier
 * where Slurm filtered, one row a case: the guard gives it back and
 * doctor counts it only while nobody changed it since (its hash the
 * state's wrote=), never the request itself nor a state of another
 * mode's (doc/preferences.md "Preferences"). */
Test(job_state, an_extra_the_thread_narrowed_is_told_by_its_hash)
{
	char *prefer[1] = { (char *)"cache=ds1" };
	const char *narrow = "(gpu=true)&(cache=ds1)";
	struct sx_job_state st = { .status = (char *)SX_SLURM_STATUS,
				   .request = (char *)"gpu=true",
				   .prefer = prefer,
				   .n_prefer = 1 };

	st.wrote = xc_text_hash(narrow);
	cr_assert(sx_job_state_narrowed_by_thread(&st, narrow));
	st.status =
		(char *)"preferring tier 1 of 1 until 12:00; " SX_SLURM_STATUS;
	cr_assert(sx_job_state_narrowed_by_thread(&st, narrow), "a note");
	cr_assert_not(sx_job_state_narrowed_by_thread(&st, "gpu=true&x=1"),
		      "changed since: another hash");
	cr_assert_not(sx_job_state_narrowed_by_thread(&st, NULL), "no Extra");
	st.wrote = xc_text_hash("gpu=true");
	cr_assert_not(sx_job_state_narrowed_by_thread(&st, "gpu=true"),
		      "the request itself");
	st.wrote = xc_text_hash(narrow);
	st.n_prefer = 0;
	cr_assert_not(sx_job_state_narrowed_by_thread(&st, narrow),
		      "no preferences");
	st.n_prefer = 1;
	st.status = (char *)SX_GUARD_STATUS;
	cr_assert_not(sx_job_state_narrowed_by_thread(&st, narrow),
		      "the guard's state");
	st.status = (char *)"2 of 4 nodes match";
	cr_assert_not(sx_job_state_narrowed_by_thread(&st, narrow),
		      "the filtering thread's state");
	cr_assert_not(sx_job_state_narrowed_by_thread(NULL, narrow));
}
