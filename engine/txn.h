/* txn.h: one transaction from start to end, on this host and its peer:
 * record -> apply -> peer -> commit (or --confirm, or left open for a
 * campaign round) -> undo on any failure; and its undo, peer first; the
 * later `commit` of a --confirm apply, the close of what an earlier boot
 * left unfinished, and the stack that `rollback --force` undoes first.
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
	const char *origin;    /* this is a peer's apply: the token of the host that drives it
				* (`apply --origin`), recorded; refused when fenced; or NULL */
	void (*say)(enum log_level level, const char *text); /* NULL: debug log */
};

enum txn_end {
	TXN_END_DONE,	      /* applied (committed, pending_confirm or open as asked) */
	TXN_END_NOTHING,      /* nothing to change here, nor on the peer: nothing recorded */
	TXN_END_NOT_RECORDED, /* the undo log could not be written or read back: nothing changed */
	TXN_END_UNDONE,	      /* failed or interrupted: every change undone, both ends */
	TXN_END_NOT_RESTORED, /* failed: some change is NOT undone (apply.left, peer_left) */
	TXN_END_UNFINISHED,   /* every change landed, the history could not be reopened to undo */
	TXN_END_PEER_FAILED,  /* nothing to change here, the peer failed and is as before (txn: the
			       * record here, rolled back, or 0 when none was kept) */
};

struct txn_outcome {
	enum txn_end end;
	int64_t txn;		    /* this host's transaction, 0 when none */
	size_t n;		    /* its changes (0: it only carries the peer's transaction) */
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

/* Run q as one transaction. With a peer it is recorded here even when
 * nothing changes on this host (a transaction of no change that carries
 * the peer's), and forgotten again when the peer had nothing to change
 * either. *hp may be closed and reopened (the watchdog's fork; a
 * connection that met an I/O error): NULL when it could not be reopened.
 * Always returns 0 but for -ENOMEM; o->end says what happened. */
int txn_run(struct history **hp, const struct txn_request *q, struct txn_outcome *o);

struct txn_undo_outcome {
	struct apply_outcome apply; /* this host: done, left, rollback_txn */
	int here;		    /* rollback_txn()'s result: 0, -ENOTRECOVERABLE, -errno */
	bool peer_done;		    /* the peer's transaction was rolled back now */
	bool peer_was_undone;	    /* ... but had nothing left to roll back (its watchdog was first) */
	int64_t peer_txn;	    /* the peer's transaction acted on: HISTORY_PEER_TXN_UNKNOWN
				     * resolved (0: none was left there), else as given */
	int64_t peer_left;	    /* the peer's transaction NOT rolled back: pending undo recorded */
	char *peer_error;
};
void txn_undo_outcome_done(struct txn_undo_outcome *o);

/* Undo transaction txn (0: none here) and its peer's transaction peer_txn
 * (0: none; HISTORY_PEER_TXN_UNKNOWN: an apply there was cut short with
 * no answer, so the peer is asked for its unfinished transaction of this
 * profile first, peerssh_find_unfinished, and that one is recorded with
 * txn and rolled back; none there: nothing to undo): the peer first (it was applied last), through peer
 * (NULL: the stored profile cannot reach it, which is a failure), then this host (rollback_txn, recorded with
 * reason). A signal caught while the peer's rollback runs ends its ssh at once. A peer rollback that fails or
 * is cut short is recorded as pending with txn (history_txn_set_peer_undo), for the next `rollback`; done, a
 * pending one is cleared. Returns 0 when both ends are restored, -ENOTRECOVERABLE when one is not (o says
 * which), or -errno when this host's rollback could not be recorded. */
int txn_undo(struct history *h, int64_t txn, const struct profile *peer, int64_t peer_txn, const char *reason,
	     void (*say)(enum log_level level, const char *text), struct txn_undo_outcome *o);

/* The peer to reach for transaction t's peer_txn: its stored profile when
 * that names one (peer.ssh), else NULL. Caller frees (profile_free). */
struct profile *txn_peer_profile(const struct txn_record *t);

/* txn_undo of recorded transaction t and its peer's transaction (reached
 * through t's stored profile), with SIGINT, SIGTERM and SIGHUP caught. */
int txn_undo_record(struct history *h, const struct txn_record *t, const char *reason,
		    void (*say)(enum log_level level, const char *text), struct txn_undo_outcome *o);

/* What `rollback --force TARGET` does first: a stack, so every later
 * transaction that changed the same settings is undone before it, newest
 * first, each on both ends (txn_undo_record), each said through say().
 * 0; -ENOTRECOVERABLE when one is not fully undone (o->failed_txn, and
 * o->undo says what is left), stopping there; -errno when the history
 * cannot be read (o->failed_txn 0) or that rollback cannot be recorded. */
struct txn_unstack_outcome {
	int64_t failed_txn;
	struct txn_undo_outcome undo;
};
void txn_unstack_outcome_done(struct txn_unstack_outcome *o);
int txn_undo_later(struct history *h, int64_t target, void (*say)(enum log_level level, const char *text),
		   struct txn_unstack_outcome *o);

/* What `rollback [TXN]` and `rollback --abandon TXN` act on: the policy
 * of the choice, rendered by the verb. id 0: an unfinished rollback's
 * target first (finished by rolling its target back again), else the
 * newest of the last apply and the last transaction whose peer rollback is
 * pending (a stack: never before a newer apply, which may have changed the
 * same settings there). A rollback named by id stands for its target while
 * it is unfinished. */
enum txn_pick {
	TXN_PICK_UNDO,		 /* roll back target */
	TXN_PICK_RETRY_PEER,	 /* target is rolled back here, its peer's rollback pending: retry it */
	TXN_PICK_NOTHING,	 /* id 0 and no transaction to roll back */
	TXN_PICK_ALREADY,	 /* target is already rolled back (or failed) */
	TXN_PICK_NOT_FOUND,	 /* no transaction id */
	TXN_PICK_IS_ROLLBACK,	 /* id names a finished rollback: not something to undo */
	TXN_PICK_LATER_OVERLAP,	 /* later transactions changed the same settings (later), no force */
	TXN_PICK_ABANDON,	 /* --abandon: give target up (history records it) */
	TXN_PICK_ABANDON_PEER,	 /* --abandon: give up only its peer's pending rollback */
	TXN_PICK_NOT_UNFINISHED, /* --abandon: target is not unfinished: nothing to abandon */
};
enum {
	TXN_CHOOSE_FORCE = 1 << 0,   /* rollback --force: later overlapping ones are undone first */
	TXN_CHOOSE_ABANDON = 1 << 1, /* rollback --abandon */
};
struct txn_rollback_choice {
	enum txn_pick pick;
	struct txn_record target; /* all but NOTHING, NOT_FOUND */
	int64_t id;		  /* what was asked for (NOT_FOUND, IS_ROLLBACK) */
	int64_t later;		  /* LATER_OVERLAP: the later transaction */
};
void txn_rollback_choice_done(struct txn_rollback_choice *c);
/* 0 with c->pick set; -errno when the history cannot be read (c is
 * emptied). Reads only. */
int txn_rollback_choose(struct history *h, int64_t id, unsigned flags, struct txn_rollback_choice *c);

/* Transactions left unfinished in an earlier boot, closed before an apply
 * (at most this many: each pass closes one). */
#define TXN_EARLIER_BOOT_MAX 8

struct txn_earlier_boot {
	int64_t closed[TXN_EARLIER_BOOT_MAX]; /* the transactions closed */
	size_t n;
	bool pending;		    /* check: one is left for the apply to close */
	struct txn_record failed;   /* the one that could not be closed */
	int64_t failed_target;	    /* ... and the transaction its rollback restores */
	bool recording;		    /* the -errno came from recording its rollback */
	struct apply_outcome apply; /* its rollback: left */
};
void txn_earlier_boot_done(struct txn_earlier_boot *eb);

/* A transaction left unfinished in an earlier boot (a crash or power loss
 * mid-apply, a --confirm whose watchdog died with the reboot) no longer
 * describes the host: the reboot reset its runtime changes. Roll back what
 * survives a reboot (irqbalance, the boot-time unit) and close it, so the
 * boot-time unit applies instead of stopping at exit 9; each said through
 * say(). check: only say so (eb->pending). 0 when none is left;
 * -ENOTRECOVERABLE when one cannot be fully rolled back (eb->failed,
 * eb->apply.left); -errno when the history cannot be read, or (recording)
 * the rollback cannot be recorded. h NULL: no history, nothing to close. */
int txn_close_earlier_boot(struct history *h, bool check, void (*say)(enum log_level level, const char *text),
			   struct txn_earlier_boot *eb);

enum txn_commit_end {
	TXN_COMMIT_NONE,       /* nothing waits for a commit */
	TXN_COMMIT_TOO_LATE,   /* the last --confirm apply (txn) was rolled back by its watchdog */
	TXN_COMMIT_UNFINISHED, /* an unfinished transaction that needs a rollback, never a commit */
	TXN_COMMIT_EXPIRED,    /* txn waits, but its confirm deadline has passed */
	TXN_COMMIT_DONE,       /* txn committed; and its peer's, unless peer_error or peer_unreachable */
};

struct txn_commit_outcome {
	enum txn_commit_end end;
	int64_t txn;
	int64_t peer_txn;      /* the peer's transaction recorded with txn, 0 none */
	bool peer_unreachable; /* the stored profile does not say how to reach the peer */
	char *peer_error;      /* the peer's commit failed (its watchdog rolls it back) */
};
void txn_commit_outcome_done(struct txn_commit_outcome *o);

/* `commit`: the transaction waiting under --confirm is kept, here and then
 * on the peer (peerssh_commit, said through say()). 0 with o->end; -errno
 * when the history cannot be read or written. */
int txn_commit(struct history *h, void (*say)(enum log_level level, const char *text),
	       struct txn_commit_outcome *o);

#endif
