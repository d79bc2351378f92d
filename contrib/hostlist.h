/*
 * hostlist.h - node names as one RFC 29 hostlist, for Flux.
 */
#ifndef SLURM_EXTRA_HOSTLIST_H
#define SLURM_EXTRA_HOSTLIST_H

#include <stddef.h>

/* Formats the `n` node names as one RFC 29 hostlist string: sorted (by
 * prefix, then number), duplicates removed, consecutive numbers compressed
 * into ranges by Slurm's hostlist code, and one bracket per prefix and
 * zero-padding width, never mixing widths in a bracket: "n[01-02],n3", not
 * "n[01-02,3]" (../shared/spec/flux.md: Flux parsers read the mixed form
 * differently).  A number without leading zero joins the bracket of padded
 * numbers of its own width (n[08-12]).  Returns a malloc'd string the
 * caller frees; NULL when out of memory, or when a name cannot be written
 * in a hostlist (empty, or holding ',', '[', ']' or whitespace). */
char *rfc29_hostlist(const char *const *names, size_t n);

#endif
