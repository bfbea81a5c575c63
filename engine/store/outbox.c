/* outbox.c: claiming, acknowledging and rescheduling outbox rows (see
 * outbox.h).
 *
 * Owns: the outbox table's state changes after a row was queued. Must
 * never: delete a row, send anything, log above debug. SQLite result codes
 * become -errno through history_errno() only. */
#define _GNU_SOURCE
#include "outbox.h"

#include <sqlite3.h>

#include "base/log.h"
#include "history.h"

#define ROW_COLUMNS                                                                                          \
	"id, source_kind, source_id, payload, status, attempts, next_attempt_usec, last_error, reply_id,"    \
	" reply_content, reply_usage, created_usec, sent_usec"

void outbox_row_done(struct outbox_row *r)
{
	if (!r)
		return;
	free(r->source_kind);
	free(r->payload);
	free(r->status);
	free(r->last_error);
	free(r->reply_id);
	free(r->reply_content);
	free(r->reply_usage);
	*r = (struct outbox_row){0};
}

void outbox_rows_free(struct outbox_row *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		outbox_row_done(&v[i]);
	free(v);
}

int64_t outbox_backoff_usec(int64_t attempts, int64_t retry_after_s)
{
	int64_t s = 2;

	for (int64_t i = 1; i < attempts && s < 3600; i++)
		s *= 2;
	if (s > 3600)
		s = 3600;
	if (retry_after_s > s)
		s = retry_after_s > 86400 ? 86400 : retry_after_s;
	return s * 1000000;
}

static int col_str(sqlite3_stmt *s, int col, char **ret)
{
	const unsigned char *v = sqlite3_column_text(s, col);

	*ret = NULL;
	if (!v)
		return 0;
	*ret = strdup((const char *)v);
	return *ret ? 0 : -ENOMEM;
}

static int row_from_stmt(sqlite3_stmt *s, struct outbox_row *ret)
{
	struct outbox_row r = {0};
	int q = 0;

	r.id = sqlite3_column_int64(s, 0);
	q = q ?: col_str(s, 1, &r.source_kind);
	r.source_id = sqlite3_column_int64(s, 2);
	q = q ?: col_str(s, 3, &r.payload);
	q = q ?: col_str(s, 4, &r.status);
	r.attempts = sqlite3_column_int64(s, 5);
	r.next_attempt_usec = sqlite3_column_int64(s, 6);
	q = q ?: col_str(s, 7, &r.last_error);
	q = q ?: col_str(s, 8, &r.reply_id);
	q = q ?: col_str(s, 9, &r.reply_content);
	q = q ?: col_str(s, 10, &r.reply_usage);
	r.created_usec = sqlite3_column_int64(s, 11);
	r.sent_usec = sqlite3_column_int64(s, 12);
	if (q < 0) {
		outbox_row_done(&r);
		return q;
	}
	*ret = r;
	return 0;
}

static int claim_in_txn(struct history *h, int64_t now, bool force, struct outbox_row *ret)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	struct outbox_row r;
	int q, rc;

	/* Head of line: without force only the oldest pending row may go, so
	 * its backoff holds back the whole queue (the gateway, not the row, is
	 * what failed) and records reach the mirror in order. */
	q = history_prepare(
	    history_db(h),
	    force ? "SELECT " ROW_COLUMNS " FROM outbox WHERE status = 'pending' AND NOT"
		    " (last_error IS '" OUTBOX_LEASE_MARK "' AND next_attempt_usec > ?1) ORDER BY id LIMIT 1"
		  : "SELECT " ROW_COLUMNS " FROM outbox WHERE status = 'pending' ORDER BY id LIMIT 1",
	    &s);
	if (q < 0)
		return q;
	if (force) {
		q = history_errno(sqlite3_bind_int64(s, 1, now));
		if (q < 0)
			return q;
	}
	rc = sqlite3_step(s);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return history_errno(rc);
	if (!force && sqlite3_column_int64(s, 6) > now)
		return 0;
	q = row_from_stmt(s, &r);
	if (q < 0)
		return q;
	q = history_exec(
	    h, "UPDATE outbox SET next_attempt_usec = ?, last_error = '" OUTBOX_LEASE_MARK "' WHERE id = ?",
	    "ii", now + OUTBOX_LEASE_USEC, r.id);
	if (q < 0) {
		outbox_row_done(&r);
		return q;
	}
	*ret = r;
	return 1;
}

int outbox_claim_next(struct history *h, int64_t now_usec, bool force, struct outbox_row *ret)
{
	struct outbox_row r = {0};
	int q;

	q = history_begin(h);
	if (q < 0)
		return q;
	q = history_end(h, claim_in_txn(h, now_usec, force, &r));
	if (q <= 0) {
		outbox_row_done(&r);
		return q;
	}
	*ret = r;
	return 1;
}

static int mark_sent_in_txn(struct history *h, const struct outbox_row *c, const char *reply_id,
			    const char *reply_content, const char *reply_usage, int64_t now)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	_cleanup_free_ char *current = NULL;
	int q, rc;

	q = history_prepare(history_db(h), "SELECT payload FROM outbox WHERE id = ? AND status = 'pending'",
			    &s);
	if (q < 0)
		return q;
	q = history_errno(sqlite3_bind_int64(s, 1, c->id));
	if (q < 0)
		return q;
	rc = sqlite3_step(s);
	if (rc == SQLITE_DONE)
		return -ESTALE;
	if (rc != SQLITE_ROW)
		return history_errno(rc);
	q = col_str(s, 0, &current);
	if (q < 0)
		return q;
	q = history_exec(h,
			 "UPDATE outbox SET status = 'sent', payload = ?, attempts = attempts + 1,"
			 " next_attempt_usec = 0, last_error = NULL, reply_id = ?, reply_content = ?,"
			 " reply_usage = ?, sent_usec = ? WHERE id = ? AND status = 'pending'",
			 "ssssii", c->payload, reply_id, reply_content, reply_usage, now, c->id);
	if (q < 0)
		return q;
	if (current && !streq(current, c->payload))
		return history_outbox_enqueue(h, c->source_kind, c->source_id, current);
	return 0;
}

int outbox_mark_sent(struct history *h, const struct outbox_row *claimed, const char *reply_id,
		     const char *reply_content, const char *reply_usage, int64_t now_usec)
{
	int q = history_begin(h);

	if (q < 0)
		return q;
	return history_end(h, mark_sent_in_txn(h, claimed, reply_id, reply_content, reply_usage, now_usec));
}

int outbox_mark_failed(struct history *h, int64_t id, const char *error, int64_t next_attempt_usec)
{
	int q = history_begin(h);

	if (q < 0)
		return q;
	return history_end(h, history_exec(h,
					   "UPDATE outbox SET attempts = attempts + 1, last_error = ?,"
					   " next_attempt_usec = ? WHERE id = ? AND status = 'pending'",
					   "sii", error, next_attempt_usec, id));
}

int outbox_mark_failed_permanent(struct history *h, int64_t id, const char *error)
{
	int q = history_begin(h);

	if (q < 0)
		return q;
	return history_end(
	    h, history_exec(h,
			    "UPDATE outbox SET status = 'failed_permanent', attempts = attempts + 1,"
			    " last_error = ?, next_attempt_usec = 0 WHERE id = ? AND status = 'pending'",
			    "si", error, id));
}

int outbox_requeue_failed(struct history *h, size_t *ret_n)
{
	int q = history_begin(h);

	if (q < 0)
		return q;
	q = history_exec(h,
			 "UPDATE outbox SET status = 'pending', next_attempt_usec = 0"
			 " WHERE status = 'failed_permanent'",
			 "");
	if (q >= 0 && ret_n)
		*ret_n = (size_t)sqlite3_changes(history_db(h));
	return history_end(h, q);
}

int outbox_list(struct history *h, bool pending_only, struct outbox_row **ret, size_t *ret_n)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	struct outbox_row *v = NULL;
	size_t n = 0;
	int q, rc;

	q = history_prepare(history_db(h),
			    pending_only ? "SELECT " ROW_COLUMNS
					   " FROM outbox WHERE status = 'pending' ORDER BY id"
					 : "SELECT " ROW_COLUMNS " FROM outbox ORDER BY id",
			    &s);
	if (q < 0)
		return q;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct outbox_row *nv = reallocarray(v, n + 1, sizeof(*v));

		if (!nv) {
			outbox_rows_free(v, n);
			return -ENOMEM;
		}
		v = nv;
		q = row_from_stmt(s, &v[n]);
		if (q < 0) {
			outbox_rows_free(v, n);
			return q;
		}
		n++;
	}
	if (rc != SQLITE_DONE) {
		outbox_rows_free(v, n);
		return history_errno(rc);
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

int outbox_next_attempt(struct history *h, int64_t *ret)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	int q, rc;

	q = history_prepare(
	    history_db(h),
	    "SELECT next_attempt_usec FROM outbox WHERE status = 'pending' ORDER BY id LIMIT 1", &s);
	if (q < 0)
		return q;
	rc = sqlite3_step(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return history_errno(rc);
	*ret = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
	return 0;
}

int outbox_count(struct history *h, size_t *ret_pending, size_t *ret_sent, size_t *ret_failed)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	size_t pending = 0, sent = 0, failed = 0;
	int q, rc;

	q = history_prepare(history_db(h), "SELECT status, COUNT(*) FROM outbox GROUP BY status", &s);
	if (q < 0)
		return q;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *st = (const char *)sqlite3_column_text(s, 0);
		size_t n = (size_t)sqlite3_column_int64(s, 1);

		if (streq_ptr(st, "pending"))
			pending = n;
		else if (streq_ptr(st, "sent"))
			sent = n;
		else if (streq_ptr(st, "failed_permanent"))
			failed = n;
	}
	if (rc != SQLITE_DONE)
		return history_errno(rc);
	if (ret_pending)
		*ret_pending = pending;
	if (ret_sent)
		*ret_sent = sent;
	if (ret_failed)
		*ret_failed = failed;
	return 0;
}

int outbox_find_source(struct history *h, const char *source_kind, int64_t source_id, struct outbox_row *ret)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	int q, rc;

	q = history_prepare(history_db(h),
			    "SELECT " ROW_COLUMNS
			    " FROM outbox WHERE source_kind = ? AND source_id = ? ORDER BY id DESC LIMIT 1",
			    &s);
	if (q < 0)
		return q;
	q = history_errno(sqlite3_bind_text(s, 1, source_kind, -1, SQLITE_TRANSIENT));
	if (q >= 0)
		q = history_errno(sqlite3_bind_int64(s, 2, source_id));
	if (q < 0)
		return q;
	rc = sqlite3_step(s);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return history_errno(rc);
	q = row_from_stmt(s, ret);
	return q < 0 ? q : 1;
}
