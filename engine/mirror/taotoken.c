/* taotoken.c: the TaoToken client: config check, key, request, reply
 * parser and the one CURLcode/HTTP-status translation (see taotoken.h).
 *
 * Owns: every libcurl call of cx5prof. Must never: log the key or put it
 * in an error message, turn TLS verification off, follow redirects, or log
 * above debug (the verb layer reports err->message once). */
#define _GNU_SOURCE
#include "taotoken.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <inttypes.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "base/keymask.h"
#include "base/log.h"
#include "base/sha256.h"
#include "base/version.h"
#include "curl_dl.h"
#include "profile.h"

#define KEY_FILE_MAX 4096

/* Only http and https, also with a libcurl older than 7.85 (EL 9 has
 * 7.76), which knows no CURLOPT_PROTOCOLS_STR: then its bitmask
 * CURLOPT_PROTOCOLS (deprecated since 7.85, the same effect). Both by
 * number, so that neither older headers (no _STR) nor newer ones (the
 * deprecation) decide what builds: the libcurl loaded at run time does. */
#define OPT_PROTOCOLS_STR ((CURLoption)(CURLOPTTYPE_STRINGPOINT + 318))
#define OPT_PROTOCOLS	  ((CURLoption)(CURLOPTTYPE_LONG + 181))
#define PROTO_HTTP_HTTPS  (1L | 2L) /* CURLPROTO_HTTP | CURLPROTO_HTTPS */

static const char *const kind_names[_TT_KIND_MAX] = {
    [TT_OK] = "ok",
    [TT_CONFIG] = "config",
    [TT_KEY] = "key",
    [TT_KEY_REJECTED] = "key-rejected",
    [TT_NOT_FOUND] = "not-found",
    [TT_QUOTA] = "quota",
    [TT_RATE_LIMITED] = "rate-limited",
    [TT_SERVER] = "server",
    [TT_TIMEOUT] = "timeout",
    [TT_PROXY] = "proxy",
    [TT_CONNECT] = "connect",
    [TT_TLS] = "tls",
    [TT_CHOICES] = "choices",
    [TT_HTTP] = "http",
};

const char *taotoken_error_kind_to_string(enum taotoken_error_kind k)
{
	return k < _TT_KIND_MAX ? kind_names[k] : NULL;
}

static int fail(struct taotoken_error *err, int r, enum taotoken_error_kind kind, bool retry, long status,
		const char *fmt, ...) _printf_(6, 7);
static int fail(struct taotoken_error *err, int r, enum taotoken_error_kind kind, bool retry, long status,
		const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->kind = kind;
		err->retry = retry;
		err->http_status = status;
		if (kind != TT_RATE_LIMITED)
			err->retry_after_s = -1;
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
	}
	/* Not logged here: a server's message may echo the key; taotoken_chat()
	 * logs it once it is masked. */
	return r;
}

static const char *str_or_null(const struct profile_string *s)
{
	return s->set ? s->value : NULL;
}

void taotoken_config_from_mirror(const struct mirror_config *m, const char *source,
				 struct taotoken_config *ret)
{
	*ret = (struct taotoken_config){
	    .source = source,
	    .base_url = str_or_null(&m->base_url),
	    .api_key_file = str_or_null(&m->api_key_file),
	    .api_key_env = str_or_null(&m->api_key_env),
	    .model_id = str_or_null(&m->model_id),
	    .task = str_or_null(&m->task),
	    .note = str_or_null(&m->note),
	};
}

static bool empty(const char *s)
{
	return !s || !*s;
}

/* libcurl's functions, loaded on first use (curl_dl.h). */
static const struct curl_api *cu;

static int curl_ready(void)
{
	return cu ? 0 : curl_dl_load(&cu);
}

/* Host of a URL through libcurl's own parser, so we judge the URL exactly
 * as libcurl will use it. */
static int url_parts(const char *url, char **ret_scheme, char **ret_host)
{
	char *scheme = NULL, *host = NULL;
	CURLU *u;
	int r = curl_ready();

	if (r < 0)
		return r;
	u = cu->url();
	if (!u)
		return -ENOMEM;
	if (cu->url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    cu->url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    cu->url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK)
		r = -EINVAL;
	cu->url_cleanup(u);
	if (r < 0) {
		cu->free(scheme);
		cu->free(host);
		return r;
	}
	*ret_scheme = strdup(scheme);
	*ret_host = strdup(host);
	cu->free(scheme);
	cu->free(host);
	if (!*ret_scheme || !*ret_host) {
		free(*ret_scheme);
		free(*ret_host);
		return -ENOMEM;
	}
	return 0;
}

static bool host_is_loopback(const char *host)
{
	struct in_addr a;

	if (streq(host, "localhost") || streq(host, "[::1]"))
		return true;
	/* a real dotted quad in 127.0.0.0/8, not "127.0.0.1.example.com" */
	return inet_pton(AF_INET, host, &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

/* When base_url ends with "/v1" (or "/v1/"): the length of what comes
 * before it, else 0. */
static int base_url_v1_end(const char *url)
{
	size_t n = strlen(url);

	while (n > 0 && url[n - 1] == '/')
		n--;
	if (n >= 3 && memcmp(url + n - 3, "/v1", 3) == 0)
		return (int)(n - 3);
	return 0;
}

int taotoken_config_check(const struct taotoken_config *c, struct taotoken_error *err)
{
	_cleanup_free_ char *scheme = NULL, *host = NULL;
	const char *src = c->source ? c->source : "mirror config";
	int r;

	if (empty(c->base_url))
		return fail(err, -EINVAL, TT_CONFIG, false, 0,
			    "%s: base_url is missing (e.g. base_url: https://taotoken.net/api)", src);
	if (empty(c->api_key_file) && empty(c->api_key_env))
		return fail(err, -EINVAL, TT_CONFIG, false, 0, "%s: api_key_file or api_key_env is missing",
			    src);
	if (empty(c->model_id))
		return fail(err, -EINVAL, TT_CONFIG, false, 0, "%s: model_id is missing", src);
	r = url_parts(c->base_url, &scheme, &host);
	if (r == -ENOPKG)
		return fail(err, r, TT_CONFIG, false, 0,
			    "libcurl cannot be loaded (libcurl.so.4): install the libcurl4 package to use "
			    "the mirror");
	if (r < 0)
		return fail(err, -EINVAL, TT_CONFIG, false, 0, "%s: base_url '%s' is not a valid URL", src,
			    c->base_url);
	r = base_url_v1_end(c->base_url);
	if (r > 0)
		return fail(err, -EINVAL, TT_CONFIG, false, 0,
			    "%s: base_url '%s' ends with /v1, which cx5prof adds itself (" TAOTOKEN_CHAT_PATH
			    "): use base_url: %.*s",
			    src, c->base_url, r, c->base_url);
	if (streq(scheme, "https"))
		return 0;
	if (streq(scheme, "http")) {
		if (host_is_loopback(host))
			return 0;
		return fail(
		    err, -EINVAL, TT_CONFIG, false, 0,
		    "%s: base_url '%s': plain http is accepted only for a loopback host (the key would "
		    "cross the network in clear text): use https://",
		    src, c->base_url);
	}
	return fail(err, -EINVAL, TT_CONFIG, false, 0,
		    "%s: base_url '%s': scheme must be https:// (or http:// to a loopback host)", src,
		    c->base_url);
}

void taotoken_key_free(char *key)
{
	if (!key)
		return;
	explicit_bzero(key, strlen(key));
	free(key);
}

/* Accept exactly one trailing newline; refuse any other whitespace or
 * control character (the key would be sent verbatim and rejected). */
static int key_check(char *key, const char *from, struct taotoken_error *err)
{
	size_t n = strlen(key);

	if (n > 0 && key[n - 1] == '\n')
		key[--n] = '\0';
	if (n > 0 && key[n - 1] == '\r')
		key[--n] = '\0';
	if (n == 0)
		return fail(err, -EINVAL, TT_KEY, false, 0, "%s: the key is empty", from);
	for (size_t i = 0; i < n; i++)
		if (isspace((unsigned char)key[i]) || iscntrl((unsigned char)key[i]))
			return fail(
			    err, -EINVAL, TT_KEY, false, 0,
			    "%s: the key contains whitespace or a control character at byte %zu (only one "
			    "trailing newline is ignored): remove it",
			    from, i + 1);
	return 0;
}

void taotoken_protect_process(void)
{
	struct rlimit nocore = {0, 0};

	/* No core dump and no ptrace by other processes of the same user once
	 * the key is in memory: a core file would hold it. Best effort. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		log_debug("taotoken: prctl(PR_SET_DUMPABLE, 0): %m");
	if (setrlimit(RLIMIT_CORE, &nocore) < 0)
		log_debug("taotoken: setrlimit(RLIMIT_CORE, 0): %m");
}

int taotoken_key_load(const struct taotoken_config *c, char **ret_key, struct taotoken_error *err)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	char *key;
	ssize_t n;
	int r;

	taotoken_protect_process();
	if (empty(c->api_key_file)) {
		_cleanup_free_ char *from =
		    strprintf("environment variable %s (api_key_env)", strna(c->api_key_env));
		const char *v = c->api_key_env ? getenv(c->api_key_env) : NULL;

		if (!from)
			return -ENOMEM;
		if (empty(v))
			return fail(err, -ENOENT, TT_KEY, false, 0, "%s is not set or empty", from);
		key = strdup(v);
		if (!key)
			return -ENOMEM;
		r = key_check(key, from, err);
		if (r < 0) {
			taotoken_key_free(key);
			return r;
		}
		*ret_key = key;
		return 0;
	}

	fd = open(c->api_key_file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
	if (fd < 0) {
		r = -errno;
		return fail(err, r, TT_KEY, false, 0, "key file %s (api_key_file): %s", c->api_key_file,
			    strerror(-r));
	}
	if (fstat(fd, &st) < 0)
		return fail(err, -errno, TT_KEY, false, 0, "key file %s: %m", c->api_key_file);
	if (!S_ISREG(st.st_mode))
		return fail(err, -EINVAL, TT_KEY, false, 0, "key file %s is not a regular file",
			    c->api_key_file);
	if (st.st_mode & 077)
		return fail(
		    err, -EACCES, TT_KEY, false, 0,
		    "key file %s is accessible by group or others (mode %04o): refusing it, as ssh does; "
		    "run: chmod 600 %s",
		    c->api_key_file, (unsigned)(st.st_mode & 07777), c->api_key_file);
	key = calloc(1, KEY_FILE_MAX + 1);
	if (!key)
		return -ENOMEM;
	n = read(fd, key, KEY_FILE_MAX + 1);
	if (n < 0 || n > KEY_FILE_MAX) {
		r = n < 0 ? -errno : -EFBIG;
		taotoken_key_free(key);
		return fail(err, r, TT_KEY, false, 0, "key file %s: %s", c->api_key_file,
			    r == -EFBIG ? "larger than 4096 bytes: not a key" : strerror(-r));
	}
	if (memchr(key, '\0', (size_t)n)) {
		taotoken_key_free(key);
		return fail(err, -EINVAL, TT_KEY, false, 0, "key file %s contains a NUL byte",
			    c->api_key_file);
	}
	_cleanup_free_ char *from = strprintf("key file %s", c->api_key_file);
	if (!from) {
		taotoken_key_free(key);
		return -ENOMEM;
	}
	r = key_check(key, from, err);
	if (r < 0) {
		taotoken_key_free(key);
		return r;
	}
	*ret_key = key;
	return 0;
}

char *taotoken_key_fingerprint(const char *key)
{
	char hex[SHA256_HEX_LEN + 1];

	/* Only a digest prefix: no character of the key itself. */
	sha256_hex(key, strlen(key), hex);
	return strprintf("sha256:%.8s", hex);
}

struct json_object *taotoken_request_json(const struct taotoken_config *c, const char *system_prompt,
					  const char *user_content, unsigned max_tokens)
{
	struct json_object *o = json_object_new_object(), *msgs = json_object_new_array();
	struct json_object *sys = json_object_new_object(), *usr = json_object_new_object();

	if (!o || !msgs || !sys || !usr) {
		json_object_put(o);
		json_object_put(msgs);
		json_object_put(sys);
		json_object_put(usr);
		return NULL;
	}
	json_object_object_add(o, "model", json_object_new_string(c->model_id));
	json_object_object_add(o, "max_tokens", json_object_new_int((int)max_tokens));
	/* The task name is the OpenAI "user" tag: it shows in the key's usage log. */
	json_object_object_add(o, "user", json_object_new_string(empty(c->task) ? "cx5prof" : c->task));
	json_object_object_add(sys, "role", json_object_new_string("system"));
	json_object_object_add(sys, "content", json_object_new_string(system_prompt));
	json_object_object_add(usr, "role", json_object_new_string("user"));
	json_object_object_add(usr, "content", json_object_new_string(user_content));
	json_object_array_add(msgs, sys);
	json_object_array_add(msgs, usr);
	json_object_object_add(o, "messages", msgs);
	return o;
}

void taotoken_reply_done(struct taotoken_reply *r)
{
	free(r->id);
	free(r->content);
	free(r->usage);
	*r = (struct taotoken_reply){0};
}

/* {"error":{"message","type","code"}}: code may be a string, a number or null. */
static void error_fields(struct json_object *root, const char **ret_msg, const char **ret_type,
			 const char **ret_code)
{
	struct json_object *e, *v;

	*ret_msg = *ret_type = *ret_code = NULL;
	if (!root || !json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "error", &e))
		return;
	if (json_object_is_type(e, json_type_string)) {
		*ret_msg = json_object_get_string(e);
		return;
	}
	if (!json_object_is_type(e, json_type_object))
		return;
	if (json_object_object_get_ex(e, "message", &v) && json_object_is_type(v, json_type_string))
		*ret_msg = json_object_get_string(v);
	if (json_object_object_get_ex(e, "type", &v) && json_object_is_type(v, json_type_string))
		*ret_type = json_object_get_string(v);
	if (json_object_object_get_ex(e, "code", &v) && json_object_is_type(v, json_type_string))
		*ret_code = json_object_get_string(v);
}

static struct json_object *parse_body(const char *body, size_t len)
{
	struct json_tokener *tok;
	struct json_object *o;

	if (!body || len == 0 || len > TAOTOKEN_MAX_REPLY || len > INT32_MAX)
		return NULL;
	tok = json_tokener_new();
	if (!tok)
		return NULL;
	o = json_tokener_parse_ex(tok, body, (int)len);
	if (o && tok->char_offset < (int)len) {
		/* trailing garbage after the document (whitespace is fine) */
		for (size_t i = (size_t)tok->char_offset; i < len; i++)
			if (!isspace((unsigned char)body[i])) {
				json_object_put(o);
				o = NULL;
				break;
			}
	}
	if (json_tokener_get_error(tok) != json_tokener_success && o) {
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	return o;
}

/* A piece of the key this long (letters and digits), anywhere in a text,
 * is masked: in the server's text from 4 characters (it may echo the key
 * in any pieces), in our own messages from 8 (a defence in depth: they
 * hold no key, but the curl error buffer quotes what it was given). */
#define KEY_PIECE_MIN_SERVER 4
#define KEY_PIECE_MIN_OURS   8

/* Mask the key in a text of the server's answer, in place (*s is
 * replaced); a text that still spells the key's characters in order
 * (within span_factor times the key's length, 0: anywhere) is replaced
 * whole. -ENOMEM loses the text rather than keep the key. */
static int scrub_str(char **s, const char *key, size_t span_factor)
{
	char *m;

	if (!*s || !key)
		return 0;
	m = keymask_dup(*s, key, KEY_PIECE_MIN_SERVER);
	if (m && keymask_in_order(m, key, span_factor * strlen(key))) {
		free(m);
		m = strdup("<withheld: it spells the key>");
	}
	free(*s);
	*s = m;
	return m ? 0 : -ENOMEM;
}

/* Mask the key in one of our own messages (keymask_dup). */
static void scrub(char *msg, size_t size, const char *key)
{
	_cleanup_free_ char *s = keymask_dup(msg, key, KEY_PIECE_MIN_OURS);

	if (s)
		snprintf(msg, size, "%s", s);
	else /* out of memory: lose the message rather than risk the key */
		snprintf(msg, size, "(message withheld: out of memory while masking the key)");
}

#define DETAIL_MAX 200 /* characters of the server's message kept */

char *taotoken_server_detail(const char *server_msg, const char *key)
{
	_cleanup_free_ char *m = NULL;
	size_t len;
	char *d;

	if (empty(server_msg))
		return strdup("");
	/* The key first, then the cut: a cut never leaves a piece, and
	 * never cuts a mask in two. */
	m = keymask_dup(server_msg, key, KEY_PIECE_MIN_SERVER);
	if (!m)
		return NULL;
	len = strlen(m);
	if (len > DETAIL_MAX) {
		const char *mask = strstr(m + (DETAIL_MAX > 4 ? DETAIL_MAX - 4 : 0), KEYMASK);

		m[mask && mask < m + DETAIL_MAX ? (size_t)(mask - m) : DETAIL_MAX] = '\0';
	}
	/* Pieces too short to mask, or the key's characters spread between
	 * others: the text spells the key all the same, so none of it is kept. */
	if (keymask_in_order(m, key, 0))
		return strdup(" (server: message withheld: it spells the key)");
	d = strprintf(" (server: %s)", m);
	/* On one line: control characters (newlines, terminal escapes) become
	 * spaces before they reach a log or the history. */
	for (char *p = d; p && *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
	return d;
}

static int parse_reply(const struct taotoken_config *c, const char *key, long status, const char *body,
		       size_t len, int64_t retry_after_s, struct taotoken_reply *ret,
		       struct taotoken_error *err);

int taotoken_parse_reply(const struct taotoken_config *c, long status, const char *body, size_t len,
			 int64_t retry_after_s, struct taotoken_reply *ret, struct taotoken_error *err)
{
	return parse_reply(c, NULL, status, body, len, retry_after_s, ret, err);
}

/* Is an HTTP status worth retrying? 4xx are about this request (its body,
 * size or content) except timeout, conflict and rate limit. */
static bool status_retryable(long status)
{
	if (status >= 400 && status <= 499)
		return status == 408 || status == 409 || status == 429;
	return true;
}

/* The token counts of a reply's usage object, rebuilt from its integers
 * alone ({"prompt_tokens":50,...}): no text of the server's is kept. NULL
 * when it has none (or out of memory). */
static char *usage_counts(struct json_object *usage)
{
	static const char *const names[] = {"prompt_tokens", "completion_tokens", "total_tokens"};
	struct json_object *o, *v;
	char *s = NULL;

	if (!json_object_is_type(usage, json_type_object))
		return NULL;
	o = json_object_new_object();
	for (size_t i = 0; o && i < ARRAY_SIZE(names); i++)
		if (json_object_object_get_ex(usage, names[i], &v) && json_object_is_type(v, json_type_int))
			json_object_object_add(o, names[i], json_object_new_int64(json_object_get_int64(v)));
	if (o && json_object_object_length(o) > 0)
		s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return s;
}

static int parse_reply(const struct taotoken_config *c, const char *key, long status, const char *body,
		       size_t len, int64_t retry_after_s, struct taotoken_reply *ret,
		       struct taotoken_error *err)
{
	struct json_object *root = parse_body(body, len);
	const char *msg, *type, *code;
	_cleanup_free_ char *d = NULL;
	int r;

	if (err)
		err->retry_after_s = -1;
	error_fields(root, &msg, &type, &code);
	d = taotoken_server_detail(msg, key);
	if (!d) {
		json_object_put(root);
		return -ENOMEM;
	}

	if (status == 401 || status == 403)
		r = fail(err, -EACCES, TT_KEY_REJECTED, false, status,
			 "key rejected (HTTP %ld) by %s: expired or revoked? stray whitespace or newline in "
			 "the key "
			 "file?%s",
			 status, c->base_url, d);
	else if (status == 404)
		r = fail(err, -ENOENT, TT_NOT_FOUND, false, status,
			 "HTTP 404 from %s" TAOTOKEN_CHAT_PATH ": check base_url (it ends before /v1, e.g. "
			 "https://taotoken.net/api) and model_id '%s'%s",
			 c->base_url, c->model_id, d);
	else if (status == 429 &&
		 (streq_ptr(type, "insufficient_quota") || streq_ptr(code, "insufficient_quota")))
		r = fail(
		    err, -EDQUOT, TT_QUOTA, false, status,
		    "quota exhausted (HTTP 429 insufficient_quota) for this key: not retrying; add credit or "
		    "use another key, then run 'cx5prof mirror --now'%s",
		    d);
	else if (status == 429) {
		if (err)
			err->retry_after_s = retry_after_s;
		if (retry_after_s >= 0)
			r = fail(err, -EAGAIN, TT_RATE_LIMITED, true, status,
				 "rate limited (HTTP 429): will retry after %" PRId64 " s (Retry-After)%s",
				 retry_after_s, d);
		else
			r = fail(err, -EAGAIN, TT_RATE_LIMITED, true, status,
				 "rate limited (HTTP 429): will retry%s", d);
	} else if (status == 503 && retry_after_s >= 0) {
		/* Retry-After is the standard answer of an overloaded server too. */
		r = fail(err, -EAGAIN, TT_SERVER, true, status,
			 "server error (HTTP %ld) from %s: will retry after %" PRId64 " s (Retry-After)%s",
			 status, c->base_url, retry_after_s, d);
		if (err)
			err->retry_after_s = retry_after_s;
	} else if (status >= 500 && status <= 599)
		r = fail(err, -EAGAIN, TT_SERVER, true, status,
			 "server error (HTTP %ld) from %s: will retry%s", status, c->base_url, d);
	else if (status < 200 || status > 299)
		r = fail(err, -EPROTO, TT_HTTP, status_retryable(status), status,
			 "unexpected HTTP %ld from %s%s", status, c->base_url, d);
	else {
		struct json_object *choices, *first, *message, *content, *v;

		if (!root || !json_object_is_type(root, json_type_object) ||
		    !json_object_object_get_ex(root, "choices", &choices) ||
		    !json_object_is_type(choices, json_type_array) ||
		    json_object_array_length(choices) == 0 ||
		    !(first = json_object_array_get_idx(choices, 0)) ||
		    !json_object_object_get_ex(first, "message", &message) ||
		    !json_object_object_get_ex(message, "content", &content) ||
		    !json_object_is_type(content, json_type_string)) {
			r = fail(err, -EPROTO, TT_CHOICES, false, status,
				 "error reading choices: check model_id '%s' (HTTP %ld reply %s)%s",
				 c->model_id, status,
				 root ? "has no choices[0].message.content" : "is not a JSON object", d);
		} else {
			struct taotoken_reply rep = {0};

			rep.content = strdup(json_object_get_string(content));
			if (json_object_object_get_ex(root, "id", &v) &&
			    json_object_is_type(v, json_type_string))
				rep.id = strdup(json_object_get_string(v));
			if (json_object_object_get_ex(root, "usage", &v))
				rep.usage = usage_counts(v);
			/* What the server says is stored and printed: never the
			 * key, or a piece of it, that it may echo. The answer is
			 * withheld when the key's characters are in order within
			 * three times its length (a long answer holds any key's
			 * characters far apart by chance), the id when they are
			 * anywhere in it. */
			if (scrub_str(&rep.content, key, 3) < 0 || scrub_str(&rep.id, key, 0) < 0) {
				taotoken_reply_done(&rep);
				r = -ENOMEM;
			} else if (!rep.content) {
				taotoken_reply_done(&rep);
				r = -ENOMEM;
			} else {
				*ret = rep;
				r = 0;
			}
		}
	}
	json_object_put(root);
	return r;
}

/* ---- libcurl ---- */

static inline void curl_easy_cleanupp(CURL **c)
{
	if (*c)
		cu->easy_cleanup(*c);
}
/* Our header list holds a copy of "Authorization: Bearer KEY": wipe
 * every entry before freeing it. libcurl's own copies (the request it
 * builds, its connection buffers) are out of our reach and cannot be
 * wiped; PR_SET_DUMPABLE 0 (taotoken_protect_process()) keeps them out of
 * core files. */
static inline void curl_slist_free_allp(struct curl_slist **l)
{
	for (struct curl_slist *e = *l; e; e = e->next)
		if (e->data)
			explicit_bzero(e->data, strlen(e->data));
	if (*l)
		cu->slist_free_all(*l);
}

struct body {
	char *data;
	size_t len;
	bool too_big;
};

static size_t body_write(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct body *b = userdata;
	size_t n = size * nmemb;
	char *p;

	if (b->len + n > TAOTOKEN_MAX_REPLY) {
		b->too_big = true;
		return 0;
	}
	p = realloc(b->data, b->len + n + 1);
	if (!p)
		return 0;
	memcpy(p + b->len, ptr, n);
	b->data = p;
	b->len += n;
	b->data[b->len] = '\0';
	return n;
}

/* Does host match an entry of no_proxy (curl's rules: "*", exact, or a
 * domain suffix with or without a leading dot)? */
static bool no_proxy_matches(const char *no_proxy, const char *host)
{
	_cleanup_free_ char *list = strdup(no_proxy), *h = strdup(host);
	char *save = NULL;

	if (!list || !h)
		return false;
	if (h[0] == '[') { /* [::1] -> ::1 */
		memmove(h, h + 1, strlen(h));
		h[strcspn(h, "]")] = '\0';
	}
	for (char *e = strtok_r(list, ", ", &save); e; e = strtok_r(NULL, ", ", &save)) {
		size_t hl = strlen(h), el;

		if (streq(e, "*"))
			return true;
		if (*e == '.')
			e++;
		el = strlen(e);
		if (el == 0)
			continue;
		if (strcasecmp(h, e) == 0 ||
		    (hl > el && h[hl - el - 1] == '.' && strcasecmp(h + hl - el, e) == 0))
			return true;
	}
	return false;
}

/* The proxy variable libcurl will use for url ("http_proxy=..."), with
 * credentials in the proxy URL masked, or NULL when no proxy applies.
 * libcurl reads http_proxy only in lower case. */
static char *proxy_in_use(const char *url)
{
	static const char *const https_vars[] = {"https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
						 NULL};
	static const char *const http_vars[] = {"http_proxy", "all_proxy", "ALL_PROXY", NULL};
	_cleanup_free_ char *scheme = NULL, *host = NULL;
	const char *const *vars;
	const char *np;

	if (url_parts(url, &scheme, &host) < 0)
		return NULL;
	if (host_is_loopback(host))
		return NULL; /* taotoken_chat() sets CURLOPT_NOPROXY "*" */
	np = getenv("no_proxy");
	if (empty(np))
		np = getenv("NO_PROXY");
	if (!empty(np) && no_proxy_matches(np, host))
		return NULL;
	vars = streq(scheme, "https") ? https_vars : http_vars;
	for (; *vars; vars++) {
		const char *v = getenv(*vars);
		const char *at, *sep;

		if (empty(v))
			continue;
		at = strrchr(v, '@');
		sep = strstr(v, "://");
		if (at) /* mask user:password@ */
			return strprintf("%s=%.*s***@%s", *vars, sep ? (int)(sep + 3 - v) : 0, v, at + 1);
		return strprintf("%s=%s", *vars, v);
	}
	return NULL;
}

/* The one translation of CURLcode: kind, retry, and the remedy. */
static const struct curl_error_map {
	CURLcode code;
	enum taotoken_error_kind kind;
	bool retry;
	const char *what;
} curl_errors[] = {
    {CURLE_COULDNT_RESOLVE_PROXY, TT_PROXY, true, "cannot resolve the proxy"},
    {CURLE_PROXY, TT_PROXY, true, "proxy handshake failed"},
    {CURLE_COULDNT_RESOLVE_HOST, TT_CONNECT, true,
     "cannot resolve the host of base_url: check base_url and DNS"},
    {CURLE_COULDNT_CONNECT, TT_CONNECT, true, "cannot connect: check base_url and the network"},
    {CURLE_OPERATION_TIMEDOUT, TT_TIMEOUT, true, "timed out: will retry"},
    {CURLE_PEER_FAILED_VERIFICATION, TT_TLS, false,
     "TLS certificate verification failed: for a private CA set CURL_CA_BUNDLE or SSL_CERT_FILE"},
    {CURLE_SSL_CACERT_BADFILE, TT_TLS, false,
     "cannot read the CA bundle named by CURL_CA_BUNDLE/SSL_CERT_FILE"},
    {CURLE_SSL_CONNECT_ERROR, TT_TLS, true, "TLS handshake failed"},
    {CURLE_GOT_NOTHING, TT_SERVER, true, "the server closed the connection without a reply: will retry"},
    {CURLE_SEND_ERROR, TT_HTTP, true, "sending failed: will retry"},
    {CURLE_RECV_ERROR, TT_HTTP, true, "receiving failed: will retry"},
    {CURLE_PARTIAL_FILE, TT_HTTP, true, "the reply was cut short: will retry"},
    {CURLE_WRITE_ERROR, TT_CHOICES, false, "the reply is larger than 1 MiB"},
    {CURLE_UNSUPPORTED_PROTOCOL, TT_CONFIG, false, "unsupported scheme in base_url (use https://)"},
    {CURLE_URL_MALFORMAT, TT_CONFIG, false, "malformed base_url"},
};

static int curl_fail(struct taotoken_error *err, CURL *curl, CURLcode code, const char *url,
		     const char *errbuf, long timeout_ms)
{
	const struct curl_error_map *m = NULL;
	_cleanup_free_ char *proxy = proxy_in_use(url);
	long connect_code = 0;
	/* libcurl's fixed text keeps messages exact and searchable; the error
	 * buffer (with timings) only where it names the cause (TLS). */
	const char *why = cu->easy_strerror(code);

	log_debug("taotoken: curl %d: %s", (int)code, errbuf);
	for (size_t i = 0; i < ARRAY_SIZE(curl_errors); i++)
		if (curl_errors[i].code == code)
			m = &curl_errors[i];
	cu->easy_getinfo(curl, CURLINFO_HTTP_CONNECTCODE, &connect_code);

	/* Through a proxy, libcurl only ever connects to the proxy itself, so
	 * a connect failure or a refused CONNECT is the local proxy's. */
	if ((m && m->kind == TT_PROXY) ||
	    (proxy && (code == CURLE_COULDNT_CONNECT || code == CURLE_RECV_ERROR ||
		       (connect_code != 0 && (connect_code < 200 || connect_code > 299))))) {
		long px = 0;
		char extra[64] = "";

		if (code == CURLE_PROXY && cu->easy_getinfo(curl, CURLINFO_PROXY_ERROR, &px) == CURLE_OK &&
		    px)
			snprintf(extra, sizeof(extra), " [proxy error %ld]", px);
		else if (connect_code && (connect_code < 200 || connect_code > 299))
			snprintf(extra, sizeof(extra), " [CONNECT answered %ld]", connect_code);
		return fail(err, -EHOSTUNREACH, TT_PROXY, true, 0,
			    "local proxy failed: check https_proxy/http_proxy/no_proxy (%s): %s (curl %d)%s",
			    proxy ? proxy : "no proxy variable set", why, (int)code, extra);
	}
	if (code == CURLE_OPERATION_TIMEDOUT)
		return fail(err, -ETIMEDOUT, TT_TIMEOUT, true, 0,
			    "no reply from %s within %ld s (timeout): will retry", url,
			    (timeout_ms + 999) / 1000);
	if (m && m->kind == TT_TLS && *errbuf)
		why = errbuf;
	if (m)
		return fail(err,
			    m->kind == TT_TLS	   ? -EKEYREJECTED
			    : m->kind == TT_CONFIG ? -EINVAL
						   : -ECOMM,
			    m->kind, m->retry, 0, "%s: %s: %s (curl %d)", url, m->what, why, (int)code);
	return fail(err, -ECOMM, TT_HTTP, true, 0, "%s: %s (curl %d): will retry", url, why, (int)code);
}

/* Which key was rejected, without showing it. */
static void key_rejected_detail(const struct taotoken_config *c, const char *key, struct taotoken_error *err)
{
	_cleanup_free_ char *fp = taotoken_key_fingerprint(key);
	size_t n = strlen(err->message);

	if (!fp)
		return;
	if (!empty(c->api_key_file))
		snprintf(err->message + n, sizeof(err->message) - n, " [key %s from key file %s]", fp,
			 c->api_key_file);
	else
		snprintf(err->message + n, sizeof(err->message) - n, " [key %s from $%s]", fp,
			 strna(c->api_key_env));
}

int taotoken_chat(const struct taotoken_config *c, const char *key, const char *system_prompt,
		  const char *user_content, unsigned max_tokens, long timeout_ms, struct taotoken_reply *ret,
		  struct taotoken_error *err)
{
	_cleanup_(curl_easy_cleanupp) CURL *curl = NULL;
	_cleanup_(curl_slist_free_allp) struct curl_slist *headers = NULL;
	_cleanup_free_ char *url = NULL, *auth = NULL, *scheme = NULL, *host = NULL;
	struct json_object *req;
	struct body b = {0};
	char errbuf[CURL_ERROR_SIZE] = "";
	const char *ca;
	CURLcode code;
	curl_off_t retry_after = -1;
	long status = 0;
	size_t bl;
	int r;

	r = taotoken_config_check(c, err); /* loads libcurl */
	if (r < 0)
		return r;
	r = url_parts(c->base_url, &scheme, &host);
	if (r < 0)
		return r;
	bl = strlen(c->base_url);
	while (bl > 0 && c->base_url[bl - 1] == '/')
		bl--;
	url = strprintf("%.*s" TAOTOKEN_CHAT_PATH, (int)bl, c->base_url);
	auth = strprintf("Authorization: Bearer %s", key);
	curl = cu->easy_init();
	req = taotoken_request_json(c, system_prompt, user_content, max_tokens);
	if (!url || !auth || !curl || !req) {
		json_object_put(req);
		if (auth)
			explicit_bzero(auth, strlen(auth));
		return -ENOMEM;
	}
	headers = cu->slist_append(headers, auth);
	explicit_bzero(auth, strlen(auth));
	headers = cu->slist_append(headers, "Content-Type: application/json");
	headers = cu->slist_append(headers, "Accept: application/json");
	headers = cu->slist_append(headers, "Expect:");

	cu->easy_setopt(curl, CURLOPT_URL, url);
	if (cu->easy_setopt(curl, OPT_PROTOCOLS_STR, "http,https") != CURLE_OK)
		cu->easy_setopt(curl, OPT_PROTOCOLS, PROTO_HTTP_HTTPS);
	cu->easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
	cu->easy_setopt(curl, CURLOPT_COPYPOSTFIELDS,
			json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN));
	json_object_put(req);
	cu->easy_setopt(curl, CURLOPT_USERAGENT, "cx5prof/" CX5PROF_VERSION);
	cu->easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	cu->easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
	/* Loopback never goes through a proxy: with plain http the proxy would
	 * read the Authorization header in clear text (and a proxy's loopback
	 * is not ours anyway). */
	if (host_is_loopback(host))
		cu->easy_setopt(curl, CURLOPT_NOPROXY, "*");
	cu->easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
	cu->easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms < 10000 ? timeout_ms : 10000L);
	cu->easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
	cu->easy_setopt(curl, CURLOPT_WRITEFUNCTION, body_write);
	cu->easy_setopt(curl, CURLOPT_WRITEDATA, &b);
	/* The standard curl variables for a private CA; verification stays on. */
	ca = getenv("CURL_CA_BUNDLE");
	if (empty(ca))
		ca = getenv("SSL_CERT_FILE");
	if (!empty(ca))
		cu->easy_setopt(curl, CURLOPT_CAINFO, ca);

	code = cu->easy_perform(curl);
	if (code != CURLE_OK) {
		r = curl_fail(err, curl, code, url, errbuf, timeout_ms);
		if (b.too_big)
			r = fail(err, -EPROTO, TT_CHOICES, false, 0,
				 "error reading choices: check model_id '%s' (reply larger than 1 MiB)",
				 c->model_id);
		free(b.data);
		if (err) {
			scrub(err->message, sizeof(err->message), key);
			log_debug("taotoken: %s", err->message);
		}
		return r;
	}
	cu->easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
	cu->easy_getinfo(curl, CURLINFO_RETRY_AFTER, &retry_after);
	r = parse_reply(c, key, status, b.data, b.len, retry_after > 0 ? (int64_t)retry_after : -1, ret, err);
	free(b.data);
	if (r < 0 && err) {
		scrub(err->message, sizeof(err->message), key);
		if (err->kind == TT_KEY_REJECTED)
			key_rejected_detail(c, key, err);
		log_debug("taotoken: %s", err->message);
	}
	return r;
}
