/*
 * leakcheck.h - a leak fails the test that leaked.
 *
 * Criterion alone reports nothing when a test leaks.  In a build with
 * AddressSanitizer (./configure --enable-sanitizers), every suite declared
 * with LEAK_CHECKED(suite) asks LeakSanitizer, after each test, for memory
 * no longer reachable, and aborts the test (a failure) when there is any.
 * Without sanitizers it does nothing.
 */
#ifndef TESTS_LEAKCHECK_H
#define TESTS_LEAKCHECK_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
#define XC_HAVE_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define XC_HAVE_LSAN 1
#endif
#endif

#ifdef XC_HAVE_LSAN
#include <sanitizer/lsan_interface.h>

static void xc_leak_check(void)
{
	if (__lsan_do_recoverable_leak_check()) {
		fprintf(stderr,
			"LEAK: this test leaked memory (report above)\n");
		abort();
	}
}
#else
static void xc_leak_check(void)
{
}
#endif

#define LEAK_CHECKED(suite) TestSuite(suite, .fini = xc_leak_check)

#endif
