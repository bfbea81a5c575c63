/* campaigns.c: campaigns in the history database (see campaigns.h).
 *
 * Owns: the campaigns table's rows and their outbox records. Must never:
 * talk to the network, or log above debug. */
#define _GNU_SOURCE
#include "campaigns.h"

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

	r = history_exec(h, "INSERT INTO campaigns (name, file, status, started_usec) VALUES (?,?,'running',?)",
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
	r = history_exec(h, "UPDATE campaigns SET status = ?, ended_usec = ?, summary = ? WHERE id = ?", "sisi",
			 campaign_status_to_string(status), history_now_usec(), summary_json, id);
	if (r >= 0)
		r = history_outbox_enqueue(h, "campaign", id, summary_json);
	return history_end(h, r);
}
