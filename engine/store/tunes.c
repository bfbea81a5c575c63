/* tunes.c: tune sessions in the history database (see tunes.h).
 *
 * Owns: the tunes table's rows and their outbox records. Must never: talk
 * to the network, or log above debug. */
#define _GNU_SOURCE
#include "tunes.h"

#include <sqlite3.h>

#include "history.h"

int tunes_start(struct history *h, const char *name, const char *profile, int64_t *ret_id)
{
	int r;

	r = history_exec(h,
			 "INSERT INTO tunes (name, profile, status, started_usec) VALUES (?,?,'running',?)",
			 "ssi", name, profile, history_now_usec());
	if (r < 0)
		return r;
	*ret_id = sqlite3_last_insert_rowid(history_db(h));
	return 0;
}

int tunes_tag_campaign(struct history *h, int64_t tune_id, int64_t campaign_id)
{
	return history_exec(h, "UPDATE campaigns SET tune = ? WHERE id = ?", "ii", tune_id, campaign_id);
}

int tunes_finish(struct history *h, int64_t id, enum campaign_status status, const char *summary_json)
{
	int r;

	r = history_begin(h);
	if (r < 0)
		return r;
	r = history_exec(h, "UPDATE tunes SET status = ?, ended_usec = ?, summary = ? WHERE id = ?", "sisi",
			 campaign_status_to_string(status), history_now_usec(), summary_json, id);
	if (r >= 0)
		r = history_outbox_enqueue(h, "tune", id, summary_json);
	return history_end(h, r);
}

int tunes_get_summary(struct history *h, int64_t id, char **ret_summary)
{
	sqlite3_stmt *s = NULL;
	const unsigned char *v;
	int rc;

	rc = sqlite3_prepare_v2(history_db(h), "SELECT summary FROM tunes WHERE id = ?", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return history_errno(rc);
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(s);
		return rc == SQLITE_DONE ? -ENOENT : history_errno(rc);
	}
	v = sqlite3_column_text(s, 0);
	*ret_summary = v ? strdup((const char *)v) : NULL;
	sqlite3_finalize(s);
	return !v || *ret_summary ? 0 : -ENOMEM;
}
