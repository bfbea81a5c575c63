/* history.h: the SQLite history database: schema, migrations, and the
 * transaction records with their undo log (the "changes" table).
 *
 * Owns: opening the one database file (WAL, busy timeout, foreign keys,
 * synchronous=FULL so a committed undo log survives power loss), the schema
 * and its migrations (PRAGMA user_version, a table of steps), the
 * transactions and changes tables, and the translation of SQLite result
 * codes to -errno (history_errno(), the only place). Other modules (runs,
 * artifacts, outbox: engineer F) use history_db() and the schema below.
 * Must never: touch the host, log above debug, or report an apply as
 * started before its undo log is durable.
 *
 * Schema v1 (times are microseconds since the Unix epoch, *_usec):
 *   transactions(id, kind 'apply'|'rollback', profile_name, profile_hash,
 *       profile_json, user, host, started_usec, ended_usec, status
 *       'open'|'committed'|'pending_confirm'|'rolled_back'|'failed'|
 *       'rollback_failed', confirm_deadline_usec, rolls_back_txn, error)
 *       ('failed': ended without being applied or undone: failed before
 *       any change, superseded, or abandoned by the operator: error says)
 *   changes(txn, seq, object, kind, key, old_value, new_value,
 *       state 'planned'|'applied'|'undone'|'failed', error) PK (txn, seq)
 *   runs(id, txn, profile_name, profile_hash, interface, runner, peer, test,
 *       duration_s, mtu, message_size, send_buffer, recv_buffer, streams,
 *       irq_policy, driver, driver_version, firmware_version, sent, received,
 *       lost, send_mbps, recv_mbps, loss_pct, pass 0|1, verdict,
 *       started_usec, ended_usec)
 *   artifacts(run, name, content BLOB) PK (run, name)
 *   outbox(id, source_kind 'txn'|'run', source_id, payload JSON, status
 *       'pending'|'sent'|'failed_permanent', attempts, next_attempt_usec,
 *       last_error, reply_id, reply_content, reply_usage, created_usec,
 *       sent_usec)
 * Schema v2: transactions.boot_id (the kernel's boot id when the
 *   transaction started; NULL when unknown or written by v1).
 * Schema v3: campaigns(id, name, file, status 'running'|'done'|
 *   'interrupted'|'failed', started_usec, ended_usec, summary JSON)
 *   (campaigns.h); runs.campaign (the campaign a run belongs to, NULL for
 *   a run of its own); outbox.source_kind may be 'campaign'.
 * Schema v4: transactions.peer_txn (the peer's own transaction applied
 *   with this one through peer.ssh; NULL when none).
 * Schema v5: transactions.peer_undo_pending (the peer's rollback still
 *   to do: why the last attempt failed; NULL when none is pending).
 * Schema v6: runs.limited_by and runs.ledger (the run's loss ledger,
 *   ledger.h: what limited it and the JSON document; NULL when none or
 *   written before).
 * Schema v7: tunes (a `cx5prof tune` session: its summary document,
 *   schemas/tune.schema.json) and campaigns.tune (the session a
 *   candidate's campaign belongs to); the outbox takes tune records.
 * Schema v8: transactions.origin (the token an apply was started with by
 *   the host that drives this one as its peer: `apply --origin`),
 *   transactions.peer_origin (the token this host sent with its peer's
 *   apply), and fences (tokens given up by their host with `rollback
 *   --origin`: an apply carrying one is refused).
 * Changing the schema: append a step to the migration table in history.c
 * (HISTORY_SCHEMA_VERSION grows by one); never edit a released step. */
#ifndef CX5_HISTORY_H
#define CX5_HISTORY_H

#include <sqlite3.h>

#include "base/util.h"

#define HISTORY_SCHEMA_VERSION 8

struct history;

enum history_open_flags {
	/* Open for reading only: never create or migrate; -ENOENT when the
	 * file does not exist. A history on a read-only file system is read
	 * too (opened as immutable when SQLite cannot make its shared-memory
	 * file, its write-ahead log being empty). */
	HISTORY_READ_ONLY = 1 << 0,
	/* Read-write, but only a history that exists: never create the file
	 * (-ENOENT) nor start a history in an empty one (-ENODATA). For the
	 * verbs that only work on an existing history (rollback, commit,
	 * mirror, analyze): a mistyped --db must not look like success. */
	HISTORY_EXISTING = 1 << 1,
};

/* Open (creating a missing file with mode 0600, and its directory, one
 * level, mode 0700) and migrate to HISTORY_SCHEMA_VERSION. An existing file
 * keeps its mode. Errors: -ENOENT (read-only or existing: the file is missing;
 * read-write: a directory above the file's is missing), -ENOTDIR,
 * -EISDIR / -ENXIO (path is a directory / a FIFO, socket or device:
 * refused before it is opened),
 * -EACCES/-EROFS (permission, read-only file or file system),
 * -EBADMSG (corrupt, or not a SQLite database), -EBUSY (locked too long),
 * -EPROTONOSUPPORT (schema newer than this cx5prof), -ENODATA (read-only
 * or HISTORY_EXISTING: the file holds no history, e.g. it is empty). */
int history_open(const char *path, unsigned flags, struct history **ret);
void history_close(struct history *h);
/* 0 when path is a regular file or missing; -EISDIR, -ENXIO (a FIFO, a
 * socket or a device) otherwise: what history_open() checks first, for a
 * caller that must refuse such a path before creating anything. */
int history_path_check(const char *path);
static inline void history_closep(struct history **h)
{
	if (*h)
		history_close(*h);
}
#define _cleanup_history_ _cleanup_(history_closep)

sqlite3 *history_db(struct history *h);
/* Prepare one statement on db (the history's, or any other SQLite handle of
 * the modules on top: runs, outbox); a failure is logged at debug with
 * SQLite's message and returned as -errno (history_errno). */
int history_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **ret);
static inline void history_stmt_finalizep(sqlite3_stmt **s)
{
	if (*s)
		sqlite3_finalize(*s);
}
#define _cleanup_stmt_ _cleanup_(history_stmt_finalizep)
const char *history_path(struct history *h);
int history_schema_version(struct history *h);
/* Wall-clock time in microseconds since the Unix epoch (the *_usec columns). */
int64_t history_now_usec(void);

/* The one translation of a SQLite result code (primary or extended) to
 * -errno; SQLITE_OK/ROW/DONE give 0. */
int history_errno(int sqlite_rc);
/* The exit code for a history_open() error, the one mapping every verb
 * uses: 66 no such file, or an empty one (-ENODATA: no history in it), 65
 * not a regular file, 77 permission denied, else 1. */
int history_open_exit_code(int r);
/* A remedy for a -errno from this module, for the verb layer's one report:
 * "check --db: the file is not a cx5prof history, or it is corrupt", ... */
const char *history_remedy(int r);

/* Explicit SQLite transactions (BEGIN IMMEDIATE ... COMMIT) for callers
 * that write several rows atomically. history_end(h, r) commits when
 * r >= 0, else rolls back; returns r, or the commit's error. */
int history_begin(struct history *h);
int history_end(struct history *h, int r);

/* Run one SQL statement with bound TEXT/INT64 parameters; convenience for
 * small modules. fmt letters: 's' const char * (NULL binds NULL), 'i'
 * int64_t, 'n' NULL. Returns 0, or -errno. */
int history_exec(struct history *h, const char *sql, const char *fmt, ...);

/* ---- Transactions and their undo log ---- */

enum txn_kind { TXN_APPLY, TXN_ROLLBACK, _TXN_KIND_MAX };
enum txn_status {
	TXN_OPEN,	     /* changes may be on the host: must be rolled back */
	TXN_COMMITTED,	     /* done and kept */
	TXN_PENDING_CONFIRM, /* applied with --confirm; waiting for `commit` */
	TXN_ROLLED_BACK,     /* undone (by apply's own undo or by a rollback) */
	TXN_FAILED,	     /* failed before any change, superseded, or abandoned (error says) */
	TXN_ROLLBACK_FAILED, /* undo incomplete: the host is NOT as before */
	_TXN_STATUS_MAX,
};
enum change_state { CHANGE_PLANNED, CHANGE_APPLIED, CHANGE_UNDONE, CHANGE_FAILED, _CHANGE_STATE_MAX };

const char *txn_kind_to_string(enum txn_kind k);
int txn_kind_from_string(const char *s, enum txn_kind *ret);
const char *txn_status_to_string(enum txn_status s);
int txn_status_from_string(const char *s, enum txn_status *ret);
const char *change_state_to_string(enum change_state s);
int change_state_from_string(const char *s, enum change_state *ret);

struct txn_record {
	int64_t id;
	enum txn_kind kind;
	char *profile_name; /* may be NULL (a rollback) */
	char *profile_hash; /* sha256 hex of the profile file(s) */
	char *profile_json; /* the effective (merged) profile */
	char *user;
	char *host;
	int64_t started_usec;
	int64_t ended_usec; /* 0 while not ended */
	enum txn_status status;
	int64_t confirm_deadline_usec; /* 0: none */
	int64_t rolls_back_txn;	       /* 0: none */
	char *error;		       /* why it failed, or NULL */
	char *boot_id;		       /* the boot it started in (apply_boot_id), or NULL */
	int64_t peer_txn;	       /* the peer's transaction applied with it (peer.ssh); 0: none */
	char *peer_undo_pending;       /* peer_txn still to roll back there: why the last try failed */
	char *origin;		       /* the token of the host that started it (apply --origin), or NULL */
	char *peer_origin;	       /* the token sent with the peer's apply, or NULL (before v8) */
};

/* One row of the undo log. object names what is changed ("ens1f0",
 * "irq ens1f0 q3", "sysctl", "irqbalance"); kind is the change kind's name
 * from plan.h ("mtu", "channels", ...); key the setting ("mtu",
 * "combined", "net.core.rmem_max", "/proc/irq/41/smp_affinity_list");
 * old_value is what rollback restores. */
struct change_record {
	int64_t txn;
	int seq; /* 1.. in apply order */
	char *object;
	char *kind;
	char *key;
	char *old_value;
	char *new_value;
	enum change_state state;
	char *error;
};

void txn_record_done(struct txn_record *t);
void change_records_free(struct change_record *c, size_t n);

/* Record a new transaction (status from t->status, started_usec from t, id
 * ignored) and all its changes in state 'planned', in ONE durable SQLite
 * transaction: when this returns >= 0 the undo log is on disk. It also
 * queues the transaction for the mirror (outbox row, source_kind 'txn').
 * *ret_id: the new transaction id. */
int history_txn_create(struct history *h, const struct txn_record *t, const struct change_record *changes,
		       size_t n_changes, int64_t *ret_id);

/* Update one change's state (and error text, may be NULL). A progress
 * mark, queued and written in batches without an fsync of its own; the
 * next durable write (or history_close, history_changes_load) writes what
 * is queued. A killed process may lose its last marks: rollback never
 * depends on them (it restores every change of a transaction). */
int history_change_set_state(struct history *h, int64_t txn, int seq, enum change_state state,
			     const char *error);

/* Set a transaction's status; terminal statuses (committed, rolled_back,
 * failed, rollback_failed) also set ended_usec. error may be NULL. The
 * mirror's outbox payload is refreshed in the same SQLite transaction. */
int history_txn_set_status(struct history *h, int64_t txn, enum txn_status status, const char *error);
/* Record the end of rollback transaction `rollback` of `target` in ONE
 * durable SQLite transaction. ok: the rollback committed, target
 * rolled_back (error: reason), and every other rollback of target still
 * open or rollback_failed becomes failed, "superseded by rollback N" (it no
 * longer counts as unfinished). !ok: both rollback_failed. */
int history_rollback_finish(struct history *h, int64_t rollback, int64_t target, bool ok, const char *reason);
/* Record `rollback --abandon`: the abandon record (a rollback transaction
 * that wrote nothing) and its target both become failed, in ONE durable
 * SQLite transaction, with why (the target's error; the abandon record's is
 * "abandoned transaction T: why"); other unfinished rollbacks of target
 * are superseded, as by history_rollback_finish. */
int history_abandon_finish(struct history *h, int64_t abandon, int64_t target, const char *why);
/* Mark a transaction pending_confirm with a deadline. */
int history_txn_set_pending_confirm(struct history *h, int64_t txn, int64_t deadline_usec);
/* transactions.peer_txn while the peer's apply runs, and after it when
 * that apply was cut short with no answer: the peer may or may not have
 * applied a transaction that this host does not know. The next `rollback`
 * resolves it (asks the peer for its unfinished transaction). */
#define HISTORY_PEER_TXN_UNKNOWN (-1)

/* Record the peer's transaction (> 0) that was applied with txn, 0 none,
 * or HISTORY_PEER_TXN_UNKNOWN (recorded before the peer's apply starts). */
int history_txn_set_peer_txn(struct history *h, int64_t txn, int64_t peer_txn);
/* Before the peer's apply starts: peer_txn HISTORY_PEER_TXN_UNKNOWN and
 * the origin token sent with it, so that the peer can be asked for that
 * apply (`rollback --origin`) whatever ends this process. */
int history_txn_set_peer_intent(struct history *h, int64_t txn, const char *origin);
/* The peer side of an origin token. history_fenced: 1 when its host gave
 * it up (`rollback --origin` found no transaction of it), 0 not, -errno.
 * history_fence: record that, durably (idempotent). A transaction created
 * with a fenced origin fails with -ECANCELED, checked inside the insert's
 * SQLite transaction. history_txn_find_origin: the transaction started
 * with origin, 1 found, 0 none. */
int history_fenced(struct history *h, const char *origin);
int history_fence(struct history *h, const char *origin);
int history_txn_find_origin(struct history *h, const char *origin, struct txn_record *ret);

/* Forget transaction txn, recorded for a peer that then had nothing to
 * change either: only an open apply with no change and no peer
 * transaction is deleted (with its pending outbox row), in ONE durable
 * SQLite transaction; -ENOENT when txn is not such a one. */
int history_txn_discard(struct history *h, int64_t txn);

/* Record that the peer's transaction of txn could not be rolled back
 * (pending: why; the next `rollback` here tries again), or, pending NULL,
 * that it has been. */
int history_txn_set_peer_undo(struct history *h, int64_t txn, const char *pending);
/* `rollback --abandon` of a pending peer rollback: no longer pending, and
 * why (note) added to the transaction's error, in ONE durable SQLite
 * transaction. -ENOENT when txn has none pending. */
int history_txn_abandon_peer_undo(struct history *h, int64_t txn, const char *note);
/* The newest transaction whose peer rollback is pending (its peer_txn
 * known, or HISTORY_PEER_TXN_UNKNOWN). 1 found, 0 none. */
int history_txn_find_peer_undo(struct history *h, struct txn_record *ret);

/* The newest `limit` transactions (0: all), newest first: an array the
 * caller frees (txn_record_done on each, then free). */
int history_txn_list_newest(struct history *h, size_t limit, struct txn_record **ret, size_t *ret_n);
/* Load one transaction. -ENOENT when there is none with that id. */
int history_txn_get(struct history *h, int64_t id, struct txn_record *ret);
/* The newest unfinished transaction: status open, pending_confirm or
 * rollback_failed (the host may not be as recorded). 1 found, 0 none (ret
 * untouched), -errno. */
int history_txn_find_unfinished(struct history *h, struct txn_record *ret);
/* The newest apply transaction that can still be rolled back (status
 * committed, pending_confirm, open or rollback_failed). 1 found, 0 none. */
int history_txn_find_last_apply(struct history *h, struct txn_record *ret);
/* The newest transaction of kind k, whatever its status. 1 found, 0 none. */
int history_txn_find_last(struct history *h, enum txn_kind k, struct txn_record *ret);
/* All changes of a transaction in seq order. */
int history_changes_load(struct history *h, int64_t txn, struct change_record **ret, size_t *ret_n);
/* Committed or pending apply transactions newer than txn that changed the
 * same (object, key) as any change of txn: 1 and the first such txn id in
 * *ret_id, 0 none. */
int history_txn_find_later_overlap(struct history *h, int64_t txn, int64_t *ret_id);
/* The newest such transaction (rollback_failed ones too: a stack is
 * unwound from the top). */
int history_txn_find_later_overlap_newest(struct history *h, int64_t txn, int64_t *ret_id);

/* The rollback transaction that undid target (the newest committed one):
 * 1 and its id in *ret_id, 0 none. */
int history_txn_find_rollback_of(struct history *h, int64_t target, int64_t *ret_id);

/* The transaction and its changes as a JSON document (the mirror payload,
 * also used by `history --json`). Caller frees. */
int history_txn_to_json(struct history *h, int64_t txn, char **ret);

/* Queue a record for the mirror: an outbox row in status 'pending'. Call
 * it inside the same history_begin()/history_end() as the record. */
int history_outbox_enqueue(struct history *h, const char *source_kind, int64_t source_id,
			   const char *payload);

#endif
