/* outbox.h: the mirror outbox: records waiting to be sent to TaoToken.
 *
 * Owns: reading and updating rows of the outbox table (schema in
 * history.h). Rows are added by the code that records a transaction or a
 * run, inside its own SQLite transaction (history_outbox_enqueue(), called
 * by history_txn_create() and runs_record()). Delivery rules:
 *  - rows go oldest first, and a row waiting for its retry holds back the
 *    rows behind it (the gateway failed, not the row);
 *  - a row is claimed before it is sent (a short lease written into
 *    next_attempt_usec, in one SQLite transaction), so two cx5prof
 *    processes never send the same row at the same time;
 *  - a row becomes 'sent' only with the server's reply stored, and only
 *    from 'pending': an acknowledged row is never sent again;
 *  - a failed send stays 'pending' with its error, attempts + 1 and the
 *    time of the next attempt (backoff); nothing is deleted;
 *  - a row the gateway refuses for itself (mirror.c decides: HTTP 400/413/
 *    422, ...) becomes 'failed_permanent' with its error: the drain skips
 *    it, so it no longer holds back the queue, until the operator requeues
 *    it (`cx5prof mirror --retry-failed`).
 * Must never: talk to the network, log above debug, store a key. */
#ifndef CX5_OUTBOX_H
#define CX5_OUTBOX_H

#include <stdbool.h>
#include <stdint.h>

#include "base/util.h"

struct history;

#define OUTBOX_LEASE_USEC (120 * 1000000LL) /* a claimed row is retried after this if the sender died */
#define OUTBOX_LEASE_MARK "sending"	    /* last_error of a claimed row */

struct outbox_row {
	int64_t id;
	char *source_kind; /* "txn" | "run" */
	int64_t source_id;
	char *payload; /* JSON text */
	char *status;  /* "pending" | "sent" | "failed_permanent" */
	int64_t attempts;
	int64_t next_attempt_usec;
	char *last_error;
	char *reply_id;
	char *reply_content;
	char *reply_usage;
	int64_t created_usec;
	int64_t sent_usec;
};

void outbox_row_done(struct outbox_row *r);
void outbox_rows_free(struct outbox_row *v, size_t n);

/* Claim the oldest pending row if it is due at now_usec (head of line:
 * while it waits for its retry, so does the queue); with force, the oldest
 * pending row not currently leased. 1 and *ret, 0 when nothing is due. */
int outbox_claim_next(struct history *h, int64_t now_usec, bool force, struct outbox_row *ret);

/* The claimed row was acknowledged: store the reply and mark it sent. If
 * the row's payload was refreshed while it was in flight (a transaction
 * changed status), the sent text is kept on this row and the new text
 * becomes a new pending row. -ESTALE when the row is no longer pending. */
int outbox_mark_sent(struct history *h, const struct outbox_row *claimed, const char *reply_id,
		     const char *reply_content, const char *reply_usage, int64_t now_usec);

/* The send failed: keep the row pending with the error; next attempt at
 * next_attempt_usec. */
int outbox_mark_failed(struct history *h, int64_t id, const char *error, int64_t next_attempt_usec);

/* The claimed row can never be sent as it is: 'failed_permanent' with the
 * error, attempts + 1; the drain skips it from now on. */
int outbox_mark_failed_permanent(struct history *h, int64_t id, const char *error);

/* Every 'failed_permanent' row back to 'pending', due now (attempts and
 * last error kept). *ret_n (may be NULL): how many. */
int outbox_requeue_failed(struct history *h, size_t *ret_n);

/* All rows, oldest first (pending_only: status 'pending' only). */
int outbox_list(struct history *h, bool pending_only, struct outbox_row **ret, size_t *ret_n);

/* The newest row for a record ("run", 7). 1 and *ret, 0 none. */
int outbox_find_source(struct history *h, const char *source_kind, int64_t source_id, struct outbox_row *ret);

/* When the queue may move again: the oldest pending row's next attempt
 * (0: now, or nothing pending). */
int outbox_next_attempt(struct history *h, int64_t *ret);

/* Number of rows by status (each pointer may be NULL). */
int outbox_count(struct history *h, size_t *ret_pending, size_t *ret_sent, size_t *ret_failed);

/* Delay before attempt number `attempts + 1`: 2 s doubling up to 1 h,
 * and never less than retry_after_s when the server sent Retry-After. */
int64_t outbox_backoff_usec(int64_t attempts, int64_t retry_after_s);

#endif
