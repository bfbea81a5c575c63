/* campaigns.h: campaigns in the history database.
 *
 * Owns: the rows of the campaigns table (schema v3, history.h): one per
 * `cx5prof campaign`, started before its first round and finished with its
 * summary (the campaign.json document, schemas/campaign.schema.json), which
 * is queued for the mirror in the same SQLite transaction, like runs and
 * transactions. The rounds are runs (runs.h) whose campaign column names
 * it. Must never: talk to the network or store anything but the summary a
 * caller gives. */
#ifndef CX5_CAMPAIGNS_H
#define CX5_CAMPAIGNS_H

#include "util.h"

struct history;

enum campaign_status {
	CAMPAIGN_RUNNING,     /* started; a kill -9 leaves it so */
	CAMPAIGN_DONE,	      /* every round ran (or its group was skipped) */
	CAMPAIGN_INTERRUPTED, /* SIGINT/SIGTERM: stopped and rolled back */
	CAMPAIGN_FAILED,      /* stopped by an error */
	_CAMPAIGN_STATUS_MAX,
};
const char *campaign_status_to_string(enum campaign_status s);

/* A new campaign row, status running. */
int campaigns_start(struct history *h, const char *name, const char *file, int64_t *ret_id);
/* Its end: status, ended_usec, the summary JSON, and its outbox row. */
int campaigns_finish(struct history *h, int64_t id, enum campaign_status status, const char *summary_json);

#endif
