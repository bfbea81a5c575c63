/* mirror.c: the outbox drain (see mirror.h).
 *
 * Owns: the order of a drain (config check and key before any network
 * call; oldest row first; stop at the first failure; honour the budget)
 * the backoff decision, and which failures set a row aside as
 * failed_permanent. Must never: delete or resend an acknowledged
 * row (outbox.c enforces it), log the key, or log above debug. */
#define _GNU_SOURCE
#include "mirror.h"

#include <inttypes.h>

#include "base/log.h"
#include "profile.h"
#include "store/history.h"
#include "store/outbox.h"

/* Ends the error of a reply without choices (" [2 of 3 replies in a row
 * without choices]"), read back from the row's last_error. */
#define CHOICES_STREAK_FMT  " [%" PRId64 " of %d replies in a row without choices]"
#define CHOICES_STREAK_SCAN " [%" SCNd64 " of %d replies in a row without choices]%n"

const char *mirror_config_path(const char *path_override)
{
	const char *e = getenv(MIRROR_CONFIG_ENV);

	if (path_override && *path_override)
		return path_override;
	if (e && *e)
		return e;
	return MIRROR_CONFIG_DEFAULT_PATH;
}

int mirror_config_resolve(const char *path, struct mirror_config *storage, struct taotoken_config *ret,
			  struct profile_error *err)
{
	int r = mirror_config_load(path, storage, err);

	if (r < 0)
		return r;
	taotoken_config_from_mirror(storage, path, ret);
	return 0;
}

static char *system_prompt(const struct taotoken_config *c)
{
	return strprintf(
	    "cx5prof history record for task \"%s\"%s%s. Store it; reply with the single word OK.",
	    c->task && *c->task ? c->task : "cx5prof", c->note && *c->note ? ". Note: " : "",
	    c->note && *c->note ? c->note : "");
}

/* When to try a failed row again: transient failures back off
 * exponentially (never before Retry-After); failures that need the
 * operator (key, base_url, model_id, TLS) wait an hour; an exhausted quota
 * waits for `cx5prof mirror --now`. */
static int64_t next_attempt(const struct taotoken_error *err, int64_t attempts)
{
	if (err->kind == TT_QUOTA)
		return MIRROR_NEVER;
	if (!err->retry)
		return history_now_usec() + MIRROR_OPERATOR_WAIT_USEC;
	return history_now_usec() + outbox_backoff_usec(attempts, err->retry_after_s);
}

/* How many replies without choices this row has had in a row before this
 * one: the count send_one() wrote at the end of its last error, 0 when its
 * last failure was another one (or there was none). */
static int64_t choices_streak(const char *last_error)
{
	const char *p = last_error ? strrchr(last_error, '[') : NULL;
	int64_t n;
	int of, end = 0;

	if (!p || p == last_error || sscanf(p - 1, CHOICES_STREAK_SCAN, &n, &of, &end) != 2 ||
	    p[end - 1] != '\0' || n < 0)
		return 0;
	return n;
}

bool mirror_row_permanent(const struct taotoken_error *err, int64_t attempts)
{
	switch (err->kind) {
	case TT_HTTP:
		if (err->http_status == 400 || err->http_status == 413 || err->http_status == 422)
			return true;
		return err->http_status != 0 && attempts >= MIRROR_MAX_ATTEMPTS;
	case TT_CHOICES:
		return attempts >= MIRROR_CHOICES_ATTEMPTS;
	default:
		return false;
	}
}

void mirror_local_error(int r, struct taotoken_error *err)
{
	if (r >= 0 || err->kind != TT_OK)
		return;
	*err = (struct taotoken_error){
	    .kind = TT_HTTP,
	    .retry = true,
	    .retry_after_s = -1,
	};
	snprintf(err->message, sizeof(err->message),
		 "local error before the request was sent: %s: will retry", strerror(r < 0 ? -r : r));
}

enum send_outcome {
	SEND_OK,
	SEND_ALREADY_SENT, /* another cx5prof acknowledged it while ours was in flight */
	SEND_SET_ASIDE,	   /* the row failed for itself: failed_permanent */
};

static int send_one(struct history *h, const struct taotoken_config *cfg, const char *key,
		    const struct outbox_row *row, long timeout_ms, struct taotoken_error *err)
{
	_cleanup_free_ char *sys = system_prompt(cfg);
	_cleanup_free_ char *user =
	    strprintf("%s %" PRId64 ": %s", row->source_kind, row->source_id, row->payload);
	struct taotoken_reply rep = {0};
	int r, q;

	/* A fresh err: a failure that does not fill it must not inherit the
	 * previous row's kind and retry decision. */
	*err = (struct taotoken_error){.kind = TT_OK, .retry_after_s = -1};
	r = sys && user ? taotoken_chat(cfg, key, sys, user, MIRROR_MAX_TOKENS, timeout_ms, &rep, err)
			: -ENOMEM;
	if (r < 0) {
		int64_t count = row->attempts + 1;

		mirror_local_error(r, err);
		if (err->kind == TT_CHOICES) {
			/* Only replies without choices in a row count: a 500 or a
			 * 401 before says nothing about this row's content. */
			size_t n = strlen(err->message);

			/* a row set aside at the third, then requeued by
			 * --retry-failed, starts again at one */
			count = choices_streak(row->last_error) % MIRROR_CHOICES_ATTEMPTS + 1;
			snprintf(err->message + n, sizeof(err->message) - n, CHOICES_STREAK_FMT, count,
				 MIRROR_CHOICES_ATTEMPTS);
		} else if (err->kind == TT_KEY_REJECTED) {
			size_t n = strlen(err->message);

			snprintf(err->message + n, sizeof(err->message) - n,
				 ": once the key is fixed, 'cx5prof mirror --now' retries at once");
		}
		if (mirror_row_permanent(err, count)) {
			q = outbox_mark_failed_permanent(h, row->id, err->message);
			return q < 0 ? q : SEND_SET_ASIDE;
		}
		q = outbox_mark_failed(h, row->id, err->message, next_attempt(err, row->attempts + 1));
		return q < 0 ? q : r;
	}
	q = outbox_mark_sent(h, row, rep.id, rep.content, rep.usage, history_now_usec());
	taotoken_reply_done(&rep);
	if (q == -ESTALE) {
		/* Our claim expired while the request was in flight and another
		 * process sent and acknowledged the row: it is delivered. */
		log_debug("mirror: outbox row %" PRId64 " was already sent by another process", row->id);
		return SEND_ALREADY_SENT;
	}
	return q < 0 ? q : SEND_OK;
}

int mirror_drain(struct history *h, const struct taotoken_config *cfg, const struct mirror_options *o,
		 struct mirror_result *ret)
{
	_cleanup_key_ char *key = NULL;
	struct mirror_result res = {.error.kind = TT_OK, .error.retry_after_s = -1};
	struct taotoken_error set_aside = {.kind = TT_OK};
	uint64_t deadline = now_usec() + (uint64_t)o->budget_ms * 1000;
	int r = 0, q, set_aside_r = 0;

	r = taotoken_config_check(cfg, &res.error);
	if (r >= 0)
		r = taotoken_key_load(cfg, &key, &res.error);
	while (r >= 0) {
		struct outbox_row row = {0};
		uint64_t now = now_usec();
		long left_ms = now < deadline ? (long)((deadline - now) / 1000) : 0;

		if (left_ms < 100) {
			res.out_of_time = true;
			break;
		}
		q = outbox_claim_next(h, history_now_usec(), o->force, &row);
		if (q <= 0) {
			r = q;
			break;
		}
		r = send_one(h, cfg, key, &row,
			     left_ms < o->request_timeout_ms ? left_ms : o->request_timeout_ms, &res.error);
		if (r == SEND_OK)
			res.sent++;
		else if (r == SEND_SET_ASIDE && set_aside.kind == TT_OK) {
			/* reported once the drain is over; the next row goes on */
			set_aside = res.error;
			snprintf(set_aside.message, sizeof(set_aside.message),
				 "%s %" PRId64 " (outbox row %" PRId64
				 ") set aside as failed_permanent: %.800s: fix the cause, then run "
				 "'cx5prof mirror --retry-failed'",
				 row.source_kind, row.source_id, row.id, res.error.message);
			set_aside_r = set_aside.http_status ? -EPROTO : -EBADMSG;
		}
		outbox_row_done(&row);
		if (r > 0) {
			res.error = (struct taotoken_error){.kind = TT_OK, .retry_after_s = -1};
			r = 0;
		}
	}
	if (r >= 0 && set_aside.kind != TT_OK) {
		res.error = set_aside;
		r = set_aside_r;
	}
	q = outbox_count(h, &res.pending, NULL, &res.failed);
	if (q >= 0)
		q = outbox_next_attempt(h, &res.next_attempt_usec);
	if (r >= 0 && q < 0)
		r = q;
	*ret = res;
	return r;
}

size_t mirror_opportunistic(struct history *h, const struct mirror_config *profile_mirror)
{
	struct mirror_options o = {.budget_ms = MIRROR_OPPORTUNISTIC_BUDGET_MS, .request_timeout_ms = 2000};
	struct mirror_config storage = {0};
	struct profile_error perr = {0};
	struct taotoken_config cfg;
	struct mirror_result res;
	size_t pending = 0;
	int r;

	if (!h || outbox_count(h, &pending, NULL, NULL) < 0 || pending == 0)
		return 0;
	if (profile_mirror && profile_mirror->present)
		taotoken_config_from_mirror(profile_mirror, "profile mirror.taotoken", &cfg);
	else {
		const char *path = mirror_config_path(NULL);

		if (access(path, F_OK) < 0)
			return 0; /* no mirror configured */
		if (mirror_config_resolve(path, &storage, &cfg, &perr) < 0) {
			log_debug("mirror: %s: %s", path, perr.message);
			return 0;
		}
	}
	r = mirror_drain(h, &cfg, &o, &res);
	if (r < 0)
		log_debug("mirror: %zu sent, %zu pending: %s", res.sent, res.pending, res.error.message);
	mirror_config_done(&storage);
	return r < 0 && res.sent == 0 ? 0 : res.sent;
}
