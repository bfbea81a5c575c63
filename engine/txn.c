/* txn.c: one transaction from start to end, on this host and its peer
 * (see txn.h).
 *
 * Owns: recording the plan as a transaction, applying it, tuning the peer
 * after it, committing (or handing over to the --confirm watchdog, or
 * leaving it open for a campaign round), and undoing both ends when any of
 * that fails; a signal caught while the peer applies, held until its
 * answer is recorded (or the hold ends: the peer's state is then unknown,
 * its rollback pending); the undo of a transaction, peer first, with the
 * peer's pending rollback recorded when it cannot be done, and an unknown
 * peer transaction resolved by asking the peer. Must never: change the
 * host before the undo log is on disk, or forget a peer transaction that
 * is still applied. */
#define _GNU_SOURCE
#include "txn.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdarg.h>

#include "peer/peerssh.h"
#include "plan.h"
#include "profile.h"

static void say(void (*fn)(enum log_level, const char *), enum log_level level, const char *fmt, ...)
    _printf_(3, 4);

static void say(void (*fn)(enum log_level, const char *), enum log_level level, const char *fmt, ...)
{
	_cleanup_free_ char *text = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	if (!text)
		return;
	if (fn)
		fn(level, text);
	else
		log_debug("%s", text);
}

void txn_outcome_done(struct txn_outcome *o)
{
	free(o->peer_error);
	free(o->why);
	apply_outcome_done(&o->apply);
	*o = (struct txn_outcome){0};
}

void txn_undo_outcome_done(struct txn_undo_outcome *o)
{
	free(o->peer_error);
	apply_outcome_done(&o->apply);
	*o = (struct txn_undo_outcome){0};
}

struct profile *txn_peer_profile(const struct txn_record *t)
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

/* ---- record ---- */

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

/* The transaction and its undo log, durably. */
static int record(struct history *h, const struct txn_request *q, int64_t *ret_id)
{
	_cleanup_free_ struct change_record *c = NULL;
	_cleanup_free_ char *hash = NULL;
	struct json_object *js = NULL;
	int r;

	r = changes_from_plan(q->plan, &c);
	if (r < 0)
		return r;
	(void)profile_hash(q->profile, &hash);
	(void)profile_to_json(q->profile, &js);
	struct txn_record t = {
	    .kind = TXN_APPLY,
	    .status = TXN_OPEN,
	    .profile_name = q->profile->name.value,
	    .profile_hash = hash,
	    .profile_json = js ? (char *)json_object_to_json_string_ext(js, JSON_C_TO_STRING_PLAIN) : NULL,
	    .origin = (char *)q->origin,
	};
	r = apply_txn_create(h, &t, c, q->plan->n_changes, ret_id);
	json_object_put(js);
	return r;
}

/* The changes as recorded: what is applied is what the undo log holds.
 * When it cannot be read back, nothing has been changed yet: the
 * transaction ends failed, not open, through a fresh connection if the
 * first one is wedged (SQLite may keep failing on the connection that met
 * the I/O error). Only when even that fails does it stay open (a rollback
 * then restores values that are already there). */
static int load_recorded(struct history **hp, const struct txn_request *q, int64_t txn,
			 struct change_record **c, size_t *n)
{
	static const char why[] = "cannot read the undo log back: nothing was changed";
	int r = history_changes_load(*hp, txn, c, n), k;

	if (r >= 0)
		return r;
	say(q->say, LOG_ERR,
	    "history %s: cannot read the undo log of transaction %" PRId64 ": %s; nothing was changed",
	    q->db_path, txn, strerror(-r));
	k = history_txn_set_status(*hp, txn, TXN_FAILED, why);
	if (k < 0) {
		history_close(TAKE_PTR(*hp));
		k = history_open(q->db_path, 0, hp);
		if (k >= 0)
			k = history_txn_set_status(*hp, txn, TXN_FAILED, why);
	}
	if (k < 0)
		say(q->say, LOG_ERR,
		    "history %s: transaction %" PRId64 " stays open: %s: run `cx5prof rollback`", q->db_path,
		    txn, strerror(-k));
	return r;
}

/* ---- the peer ---- */

/* A caught signal, but only one caught after the wait began: the undo
 * that follows an interruption must not be cut short by that same one. */
static unsigned signals_before;

static int new_signal(void)
{
	return apply_signals_caught() > signals_before ? apply_interrupted() : 0;
}

/* How long a signal caught while the peer applies is held: the peer's
 * answer, and the transaction it names, is waited for this long before
 * ssh is ended (a second signal ends it at once). */
#define PEER_APPLY_HOLD_USEC (10 * 1000000ull)

static struct {
	unsigned before; /* signals caught when the peer's apply began */
	unsigned first;	 /* the count at the first one caught since, 0 none */
	uint64_t until;	 /* held until then */
	const struct txn_request *q;
} held;

/* stop() of the peer's apply: a signal is held (PEER_APPLY_HOLD_USEC),
 * said once; then, or at a second one, the signal that ends ssh. */
static int peer_apply_stop(void)
{
	unsigned n = apply_signals_caught();
	int sig = apply_interrupted();

	if (n <= held.before)
		return 0;
	if (!held.first) {
		held.first = n;
		held.until = now_usec() + PEER_APPLY_HOLD_USEC;
		say(held.q->say, LOG_WARN,
		    "SIG%s while the peer %s applies: waiting up to %llu s for its answer, to record its "
		    "transaction here before undoing both ends (a second signal stops now)",
		    sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", held.q->profile->peer.ssh.value,
		    PEER_APPLY_HOLD_USEC / 1000000);
		return 0;
	}
	return n > held.first || now_usec() >= held.until ? sig : 0;
}

/* The origin token recorded with txn for its peer's apply, or NULL
 * (recorded before tokens, or none). */
static char *txn_peer_origin(struct history *h, int64_t txn)
{
	_cleanup_(txn_record_done) struct txn_record t = {0};

	if (txn <= 0 || history_txn_get(h, txn, &t) < 0)
		return NULL;
	return TAKE_PTR(t.peer_origin);
}

/* Roll back the peer's transaction peer_txn (recorded with txn, 0: none
 * here). When it cannot be, that is recorded with txn as pending, and
 * o->peer_left says so; done, a pending one is cleared. */
static void peer_rollback(struct history *h, int64_t txn, const struct profile *peer, int64_t peer_txn,
			  void (*fn)(enum log_level, const char *), struct txn_undo_outcome *o)
{
	_cleanup_free_ char *err = NULL, *origin = NULL;
	bool changed = true, done = false;
	int64_t found = 0;
	int r = -ENOENT;

	if (!peer) {
		err = peer_txn > 0
			  ? strprintf("transaction %" PRId64 " tuned a peer (its transaction %" PRId64
				      "), but the stored profile does not say how to reach it",
				      txn, peer_txn)
			  : strprintf("transaction %" PRId64 " tuned a peer, but the stored profile "
				      "does not say how to reach it",
				      txn);
		r = -ENOENT;
	} else if (peer_txn == HISTORY_PEER_TXN_UNKNOWN) {
		/* An apply cut short with no answer: the peer rolls back the
		 * apply that carried its origin token, or fences the token so
		 * that the apply, if it is still on its way, is refused. A
		 * record from before tokens: the peer's unfinished apply of
		 * this profile, if any, is that apply. */
		origin = txn_peer_origin(h, txn);
		if (origin) {
			signals_before = apply_signals_caught();
			r = peerssh_rollback_origin(peer, origin, new_signal, &found, &changed, &err);
			done = true;
		} else
			r = peerssh_find_unfinished(peer, &found, &err);
		if (r >= 0 && found == 0) {
			if (origin)
				say(fn, LOG_WARN,
				    "peer %s: the apply that was cut short left no transaction there (and is "
				    "refused there from now on, should it still be on its way)",
				    peer->peer.ssh.value);
			else
				say(fn, LOG_WARN,
				    "peer %s: no unfinished transaction of profile %s there: the apply that "
				    "was "
				    "cut short changed nothing there, or was rolled back already",
				    peer->peer.ssh.value, strna(peer->name.value));
			o->peer_done = o->peer_was_undone = true;
			o->peer_txn = 0;
			if (txn > 0 && history_txn_set_peer_txn(h, txn, 0) >= 0)
				(void)history_txn_set_peer_undo(h, txn, NULL);
			return;
		}
		if (r >= 0) {
			say(fn, LOG_NOTICE,
			    "peer %s: the apply that was cut short is its transaction %" PRId64,
			    peer->peer.ssh.value, found);
			if (txn > 0)
				(void)history_txn_set_peer_txn(h, txn, found);
			peer_txn = found;
		}
	}
	o->peer_txn = peer_txn;
	if (peer && peer_txn > 0 && !done) {
		signals_before = apply_signals_caught();
		r = peerssh_rollback(peer, peer_txn, new_signal, &changed, &err);
	}
	if (r >= 0) {
		o->peer_done = true;
		o->peer_was_undone = !changed;
		if (changed)
			say(fn, LOG_NOTICE, "peer %s: rolled back its transaction %" PRId64,
			    peer->peer.ssh.value, peer_txn);
		else
			say(fn, LOG_WARN, "peer %s: its transaction %" PRId64 " was rolled back already",
			    peer->peer.ssh.value, peer_txn);
		if (txn > 0)
			(void)history_txn_set_peer_undo(h, txn, NULL);
		return;
	}
	o->peer_left = peer_txn;
	o->peer_error = TAKE_PTR(err);
	r = txn > 0 ? history_txn_set_peer_undo(h, txn, strna(o->peer_error)) : -ENOENT;
	if (peer_txn == HISTORY_PEER_TXN_UNKNOWN)
		say(fn, LOG_ERR, "%s: the peer's state is unknown (an apply there was cut short)%s",
		    strna(o->peer_error),
		    r >= 0 ? " (recorded: the next `cx5prof rollback` here tries again)" : "");
	else if (r >= 0)
		say(fn, LOG_ERR,
		    "%s: run `cx5prof rollback %" PRId64 "` on the peer (recorded: the next `cx5prof "
		    "rollback` here tries again)",
		    strna(o->peer_error), peer_txn);
	else
		say(fn, LOG_ERR, "%s: run `cx5prof rollback %" PRId64 "` on the peer", strna(o->peer_error),
		    peer_txn);
}

int txn_undo(struct history *h, int64_t txn, const struct profile *peer, int64_t peer_txn, const char *reason,
	     void (*fn)(enum log_level, const char *), struct txn_undo_outcome *o)
{
	if (peer_txn != 0)
		peer_rollback(h, txn, peer, peer_txn, fn, o);
	if (txn > 0 && reason)
		o->here = rollback_txn(h, txn, reason, &o->apply);
	if (o->here < 0 && o->here != -ENOTRECOVERABLE)
		return o->here;
	return o->here < 0 || o->peer_left ? -ENOTRECOVERABLE : 0;
}

/* This host's changes are in: the peer gets the same profile, under its
 * own --confirm watchdog (this host's --confirm, so that one `commit`
 * keeps both), committed at once when this host commits at once. When it
 * fails or a signal ends it, both ends are undone: the peer's transaction
 * when it is known (also from an unreadable answer), else by the peer's
 * watchdog. 0, or -1 with o->end set. */
static int peer_step(struct history *h, const struct txn_request *q, const struct change_record *c, size_t n,
		     struct txn_outcome *o)
{
	static const char reason[] =
	    "the peer's apply failed or was interrupted: rolled back on this host too";
	_cleanup_free_ char *err = NULL;
	struct txn_undo_outcome u = {0};
	unsigned confirm = q->commit == TXN_COMMIT_CONFIRM ? q->confirm : q->peer_confirm;
	bool later;
	int r;

	if (apply_interrupted()) {
		r = -EINTR;
		err = strprintf("interrupted by SIG%s before the peer %s was tuned",
				sigabbrev_np(apply_interrupted()) ? sigabbrev_np(apply_interrupted()) : "?",
				q->profile->peer.ssh.value);
	} else {
		held.before = apply_signals_caught();
		held.first = 0;
		held.q = q;
		r = peerssh_apply_recorded(h, o->txn, q->profile, confirm, apply_interrupted, peer_apply_stop,
					   &o->peer_txn, &err);
		if (r >= 0 && apply_interrupted()) {
			/* The signal was held until the peer's answer was
			 * recorded: now both ends are undone. */
			const char *sn = sigabbrev_np(apply_interrupted());

			r = -EINTR;
			free(err);
			err = o->peer_txn > 0
				  ? strprintf("interrupted by SIG%s while the peer %s applied (its "
					      "transaction %" PRId64 ", recorded here)",
					      sn ? sn : "?", q->profile->peer.ssh.value, o->peer_txn)
				  : strprintf("interrupted by SIG%s while the peer %s applied (it had "
					      "nothing to change)",
					      sn ? sn : "?", q->profile->peer.ssh.value);
		}
	}
	if (r >= 0 && q->commit == TXN_COMMIT_NOW && o->peer_txn > 0)
		r = peerssh_commit(q->profile, &err);
	if (r >= 0) {
		say(q->say, LOG_INFO, "peer %s: applied (its transaction %" PRId64 ")%s",
		    q->profile->peer.ssh.value, o->peer_txn,
		    q->commit == TXN_COMMIT_CONFIRM ? ", waiting for `cx5prof commit` like this host" : "");
		return 0;
	}
	o->interrupted = r == -EINTR ? apply_interrupted() : 0;
	o->peer_failure = r;
	if (o->peer_txn > 0)
		say(q->say, LOG_ERR,
		    "%s; rolling back the peer's transaction %" PRId64
		    " and this host's transaction %" PRId64,
		    strna(err), o->peer_txn, o->txn);
	else if (o->peer_txn == HISTORY_PEER_TXN_UNKNOWN)
		say(q->say, LOG_ERR,
		    "%s%s; rolling back this host's transaction %" PRId64
		    "; whether the peer applied is unknown: %s",
		    strna(err), r == -EINTR ? " before its answer" : "", o->txn,
		    o->interrupted ? "`cx5prof rollback` here finds out and undoes it (else the peer's own "
				     "--confirm watchdog does)"
				   : "asking the peer for the apply that carried this host's origin token");
	else
		say(q->say, LOG_ERR,
		    "%s; rolling back this host's transaction %" PRId64 " (the peer's own --confirm watchdog "
		    "undoes what it changed)",
		    strna(err), o->txn);
	o->peer_error = TAKE_PTR(err);
	if (o->n == 0 && o->peer_txn == 0 && history_txn_discard(h, o->txn) >= 0) {
		/* Nothing here, nothing known there: no record to keep. */
		o->txn = 0;
		o->end = TXN_END_PEER_FAILED;
		return -1;
	}
	/* The peer's apply ended with no answer: the peer is asked at once
	 * (`rollback --origin`: it rolls that apply back, or refuses it from
	 * then on). Not after a signal, which asks to stop now: its rollback
	 * is recorded as pending (the next `cx5prof rollback` resolves it). */
	later = o->peer_txn == HISTORY_PEER_TXN_UNKNOWN && o->interrupted;
	r = txn_undo(h, o->txn, q->profile, later ? 0 : o->peer_txn, reason, q->say, &u);
	if (o->peer_txn == HISTORY_PEER_TXN_UNKNOWN && !later && u.peer_done)
		o->peer_txn = u.peer_txn;
	if (later) {
		u.peer_left = HISTORY_PEER_TXN_UNKNOWN;
		(void)history_txn_set_peer_undo(h, o->txn, strna(o->peer_error));
		if (r == 0)
			r = -ENOTRECOVERABLE;
	}
	o->peer_left = u.peer_left;
	o->apply.rollback_txn = u.apply.rollback_txn;
	o->apply.done = u.apply.done;
	o->apply.left = TAKE_PTR(u.apply.left);
	if (u.here < 0 && u.here != -ENOTRECOVERABLE) {
		say(q->say, LOG_ERR, "history %s: cannot record the rollback of transaction %" PRId64 ": %s",
		    q->db_path, o->txn, strerror(-u.here));
		if (u.apply.rollback_txn == 0) {
			/* The rollback never started (its record could not be
			 * read or written): undo from the undo log read before
			 * the first change, as after a failed commit. */
			say(q->say, LOG_ERR,
			    "undoing transaction %" PRId64 " from the undo log read before it began", o->txn);
			r = apply_undo_all(h, o->txn, c, n, reason, &o->apply) == -ECANCELED
				? 0
				: -ENOTRECOVERABLE;
		} else
			/* Every change was undone; only its record failed. */
			r = strv_length(o->apply.left) > 0 ? -ENOTRECOVERABLE : 0;
		if (r == 0 && o->peer_left)
			r = -ENOTRECOVERABLE;
	}
	o->end = o->n == 0 && r == 0 && !o->peer_left ? TXN_END_PEER_FAILED
		 : r == 0			      ? TXN_END_UNDONE
						      : TXN_END_NOT_RESTORED;
	txn_undo_outcome_done(&u);
	return -1;
}

/* ---- commit ---- */

/* Commit, or hand over to the watchdog (forked: SQLite state must not
 * cross fork(), so *hp is closed first and NULL after), or leave open.
 * On failure o->why says what could not be done. */
static int finish(struct history **hp, const struct txn_request *q, struct txn_outcome *o)
{
	int64_t deadline;
	int r, pid;

	if (q->commit == TXN_COMMIT_NEVER)
		return 0;
	if (q->commit == TXN_COMMIT_NOW) {
		r = failpoint("commit", 1) ? -ENOSPC
					   : history_txn_set_status(*hp, o->txn, TXN_COMMITTED, NULL);
		if (r < 0)
			o->why = strprintf("cannot record transaction %" PRId64 " as committed in %s: %s",
					   o->txn, history_path(*hp), strerror(-r));
		return r;
	}
	deadline = history_now_usec() + (int64_t)q->confirm * 1000000;
	r = failpoint("confirm-setup", 1) ? -EIO : history_txn_set_pending_confirm(*hp, o->txn, deadline);
	if (r < 0) {
		o->why = strprintf("cannot record transaction %" PRId64 " as pending_confirm in %s: %s",
				   o->txn, history_path(*hp), strerror(-r));
		return r;
	}
	history_close(TAKE_PTR(*hp));
	pid = failpoint("confirm-setup", 2) ? -EAGAIN : watchdog_spawn(q->db_path, o->txn, deadline);
	if (pid < 0) {
		o->why = strprintf("cannot start the --confirm watchdog: %s", strerror(-pid));
		return pid;
	}
	o->watchdog_pid = pid;
	o->deadline_us = deadline;
	return 0;
}

/* Every change landed (and the peer's) but what had to follow failed:
 * no commit, or no watchdog, must not leave either end changed. */
static void undo_unfinished(struct history **hp, const struct txn_request *q, const struct change_record *c,
			    size_t n, struct txn_outcome *o)
{
	struct txn_undo_outcome u = {0};
	int r;

	o->after_last = true;
	if (!*hp) {
		r = history_open(q->db_path, 0, hp);
		if (r < 0) {
			say(q->say, LOG_ERR, "history %s: %s: %s", q->db_path, strerror(-r),
			    history_remedy(r));
			o->end = TXN_END_UNFINISHED;
			return;
		}
	}
	r = apply_undo_all(*hp, o->txn, c, n, o->why ? o->why : strerror(ENOMEM), &o->apply);
	if (o->peer_txn > 0) {
		(void)txn_undo(*hp, o->txn, q->profile, o->peer_txn, NULL, q->say, &u);
		o->peer_left = u.peer_left;
		txn_undo_outcome_done(&u);
	}
	o->end = r == -ECANCELED && !o->peer_left ? TXN_END_UNDONE : TXN_END_NOT_RESTORED;
}

int txn_run(struct history **hp, const struct txn_request *q, struct txn_outcome *o)
{
	struct change_record *c = NULL;
	size_t n = 0;
	int r;

	*o = (struct txn_outcome){0};
	/* With a peer, a transaction is recorded here even when nothing
	 * changes on this host: it carries the peer's transaction, so that
	 * its rollback (or its pending rollback) has a record here. */
	if (q->plan->n_changes == 0 && !q->peer) {
		o->end = TXN_END_NOTHING;
		return 0;
	}
	r = record(*hp, q, &o->txn);
	if (r == -ECANCELED) {
		say(q->say, LOG_ERR,
		    "the host that started this apply (origin %s) has given it up (`cx5prof rollback "
		    "--origin` ran there first): nothing was changed",
		    q->origin);
		o->end = TXN_END_NOT_RECORDED;
		return 0;
	}
	if (r < 0) {
		say(q->say, LOG_ERR, "history %s: cannot write the undo log: %s: %s; nothing was changed",
		    history_path(*hp), strerror(-r), history_remedy(r));
		o->end = TXN_END_NOT_RECORDED;
		return 0;
	}
	if (load_recorded(hp, q, o->txn, &c, &n) < 0) {
		o->end = TXN_END_NOT_RECORDED;
		return 0;
	}
	o->n = n;
	apply_signals_install();
	r = apply_changes(*hp, o->txn, c, n, &o->apply);
	if (r < 0) {
		o->interrupted = o->apply.failed_seq ? 0 : apply_interrupted();
		o->end = r == -ECANCELED ? TXN_END_UNDONE : TXN_END_NOT_RESTORED;
	} else if (!q->peer || peer_step(*hp, q, c, n, o) == 0) {
		if (n == 0 && o->peer_txn == 0 && history_txn_discard(*hp, o->txn) >= 0) {
			/* The peer had nothing to change either. */
			o->txn = 0;
			o->end = TXN_END_NOTHING;
		} else if (finish(hp, q, o) < 0)
			undo_unfinished(hp, q, c, n, o);
		else
			o->end = TXN_END_DONE;
	}
	change_records_free(c, n);
	return 0;
}

/* ---- after the transaction: rollback --force, an earlier boot, commit ---- */

int txn_undo_record(struct history *h, const struct txn_record *t, const char *reason,
		    void (*say_fn)(enum log_level level, const char *text), struct txn_undo_outcome *o)
{
	_cleanup_profile_ struct profile *p = t->peer_txn != 0 ? txn_peer_profile(t) : NULL;

	apply_signals_install();
	return txn_undo(h, t->id, p, t->peer_txn, reason, say_fn, o);
}

void txn_unstack_outcome_done(struct txn_unstack_outcome *o)
{
	txn_undo_outcome_done(&o->undo);
	*o = (struct txn_unstack_outcome){0};
}

int txn_undo_later(struct history *h, int64_t target, void (*say_fn)(enum log_level level, const char *text),
		   struct txn_unstack_outcome *o)
{
	for (;;) {
		_cleanup_(txn_record_done) struct txn_record t = {0};
		int64_t later = 0;
		int r;

		r = history_txn_find_later_overlap_newest(h, target, &later);
		if (r <= 0)
			return r;
		r = history_txn_get(h, later, &t);
		if (r < 0)
			return r;
		say(say_fn, LOG_NOTICE,
		    "rollback --force %" PRId64 ": rolling back transaction %" PRId64
		    " first: it changed the same settings later",
		    target, later);
		txn_undo_outcome_done(&o->undo);
		r = txn_undo_record(h, &t, "rolled back by `cx5prof rollback`", say_fn, &o->undo);
		if (r < 0 && r != -ENOTRECOVERABLE) {
			o->failed_txn = later;
			return r;
		}
		if (o->undo.here < 0 || o->undo.peer_left) {
			o->failed_txn = later;
			return -ENOTRECOVERABLE;
		}
		say(say_fn, LOG_NOTICE,
		    "rolled back transaction %" PRId64 " (recorded as transaction %" PRId64 ")", later,
		    o->undo.apply.rollback_txn);
	}
}

void txn_earlier_boot_done(struct txn_earlier_boot *eb)
{
	txn_record_done(&eb->failed);
	apply_outcome_done(&eb->apply);
	*eb = (struct txn_earlier_boot){0};
}

int txn_close_earlier_boot(struct history *h, bool check,
			   void (*say_fn)(enum log_level level, const char *text),
			   struct txn_earlier_boot *eb)
{
	while (h && eb->n < TXN_EARLIER_BOOT_MAX) {
		_cleanup_(txn_record_done) struct txn_record t = {0};
		struct apply_outcome o = {0};
		int64_t target;
		int r = history_txn_find_unfinished(h, &t);

		if (r <= 0 || !txn_from_earlier_boot(&t))
			return r < 0 ? r : 0;
		target = t.kind == TXN_ROLLBACK ? t.rolls_back_txn : t.id;
		if (check) {
			say(say_fn, LOG_WARN,
			    "transaction %" PRId64 " was left %s in an earlier boot: apply closes it first "
			    "(the reboot reset its runtime changes)",
			    t.id, txn_status_to_string(t.status));
			eb->pending = true;
			return 0;
		}
		apply_signals_install();
		r = rollback_txn(h, target, "left unfinished in an earlier boot: closed by the next apply",
				 &o);
		if (r < 0) {
			eb->failed = t;
			t = (struct txn_record){0};
			eb->failed_target = target;
			eb->recording = r != -ENOTRECOVERABLE;
			eb->apply = o;
			return r;
		}
		say(say_fn, LOG_WARN,
		    "transaction %" PRId64 " was left %s in an earlier boot: closed it (rollback "
		    "transaction %" PRId64 ": %zu restored, %zu reset by the reboot)",
		    t.id, txn_status_to_string(t.status), o.rollback_txn, o.done, o.reset_by_reboot);
		eb->closed[eb->n++] = target;
		apply_outcome_done(&o);
	}
	return 0;
}

void txn_commit_outcome_done(struct txn_commit_outcome *o)
{
	free(o->peer_error);
	*o = (struct txn_commit_outcome){0};
}

/* Nothing waits for a commit: whether the watchdog was faster. */
static int nothing_pending(struct history *h, struct txn_commit_outcome *o)
{
	_cleanup_(txn_record_done) struct txn_record t = {0};
	int r = history_txn_find_last(h, TXN_APPLY, &t);

	o->end = TXN_COMMIT_NONE;
	if (r > 0 && t.status == TXN_ROLLED_BACK && t.confirm_deadline_usec) {
		o->end = TXN_COMMIT_TOO_LATE;
		o->txn = t.id;
	}
	return 0;
}

/* The peer's transaction recorded with t is committed there too. */
static void commit_peer(const struct txn_record *t, void (*say_fn)(enum log_level level, const char *text),
			struct txn_commit_outcome *o)
{
	_cleanup_profile_ struct profile *p = txn_peer_profile(t);
	_cleanup_free_ char *err = NULL;

	o->peer_txn = t->peer_txn;
	if (!p) {
		o->peer_unreachable = true;
		return;
	}
	if (peerssh_commit(p, &err) >= 0) {
		say(say_fn, LOG_NOTICE, "peer %s: committed its transaction %" PRId64, p->peer.ssh.value,
		    t->peer_txn);
		return;
	}
	o->peer_error = err ? TAKE_PTR(err) : strdup("the peer's commit failed");
}

int txn_commit(struct history *h, void (*say_fn)(enum log_level level, const char *text),
	       struct txn_commit_outcome *o)
{
	_cleanup_(txn_record_done) struct txn_record t = {0};
	int r = history_txn_find_unfinished(h, &t);

	*o = (struct txn_commit_outcome){0};
	if (r < 0)
		return r;
	if (r == 0)
		return nothing_pending(h, o);
	o->txn = t.id;
	/* Only a --confirm apply waits for commit; anything else unfinished
	 * (interrupted, or not fully undone) needs a rollback, never a commit. */
	if (t.status != TXN_PENDING_CONFIRM) {
		o->end = TXN_COMMIT_UNFINISHED;
		return 0;
	}
	if (history_now_usec() > t.confirm_deadline_usec) {
		o->end = TXN_COMMIT_EXPIRED;
		return 0;
	}
	r = history_txn_set_status(h, t.id, TXN_COMMITTED, NULL);
	if (r < 0)
		return r;
	o->end = TXN_COMMIT_DONE;
	if (t.peer_txn > 0)
		commit_peer(&t, say_fn, o);
	return 0;
}

/* ---- what `rollback` acts on ---- */

void txn_rollback_choice_done(struct txn_rollback_choice *c)
{
	txn_record_done(&c->target);
}

/* Nothing unfinished here: the newest of the last apply and the last
 * transaction whose peer rollback is pending (a stack: a pending peer
 * rollback comes before older applies, never before a newer one, which
 * may have changed the same settings there). 1 found, 0 none. */
static int find_newest_to_undo(struct history *h, struct txn_record *ret)
{
	_cleanup_(txn_record_done) struct txn_record last = {0};
	int r = history_txn_find_peer_undo(h, ret), q;

	if (r < 0)
		return r;
	q = history_txn_find_last_apply(h, &last);
	if (q <= 0)
		return q < 0 ? q : r;
	if (r > 0 && ret->id > last.id)
		return r;
	if (r > 0)
		txn_record_done(ret);
	*ret = last;
	last = (struct txn_record){0};
	return 1;
}

/* id 0: an unfinished rollback's target, else the newest to undo. 1
 * found, 0 none (or no such id), -errno. */
static int pick_target(struct history *h, int64_t id, struct txn_record *ret)
{
	int r;

	if (id > 0) {
		r = history_txn_get(h, id, ret);
		return r == -ENOENT ? 0 : r < 0 ? r : 1;
	}
	/* An unfinished rollback is finished first: roll back its target
	 * again, not the newest apply (which may be an unrelated one). */
	r = history_txn_find_unfinished(h, ret);
	if (r > 0 && ret->kind == TXN_ROLLBACK) {
		id = ret->rolls_back_txn;
		txn_record_done(ret);
		r = history_txn_get(h, id, ret);
		return r < 0 ? r : 1;
	}
	if (r > 0)
		txn_record_done(ret);
	return r < 0 ? r : find_newest_to_undo(h, ret);
}

static bool peer_undo_only(const struct txn_record *t)
{
	return t->peer_undo_pending && (t->status == TXN_ROLLED_BACK || t->status == TXN_FAILED);
}

int txn_rollback_choose(struct history *h, int64_t id, unsigned flags, struct txn_rollback_choice *c)
{
	struct txn_record *t = &c->target;
	int64_t target;
	int r;

	*c = (struct txn_rollback_choice){.id = id};
	r = pick_target(h, id, t);
	if (r < 0)
		goto fail;
	if (r == 0) {
		c->pick = id > 0 ? TXN_PICK_NOT_FOUND : TXN_PICK_NOTHING;
		return 0;
	}
	/* An interrupted or failed rollback is finished by rolling back its
	 * target again (a success supersedes it: history_rollback_finish). */
	if (t->kind == TXN_ROLLBACK) {
		if (t->status != TXN_OPEN && t->status != TXN_ROLLBACK_FAILED) {
			c->pick = TXN_PICK_IS_ROLLBACK;
			return 0;
		}
		target = t->rolls_back_txn;
		txn_record_done(t);
		r = history_txn_get(h, target, t);
		if (r < 0)
			goto fail;
	}
	if (flags & TXN_CHOOSE_ABANDON) {
		if (peer_undo_only(t))
			c->pick = TXN_PICK_ABANDON_PEER;
		else if (t->status != TXN_OPEN && t->status != TXN_PENDING_CONFIRM &&
			 t->status != TXN_ROLLBACK_FAILED)
			c->pick = TXN_PICK_NOT_UNFINISHED;
		else
			c->pick = TXN_PICK_ABANDON;
		return 0;
	}
	if (peer_undo_only(t)) {
		c->pick = TXN_PICK_RETRY_PEER;
		return 0;
	}
	if (t->status == TXN_ROLLED_BACK || t->status == TXN_FAILED) {
		c->pick = TXN_PICK_ALREADY;
		return 0;
	}
	r = history_txn_find_later_overlap(h, t->id, &c->later);
	if (r < 0)
		goto fail;
	c->pick = r > 0 && !(flags & TXN_CHOOSE_FORCE) ? TXN_PICK_LATER_OVERLAP : TXN_PICK_UNDO;
	return 0;
fail:
	txn_rollback_choice_done(c);
	*c = (struct txn_rollback_choice){0};
	return r;
}
