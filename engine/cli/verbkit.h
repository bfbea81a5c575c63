/* verbkit.h: what several verbs share, in one place of the command layer
 * (no verb calls another verb's file: make layering).
 *
 * Owns: loading a profile and planning it against the probed host with the
 * one report of load errors and plan problems; opening the history and
 * taking the lock with the one report of their errors; a transaction's
 * outcome as the operator reads it; the one message of a report
 * directory's failure. Each function returns an exit code (exitcode.h) and
 * reports on stderr itself. Must never: change the host. */
#ifndef CX5_VERBKIT_H
#define CX5_VERBKIT_H

#include "cli.h"
#include "plan.h"
#include "base/log.h"
#include "store/history.h"

struct profile;

/* Load `path`, probe, plan; unless runtime_only, plan the boot-time unit
 * too (plan_boot_unit). On EXIT_OK *ret_profile and *ret_plan are set (the
 * plan may still have problems: see plan_problems_exit_code). */
int txn_verb_plan(const char *path, bool runtime_only, struct profile **ret_profile, struct plan **ret_plan);
/* Report the plan's problems and warnings on stderr, one line each. */
void txn_verb_report_problems(const struct plan *p);
/* The command's one door to the history (cli->db_path: --db, else
 * CX5PROF_DB, else the default), opened once and passed down; every
 * failure said here, once, in the same words (exit 66 "no history
 * database at PATH" or "no history in PATH", 77, or 1), with its exit code. flags: history_open's
 * (HISTORY_READ_ONLY, HISTORY_EXISTING; none: created when missing) and VERB_HISTORY_MAY_BE_MISSING  no file
 * is no error: *ret NULL, EXIT_OK; VERB_HISTORY_OPTIONAL        the history only records a run: a failure is
 * a warning (none when read-only), *ret NULL, EXIT_OK; but a --db that is no regular file is refused. */
enum {
	VERB_HISTORY_MAY_BE_MISSING = 1 << 8,
	VERB_HISTORY_OPTIONAL = 1 << 9,
};
int txn_verb_open_history(const struct cli *cli, unsigned flags, struct history **ret);
/* Take the apply/rollback lock: fd in *ret_fd, or EXIT_LOCKED. */
int txn_verb_lock(const struct cli *cli, unsigned wait_ms, int *ret_fd);
/* EXIT_OPEN_TXN with the message when an unfinished transaction exists. */
int txn_verb_refuse_unfinished(struct history *h);
/* A transaction's outcome (txn_run) as the operator reads it: the
 * failure and what was undone on stderr, the final message in msg; returns
 * the exit code. The same for apply and campaign --keep. */
struct txn_outcome;
int txn_verb_outcome(const struct txn_outcome *o, unsigned confirm, char *msg, size_t msg_size);
/* The profile's peer.ssh_config, before anything changes
 * (peerssh_check_config): EXIT_OK, or the exit code with the reason said:
 * 77 owner or mode, 65 a keyword that runs commands, 66 no such file. */
int txn_verb_check_peer_config(const struct profile *prof);
/* "NOT restored: ..." on stderr, one line per change left. */
void txn_verb_report_left(char **left);
/* A txn_request's say(): the engine's messages on stderr at their level. */
void txn_verb_say(enum log_level level, const char *text);
/* The one message of a report directory's failure (campaign/reportdir.h),
 * with its exit code (73 not empty): `campaign --report` and `report`. */
int report_dir_failed(const char *verb, const char *dir, int r);
/* A run id of the command line: EXIT_USAGE with the message unless a
 * positive number. */
int verbkit_parse_run_id(const char *s, int64_t *ret);
/* Run id of h: EXIT_NOT_FOUND or EXIT_ERROR with the message. */
struct run_record;
int verbkit_load_run(struct history *h, int64_t id, struct run_record *ret);

#endif
