/* test_taotoken.c: the TaoToken reply parser, config check, key file rules
 * and request body; exact messages, since operators search for them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "mirror/mirror.h"
#include "mirror/taotoken.h"

static const struct taotoken_config cfg = {
    .source = "mirror.yaml",
    .base_url = "https://taotoken.net/api",
    .api_key_file = "/nonexistent",
    .model_id = "gpt-4o-mini",
    .task = "cx5-lab",
};

static int parse(long status, const char *body, int64_t retry_after, struct taotoken_reply *rep,
		 struct taotoken_error *err)
{
	*rep = (struct taotoken_reply){0};
	*err = (struct taotoken_error){0};
	return taotoken_parse_reply(&cfg, status, body, body ? strlen(body) : 0, retry_after, rep, err);
}

static void test_success(void **state)
{
	struct taotoken_reply rep;
	struct taotoken_error err;
	(void)state;

	assert_int_equal(
	    parse(200,
		  "{\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
		  "\"content\":\"OK\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":12,"
		  "\"completion_tokens\":1,\"total_tokens\":13}}",
		  -1, &rep, &err),
	    0);
	assert_string_equal(rep.id, "chatcmpl-1");
	assert_string_equal(rep.content, "OK");
	assert_string_equal(rep.usage, "{\"prompt_tokens\":12,\"completion_tokens\":1,\"total_tokens\":13}");
	taotoken_reply_done(&rep);

	/* no id, no usage: still a reply */
	assert_int_equal(parse(200, "{\"choices\":[{\"message\":{\"content\":\"\"}}]}\n", -1, &rep, &err), 0);
	assert_null(rep.id);
	assert_null(rep.usage);
	assert_string_equal(rep.content, "");
	taotoken_reply_done(&rep);
}

static void test_choices_missing(void **state)
{
	static const char *const bodies[] = {
	    "{\"id\":\"x\",\"object\":\"chat.completion\"}",
	    "{\"choices\":[]}",
	    "{\"choices\":{}}",
	    "{\"choices\":[{\"message\":{}}]}",
	    "{\"choices\":[{\"message\":{\"content\":null}}]}",
	    "{\"choices\":[{\"text\":\"legacy\"}]}",
	    "[]",
	};
	struct taotoken_reply rep;
	struct taotoken_error err;
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(bodies); i++) {
		assert_int_equal(parse(200, bodies[i], -1, &rep, &err), -EPROTO);
		assert_int_equal(err.kind, TT_CHOICES);
		assert_false(err.retry);
		assert_string_equal(err.message,
				    "error reading choices: check model_id 'gpt-4o-mini' (HTTP 200 reply "
				    "has no choices[0].message.content)");
	}
}

static void test_garbage(void **state)
{
	static const char *const bodies[] = {
	    "<html>502 Bad Gateway</html>", "{\"choices\":[", "",
	    "{\"choices\":[]} trailing",    "\x01\x02\xff",   "null",
	};
	struct taotoken_reply rep;
	struct taotoken_error err;
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(bodies); i++) {
		assert_int_equal(parse(200, bodies[i], -1, &rep, &err), -EPROTO);
		assert_int_equal(err.kind, TT_CHOICES);
		assert_string_equal(err.message, "error reading choices: check model_id 'gpt-4o-mini' (HTTP "
						 "200 reply is not a JSON object)");
	}
	/* NULL body */
	assert_int_equal(parse(200, NULL, -1, &rep, &err), -EPROTO);
	assert_int_equal(err.kind, TT_CHOICES);
}

static void test_key_rejected(void **state)
{
	struct taotoken_reply rep;
	struct taotoken_error err;
	(void)state;

	assert_int_equal(parse(401,
			       "{\"error\":{\"message\":\"Invalid "
			       "token\",\"type\":\"invalid_request_error\",\"code\":null}}",
			       -1, &rep, &err),
			 -EACCES);
	assert_int_equal(err.kind, TT_KEY_REJECTED);
	assert_false(err.retry);
	assert_int_equal(err.http_status, 401);
	assert_string_equal(err.message,
			    "key rejected (HTTP 401) by https://taotoken.net/api: expired or revoked? stray "
			    "whitespace or newline in the key file? (server: Invalid token)");
	assert_int_equal(parse(403, "forbidden", -1, &rep, &err), -EACCES);
	assert_string_equal(err.message,
			    "key rejected (HTTP 403) by https://taotoken.net/api: expired or revoked? stray "
			    "whitespace or newline in the key file?");
}

static void test_not_found(void **state)
{
	struct taotoken_reply rep;
	struct taotoken_error err;
	(void)state;

	assert_int_equal(
	    parse(404, "{\"error\":{\"message\":\"model not found\",\"code\":404}}", -1, &rep, &err),
	    -ENOENT);
	assert_int_equal(err.kind, TT_NOT_FOUND);
	assert_false(err.retry);
	assert_string_equal(err.message,
			    "HTTP 404 from https://taotoken.net/api/v1/chat/completions: check base_url (it "
			    "ends before /v1, e.g. https://taotoken.net/api) and model_id 'gpt-4o-mini' "
			    "(server: model not found)");

	/* The server's text stays on one line: newlines become spaces. */
	assert_int_equal(
	    parse(404, "{\"error\":{\"message\":\"model not found\\nsecond\\tline\"}}", -1, &rep, &err),
	    -ENOENT);
	assert_non_null(strstr(err.message, "(server: model not found second line)"));
}

static void test_429(void **state)
{
	struct taotoken_reply rep;
	struct taotoken_error err;
	(void)state;

	/* insufficient_quota as type, and as code: never retried */
	assert_int_equal(parse(429,
			       "{\"error\":{\"message\":\"You exceeded your current "
			       "quota\",\"type\":\"insufficient_quota\",\"code\":null}}",
			       5, &rep, &err),
			 -EDQUOT);
	assert_int_equal(err.kind, TT_QUOTA);
	assert_false(err.retry);
	assert_string_equal(err.message,
			    "quota exhausted (HTTP 429 insufficient_quota) for this key: not retrying; add "
			    "credit or use another key, then run 'cx5prof mirror --now' (server: You "
			    "exceeded your current quota)");
	assert_int_equal(
	    parse(429,
		  "{\"error\":{\"message\":\"q\",\"type\":\"requests\",\"code\":\"insufficient_quota\"}}", -1,
		  &rep, &err),
	    -EDQUOT);
	assert_int_equal(err.kind, TT_QUOTA);

	/* rate limit: retried after Retry-After */
	assert_int_equal(parse(429,
			       "{\"error\":{\"message\":\"Rate limit "
			       "reached\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}",
			       7, &rep, &err),
			 -EAGAIN);
	assert_int_equal(err.kind, TT_RATE_LIMITED);
	assert_true(err.retry);
	assert_int_equal(err.retry_after_s, 7);
	assert_string_equal(
	    err.message,
	    "rate limited (HTTP 429): will retry after 7 s (Retry-After) (server: Rate limit reached)");
	assert_int_equal(parse(429, "", -1, &rep, &err), -EAGAIN);
	assert_int_equal(err.retry_after_s, -1);
	assert_string_equal(err.message, "rate limited (HTTP 429): will retry");
}

static void test_5xx_and_other(void **state)
{
	struct taotoken_reply rep;
	struct taotoken_error err;
	(void)state;

	assert_int_equal(
	    parse(500, "{\"error\":{\"message\":\"upstream failed\",\"code\":500}}", -1, &rep, &err),
	    -EAGAIN);
	assert_int_equal(err.kind, TT_SERVER);
	assert_true(err.retry);
	assert_string_equal(
	    err.message,
	    "server error (HTTP 500) from https://taotoken.net/api: will retry (server: upstream failed)");
	assert_int_equal(parse(503, "<html>", -1, &rep, &err), -EAGAIN);
	assert_int_equal(err.kind, TT_SERVER);
	assert_int_equal(parse(400, "{\"error\":\"bad request\"}", -1, &rep, &err), -EPROTO);
	assert_int_equal(err.kind, TT_HTTP);
	assert_string_equal(err.message,
			    "unexpected HTTP 400 from https://taotoken.net/api (server: bad request)");
}

static void test_retry_decisions(void **state)
{
	static const struct {
		long status;
		bool retry;
	} cases[] = {{400, false}, {402, false}, {405, false}, {408, true}, {409, true},
		     {413, false}, {422, false}, {451, false}, {302, true}};
	struct taotoken_reply rep;
	struct taotoken_error err;
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(parse(cases[i].status, "{}", -1, &rep, &err), -EPROTO);
		assert_int_equal(err.kind, TT_HTTP);
		assert_int_equal(err.http_status, cases[i].status);
		if (err.retry != cases[i].retry)
			fail_msg("HTTP %ld: retry %d, expected %d", cases[i].status, err.retry,
				 cases[i].retry);
	}

	/* 503 with Retry-After: honoured like 429's */
	assert_int_equal(parse(503, "{\"error\":{\"message\":\"overloaded\"}}", 30, &rep, &err), -EAGAIN);
	assert_int_equal(err.kind, TT_SERVER);
	assert_true(err.retry);
	assert_int_equal(err.retry_after_s, 30);
	assert_string_equal(err.message,
			    "server error (HTTP 503) from https://taotoken.net/api: will retry after "
			    "30 s (Retry-After) (server: overloaded)");
	assert_int_equal(parse(503, "", -1, &rep, &err), -EAGAIN);
	assert_int_equal(err.retry_after_s, -1);
	assert_string_equal(err.message, "server error (HTTP 503) from https://taotoken.net/api: will retry");
	/* other 5xx: the backoff decides */
	assert_int_equal(parse(500, "", 30, &rep, &err), -EAGAIN);
	assert_int_equal(err.retry_after_s, -1);
}

static char *repeat(char c, size_t n, const char *tail)
{
	char *s = malloc(n + strlen(tail) + 1);

	assert_non_null(s);
	memset(s, c, n);
	strcpy(s + n, tail);
	return s;
}

static void test_server_detail(void **state)
{
	static const char key[] = "sk-test-0123456789abcdef";
	_cleanup_free_ char *m190 = repeat('x', 190, "sk-test-0123456789abcdef is not valid");
	_cleanup_free_ char *e190 = repeat('x', 190, "<key> is n");
	_cleanup_free_ char *frag = repeat('y', 195, "sk-test-01 (cut)");
	_cleanup_free_ char *efrag = repeat('y', 195, "<key>");
	_cleanup_free_ char *frag3 = repeat('y', 197, "sk-test");
	_cleanup_free_ char *efrag3 = repeat('y', 197, "");
	char *d, want[512];
	(void)state;

	/* the key echoed at character 190: masked before the 200-character cut */
	d = taotoken_server_detail(m190, key);
	snprintf(want, sizeof(want), " (server: %s)", e190);
	assert_string_equal(d, want);
	assert_null(strstr(d, "sk-t"));
	free(d);

	/* a piece at the cut is masked before it, and the mask is never cut in two */
	d = taotoken_server_detail(frag, key);
	snprintf(want, sizeof(want), " (server: %s)", efrag);
	assert_string_equal(d, want);
	free(d);
	d = taotoken_server_detail(frag3, key);
	snprintf(want, sizeof(want), " (server: %s)", efrag3);
	assert_string_equal(d, want);
	free(d);

	/* any piece of 4 or more letters and digits, anywhere: prefix, suffix, middle */
	d = taotoken_server_detail("a abcdefgh b bcdefghijk c cdefghij d abcdefg e abc", "abcdefghijk");
	assert_string_equal(d, " (server: a <key> b <key> c <key> d <key> e abc)");
	free(d);

	/* in pieces of 7, one character at a time, upper-cased, across separators */
	d = taotoken_server_detail("key sk-test-0 123456 789abcd ef!", key);
	assert_string_equal(d, " (server: key <key>!)");
	free(d);
	d = taotoken_server_detail("got: S K - T E S T - 0 1 2, then 3.4.5.6", key);
	assert_string_equal(d, " (server: got: <key>, then <key>)");
	free(d);
	/* spread between other characters: it still spells the key, so none of it is kept */
	d = taotoken_server_detail("sxkxtxexsxtx0x1x2x3x4x5x6x7x8x9xaxbxcxdxexf", key);
	assert_string_equal(d, " (server: message withheld: it spells the key)");
	free(d);

	/* keys without letters or digits, keys shorter than the mask: every occurrence, and the search ends
	 */
	d = taotoken_server_detail("a *** b **** c", "***");
	assert_string_equal(d, " (server: a <key> b <key>* c)");
	free(d);
	d = taotoken_server_detail("banana", "a");
	assert_string_equal(d, " (server: b<key>n<key>n<key>)");
	free(d);
	d = taotoken_server_detail("**", "***");
	assert_string_equal(d, " (server: **)");
	free(d);

	/* no key, no message; control characters become spaces */
	d = taotoken_server_detail("line1\nline2\x1b[0m", NULL);
	assert_string_equal(d, " (server: line1 line2 [0m)");
	free(d);
	d = taotoken_server_detail("", key);
	assert_string_equal(d, "");
	free(d);
	d = taotoken_server_detail(NULL, key);
	assert_string_equal(d, "");
	free(d);
}

static void test_row_permanent(void **state)
{
	struct taotoken_error e = {0};
	(void)state;

	/* refused for its content or size: at once */
	e.kind = TT_HTTP;
	for (long st = 400; st <= 422; st++) {
		e.http_status = st;
		assert_int_equal(mirror_row_permanent(&e, 1), st == 400 || st == 413 || st == 422);
	}
	/* any other HTTP error reply: after MIRROR_MAX_ATTEMPTS */
	e.http_status = 408;
	assert_false(mirror_row_permanent(&e, MIRROR_MAX_ATTEMPTS - 1));
	assert_true(mirror_row_permanent(&e, MIRROR_MAX_ATTEMPTS));
	/* a transfer error without a reply is the network's, never the row's */
	e.http_status = 0;
	assert_false(mirror_row_permanent(&e, 1000));
	/* 200 without choices: after MIRROR_CHOICES_ATTEMPTS */
	e.kind = TT_CHOICES;
	e.http_status = 200;
	assert_false(mirror_row_permanent(&e, MIRROR_CHOICES_ATTEMPTS - 1));
	assert_true(mirror_row_permanent(&e, MIRROR_CHOICES_ATTEMPTS));
	/* the key, the account, the gateway: never, however many attempts */
	for (int k = 0; k < _TT_KIND_MAX; k++) {
		if (k == TT_HTTP || k == TT_CHOICES)
			continue;
		e.kind = k;
		e.http_status = k == TT_KEY_REJECTED ? 401
				: k == TT_NOT_FOUND  ? 404
				: k == TT_QUOTA	     ? 429
						     : 500;
		assert_false(mirror_row_permanent(&e, 1000000));
	}
}

static void test_local_error(void **state)
{
	struct taotoken_error e = {.kind = TT_OK, .retry = false, .http_status = 0};
	(void)state;

	/* a failure that left err untouched: local, retryable */
	mirror_local_error(-ENOMEM, &e);
	assert_int_equal(e.kind, TT_HTTP);
	assert_true(e.retry);
	assert_int_equal(e.retry_after_s, -1);
	assert_int_equal(e.http_status, 0);
	assert_string_equal(e.message,
			    "local error before the request was sent: Cannot allocate memory: will retry");
	assert_false(mirror_row_permanent(&e, 1000));
	/* a filled err is kept */
	e = (struct taotoken_error){.kind = TT_KEY_REJECTED, .http_status = 401};
	strcpy(e.message, "key rejected");
	mirror_local_error(-EACCES, &e);
	assert_int_equal(e.kind, TT_KEY_REJECTED);
	assert_string_equal(e.message, "key rejected");
}

static void test_config_check(void **state)
{
	struct taotoken_error err;
	struct taotoken_config c;
	(void)state;

	c = cfg;
	assert_int_equal(taotoken_config_check(&c, &err), 0);
	c.base_url = NULL;
	assert_int_equal(taotoken_config_check(&c, &err), -EINVAL);
	assert_int_equal(err.kind, TT_CONFIG);
	assert_string_equal(err.message,
			    "mirror.yaml: base_url is missing (e.g. base_url: https://taotoken.net/api)");
	c = cfg;
	c.model_id = "";
	assert_int_equal(taotoken_config_check(&c, &err), -EINVAL);
	assert_string_equal(err.message, "mirror.yaml: model_id is missing");
	c = cfg;
	c.api_key_file = NULL;
	assert_int_equal(taotoken_config_check(&c, &err), -EINVAL);
	assert_string_equal(err.message, "mirror.yaml: api_key_file or api_key_env is missing");
	c.api_key_env = "TAOTOKEN_KEY";
	assert_int_equal(taotoken_config_check(&c, &err), 0);

	c = cfg;
	c.base_url = "http://127.0.0.1:8080/api";
	assert_int_equal(taotoken_config_check(&c, &err), 0);
	c.base_url = "http://localhost:8080";
	assert_int_equal(taotoken_config_check(&c, &err), 0);
	c.base_url = "http://[::1]:8080";
	assert_int_equal(taotoken_config_check(&c, &err), 0);
	c.base_url = "http://taotoken.net/api";
	assert_int_equal(taotoken_config_check(&c, &err), -EINVAL);
	assert_string_equal(
	    err.message, "mirror.yaml: base_url 'http://taotoken.net/api': plain http is accepted only for a "
			 "loopback host (the key would cross the network in clear text): use https://");
	c.base_url = "http://127.0.0.1.evil.example/api";
	assert_int_equal(taotoken_config_check(&c, &err), -EINVAL);
	c.base_url = "ftp://taotoken.net";
	assert_int_equal(taotoken_config_check(&c, &err), -EINVAL);
	assert_string_equal(err.message, "mirror.yaml: base_url 'ftp://taotoken.net': scheme must be "
					 "https:// (or http:// to a loopback host)");
}

static char tmpdir[] = "/tmp/test_taotoken.XXXXXX";

static const char *key_file(const char *content, mode_t mode)
{
	static char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/key", tmpdir);
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
	return path;
}

static void test_key_file(void **state)
{
	struct taotoken_config c = cfg;
	struct taotoken_error err;
	char *key = NULL, msg[512];
	(void)state;

	assert_non_null(mkdtemp(tmpdir));

	c.api_key_file = key_file("sk-test-0123456789abcdef\n", 0600);
	assert_int_equal(taotoken_key_load(&c, &key, &err), 0);
	assert_string_equal(key, "sk-test-0123456789abcdef"); /* one newline stripped */
	taotoken_key_free(key);

	c.api_key_file = key_file("sk-test-0123456789abcdef", 0400);
	assert_int_equal(taotoken_key_load(&c, &key, &err), 0);
	assert_string_equal(key, "sk-test-0123456789abcdef");
	taotoken_key_free(key);

	c.api_key_file = key_file("sk-test-0123456789abcdef\r\n", 0600);
	assert_int_equal(taotoken_key_load(&c, &key, &err), 0);
	assert_string_equal(key, "sk-test-0123456789abcdef");
	taotoken_key_free(key);

	c.api_key_file = key_file("sk-test-0123456789abcdef\n\n", 0600);
	assert_int_equal(taotoken_key_load(&c, &key, &err), -EINVAL);
	assert_int_equal(err.kind, TT_KEY);
	snprintf(
	    msg, sizeof(msg),
	    "key file %s: the key contains whitespace or a control character at byte 25 (only one trailing "
	    "newline is ignored): remove it",
	    c.api_key_file);
	assert_string_equal(err.message, msg);

	c.api_key_file = key_file(" sk-test\n", 0600);
	assert_int_equal(taotoken_key_load(&c, &key, &err), -EINVAL);
	c.api_key_file = key_file("sk-test \n", 0600);
	assert_int_equal(taotoken_key_load(&c, &key, &err), -EINVAL);

	c.api_key_file = key_file("\n", 0600);
	assert_int_equal(taotoken_key_load(&c, &key, &err), -EINVAL);
	snprintf(msg, sizeof(msg), "key file %s: the key is empty", c.api_key_file);
	assert_string_equal(err.message, msg);

	c.api_key_file = key_file("sk-test-0123456789abcdef\n", 0644);
	assert_int_equal(taotoken_key_load(&c, &key, &err), -EACCES);
	snprintf(msg, sizeof(msg),
		 "key file %s is accessible by group or others (mode 0644): refusing it, as ssh does; run: "
		 "chmod 600 %s",
		 c.api_key_file, c.api_key_file);
	assert_string_equal(err.message, msg);
	assert_null(strstr(err.message, "sk-test"));

	c.api_key_file = key_file("sk-test-0123456789abcdef\n", 0640);
	assert_int_equal(taotoken_key_load(&c, &key, &err), -EACCES);

	unlink(c.api_key_file);
	assert_int_equal(taotoken_key_load(&c, &key, &err), -ENOENT);
	snprintf(msg, sizeof(msg), "key file %s (api_key_file): No such file or directory", c.api_key_file);
	assert_string_equal(err.message, msg);
	rmdir(tmpdir);
}

static void test_key_env(void **state)
{
	struct taotoken_config c = cfg;
	struct taotoken_error err;
	char *key = NULL;
	(void)state;

	c.api_key_file = NULL;
	c.api_key_env = "CX5_TEST_TAOTOKEN_KEY";
	unsetenv("CX5_TEST_TAOTOKEN_KEY");
	assert_int_equal(taotoken_key_load(&c, &key, &err), -ENOENT);
	assert_string_equal(err.message,
			    "environment variable CX5_TEST_TAOTOKEN_KEY (api_key_env) is not set or empty");
	setenv("CX5_TEST_TAOTOKEN_KEY", "sk-env-key-0123456789", 1);
	{
		struct rlimit core = {1024, RLIM_INFINITY};

		assert_int_equal(prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), 0);
		(void)setrlimit(RLIMIT_CORE, &core);
	}
	assert_int_equal(taotoken_key_load(&c, &key, &err), 0);
	/* once a key is in memory, the process cannot dump core */
	{
		struct rlimit core;

		assert_int_equal(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 0);
		assert_int_equal(getrlimit(RLIMIT_CORE, &core), 0);
		assert_int_equal(core.rlim_cur, 0);
	}
	assert_string_equal(key, "sk-env-key-0123456789");
	taotoken_key_free(key);
	setenv("CX5_TEST_TAOTOKEN_KEY", "sk-env key", 1);
	assert_int_equal(taotoken_key_load(&c, &key, &err), -EINVAL);
	unsetenv("CX5_TEST_TAOTOKEN_KEY");
}

static void test_fingerprint(void **state)
{
	_cleanup_free_ char *fp = taotoken_key_fingerprint("sk-test-0123456789abcdef");
	_cleanup_free_ char *shortfp = taotoken_key_fingerprint("abc");
	(void)state;

	/* sha256("sk-test-0123456789abcdef") starts with these 8 digits */
	assert_string_equal(fp, "sha256:c871f067");
	assert_string_equal(shortfp, "sha256:ba7816bf");
}

static void test_request_json(void **state)
{
	struct json_object *o = taotoken_request_json(&cfg, "sys", "user text", 16);
	(void)state;

	assert_non_null(o);
	assert_string_equal(
	    json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
	    "{\"model\":\"gpt-4o-mini\",\"max_tokens\":16,\"user\":\"cx5-lab\",\"messages\":[{\"role\":"
	    "\"system\",\"content\":\"sys\"},{\"role\":\"user\",\"content\":\"user text\"}]}");
	json_object_put(o);
}

static void test_kind_names(void **state)
{
	(void)state;
	for (int k = 0; k < _TT_KIND_MAX; k++)
		assert_non_null(taotoken_error_kind_to_string(k));
	assert_null(taotoken_error_kind_to_string(_TT_KIND_MAX));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_success),	    cmocka_unit_test(test_choices_missing),
	    cmocka_unit_test(test_garbage),	    cmocka_unit_test(test_key_rejected),
	    cmocka_unit_test(test_not_found),	    cmocka_unit_test(test_429),
	    cmocka_unit_test(test_5xx_and_other),   cmocka_unit_test(test_config_check),
	    cmocka_unit_test(test_retry_decisions), cmocka_unit_test(test_server_detail),
	    cmocka_unit_test(test_row_permanent),   cmocka_unit_test(test_local_error),
	    cmocka_unit_test(test_key_file),	    cmocka_unit_test(test_key_env),
	    cmocka_unit_test(test_fingerprint),	    cmocka_unit_test(test_request_json),
	    cmocka_unit_test(test_kind_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
