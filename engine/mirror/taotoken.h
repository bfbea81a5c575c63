/* taotoken.h: the TaoToken (OpenAI-compatible LLM gateway) client.
 *
 * Owns: the mirror configuration check, reading the API key (file or
 * environment), the key fingerprint, the chat request body (json-c), one
 * HTTPS call with libcurl, the reply parser, and the translation of HTTP
 * statuses and CURLcodes into one error kind with an operator-searchable
 * message (the only place CURLcodes are interpreted).
 * Must never: put the key anywhere but the Authorization header (not in
 * messages, logs, argv, the database or JSON), disable TLS verification,
 * follow redirects (a redirect could carry the key elsewhere), or retry by
 * itself (the mirror decides, with backoff).
 *
 * Key file rule: exactly one trailing "\n" (or "\r\n") is stripped, since
 * `echo KEY > file` writes one; any other whitespace or control character
 * in the key is refused with a message (a classic cause of 401).
 * Plain http:// base URLs are accepted only for loopback hosts (127.0.0.0/8,
 * ::1, localhost: test servers, local gateways); anything else must be
 * https://. A loopback host is never reached through a proxy (the proxy
 * variables are ignored for it: a proxy would see a plain-http key). A custom CA comes from CURL_CA_BUNDLE or
 * SSL_CERT_FILE. */
#ifndef CX5_TAOTOKEN_H
#define CX5_TAOTOKEN_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/util.h"

struct mirror_config; /* profile.h */

#define TAOTOKEN_CHAT_PATH "/v1/chat/completions"
#define TAOTOKEN_MAX_REPLY (1024 * 1024) /* a longer reply body is an error */

/* Borrowed strings: the config does not own them. */
struct taotoken_config {
	const char *source; /* "/etc/cx5prof/mirror.yaml", "profile x.yaml": for messages */
	const char *base_url;
	const char *api_key_file;
	const char *api_key_env;
	const char *model_id;
	const char *task; /* default "cx5prof" */
	const char *note; /* may be NULL */
};

enum taotoken_error_kind {
	TT_OK,
	TT_CONFIG,	 /* configuration incomplete/invalid: no network call was made */
	TT_KEY,		 /* the key could not be read (mode, missing, whitespace) */
	TT_KEY_REJECTED, /* 401/403 */
	TT_NOT_FOUND,	 /* 404 */
	TT_QUOTA,	 /* 429 insufficient_quota: never retried automatically */
	TT_RATE_LIMITED, /* 429 rate limit: retried after Retry-After */
	TT_SERVER,	 /* 5xx */
	TT_TIMEOUT,
	TT_PROXY,   /* local proxy failed */
	TT_CONNECT, /* cannot resolve or connect to the base URL's host */
	TT_TLS,	    /* certificate verification or handshake failed */
	TT_CHOICES, /* 200 without choices, or a body that is not the expected JSON */
	TT_HTTP,    /* any other HTTP status or transfer error */
	_TT_KIND_MAX,
};

struct taotoken_error {
	enum taotoken_error_kind kind;
	bool retry;	       /* worth retrying later without operator action */
	int64_t retry_after_s; /* from Retry-After, -1 when absent */
	long http_status;      /* 0 when no HTTP reply */
	char message[1024];    /* one line: object + cause + remedy; never the key */
};

struct taotoken_reply {
	char *id;
	char *content;
	char *usage; /* the "usage" object as compact JSON, or NULL */
};

const char *taotoken_error_kind_to_string(enum taotoken_error_kind k);

/* Fill *ret from a profile's mirror.taotoken or mirror.yaml (borrowed
 * pointers; source names where it came from). */
void taotoken_config_from_mirror(const struct mirror_config *m, const char *source,
				 struct taotoken_config *ret);

/* Check the config before any network call: base_url, model_id and one key
 * source present, base_url http(s) and http only to loopback. -EINVAL with
 * err (kind TT_CONFIG) naming the missing or bad key. */
int taotoken_config_check(const struct taotoken_config *c, struct taotoken_error *err);

/* Read the key: from api_key_file (must be a regular file, not readable or
 * writable by group or others, like ssh refuses an unprotected private key)
 * or from the environment variable api_key_env. -EACCES/-ENOENT/-EINVAL with
 * err (kind TT_KEY). *ret_key is the key (caller frees, after wiping). */
int taotoken_key_load(const struct taotoken_config *c, char **ret_key, struct taotoken_error *err);

/* "sha256:1a2b3c4d": a SHA-256 prefix of the key, no character of the key
 * itself; enough to tell two keys apart. Caller frees. */
char *taotoken_key_fingerprint(const char *key);

/* Before a key is in memory: no core dumps (PR_SET_DUMPABLE 0, RLIMIT_CORE
 * 0), so a crash cannot write the key to disk. Called by
 * taotoken_key_load(); best effort, never fails. */
void taotoken_protect_process(void);

/* The server's error message for err->message: " (server: TEXT)", or ""
 * when there is none. Every place of the message that spells a piece of
 * the key (may be NULL) 4 or more letters and digits long, whatever the
 * case and the separators between them (keymask.h), is replaced by
 * "<key>" before TEXT is cut to 200 characters (never inside a mask); a
 * TEXT that still holds the key's characters in order is withheld whole
 * (" (server: message withheld: it spells the key)"); control characters
 * become spaces. NULL on out of memory. */
char *taotoken_server_detail(const char *server_msg, const char *key);

/* The request body: {"model", "max_tokens", "user": task, "messages":
 * [system, user]}. NULL on out of memory. */
struct json_object *taotoken_request_json(const struct taotoken_config *c, const char *system_prompt,
					  const char *user_content, unsigned max_tokens);

/* Parse one HTTP reply. status is the HTTP status, body/len the body (need
 * not be NUL-terminated), retry_after_s the Retry-After value in seconds
 * (-1 absent). 0 and *ret on a 2xx with choices[0].message.content;
 * otherwise -EPROTO (bad reply), -EACCES (401/403), -ENOENT (404),
 * -EAGAIN (retryable), -EDQUOT (quota) with err filled. Retry-After is
 * honoured for 429 and 503. Other 4xx than 408/409/429 are not retryable
 * (err->retry false): they are about this request, not the gateway. */
int taotoken_parse_reply(const struct taotoken_config *c, long status, const char *body, size_t len,
			 int64_t retry_after_s, struct taotoken_reply *ret, struct taotoken_error *err);

/* One call: POST {base_url}/v1/chat/completions. timeout_ms bounds the
 * whole transfer. Returns as taotoken_parse_reply(), or -ETIMEDOUT,
 * -ECONNREFUSED, -EHOSTUNREACH (proxy/connect), -EKEYREJECTED (TLS) ... with
 * err filled. */
int taotoken_chat(const struct taotoken_config *c, const char *key, const char *system_prompt,
		  const char *user_content, unsigned max_tokens, long timeout_ms, struct taotoken_reply *ret,
		  struct taotoken_error *err);

void taotoken_reply_done(struct taotoken_reply *r);

/* Overwrite and free a key. */
void taotoken_key_free(char *key);
static inline void taotoken_key_freep(char **k)
{
	taotoken_key_free(*k);
}
#define _cleanup_key_ _cleanup_(taotoken_key_freep)

#endif
