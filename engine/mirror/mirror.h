/* mirror.h: draining the outbox to TaoToken.
 *
 * Owns: finding the mirror configuration (a profile's mirror.taotoken, or
 * the mirror file: --config FILE, else $CX5PROF_MIRROR_CONFIG, else
 * /etc/cx5prof/mirror.yaml), and the drain loop: claim the oldest due row,
 * send it under the task name, store the reply, or keep it pending with its
 * error and the next attempt time (exponential backoff, never earlier than
 * Retry-After, for transient failures; one hour for failures the operator
 * must fix; never by itself after "insufficient_quota"). The drain stops at the first failure (the next rows
 * would meet the same key, quota or outage) and never runs past its time budget, except for a failure
 * that belongs to the row itself (mirror_row_permanent()): that row is set aside as 'failed_permanent'
 * and the drain goes on. A row another cx5prof already acknowledged (its claim expired while this one
 * was in flight) is skipped. Must never: fail or delay
 * apply/verify beyond the budget (the opportunistic drain swallows every error), log above debug, or keep the
 * key longer than one drain. */
#ifndef CX5_MIRROR_H
#define CX5_MIRROR_H

#include "base/util.h"
#include "taotoken.h"

struct history;
struct mirror_config;
struct profile_error;

#define MIRROR_CONFIG_ENV	       "CX5PROF_MIRROR_CONFIG"
#define MIRROR_MAX_TOKENS	       16 /* the record is the point, not the answer */
#define MIRROR_OPPORTUNISTIC_BUDGET_MS 3000
#define MIRROR_OPERATOR_WAIT_USEC      (3600 * 1000000LL) /* retry of a failure that needs the operator */
#define MIRROR_NEVER		       INT64_MAX	  /* only `cx5prof mirror --now` retries it */
#define MIRROR_MAX_ATTEMPTS	       10 /* a row the server keeps answering with an HTTP error */
#define MIRROR_CHOICES_ATTEMPTS	       3  /* a row the server answers 200 without choices, in a row */

/* Where the mirror config comes from: path_override (may be NULL), else
 * $CX5PROF_MIRROR_CONFIG, else MIRROR_CONFIG_DEFAULT_PATH. */
const char *mirror_config_path(const char *path_override);

/* Load the mirror file into *storage (free with mirror_config_done()) and
 * point *ret at it. Errors as mirror_config_load() (err filled). */
int mirror_config_resolve(const char *path, struct mirror_config *storage, struct taotoken_config *ret,
			  struct profile_error *err);

struct mirror_options {
	long budget_ms;		 /* the whole drain */
	long request_timeout_ms; /* one request (also capped by the budget left) */
	bool force;		 /* ignore the backoff schedule (operator fixed the cause) */
};

struct mirror_result {
	size_t sent;
	size_t pending; /* left after the drain */
	size_t failed;	/* 'failed_permanent' rows in the outbox after the drain */
	bool out_of_time;
	int64_t next_attempt_usec;   /* earliest scheduled retry among pending rows; 0 none */
	struct taotoken_error error; /* kind TT_OK when nothing failed */
};

/* Does this failure belong to the row (its content or size), so that the
 * row is set aside as 'failed_permanent' instead of blocking the queue?
 * attempts counts this one; for a 200 without choices it is the number of
 * such replies in a row (an error of another kind in between starts it
 * again). HTTP 400/413/422 at once; 200 without choices after
 * MIRROR_CHOICES_ATTEMPTS of them in a row; any other HTTP error reply after
 * MIRROR_MAX_ATTEMPTS. Never for errors of the key, the account or the
 * gateway (401, 403, 404, quota, 429, 5xx, timeouts, proxy, TLS, config):
 * they hit every row, which keep waiting. */
bool mirror_row_permanent(const struct taotoken_error *err, int64_t attempts);

/* After a failed taotoken_chat() (r < 0): when err was not filled (kind
 * TT_OK: out of memory before the request, ...), make it a local,
 * retryable error naming r, so a stale or empty err never decides. */
void mirror_local_error(int r, struct taotoken_error *err);

/* Drain due rows. Returns 0 when every attempted send succeeded (also when
 * nothing was due), else the failure's -errno with ret->error filled (a
 * config or key error before any network call included). Database errors
 * are returned as -errno with ret->error.kind TT_OK. */
int mirror_drain(struct history *h, const struct taotoken_config *cfg, const struct mirror_options *o,
		 struct mirror_result *ret);

/* After apply/verify/bench: send what is due within
 * MIRROR_OPPORTUNISTIC_BUDGET_MS when a mirror is configured (the
 * profile's section when given and present, else the mirror file); silent
 * when none is. Never fails: returns the number of rows sent. */
size_t mirror_opportunistic(struct history *h, const struct mirror_config *profile_mirror);

#endif
