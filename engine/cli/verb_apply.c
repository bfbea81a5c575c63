/* verb_apply.c: `cx5prof apply PROFILE [--check] [--confirm SECONDS]`,
 * `cx5prof rollback [TXN] [--force]` and `cx5prof commit`.
 *
 * Owns: the order of a transaction as the operator sees it: lock, refuse
 * an unfinished transaction, plan, record the undo log durably, apply,
 * then commit or hand over to the --confirm watchdog; the one report of
 * each outcome with its exit code. Must never: change the host before
 * apply_txn_create() has returned (the undo log is on disk). */
#define _GNU_SOURCE
#include <inttypes.h>

#include "apply.h"
#include "txn.h"
#include "base/log.h"
#include "base/output.h"
#include "mirror/mirror.h"
#include "peer/peerssh.h"
#include "profile.h"
#include "store/campaigns.h"
#include "store/lock.h"
#include "verbkit.h"
#include "verbs.h"

#define COMMIT_LOCK_WAIT_MS	5000
#define COMMIT_LOCK_WAIT_MS_MAX 600000
#define CONFIRM_MAX_SECONDS	86400

enum {
	OPT_CHECK = 1000,
	OPT_CONFIRM,
	OPT_FORCE,
	OPT_RUNTIME_ONLY,
	OPT_ABANDON,
	OPT_REASON,
	OPT_SSH_COMMANDS,
	OPT_ORIGIN
};

#define ALLOW_SSH_COMMANDS_OPTION                                                                            \
	{                                                                                                    \
		"allow-ssh-commands", CLI_ARG_NONE, OPT_SSH_COMMANDS, NULL,                                  \
		    "let peer.ssh_config run commands here (ProxyCommand, LocalCommand, Match exec...)"      \
	}

const struct cli_option apply_options[] = {
    {"check", CLI_ARG_NONE, OPT_CHECK, NULL, "dry run: print the plan, exit as apply would (0 or 2)"},
    {"confirm", CLI_ARG_REQUIRED, OPT_CONFIRM, "SECONDS",
     "roll back automatically unless `cx5prof commit` follows in time"},
    {"runtime-only", CLI_ARG_NONE, OPT_RUNTIME_ONLY, NULL,
     "do not enable the boot-time unit: the changes last until the next reboot"},
    {"origin", CLI_ARG_REQUIRED, OPT_ORIGIN, "TOKEN",
     "(sent by the host that drives this peer) record TOKEN; refuse when that host gave it up"},
    ALLOW_SSH_COMMANDS_OPTION,
    {0},
};

const struct cli_option rollback_options[] = {
    {"force", CLI_ARG_NONE, OPT_FORCE, NULL, "roll back even if later transactions changed the same keys"},
    {"abandon", CLI_ARG_NONE, OPT_ABANDON, NULL,
     "give up on unfinished transaction TXN without writing anything (needs --reason)"},
    {"reason", CLI_ARG_REQUIRED, OPT_REASON, "TEXT", "why the transaction is abandoned (recorded)"},
    {"origin", CLI_ARG_REQUIRED, OPT_ORIGIN, "TOKEN",
     "(sent by the host that drives this peer) roll back the apply started with TOKEN, or refuse it "
     "from now on when there is none"},
    ALLOW_SSH_COMMANDS_OPTION,
    {0},
};

const struct cli_option commit_options[] = {
    ALLOW_SSH_COMMANDS_OPTION,
    {0},
};

struct txn_args {
	bool check;
	bool force;
	bool runtime_only;
	bool abandon;
	const char *reason;
	const char *origin;
	unsigned confirm;
};

/* An origin token as the driving host makes it (peerssh.c): 32 lowercase
 * hex digits. */
static bool origin_valid(const char *s)
{
	return strlen(s) == 32 && strspn(s, "0123456789abcdef") == 32;
}

static int handle_option(int id, const char *arg, void *userdata)
{
	struct txn_args *a = userdata;
	uint32_t v;

	switch (id) {
	case OPT_CHECK:
		a->check = true;
		return 0;
	case OPT_FORCE:
		a->force = true;
		return 0;
	case OPT_RUNTIME_ONLY:
		a->runtime_only = true;
		return 0;
	case OPT_ABANDON:
		a->abandon = true;
		return 0;
	case OPT_REASON:
		a->reason = arg;
		return 0;
	case OPT_SSH_COMMANDS:
		peerssh_allow_commands(true);
		return 0;
	case OPT_ORIGIN:
		if (!origin_valid(arg)) {
			log_error("--origin expects the token of the host that drives this peer (32 "
				  "lowercase hex digits), not '%s'",
				  arg);
			return EXIT_USAGE;
		}
		a->origin = arg;
		return 0;
	case OPT_CONFIRM:
		if (safe_atou32(arg, &v) < 0 || v == 0 || v > CONFIRM_MAX_SECONDS) {
			log_error("apply: --confirm expects seconds between 1 and %d, not '%s'",
				  CONFIRM_MAX_SECONDS, arg);
			return EXIT_USAGE;
		}
		a->confirm = v;
		return 0;
	}
	return EXIT_USAGE;
}

/* ---- apply ---- */

static int run_transaction(struct history **hp, const struct cli *cli, const struct profile *prof,
			   const struct plan *p, unsigned confirm, const char *origin)
{
	struct txn_outcome o = {0};
	char msg[512] = "nothing to change";
	struct txn_request q = {
	    .profile = prof,
	    .plan = p,
	    .db_path = cli->db_path,
	    .commit = confirm ? TXN_COMMIT_CONFIRM : TXN_COMMIT_NOW,
	    .confirm = confirm,
	    .peer = peerssh_wanted(prof),
	    .origin = origin,
	    .say = txn_verb_say,
	};
	int code;

	if (txn_run(hp, &q, &o) < 0) {
		log_error("apply: out of memory");
		return EXIT_ERROR;
	}
	if (o.end == TXN_END_NOT_RECORDED) { /* nothing applied: said by txn_run */
		txn_outcome_done(&o);
		return EXIT_ERROR;
	}
	code = txn_verb_outcome(&o, confirm, msg, sizeof(msg));
	plan_render(p, msg);
	if (o.txn == 0) {
		txn_outcome_done(&o);
		return code;
	}
	/* plan_render says changed when the plan had changes; after the
	 * transaction, changed means the host is not as it was. */
	out_bool(OUT_JSON, "changed", NULL,
		 (code == EXIT_OK && o.n > 0) || o.end == TXN_END_UNFINISHED ||
		     (code == EXIT_ROLLBACK_FAILED && strv_length(o.apply.left) > 0));
	out_uint(OUT_JSON, "txn", NULL, (uint64_t)o.txn);
	if (o.peer_txn > 0 && code == EXIT_OK)
		out_uint(OUT_JSON, "peer_txn", NULL, (uint64_t)o.peer_txn);
	out_bool(OUT_JSON, "failed", NULL, code != EXIT_OK);
	txn_outcome_done(&o);
	return code;
}

/* Close what an earlier boot left unfinished (txn_close_earlier_boot),
 * with the one report of a failure. EXIT_OK when none is left (or,
 * --check, when it is noted). */
static int close_earlier_boot(struct history *h, bool check, struct txn_earlier_boot *eb)
{
	int r = txn_close_earlier_boot(h, check, txn_verb_say, eb);

	if (r == -ENOTRECOVERABLE) {
		txn_verb_report_left(eb->apply.left);
		log_error("transaction %" PRId64 " was left %s in an earlier boot and cannot be closed: "
			  "fix the above, then run `cx5prof rollback %" PRId64 "`",
			  eb->failed.id, txn_status_to_string(eb->failed.status), eb->failed_target);
		return EXIT_ROLLBACK_FAILED;
	}
	if (r < 0) {
		log_error_errno(r, "history %s: %s%m: %s", history_path(h),
				eb->recording ? "cannot record the rollback: " : "", history_remedy(r));
		return EXIT_ERROR;
	}
	return EXIT_OK;
}

int verb_apply(struct cli *cli, int argc, char **argv)
{
	_cleanup_strv_free_ char **args = NULL;
	_cleanup_profile_ struct profile *prof = NULL;
	_cleanup_plan_ struct plan *p = NULL;
	_cleanup_history_ struct history *h = NULL;
	_cleanup_(txn_earlier_boot_done) struct txn_earlier_boot eb = {0};
	struct txn_args a = {0};
	int lock_fd = -1, r;

	r = cli_parse(cli, cli->verb, argc, argv, handle_option, &a, &args);
	if (r != 0)
		return r < 0 ? EXIT_OK : r;
	if (strv_length(args) != 1) {
		log_error("apply: expected one PROFILE");
		return EXIT_USAGE;
	}
	if (a.check && a.origin) {
		log_error("apply: --origin goes with an apply, not with --check");
		return EXIT_USAGE;
	}
	/* The lock before the history: two applies on a database that does
	 * not exist yet must not both create it (the loser says "locked").
	 * A --db that is not a regular file, or without its directory, is
	 * reported by opening the history, with nothing created. */
	if (!a.check && history_path_check(cli->db_path) >= 0 && mkdir_parent(cli->db_path) >= 0)
		r = txn_verb_lock(cli, 0, &lock_fd);
	if (r == EXIT_OK)
		r = txn_verb_open_history(cli, a.check ? HISTORY_READ_ONLY | VERB_HISTORY_MAY_BE_MISSING : 0,
					  &h);
	if (r == EXIT_OK)
		r = close_earlier_boot(h, a.check, &eb);
	if (r == EXIT_OK && !eb.pending)
		r = txn_verb_refuse_unfinished(h);
	if (r == EXIT_OK)
		r = txn_verb_plan(args[0], a.runtime_only, &prof, &p);
	if (r == EXIT_OK && !a.check)
		r = txn_verb_check_peer_config(prof);
	if (r != EXIT_OK) {
		lock_release(lock_fd);
		return r;
	}
	txn_verb_report_problems(p);
	out_open_object(NULL);
	out_open_array("closed_earlier_boot");
	for (size_t i = 0; i < eb.n; i++)
		out_uint(OUT_JSON, NULL, NULL, (uint64_t)eb.closed[i]);
	out_close_array();
	if (p->n_problems > 0) {
		plan_render(p, "cannot apply: nothing was changed");
		r = plan_problems_exit_code(p);
	} else if (p->n_changes == 0 && (a.check || !peerssh_wanted(prof))) {
		/* --check changes nothing anywhere: the peer is not contacted. */
		plan_render(p, "nothing to change");
	} else if (a.check) {
		plan_render(p, "changes pending (--check: nothing was changed)");
		r = EXIT_CHANGES;
	} else
		r = run_transaction(&h, cli, prof, p, a.confirm, a.origin);
	out_close_object();
	(void)out_finish();
	lock_release(lock_fd);
	/* The transaction is recorded (and queued for the mirror): send what is
	 * due within a short budget; never changes the exit code. */
	if (h && !a.check)
		mirror_opportunistic(h, &prof->mirror);
	return r;
}

/* ---- rollback ---- */

/* The TXN argument, checked before the history is opened or locked. */
static int parse_target(char **args, int64_t *ret_id)
{
	if (!args[0]) {
		*ret_id = 0;
		return EXIT_OK;
	}
	if (safe_atoi64(args[0], ret_id) < 0 || *ret_id <= 0) {
		log_error("rollback: '%s' is not a transaction number", args[0]);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* The one report of a choice (txn_rollback_choose) that rolls nothing
 * back: EXIT_OK with "nothing to roll back" (-1), or the exit code with
 * its message; EXIT_OK to go on. */
static int render_choice(struct history *h, const struct txn_rollback_choice *c, int r)
{
	const struct txn_record *t = &c->target;

	if (r < 0) {
		log_error_errno(r, "history %s: %m: %s", history_path(h), history_remedy(r));
		return EXIT_ERROR;
	}
	switch (c->pick) {
	case TXN_PICK_NOT_FOUND:
		log_error("rollback: no transaction %" PRId64 " in %s", c->id, history_path(h));
		return EXIT_NOT_FOUND;
	case TXN_PICK_IS_ROLLBACK:
		log_error("rollback: transaction %" PRId64
			  " is itself a rollback: roll back an apply transaction",
			  t->id);
		return EXIT_ERROR;
	case TXN_PICK_ALREADY:
		log_info("transaction %" PRId64 " is already %s: nothing to roll back", t->id,
			 txn_status_to_string(t->status));
		return -1;
	case TXN_PICK_NOTHING:
		return -1;
	case TXN_PICK_LATER_OVERLAP:
		log_error("rollback: transaction %" PRId64
			  " changed the same settings later: roll it back first, "
			  "or use --force to roll back the later ones first, then transaction %" PRId64,
			  c->later, t->id);
		return EXIT_ERROR;
	case TXN_PICK_NOT_UNFINISHED:
		log_error("rollback --abandon: transaction %" PRId64
			  " is %s, not unfinished: there is nothing to abandon",
			  t->id, txn_status_to_string(t->status));
		return EXIT_ERROR;
	case TXN_PICK_UNDO:
	case TXN_PICK_RETRY_PEER:
	case TXN_PICK_ABANDON:
	case TXN_PICK_ABANDON_PEER:
		break;
	}
	return EXIT_OK;
}

static int report_rollback(struct history *h, const struct txn_record *t, int r,
			   const struct apply_outcome *o)
{
	struct change_record *c = NULL;
	size_t n = 0;
	char msg[320];

	out_uint(OUT_JSON, "txn", NULL, (uint64_t)t->id);
	out_uint(OUT_JSON, "rollback_txn", NULL, (uint64_t)o->rollback_txn);
	out_open_array("changes");
	if (history_changes_load(h, o->rollback_txn, &c, &n) >= 0)
		for (size_t i = 0; i < n; i++) {
			out_open_object(NULL);
			out_string(OUT_ANY, "object", "%s  ", c[i].object);
			out_string(OUT_ANY, "key", "%s  ", c[i].key);
			_cleanup_free_ char *before =
			    change_value_human(c[i].kind, c[i].old_value, c[i].new_value);
			_cleanup_free_ char *after =
			    change_value_human(c[i].kind, c[i].new_value, c[i].old_value);
			out_string(OUT_JSON, "before", NULL, c[i].old_value);
			out_string(OUT_JSON, "after", NULL, c[i].new_value);
			out_string(OUT_HUMAN, NULL, "%s -> ", before ? before : c[i].old_value);
			out_string(OUT_HUMAN, NULL, "%s", after ? after : c[i].new_value);
			out_string(OUT_JSON, "state", NULL, change_state_to_string(c[i].state));
			if (c[i].error) /* why it failed, or was not written */
				out_string(OUT_JSON, "note", NULL, c[i].error);
			/* a step that was not written says why (reset by the reboot) */
			out_string(OUT_HUMAN, NULL, "  %s\n",
				   c[i].state == CHANGE_PLANNED && c[i].error
				       ? c[i].error
				       : change_state_to_string(c[i].state));
			out_close_object();
		}
	change_records_free(c, n);
	out_close_array();
	out_bool(OUT_JSON, "changed", NULL, o->done > 0);
	if (r < 0) {
		txn_verb_report_left(o->left);
		snprintf(msg, sizeof(msg),
			 "rollback of transaction %" PRId64 " is incomplete: the host is NOT as before",
			 t->id);
		log_error("%s", msg);
	} else if (o->reset_by_reboot > 0)
		snprintf(msg, sizeof(msg),
			 "rolled back transaction %" PRId64 " (recorded as transaction %" PRId64
			 "); it is from an earlier boot: %zu runtime change%s were reset by the reboot, "
			 "not written",
			 t->id, o->rollback_txn, o->reset_by_reboot, o->reset_by_reboot == 1 ? "" : "s");
	else
		snprintf(msg, sizeof(msg),
			 "rolled back transaction %" PRId64 " (recorded as transaction %" PRId64 ")", t->id,
			 o->rollback_txn);
	out_string(OUT_ANY, "msg", "%s\n", msg);
	return r < 0 ? EXIT_ROLLBACK_FAILED : EXIT_OK;
}

/* With the apply lock held no campaign runs (a live one holds the lock
 * from its start to its end): one still `running` was left by a cx5prof
 * that died, in a round (whose open transaction this rollback resolves)
 * or before its first one. It is recorded as interrupted. */
static void mark_dead_campaigns(struct history *h)
{
	int r = campaigns_interrupt_stale(h, history_now_usec());

	if (r < 0)
		log_warn("history %s: cannot record a dead campaign as interrupted: %s", history_path(h),
			 strerror(-r));
	else if (r > 0)
		log_info("%d campaign%s left running by a cx5prof that died recorded as interrupted", r,
			 r == 1 ? "" : "s");
}

/* Transaction t is rolled back here but its peer's rollback is pending
 * (the peer could not be reached then): try it again. */
static int retry_peer_undo(struct history *h, const struct txn_record *t)
{
	struct txn_undo_outcome u = {0};
	char msg[320];
	int r;

	if (t->peer_txn == HISTORY_PEER_TXN_UNKNOWN)
		log_notice("transaction %" PRId64 " is rolled back here; the peer's apply with it was cut "
			   "short (%s): finding out what it left there",
			   t->id, t->peer_undo_pending);
	else
		log_notice("transaction %" PRId64 " is rolled back here, its peer's transaction %" PRId64
			   " not yet (%s): trying again",
			   t->id, t->peer_txn, t->peer_undo_pending);
	r = txn_undo_record(h, t, NULL, txn_verb_say, &u);
	out_uint(OUT_JSON, "txn", NULL, (uint64_t)t->id);
	if (u.peer_txn > 0)
		out_uint(OUT_JSON, "peer_txn", NULL, (uint64_t)u.peer_txn);
	else
		out_string(OUT_JSON, "peer_txn", NULL, NULL);
	out_bool(OUT_JSON, "changed", NULL,
		 t->peer_txn == HISTORY_PEER_TXN_UNKNOWN ? u.peer_done && u.peer_txn > 0 && !u.peer_was_undone
							 : u.peer_done);
	if (r == 0 && t->peer_txn == HISTORY_PEER_TXN_UNKNOWN && u.peer_txn == 0)
		snprintf(msg, sizeof(msg),
			 "the peer's apply with transaction %" PRId64
			 " was cut short and left nothing there: both ends are as before",
			 t->id);
	else if (r == 0 && t->peer_txn == HISTORY_PEER_TXN_UNKNOWN && u.peer_was_undone)
		snprintf(msg, sizeof(msg),
			 "the peer's apply with transaction %" PRId64
			 " was cut short; its transaction %" PRId64
			 " there was already rolled back: both ends are as before",
			 t->id, u.peer_txn);
	else if (r == 0 && t->peer_txn == HISTORY_PEER_TXN_UNKNOWN)
		snprintf(msg, sizeof(msg),
			 "rolled back the peer's transaction %" PRId64 " of transaction %" PRId64
			 " (its apply had been cut short)",
			 u.peer_txn, t->id);
	else if (t->peer_txn == HISTORY_PEER_TXN_UNKNOWN)
		snprintf(msg, sizeof(msg),
			 "the peer's state after the apply of transaction %" PRId64
			 " that was cut short is still unknown: its rollback stays pending",
			 t->id);
	else if (r == 0)
		snprintf(msg, sizeof(msg),
			 "rolled back the peer's transaction %" PRId64 " of transaction %" PRId64
			 " (its rollback was pending)",
			 t->peer_txn, t->id);
	else
		snprintf(msg, sizeof(msg),
			 "the peer's transaction %" PRId64 " of transaction %" PRId64
			 " is still NOT rolled back: its rollback stays pending",
			 t->peer_txn, t->id);
	out_string(OUT_ANY, "msg", "%s\n", msg);
	txn_undo_outcome_done(&u);
	return r == 0 ? EXIT_OK : EXIT_ROLLBACK_FAILED;
}

static int undo_failed(struct history *h, int r)
{
	log_error_errno(r, "history %s: cannot record the rollback: %m: %s", history_path(h),
			history_remedy(r));
	return EXIT_ERROR;
}

/* --force on a transaction that later ones overlap: those are rolled back
 * first (txn_undo_later), with the one report of a failure. */
static int unstack_later(struct history *h, int64_t target)
{
	_cleanup_(txn_unstack_outcome_done) struct txn_unstack_outcome o = {0};
	int r = txn_undo_later(h, target, txn_verb_say, &o);

	if (r == -ENOTRECOVERABLE) {
		txn_verb_report_left(o.undo.apply.left);
		log_error("rollback --force %" PRId64 ": transaction %" PRId64
			  " could not be rolled back fully: stopped before transaction %" PRId64,
			  target, o.failed_txn, target);
		return EXIT_ROLLBACK_FAILED;
	}
	if (r < 0 && o.failed_txn)
		return undo_failed(h, r);
	if (r < 0) {
		log_error_errno(r, "history %s: %m", history_path(h));
		return EXIT_ERROR;
	}
	return EXIT_OK;
}

static int rollback_locked(struct history *h, int64_t id, bool force)
{
	_cleanup_(txn_rollback_choice_done) struct txn_rollback_choice c = {0};
	struct txn_undo_outcome u = {0};
	int r;

	r = txn_rollback_choose(h, id, force ? TXN_CHOOSE_FORCE : 0, &c);
	r = render_choice(h, &c, r);
	if (r == EXIT_OK && c.pick == TXN_PICK_RETRY_PEER)
		return retry_peer_undo(h, &c.target);
	if (r < 0) {
		out_bool(OUT_JSON, "changed", NULL, false);
		out_string(OUT_ANY, "msg", "%s\n", "nothing to roll back");
		return EXIT_OK;
	}
	if (r == EXIT_OK && force)
		r = unstack_later(h, c.target.id);
	if (r != EXIT_OK)
		return r;
	r = txn_undo_record(h, &c.target, "rolled back by `cx5prof rollback`", txn_verb_say, &u);
	if (r < 0 && r != -ENOTRECOVERABLE) {
		txn_undo_outcome_done(&u);
		return undo_failed(h, r);
	}
	r = report_rollback(h, &c.target, u.here, &u.apply);
	if (u.peer_left)
		r = EXIT_ROLLBACK_FAILED;
	txn_undo_outcome_done(&u);
	return r;
}

/* `rollback --abandon TXN` of a transaction rolled back here whose peer
 * rollback is pending and can never succeed (the peer is gone): it is no
 * longer pending, recorded with who and why; nothing is written. */
static int abandon_peer_locked(struct history *h, const struct txn_record *t, const char *reason)
{
	char msg[320];
	int r = abandon_peer_undo(h, t->id, t->peer_txn, reason);

	if (r < 0) {
		log_error_errno(r, "history %s: cannot record the abandon: %m: %s", history_path(h),
				history_remedy(r));
		return EXIT_ERROR;
	}
	out_uint(OUT_JSON, "txn", NULL, (uint64_t)t->id);
	if (t->peer_txn > 0)
		out_uint(OUT_JSON, "peer_txn", NULL, (uint64_t)t->peer_txn);
	else
		out_string(OUT_JSON, "peer_txn", NULL, NULL);
	out_open_array("changes");
	out_close_array();
	out_bool(OUT_JSON, "changed", NULL, false);
	out_bool(OUT_JSON, "abandoned", NULL, true);
	if (t->peer_txn == HISTORY_PEER_TXN_UNKNOWN)
		snprintf(
		    msg, sizeof(msg),
		    "abandoned the pending rollback of the peer's apply (cut short) of transaction %" PRId64
		    ": nothing was written; the peer is left as it is",
		    t->id);
	else
		snprintf(msg, sizeof(msg),
			 "abandoned the pending rollback of the peer's transaction %" PRId64
			 " of transaction %" PRId64 ": nothing was written; the peer is left as it is",
			 t->peer_txn, t->id);
	out_string(OUT_ANY, "msg", "%s\n", msg);
	return EXIT_OK;
}

/* `rollback --abandon TXN --reason TEXT`: the way out of a transaction
 * that can never be restored (an IRQ gone with a driver reload, a file
 * removed): after reading what is left, the operator gives it up. Nothing
 * is written to the host; the history records who, why, and what stays. */
static int abandon_locked(struct history *h, int64_t target, const char *reason)
{
	_cleanup_(txn_rollback_choice_done) struct txn_rollback_choice choice = {0};
	const struct txn_record *t = &choice.target;
	struct change_record *c = NULL;
	int64_t id = 0;
	size_t n = 0;
	char msg[320];
	int r;

	r = txn_rollback_choose(h, target, TXN_CHOOSE_ABANDON, &choice);
	r = render_choice(h, &choice, r);
	if (r < 0) /* NOTHING and ALREADY: not with --abandon, which names its TXN */
		r = EXIT_ERROR;
	if (r != EXIT_OK)
		return r;
	if (choice.pick == TXN_PICK_ABANDON_PEER)
		return abandon_peer_locked(h, t, reason);
	r = abandon_txn(h, t->id, t->peer_undo_pending != NULL, t->peer_txn, reason, &id);
	if (r < 0) {
		log_error_errno(r, "history %s: cannot record the abandon: %m: %s", history_path(h),
				history_remedy(r));
		return EXIT_ERROR;
	}
	out_uint(OUT_JSON, "txn", NULL, (uint64_t)t->id);
	out_uint(OUT_JSON, "rollback_txn", NULL, (uint64_t)id);
	out_open_array("changes");
	if (history_changes_load(h, id, &c, &n) >= 0)
		for (size_t i = 0; i < n; i++) {
			_cleanup_free_ char *now =
			    change_value_human(c[i].kind, c[i].old_value, c[i].new_value);
			_cleanup_free_ char *old =
			    change_value_human(c[i].kind, c[i].new_value, c[i].old_value);

			out_open_object(NULL);
			out_string(OUT_ANY, "object", "left  %s  ", c[i].object);
			out_string(OUT_ANY, "key", "%s  ", c[i].key);
			out_string(OUT_JSON, "before", NULL, c[i].old_value);
			out_string(OUT_JSON, "after", NULL, c[i].new_value);
			out_string(OUT_HUMAN, NULL, "%s (recorded old value ", now ? now : c[i].old_value);
			out_string(OUT_HUMAN, NULL, "%s)\n", old ? old : c[i].new_value);
			out_string(OUT_JSON, "state", NULL, change_state_to_string(c[i].state));
			out_string(OUT_JSON, "note", NULL, c[i].error);
			out_close_object();
		}
	out_close_array();
	change_records_free(c, n);
	out_bool(OUT_JSON, "changed", NULL, false);
	out_bool(OUT_JSON, "abandoned", NULL, true);
	snprintf(msg, sizeof(msg),
		 "abandoned transaction %" PRId64 " (recorded as transaction %" PRId64
		 "): nothing was written; %zu change%s left as %s on the host",
		 t->id, id, n, n == 1 ? " is" : "s are", n == 1 ? "it is" : "they are");
	out_string(OUT_ANY, "msg", "%s\n", msg);
	return EXIT_OK;
}

/* `rollback --origin TOKEN` (asked by the host that drives this peer,
 * whose apply here was cut short): the apply started with TOKEN is rolled
 * back when there is one; when there is none, TOKEN is fenced, so that an
 * apply carrying it that has not yet recorded its transaction (still on
 * its way, or waiting for the lock this holds) is refused. Either way the
 * driving host learns what its apply left here. */
static int rollback_origin_locked(struct history *h, const char *origin)
{
	_cleanup_(txn_record_done) struct txn_record t = {0};
	int r = history_txn_find_origin(h, origin, &t);

	if (r > 0) {
		out_uint(OUT_JSON, "origin_txn", NULL, (uint64_t)t.id);
		return rollback_locked(h, t.id, false);
	}
	if (r == 0)
		r = history_fence(h, origin);
	if (r < 0) {
		log_error_errno(r, "history %s: %m: %s", history_path(h), history_remedy(r));
		return EXIT_ERROR;
	}
	out_string(OUT_JSON, "origin_txn", NULL, NULL);
	out_bool(OUT_JSON, "fenced", NULL, true);
	out_bool(OUT_JSON, "changed", NULL, false);
	out_string(OUT_ANY, "msg", "%s\n",
		   "no transaction of that origin here: nothing to roll back; an apply carrying it is "
		   "refused from now on");
	return EXIT_OK;
}

int verb_rollback(struct cli *cli, int argc, char **argv)
{
	_cleanup_strv_free_ char **args = NULL;
	_cleanup_history_ struct history *h = NULL;
	struct txn_args a = {0};
	int64_t id;
	int lock_fd = -1, r;

	r = cli_parse(cli, cli->verb, argc, argv, handle_option, &a, &args);
	if (r != 0)
		return r < 0 ? EXIT_OK : r;
	if (strv_length(args) > 1) {
		log_error("rollback: expected at most one TXN");
		return EXIT_USAGE;
	}
	if (a.abandon && (strv_length(args) != 1 || !a.reason || !*a.reason || a.force)) {
		log_error("rollback --abandon: expected one TXN and --reason TEXT (and no --force)");
		return EXIT_USAGE;
	}
	if (a.reason && !a.abandon) {
		log_error("rollback: --reason goes with --abandon");
		return EXIT_USAGE;
	}
	if (a.origin && (args[0] || a.force || a.abandon)) {
		log_error("rollback --origin: takes no TXN, --force or --abandon");
		return EXIT_USAGE;
	}
	r = parse_target(args, &id);
	/* --origin: the lock first and the history created when missing, as
	 * apply does: the fence must be recorded even before any apply was. */
	if (r == EXIT_OK && a.origin && history_path_check(cli->db_path) >= 0 &&
	    mkdir_parent(cli->db_path) >= 0)
		r = txn_verb_lock(cli, 0, &lock_fd);
	if (r == EXIT_OK)
		r = txn_verb_open_history(cli, a.origin ? 0 : HISTORY_EXISTING, &h);
	if (r == EXIT_OK && !a.origin)
		r = txn_verb_lock(cli, 0, &lock_fd);
	if (r != EXIT_OK) {
		lock_release(lock_fd);
		return r;
	}
	out_open_object(NULL);
	r = a.origin	? rollback_origin_locked(h, a.origin)
	    : a.abandon ? abandon_locked(h, id, a.reason)
			: rollback_locked(h, id, a.force);
	out_close_object();
	mark_dead_campaigns(h);
	if (r == EXIT_OK || r == EXIT_ROLLBACK_FAILED) /* else: main's error document */
		(void)out_finish();
	lock_release(lock_fd);
	mirror_opportunistic(h, NULL);
	return r;
}

/* ---- commit ---- */

/* The outcome of txn_commit, as the operator reads it. */
static int commit_locked(struct history *h)
{
	_cleanup_(txn_commit_outcome_done) struct txn_commit_outcome o = {0};
	int r = txn_commit(h, txn_verb_say, &o);

	if (r < 0) {
		log_error_errno(r, "history %s: %m: %s", history_path(h), history_remedy(r));
		return EXIT_ERROR;
	}
	switch (o.end) {
	case TXN_COMMIT_NONE:
		out_bool(OUT_JSON, "changed", NULL, false);
		out_string(OUT_ANY, "msg", "%s\n", "nothing to commit");
		return EXIT_OK;
	case TXN_COMMIT_TOO_LATE:
		log_error("transaction %" PRId64
			  " was not confirmed in time and has been rolled back: apply it again",
			  o.txn);
		return EXIT_ERROR;
	case TXN_COMMIT_UNFINISHED:
		return txn_verb_refuse_unfinished(h);
	case TXN_COMMIT_EXPIRED:
		log_error("transaction %" PRId64
			  ": the confirm deadline has passed, it is not kept: the watchdog "
			  "rolls it back (if the watchdog was stopped, run `cx5prof rollback`)",
			  o.txn);
		return EXIT_ERROR;
	case TXN_COMMIT_DONE:
		break;
	}
	out_uint(OUT_JSON, "txn", NULL, (uint64_t)o.txn);
	out_bool(OUT_JSON, "changed", NULL, true);
	out_text("committed transaction %" PRId64 "\n", o.txn);
	out_string(OUT_JSON, "msg", NULL, "committed");
	if (o.peer_unreachable) {
		log_error("transaction %" PRId64 " tuned a peer (its transaction %" PRId64
			  "), but the stored profile does not say how to reach it: run `cx5prof "
			  "commit` on the peer",
			  o.txn, o.peer_txn);
		return EXIT_ERROR;
	}
	if (o.peer_error) {
		log_error("%s: the peer's --confirm watchdog rolls it back; apply again to tune both ends",
			  o.peer_error);
		return EXIT_ERROR;
	}
	return EXIT_OK;
}

/* How long commit waits for the lock: COMMIT_LOCK_WAIT_MS, or (tests only)
 * $CX5PROF_COMMIT_LOCK_WAIT_MS, so a test that makes commit wait for a
 * holder it stops does not race a fixed 5 s on a busy machine. */
static unsigned commit_lock_wait_ms(void)
{
	const char *env = getenv("CX5PROF_COMMIT_LOCK_WAIT_MS");
	uint32_t v;

	if (!env || safe_atou32(env, &v) < 0 || v > COMMIT_LOCK_WAIT_MS_MAX)
		return COMMIT_LOCK_WAIT_MS;
	return v;
}

int verb_commit(struct cli *cli, int argc, char **argv)
{
	_cleanup_strv_free_ char **args = NULL;
	_cleanup_history_ struct history *h = NULL;
	struct txn_args a = {0};
	int lock_fd = -1, r;

	r = cli_parse(cli, cli->verb, argc, argv, handle_option, &a, &args);
	if (r != 0)
		return r < 0 ? EXIT_OK : r;
	if (args[0]) {
		log_error("commit: takes no arguments");
		return EXIT_USAGE;
	}
	r = txn_verb_open_history(cli, HISTORY_EXISTING, &h);
	if (r == EXIT_OK)
		r = txn_verb_lock(cli, commit_lock_wait_ms(), &lock_fd);
	if (r != EXIT_OK)
		return r;
	out_open_object(NULL);
	r = commit_locked(h);
	out_close_object();
	if (r == EXIT_OK) /* else: main's error document */
		(void)out_finish();
	lock_release(lock_fd);
	return r;
}
