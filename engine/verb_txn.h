/* verb_txn.h: pieces shared by the plan, apply, rollback and commit verbs
 * (and the history verbs: opening an existing history).
 *
 * Owns: loading a profile and planning it against the probed host with the
 * one report of load errors and plan problems; opening the history and
 * taking the lock with the one report of their errors. Each function
 * returns an exit code (exitcode.h) and reports on stderr itself. */
#ifndef CX5_VERB_TXN_H
#define CX5_VERB_TXN_H

#include "cli.h"
#include "history.h"
#include "plan.h"

struct profile;

/* Load `path`, probe, plan; unless runtime_only, plan the boot-time unit
 * too (plan_boot_unit). On EXIT_OK *ret_profile and *ret_plan are set (the
 * plan may still have problems: see plan_problems_exit_code). */
int txn_verb_plan(const char *path, bool runtime_only, struct profile **ret_profile, struct plan **ret_plan);
/* Report the plan's problems and warnings on stderr, one line each. */
void txn_verb_report_problems(const struct plan *p);
/* Open the history (read_only: may not exist: *ret NULL, EXIT_OK). */
int txn_verb_open_history(const struct cli *cli, bool read_only, struct history **ret);
/* Open a history that must already exist (read-only or read-write), for
 * the verbs that act on what was recorded (rollback, commit, history,
 * compare, export, mirror, analyze): a missing file is EXIT_NOT_FOUND, "no
 * history database at PATH", and nothing is created. */
int txn_verb_open_existing_history(const struct cli *cli, bool read_only, struct history **ret);
/* Take the apply/rollback lock: fd in *ret_fd, or EXIT_LOCKED. */
int txn_verb_lock(const struct cli *cli, unsigned wait_ms, int *ret_fd);
/* EXIT_OPEN_TXN with the message when an unfinished transaction exists. */
int txn_verb_refuse_unfinished(struct history *h);
/* With --json, a verb that fails before it could render still prints one
 * document: {"changed": false, "failed": true, "exit_code", "msg"} (the
 * details are on stderr). Returns code. */
int txn_verb_json_failure(int code);

#endif
