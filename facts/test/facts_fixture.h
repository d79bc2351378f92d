/*
 * facts_fixture.h - what the test files of facts/ (test_facts.c,
 * test_facts_site.c, test_facts_site_dirs.c, test_facts_state.c: one
 * test program) share: a set of facts made and freed around a test,
 * reading a fact and its source, and scratch directories under /tmp
 * (facts_fixture.c).
 */
#ifndef TESTS_FACTS_FIXTURE_H
#define TESTS_FACTS_FIXTURE_H

#include <sys/types.h>

#include "facts.h"

/* The set a test with .init = set_up, .fini = tear_down works on. */
extern struct facts set;

void set_up(void);
void tear_down(void);

/* The text of fact `key` of `f` (compact JSON), or "(none)": borrowed
 * from `f`, valid until it changes or is freed (tear_down()). */
const char *fact(const struct facts *f, const char *key);

/* Where fact `key` of `f` came from, or "(none)": borrowed as fact()'s. */
const char *source(const struct facts *f, const char *key);

/* A fresh directory under /tmp, into `dir` (at least 21 bytes). */
void make_dir(char *dir);

/* Writes `text` into `dir`/`name` and gives it `mode`. */
void write_in(const char *dir, const char *name, const char *text, mode_t mode);

/* rm -rf `dir`. */
void remove_dir(const char *dir);

#endif
