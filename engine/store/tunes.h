/* tunes.h: `cx5prof tune` sessions in the history database.
 *
 * Owns: the rows of the tunes table (schema v7, history.h): one per
 * session, started before its first round and finished with its summary
 * (schemas/tune.schema.json), queued for the mirror in the same SQLite
 * transaction; and the tag that puts a candidate's campaign in its
 * session. The rounds are runs of those campaigns. Must never: talk to the
 * network or store anything but the summary a caller gives. */
#ifndef CX5_TUNES_H
#define CX5_TUNES_H

#include "base/util.h"
#include "campaigns.h"

struct history;

/* A new session row, status running. */
int tunes_start(struct history *h, const char *name, const char *profile, int64_t *ret_id);
/* Campaign campaign_id is a step of session tune_id. */
int tunes_tag_campaign(struct history *h, int64_t tune_id, int64_t campaign_id);
/* Its end: status, ended_usec, the summary JSON, and its outbox row. */
int tunes_finish(struct history *h, int64_t id, enum campaign_status status, const char *summary_json);
/* The summary of session id (caller frees; NULL while it runs); -ENOENT. */
int tunes_get_summary(struct history *h, int64_t id, char **ret_summary);

#endif
