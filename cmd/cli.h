/*
 * cli.h - what the files of the slurm-extra command share: its options,
 * its exit statuses, its readers (inputs.c), its printers (output.c) and
 * its subcommands (cmd_eval.c, cmd_flux.c, cmd_why.c), which main.c runs.
 * Private to cmd/.  What the command does is slurm-extra(1)
 * (doc/slurm-extra.1); each message and output here is part of it.
 *
 * Errors: a function that fails says why on stderr, as "slurm-extra: ..."
 * (or, with --json, on stdout where slurm-extra(1) says so), before it
 * returns its failure; its caller only passes the failure on.
 */
#ifndef SLURM_EXTRA_CLI_H
#define SLURM_EXTRA_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "job_state.h"
#include "xc.h"

/* Slurm's slurm_job_info_t and job_info_msg_t (slurm/slurm.h), which
 * only inputs.c and cmd_why.c read. */
struct job_info;
struct job_info_msg;

/* Exit statuses (slurm-extra(1), EXIT STATUS). */
#define EXIT_MATCH 0   /* a valid request, or a match */
#define EXIT_NOMATCH 1 /* no match (no node matches) */
#define EXIT_INVALID 2 /* invalid request or input, usage error */

/* The command's name, at the start of each message. */
extern const char *const prog;

/* The command line: its options (slurm-extra(1), OPTIONS) and its
 * REQUEST.  The strings are argv's. */
/* The most times an option that adds to a list may be given. */
#define CLI_LIST_MAX 64

struct opts {
	const char *extra;	  /* --extra REQUEST, as sbatch's: jobspec's
				   * request; eval's and explain's REQUEST
				   * when none is given (main.c, read_extra) */
	const char *node_extra;	  /* eval, explain --node-extra JSON (or
				   * --extra JSON after a REQUEST, its old
				   * spelling: read_extra) */
	const char *nodes;	  /* --nodes FILE */
	bool slurm;		  /* --slurm */
	bool batch;		  /* --batch */
	bool verbose;		  /* -v */
	bool resolve;		  /* --resolve */
	bool jobspec;		  /* --jobspec */
	const char *jobspec_file; /* --jobspec FILE */
	const char *within;	  /* --within HOSTLIST ('-': stdin) */
	const char *job;	  /* --job ID */
	bool json;		  /* --json */
	xc_limits_t limits;	  /* --max-length, --max-depth */
	bool publish;		  /* facts --publish */
	const char *node;	  /* facts --node NAME */
	const char *dir;	  /* facts --dir DIR */
	const char *timeout;	  /* facts --timeout SECONDS */
	const char *scratch;	  /* facts --scratch DIR */
	const char *state;	  /* facts --state DIR */
	const char *shape;	  /* jobspec --shape SHAPE */
	const char *nnodes;	  /* jobspec -N N */
	const char *ntasks;	  /* jobspec -n N */
	const char *cores;	  /* jobspec -c N */
	const char *gpus;	  /* jobspec --gpus-per-task N */
	bool exclusive;		  /* jobspec --exclusive */
	const char *time_limit;	  /* jobspec -t TIME */
	bool any_shape;		  /* jobspec --any-shape */
	const char *env_remove[CLI_LIST_MAX]; /* jobspec --env-remove
						 PATTERN, each */
	int nenv_remove;
	const char *extra_prefer[CLI_LIST_MAX]; /* --extra-prefer REQUEST,
						   each: check, why, prefer;
						   to-flux, jobspec: checked,
						   dropped */
	int nextra_prefer;
	const char *extra_prefer_wait; /* --extra-prefer-wait DURATION */
	bool none;		       /* prefer --none */
	char **command;		       /* jobspec: what follows "--" */
	int ncommand;		       /* its words */
	const char *request;
};

/* -------------------------------------------- subcommands (cmd_*.c) */

/* Each runs one subcommand of slurm-extra(1), COMMANDS, with the options
 * main() read (main.c: commands[]), and returns the exit status:
 * EXIT_MATCH, EXIT_NOMATCH or EXIT_INVALID. */
int cmd_check(const struct opts *o);
int cmd_eval(const struct opts *o);
int cmd_explain(const struct opts *o);
int cmd_to_flux(const struct opts *o);
int cmd_jobspec(const struct opts *o);
int cmd_from_flux(const struct opts *o);
int cmd_why(const struct opts *o);

/* why --job's report (cmd_why.c; slurm-extra(1), "why --job") of job
 * record `job` (read_job(): its request, description, nodes among those of
 * `pnodes`, preferences and status) on the nodes of `t` (borrowed, not
 * compiled), with the options of `o` (--json, the limits): on stdout, its
 * messages on stderr.  Returns the exit status, as cmd_why(). */
int why_job(const struct opts *o, const struct job_info *job,
	    const char *pnodes, const xc_nodes_t *t);

/* The owner's change of a pending job's preferences (cmd_prefer.c;
 * doc/preferences.md "Preferences", "Changing them"): sent as an update, then
 * read back from the job's state.  0 when the job's state shows it; 1
 * for anything about the job (not pending, no request, no preferences to
 * wait for, cannot be read, Slurm refused the update, the change did not
 * show); 2 for a usage error or an invalid preference. */
int cmd_prefer(const struct opts *o);

/* This node's facts (cmd_facts.c; doc/facts.md): printed, or with
 * --publish written into the node's Extra when they changed.  0 done, 1
 * slurmctld could not be read or refused, 2 a wrong site fact or usage. */
int cmd_facts(const struct opts *o);

/* What a live cluster runs, the settings this project recommends and
 * which filter to run (cmd_doctor.c; slurm-extra(1), "doctor"): 0
 * printed, 1 slurmctld could not be read. */
int cmd_doctor(const struct opts *o);

/* An earlier release's check at start (cmd_prolog.c), slurmctld's
 * PrologSlurmctld under the name PROLOG_NAME: it checks nothing now, says
 * so (stderr, syslog) and returns 0, so that a slurm.conf still naming it
 * lets every job start. */
#define PROLOG_NAME "slurm-extra-prolog-slurmctld"
int cmd_prolog(const struct opts *o);

/* The evaluation on many nodes (cmd_eval.c), for eval and to-flux
 * --resolve: reads the nodes of --nodes or --slurm and evaluates `e` on
 * them, only those --within names counting (slurm-extra(1), "eval
 * --nodes", --within).  *hl gets the matching nodes as one hostlist
 * (matched_hostlist; malloc'd, the caller's), NULL when none matches or on
 * failure; *count the number of nodes read.  With -v, says on stderr which
 * nodes have no usable Extra and how many match; with none matching, says
 * so and why.  Returns the number of matching nodes, or -1 after saying
 * why not. */
long match_hostlist(const struct opts *o, const xc_expr_t *e, char **hl,
		    size_t *count);

/* The Flux constraint of o->request (cmd_flux.c; doc/flux.md): the
 * symbolic RFC 31 form, or with --resolve the hostlist of the nodes of
 * --nodes or --slurm (within --within) that satisfy it.  A new
 * reference, or NULL after saying why, *rc the exit status (EXIT_NOMATCH
 * when no node satisfies it); *rc is EXIT_MATCH otherwise. */
json_t *flux_constraint(const struct opts *o, int *rc);

/* Adds `c` (a reference is taken over) to jobspec `js` at
 * attributes.system.constraints, AND-ed with a constraint already there
 * (RFC 14/25) (cmd_flux.c).  Returns 0, or -1 after printing why not. */
int add_to_jobspec(json_t *js, json_t *c);

/* ---------------------------------------------------- readers (inputs.c) */

/* Prints error `err` of `input` (a request or a shape) on stderr as
 * "slurm-extra: error: <what><message> (column N)", with the input and a
 * caret under the bytes at fault (xc_error_render; doc/language.md §6). */
void report_error(const char *input, const xc_error_t *err, const char *what);

/* Parses o->request by doc/language.md §1 within o->limits: the tree (the
 * caller's, xc_expr_destroy), or NULL after printing the error rendered
 * with its column and caret (doc/language.md §6) on stderr. */
xc_expr_t *parse_or_report(const struct opts *o);

/* parse_or_report() for the subcommands that take --json: with --json, an
 * error is printed as error_json() on stdout instead (slurm-extra(1),
 * --json). */
xc_expr_t *parse_request(const struct opts *o);

/* The node Extra of --node-extra, read as Slurm reads Extra (doc/language.md
 * §2): the caller's (xc_extra_destroy), or NULL, which matches no request,
 * after saying why on stderr (an error, or a note that it is unset, not
 * JSON or not an object). */
xc_extra_t *load_extra_arg(const struct opts *o);

/* The JSON document (any type) of file `arg`, or of stdin for "-"; `what`
 * names it in messages.  A new reference, or NULL after saying why not
 * (cannot read it, not valid JSON: jansson's message, line and column). */
json_t *load_json_arg(const char *arg, const char *what);

/* The text of a node's Extra given as a JSON object `v`, to be read as
 * Slurm reads Extra (doc/language.md §2): written back compact, its reals
 * with all 17 digits, so exactly.  Malloc'd; NULL when out of memory. */
char *extra_text(const json_t *v);

/* Adds to `t` (NULL: out of memory) the nodes of --nodes FILE (a JSON
 * object: node name -> Extra as an object, a string or null, slurm-extra(1)
 * "eval --nodes"), or with --slurm those of the running cluster
 * (slurm_load_node, sx_nodes_add_msg).  Returns 0, or -1 after saying why
 * not. */
int load_table(const struct opts *o, xc_nodes_t *t);

/* One flag per node of `t` (at least one), all false: the in[] that
 * read_within() and load_job() fill, the matched[] of an evaluation.
 * Malloc'd, or NULL after saying "out of memory". */
bool *node_flags(const xc_nodes_t *t);

/* Reads --within `arg`: the hostlist itself, or stdin for "-", where
 * whitespace separates names as ',' does (slurm-extra(1), --within).  Sets
 * in[i] for each node of `t` it names (in: one per node of `t`; the others
 * are left as they are); *unknown gets how many of its names `t` has not.
 * Returns 0, or -1 after saying why not (empty, not a hostlist, out of
 * memory). */
int read_within(const char *arg, const xc_nodes_t *t, bool *in,
		size_t *unknown);

/* All of `f`, at most `max` + 1 bytes (so that a longer input shows as
 * longer than `max`), NUL-terminated, in a buffer the caller frees; *len
 * gets its length.  NULL when out of memory (nothing printed). */
char *read_bounded(FILE *f, size_t max, size_t *len);

/* Reads job `jid` from Slurm (slurm-extra(1), "why --job"): *jobs gets
 * its records (the caller's, sx_free_job_info_msg; the job is
 * (*jobs)->job_array[0]), *pnodes the nodes of its partitions, their
 * hostlists joined by ',' (malloc'd, the caller's; NULL or "" when none
 * is found: then all nodes count).  Returns 0, or -1 after saying why not
 * (*jobs and *pnodes NULL). */
int load_job(uint32_t jid, struct job_info_msg **jobs, char **pnodes);

/* Reads job record `job` (borrowed: as load_job() or a test gives it):
 * *request gets its request, the caller's to free (job_submit/extra's,
 * from its AdminComment, job_state.h; else, from Slurm 23.02, the job's
 * own --extra); in[i] (one per node of `t`) is set for the nodes the job
 * may use: those of `pnodes` (its partitions'; NULL or "": all nodes),
 * less those the user excluded.  `what` (`size` bytes) gets a short
 * description of the job.  `prefs` (may be NULL) gets its preferences,
 * wait and status (job_state.h; sx_job_state_free), none when it has
 * none.  Every string is the job's as Slurm keeps it, raw: another
 * user's text, to print through put_text().  Returns 0, or -1 after
 * saying why not (*request NULL). */
int read_job(const struct job_info *job, const char *pnodes,
	     const xc_nodes_t *t, bool *in, char **request, char *what,
	     size_t size, struct sx_job_state *prefs);

/* The preferences of the command line (--extra-prefer, repeated, and
 * --extra-prefer-wait; doc/preferences.md "Preferences") into st->prefer,
 * st->n_prefer and st->wait (`st` emptied first; sx_job_state_free): each
 * checked as a request, the wait as sbatch's (prefer_wait_read).  0, or
 * -1 after saying which is invalid (with --json, a tier's error as
 * error_json() on stdout). */
int read_prefer(const struct opts *o, struct sx_job_state *st);

/* The preferences of to-flux and jobspec (--extra-prefer, repeated; doc/
 * flux.md "Preferences"): each checked as a request, then dropped, with a
 * word on stderr, since RFC 31 constraints are requirements and Flux has
 * no preferences.  0, or -1 after saying which is invalid. */
int drop_prefer(const struct opts *o);

/* --------------------------------------------------- printers (output.c) */

/*
 * Text the command did not write reaches a terminal or a log escaped:
 * another user's request, preferences and status (why --job, prefer), a
 * node's Extra and name, a log's line (doctor), a message quoting any of
 * them.  A terminal acts on control bytes (ESC starts a sequence that may
 * clear the screen, retitle the window or feed it input; BEL, CR, DEL too)
 * and on the C1 controls U+0080 to U+009F, which UTF-8 writes as two bytes
 * (CSI, U+009B, is 0xc2 0x9b); so every byte that is not printable ASCII is
 * shown as the library's caret renderer shows it (xc_escape_to(),
 * xc_util.h; doc/language.md §6): \n, \t, \r, \xNN for the others, ESC
 * \x1b, DEL \x7f, a C1 control its two bytes \xc2\x9b, invalid UTF-8 and
 * valid alike.  What is shown is printable ASCII, one column a byte.  JSON
 * is written with every non-ASCII character and DEL as \uXXXX
 * (json_text()).  slurm-extra(1), "why", says so.
 */

/* Writes `text` (NULL: nothing) on `out` as a report shows it, a backslash
 * as \\ too, so that it reads back to the same bytes (above).  Returns the
 * columns (bytes) written: where what follows it starts.  Write errors
 * are the stream's. */
size_t put_text(FILE *out, const char *text);

/* put_text() of `text` (NULL: "") as a string: malloc'd, the caller's to
 * free; NULL when out of memory. */
char *shown_text(const char *text);

/* Writes message `text` (NULL: nothing) on `out` as every message of the
 * command shows it (say(), fail(), prolog-slurmctld's lines): each byte
 * that is not printable ASCII escaped as put_text() escapes it, a
 * backslash left as it is.  A message passes on the library's own, which
 * already show such bytes escaped (xc_quote(): 'a\x01') and would read
 * 'a\\x01' with their backslash doubled; a message is for a person to
 * read, a report's text to read back exactly. */
void put_message(FILE *out, const char *text);

/* Says on stderr "slurm-extra: " and the message of printf() format `fmt`,
 * and a newline, through put_message(): every message of the command but
 * a parse error's (report_error(), whose renderer escapes the request and
 * keeps the caret under the byte at fault). */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* say(), for a message that ends the command: returns EXIT_INVALID. */
int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints the canonical text of `e` (xc_format) on a line, and frees `e`.
 * Returns EXIT_MATCH, or EXIT_INVALID after saying "out of memory". */
int print_request(xc_expr_t *e);

/* `j` as JSON text as the command writes it: json_dumps() with `flags`
 * and JSON_ENSURE_ASCII (every non-ASCII character, a C1 control too, as
 * \uXXXX), and DEL, which jansson writes raw in a string, as \u007F: the
 * same JSON value (RFC 8259 §7), no byte a terminal acts on.  malloc'd,
 * the caller's; NULL when out of memory. */
char *json_text(const json_t *j, size_t flags);

/* Writes json_text(j, flags) and a newline on `out`.  Returns false when
 * out of memory (nothing written, nothing said). */
bool put_json(FILE *out, const json_t *j, size_t flags);

/* Prints `j` (a reference taken over; NULL: out of memory) compactly on
 * one line of stdout (put_json).  Returns false after saying "out of
 * memory". */
bool print_json_line(json_t *j);

/* A parse error as slurm-extra(1) --json prints it:
 * {"valid": false, "error": {"code", "offset", "end", "message"}}, the
 * code named by shape_errcode_name(), which knows the language's codes and
 * those of shapes.  A new reference, or NULL when out of memory. */
json_t *error_json(const xc_error_t *err);

/* The nodes of `t` with matched[i] set as one hostlist, the form every
 * output of the command writes (xc_hostlist_of; slurm-extra(1), "eval
 * --nodes"): malloc'd, or NULL after saying why not (a name that cannot be
 * written in a hostlist, out of memory). */
char *matched_hostlist(const xc_nodes_t *t, const bool *matched);

/* The evaluation of `e` against `extra` (not NULL) as explain --json
 * prints it: a group {"group": "and"|"or", "result", "items": [...]}, a
 * leaf {"leaf": "a=1", "result", "outcome": "no-key", "why": "..."}
 * (xc_leaf_check, xc_explain_leaf).  A new reference, or NULL when out of
 * memory. */
json_t *explain_json(const xc_expr_t *e, const xc_extra_t *extra);

/* Prints `j` compactly on one line of stdout (put_json), its reals with
 * the fewest digits (15 to 17) that read back exactly, so that 0.1 stays
 * 0.1 (a jobspec's duration, doc/flux.md "In a jobspec"); says "out of
 * memory" when it cannot. */
void print_json_shortest(const json_t *j);

#endif
