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

#include "base/util.h"

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

/* Campaigns left running by a cx5prof that died (kill -9) before
 * started_before_usec become interrupted: called with the apply lock held
 * (a live campaign holds it from start to finish), by the rollback that
 * resolves a dead round's transaction and by the next campaign. Each
 * gets a summary of what the history knows (name, file, runs, no groups)
 * and its outbox row, as campaigns_finish(). Returns how many. */
int campaigns_interrupt_stale(struct history *h, int64_t started_before_usec);

/* The summary document of campaign id (caller frees; NULL while it runs).
 * -ENOENT when there is no such campaign. */
int campaigns_get_summary(struct history *h, int64_t id, char **ret_summary);

/* A campaign as `history` lists it. */
struct campaign_record {
	int64_t id;
	char *name;
	char *file;
	char *status; /* campaign_status_to_string(); as stored */
	int64_t started_usec;
	int64_t ended_usec; /* 0 while running */
	int64_t runs;	    /* runs tagged with it */
	char *verdict;	    /* from the summary, or NULL */
};

/* The newest `limit` campaigns (0: all), newest first. */
int campaigns_list(struct history *h, size_t limit, struct campaign_record **ret, size_t *ret_n);
void campaign_records_free(struct campaign_record *v, size_t n);

#endif
