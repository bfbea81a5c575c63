/* campaigns.c: campaigns in the history database (see campaigns.h).
 *
 * Owns: the campaigns table's rows (written, and listed for `history`) and
 * their outbox records. Must never:
 * talk to the network, or log above debug. */
#define _GNU_SOURCE
#include "campaigns.h"

#include <json-c/json.h>
#include <sqlite3.h>

#include "history.h"

static const char *const status_names[_CAMPAIGN_STATUS_MAX] = {
    [CAMPAIGN_RUNNING] = "running",
    [CAMPAIGN_DONE] = "done",
    [CAMPAIGN_INTERRUPTED] = "interrupted",
    [CAMPAIGN_FAILED] = "failed",
};

const char *campaign_status_to_string(enum campaign_status s)
{
	return s < _CAMPAIGN_STATUS_MAX ? status_names[s] : NULL;
}

int campaigns_start(struct history *h, const char *name, const char *file, int64_t *ret_id)
{
	int r;

	r = history_exec(h,
			 "INSERT INTO campaigns (name, file, status, started_usec) VALUES (?,?,'running',?)",
			 "ssi", name, file, history_now_usec());
	if (r < 0)
		return r;
	*ret_id = sqlite3_last_insert_rowid(history_db(h));
	return 0;
}

int campaigns_finish(struct history *h, int64_t id, enum campaign_status status, const char *summary_json)
{
	int r;

	r = history_begin(h);
	if (r < 0)
		return r;
	r = history_exec(h, "UPDATE campaigns SET status = ?, ended_usec = ?, summary = ? WHERE id = ?",
			 "sisi", campaign_status_to_string(status), history_now_usec(), summary_json, id);
	if (r >= 0)
		r = history_outbox_enqueue(h, "campaign", id, summary_json);
	return history_end(h, r);
}

/* The summary of a campaign that died before its end: what the history
 * knows of it (its runs are tagged with it), in the document's shape. */
static char *stale_summary(sqlite3_stmt *s)
{
	struct json_object *o = json_object_new_object();
	char *json;

	json_object_object_add(o, "campaign", json_object_new_int64(sqlite3_column_int64(s, 0)));
	json_object_object_add(o, "name", json_object_new_string((const char *)sqlite3_column_text(s, 1)));
	json_object_object_add(o, "file", json_object_new_string((const char *)sqlite3_column_text(s, 2)));
	json_object_object_add(o, "status", json_object_new_string("interrupted"));
	json_object_object_add(o, "runs", json_object_new_int64(sqlite3_column_int64(s, 3)));
	json_object_object_add(o, "groups", json_object_new_array());
	json_object_object_add(o, "verdict",
			       json_object_new_string("killed before its end: its rounds are the runs "
						      "tagged with it; no summary"));
	json = strdup(
	    json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return json;
}

int campaigns_interrupt_stale(struct history *h, int64_t started_before_usec)
{
	int n = 0;

	for (;;) {
		sqlite3_stmt *s = NULL;
		_cleanup_free_ char *summary = NULL;
		int64_t id;
		int rc, r;

		rc = sqlite3_prepare_v2(
		    history_db(h),
		    "SELECT id, name, file, (SELECT COUNT(*) FROM runs WHERE runs.campaign = "
		    "campaigns.id) FROM campaigns WHERE status = 'running' AND started_usec <= ? "
		    "ORDER BY id LIMIT 1",
		    -1, &s, NULL);
		if (rc != SQLITE_OK)
			return history_errno(rc);
		sqlite3_bind_int64(s, 1, started_before_usec);
		rc = sqlite3_step(s);
		if (rc != SQLITE_ROW) {
			sqlite3_finalize(s);
			return rc == SQLITE_DONE ? n : history_errno(rc);
		}
		id = sqlite3_column_int64(s, 0);
		summary = stale_summary(s);
		sqlite3_finalize(s);
		if (!summary)
			return -ENOMEM;
		r = campaigns_finish(h, id, CAMPAIGN_INTERRUPTED, summary);
		if (r < 0)
			return r;
		n++;
	}
}

static int col_dup(sqlite3_stmt *s, int col, char **ret)
{
	const unsigned char *v = sqlite3_column_text(s, col);

	*ret = v ? strdup((const char *)v) : NULL;
	return !v || *ret ? 0 : -ENOMEM;
}

/* The verdict of a summary document, or NULL. */
static int summary_verdict(const unsigned char *summary, char **ret)
{
	struct json_object *o = summary ? json_tokener_parse((const char *)summary) : NULL, *v;

	*ret = NULL;
	if (o && json_object_object_get_ex(o, "verdict", &v) && json_object_is_type(v, json_type_string))
		*ret = strdup(json_object_get_string(v));
	json_object_put(o);
	return 0;
}

int campaigns_get_summary(struct history *h, int64_t id, char **ret_summary)
{
	sqlite3_stmt *s = NULL;
	char *summary = NULL;
	int rc, r;

	rc = sqlite3_prepare_v2(history_db(h), "SELECT summary FROM campaigns WHERE id = ?", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return history_errno(rc);
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		r = col_dup(s, 0, &summary);
	else
		r = rc == SQLITE_DONE ? -ENOENT : history_errno(rc);
	sqlite3_finalize(s);
	if (r < 0)
		return r;
	*ret_summary = summary;
	return 0;
}

int campaigns_list(struct history *h, size_t limit, struct campaign_record **ret, size_t *ret_n)
{
	sqlite3_stmt *s = NULL;
	struct campaign_record *v = NULL;
	size_t n = 0;
	int rc, r = 0;

	rc = sqlite3_prepare_v2(
	    history_db(h),
	    "SELECT id, name, file, status, started_usec, coalesce(ended_usec, 0), summary,"
	    " (SELECT COUNT(*) FROM runs WHERE runs.campaign = campaigns.id)"
	    " FROM campaigns ORDER BY id DESC LIMIT ?",
	    -1, &s, NULL);
	if (rc != SQLITE_OK)
		return history_errno(rc);
	sqlite3_bind_int64(s, 1, limit ? (int64_t)limit : -1);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct campaign_record *a = reallocarray(v, n + 1, sizeof(*v)), *c;
		if (!a) {
			r = -ENOMEM;
			break;
		}
		v = a;
		c = &v[n++];
		*c = (struct campaign_record){.id = sqlite3_column_int64(s, 0),
					      .started_usec = sqlite3_column_int64(s, 4),
					      .ended_usec = sqlite3_column_int64(s, 5),
					      .runs = sqlite3_column_int64(s, 7)};
		r = col_dup(s, 1, &c->name);
		r = r ?: col_dup(s, 2, &c->file);
		r = r ?: col_dup(s, 3, &c->status);
		r = r ?: summary_verdict(sqlite3_column_text(s, 6), &c->verdict);
		if (r < 0)
			break;
	}
	if (r >= 0 && rc != SQLITE_DONE)
		r = history_errno(rc);
	sqlite3_finalize(s);
	if (r < 0) {
		campaign_records_free(v, n);
		return r;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

void campaign_records_free(struct campaign_record *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].file);
		free(v[i].status);
		free(v[i].verdict);
	}
	free(v);
}
