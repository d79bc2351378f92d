/*
 * facts_hook.h - running one hook of the site directory (facts_hook.c),
 * for facts_site_dir() (facts_site.c).  Private to facts/.
 */
#ifndef SLURM_EXTRA_FACTS_HOOK_H
#define SLURM_EXTRA_FACTS_HOOK_H

#include <stddef.h>

/* Runs hook `hook` (a descriptor, O_PATH or open, of the file that was
 * checked; `path` is its name, its argv[0] and nothing more: the file run
 * is the descriptor's, whatever has that name by now) without arguments,
 * stdin /dev/null, stderr the caller's, no other open file but the
 * hook's (a script's interpreter reads it as /dev/fd/N), every signal at
 * its default and unblocked, in its own process group, killed when the
 * command dies (PR_SET_PDEATHSIG), until `deadline` (facts_now_ms();
 * `timeout_s` only names it in messages).  Returns its output (malloc'd,
 * the caller's; NUL-terminated, *len bytes), or NULL with `why` (`size`
 * bytes): it could not be run, did not finish by the deadline or left a
 * process holding its output open, printed more than
 * FACTS_SITE_MAX_BYTES, nothing or a NUL, exited with a status other than
 * 0 or was killed by a signal.  A hook that has not exited with status 0
 * by the deadline, or prints too much, is killed with its process group;
 * so is what a hook that exited left behind in its group.  `hook` stays
 * open (the caller's).  The rules are doc/facts.md's "Site facts". */
char *facts_run_hook(int hook, const char *path, long long deadline,
		     int timeout_s, size_t *len, char *why, size_t size);

#endif
