/*
 * facts_json.h - this node's facts, as json-c values (slurm-extra(1),
 * "facts"; doc/facts.md): the set (facts.c), what the node is, discovered
 * (facts_discover.c: hwloc, uname(2), sysconf(3), sysfs; facts_cpu.c:
 * /proc/cpuinfo, /etc/os-release; facts_gpu.c: the GPU vendors'
 * libraries, loaded at run time), the site's own facts (facts_site.c: the
 * *.json files and executables of a directory), and the Extra a
 * publication writes (facts_owner.c: facts_merge()).  Private to facts/; the
 * command sees them through facts.h, which names no json-c type (the
 * command's other files use jansson, whose names clash with json-c's).
 *
 * Facts are one flat JSON object of json-c, the library Slurm reads Extra
 * with (doc/language.md §2): every value a boolean, an integer, a real or
 * a string that a request can name (facts_check()).  No function here
 * prints, exits or touches Slurm; an error is a message in the caller's
 * buffer.
 */
#ifndef SLURM_EXTRA_FACTS_JSON_H
#define SLURM_EXTRA_FACTS_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "facts.h"

/* A set of facts: `values` (key -> boolean, integer, real or string) and,
 * under the same keys, `sources` (key -> a string saying where the value
 * came from: "hwloc (API 2.8)", "/etc/os-release", "site file ...");
 * `site_keys`, the keys the site gave (an array; NULL before
 * facts_site_dir()).  All are the set's; keys keep the order they were
 * first set in. */
struct facts {
	json_object *values;
	json_object *sources;
	json_object *site_keys;
};

/* The most bytes a site file or a hook's output may hold, and the most
 * entries the site directory may hold (facts_site_dir). */
#define FACTS_SITE_MAX_BYTES 65536
#define FACTS_SITE_MAX_ENTRIES 256

/* Makes `f` an empty set.  Returns 0, or -1 when out of memory. */
int facts_init(struct facts *f);

/* Frees what `f` holds (not `f`); an empty or failed set too. */
void facts_fini(struct facts *f);

/* Sets `key` to `v` (a reference taken over; NULL means out of memory),
 * replacing an earlier value, and records `source` for it.  Returns 0, or
 * -1 when out of memory. */
int facts_put(struct facts *f, const char *key, json_object *v,
	      const char *source);

/* Milliseconds of CLOCK_MONOTONIC: the clock of every deadline here. */
long long facts_now_ms(void);

/* A copy of `v` (json_object_deep_copy()), the caller's, or NULL when out
 * of memory.  Used where a reference would do, because the command links
 * jansson as well, whose json_object_get() (a lookup by key) takes the
 * place of json-c's (a new reference) in the command's binary: json-c's
 * json_object_get() and json_object_iter_next() are never called here. */
json_object *facts_copy(json_object *v);

/* A real whose text is `text` ("8.6"), so that it is written as given,
 * not as 8.5999999999999996: json_object_new_double_s().  NULL when out
 * of memory. */
json_object *facts_real(double d, const char *text);

/* Discovers this node's facts into `f` (doc/facts.md "Discovered facts":
 * every key, its source and its fallback).  A source that is missing or
 * unreadable leaves its keys out; `warn` (FACTS_ERR_SIZE bytes, may be
 * NULL) gets the last such note.  Returns 0, or -1 when out of memory. */
int facts_discover(struct facts *f, const struct facts_env *env, char *warn);

/* The CPU's instruction-set flags of /proc/cpuinfo text `cpuinfo` (its
 * first "flags" line on x86, "Features" on Arm): each flag of the
 * architecture's list (facts.c: X86_FLAGS, ARM_FLAGS) as true or false,
 * and on x86_64 the microarchitecture level x86_64_level (1 to 4, by the
 * x86-64 psABI's lists).  `arch` is uname's machine.  Returns 0 (nothing
 * set when the text has no flags line or the architecture has no list), or
 * -1 when out of memory. */
int facts_cpu_flags(struct facts *f, const char *cpuinfo, const char *arch);

/* The os_id and os_version facts of os-release text `text` (ID=,
 * VERSION_ID=; quotes removed as os-release(5) says), both strings, and
 * when VERSION_ID starts with digits os_version_major and
 * os_version_minor, integers ("8.10": 8 and 10; read as one number it
 * would be 8.1).  Returns 0, or -1 when out of memory. */
int facts_os_release(struct facts *f, const char *text, const char *source);

/* `raw` (a CPU or GPU model name) as a value a request can name: "(R)",
 * "(TM)" and "(tm)" dropped, a clock after '@' dropped, blanks runs made
 * one '_', and every byte a request cannot hold in a value (the nine
 * operator bytes, control bytes) dropped.  Malloc'd (may be ""), or NULL
 * when out of memory. */
char *facts_value_text(const char *raw);

/* Whether byte `c` is one a request cannot hold in a key or a value
 * (doc/language.md §1.1). */
bool facts_operator_byte(unsigned char c);

/* facts_put() of a string value, taken through facts_value_text() (an
 * empty result sets nothing), of an integer, of a boolean: 0, or -1 when
 * out of memory. */
int facts_put_text(struct facts *f, const char *key, const char *raw,
		   const char *source);
int facts_put_int(struct facts *f, const char *key, int64_t n,
		  const char *source);
int facts_put_bool(struct facts *f, const char *key, bool b,
		   const char *source);

/* Whether `key` is an instruction-set flag discovery may set
 * (facts_cpu_flags(): the x86-64 and Arm lists of facts_cpu.c). */
bool facts_flag_key(const char *key);

/* The short model of GPU name `name` ("NVIDIA H100 80GB HBM3" -> "H100",
 * "NVIDIA A100-SXM4-80GB" -> "A100", "NVIDIA GeForce RTX 4090" ->
 * "RTX_4090"): the brand words dropped, then the words up to the first
 * that holds a digit, each cut at its first '-', joined with '_'.
 * Malloc'd, or NULL when out of memory. */
char *facts_gpu_model(const char *name);

/* Adds the GPU facts (gpu_count, and when there are GPUs gpu_vendor,
 * gpu_model, gpu_name, gpu_mem_mb, gpu_driver, gpu_cc) from the first
 * vendor library that answers: NVML (libnvidia-ml.so.1, or the file
 * $SLURM_EXTRA_NVML), then ROCm SMI (librocm_smi64.so.1, or
 * $SLURM_EXTRA_ROCM_SMI).  Returns 1 when one answered, 0 when none did
 * (`warn` says why, may be NULL), -1 when out of memory. */
int facts_gpu_libs(struct facts *f, char *warn);

/* The most bytes facts_gpu_bounded() reads from its child. */
#define FACTS_GPU_MAX_BYTES 65536

/* facts_gpu_libs() in a child process, so that a vendor library that
 * hangs (a GPU fallen off the bus) or crashes costs at most `timeout_s`
 * seconds and no more than its own process: its facts are sent back as
 * JSON and added to `f`.  Returns as facts_gpu_libs() does; 0 also when
 * the child did not answer in time (killed) or could not run, `note`
 * (FACTS_ERR_SIZE bytes) saying so. */
int facts_gpu_bounded(struct facts *f, int timeout_s, char *note);

/* Checks that `key` and `v` can stand in a node's Extra and be named by a
 * request (doc/facts.md "Site facts"): a key of 1 to 128 bytes and a
 * boolean, an integer, a finite real or a string of 1 to 1024 bytes, none
 * of them holding an operator byte (doc/language.md §1.1) or a control
 * byte.  Returns true, or false with `why` (FACTS_ERR_SIZE bytes) saying
 * what is wrong. */
bool facts_check(const char *key, json_object *v, char *why);

/* Merges the site's facts of directory `dir` into `f`, in the order of
 * the entries' names (strcmp): each *.json file is a JSON object; each
 * other executable regular file is run without arguments, stdin
 * /dev/null, signals at their defaults, in its own process group (killed
 * with the command), and must exit 0 having printed one JSON object; all
 * of them together within `timeout_s` seconds.  The directory and every
 * entry must be owned by root or this user and writable by no one else,
 * and so must the directory that holds a linked entry's target (sticky or
 * not); each directory above them must be too, unless sticky (/tmp), and
 * each link on the way root's or this user's (facts_walk() in
 * facts_path.h, OpenSSH's StrictModes), so that no other user can change
 * an entry between its check and its use.  A later entry overrides an
 * earlier one, and both override discovered facts.  Names starting with
 * '.' or ending with '~', ".dpkg-old", ".dpkg-new", ".dpkg-dist",
 * ".rpmsave" or ".rpmnew" are skipped.  f->site_keys (a new array) gets
 * the keys the site gave.  A missing `dir` gives no facts when
 * `must_exist` is false.  Returns 0, or -1 with `err` (FACTS_ERR_SIZE
 * bytes) naming the entry and what is wrong with it (unreadable, a
 * dangling link, too big, not a JSON object, a value facts_check()
 * refuses, owned or writable by others, reached through a directory or a
 * link another user could change: "site entry PATH: DIR, which holds its
 * target: ...", "site directory DIR: DIR2, above the site directory: ...";
 * a hook that timed out (killed with its process group), failed, printed
 * nothing, a NUL or too much, too many entries); `f` may then hold some
 * of the site's facts.  The directory is opened once and read through
 * that descriptor, each file opened once, checked as opened, and read or
 * run (fexecve(3)) through that descriptor, so that a file put in place
 * of a checked one (by root or this user, the only ones who can) is never
 * what runs or is read. */
int facts_site_dir(struct facts *f, const char *dir, bool must_exist,
		   int timeout_s, char *err);

/* For the unit tests alone (NULL otherwise): called with a hook's path
 * after the hook was checked and before it runs, so that a test can put
 * another file in its place at that moment. */
extern void (*facts_site_checked)(const char *path);

/* Whether JSON array `keys` (may be NULL) holds the string `key`. */
bool facts_array_has(json_object *keys, const char *key);

/* The Extra a publication writes (doc/facts.md "Publishing"): the
 * node's `current` Extra (an object; NULL: none) less the keys facts owns
 * (facts_discovered_key(), the keys of `site_keys`, those of
 * `old_site_keys`: the site's keys at the last publication, may be NULL),
 * plus every fact of `f`.  Keys the site set by hand keep their place and
 * value.  A new object, the caller's, or NULL when out of memory. */
json_object *facts_merge(json_object *current, const struct facts *f,
			 json_object *site_keys, json_object *old_site_keys);

#endif
