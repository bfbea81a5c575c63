/* txn.h: one transaction from start to end, on this host and its peer:
 * record -> apply -> peer -> commit (or --confirm, or left open for a
 * campaign round) -> undo on any failure; and its undo, peer first.
 *
 * Owns: the order of those steps and what each failure undoes, for
 * `apply`, a campaign's rounds, `campaign --keep` and `rollback` alike;
 * the peer's pending rollback (history_txn_set_peer_undo) when it cannot
 * be done. Must never: change the host before the undo log is on disk,
 * leave a change it made without a record of how to undo it, print
 * results or pick exit codes (the verbs render a txn_outcome). What it has
 * to say while it works (the peer's steps) goes through the request's
 * say(). */
#ifndef CX5_TXN_H
#define CX5_TXN_H

#include "apply.h"
#include "base/log.h"

struct plan;
struct profile;

enum txn_commit {
	TXN_COMMIT_NOW,	    /* committed at once (apply, campaign --keep) */
	TXN_COMMIT_CONFIRM, /* pending_confirm under the watchdog (apply --confirm) */
	TXN_COMMIT_NEVER,   /* left open: a campaign round, undone by txn_undo */
};

struct txn_request {
	const struct profile *profile; /* applied; its peer section names the peer */
	const struct plan *plan;       /* with the boot-time unit's change when it was planned */
	const char *db_path;	       /* to reopen the history (after the watchdog's fork) */
	enum txn_commit commit;
	unsigned confirm;      /* TXN_COMMIT_CONFIRM: seconds, also the peer's watchdog */
	bool peer;	       /* tune the peer (peer.ssh) too, after this host */
	unsigned peer_confirm; /* the peer's watchdog otherwise; 0: peer.confirm */
	void (*say)(enum log_level level, const char *text); /* NULL: debug log */
};

enum txn_end {
	TXN_END_DONE,	      /* applied (committed, pending_confirm or open as asked) */
	TXN_END_NOTHING,      /* nothing to change here (the peer, if any, done) */
	TXN_END_NOT_RECORDED, /* the undo log could not be written or read back: nothing changed */
	TXN_END_UNDONE,	      /* failed or interrupted: every change undone, both ends */
	TXN_END_NOT_RESTORED, /* failed: some change is NOT undone (apply.left, peer_left) */
	TXN_END_UNFINISHED,   /* every change landed, the history could not be reopened to undo */
	TXN_END_PEER_FAILED,  /* nothing to change here, the peer failed: nothing changed here */
};

struct txn_outcome {
	enum txn_end end;
	int64_t txn;		    /* this host's transaction, 0 when none */
	size_t n;		    /* its changes */
	int64_t peer_txn;	    /* the peer's transaction (recorded with txn), 0 none */
	int64_t peer_left;	    /* the peer's transaction NOT rolled back (pending undo), 0 none */
	int interrupted;	    /* the signal that stopped it, 0 none */
	bool after_last;	    /* the failure came after the last change (commit, watchdog) */
	char *peer_error;	    /* the peer's failure, when the peer failed */
	int peer_failure;	    /* its -errno: -EHOSTUNREACH (ssh failed), -ETIMEDOUT, -EBADMSG, ... */
	char *why;		    /* after_last: what could not be done */
	int watchdog_pid;	    /* TXN_COMMIT_CONFIRM */
	int64_t deadline_us;	    /* TXN_COMMIT_CONFIRM */
	struct apply_outcome apply; /* failed_seq, failure, left, unrecorded */
};
void txn_outcome_done(struct txn_outcome *o);

/* Run q as one transaction. *hp may be closed and reopened (the watchdog's
 * fork; a connection that met an I/O error): NULL when it could not be
 * reopened. Always returns 0 but for -ENOMEM; o->end says what happened. */
int txn_run(struct history **hp, const struct txn_request *q, struct txn_outcome *o);

struct txn_undo_outcome {
	struct apply_outcome apply; /* this host: done, left, rollback_txn */
	int here;		    /* rollback_txn()'s result: 0, -ENOTRECOVERABLE, -errno */
	bool peer_done;		    /* the peer's transaction was rolled back now */
	bool peer_was_undone;	    /* ... but had nothing left to roll back (its watchdog was first) */
	int64_t peer_left;	    /* the peer's transaction NOT rolled back: pending undo recorded */
	char *peer_error;
};
void txn_undo_outcome_done(struct txn_undo_outcome *o);

/* Undo transaction txn (0: none here) and its peer's transaction peer_txn
 * (0: none): the peer first (it was applied last), through peer (NULL: the
 * stored profile cannot reach it, which is a failure), then this host
 * (rollback_txn, recorded with reason). A signal caught while the peer's
 * rollback runs ends its ssh at once. A peer rollback that fails or is cut
 * short is recorded as pending with txn (history_txn_set_peer_undo), for
 * the next `rollback`; done, a pending one is cleared. Returns 0 when both
 * ends are restored, -ENOTRECOVERABLE when one is not (o says which), or
 * -errno when this host's rollback could not be recorded. */
int txn_undo(struct history *h, int64_t txn, const struct profile *peer, int64_t peer_txn, const char *reason,
	     void (*say)(enum log_level level, const char *text), struct txn_undo_outcome *o);

/* The peer to reach for transaction t's peer_txn: its stored profile when
 * that names one (peer.ssh), else NULL. Caller frees (profile_free). */
struct profile *txn_peer_profile(const struct txn_record *t);

#endif
