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
#include "base/log.h"
#include "base/output.h"
#include "mirror.h"
#include "peerssh.h"
#include "profile.h"
#include "store/campaigns.h"
#include "store/lock.h"
#include "verb_txn.h"
#include "verbs.h"

#define COMMIT_LOCK_WAIT_MS 5000
#define CONFIRM_MAX_SECONDS 86400

enum { OPT_CHECK = 1000, OPT_CONFIRM, OPT_FORCE, OPT_RUNTIME_ONLY, OPT_ABANDON, OPT_REASON };

const struct cli_option apply_options[] = {
    {"check", CLI_ARG_NONE, OPT_CHECK, NULL, "dry run: print the plan, exit as apply would (0 or 2)"},
    {"confirm", CLI_ARG_REQUIRED, OPT_CONFIRM, "SECONDS",
     "roll back automatically unless `cx5prof commit` follows in time"},
    {"runtime-only", CLI_ARG_NONE, OPT_RUNTIME_ONLY, NULL,
     "do not enable the boot-time unit: the changes last until the next reboot"},
    {0},
};

const struct cli_option rollback_options[] = {
    {"force", CLI_ARG_NONE, OPT_FORCE, NULL, "roll back even if later transactions changed the same keys"},
    {"abandon", CLI_ARG_NONE, OPT_ABANDON, NULL,
     "give up on unfinished transaction TXN without writing anything (needs --reason)"},
    {"reason", CLI_ARG_REQUIRED, OPT_REASON, "TEXT", "why the transaction is abandoned (recorded)"},
    {0},
};

struct txn_args {
	bool check;
	bool force;
	bool runtime_only;
	bool abandon;
	const char *reason;
	unsigned confirm;
};

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

static int changes_from_plan(const struct plan *p, struct change_record **ret)
{
	struct change_record *c = calloc(p->n_changes ? p->n_changes : 1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_changes; i++)
		c[i] = (struct change_record){.seq = (int)i + 1,
					      .object = p->changes[i].object,
					      .kind = (char *)p->changes[i].kind->name,
					      .key = p->changes[i].key,
					      .old_value = p->changes[i].old_value,
					      .new_value = p->changes[i].new_value};
	*ret = c;
	return 0;
}

/* Record the transaction and its undo log, durably. */
static int record_txn(struct history *h, const struct profile *prof, const struct plan *p, int64_t *ret_id)
{
	_cleanup_free_ struct change_record *c = NULL;
	_cleanup_free_ char *hash = NULL;
	struct json_object *js = NULL;
	int r;

	r = changes_from_plan(p, &c);
	if (r < 0)
		return r;
	(void)profile_hash(prof, &hash);
	(void)profile_to_json(prof, &js);
	struct txn_record t = {
	    .kind = TXN_APPLY,
	    .status = TXN_OPEN,
	    .profile_name = prof->name.value,
	    .profile_hash = hash,
	    .profile_json = js ? (char *)json_object_to_json_string_ext(js, JSON_C_TO_STRING_PLAIN) : NULL,
	};
	r = apply_txn_create(h, &t, c, p->n_changes, ret_id);
	json_object_put(js);
	return r;
}

/* The changes as recorded: what is applied is what the undo log holds.
 * When it cannot be read back, nothing has been changed yet: the
 * transaction ends failed, not open, through a fresh connection if the
 * first one is wedged (SQLite may keep failing on the connection that met
 * the I/O error). Only when even that fails does it stay open (a rollback
 * then restores values that are already there). */
static int changes_load_or_report(struct history **hp, const struct cli *cli, int64_t txn,
				  struct change_record **c, size_t *n)
{
	static const char why[] = "cannot read the undo log back: nothing was changed";
	int r = history_changes_load(*hp, txn, c, n), q;

	if (r >= 0)
		return r;
	log_error_errno(
	    r, "history %s: cannot read the undo log of transaction %" PRId64 ": %m; nothing was changed",
	    cli->db_path, txn);
	q = history_txn_set_status(*hp, txn, TXN_FAILED, why);
	if (q < 0) {
		history_close(TAKE_PTR(*hp));
		q = history_open(cli->db_path, 0, hp);
		if (q >= 0)
			q = history_txn_set_status(*hp, txn, TXN_FAILED, why);
	}
	if (q < 0)
		log_error_errno(q,
				"history %s: transaction %" PRId64 " stays open: %m: run `cx5prof rollback`",
				cli->db_path, txn);
	return r;
}

static void report_left(char **left)
{
	for (char **l = left; l && *l; l++)
		log_error("NOT restored: %s", *l);
}

/* Commit, or hand over to the watchdog. The watchdog is forked: SQLite
 * state must not cross fork(), so *hp is closed first (and NULL after).
 * On failure *why says what could not be done. */
static int finish_apply(struct history **hp, int64_t txn, const struct cli *cli, unsigned confirm, size_t n,
			char *msg, size_t msg_size, char **why)
{
	int64_t deadline;
	int r, pid;

	if (!confirm) {
		r = failpoint("commit", 1) ? -ENOSPC : history_txn_set_status(*hp, txn, TXN_COMMITTED, NULL);
		if (r < 0) {
			*why = strprintf("cannot record transaction %" PRId64 " as committed in %s: %s", txn,
					 history_path(*hp), strerror(-r));
			return r;
		}
		snprintf(msg, msg_size, "applied %zu change%s (transaction %" PRId64 ")", n,
			 n == 1 ? "" : "s", txn);
		return 0;
	}
	deadline = history_now_usec() + (int64_t)confirm * 1000000;
	r = failpoint("confirm-setup", 1) ? -EIO : history_txn_set_pending_confirm(*hp, txn, deadline);
	if (r < 0) {
		*why = strprintf("cannot record transaction %" PRId64 " as pending_confirm in %s: %s", txn,
				 history_path(*hp), strerror(-r));
		return r;
	}
	history_close(TAKE_PTR(*hp));
	pid = failpoint("confirm-setup", 2) ? -EAGAIN : watchdog_spawn(cli->db_path, txn, deadline);
	if (pid < 0) {
		*why = strprintf("cannot start the --confirm watchdog: %s", strerror(-pid));
		return pid;
	}
	snprintf(msg, msg_size,
		 "applied %zu change%s (transaction %" PRId64
		 "): run `cx5prof commit` within %u s to keep them, "
		 "else they are rolled back (watchdog pid %d)",
		 n, n == 1 ? "" : "s", txn, confirm, pid);
	return 0;
}

/* Every change landed but what had to follow failed (finish_apply): no
 * commit, or no watchdog, must not leave the host changed. Undo it all, as
 * a failed step would be undone. */
static int undo_unfinished(struct history **hp, const struct cli *cli, int64_t txn,
			   const struct change_record *c, size_t n, const char *why, struct apply_outcome *o)
{
	int r;

	if (!*hp) {
		r = history_open(cli->db_path, 0, hp);
		if (r < 0) {
			log_error_errno(r, "history %s: %m: %s", cli->db_path, history_remedy(r));
			return r;
		}
	}
	return apply_undo_all(*hp, txn, c, n, why ? why : strerror(ENOMEM), o);
}

/* "apply failed at step 3: ...", "apply failed after its last change:
 * cannot start the --confirm watchdog: ...", or "apply interrupted by
 * SIGINT before step 3" (no step failed). */
static void report_apply_failure(const struct apply_outcome *o, bool after_last)
{
	if (o->failed_seq > 0)
		log_error("apply failed at step %d: %s", o->failed_seq, strna(o->failure));
	else if (after_last)
		log_error("apply failed after its last change: %s", strna(o->failure));
	else
		log_error("apply %s", strna(o->failure));
}

int txn_verb_apply(struct history **hp, const struct cli *cli, const struct profile *prof,
		   const struct plan *p, int64_t *ret_txn, struct change_record **ret_c, size_t *ret_n,
		   struct apply_outcome *o)
{
	struct change_record *c = NULL;
	size_t n = 0;
	int r;

	r = record_txn(*hp, prof, p, ret_txn);
	if (r < 0) {
		log_error_errno(r, "history %s: cannot write the undo log: %m: %s; nothing was changed",
				history_path(*hp), history_remedy(r));
		return -EIO;
	}
	if (changes_load_or_report(hp, cli, *ret_txn, &c, &n) < 0)
		return -EIO;
	apply_signals_install();
	r = apply_changes(*hp, *ret_txn, c, n, o);
	if (ret_c)
		*ret_c = c;
	else
		change_records_free(c, n);
	*ret_n = n;
	return r;
}

/* Roll back the peer's transaction peer_txn; false when that failed (said
 * on stderr). */
static bool rollback_on_peer(const struct profile *p, int64_t peer_txn)
{
	_cleanup_free_ char *err = NULL;

	if (peerssh_rollback(p, peer_txn, &err) >= 0) {
		log_notice("peer %s: rolled back its transaction %" PRId64, p->peer.ssh.value, peer_txn);
		return true;
	}
	log_error("%s: run `cx5prof rollback %" PRId64 "` on the peer", err, peer_txn);
	return false;
}

/* The peer (peer.ssh) gets the same profile once this host's changes are
 * in, under its own --confirm watchdog, committed at once unless this host
 * waits for `commit` too. When the peer fails, this host's transaction is
 * rolled back: both ends stay as they were (the peer's watchdog covers a
 * peer left uncommitted). txn 0: nothing changed here (committed on the
 * peer at once; a failure is EXIT_ERROR). EXIT_OK with *ret_peer_txn (the
 * peer's transaction recorded with txn, 0: none), else the exit code with
 * msg set. */
static int tune_peer(struct history *h, const struct profile *prof, int64_t txn, unsigned confirm,
		     int64_t *ret_peer_txn, char *msg, size_t msg_size)
{
	_cleanup_free_ char *err = NULL;
	struct apply_outcome o = {0};
	int64_t peer_txn = 0;
	const char *why;
	int r;

	r = peerssh_apply_recorded(h, txn, prof, txn ? confirm : 0, apply_interrupted, &peer_txn, &err);
	why = r == -EINTR ? "interrupted" : "the peer failed";
	if (r >= 0 && (!confirm || txn == 0) && peer_txn > 0)
		r = peerssh_commit(prof, &err);
	if (r >= 0) {
		log_info("peer %s: applied (its transaction %" PRId64 ")%s", prof->peer.ssh.value, peer_txn,
			 confirm && txn ? ", waiting for `cx5prof commit` like this host" : "");
		*ret_peer_txn = txn > 0 ? peer_txn : 0;
		return EXIT_OK;
	}
	if (txn == 0) {
		snprintf(msg, msg_size, "%s (nothing was changed on this host)", err);
		log_error("%s", msg);
		return EXIT_ERROR;
	}
	log_error("%s; rolling back this host's transaction %" PRId64 " (the peer's own --confirm watchdog "
		  "undoes what it changed)",
		  err, txn);
	r = rollback_txn(h, txn, "the peer's apply failed or was interrupted: rolled back on this host too",
			 &o);
	if (r < 0) {
		report_left(o.left);
		snprintf(msg, msg_size,
			 "%s and this host is NOT fully restored (transaction %" PRId64 "): fix the "
			 "above, then run `cx5prof rollback %" PRId64 "`",
			 why, txn, txn);
		log_error("%s", msg);
		apply_outcome_done(&o);
		return EXIT_ROLLBACK_FAILED;
	}
	snprintf(msg, msg_size, "%s: every change was undone here (transaction %" PRId64 " rolled back)", why,
		 txn);
	log_error("%s", msg);
	apply_outcome_done(&o);
	return EXIT_ROLLED_BACK;
}

static int run_transaction(struct history **hp, const struct cli *cli, const struct profile *prof,
			   const struct plan *p, unsigned confirm)
{
	struct change_record *c = NULL;
	struct apply_outcome o = {0};
	_cleanup_free_ char *why = NULL;
	bool after_last = false, peer_left = false;
	int64_t txn = 0, peer_txn = 0;
	char msg[512] = "";
	struct history *h = *hp;
	size_t n = 0;
	int r, code;

	r = txn_verb_apply(hp, cli, prof, p, &txn, &c, &n, &o);
	if (r == -EIO) /* nothing applied: reported */
		return EXIT_ERROR;
	h = *hp;
	code = r >= 0 && peerssh_wanted(prof) ? tune_peer(h, prof, txn, confirm, &peer_txn, msg, sizeof(msg))
					      : EXIT_OK;
	if (code == EXIT_OK && r >= 0) {
		r = finish_apply(hp, txn, cli, confirm, n, msg, sizeof(msg), &why);
		if (r < 0) {
			after_last = true;
			r = undo_unfinished(hp, cli, txn, c, n, why, &o);
			/* The peer may be committed already: undone too. */
			peer_left = peer_txn > 0 && !rollback_on_peer(prof, peer_txn);
		}
	}
	change_records_free(c, n);
	if (code != EXIT_OK)
		; /* the peer failed: tune_peer said so and what it undid */
	else if (r >= 0)
		code = EXIT_OK;
	else if (r == -ECANCELED) {
		report_apply_failure(&o, after_last);
		if (o.unrecorded < 0)
			snprintf(msg, sizeof(msg),
				 "every change was undone: the host is back as it was, but the history "
				 "could not record it (%s): transaction %" PRId64
				 " stays open there until `cx5prof rollback` closes it",
				 strerror(-o.unrecorded), txn);
		else
			snprintf(msg, sizeof(msg),
				 "every change was undone: the host is back as it was (transaction %" PRId64
				 " rolled back)%s",
				 txn, peer_left ? ", but NOT the peer's (see above)" : "");
		log_error("%s", msg);
		code = peer_left ? EXIT_ROLLBACK_FAILED : EXIT_ROLLED_BACK;
	} else if (!after_last || *hp) {
		report_apply_failure(&o, after_last);
		report_left(o.left);
		snprintf(msg, sizeof(msg),
			 "the host is NOT fully restored (transaction %" PRId64 "): fix the above, "
			 "then run `cx5prof rollback %" PRId64 "`",
			 txn, txn);
		log_error("%s", msg);
		code = EXIT_ROLLBACK_FAILED;
	} else {
		/* The history could not be reopened to undo: nothing was undone. */
		snprintf(msg, sizeof(msg),
			 "transaction %" PRId64 " applied %zu change%s but %s; run `cx5prof rollback` to "
			 "undo it",
			 txn, n, n == 1 ? "" : "s", strna(why));
		log_error("%s", msg);
		code = EXIT_ERROR;
	}
	plan_render(p, msg);
	/* plan_render says changed when the plan had changes; after the
	 * transaction, changed means the host is not as it was. */
	out_bool(OUT_JSON, "changed", NULL,
		 (code == EXIT_OK && n > 0) || code == EXIT_ERROR ||
		     (code == EXIT_ROLLBACK_FAILED && strv_length(o.left) > 0));
	out_uint(OUT_JSON, "txn", NULL, (uint64_t)txn);
	out_bool(OUT_JSON, "failed", NULL, code != EXIT_OK);
	apply_outcome_done(&o);
	return code;
}

/* Transactions left unfinished in an earlier boot, closed before this
 * apply (at most this many: each pass closes one). */
#define EARLIER_BOOT_MAX 8

struct earlier_boot {
	int64_t closed[EARLIER_BOOT_MAX];
	size_t n;
	bool pending; /* --check: one is left for the apply to close */
};

/* A transaction left unfinished in an earlier boot (a crash or power loss
 * mid-apply, a --confirm whose watchdog died with the reboot) no longer
 * describes the host: the reboot reset its runtime changes. Roll back what
 * survives a reboot (irqbalance, the boot-time unit) and close it, so the
 * boot-time unit applies instead of stopping at exit 9. With --check, only
 * say so. EXIT_OK when none is left (or, --check, when it is noted). */
static int close_earlier_boot(struct history *h, bool check, struct earlier_boot *eb)
{
	while (eb->n < EARLIER_BOOT_MAX) {
		_cleanup_(txn_record_done) struct txn_record t = {0};
		struct apply_outcome o = {0};
		int64_t target;
		int r = h ? history_txn_find_unfinished(h, &t) : 0;

		if (r < 0) {
			log_error_errno(r, "history %s: %m: %s", history_path(h), history_remedy(r));
			return EXIT_ERROR;
		}
		if (r == 0 || !txn_from_earlier_boot(&t))
			return EXIT_OK;
		target = t.kind == TXN_ROLLBACK ? t.rolls_back_txn : t.id;
		if (check) {
			log_warn("transaction %" PRId64
				 " was left %s in an earlier boot: apply closes it first "
				 "(the reboot reset its runtime changes)",
				 t.id, txn_status_to_string(t.status));
			eb->pending = true;
			return EXIT_OK;
		}
		apply_signals_install();
		r = rollback_txn(h, target, "left unfinished in an earlier boot: closed by the next apply",
				 &o);
		if (r < 0 && r != -ENOTRECOVERABLE) {
			log_error_errno(r, "history %s: cannot record the rollback: %m: %s", history_path(h),
					history_remedy(r));
			apply_outcome_done(&o);
			return EXIT_ERROR;
		}
		if (r < 0) {
			report_left(o.left);
			log_error("transaction %" PRId64
				  " was left %s in an earlier boot and cannot be closed: "
				  "fix the above, then run `cx5prof rollback %" PRId64 "`",
				  t.id, txn_status_to_string(t.status), target);
			apply_outcome_done(&o);
			return EXIT_ROLLBACK_FAILED;
		}
		log_warn("transaction %" PRId64 " was left %s in an earlier boot: closed it (rollback "
			 "transaction %" PRId64 ": %zu restored, %zu reset by the reboot)",
			 t.id, txn_status_to_string(t.status), o.rollback_txn, o.done, o.reset_by_reboot);
		eb->closed[eb->n++] = target;
		apply_outcome_done(&o);
	}
	return EXIT_OK;
}

int verb_apply(struct cli *cli, int argc, char **argv)
{
	_cleanup_strv_free_ char **args = NULL;
	_cleanup_profile_ struct profile *prof = NULL;
	_cleanup_plan_ struct plan *p = NULL;
	_cleanup_history_ struct history *h = NULL;
	struct earlier_boot eb = {0};
	struct txn_args a = {0};
	int lock_fd = -1, r;

	r = cli_parse(cli, cli_verb("apply"), argc, argv, handle_option, &a, &args);
	if (r != 0)
		return r < 0 ? EXIT_OK : r;
	if (strv_length(args) != 1) {
		log_error("apply: expected one PROFILE");
		return EXIT_USAGE;
	}
	/* The lock before the history: two applies on a database that does
	 * not exist yet must not both create it (the loser says "locked").
	 * A --db that is not a regular file, or without its directory, is
	 * reported by opening the history, with nothing created. */
	if (!a.check && history_path_check(cli->db_path) >= 0 && mkdir_parent(cli->db_path) >= 0)
		r = txn_verb_lock(cli, 0, &lock_fd);
	if (r == EXIT_OK)
		r = txn_verb_open_history(cli, a.check ? HISTORY_READ_ONLY : 0, &h);
	if (r == EXIT_OK)
		r = close_earlier_boot(h, a.check, &eb);
	if (r == EXIT_OK && !eb.pending)
		r = txn_verb_refuse_unfinished(h);
	if (r == EXIT_OK)
		r = txn_verb_plan(args[0], a.runtime_only, &prof, &p);
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
	} else if (p->n_changes == 0) {
		char msg[512] = "nothing to change";
		/* --check changes nothing anywhere: the peer is not contacted. */
		int64_t none;
		r = peerssh_wanted(prof) && !a.check
			? tune_peer(h, prof, 0, a.confirm, &none, msg, sizeof(msg))
			: EXIT_OK;
		plan_render(p, msg);
	} else if (a.check) {
		plan_render(p, "changes pending (--check: nothing was changed)");
		r = EXIT_CHANGES;
	} else
		r = run_transaction(&h, cli, prof, p, a.confirm);
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

/* id 0: the newest apply (or the target of an unfinished rollback). */
static int pick_target(struct history *h, int64_t id, struct txn_record *ret)
{
	int r;

	if (id > 0) {
		r = history_txn_get(h, id, ret);
		if (r == -ENOENT) {
			log_error("rollback: no transaction %" PRId64 " in %s", id, history_path(h));
			return EXIT_NOT_FOUND;
		}
	} else {
		/* An unfinished rollback is finished first: roll back its target
		 * again, not the newest apply (which may be an unrelated one). */
		r = history_txn_find_unfinished(h, ret);
		if (r > 0 && ret->kind == TXN_ROLLBACK) {
			id = ret->rolls_back_txn;
			txn_record_done(ret);
			r = history_txn_get(h, id, ret);
		} else {
			if (r > 0)
				txn_record_done(ret);
			r = r < 0 ? r : history_txn_find_last_apply(h, ret);
			if (r == 0)
				return -1; /* nothing to roll back */
		}
	}
	if (r < 0) {
		log_error_errno(r, "history %s: %m: %s", history_path(h), history_remedy(r));
		return EXIT_ERROR;
	}
	return EXIT_OK;
}

/* An interrupted or failed rollback is finished by rolling back its target
 * again (a success supersedes it: history_rollback_finish). */
static int resolve_rollback_target(struct history *h, struct txn_record *t)
{
	int64_t target = t->rolls_back_txn;

	if (t->kind != TXN_ROLLBACK)
		return EXIT_OK;
	if (t->status != TXN_OPEN && t->status != TXN_ROLLBACK_FAILED) {
		log_error("rollback: transaction %" PRId64
			  " is itself a rollback: roll back an apply transaction",
			  t->id);
		return EXIT_ERROR;
	}
	txn_record_done(t);
	return history_txn_get(h, target, t) < 0 ? EXIT_ERROR : EXIT_OK;
}

static int check_rollback_allowed(struct history *h, const struct txn_record *t, bool force)
{
	int64_t later = 0;
	int r;

	if (t->status == TXN_ROLLED_BACK || t->status == TXN_FAILED) {
		log_info("transaction %" PRId64 " is already %s: nothing to roll back", t->id,
			 txn_status_to_string(t->status));
		return -1;
	}
	r = history_txn_find_later_overlap(h, t->id, &later);
	if (r < 0) {
		log_error_errno(r, "history %s: %m", history_path(h));
		return EXIT_ERROR;
	}
	if (r > 0 && !force) {
		log_error("rollback: transaction %" PRId64
			  " changed the same settings later: roll it back first, "
			  "or use --force to restore transaction %" PRId64 "'s old values anyway",
			  later, t->id);
		return EXIT_ERROR;
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
		report_left(o->left);
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

/* The profile a transaction applied, when it names a peer to tune (its
 * effective profile is in the history); NULL otherwise. */
static struct profile *peer_profile(const struct txn_record *t)
{
	struct profile *p = NULL;

	if (!t->profile_json ||
	    profile_load_string(t->profile_json, strlen(t->profile_json), "history", &p, NULL) < 0)
		return NULL;
	if (peerssh_wanted(p))
		return p;
	profile_free(p);
	return NULL;
}

/* Rollback and commit of a transaction that tuned a peer do the same
 * there, to the peer's transaction recorded with it (none when the peer
 * had nothing to change). EXIT_OK, or code when the peer failed (said on
 * stderr). */
static int follow_on_peer(const struct txn_record *t, bool commit, int code)
{
	_cleanup_profile_ struct profile *p = t->peer_txn > 0 ? peer_profile(t) : NULL;
	_cleanup_free_ char *err = NULL;

	if (t->peer_txn <= 0)
		return EXIT_OK;
	if (!p) {
		if (commit)
			log_error("transaction %" PRId64 " tuned a peer (its transaction %" PRId64
				  "), but the stored profile does not say how to reach it: run `cx5prof "
				  "commit` on the peer",
				  t->id, t->peer_txn);
		else
			log_error("transaction %" PRId64 " tuned a peer (its transaction %" PRId64
				  "), but the stored profile does not say how to reach it: run `cx5prof "
				  "rollback %" PRId64 "` on the peer",
				  t->id, t->peer_txn, t->peer_txn);
		return code;
	}
	if (!commit)
		return rollback_on_peer(p, t->peer_txn) ? EXIT_OK : code;
	if (peerssh_commit(p, &err) >= 0) {
		log_notice("peer %s: committed its transaction %" PRId64, p->peer.ssh.value, t->peer_txn);
		return EXIT_OK;
	}
	log_error("%s: the peer's --confirm watchdog rolls it back; apply again to tune both ends", err);
	return code;
}

/* An open transaction resolved here was left by a cx5prof that died: a
 * campaign it was a round of is recorded as interrupted. */
static void mark_dead_campaigns(struct history *h, const struct txn_record *t)
{
	int r = campaigns_interrupt_stale(h, t->started_usec);

	if (r < 0)
		log_warn("history %s: cannot mark the campaign of transaction %" PRId64 " interrupted: %s",
			 history_path(h), t->id, strerror(-r));
	else if (r > 0)
		log_info("campaign of transaction %" PRId64 " recorded as interrupted", t->id);
}

static int rollback_locked(struct history *h, int64_t id, bool force)
{
	_cleanup_(txn_record_done) struct txn_record t = {0};
	struct apply_outcome o = {0};
	int r;

	r = pick_target(h, id, &t);
	if (r == EXIT_OK)
		r = resolve_rollback_target(h, &t);
	if (r == EXIT_OK)
		r = check_rollback_allowed(h, &t, force);
	if (r < 0) {
		out_bool(OUT_JSON, "changed", NULL, false);
		out_string(OUT_ANY, "msg", "%s\n", "nothing to roll back");
		return EXIT_OK;
	}
	if (r != EXIT_OK)
		return r;
	apply_signals_install();
	r = rollback_txn(h, t.id, "rolled back by `cx5prof rollback`", &o);
	if (r < 0 && r != -ENOTRECOVERABLE) {
		log_error_errno(r, "history %s: cannot record the rollback: %m: %s", history_path(h),
				history_remedy(r));
		apply_outcome_done(&o);
		return EXIT_ERROR;
	}
	r = report_rollback(h, &t, r, &o);
	apply_outcome_done(&o);
	if (r == EXIT_OK && t.status == TXN_OPEN)
		mark_dead_campaigns(h, &t);
	if (r == EXIT_OK)
		r = follow_on_peer(&t, false, EXIT_ROLLBACK_FAILED);
	return r;
}

/* `rollback --abandon TXN --reason TEXT`: the way out of a transaction
 * that can never be restored (an IRQ gone with a driver reload, a file
 * removed): after reading what is left, the operator gives it up. Nothing
 * is written to the host; the history records who, why, and what stays. */
static int abandon_locked(struct history *h, int64_t target, const char *reason)
{
	_cleanup_(txn_record_done) struct txn_record t = {0};
	struct change_record *c = NULL;
	int64_t id = 0;
	size_t n = 0;
	char msg[320];
	int r;

	r = pick_target(h, target, &t);
	if (r == EXIT_OK)
		r = resolve_rollback_target(h, &t);
	if (r != EXIT_OK)
		return r;
	if (t.status != TXN_OPEN && t.status != TXN_PENDING_CONFIRM && t.status != TXN_ROLLBACK_FAILED) {
		log_error("rollback --abandon: transaction %" PRId64
			  " is %s, not unfinished: there is nothing to abandon",
			  t.id, txn_status_to_string(t.status));
		return EXIT_ERROR;
	}
	r = abandon_txn(h, t.id, reason, &id);
	if (r < 0) {
		log_error_errno(r, "history %s: cannot record the abandon: %m: %s", history_path(h),
				history_remedy(r));
		return EXIT_ERROR;
	}
	out_uint(OUT_JSON, "txn", NULL, (uint64_t)t.id);
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
		 t.id, id, n, n == 1 ? " is" : "s are", n == 1 ? "it is" : "they are");
	out_string(OUT_ANY, "msg", "%s\n", msg);
	return EXIT_OK;
}

int verb_rollback(struct cli *cli, int argc, char **argv)
{
	_cleanup_strv_free_ char **args = NULL;
	_cleanup_history_ struct history *h = NULL;
	struct txn_args a = {0};
	int64_t id;
	int lock_fd = -1, r;

	r = cli_parse(cli, cli_verb("rollback"), argc, argv, handle_option, &a, &args);
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
	r = parse_target(args, &id);
	if (r == EXIT_OK)
		r = txn_verb_open_history(cli, HISTORY_EXISTING, &h);
	if (r == EXIT_OK)
		r = txn_verb_lock(cli, 0, &lock_fd);
	if (r != EXIT_OK)
		return r;
	out_open_object(NULL);
	r = a.abandon ? abandon_locked(h, id, a.reason) : rollback_locked(h, id, a.force);
	out_close_object();
	if (r == EXIT_OK || r == EXIT_ROLLBACK_FAILED) /* else: main's error document */
		(void)out_finish();
	lock_release(lock_fd);
	mirror_opportunistic(h, NULL);
	return r;
}

/* ---- commit ---- */

/* No pending transaction: say whether the watchdog was faster. */
static int commit_nothing_pending(struct history *h)
{
	_cleanup_(txn_record_done) struct txn_record t = {0};
	int r = history_txn_find_last(h, TXN_APPLY, &t);

	if (r > 0 && t.status == TXN_ROLLED_BACK && t.confirm_deadline_usec) {
		log_error("transaction %" PRId64
			  " was not confirmed in time and has been rolled back: apply it again",
			  t.id);
		return EXIT_ERROR;
	}
	out_bool(OUT_JSON, "changed", NULL, false);
	out_string(OUT_ANY, "msg", "%s\n", "nothing to commit");
	return EXIT_OK;
}

static int commit_locked(struct history *h)
{
	_cleanup_(txn_record_done) struct txn_record t = {0};
	int r = history_txn_find_unfinished(h, &t);

	if (r < 0) {
		log_error_errno(r, "history %s: %m: %s", history_path(h), history_remedy(r));
		return EXIT_ERROR;
	}
	if (r == 0)
		return commit_nothing_pending(h);
	/* Only a --confirm apply waits for commit; anything else unfinished
	 * (interrupted, or not fully undone) needs a rollback, never a commit. */
	if (t.status != TXN_PENDING_CONFIRM)
		return txn_verb_refuse_unfinished(h);
	if (history_now_usec() > t.confirm_deadline_usec) {
		log_error("transaction %" PRId64
			  ": the confirm deadline has passed, it is not kept: the watchdog "
			  "rolls it back (if the watchdog was stopped, run `cx5prof rollback`)",
			  t.id);
		return EXIT_ERROR;
	}
	r = history_txn_set_status(h, t.id, TXN_COMMITTED, NULL);
	if (r < 0) {
		log_error_errno(r, "history %s: %m: %s", history_path(h), history_remedy(r));
		return EXIT_ERROR;
	}
	out_uint(OUT_JSON, "txn", NULL, (uint64_t)t.id);
	out_bool(OUT_JSON, "changed", NULL, true);
	out_text("committed transaction %" PRId64 "\n", t.id);
	out_string(OUT_JSON, "msg", NULL, "committed");
	return follow_on_peer(&t, true, EXIT_ERROR);
}

int verb_commit(struct cli *cli, int argc, char **argv)
{
	_cleanup_strv_free_ char **args = NULL;
	_cleanup_history_ struct history *h = NULL;
	int lock_fd = -1, r;

	r = cli_parse(cli, cli_verb("commit"), argc, argv, NULL, NULL, &args);
	if (r != 0)
		return r < 0 ? EXIT_OK : r;
	if (args[0]) {
		log_error("commit: takes no arguments");
		return EXIT_USAGE;
	}
	r = txn_verb_open_history(cli, HISTORY_EXISTING, &h);
	if (r == EXIT_OK)
		r = txn_verb_lock(cli, COMMIT_LOCK_WAIT_MS, &lock_fd);
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
