/* apply.h: executing a transaction: apply in order, undo in reverse,
 * rollback from the undo log, and the --confirm watchdog.
 *
 * Owns: the step loop (write, read back, record the state durably), the
 * reaction to failures and to SIGINT/SIGTERM/SIGHUP (undo what landed, in
 * reverse), the restore of a recorded transaction from its undo log (a
 * rollback, itself recorded as a transaction), the detached watchdog, and
 * the test failpoints (CX5PROF_FAILPOINT, below; util.h's failpoint()). The caller holds the lock
 * (lock.h) and has recorded the transaction (apply_txn_create) before
 * calling apply_changes. Must never: write a change whose old value is not
 * in the durable undo log; print results (the verb layer does).
 *
 * Failpoints, for tests only: CX5PROF_FAILPOINT="name:K[,name:K...]":
 *   apply-step:K   the write of step K (1-based) fails with EIO
 *   apply-pause:K  stop before step K (steps < K have landed) and wait to
 *                  be killed; announces itself on stderr
 *   undo-step:K    undoing step K fails with EIO (exit 7 path)
 *   rollback-pause:K  `rollback` stops before its step K, as apply-pause
 *   confirm-setup:1   `apply --confirm`: recording pending_confirm fails (EIO)
 *   confirm-setup:2   `apply --confirm`: starting the watchdog fails (EAGAIN)
 *   commit:1          recording the transaction committed fails (ENOSPC)
 *   ethnl-absent:1    ethtool netlink is treated as absent (ethnl.h): every
 *                     ethtool setting goes through the ioctl fallback
 * A caught signal (SIGINT, SIGTERM, SIGHUP) ends a pause as it would end
 * the step loop between two real steps. */
#ifndef CX5_APPLY_H
#define CX5_APPLY_H

#include "store/history.h"

struct apply_outcome {
	size_t done;		/* changes written (apply) or restored (rollback) */
	int failed_seq;		/* apply: the step that failed, 0 when none */
	char *failure;		/* "ens1f0 mtu 1500 -> 9000: Invalid argument (kernel: ...)" */
	char **left;		/* strv: what is NOT restored, one line each */
	int64_t rollback_txn;	/* rollback: the transaction that recorded it */
	size_t reset_by_reboot; /* rollback of an earlier boot's transaction: runtime changes not written */
	int unrecorded;		/* apply_undo_all: -errno when the final status could not be recorded */
};
void apply_outcome_done(struct apply_outcome *o);

/* Apply the recorded changes of transaction txn, in order. On success
 * every change is 'applied' and 0 is returned (the transaction status is
 * left for the caller: committed or pending_confirm). On a failure or a
 * signal, every change that may have landed is undone in reverse and the
 * transaction is marked rolled_back (-ECANCELED returned) or, when an undo
 * failed, rollback_failed (-ENOTRECOVERABLE; o->left says what is left). */
int apply_changes(struct history *h, int64_t txn, const struct change_record *c, size_t n,
		  struct apply_outcome *o);

/* Undo all n changes of transaction txn after they all landed, when what
 * had to follow them failed (recording the commit, starting the --confirm
 * watchdog): why says what, and becomes o->failure and the transaction's
 * error. Returns -ECANCELED (all undone: rolled_back) or -ENOTRECOVERABLE
 * (o->left; rollback_failed). When even that status cannot be written,
 * o->unrecorded is the error and the transaction stays open in the history
 * (a later `cx5prof rollback` closes it: restoring is idempotent). */
int apply_undo_all(struct history *h, int64_t txn, const struct change_record *c, size_t n, const char *why,
		   struct apply_outcome *o);

/* Restore every change of transaction target to its old value (whether or
 * not it had landed), as a new 'rollback' transaction. 0 all restored,
 * -ENOTRECOVERABLE some could not be (o->left). reason is recorded.
 * A target from an earlier boot (txn_from_earlier_boot) gets back only its
 * changes of kinds that survive a reboot (plan.h: persists): its runtime
 * changes were reset by the reboot and are not written (the old values
 * may name IRQs or states of that boot); they stay 'planned' in the
 * rollback, with the reason, and count in o->reset_by_reboot. */
int rollback_txn(struct history *h, int64_t target, const char *reason, struct apply_outcome *o);

/* `rollback --abandon`: give up on unfinished transaction target without
 * writing anything. Recorded as a rollback transaction (*ret_id; its user
 * is who abandoned it) listing the target's changes not undone, each
 * 'failed' "abandoned: left as it is on the host"; target and record end
 * 'failed' with why (history_abandon_finish). */
/* peer_pending: the rollback of the peer's transaction peer_txn is
 * pending, and given up with it (abandon_peer_undo), in the same SQLite
 * transaction. */
int abandon_txn(struct history *h, int64_t target, bool peer_pending, int64_t peer_txn, const char *why,
		int64_t *ret_id);

/* `rollback --abandon` of transaction target whose peer rollback is
 * pending (its peer_txn): no longer pending, recorded with who and why in
 * the target's error; nothing is written to either host. */
int abandon_peer_undo(struct history *h, int64_t target, int64_t peer_txn, const char *why);

/* history_txn_create() with the transaction's origin filled in: the user
 * (SUDO_USER, else the account), the host name and the boot id. t's
 * user, host and boot_id are set for the call only (NULL afterwards). */
int apply_txn_create(struct history *h, struct txn_record *t, const struct change_record *c, size_t n,
		     int64_t *ret_id);

/* The kernel's boot id (/proc/sys/kernel/random/boot_id, through the
 * sysroot), recorded with each transaction. 0 and *ret NULL when there is
 * none (a sysroot without the file). */
int apply_boot_id(char **ret);
/* True when t started in an earlier boot than this one: both boot ids are
 * known and differ. */
bool txn_from_earlier_boot(const struct txn_record *t);

/* Catch SIGINT, SIGTERM and SIGHUP: apply_changes stops before the next
 * step and undoes. */
void apply_signals_install(void);

/* Start the detached --confirm watchdog (double fork, setsid). The caller
 * must have closed its history handles first: SQLite connections must not
 * cross fork() (the child's SQLite would believe it holds the parent's
 * file locks). At
 * deadline_usec (wall clock) it takes the lock and rolls back txn unless it
 * is no longer pending_confirm. Returns the watchdog's pid or -errno. */
int watchdog_spawn(const char *db_path, int64_t txn, int64_t deadline_usec);

/* The signal caught since apply_signals_install() (SIGINT...), 0 when
 * none: a caller running several transactions (campaign) stops at it, a
 * wait outside apply_changes (the peer's ssh) too. */
int apply_interrupted(void);
/* How many signals were caught since apply_signals_install(): a wait that
 * began after an interruption (the undo of a round) stops only at a new
 * one (apply_interrupted() stays set once caught). */
unsigned apply_signals_caught(void);

#endif
